// SPDX-License-Identifier: MIT
// Per-generation deltas of the opcode mnemonics over the gfx9 base table, and the lookup by target.
// Each generation's names are as llvm-mc-15 disassembles them for that -mcpu; a delta lists only
// what differs from the parent generation.
#include <cstring>
#include <mutex>

#include "emu/shader/opnames.h"

namespace emu::shader {

extern const char* const kBaseOpNames[kEncodingRows];
extern const char* const kBaseMimgNames;

namespace {

// Row numbers by encoding name, for the delta lists below.
constexpr uint8_t kRowSop2 = 0;
constexpr uint8_t kRowSopk = 1;
constexpr uint8_t kRowSop1 = 2;
constexpr uint8_t kRowSopc = 3;
constexpr uint8_t kRowSopp = 4;
constexpr uint8_t kRowSmem = 5;
constexpr uint8_t kRowVop2 = 6;
constexpr uint8_t kRowVop1 = 7;
constexpr uint8_t kRowVopc = 8;
constexpr uint8_t kRowVop3 = 9;
constexpr uint8_t kRowVop3p = 10;
constexpr uint8_t kRowDs = 11;
constexpr uint8_t kRowFlat = 12;
constexpr uint8_t kRowMubuf = 13;
constexpr uint8_t kRowScratch = 14;
constexpr uint8_t kRowGlobal = 15;
constexpr uint8_t kRowMimg = 16;

// gfx908 (MI100) over the gfx9 base: dot products with accumulate, packed FMAC, MFMA and the
// accumulation registers, float atomics on buffers and global memory.
constexpr OpNameDelta kGfx908[] = {
    {kRowVop2, 0x37, 0x37, "v_dot2c_f32_f16"},
    {kRowVop2, 0x38, 0x38, "v_dot2c_i32_i16"},
    {kRowVop2, 0x39, 0x39, "v_dot4c_i32_i8"},
    {kRowVop2, 0x3a, 0x3a, "v_dot8c_i32_i4"},
    {kRowVop2, 0x3c, 0x3c, "v_pk_fmac_f16"},
    {kRowVop3, 0x137, 0x137, "v_dot2c_f32_f16"},
    {kRowVop3, 0x138, 0x138, "v_dot2c_i32_i16"},
    {kRowVop3, 0x139, 0x139, "v_dot4c_i32_i8"},
    {kRowVop3, 0x13a, 0x13a, "v_dot8c_i32_i4"},
    {kRowVop3, 0x13c, 0x13c, "v_pk_fmac_f16"},
    {kRowVop3p, 0x40, 0x40, "v_mfma_f32_32x32x1f32"},
    {kRowVop3p, 0x41, 0x41, "v_mfma_f32_16x16x1f32"},
    {kRowVop3p, 0x42, 0x42, "v_mfma_f32_4x4x1f32"},
    {kRowVop3p, 0x44, 0x44, "v_mfma_f32_32x32x2f32"},
    {kRowVop3p, 0x45, 0x45, "v_mfma_f32_16x16x4f32"},
    {kRowVop3p, 0x48, 0x48, "v_mfma_f32_32x32x4f16"},
    {kRowVop3p, 0x49, 0x49, "v_mfma_f32_16x16x4f16"},
    {kRowVop3p, 0x4a, 0x4a, "v_mfma_f32_4x4x4f16"},
    {kRowVop3p, 0x4c, 0x4c, "v_mfma_f32_32x32x8f16"},
    {kRowVop3p, 0x4d, 0x4d, "v_mfma_f32_16x16x16f16"},
    {kRowVop3p, 0x50, 0x50, "v_mfma_i32_32x32x4i8"},
    {kRowVop3p, 0x51, 0x51, "v_mfma_i32_16x16x4i8"},
    {kRowVop3p, 0x52, 0x52, "v_mfma_i32_4x4x4i8"},
    {kRowVop3p, 0x54, 0x54, "v_mfma_i32_32x32x8i8"},
    {kRowVop3p, 0x55, 0x55, "v_mfma_i32_16x16x16i8"},
    {kRowVop3p, 0x58, 0x58, "v_accvgpr_read_b32"},
    {kRowVop3p, 0x59, 0x59, "v_accvgpr_write_b32"},
    {kRowVop3p, 0x68, 0x68, "v_mfma_f32_32x32x2bf16"},
    {kRowVop3p, 0x69, 0x69, "v_mfma_f32_16x16x2bf16"},
    {kRowVop3p, 0x6b, 0x6b, "v_mfma_f32_4x4x2bf16"},
    {kRowVop3p, 0x6c, 0x6c, "v_mfma_f32_32x32x4bf16"},
    {kRowVop3p, 0x6d, 0x6d, "v_mfma_f32_16x16x8bf16"},
    {kRowMubuf, 0x4d, 0x4d, "buffer_atomic_add_f32"},
    {kRowMubuf, 0x4e, 0x4e, "buffer_atomic_pk_add_f16"},
    {kRowGlobal, 0x4d, 0x4d, "global_atomic_add_f32"},
    {kRowGlobal, 0x4e, 0x4e, "global_atomic_pk_add_f16"},
};

// gfx90a (MI200) over gfx908: 64-bit FMA/MFMA and float atomics, packed fp32, v_accvgpr_mov, the L2
// writeback/invalidate; the interpolation VOP3s, the DS src2 forms and most image sampling are gone.
constexpr OpNameDelta kGfx90a[] = {
    {kRowVop2, 0x4, 0x4, "v_fmac_f64"},
    {kRowVop1, 0x52, 0x52, "v_accvgpr_mov_b32"},
    {kRowVop3, 0x104, 0x104, "v_fmac_f64"},
    {kRowVop3, 0x192, 0x192, "v_accvgpr_mov_b32"},
    {kRowVop3, 0x274, 0x277, nullptr},
    {kRowVop3, 0x2a1, 0x2a1, "v_mul_legacy_f32"},
    {kRowVop3p, 0x30, 0x30, "v_pk_fma_f32"},
    {kRowVop3p, 0x31, 0x31, "v_pk_mul_f32"},
    {kRowVop3p, 0x32, 0x32, "v_pk_add_f32"},
    {kRowVop3p, 0x33, 0x33, "v_pk_mov_b32"},
    {kRowVop3p, 0x63, 0x63, "v_mfma_f32_32x32x4bf16_1k"},
    {kRowVop3p, 0x64, 0x64, "v_mfma_f32_16x16x4bf16_1k"},
    {kRowVop3p, 0x65, 0x65, "v_mfma_f32_4x4x4bf16_1k"},
    {kRowVop3p, 0x66, 0x66, "v_mfma_f32_32x32x8bf16_1k"},
    {kRowVop3p, 0x67, 0x67, "v_mfma_f32_16x16x16bf16_1k"},
    {kRowVop3p, 0x6e, 0x6e, "v_mfma_f64_16x16x4f64"},
    {kRowVop3p, 0x6f, 0x6f, "v_mfma_f64_4x4x4f64"},
    {kRowDs, 0x5c, 0x5c, "ds_add_f64"},
    {kRowDs, 0x7c, 0x7c, "ds_add_rtn_f64"},
    {kRowDs, 0x80, 0x95, nullptr},
    {kRowDs, 0xc0, 0xd3, nullptr},
    {kRowFlat, 0x4f, 0x4f, "flat_atomic_add_f64"},
    {kRowFlat, 0x50, 0x50, "flat_atomic_min_f64"},
    {kRowFlat, 0x51, 0x51, "flat_atomic_max_f64"},
    {kRowMubuf, 0x28, 0x28, "buffer_wbl2"},
    {kRowMubuf, 0x29, 0x29, "buffer_invl2"},
    {kRowMubuf, 0x4f, 0x4f, "buffer_atomic_add_f64"},
    {kRowMubuf, 0x50, 0x50, "buffer_atomic_min_f64"},
    {kRowMubuf, 0x51, 0x51, "buffer_atomic_max_f64"},
    {kRowGlobal, 0x4f, 0x4f, "global_atomic_add_f64"},
    {kRowGlobal, 0x50, 0x50, "global_atomic_min_f64"},
    {kRowGlobal, 0x51, 0x51, "global_atomic_max_f64"},
    {kRowMimg, 0x21, 0x6f, nullptr},
};

// gfx942 (MI300, llvm-mc-15 -mcpu=gfx940) over gfx90a: v_mac/v_mad f32 give way to FMA, fp8/bf8
// conversions and MFMA, sparse MFMA (smfmac), loads to LDS; no image instructions at all. The
// literal forms v_fma{mk,ak}_f32 were added by hand (the disassembly probe needs their literal).
constexpr OpNameDelta kGfx942[] = {
    {kRowVop2, 0x16, 0x16, nullptr},
    {kRowVop2, 0x17, 0x17, "v_fmamk_f32"},
    {kRowVop2, 0x18, 0x18, "v_fmaak_f32"},
    {kRowVop1, 0x38, 0x38, "v_mov_b64"},
    {kRowVop1, 0x54, 0x54, "v_cvt_f32_fp8"},
    {kRowVop1, 0x55, 0x55, "v_cvt_f32_bf8"},
    {kRowVop1, 0x56, 0x56, "v_cvt_pk_f32_fp8"},
    {kRowVop1, 0x57, 0x57, "v_cvt_pk_f32_bf8"},
    {kRowVop3, 0x116, 0x116, nullptr},
    {kRowVop3, 0x178, 0x178, "v_mov_b64"},
    {kRowVop3, 0x194, 0x194, "v_cvt_f32_fp8"},
    {kRowVop3, 0x195, 0x195, "v_cvt_f32_bf8"},
    {kRowVop3, 0x196, 0x196, "v_cvt_pk_f32_fp8"},
    {kRowVop3, 0x197, 0x197, "v_cvt_pk_f32_bf8"},
    {kRowVop3, 0x1c0, 0x1c1, nullptr},
    {kRowVop3, 0x208, 0x208, "v_lshl_add_u64"},
    {kRowVop3, 0x2a2, 0x2a2, "v_cvt_pk_fp8_f32"},
    {kRowVop3, 0x2a3, 0x2a3, "v_cvt_pk_bf8_f32"},
    {kRowVop3, 0x2a4, 0x2a4, "v_cvt_sr_fp8_f32"},
    {kRowVop3, 0x2a5, 0x2a5, "v_cvt_sr_bf8_f32"},
    {kRowVop3p, 0x3e, 0x3e, "v_mfma_f32_16x16x8_xf32"},
    {kRowVop3p, 0x3f, 0x3f, "v_mfma_f32_32x32x4_xf32"},
    {kRowVop3p, 0x54, 0x55, nullptr},
    {kRowVop3p, 0x56, 0x56, "v_mfma_i32_32x32x16_i8"},
    {kRowVop3p, 0x57, 0x57, "v_mfma_i32_16x16x32_i8"},
    {kRowVop3p, 0x5d, 0x5d, "v_mfma_f32_32x32x4_2b_bf16"},
    {kRowVop3p, 0x5e, 0x5e, "v_mfma_f32_16x16x4_4b_bf16"},
    {kRowVop3p, 0x5f, 0x5f, "v_mfma_f32_4x4x4_16b_bf16"},
    {kRowVop3p, 0x60, 0x60, "v_mfma_f32_32x32x8_bf16"},
    {kRowVop3p, 0x61, 0x61, "v_mfma_f32_16x16x16_bf16"},
    {kRowVop3p, 0x62, 0x62, "v_smfmac_f32_16x16x32_f16"},
    {kRowVop3p, 0x63, 0x63, nullptr},
    {kRowVop3p, 0x64, 0x64, "v_smfmac_f32_32x32x16_f16"},
    {kRowVop3p, 0x65, 0x65, nullptr},
    {kRowVop3p, 0x66, 0x66, "v_smfmac_f32_16x16x32_bf16"},
    {kRowVop3p, 0x67, 0x67, nullptr},
    {kRowVop3p, 0x68, 0x68, "v_smfmac_f32_32x32x16_bf16"},
    {kRowVop3p, 0x69, 0x69, nullptr},
    {kRowVop3p, 0x6a, 0x6a, "v_smfmac_i32_16x16x64_i8"},
    {kRowVop3p, 0x6b, 0x6b, nullptr},
    {kRowVop3p, 0x6c, 0x6c, "v_smfmac_i32_32x32x32_i8"},
    {kRowVop3p, 0x6d, 0x6d, nullptr},
    {kRowVop3p, 0x6e, 0x6e, "v_mfma_f64_16x16x4_f64"},
    {kRowVop3p, 0x6f, 0x6f, "v_mfma_f64_4x4x4_4b_f64"},
    {kRowVop3p, 0x70, 0x70, "v_mfma_f32_16x16x32_bf8_bf8"},
    {kRowVop3p, 0x71, 0x71, "v_mfma_f32_16x16x32_bf8_fp8"},
    {kRowVop3p, 0x72, 0x72, "v_mfma_f32_16x16x32_fp8_bf8"},
    {kRowVop3p, 0x73, 0x73, "v_mfma_f32_16x16x32_fp8_fp8"},
    {kRowVop3p, 0x74, 0x74, "v_mfma_f32_32x32x16_bf8_bf8"},
    {kRowVop3p, 0x75, 0x75, "v_mfma_f32_32x32x16_bf8_fp8"},
    {kRowVop3p, 0x76, 0x76, "v_mfma_f32_32x32x16_fp8_bf8"},
    {kRowVop3p, 0x77, 0x77, "v_mfma_f32_32x32x16_fp8_fp8"},
    {kRowVop3p, 0x78, 0x78, "v_smfmac_f32_16x16x64_bf8_bf8"},
    {kRowVop3p, 0x79, 0x79, "v_smfmac_f32_16x16x64_bf8_fp8"},
    {kRowVop3p, 0x7a, 0x7a, "v_smfmac_f32_16x16x64_fp8_bf8"},
    {kRowVop3p, 0x7b, 0x7b, "v_smfmac_f32_16x16x64_fp8_fp8"},
    {kRowVop3p, 0x7c, 0x7c, "v_smfmac_f32_32x32x32_bf8_bf8"},
    {kRowVop3p, 0x7d, 0x7d, "v_smfmac_f32_32x32x32_bf8_fp8"},
    {kRowVop3p, 0x7e, 0x7e, "v_smfmac_f32_32x32x32_fp8_bf8"},
    {kRowVop3p, 0x7f, 0x7f, "v_smfmac_f32_32x32x32_fp8_fp8"},
    {kRowDs, 0x17, 0x17, "ds_pk_add_f16"},
    {kRowDs, 0x18, 0x18, "ds_pk_add_bf16"},
    {kRowDs, 0xb7, 0xb7, "ds_pk_add_rtn_f16"},
    {kRowDs, 0xb8, 0xb8, "ds_pk_add_rtn_bf16"},
    {kRowFlat, 0x4d, 0x4d, "flat_atomic_add_f32"},
    {kRowFlat, 0x4e, 0x4e, "flat_atomic_pk_add_f16"},
    {kRowFlat, 0x52, 0x52, "flat_atomic_pk_add_bf16"},
    {kRowMubuf, 0x29, 0x29, "buffer_inv"},
    {kRowScratch, 0x26, 0x26, "scratch_load_lds_ubyte"},
    {kRowScratch, 0x27, 0x27, "scratch_load_lds_sbyte"},
    {kRowScratch, 0x28, 0x28, "scratch_load_lds_ushort"},
    {kRowScratch, 0x29, 0x29, "scratch_load_lds_sshort"},
    {kRowScratch, 0x2a, 0x2a, "scratch_load_lds_dword"},
    {kRowGlobal, 0x26, 0x26, "global_load_lds_ubyte"},
    {kRowGlobal, 0x27, 0x27, "global_load_lds_sbyte"},
    {kRowGlobal, 0x28, 0x28, "global_load_lds_ushort"},
    {kRowGlobal, 0x29, 0x29, "global_load_lds_sshort"},
    {kRowGlobal, 0x2a, 0x2a, "global_load_lds_dword"},
    {kRowGlobal, 0x52, 0x52, "global_atomic_pk_add_bf16"},
    {kRowMimg, 0x0, 0x20, nullptr},
};

constexpr OpNameGeneration kGfx9Base{Target::gfx906, nullptr, {}};
constexpr OpNameGeneration kGfx908Gen{Target::gfx908, &kGfx9Base, kGfx908};
constexpr OpNameGeneration kGfx90aGen{Target::gfx90a, &kGfx908Gen, kGfx90a};
constexpr OpNameGeneration kGfx942Gen{Target::gfx942, &kGfx90aGen, kGfx942};

// One base row split into names (interned: they live as long as the program), on first use: a
// process names the opcodes of a few rows, and splitting every row (136 KiB of pointers) was a
// tenth of a millisecond of its start-up.
struct BaseRow {
  std::once_flag once;
  const char** names = nullptr;  // kRowOpcodes entries (kMimgOpcodes in the image row)
};

// Splits one space-separated row ("-" is no opcode) into row_names[0..max_ops): the names point
// into a copy of the row whose spaces became NULs (one allocation per row, never freed).
void split_row(const char* row, unsigned max_ops, const char** row_names) {
  const size_t n = std::strlen(row);
  char* const copy = new char[n + 1];
  char* p = copy;
  std::memcpy(p, row, n + 1);
  unsigned op = 0;
  while (*p && op < max_ops) {
    char* q = std::strchr(p, ' ');
    if (q) *q = 0;
    if (std::strcmp(p, "-") != 0 && *p) row_names[op] = p;
    ++op;
    if (!q) break;
    p = q + 1;
  }
}

// The base table's name of (row, op); row < kNameRows, op within the row.
const char* base_name(unsigned row, unsigned op) {
  // Never destroyed, names included: engine threads may still decode (and name) instructions
  // while the process runs its exit handlers.
  static BaseRow* const rows = new BaseRow[kNameRows];
  BaseRow& r = rows[row];
  std::call_once(r.once, [&] {
    const unsigned max_ops = row == kMimgRow ? kMimgOpcodes : kRowOpcodes;
    r.names = new const char*[max_ops]();
    split_row(row == kMimgRow ? kBaseMimgNames : kBaseOpNames[row], max_ops, r.names);
  });
  return r.names[op];
}

}  // namespace

const OpNameGeneration& op_name_generation(Target t) {
  switch (t) {
    case Target::gfx906: return kGfx9Base;
    case Target::gfx908: return kGfx908Gen;
    case Target::gfx942: return kGfx942Gen;
    default: return kGfx90aGen;
  }
}

const char* op_name(Target t, unsigned row, unsigned op) {
  if (row >= kNameRows || op >= (row == kMimgRow ? kMimgOpcodes : kRowOpcodes)) return nullptr;
  // The nearest generation that says something about this opcode decides.
  for (const OpNameGeneration* g = &op_name_generation(t); g; g = g->parent)
    for (const OpNameDelta& d : g->deltas)
      if (d.row == row && op >= d.first && op <= d.last) return d.name;
  return base_name(row, op);
}

void op_names(Target t, const char* (*out)[kRowOpcodes]) {
  for (unsigned r = 0; r < kNameRows; ++r)
    for (unsigned op = 0; op < kRowOpcodes; ++op) out[r][op] = r == kMimgRow && op >= kMimgOpcodes ? nullptr : base_name(r, op);
  // From the generation farthest from t to t's own, so that a nearer one overrides; within one
  // generation the first delta naming an opcode decides (as in op_name), so its deltas go last
  // to first.
  const OpNameGeneration* chain[8];
  unsigned n = 0;
  for (const OpNameGeneration* g = &op_name_generation(t); g && n < 8; g = g->parent) chain[n++] = g;
  while (n-- > 0) {
    const std::span<const OpNameDelta> deltas = chain[n]->deltas;
    for (size_t i = deltas.size(); i-- > 0;) {
      const OpNameDelta& d = deltas[i];
      if (d.row >= kNameRows) continue;
      const unsigned limit = d.row == kMimgRow ? kMimgOpcodes : kRowOpcodes;
      for (unsigned op = d.first; op <= d.last && op < limit; ++op) out[d.row][op] = d.name;
    }
  }
}

}  // namespace emu::shader
