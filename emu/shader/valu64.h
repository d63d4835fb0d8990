// SPDX-License-Identifier: MIT
// 64-bit VALU lanes from VGPR pairs: eight lanes at a time, a pair's two rows interleaved into 64-bit values and split back, for f64 and 64-bit integer operations, conversions and compares.
#pragma once

#include <type_traits>

#include "emu/shader/valu.h"

namespace emu::shader {

// A 32-bit source's high row: zeros.
inline constexpr uint32_t kZeroRow[64] = {};

// The sources of a 64-bit operation: source i is a 64-bit pair when bit i of Wide is set (f64
// modifiers and flushing when Fp), else a 32-bit operand of type T zero-extended.
template <unsigned N, bool Fp, unsigned Wide, Ty T>
struct Sources64 {
  uint32_t tmp[N][128];
  Rows64 s[N];
  EMU_INLINE Sources64(const Wave& w, const Inst& in) {
    for (unsigned i = 0; i < N; ++i)
      s[i] = ((Wide >> i) & 1) ? fetch64_rows(w, in, i, Fp, tmp[i]) : Rows64{fetch32(w, in, i, T, tmp[i]), kZeroRow};
  }
};

// Eight 32-bit lanes in a register where the build has AVX2.
#if defined(__AVX2__)
using Lane8 = __m256i;
EMU_INLINE Lane8 get8(const uint32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
EMU_INLINE void put8(uint32_t* p, Lane8 v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
EMU_INLINE Lane8 blend8(Lane8 old, Lane8 v, Lane8 m) { return _mm256_blendv_epi8(old, v, m); }
#else
struct Lane8 { uint32_t v[8]; };
EMU_INLINE Lane8 get8(const uint32_t* p) { Lane8 x; std::memcpy(x.v, p, 32); return x; }
EMU_INLINE void put8(uint32_t* p, const Lane8& v) { std::memcpy(p, v.v, 32); }
EMU_INLINE Lane8 blend8(const Lane8& old, const Lane8& v, const Lane8& m) {
  Lane8 x;
  for (unsigned j = 0; j < 8; ++j) x.v[j] = (v.v[j] & m.v[j]) | (old.v[j] & ~m.v[j]);
  return x;
}
#endif

// Runs r = f(a, b, c) on the 64-bit values of lanes [l, l + 8) for each group l, then
// emit(l, lo, hi) with the results' low and high dwords in lane order. The rows of a pair are
// interleaved by unpacking (f sees lanes l, l+1, l+4, l+5, l+2, l+3, l+6, l+7 in turn, each
// alone) and split back by shuffles; every source of a group is read before its results are
// emitted, so emit may write a source's rows.
template <unsigned N, class F, class Emit>
EMU_INLINE void lanes64(const Rows64* s, F f, Emit emit) {
  for (unsigned l = 0; l < 64; l += 8) {
    alignas(32) uint64_t a[N][8];
    alignas(32) uint64_t r[8];
    Lane8 lo, hi;
#if defined(__AVX2__)
    for (unsigned i = 0; i < N; ++i) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s[i].lo + l));
      const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s[i].hi + l));
      _mm256_store_si256(reinterpret_cast<__m256i*>(a[i]), _mm256_unpacklo_epi32(x, y));
      _mm256_store_si256(reinterpret_cast<__m256i*>(a[i] + 4), _mm256_unpackhi_epi32(x, y));
    }
    for (unsigned j = 0; j < 8; ++j) r[j] = f(a[0][j], a[N > 1 ? 1 : 0][j], a[N > 2 ? 2 : 0][j]);
    const __m256 ra = _mm256_load_ps(reinterpret_cast<const float*>(r));
    const __m256 rb = _mm256_load_ps(reinterpret_cast<const float*>(r + 4));
    lo = _mm256_castps_si256(_mm256_shuffle_ps(ra, rb, _MM_SHUFFLE(2, 0, 2, 0)));
    hi = _mm256_castps_si256(_mm256_shuffle_ps(ra, rb, _MM_SHUFFLE(3, 1, 3, 1)));
#else
    for (unsigned i = 0; i < N; ++i)
      for (unsigned j = 0; j < 8; ++j) a[i][j] = lane64(s[i], l + j);
    for (unsigned j = 0; j < 8; ++j) r[j] = f(a[0][j], a[N > 1 ? 1 : 0][j], a[N > 2 ? 2 : 0][j]);
    for (unsigned j = 0; j < 8; ++j) { lo.v[j] = static_cast<uint32_t>(r[j]); hi.v[j] = static_cast<uint32_t>(r[j] >> 32); }
