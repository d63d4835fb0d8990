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
// The vector path (AVX2): sources resolved once into row pointers or a broadcast value, kept in
// registers through the lane loop; f64 abs/neg applied to the sign bits there. A pair's rows
// are interleaved into four 64-bit lanes by unpacking (a vector holds lanes l, l+1, l+4, l+5 or
// l+2, l+3, l+6, l+7 of each group of 8) and split back by shuffles.
struct Src64v {
  const uint32_t* lo;  // a VGPR pair's low row, its high row 64 lanes on; nullptr: broadcast
  uint64_t bc;           // the broadcast value
  uint64_t clear, flip;  // sign bits abs clears and neg flips (f64 VGPR pairs)
};

// Resolves the sources of a 64-bit operation as valu64 reads them (Wide, Fp, T as there), or
// false when the instruction needs the general path: DPP, SDWA, output modifiers, GPR
// indexing, f64 denormal flushing, a 32-bit source that is not plain B32, or a pair that wraps
// around the register file.
template <unsigned N, bool Fp, unsigned Wide, Ty T>
EMU_INLINE bool sources64v(const Wave& w, const Inst& in, Src64v* s, bool* mods) {
  if ((in.flags & (kDpp | kSdwa)) || in.omod || in.clamp || w.gpr_idx || (Fp && (w.mode & 0xC0) != 0xC0)) return false;
  const unsigned m = Fp ? (in.abs | in.neg) & Wide : 0;
  *mods = m != 0;
  for (unsigned i = 0; i < N; ++i) {
    const unsigned code = in.src[i];
    const bool wide = (Wide >> i) & 1;
    const uint64_t clear = ((m >> i) & 1) && ((in.abs >> i) & 1) ? uint64_t{1} << 63 : 0;
    const uint64_t flip = ((m >> i) & 1) && ((in.neg >> i) & 1) ? uint64_t{1} << 63 : 0;
    if (!wide && (T != Ty::B32 || !((in.plain >> i) & 1))) return false;
    if (code >= 256) {
      if (wide && code == 256 + kVRows - 1) return false;
      s[i] = {w.v[code - 256], 0, clear, flip};
    } else {
      const uint64_t v = wide ? sread64(w, in, code, Fp) : sread32(w, in, code);
      s[i] = {nullptr, (v & ~clear) ^ flip, 0, 0};
    }
  }
  return true;
}

// Runs fv on lanes [l, l + 8) of the sources for each group l and emit(l, r0, r1) with the
// results as fv returned them (r0: lanes l, l+1, l+4, l+5; r1: l+2, l+3, l+6, l+7). Every source
// of a group is read before emit, so emit may write a source's rows. Narrow (32-bit) sources
// are 64-bit lanes with a zero high dword. One loop per set of broadcast sources (Bc) and of
// sources with modifiers (Mods), so that the loop has no branches.
template <unsigned N, unsigned Mods, unsigned Wide, unsigned Bc, class FV, class Emit>
EMU_INLINE void lanes64v(const Src64v* s, FV fv, Emit emit) {
  const uint32_t* p[N];
  __m256d bc[N], clear[N], flip[N];
#pragma GCC unroll 3
  for (unsigned i = 0; i < N; ++i) {
    p[i] = s[i].lo;
    bc[i] = _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<int64_t>(s[i].bc)));
    clear[i] = _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<int64_t>(s[i].clear)));
    flip[i] = _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<int64_t>(s[i].flip)));
  }
