// SPDX-License-Identifier: MIT
// gfx9 instruction decoder: splits each encoding's fields into a pre-decoded Inst (AMD Vega / CDNA2 ISA "Microcode Formats").
#include "emu/shader/decode.h"

#include "emu/shader/guest.h"
#include "emu/shader/opnames.h"

#include <algorithm>
#include <new>
#include <cstdio>

namespace emu::shader {

namespace {

int32_t sext(uint32_t x, unsigned bits) {
  return static_cast<int32_t>(x << (32 - bits)) >> (32 - bits);
}

Enc classify(uint32_t d) {
  if ((d >> 31) == 0) {
    if ((d >> 25) == 0x3F) return Enc::VOP1;
    if ((d >> 25) == 0x3E) return Enc::VOPC;
    return Enc::VOP2;
  }
  if ((d >> 23) == 0x17D) return Enc::SOP1;
  if ((d >> 23) == 0x17E) return Enc::SOPC;
  if ((d >> 23) == 0x17F) return Enc::SOPP;
  if ((d >> 28) == 0xB) return Enc::SOPK;
  if ((d >> 30) == 0x2) return Enc::SOP2;
  if ((d >> 23) == 0x1A7) return Enc::VOP3P;
  switch (d >> 26) {
    case 0x30: return Enc::SMEM;
    case 0x34: return Enc::VOP3;
    case 0x36: return Enc::DS;
    case 0x37: return Enc::FLAT;
    case 0x38: return Enc::MUBUF;
    case 0x3A: return Enc::MTBUF;
    default: return Enc::Invalid;
  }
}

unsigned opcode_of(Enc e, uint32_t d) {
  switch (e) {
    case Enc::SOP2: return (d >> 23) & 0x7F;
    case Enc::SOPK: return (d >> 23) & 0x1F;
    case Enc::SOP1: return (d >> 8) & 0xFF;
    case Enc::SOPC: case Enc::SOPP: return (d >> 16) & 0x7F;
    case Enc::SMEM: return (d >> 18) & 0xFF;
    case Enc::VOP2: return (d >> 25) & 0x3F;
    case Enc::VOP1: return (d >> 9) & 0xFF;
    case Enc::VOPC: return (d >> 17) & 0xFF;
    case Enc::VOP3: return (d >> 16) & 0x3FF;
    case Enc::VOP3P: return (d >> 16) & 0x7F;
    case Enc::DS: return (d >> 17) & 0xFF;
    case Enc::FLAT: return (d >> 18) & 0x7F;
    case Enc::MUBUF: return (d >> 18) & 0x7F;
    case Enc::MTBUF: return (d >> 15) & 0xF;
    default: return 0;
  }
}

// Table row used for names: FLAT shares one opcode space split by segment in the name tables.
unsigned table_row(Enc e, uint32_t d) {
  if (e == Enc::FLAT) {
    unsigned seg = (d >> 14) & 3;
    return seg == 1 ? 14 : seg == 2 ? 15 : static_cast<unsigned>(Enc::FLAT);
  }
  return static_cast<unsigned>(e);
}

bool needs_literal(const Inst& in, unsigned nsrc) {
  for (unsigned i = 0; i < nsrc; ++i)
    if (in.src[i] == 255) return true;
  return false;
}

void decode_salu(Enc e, uint32_t d, Inst& in) {
  switch (e) {
    case Enc::SOP2:
      in.src[0] = d & 0xFF; in.src[1] = (d >> 8) & 0xFF; in.dst = (d >> 16) & 0x7F;
      if (needs_literal(in, 2)) in.flags |= kLiteral;
      break;
    case Enc::SOPK:
      in.dst = (d >> 16) & 0x7F; in.offset = sext(d & 0xFFFF, 16);
      if (std::string_view(in.name) == "s_setreg_imm32_b32") in.flags |= kLiteral;
      break;
    case Enc::SOP1:
      in.src[0] = d & 0xFF; in.dst = (d >> 16) & 0x7F;
      if (needs_literal(in, 1)) in.flags |= kLiteral;
      break;
    case Enc::SOPC:
      in.src[0] = d & 0xFF; in.src[1] = (d >> 8) & 0xFF;
      if (needs_literal(in, 2)) in.flags |= kLiteral;
      break;
    default:  // SOPP
      in.offset = sext(d & 0xFFFF, 16);
      break;
  }
}

void decode_smem(uint32_t d0, uint32_t d1, Inst& in) {
  in.size = 8;
  in.src[0] = (d0 & 0x3F) * 2;
  in.dst = (d0 >> 6) & 0x7F;
  if (d0 & (1u << 16)) in.flags |= kGlc;
  bool imm = d0 & (1u << 17), soe = d0 & (1u << 14);
  if (imm) { in.flags |= kImm; in.offset = sext(d1 & 0x1FFFFF, 21); }
  if (soe) { in.flags |= kSoe; in.src[1] = (d1 >> 25) & 0x7F; }
  if (!imm && !soe) { in.flags |= kSoe; in.src[1] = d1 & 0xFF; in.offset = 0; }
}

// The name says whether a VOP2 carries a constant literal (madmk/madak/fmamk/fmaak).
bool has_fixed_literal(std::string_view n) {
  return n.find("madmk") != n.npos || n.find("madak") != n.npos || n.find("fmamk") != n.npos ||
         n.find("fmaak") != n.npos;
}

void decode_dpp_sdwa(uint32_t extra, Inst& in) {
  unsigned vsrc0 = extra & 0xFF;
  if (in.src[0] == 250) {
    in.flags |= kDpp;
    in.src[0] = static_cast<uint16_t>(256 + vsrc0);
    in.dpp_ctrl = (extra >> 8) & 0x1FF;
    if (extra & (1u << 19)) in.flags |= kBoundCtrl;
    if (extra & (1u << 20)) in.neg |= 1;
    if (extra & (1u << 21)) in.abs |= 1;
    if (extra & (1u << 22)) in.neg |= 2;
    if (extra & (1u << 23)) in.abs |= 2;
    in.bank_mask = (extra >> 24) & 0xF;
    in.row_mask = (extra >> 28) & 0xF;
  } else {
    in.flags |= kSdwa;
    bool s0 = extra & (1u << 23), s1 = extra & (1u << 31);
    in.src[0] = static_cast<uint16_t>(s0 ? vsrc0 : 256 + vsrc0);
    if (s1 && in.enc != Enc::VOP1) in.src[1] = static_cast<uint16_t>(in.src[1] - 256);
    // VOPC's SDWA dword (SDWAB) has SDST in bits 14:8 and SD in bit 15 where the others have
    // DST_SEL, DST_UNUSED, CLAMP and OMOD (AMD Vega / MI200 ISA, "SDWAB").
    if (in.enc != Enc::VOPC) {
      in.sdwa_dst_sel = (extra >> 8) & 7;
      in.sdwa_dst_unused = (extra >> 11) & 3;
      in.clamp = (extra >> 13) & 1;
      in.omod = (extra >> 14) & 3;
    } else {
      in.sdwa_dst_sel = 6;  // DWORD: a compare writes a mask, not a VGPR
    }
    in.sdwa_src_sel[0] = (extra >> 16) & 7;
    in.sdwa_sext = ((extra >> 19) & 1) | (((extra >> 27) & 1) << 1);
    in.neg = ((extra >> 20) & 1) | (((extra >> 28) & 1) << 1);
    in.abs = ((extra >> 21) & 1) | (((extra >> 29) & 1) << 1);
    in.sdwa_src_sel[1] = (extra >> 24) & 7;
    if (in.enc == Enc::VOPC && (extra & (1u << 15))) in.sdst = (extra >> 8) & 0x7F;
    else if (in.enc == Enc::VOPC) in.sdst = 106;
  }
}

// DPP controls the interpreter knows (AMD Vega/MI200 ISA "DPP_CTRL"); others are reserved.
bool dpp_ctrl_known(unsigned c) {
  return c <= 0xFF || (c >= 0x101 && c <= 0x10F) || (c >= 0x111 && c <= 0x11F) ||
         (c >= 0x121 && c <= 0x12F) || c == 0x130 || c == 0x134 || c == 0x138 || c == 0x13C ||
         (c >= 0x140 && c <= 0x143) || (c >= 0x150 && c <= 0x15F);
}

// d1: the next dword when there is one (0 past the end of the code: the size check then fails).
void decode_vop_short(Enc e, uint32_t d, uint32_t d1, Inst& in) {
  in.src[0] = d & 0x1FF;
  if (e != Enc::VOP1) in.src[1] = static_cast<uint16_t>(256 + ((d >> 9) & 0xFF));
  if (e != Enc::VOPC) in.dst = (d >> 17) & 0xFF;
  in.sdst = 106;  // VCC: VOPC result, VOP2 carry in/out
  in.src[2] = 256 + in.dst;  // VOP2 mac/fmac accumulate into vdst
  if (in.src[0] == 250 || in.src[0] == 249) {
    in.size = 8;
    decode_dpp_sdwa(d1, in);
    bool bad_sdwa = (in.flags & kSdwa) && (in.sdwa_dst_sel > 6 || in.sdwa_src_sel[0] > 6 ||
                                           in.sdwa_src_sel[1] > 6 || in.sdwa_dst_unused > 2);
    if (((in.flags & kDpp) && !dpp_ctrl_known(in.dpp_ctrl)) || bad_sdwa) in.exec = exec_invalid;
  } else if (in.src[0] == 255 || (e == Enc::VOP2 && has_fixed_literal(in.name))) {
    in.size = 8;
    in.flags |= kLiteral;
  }
  if (e == Enc::VOP1 && std::string_view(in.name) == "v_readfirstlane_b32") in.dst &= 0x7F;
  if (e == Enc::VOP1 && std::string_view(in.name) == "v_accvgpr_mov_b32") {  // AGPR to AGPR
    in.dst = static_cast<uint16_t>(in.dst + 256);
    if (in.src[0] >= 256) in.src[0] = static_cast<uint16_t>(in.src[0] + 256);
  }
}

bool accumulates(std::string_view n) {
  return n.starts_with("v_mac_") || n.starts_with("v_fmac_") || n.starts_with("v_pk_fmac_") ||
         n.starts_with("v_dot2c_") || n.starts_with("v_dot4c_") || n.starts_with("v_dot8c_");
}

bool is_vop3b(std::string_view n) {
  return n.find("_co_") != n.npos || n == "v_div_scale_f32" || n == "v_div_scale_f64" ||
         n == "v_mad_u64_u32" || n == "v_mad_i64_i32" || n.ends_with("_co_u32");
}

void decode_vop3(Target t, Enc e, uint32_t d0, uint32_t d1, Inst& in) {
  in.size = 8;
  in.flags |= kVop3;
  in.src[0] = d1 & 0x1FF;
  in.src[1] = (d1 >> 9) & 0x1FF;
  in.src[2] = (d1 >> 18) & 0x1FF;
  in.neg = (d1 >> 29) & 7;
  in.clamp = (d0 >> 15) & 1;
  in.dst = d0 & 0xFF;
  std::string_view n = in.name;
  if (e == Enc::VOP3P) {
    in.neg_hi = (d0 >> 8) & 7;
    in.opsel = ((d0 >> 11) & 7);
    in.opsel_hi = static_cast<uint8_t>(((d1 >> 27) & 3) | (((d0 >> 14) & 1) << 2));
    // gfx90a AGPR moves: the opcode implies the AGPR operand (rows 256..511).
    if (n == "v_accvgpr_read_b32" && in.src[0] >= 256) in.src[0] = static_cast<uint16_t>(in.src[0] + 256);
    if (n == "v_accvgpr_write_b32") in.dst = static_cast<uint16_t>(in.dst + 256);
    if (n.starts_with("v_mfma")) {
      // VOP3P-MAI (LLVM's encoding, checked with llvm-mc-15 -mcpu=gfx90a): ACC_CD (bit 15) puts
      // vdst and a register src2 in AGPRs, ACC (bits 59 and 60, d1 27/28) src0 and src1; CBSZ
      // (10:8), ABID (14:11) and BLGP (63:61) are read by the handler (mfma.cpp). gfx908 has no
      // ACC_CD bit: its D and a register C are always AGPRs (its register files are separate;
      // LLVM's gfx908 MAI operands are AReg).
      in.clamp = 0;
      in.neg = in.neg_hi = 0;
      if ((d0 & (1u << 15)) || t == Target::gfx908) {
        in.dst += 256;
        in.src[2] = in.src[2] >= 256 ? in.src[2] + 256 : in.src[2];
      }
      if (d1 & (1u << 27)) in.src[0] = in.src[0] >= 256 ? in.src[0] + 256 : in.src[0];
      if (d1 & (1u << 28)) in.src[1] = in.src[1] >= 256 ? in.src[1] + 256 : in.src[1];
    }
    return;
  }
  in.omod = (d1 >> 27) & 3;
  if (is_vop3b(n)) {
    in.sdst = (d0 >> 8) & 0x7F;
  } else {
    in.abs = (d0 >> 8) & 7;
    in.opsel = (d0 >> 11) & 0xF;
  }
  if (n.starts_with("v_cmp")) in.sdst = in.dst & 0x7F;
  // Accumulating ops read their destination as the third source in every encoding.
  if (accumulates(n)) in.src[2] = static_cast<uint16_t>(256 + in.dst);
  if (n == "v_readlane_b32") in.dst &= 0x7F;
  if (n == "v_accvgpr_read_b32") in.src[0] = static_cast<uint16_t>(in.src[0] + 256);
  if (n == "v_accvgpr_write_b32") in.dst += 256;
}

void decode_mem(Target t, Enc e, uint32_t d0, uint32_t d1, Inst& in) {
  in.size = 8;
  // Memory instructions reach AGPRs (the ACC bit) on gfx90a and gfx942 only (LLVM
  // BUFInstructions.td / FLATInstructions.td: acc is a GFX90A encoding field).
  const bool agprs = t == Target::gfx90a || t == Target::gfx942;
  if (e == Enc::DS) {
    in.offset = d0 & 0xFF;
    in.offset1 = (d0 >> 8) & 0xFF;
    if (d0 & (1u << 25)) in.flags |= kAcc;
    in.vaddr = d1 & 0xFF; in.vdata = (d1 >> 8) & 0xFF;
    in.src[1] = (d1 >> 16) & 0xFF; in.dst = (d1 >> 24) & 0xFF;
  } else if (e == Enc::FLAT) {
    in.seg = (d0 >> 14) & 3;
    in.offset = in.seg == kSegFlat ? static_cast<int32_t>(d0 & 0xFFF) : sext(d0 & 0x1FFF, 13);
    if (d0 & (1u << 16)) in.flags |= kGlc;
    if (d0 & (1u << 17)) in.flags |= kSlc;
    if (d0 & (1u << 25)) in.flags |= kScc;  // gfx90a scc, gfx942 sc1 (LLVM FLATInstructions.td)
    in.vaddr = d1 & 0xFF; in.vdata = (d1 >> 8) & 0xFF;
    in.saddr = (d1 >> 16) & 0x7F; in.dst = (d1 >> 24) & 0xFF;
    if (agprs && (d1 & (1u << 23))) in.flags |= kAcc;
    // Bit 13: before gfx940 LDS (a load into LDS at M0, LDS DMA; LLVM FLATInstructions.td
    // `lds`), not emulated and refused by name rather than run as a load into a VGPR; on gfx940
    // SVE, whether a scratch access adds the lane's VGPR.
    if (in.seg == kSegScratch) in.scratch_vaddr = t == Target::gfx942 ? (d0 >> 13) & 1 : in.saddr == 0x7F;
    if (t != Target::gfx942 && (d0 & (1u << 13))) in.exec = exec_lds_dma;
  } else {  // MUBUF / MTBUF
    in.offset = d0 & 0xFFF;
    if (d0 & (1u << 12)) in.flags |= kOffen;
    if (d0 & (1u << 13)) in.flags |= kIdxen;
    if (d0 & (1u << 14)) in.flags |= kGlc;
    if (d0 & (1u << 15)) in.flags |= kScc;  // gfx90a scc, gfx942 sc1 (LLVM BUFInstructions.td)
    if (d0 & (1u << 17)) in.flags |= kSlc;
    in.vaddr = d1 & 0xFF; in.vdata = (d1 >> 8) & 0xFF;
    in.srsrc = ((d1 >> 16) & 0x1F) * 4;
    in.src[1] = (d1 >> 24) & 0xFF;  // soffset
    // Bit 55: ACC on gfx90a and gfx942; TFE before (a status dword after the data), not emulated.
    if (d1 & (1u << 23)) {
      if (agprs) in.flags |= kAcc;
      else in.exec = exec_tfe;
    }
    // MUBUF bit 16 (MTBUF's is part of its format): LDS DMA, as FLAT's bit 13 above.
    if (e == Enc::MUBUF && (d0 & (1u << 16))) in.exec = exec_lds_dma;
  }
}

// MTBUF opcodes (4 bits) have no table row; named here so diagnostics can say what they are.
const char* const kMtbufNames[16] = {
    "tbuffer_load_format_x", "tbuffer_load_format_xy", "tbuffer_load_format_xyz",
    "tbuffer_load_format_xyzw", "tbuffer_store_format_x", "tbuffer_store_format_xy",
    "tbuffer_store_format_xyz", "tbuffer_store_format_xyzw", "tbuffer_load_format_d16_x",
    "tbuffer_load_format_d16_xy", "tbuffer_load_format_d16_xyz", "tbuffer_load_format_d16_xyzw",
    "tbuffer_store_format_d16_x", "tbuffer_store_format_d16_xy", "tbuffer_store_format_d16_xyz",
    "tbuffer_store_format_d16_xyzw"};

}  // namespace

bool decode(Target t, const uint32_t* dw, unsigned avail, Inst& in) {
  in = Inst{};
  uint32_t d0 = dw[0];
  in.raw[0] = d0;
  Enc e = classify(d0);
  in.enc = e;
  in.size = 4;
  const OpTable& tab = op_table(t);
  // MIMG (bits 31:26 = 0x3C, 64 bits, opcode in 24:18; AMD Vega ISA "MIMG" format): the
  // operands here, the modifiers in image.cpp. An opcode the target lacks (every one on gfx942)
  // is an invalid encoding; one without a handler is unimplemented.
  if (e == Enc::Invalid && (d0 >> 26) == 0x3C && avail >= 2 && tab.name(kMimgRow, (d0 >> 18) & 0x7F)) {
    const uint32_t d1 = dw[1];
    in.op = static_cast<uint16_t>((d0 >> 18) & 0x7F);
    in.name = tab.name(kMimgRow, in.op);
    in.size = 8;
    in.raw[1] = d1;
    if (d0 & (1u << 13)) in.flags |= kGlc;
    if (d0 & (1u << 25)) in.flags |= kSlc;
    if ((t == Target::gfx90a || t == Target::gfx942) && (d0 & (1u << 16))) in.flags |= kAcc;
    in.vaddr = d1 & 0xFF;
    in.vdata = (d1 >> 8) & 0xFF;
    in.srsrc = static_cast<uint8_t>(((d1 >> 16) & 0x1F) * 4);
    in.saddr = static_cast<uint8_t>(((d1 >> 21) & 0x1F) * 4);
    const ExecFn fn = tab.fn(kMimgRow, in.op);
    in.exec = fn ? fn : exec_unimplemented;
    if (fn) count_memory(in);
    return true;
  }
  if (e == Enc::Invalid) { in.name = "<invalid>"; in.exec = exec_invalid; return false; }
  unsigned row = table_row(e, d0), op = opcode_of(e, d0);
  in.op = static_cast<uint16_t>(op);
  in.name = e == Enc::MTBUF ? kMtbufNames[op & 15] : tab.name(row, op);
  bool eight = e == Enc::SMEM || e == Enc::VOP3 || e == Enc::VOP3P || e == Enc::DS ||
               e == Enc::FLAT || e == Enc::MUBUF || e == Enc::MTBUF;
  if (eight && avail < 2) {  // the second dword is past the end of the mapped code
    if (!in.name) in.name = "<invalid>";
    in.exec = exec_invalid;
    return false;
  }
  uint32_t d1 = avail > 1 ? dw[1] : 0;
  if (!in.name) { in.name = "<invalid>"; in.size = eight ? 8 : 4; in.raw[1] = d1; in.exec = exec_invalid; return false; }
  const ExecFn fn = e != Enc::MTBUF ? tab.fn(row, op) : nullptr;
  in.exec = fn ? fn : exec_unimplemented;
  switch (e) {
    case Enc::SOP2: case Enc::SOPK: case Enc::SOP1: case Enc::SOPC: case Enc::SOPP:
      decode_salu(e, d0, in);
      if (in.flags & kLiteral) in.size = 8;
      break;
    case Enc::SMEM: decode_smem(d0, d1, in); break;
    case Enc::VOP2: case Enc::VOP1: case Enc::VOPC: decode_vop_short(e, d0, d1, in); break;
    case Enc::VOP3: case Enc::VOP3P: decode_vop3(t, e, d0, d1, in); break;
    default: decode_mem(t, e, d0, d1, in); break;
  }
  if (in.size > 4 * avail) { in.exec = exec_invalid; return false; }
  if (!(in.flags & (kDpp | kSdwa)))
    for (unsigned i = 0; i < 3; ++i)
      if (!(((in.abs | in.neg | in.opsel) >> i) & 1)) in.plain |= static_cast<uint8_t>(1u << i);
  for (unsigned i = 1; i < in.size / 4; ++i) in.raw[i] = dw[i];
  if (in.flags & kLiteral) in.literal = dw[1];
  if (in.exec != exec_invalid && in.exec != exec_unimplemented && in.exec != exec_lds_dma && in.exec != exec_tfe) {
    if (ExecFn f = specialize(in)) {
      in.slow = in.exec;
      in.exec = f;
    }
    count_memory(in);  // last: it routes a memory instruction's handler through the counters
  }
  return true;
}

namespace {

// A dword of code: guest memory, as the GPU's instruction fetch reads it (guest.h).
EMU_GUEST uint32_t code_dword(const uint8_t* h) {
  uint32_t d;
  std::memcpy(&d, h, 4);
  return d;
}

}  // namespace

const Inst* DecodeCache::fetch_slow(Wave& w, uint64_t pc) {
  uint64_t base = pc & ~uint64_t{4095};
  CodePage* p = w.page;
  if (!p || p->base != base) {
    p = w.page2 && w.page2->base == base ? w.page2 : page_for(base);
    w.page2 = w.page;
    w.page = p;
    uint64_t epoch = w.group->ctx->epoch;
    if (p->epoch.load(std::memory_order_acquire) != epoch) revalidate(w, p, epoch);
  }
  unsigned slot = (pc & 4095) >> 2;
  if (p->ready[slot].load(std::memory_order_acquire)) return &p->inst[slot];
  if (pc & 3) { wave_fail(w, Outcome::Kind::IllegalInstruction, pc, "misaligned pc"); return nullptr; }
  uint32_t dw[3] = {};
  uint8_t* h0 = mem_host(w, pc, 4, false);
  if (!h0) return nullptr;  // mem_host recorded the fault
  dw[0] = code_dword(h0);
  unsigned avail = 1;
  for (; avail < 3; ++avail) {  // later dwords may be unmapped: the decoder checks the length
    uint8_t* h = mem_try(w, pc + 4 * avail, 4);
    if (!h) break;
    dw[avail] = code_dword(h);
  }
  Inst in;
  decode(target_, dw, avail, in);
  std::lock_guard lock(mu_);
  if (!p->ready[slot].load(std::memory_order_relaxed)) {
    new (&p->inst[slot]) Inst(in);
    // The snapshot vouches only for slots inside the page whose bytes it holds.
    const unsigned n = in.size ? in.size : 4;
    if (p->snap && (4 * slot + n > 4096 || std::memcmp(p->bytes + 4 * slot, dw, n) != 0)) p->snap = false;
    p->lo = std::min(p->lo, (4 * slot) & ~7u);
    p->hi = std::max(p->hi, std::min(4096u, (4 * slot + n + 7) & ~7u));
    p->ready[slot].store(1, std::memory_order_release);
  }
  return &p->inst[slot];
}

CodePage* DecodeCache::page_for(uint64_t base) {
  // Most dispatches start in the page the last one started in: no lock, no hash lookup.
  if (CodePage* last = last_.load(std::memory_order_acquire); last && last->base == base) return last;
  std::lock_guard lock(mu_);
  auto& slot = pages_[base];
  if (!slot) { slot = std::make_unique<CodePage>(); slot->base = base; }
  last_.store(slot.get(), std::memory_order_release);
  return slot.get();
}

// Code can be replaced at an address that already ran (a code object unloaded and another
// loaded there): once per dispatch epoch, the first wave to enter a page compares every decoded
// slot's dwords with memory and forgets the ones that changed.
void DecodeCache::revalidate(Wave& w, CodePage* p, uint64_t epoch) {
  std::lock_guard lock(mu_);
  if (p->epoch.load(std::memory_order_relaxed) == epoch) return;
  // Unchanged bytes under the decoded slots: every decoded slot is still valid. (Only those are
  // compared: a page holding a few short kernels is mostly bytes no wave decoded.)
  if (p->snap) {
    const uint8_t* span = p->lo < p->hi ? mem_try(w, p->base + p->lo, p->hi - p->lo) : nullptr;
    if (p->lo >= p->hi || (span && guest_equal(span, p->bytes + p->lo, p->hi - p->lo))) {
      p->epoch.store(epoch, std::memory_order_release);
      return;
    }
  }
  const uint8_t* whole = mem_try(w, p->base, 4096);
  bool inside = true, changed = false;
  for (unsigned slot = 0; slot < 1024; ++slot) {
    if (!p->ready[slot].load(std::memory_order_relaxed)) continue;
    const Inst& in = p->inst[slot];
    uint64_t pc = p->base + 4 * slot;
    bool same = true;
    for (unsigned i = 0; i < in.size / 4 && same; ++i) {
      const uint8_t* h = mem_try(w, pc + 4 * i, 4);
      uint32_t d = 0;
      if (h) d = code_dword(h);
      same = h && d == in.raw[i];
    }
    if (!same) p->ready[slot].store(0, std::memory_order_relaxed), changed = true;
    else if (4 * slot + in.size > 4096) inside = false;
  }
  // A memory instruction's look-ahead (waitcnt.cpp) read the slots after it: found again.
  if (changed)
    for (unsigned slot = 0; slot < 1024; ++slot)
      if (p->ready[slot].load(std::memory_order_relaxed)) std::atomic_ref<uint8_t>(p->inst[slot].proof).store(0, std::memory_order_relaxed);
  p->snap = whole && inside;
  if (p->snap) guest_move(p->bytes, whole, 4096);
  p->epoch.store(epoch, std::memory_order_release);
}

void DecodeCache::clear() {
  std::lock_guard lock(mu_);
  last_.store(nullptr, std::memory_order_release);
  pages_.clear();
}

std::string describe(const Inst& in, uint64_t pc) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "pc=0x%llx dwords=", static_cast<unsigned long long>(pc));
  std::string s = buf;
  unsigned n = in.size / 4 ? in.size / 4 : 1;
  for (unsigned i = 0; i < n && i < 3; ++i) {
    std::snprintf(buf, sizeof buf, "%s%08x", i ? " " : "", in.raw[i]);
    s += buf;
  }
  return s + " " + in.name;
}

}  // namespace emu::shader