#endif
    emit(l, lo, hi);
  }
}

#if defined(__AVX2__)
// lanes64 with f on vectors of four lanes (f64 arithmetic the compiler does not vectorise
// through lanes64's per-lane calls as well).
template <unsigned N, class FV, class Emit>
EMU_INLINE void lanes64v(const Rows64* s, FV fv, Emit emit) {
  for (unsigned l = 0; l < 64; l += 8) {
    __m256d a[N][2];
    for (unsigned i = 0; i < N; ++i) {
      const __m256i x = get8(s[i].lo + l), y = get8(s[i].hi + l);
      a[i][0] = _mm256_castsi256_pd(_mm256_unpacklo_epi32(x, y));
      a[i][1] = _mm256_castsi256_pd(_mm256_unpackhi_epi32(x, y));
    }
    const __m256 r0 = _mm256_castpd_ps(fv(a[0][0], a[N > 1 ? 1 : 0][0], a[N > 2 ? 2 : 0][0]));
    const __m256 r1 = _mm256_castpd_ps(fv(a[0][1], a[N > 1 ? 1 : 0][1], a[N > 2 ? 2 : 0][1]));
    emit(l, _mm256_castps_si256(_mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0))),
         _mm256_castps_si256(_mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(3, 1, 3, 1))));
  }
}
#endif

// A 64-bit result (destination pair): written straight there when no output modifier applies.
// With AVX2 and a vector form fv (F64V), f64 lanes go four at a time.
struct NoVector {};
template <unsigned N, bool Fp, unsigned Wide = 7, Ty T = Ty::B32, class F, class FV = NoVector>
EMU_INLINE void valu64(Wave& w, const Inst& in, F f, FV fv = {}) {
  const uint64_t ex = valu_active(w, in);
  Sources64<N, Fp, Wide, T> src(w, in);
  const bool direct = !(in.omod || in.clamp || w.gpr_idx || (Fp && !(w.mode & 0x80)));
  uint32_t rlo[64], rhi[64], sel[64];
  uint32_t* dlo = direct ? w.v[in.dst] : rlo;
  uint32_t* dhi = direct ? w.v[(in.dst + 1) & (kVRows - 1)] : rhi;
  const bool blend = direct && ex != ~uint64_t{0};
  if (blend) mask_lanes(ex, sel);
  auto emit = [&](unsigned l, Lane8 lo, Lane8 hi) {
    if (blend) {
      const Lane8 m = get8(sel + l);
      lo = blend8(get8(dlo + l), lo, m);
      hi = blend8(get8(dhi + l), hi, m);
    }
    put8(dlo + l, lo);
    put8(dhi + l, hi);
  };
#if defined(__AVX2__)
  if constexpr (!std::is_same_v<FV, NoVector>) lanes64v<N>(src.s, fv, emit);
  else lanes64<N>(src.s, f, emit);
#else
  (void)fv;
  lanes64<N>(src.s, f, emit);
#endif
  if (direct) w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  else store64_rows_any(w, in, ex, rlo, rhi, Fp);
}

// A 32-bit result of type Out (f's low dword), through store32.
template <unsigned N, bool Fp, Ty Out, unsigned Wide = 7, Ty T = Ty::B32, class F>
EMU_INLINE void valu64to32(Wave& w, const Inst& in, F f) {
  const uint64_t ex = valu_active(w, in);
  Sources64<N, Fp, Wide, T> src(w, in);
  uint32_t r[64];
  uint32_t* d = direct32(w, in, ex, Out);
  uint32_t* out = d ? d : r;
  lanes64<N>(src.s, f, [&](unsigned l, Lane8 lo, Lane8) { put8(out + l, lo); });
  if (!d) store32(w, in, ex, r, Out);
}

// A lane mask: bit l set where f's result is not zero.
template <unsigned N, bool Fp, unsigned Wide = 7, Ty T = Ty::B32, class F>
EMU_INLINE uint64_t valu64mask(const Wave& w, const Inst& in, F f) {
  Sources64<N, Fp, Wide, T> src(w, in);
  uint32_t c[64];
  lanes64<N>(src.s, f, [&](unsigned l, Lane8 lo, Lane8) { put8(c + l, lo); });
  return lanes_mask(c);
}

}  // namespace emu::shader
