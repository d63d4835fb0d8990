// SPDX-License-Identifier: MIT
// Scalar ALU execution: SOP2, SOPK, SOP1, SOPC (semantics: AMD "Vega ISA" / MI200 ISA manuals).
#include <bit>

#include "emu/shader/decode.h"

namespace emu::shader {

namespace {

inline uint32_t S0(const Wave& w, const Inst& in) { return sread32(w, in, in.src[0]); }
inline uint32_t S1(const Wave& w, const Inst& in) { return sread32(w, in, in.src[1]); }
inline uint64_t S0q(const Wave& w, const Inst& in) { return sread64(w, in, in.src[0], false); }
inline uint64_t S1q(const Wave& w, const Inst& in) { return sread64(w, in, in.src[1], false); }

// Binary 32-bit op whose SCC is "result != 0".
#define SOP2_LOGIC(NAME, EXPR)                                  \
  void NAME(Wave& w, const Inst& in) {                          \
    uint32_t a = S0(w, in), b = S1(w, in);                      \
    uint32_t d = (EXPR);                                        \
    w.scc = d != 0;                                             \
    swrite32(w, in.dst, d);                                     \
  }
#define SOP2_LOGIC64(NAME, EXPR)                                \
  void NAME(Wave& w, const Inst& in) {                          \
    uint64_t a = S0q(w, in), b = S1q(w, in);                    \
    uint64_t d = (EXPR);                                        \
    w.scc = d != 0;                                             \
    swrite64(w, in.dst, d);                                     \
  }
SOP2_LOGIC(s_and_b32, a & b)
SOP2_LOGIC(s_or_b32, a | b)
SOP2_LOGIC(s_xor_b32, a ^ b)
SOP2_LOGIC(s_andn2_b32, a & ~b)
SOP2_LOGIC(s_orn2_b32, a | ~b)
SOP2_LOGIC(s_nand_b32, ~(a & b))
SOP2_LOGIC(s_nor_b32, ~(a | b))
SOP2_LOGIC(s_xnor_b32, ~(a ^ b))
SOP2_LOGIC(s_lshl_b32, a << (b & 31))
SOP2_LOGIC(s_lshr_b32, a >> (b & 31))
SOP2_LOGIC(s_ashr_i32, static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31)))
SOP2_LOGIC(s_bfe_u32, ((b >> 16) & 0x7F) == 0 ? 0 : ((a >> (b & 31)) & (((b >> 16) & 0x7F) >= 32 ? ~0u : ((1u << ((b >> 16) & 0x7F)) - 1))))
SOP2_LOGIC64(s_and_b64, a & b)
SOP2_LOGIC64(s_or_b64, a | b)
SOP2_LOGIC64(s_xor_b64, a ^ b)
SOP2_LOGIC64(s_andn2_b64, a & ~b)
SOP2_LOGIC64(s_orn2_b64, a | ~b)
SOP2_LOGIC64(s_nand_b64, ~(a & b))
SOP2_LOGIC64(s_nor_b64, ~(a | b))
SOP2_LOGIC64(s_xnor_b64, ~(a ^ b))

void s_lshl_b64(Wave& w, const Inst& in) { uint64_t d = S0q(w, in) << (S1(w, in) & 63); w.scc = d != 0; swrite64(w, in.dst, d); }
void s_lshr_b64(Wave& w, const Inst& in) { uint64_t d = S0q(w, in) >> (S1(w, in) & 63); w.scc = d != 0; swrite64(w, in.dst, d); }
void s_ashr_i64(Wave& w, const Inst& in) {
  uint64_t d = static_cast<uint64_t>(static_cast<int64_t>(S0q(w, in)) >> (S1(w, in) & 63));
  w.scc = d != 0; swrite64(w, in.dst, d);
}

