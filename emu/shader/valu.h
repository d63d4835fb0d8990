// SPDX-License-Identifier: MIT
// Vector ALU helpers shared by the VOP execution files: operand fetch with modifiers (VOP3
// abs/neg/opsel, DPP, SDWA), result write-back under EXEC (clamp, omod, SDWA dst_sel).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "emu/shader/decode.h"

namespace emu::shader {

// The per-instruction helpers below are inlined into every handler whatever the compiler's
// size heuristics say: an out-of-line copy costs a call and its checks per operand.
#define EMU_INLINE inline __attribute__((always_inline))

// Lane loops. The bodies are written per lane; compilers vectorize the simple ones.
#define VLOOP for (unsigned l = 0; l < 64; ++l)
// A lane loop whose destination row may be one of its source rows: lane l reads its sources
// before it writes its result, and rows never partly overlap, so vectorising without a
// run-time overlap check is safe.
#if defined(__clang__)
#define VLOOP_INPLACE _Pragma("clang loop vectorize(assume_safety)") VLOOP
#else
#define VLOOP_INPLACE _Pragma("GCC ivdep") VLOOP
#endif

// A lane mask as one word per lane (all ones where the lane's bit is set), so that selects
// and masked writes become vectorised blends instead of a shift and branch per lane.
EMU_INLINE void mask_lanes(uint64_t m, uint32_t* sel) {
  const uint32_t lo = static_cast<uint32_t>(m), hi = static_cast<uint32_t>(m >> 32);
  for (unsigned l = 0; l < 32; ++l) sel[l] = 0u - ((lo >> l) & 1u);
  for (unsigned l = 0; l < 32; ++l) sel[32 + l] = 0u - ((hi >> l) & 1u);
}
// The inverse: bit l set where c[l] != 0 (carry-outs, compare results).
EMU_INLINE uint64_t lanes_mask(const uint32_t* c) {
#if defined(__AVX2__)
  uint64_t m = 0;
  const __m256i zero = _mm256_setzero_si256();
  for (unsigned g = 0; g < 8; ++g) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + 8 * g));
    unsigned z = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))));
    m |= uint64_t{~z & 0xFFu} << (8 * g);
  }
  return m;
#elif defined(__SSE2__)
  uint64_t m = 0;
  const __m128i zero = _mm_setzero_si128();
  for (unsigned g = 0; g < 16; ++g) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + 4 * g));
    unsigned z = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, zero))));
    m |= uint64_t{~z & 0xFu} << (4 * g);
  }
  return m;
#else
  uint64_t m = 0;
  for (unsigned l = 0; l < 64; ++l) m |= uint64_t{c[l] != 0} << l;
  return m;
#endif
}

// How an operand is interpreted: selects which sign bit abs/neg touch and opsel halves.
// M32: f32 abs/neg modifiers but no denormal flushing (bit moves such as v_cndmask, classify).
// B32Sat/B16Sat (store32 only): integer results the handler already saturated for the clamp
// bit (integer add/sub/dot: clamp means saturate instead of wrap).
enum class Ty : uint8_t { B32, F32, F16, B16, M32, B32Sat, B16Sat };