#pragma GCC unroll 8
  for (unsigned l = 0; l < 64; l += 8) {
    __m256d a[N][2];
#pragma GCC unroll 3
    for (unsigned i = 0; i < N; ++i) {
      if ((Bc >> i) & 1) {
        a[i][0] = a[i][1] = bc[i];
        continue;
      }
      const __m256i x = get8(p[i] + l), y = ((Wide >> i) & 1) ? get8(p[i] + 64 + l) : _mm256_setzero_si256();
      a[i][0] = _mm256_castsi256_pd(_mm256_unpacklo_epi32(x, y));
      a[i][1] = _mm256_castsi256_pd(_mm256_unpackhi_epi32(x, y));
      if ((Mods >> i) & 1)
        for (unsigned k = 0; k < 2; ++k) a[i][k] = _mm256_xor_pd(_mm256_andnot_pd(clear[i], a[i][k]), flip[i]);
    }
    emit(l, fv(a[0][0], a[N > 1 ? 1 : 0][0], a[N > 2 ? 2 : 0][0]), fv(a[0][1], a[N > 1 ? 1 : 0][1], a[N > 2 ? 2 : 0][1]));
  }
}
template <unsigned N, unsigned Wide, unsigned K = 0, class FV, class Emit>
EMU_INLINE void lanes64v_pick(unsigned key, const Src64v* s, FV fv, Emit emit) {
  if constexpr (K < (2u << N)) {
    if (key == K) return lanes64v<N, (K >> N) != 0 ? (1u << N) - 1 : 0, Wide, K & ((1u << N) - 1)>(s, fv, emit);
    lanes64v_pick<N, Wide, K + 1>(key, s, fv, emit);
  }
}
template <unsigned N, unsigned Wide, class FV, class Emit>
EMU_INLINE void lanes64v(const Src64v* s, bool mods, FV fv, Emit emit) {
  unsigned key = mods ? 1u << N : 0;
  for (unsigned i = 0; i < N; ++i) key |= s[i].lo ? 0 : 1u << i;
  lanes64v_pick<N, Wide>(key, s, fv, emit);
}
// Two vectors of 64-bit results back into rows: low dwords and high dwords in lane order.
EMU_INLINE void split64(__m256d r0, __m256d r1, Lane8& lo, Lane8& hi) {
  const __m256 a = _mm256_castpd_ps(r0), b = _mm256_castpd_ps(r1);
  lo = _mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
  hi = _mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}
// Two vectors' four 32-bit results each (in fv's lane order) back into lane order.
EMU_INLINE Lane8 join32(__m128i r0, __m128i r1) {
  return _mm256_setr_m128i(_mm_unpacklo_epi64(r0, r1), _mm_unpackhi_epi64(r0, r1));
}
// Lane-mask bits of two compare vectors (all ones per true 64-bit lane) for group l.
EMU_INLINE uint64_t mask64(__m256d m0, __m256d m1, unsigned l) {
  const uint32_t a = static_cast<uint32_t>(_mm256_movemask_pd(m0)), b = static_cast<uint32_t>(_mm256_movemask_pd(m1));
  return uint64_t{_pdep_u32(a, 0x33) | _pdep_u32(b, 0xCC)} << l;
}