int32_t bfe_signed32(uint32_t a, uint32_t off, uint32_t width) {
  if (width == 0) return 0;
  if (off + width >= 32) return static_cast<int32_t>(a) >> off;
  return static_cast<int32_t>(a << (32 - off - width)) >> (32 - width);
}
void s_bfe_i32(Wave& w, const Inst& in) {
  uint32_t b = S1(w, in);
  int32_t d = bfe_signed32(S0(w, in), b & 31, (b >> 16) & 0x7F);
  w.scc = d != 0; swrite32(w, in.dst, static_cast<uint32_t>(d));
}
void s_bfe_u64(Wave& w, const Inst& in) {
  uint32_t b = S1(w, in), off = b & 63, width = (b >> 16) & 0x7F;
  uint64_t d = width == 0 ? 0 : (S0q(w, in) >> off) & (width >= 64 ? ~0ull : ((1ull << width) - 1));
  w.scc = d != 0; swrite64(w, in.dst, d);
}
void s_bfe_i64(Wave& w, const Inst& in) {
  uint32_t b = S1(w, in), off = b & 63, width = (b >> 16) & 0x7F;
  uint64_t a = S0q(w, in);
  int64_t d = 0;
  if (width) d = off + width >= 64 ? static_cast<int64_t>(a) >> off
                                    : static_cast<int64_t>(a << (64 - off - width)) >> (64 - width);
  w.scc = d != 0; swrite64(w, in.dst, static_cast<uint64_t>(d));
}
void s_bfm_b32(Wave& w, const Inst& in) {
  uint32_t a = S0(w, in) & 31, b = S1(w, in) & 31;
  swrite32(w, in.dst, ((1u << a) - 1) << b);
}
void s_bfm_b64(Wave& w, const Inst& in) {
  uint32_t a = S0(w, in) & 63, b = S1(w, in) & 63;
  swrite64(w, in.dst, ((a == 64 ? 0 : (1ull << a)) - 1) << b);
}

void s_add_u32(Wave& w, const Inst& in) { uint64_t d = uint64_t{S0(w, in)} + S1(w, in); w.scc = d >> 32; swrite32(w, in.dst, static_cast<uint32_t>(d)); }
void s_sub_u32(Wave& w, const Inst& in) { uint32_t a = S0(w, in), b = S1(w, in); w.scc = b > a; swrite32(w, in.dst, a - b); }
void s_addc_u32(Wave& w, const Inst& in) { uint64_t d = uint64_t{S0(w, in)} + S1(w, in) + w.scc; w.scc = d >> 32; swrite32(w, in.dst, static_cast<uint32_t>(d)); }
void s_subb_u32(Wave& w, const Inst& in) {
  uint64_t a = S0(w, in), b = uint64_t{S1(w, in)} + w.scc;
  w.scc = b > a; swrite32(w, in.dst, static_cast<uint32_t>(a - b));
}
void s_add_i32(Wave& w, const Inst& in) {
  int32_t a = static_cast<int32_t>(S0(w, in)), b = static_cast<int32_t>(S1(w, in)), d;
  w.scc = __builtin_add_overflow(a, b, &d); swrite32(w, in.dst, static_cast<uint32_t>(d));
}
void s_sub_i32(Wave& w, const Inst& in) {
  int32_t a = static_cast<int32_t>(S0(w, in)), b = static_cast<int32_t>(S1(w, in)), d;
  w.scc = __builtin_sub_overflow(a, b, &d); swrite32(w, in.dst, static_cast<uint32_t>(d));
}
void s_min_i32(Wave& w, const Inst& in) { int32_t a = S0(w, in), b = S1(w, in); w.scc = a < b; swrite32(w, in.dst, a < b ? a : b); }
void s_max_i32(Wave& w, const Inst& in) { int32_t a = S0(w, in), b = S1(w, in); w.scc = a > b; swrite32(w, in.dst, a > b ? a : b); }
void s_min_u32(Wave& w, const Inst& in) { uint32_t a = S0(w, in), b = S1(w, in); w.scc = a < b; swrite32(w, in.dst, a < b ? a : b); }
void s_max_u32(Wave& w, const Inst& in) { uint32_t a = S0(w, in), b = S1(w, in); w.scc = a > b; swrite32(w, in.dst, a > b ? a : b); }
void s_cselect_b32(Wave& w, const Inst& in) { swrite32(w, in.dst, w.scc ? S0(w, in) : S1(w, in)); }
void s_cselect_b64(Wave& w, const Inst& in) { swrite64(w, in.dst, w.scc ? S0q(w, in) : S1q(w, in)); }
void s_mul_i32(Wave& w, const Inst& in) { swrite32(w, in.dst, S0(w, in) * S1(w, in)); }
void s_mul_hi_u32(Wave& w, const Inst& in) { swrite32(w, in.dst, static_cast<uint32_t>((uint64_t{S0(w, in)} * S1(w, in)) >> 32)); }
void s_mul_hi_i32(Wave& w, const Inst& in) {
  int64_t p = int64_t{static_cast<int32_t>(S0(w, in))} * static_cast<int32_t>(S1(w, in));
  swrite32(w, in.dst, static_cast<uint32_t>(static_cast<uint64_t>(p) >> 32));
}
void s_absdiff_i32(Wave& w, const Inst& in) {
  int64_t d = int64_t{static_cast<int32_t>(S0(w, in))} - static_cast<int32_t>(S1(w, in));
  uint32_t r = static_cast<uint32_t>(d < 0 ? -d : d); w.scc = r != 0; swrite32(w, in.dst, r);
}
template <unsigned N>
void s_lshl_add_u32(Wave& w, const Inst& in) {
  uint64_t d = (uint64_t{S0(w, in)} << N) + S1(w, in);
  w.scc = d >> 32; swrite32(w, in.dst, static_cast<uint32_t>(d));
}
void s_pack_ll_b32_b16(Wave& w, const Inst& in) { swrite32(w, in.dst, (S0(w, in) & 0xFFFF) | (S1(w, in) << 16)); }
void s_pack_lh_b32_b16(Wave& w, const Inst& in) { swrite32(w, in.dst, (S0(w, in) & 0xFFFF) | (S1(w, in) & 0xFFFF0000)); }
void s_pack_hh_b32_b16(Wave& w, const Inst& in) { swrite32(w, in.dst, (S0(w, in) >> 16) | (S1(w, in) & 0xFFFF0000)); }