// EXEC for this instruction, minus lanes DPP disables (row/bank masks, invalid source lanes
// without bound_ctrl).
uint64_t valu_active_dpp(const Wave& w, const Inst& in);
EMU_INLINE uint64_t valu_active(const Wave& w, const Inst& in) {
  return (in.flags & kDpp) ? valu_active_dpp(w, in) : w.exec();
}
// Inline float constants 240..248 as f32 bit patterns (AMD Vega ISA "Scalar Operands").
extern const uint32_t kInlineF32[9];
// Source i as 64 32-bit lanes: a pointer into the register file when no modifier applies,
// else `tmp` filled.
const uint32_t* fetch32_any(const Wave& w, const Inst& in, unsigned i, Ty t, uint32_t* tmp);
// The common cases inline: a plain VGPR (no modifier, DPP, SDWA, op_sel, GPR indexing or
// input flushing) is read in place, a plain SGPR, integer constant or literal broadcast;
// everything else goes to fetch32_any.
EMU_INLINE const uint32_t* fetch32(const Wave& w, const Inst& in, unsigned i, Ty t, uint32_t* tmp) {
  const unsigned code = in.src[i];
  if (((in.plain >> i) & 1) && !w.gpr_idx && !(t == Ty::F32 && !(w.mode & 0x10)) &&
      !(t == Ty::F16 && !(w.mode & 0x40))) {
    if (code >= 256) return w.v[code - 256];
    uint32_t v;
    if (code < 128) v = code == 125 ? 0 : w.s[code];
    else if (code <= 192) v = code - 128;
    else if (code <= 208) v = static_cast<uint32_t>(192 - static_cast<int>(code));
    else if (code == 255) v = in.literal;
    else if (code >= 240 && code <= 248 && t != Ty::F16) v = kInlineF32[code - 240];
    else return fetch32_any(w, in, i, t, tmp);
    VLOOP tmp[l] = v;
    return tmp;
  }
  return fetch32_any(w, in, i, t, tmp);
}
// Source i as 64 64-bit lanes (VGPR pairs, SGPR pairs, inline constants as f64/i64).
void fetch64(const Wave& w, const Inst& in, unsigned i, bool fp, uint64_t* out);
// Source i as two rows, the lanes' low and high dwords: a plain VGPR pair in place (no
// modifier, GPR indexing or f64 input flushing), else `tmp` (128 dwords) filled.
struct Rows64 { const uint32_t* lo; const uint32_t* hi; };
Rows64 fetch64_rows_any(const Wave& w, const Inst& in, unsigned i, bool fp, uint32_t* tmp);
EMU_INLINE Rows64 fetch64_rows(const Wave& w, const Inst& in, unsigned i, bool fp, uint32_t* tmp) {
  const unsigned code = in.src[i];
  if (((in.plain >> i) & 1) && !w.gpr_idx && (!fp || (w.mode & 0x40))) {
    if (code >= 256) {
      const unsigned row = code - 256;
      return {w.v[row], w.v[(row + 1) & (kVRows - 1)]};
    }
    if (code < 128 || code <= 208 || (code >= 240 && code <= 248) || code == 255) {
      const uint64_t v = sread64(w, in, code, fp);  // an SGPR pair or a constant: broadcast
      const uint32_t lo = static_cast<uint32_t>(v), hi = static_cast<uint32_t>(v >> 32);
      VLOOP { tmp[l] = lo; tmp[64 + l] = hi; }
      return {tmp, tmp + 64};
    }
  }
  return fetch64_rows_any(w, in, i, fp, tmp);
}
// Lane l's 64-bit value from its two rows.
inline uint64_t lane64(const Rows64& r, unsigned l) { return r.lo[l] | (uint64_t{r.hi[l]} << 32); }
// Writes r to in.dst for the lanes in `ex` (applies omod/clamp for F32/F16, SDWA dst_sel).
void store32_any(Wave& w, const Inst& in, uint64_t ex, uint32_t* r, Ty t);
// The common case inline: a 32-bit result without output modifiers, SDWA, GPR indexing or
// output flushing; everything else goes to store32_any.
EMU_INLINE void store32(Wave& w, const Inst& in, uint64_t ex, uint32_t* r, Ty t) {
  if (!((t == Ty::B32 || (t == Ty::F32 && (w.mode & 0x20))) && !in.omod && !in.clamp &&
        !(in.flags & kSdwa) && !w.gpr_idx)) {
    store32_any(w, in, ex, r, t);
    return;
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  uint32_t* d = w.v[in.dst];
  if (ex == ~uint64_t{0}) { std::memcpy(d, r, 256); return; }
  uint32_t sel[64];
  mask_lanes(ex, sel);
  VLOOP d[l] = (r[l] & sel[l]) | (d[l] & ~sel[l]);
}
// The destination row when a 32-bit result can go straight there (VLOOP_INPLACE): every lane
// active and store32's inline case (no output modifier, SDWA, GPR indexing or output
// flushing); counts the lanes. nullptr: compute into a temporary and store32 it.
EMU_INLINE uint32_t* direct32(Wave& w, const Inst& in, uint64_t ex, Ty t) {
  if (ex != ~uint64_t{0} || !(t == Ty::B32 || (t == Ty::F32 && (w.mode & 0x20))) || in.omod || in.clamp ||
      (in.flags & kSdwa) || w.gpr_idx)
    return nullptr;
  w.lane_ops += 64;
  return w.v[in.dst];
}
void store64(Wave& w, const Inst& in, uint64_t ex, uint64_t* r, bool fp);
// The same from the result's low and high rows; inline without output modifiers, GPR indexing
// or f64 output flushing.
void store64_rows_any(Wave& w, const Inst& in, uint64_t ex, const uint32_t* lo, const uint32_t* hi, bool fp);
EMU_INLINE void store64_rows(Wave& w, const Inst& in, uint64_t ex, const uint32_t* lo, const uint32_t* hi, bool fp) {
  if (in.omod || in.clamp || w.gpr_idx || (fp && !(w.mode & 0x80))) {
    store64_rows_any(w, in, ex, lo, hi, fp);
    return;
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  uint32_t* dlo = w.v[in.dst];
  uint32_t* dhi = w.v[(in.dst + 1) & (kVRows - 1)];
  if (ex == ~uint64_t{0}) {
    std::memcpy(dlo, lo, 256);
    std::memcpy(dhi, hi, 256);
    return;
  }
  uint32_t sel[64];
  mask_lanes(ex, sel);
  VLOOP {
    dlo[l] = (lo[l] & sel[l]) | (dlo[l] & ~sel[l]);
    dhi[l] = (hi[l] & sel[l]) | (dhi[l] & ~sel[l]);
  }
}
// Mask (carry-in / cndmask selector): VCC for VOP2, the SGPR pair in src2 for VOP3.
uint64_t mask_source(const Wave& w, const Inst& in);
// Writes a lane mask (compare result, carry out) to in.sdst; inactive lanes read 0.
void store_mask(Wave& w, const Inst& in, uint64_t m);

inline float f32(uint32_t x) { return std::bit_cast<float>(x); }
inline uint32_t u32(float x) { return std::bit_cast<uint32_t>(x); }
inline double f64(uint64_t x) { return std::bit_cast<double>(x); }
inline uint64_t u64(double x) { return std::bit_cast<uint64_t>(x); }
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);    // round to nearest even
uint16_t f64_to_f16(double d);   // single rounding from double


}  // namespace emu::shader