// A 64-bit result with fv on four lanes at a time: false when valu64's general path must run.
template <unsigned N, bool Fp, unsigned Wide, Ty T, class FV>
EMU_INLINE bool valu64v(Wave& w, const Inst& in, FV fv) {
  Src64v s[N];
  bool mods;
  if (!sources64v<N, Fp, Wide, T>(w, in, s, &mods)) return false;
  const uint64_t ex = w.exec();
  uint32_t* dlo = w.v[in.dst];
  uint32_t* dhi = w.v[(in.dst + 1) & (kVRows - 1)];
  if (ex == ~uint64_t{0}) {
    lanes64v<N, Wide>(s, mods, fv, [&](unsigned l, __m256d r0, __m256d r1) {
      Lane8 lo, hi;
      split64(r0, r1, lo, hi);
      put8(dlo + l, lo);
      put8(dhi + l, hi);
    });
  } else {
    uint32_t sel[64];
    mask_lanes(ex, sel);
    lanes64v<N, Wide>(s, mods, fv, [&](unsigned l, __m256d r0, __m256d r1) {
      Lane8 lo, hi;
      split64(r0, r1, lo, hi);
      const Lane8 m = get8(sel + l);
      put8(dlo + l, blend8(get8(dlo + l), lo, m));
      put8(dhi + l, blend8(get8(dhi + l), hi, m));
    });
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  return true;
}
#endif

// A 64-bit result (destination pair): written straight there when no output modifier applies.
// With AVX2 and a vector form fv (on __m256d, four lanes), the vector path.
struct NoVector {};
template <unsigned N, bool Fp, unsigned Wide = 7, Ty T = Ty::B32, class F, class FV = NoVector>
EMU_INLINE void valu64(Wave& w, const Inst& in, F f, FV fv = {}) {
#if defined(__AVX2__)
  if constexpr (!std::is_same_v<FV, NoVector>)
    if (valu64v<N, Fp, Wide, T>(w, in, fv)) return;
#else
  (void)fv;
#endif
  const uint64_t ex = valu_active(w, in);
  Sources64<N, Fp, Wide, T> src(w, in);
  const bool direct = !(in.omod || in.clamp || w.gpr_idx || (Fp && !(w.mode & 0x80)));
  uint32_t rlo[64], rhi[64], sel[64];
  uint32_t* dlo = direct ? w.v[in.dst] : rlo;
  uint32_t* dhi = direct ? w.v[(in.dst + 1) & (kVRows - 1)] : rhi;
  const bool blend = direct && ex != ~uint64_t{0};
  if (blend) mask_lanes(ex, sel);
  lanes64<N>(src.s, f, [&](unsigned l, Lane8 lo, Lane8 hi) {
    if (blend) {
      const Lane8 m = get8(sel + l);
      lo = blend8(get8(dlo + l), lo, m);
      hi = blend8(get8(dhi + l), hi, m);
    }
    put8(dlo + l, lo);
    put8(dhi + l, hi);
  });
  if (direct) w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  else store64_rows_any(w, in, ex, rlo, rhi, Fp);
}

// A 32-bit result of type Out (f's low dword), through store32. With AVX2 and a vector form fv
// (four lanes' results as four 32-bit values, __m128i), the vector path when it applies.
template <unsigned N, bool Fp, Ty Out, unsigned Wide = 7, Ty T = Ty::B32, class F, class FV = NoVector>
EMU_INLINE void valu64to32(Wave& w, const Inst& in, F f, FV fv = {}) {
  const uint64_t ex = valu_active(w, in);
  uint32_t r[64];
  uint32_t* d = direct32(w, in, ex, Out);
  uint32_t* out = d ? d : r;
#if defined(__AVX2__)
  if constexpr (!std::is_same_v<FV, NoVector>) {
    Src64v s[N];
    bool mods;
    if (sources64v<N, Fp, Wide, T>(w, in, s, &mods)) {
      lanes64v<N, Wide>(s, mods, fv, [&](unsigned l, __m128i r0, __m128i r1) { put8(out + l, join32(r0, r1)); });
      if (!d) store32(w, in, ex, r, Out);
      return;
    }
  }
#else
  (void)fv;
#endif
  Sources64<N, Fp, Wide, T> src(w, in);
  lanes64<N>(src.s, f, [&](unsigned l, Lane8 lo, Lane8) { put8(out + l, lo); });
  if (!d) store32(w, in, ex, r, Out);
}

// A lane mask: bit l set where f's result is not zero. With AVX2 and a vector form fv (a compare
// result, all ones per true lane), the vector path when it applies.
template <unsigned N, bool Fp, unsigned Wide = 7, Ty T = Ty::B32, class F, class FV = NoVector>
EMU_INLINE uint64_t valu64mask(const Wave& w, const Inst& in, F f, FV fv = {}) {
#if defined(__AVX2__)
  if constexpr (!std::is_same_v<FV, NoVector>) {
    Src64v s[N];
    bool mods;
    if (sources64v<N, Fp, Wide, T>(w, in, s, &mods)) {
      uint64_t m = 0;
      lanes64v<N, Wide>(s, mods, fv, [&](unsigned l, __m256d m0, __m256d m1) { m |= mask64(m0, m1, l); });
      return m;
    }
  }
#else
  (void)fv;
#endif
  Sources64<N, Fp, Wide, T> src(w, in);
  uint32_t c[64];
  lanes64<N>(src.s, f, [&](unsigned l, Lane8 lo, Lane8) { put8(c + l, lo); });
  return lanes_mask(c);
}

}  // namespace emu::shader