// SOPC comparisons.
#define SOPC(NAME, T, OP) \
  void NAME(Wave& w, const Inst& in) { w.scc = static_cast<T>(S0(w, in)) OP static_cast<T>(S1(w, in)); }
SOPC(s_cmp_eq_i32, int32_t, ==) SOPC(s_cmp_lg_i32, int32_t, !=) SOPC(s_cmp_gt_i32, int32_t, >)
SOPC(s_cmp_ge_i32, int32_t, >=) SOPC(s_cmp_lt_i32, int32_t, <) SOPC(s_cmp_le_i32, int32_t, <=)
SOPC(s_cmp_eq_u32, uint32_t, ==) SOPC(s_cmp_lg_u32, uint32_t, !=) SOPC(s_cmp_gt_u32, uint32_t, >)
SOPC(s_cmp_ge_u32, uint32_t, >=) SOPC(s_cmp_lt_u32, uint32_t, <) SOPC(s_cmp_le_u32, uint32_t, <=)
void s_cmp_eq_u64(Wave& w, const Inst& in) { w.scc = S0q(w, in) == S1q(w, in); }
void s_cmp_lg_u64(Wave& w, const Inst& in) { w.scc = S0q(w, in) != S1q(w, in); }
void s_bitcmp0_b32(Wave& w, const Inst& in) { w.scc = !((S0(w, in) >> (S1(w, in) & 31)) & 1); }
void s_bitcmp1_b32(Wave& w, const Inst& in) { w.scc = (S0(w, in) >> (S1(w, in) & 31)) & 1; }
void s_bitcmp0_b64(Wave& w, const Inst& in) { w.scc = !((S0q(w, in) >> (S1(w, in) & 63)) & 1); }
void s_bitcmp1_b64(Wave& w, const Inst& in) { w.scc = (S0q(w, in) >> (S1(w, in) & 63)) & 1; }

