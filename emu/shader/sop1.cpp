// SPDX-License-Identifier: MIT
// Scalar ALU execution of SOP1: moves, bit ops, exec save/restore, PC manipulation (calls).
#include <bit>

#include "emu/shader/decode.h"

namespace emu::shader {

namespace {

inline uint32_t S0(const Wave& w, const Inst& in) { return sread32(w, in, in.src[0]); }
inline uint64_t S0q(const Wave& w, const Inst& in) { return sread64(w, in, in.src[0], false); }

void s_mov_b32(Wave& w, const Inst& in) { swrite32(w, in.dst, S0(w, in)); }
void s_mov_b64(Wave& w, const Inst& in) { swrite64(w, in.dst, S0q(w, in)); }
void s_cmov_b32(Wave& w, const Inst& in) { if (w.scc) swrite32(w, in.dst, S0(w, in)); }
void s_cmov_b64(Wave& w, const Inst& in) { if (w.scc) swrite64(w, in.dst, S0q(w, in)); }
void s_not_b32(Wave& w, const Inst& in) { uint32_t d = ~S0(w, in); w.scc = d != 0; swrite32(w, in.dst, d); }
void s_not_b64(Wave& w, const Inst& in) { uint64_t d = ~S0q(w, in); w.scc = d != 0; swrite64(w, in.dst, d); }
void s_brev_b32(Wave& w, const Inst& in) {
  uint32_t a = S0(w, in), d = 0;
  for (int i = 0; i < 32; ++i) d |= ((a >> i) & 1) << (31 - i);
  swrite32(w, in.dst, d);
}
void s_brev_b64(Wave& w, const Inst& in) {
  uint64_t a = S0q(w, in), d = 0;
  for (int i = 0; i < 64; ++i) d |= ((a >> i) & 1) << (63 - i);
  swrite64(w, in.dst, d);
}
void s_bcnt0_i32_b32(Wave& w, const Inst& in) { uint32_t d = 32 - std::popcount(S0(w, in)); w.scc = d; swrite32(w, in.dst, d); }
void s_bcnt1_i32_b32(Wave& w, const Inst& in) { uint32_t d = std::popcount(S0(w, in)); w.scc = d; swrite32(w, in.dst, d); }
void s_bcnt0_i32_b64(Wave& w, const Inst& in) { uint32_t d = 64 - std::popcount(S0q(w, in)); w.scc = d; swrite32(w, in.dst, d); }
void s_bcnt1_i32_b64(Wave& w, const Inst& in) { uint32_t d = std::popcount(S0q(w, in)); w.scc = d; swrite32(w, in.dst, d); }
// Find-first returns -1 (0xffffffff) when no bit matches.
void s_ff0_i32_b32(Wave& w, const Inst& in) { uint32_t a = ~S0(w, in); swrite32(w, in.dst, a ? std::countr_zero(a) : ~0u); }
void s_ff1_i32_b32(Wave& w, const Inst& in) { uint32_t a = S0(w, in); swrite32(w, in.dst, a ? std::countr_zero(a) : ~0u); }
void s_ff0_i32_b64(Wave& w, const Inst& in) { uint64_t a = ~S0q(w, in); swrite32(w, in.dst, a ? std::countr_zero(a) : ~0u); }
void s_ff1_i32_b64(Wave& w, const Inst& in) { uint64_t a = S0q(w, in); swrite32(w, in.dst, a ? std::countr_zero(a) : ~0u); }
void s_flbit_i32_b32(Wave& w, const Inst& in) { uint32_t a = S0(w, in); swrite32(w, in.dst, a ? std::countl_zero(a) : ~0u); }
void s_flbit_i32_b64(Wave& w, const Inst& in) { uint64_t a = S0q(w, in); swrite32(w, in.dst, a ? std::countl_zero(a) : ~0u); }
void s_flbit_i32(Wave& w, const Inst& in) {
  uint32_t a = S0(w, in);
  if (a == 0 || a == ~0u) { swrite32(w, in.dst, ~0u); return; }
  swrite32(w, in.dst, std::countl_zero(static_cast<int32_t>(a) < 0 ? ~a : a));
}
void s_flbit_i32_i64(Wave& w, const Inst& in) {
  uint64_t a = S0q(w, in);
  if (a == 0 || a == ~0ull) { swrite32(w, in.dst, ~0u); return; }
  swrite32(w, in.dst, std::countl_zero(static_cast<int64_t>(a) < 0 ? ~a : a));
}
void s_sext_i32_i8(Wave& w, const Inst& in) { swrite32(w, in.dst, static_cast<uint32_t>(static_cast<int8_t>(S0(w, in)))); }
void s_sext_i32_i16(Wave& w, const Inst& in) { swrite32(w, in.dst, static_cast<uint32_t>(static_cast<int16_t>(S0(w, in)))); }
void s_bitset0_b32(Wave& w, const Inst& in) { swrite32(w, in.dst, w.s[in.dst] & ~(1u << (S0(w, in) & 31))); }
void s_bitset1_b32(Wave& w, const Inst& in) { swrite32(w, in.dst, w.s[in.dst] | (1u << (S0(w, in) & 31))); }
void s_bitset0_b64(Wave& w, const Inst& in) { swrite64(w, in.dst, w.s64(in.dst) & ~(1ull << (S0(w, in) & 63))); }
void s_bitset1_b64(Wave& w, const Inst& in) { swrite64(w, in.dst, w.s64(in.dst) | (1ull << (S0(w, in) & 63))); }
void s_abs_i32(Wave& w, const Inst& in) {
  int32_t a = static_cast<int32_t>(S0(w, in));
  uint32_t d = a < 0 ? 0u - static_cast<uint32_t>(a) : static_cast<uint32_t>(a);
  w.scc = d != 0; swrite32(w, in.dst, d);
}
// Whole-quad mode: a quad's bits all set if any is set.
void s_wqm_b64(Wave& w, const Inst& in) {
  uint64_t a = S0q(w, in), d = 0;
  for (int q = 0; q < 16; ++q) if ((a >> (4 * q)) & 15) d |= 15ull << (4 * q);
  w.scc = d != 0; swrite64(w, in.dst, d);
}
void s_wqm_b32(Wave& w, const Inst& in) {
  uint32_t a = S0(w, in), d = 0;
  for (int q = 0; q < 8; ++q) if ((a >> (4 * q)) & 15) d |= 15u << (4 * q);
  w.scc = d != 0; swrite32(w, in.dst, d);
}
void s_quadmask_b64(Wave& w, const Inst& in) {
  uint64_t a = S0q(w, in), d = 0;
  for (int q = 0; q < 16; ++q) if ((a >> (4 * q)) & 15) d |= 1ull << q;
  w.scc = d != 0; swrite64(w, in.dst, d);
}
void s_quadmask_b32(Wave& w, const Inst& in) {
  uint32_t a = S0(w, in), d = 0;
  for (int q = 0; q < 8; ++q) if ((a >> (4 * q)) & 15) d |= 1u << q;
  w.scc = d != 0; swrite32(w, in.dst, d);
}
void s_bitreplicate_b64_b32(Wave& w, const Inst& in) {
  uint32_t a = S0(w, in); uint64_t d = 0;
  for (int i = 0; i < 32; ++i) if ((a >> i) & 1) d |= 3ull << (2 * i);
  swrite64(w, in.dst, d);
}

// PC-relative: s_getpc returns the address of the next instruction.
void s_getpc_b64(Wave& w, const Inst& in) { swrite64(w, in.dst, w.pc); }
void s_setpc_b64(Wave& w, const Inst& in) { w.pc = S0q(w, in); }
void s_swappc_b64(Wave& w, const Inst& in) {
  uint64_t target = S0q(w, in);
  swrite64(w, in.dst, w.pc);
  w.pc = target;
}

// saveexec family: D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0.
#define SAVEEXEC(NAME, EXPR)                  \
  void NAME(Wave& w, const Inst& in) {        \
    uint64_t s = S0q(w, in), e = w.exec();    \
    uint64_t n = (EXPR);                      \
    swrite64(w, in.dst, e);                   \
    w.set_exec(n);                            \
    w.scc = n != 0;                           \
  }
SAVEEXEC(s_and_saveexec_b64, s & e)
SAVEEXEC(s_or_saveexec_b64, s | e)
SAVEEXEC(s_xor_saveexec_b64, s ^ e)
SAVEEXEC(s_andn2_saveexec_b64, s & ~e)
SAVEEXEC(s_orn2_saveexec_b64, s | ~e)
SAVEEXEC(s_nand_saveexec_b64, ~(s & e))
SAVEEXEC(s_nor_saveexec_b64, ~(s | e))
SAVEEXEC(s_xnor_saveexec_b64, ~(s ^ e))
SAVEEXEC(s_andn1_saveexec_b64, ~s & e)
SAVEEXEC(s_orn1_saveexec_b64, ~s | e)
// wrexec: EXEC = f(S0, EXEC); D = EXEC (new value).
void s_andn1_wrexec_b64(Wave& w, const Inst& in) {
  uint64_t n = ~S0q(w, in) & w.exec();
  w.set_exec(n); swrite64(w, in.dst, n); w.scc = n != 0;
}
void s_andn2_wrexec_b64(Wave& w, const Inst& in) {
  uint64_t n = S0q(w, in) & ~w.exec();
  w.set_exec(n); swrite64(w, in.dst, n); w.scc = n != 0;
}
// M0-relative moves.
void s_movrels_b32(Wave& w, const Inst& in) { w.s[in.dst] = w.s[(in.src[0] + w.s[124]) & 127]; }
void s_movrels_b64(Wave& w, const Inst& in) { swrite64(w, in.dst, w.s64((in.src[0] + w.s[124]) & 126)); }
void s_movreld_b32(Wave& w, const Inst& in) { swrite32(w, (in.dst + w.s[124]) & 127, S0(w, in)); }
void s_movreld_b64(Wave& w, const Inst& in) { swrite64(w, (in.dst + w.s[124]) & 126, S0q(w, in)); }

// GPR index mode (used by LLVM for dynamic indexing of VGPR arrays on gfx90a): M0[7:0] is the
// index, M0[15:12] the operand slots (src0, src1, src2, dst); honoured by the VALU operand
// fetch and write-back (valu.cpp), which all ordinary VALU ops use.
void s_set_gpr_idx_on(Wave& w, const Inst& in) {  // SOPC: ssrc0 = index, ssrc1 field = mode
  uint32_t idx = sread32(w, in, in.src[0]) & 0xFF;
  w.s[124] = (w.s[124] & ~0xF0FFu) | idx | ((in.src[1] & 15u) << 12);
  w.gpr_idx = true;
}
void s_set_gpr_idx_idx(Wave& w, const Inst& in) { w.s[124] = (w.s[124] & ~0xFFu) | (S0(w, in) & 0xFF); }
void s_set_gpr_idx_off(Wave& w, const Inst&) { w.gpr_idx = false; }
void s_set_gpr_idx_mode(Wave& w, const Inst& in) {
  w.s[124] = (w.s[124] & ~0xF000u) | ((static_cast<uint32_t>(in.offset) & 15u) << 12);
}

const HandlerEntry kSop1[] = {
    {"s_set_gpr_idx_on", s_set_gpr_idx_on}, {"s_set_gpr_idx_idx", s_set_gpr_idx_idx},
    {"s_set_gpr_idx_off", s_set_gpr_idx_off}, {"s_set_gpr_idx_mode", s_set_gpr_idx_mode},
#define E(n) {#n, n},
    E(s_mov_b32) E(s_mov_b64) E(s_cmov_b32) E(s_cmov_b64) E(s_not_b32) E(s_not_b64)
    E(s_brev_b32) E(s_brev_b64) E(s_bcnt0_i32_b32) E(s_bcnt1_i32_b32) E(s_bcnt0_i32_b64)
    E(s_bcnt1_i32_b64) E(s_ff0_i32_b32) E(s_ff1_i32_b32) E(s_ff0_i32_b64) E(s_ff1_i32_b64)
    E(s_flbit_i32_b32) E(s_flbit_i32_b64) E(s_flbit_i32) E(s_flbit_i32_i64) E(s_sext_i32_i8)
    E(s_sext_i32_i16) E(s_bitset0_b32) E(s_bitset1_b32) E(s_bitset0_b64) E(s_bitset1_b64)
    E(s_abs_i32) E(s_wqm_b64) E(s_wqm_b32) E(s_quadmask_b64) E(s_quadmask_b32) E(s_bitreplicate_b64_b32)
    E(s_getpc_b64) E(s_setpc_b64) E(s_swappc_b64) E(s_and_saveexec_b64) E(s_or_saveexec_b64)
    E(s_xor_saveexec_b64) E(s_andn2_saveexec_b64) E(s_orn2_saveexec_b64) E(s_nand_saveexec_b64)
    E(s_nor_saveexec_b64) E(s_xnor_saveexec_b64) E(s_andn1_saveexec_b64) E(s_orn1_saveexec_b64)
    E(s_andn1_wrexec_b64) E(s_andn2_wrexec_b64) E(s_movrels_b32) E(s_movrels_b64)
    E(s_movreld_b32) E(s_movreld_b64)
#undef E
};

}  // namespace

HandlerList sop1_handlers() { return {std::begin(kSop1), std::end(kSop1)}; }

}  // namespace emu::shader