// SOPK: simm16 in in.offset (sign-extended); the u32 forms compare against it zero-extended.
uint32_t simm(const Inst& in) { return static_cast<uint32_t>(in.offset); }
uint32_t uimm(const Inst& in) { return static_cast<uint32_t>(in.offset) & 0xFFFF; }
void s_movk_i32(Wave& w, const Inst& in) { swrite32(w, in.dst, simm(in)); }
void s_cmovk_i32(Wave& w, const Inst& in) { if (w.scc) swrite32(w, in.dst, simm(in)); }
#define SOPK_CMP(NAME, T, OP, IMM) \
  void NAME(Wave& w, const Inst& in) { w.scc = static_cast<T>(w.s[in.dst]) OP static_cast<T>(IMM(in)); }
SOPK_CMP(s_cmpk_eq_i32, int32_t, ==, simm) SOPK_CMP(s_cmpk_lg_i32, int32_t, !=, simm)
SOPK_CMP(s_cmpk_gt_i32, int32_t, >, simm) SOPK_CMP(s_cmpk_ge_i32, int32_t, >=, simm)
SOPK_CMP(s_cmpk_lt_i32, int32_t, <, simm) SOPK_CMP(s_cmpk_le_i32, int32_t, <=, simm)
SOPK_CMP(s_cmpk_eq_u32, uint32_t, ==, uimm) SOPK_CMP(s_cmpk_lg_u32, uint32_t, !=, uimm)
SOPK_CMP(s_cmpk_gt_u32, uint32_t, >, uimm) SOPK_CMP(s_cmpk_ge_u32, uint32_t, >=, uimm)
SOPK_CMP(s_cmpk_lt_u32, uint32_t, <, uimm) SOPK_CMP(s_cmpk_le_u32, uint32_t, <=, uimm)
void s_addk_i32(Wave& w, const Inst& in) {
  int32_t d;
  w.scc = __builtin_add_overflow(static_cast<int32_t>(w.s[in.dst]), in.offset, &d);
  swrite32(w, in.dst, static_cast<uint32_t>(d));
}
void s_mulk_i32(Wave& w, const Inst& in) { swrite32(w, in.dst, w.s[in.dst] * simm(in)); }
void s_call_b64(Wave& w, const Inst& in) {
  swrite64(w, in.dst, w.pc);
  w.pc = w.pc + static_cast<int64_t>(in.offset) * 4;
}

// Hardware registers (s_getreg/s_setreg): simm16 = id[5:0] offset[10:6] size-1[15:11].
uint32_t hwreg_read(const Wave& w, unsigned id) {
  switch (id) {
    case 1: return w.mode;
    case 2: return (w.scc ? 1u : 0u) | (w.exec() == 0 ? 1u << 9 : 0) | (w.vcc() == 0 ? 1u << 10 : 0);
    case 3: return w.trapsts;
    // HW_ID: WAVE_ID [3:0], SIMD_ID [5:4], and the CU the workgroup runs on: CU_ID [11:8], SH_ID
    // [12], SE_ID [15:13] (amd_device_functions.h's field list; Dispatch::cus).
    case 4: return (w.wave_id & 15) | ((w.wave_id >> 4) & 3) << 4 | (w.group->cu & 0xff00u);
    case 5: return 0;  // GPR_ALLOC
    case 6: return 0;  // LDS_ALLOC
    case 15: return static_cast<uint32_t>(kPrivateAperture >> 48) | static_cast<uint32_t>(kLdsAperture >> 48) << 16;
    // XCC_ID (gfx940+, LLVM SIDefines.h ID_XCC_ID): the XCC the workgroup runs on in [3:0].
    case 20: return w.group->ctx->target == Target::gfx942 ? (w.group->cu >> 16) & 15u : 0;
    default: return 0;
  }
}
void s_getreg_b32(Wave& w, const Inst& in) {
  uint32_t imm = uimm(in), id = imm & 63, off = (imm >> 6) & 31, size = ((imm >> 11) & 31) + 1;
  uint32_t v = hwreg_read(w, id) >> off;
  swrite32(w, in.dst, size >= 32 ? v : v & ((1u << size) - 1));
}
void hwreg_write(Wave& w, const Inst& in, uint32_t imm, uint32_t value) {
  uint32_t id = imm & 63, off = (imm >> 6) & 31, size = ((imm >> 11) & 31) + 1;
  uint32_t mask = (size >= 32 ? ~0u : ((1u << size) - 1)) << off;
  if (id == 1) {
    uint32_t mode = (w.mode & ~mask) | ((value << off) & mask);
    // VALU arithmetic rounds to nearest even only: refuse other FP_ROUND modes loudly.
    if (mode & 0xF) {
      wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size,
                "MODE.FP_ROUND other than round-to-nearest-even: " + describe(in, w.pc - in.size));
      return;
    }
    w.mode = mode;
  }
  if (id == 3) w.trapsts = (w.trapsts & ~mask) | ((value << off) & mask);
}
void s_setreg_b32(Wave& w, const Inst& in) { hwreg_write(w, in, uimm(in), w.s[in.dst]); }
void s_setreg_imm32_b32(Wave& w, const Inst& in) { hwreg_write(w, in, uimm(in), in.literal); }

}  // namespace

// SOP1 lives in sop1.cpp; its handlers are appended by sop1_handlers().
HandlerList sop1_handlers();
HandlerList sopp_handlers();

namespace {
const HandlerEntry kSop[] = {
#define E(n) {#n, n},
    E(s_and_b32) E(s_or_b32) E(s_xor_b32) E(s_andn2_b32) E(s_orn2_b32) E(s_nand_b32)
    E(s_nor_b32) E(s_xnor_b32) E(s_lshl_b32) E(s_lshr_b32) E(s_ashr_i32) E(s_bfe_u32)
    E(s_and_b64) E(s_or_b64) E(s_xor_b64) E(s_andn2_b64) E(s_orn2_b64) E(s_nand_b64)
    E(s_nor_b64) E(s_xnor_b64) E(s_lshl_b64) E(s_lshr_b64) E(s_ashr_i64) E(s_bfe_i32)
    E(s_bfe_u64) E(s_bfe_i64) E(s_bfm_b32) E(s_bfm_b64) E(s_add_u32) E(s_sub_u32)
    E(s_addc_u32) E(s_subb_u32) E(s_add_i32) E(s_sub_i32) E(s_min_i32) E(s_max_i32)
    E(s_min_u32) E(s_max_u32) E(s_cselect_b32) E(s_cselect_b64) E(s_mul_i32) E(s_mul_hi_u32)
    E(s_mul_hi_i32) E(s_absdiff_i32) E(s_pack_ll_b32_b16) E(s_pack_lh_b32_b16)
    E(s_pack_hh_b32_b16) E(s_cmp_eq_i32) E(s_cmp_lg_i32) E(s_cmp_gt_i32) E(s_cmp_ge_i32)
    E(s_cmp_lt_i32) E(s_cmp_le_i32) E(s_cmp_eq_u32) E(s_cmp_lg_u32) E(s_cmp_gt_u32)
    E(s_cmp_ge_u32) E(s_cmp_lt_u32) E(s_cmp_le_u32) E(s_cmp_eq_u64) E(s_cmp_lg_u64)
    E(s_bitcmp0_b32) E(s_bitcmp1_b32) E(s_bitcmp0_b64) E(s_bitcmp1_b64) E(s_movk_i32)
    E(s_cmovk_i32) E(s_cmpk_eq_i32) E(s_cmpk_lg_i32) E(s_cmpk_gt_i32) E(s_cmpk_ge_i32)
    E(s_cmpk_lt_i32) E(s_cmpk_le_i32) E(s_cmpk_eq_u32) E(s_cmpk_lg_u32) E(s_cmpk_gt_u32)
    E(s_cmpk_ge_u32) E(s_cmpk_lt_u32) E(s_cmpk_le_u32) E(s_addk_i32) E(s_mulk_i32)
    E(s_call_b64) E(s_getreg_b32) E(s_setreg_b32) E(s_setreg_imm32_b32)
#undef E
    {"s_lshl1_add_u32", s_lshl_add_u32<1>}, {"s_lshl2_add_u32", s_lshl_add_u32<2>},
    {"s_lshl3_add_u32", s_lshl_add_u32<3>}, {"s_lshl4_add_u32", s_lshl_add_u32<4>},
};
}  // namespace

HandlerList sop2_handlers() { return {std::begin(kSop), std::end(kSop)}; }

}  // namespace emu::shader
