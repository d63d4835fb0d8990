// SPDX-License-Identifier: MIT
// VALU execution of 64-bit operations, conversions, division helpers and cross-lane ops.
#include "emu/shader/valu64.h"

namespace emu::shader {

namespace {

// f64 operations lane by lane on the sources' row pairs (valu64.h).
#define D1(NAME, EXPR) void NAME(Wave& w, const Inst& in) { \
  valu64<1, true>(w, in, [](uint64_t x, uint64_t, uint64_t) { double a = f64(x); return u64(EXPR); }); }
#define D2(NAME, EXPR) void NAME(Wave& w, const Inst& in) { \
  valu64<2, true>(w, in, [](uint64_t x, uint64_t y, uint64_t) { double a = f64(x), b = f64(y); return u64(EXPR); }); }
#define D3(NAME, EXPR) void NAME(Wave& w, const Inst& in) { \
  valu64<3, true>(w, in, [](uint64_t x, uint64_t y, uint64_t z) { double a = f64(x), b = f64(y), c = f64(z); return u64(EXPR); }); }

inline double dmin(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : (a < b || (a == b && std::signbit(a))) ? a : b; }
inline double dmax(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : (a > b || (a == b && !std::signbit(a))) ? a : b; }
inline double dfract(double a) { return std::isinf(a) ? std::nan("") : std::fmin(a - std::floor(a), 0x1.fffffffffffffp-1); }
inline double dmant(double a) { int e; return std::isfinite(a) ? std::frexp(a, &e) : a; }

#if defined(__AVX2__) && defined(__FMA__)
// Also in vector form (the same IEEE operations, four lanes at a time: valu64.h).
#define D1V(NAME, EXPR, VEXPR) void NAME(Wave& w, const Inst& in) { \
  valu64<1, true>(w, in, [](uint64_t x, uint64_t, uint64_t) { double a = f64(x); return u64(EXPR); }, \
                  [](__m256d a, __m256d, __m256d) { return VEXPR; }); }
#define D2V(NAME, EXPR, VEXPR) void NAME(Wave& w, const Inst& in) { \
  valu64<2, true>(w, in, [](uint64_t x, uint64_t y, uint64_t) { double a = f64(x), b = f64(y); return u64(EXPR); }, \
                  [](__m256d a, __m256d b, __m256d) { return VEXPR; }); }
#define D3V(NAME, EXPR, VEXPR) void NAME(Wave& w, const Inst& in) { \
  valu64<3, true>(w, in, [](uint64_t x, uint64_t y, uint64_t z) { double a = f64(x), b = f64(y), c = f64(z); return u64(EXPR); }, \
                  [](__m256d a, __m256d b, __m256d c) { return VEXPR; }); }
#define ROUND_PD(a, mode) _mm256_round_pd(a, (mode) | _MM_FROUND_NO_EXC)
#else
#define D1V(NAME, EXPR, VEXPR) D1(NAME, EXPR)
#define D2V(NAME, EXPR, VEXPR) D2(NAME, EXPR)
#define D3V(NAME, EXPR, VEXPR) D3(NAME, EXPR)
#endif

D2V(v_add_f64, a + b, _mm256_add_pd(a, b))
D2V(v_mul_f64, a * b, _mm256_mul_pd(a, b))
D2(v_min_f64, dmin(a, b))
D2(v_max_f64, dmax(a, b))
D3V(v_fma_f64, std::fma(a, b, c), _mm256_fmadd_pd(a, b, c))
D3V(v_fmac_f64, std::fma(a, b, c), _mm256_fmadd_pd(a, b, c))
D1V(v_trunc_f64, std::trunc(a), ROUND_PD(a, _MM_FROUND_TO_ZERO))
D1V(v_ceil_f64, std::ceil(a), ROUND_PD(a, _MM_FROUND_TO_POS_INF))
D1V(v_rndne_f64, std::nearbyint(a), ROUND_PD(a, _MM_FROUND_TO_NEAREST_INT))
D1V(v_floor_f64, std::floor(a), ROUND_PD(a, _MM_FROUND_TO_NEG_INF))
D1(v_fract_f64, dfract(a))
D1V(v_rcp_f64, 1.0 / a, _mm256_div_pd(_mm256_set1_pd(1.0), a))
D1V(v_rsq_f64, 1.0 / std::sqrt(a), _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(a)))
D1V(v_sqrt_f64, std::sqrt(a), _mm256_sqrt_pd(a))
D1(v_frexp_mant_f64, dmant(a))

// a * 2^b rounded once, as scalbn does it (musl's): steps of 2^1023 up, and of 2^-969 down,
// which keep the value at least 53 bits above the denormals until the last multiply; b beyond
// +-2200 gives 0 or infinity either way. Selects only, so that the lanes vectorise.
inline double pow2(int32_t k) { return f64(static_cast<uint64_t>(k + 1023) << 52); }  // k in [-1022, 1023]
inline double ldexp_f64(double a, int32_t b) {
  int32_t n = std::clamp(b, -2200, 2200);
  double y = a;
  for (int step = 0; step < 2; ++step) {
    const bool up = n > 1023, down = n < -1022;
    y *= up ? pow2(1023) : down ? pow2(-969) : 1.0;
    n -= up ? 1023 : down ? -969 : 0;
  }
  return y * pow2(std::clamp(n, -1022, 1023));
}
#if defined(__AVX2__)
// The same four lanes at a time: b in the low dword of each 64-bit lane (the high dwords stay 0
// through the 32-bit arithmetic), 2^k built in the high dword.
inline __m256d pow2v(__m256i k) {
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(1023)), 20), 32));
}
inline __m256d ldexp_f64v(__m256d a, __m256d bits) {
  auto clamp = [](__m256i x, int lo, int hi) {
    return _mm256_min_epi32(_mm256_max_epi32(x, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
  };
  const __m256i low = _mm256_set1_epi64x(0xFFFFFFFF);
  __m256i n = _mm256_and_si256(clamp(_mm256_castpd_si256(bits), -2200, 2200), low);
  // Exponents of normal powers of two (the usual case): one multiply, rounded once as above.
  const __m256i in_range = _mm256_and_si256(_mm256_cmpgt_epi32(n, _mm256_set1_epi32(-1023)),
                                            _mm256_cmpgt_epi32(_mm256_set1_epi32(1024), n));
  if (_mm256_movemask_ps(_mm256_castsi256_ps(in_range)) == 0xFF) return _mm256_mul_pd(a, pow2v(n));
  __m256d y = a;
  for (int step = 0; step < 2; ++step) {
    const __m256i up = _mm256_cmpgt_epi32(n, _mm256_set1_epi32(1023)), down = _mm256_cmpgt_epi32(_mm256_set1_epi32(-1022), n);
    const __m256i k = _mm256_and_si256(_mm256_or_si256(_mm256_and_si256(up, _mm256_set1_epi32(1023)),
                                                       _mm256_and_si256(down, _mm256_set1_epi32(-969))), low);
    y = _mm256_mul_pd(y, pow2v(k));
    n = _mm256_sub_epi32(n, k);
  }
  return _mm256_mul_pd(y, pow2v(_mm256_and_si256(clamp(n, -1022, 1023), low)));
}
#define LDEXP64V [](__m256d a, __m256d b, __m256d) { return ldexp_f64v(a, b); }
#else
#define LDEXP64V NoVector{}
#endif
void v_ldexp_f64(Wave& w, const Inst& in) {
  valu64<2, true, 0b01>(w, in, [](uint64_t a, uint64_t b, uint64_t) {
    return u64(ldexp_f64(f64(a), static_cast<int32_t>(b)));
  }, LDEXP64V);
}

// 64-bit results from 32-bit/64-bit integer sources.
#if defined(__AVX2__)
inline __m256i shift_count(__m256d a) { return _mm256_and_si256(_mm256_castpd_si256(a), _mm256_set1_epi64x(63)); }
#define SHIFT64(VOP) [](__m256d a, __m256d b, __m256d) { \
    return _mm256_castsi256_pd(VOP(_mm256_castpd_si256(b), shift_count(a))); }
#else
#define SHIFT64(VOP) NoVector{}
#endif
void v_lshlrev_b64(Wave& w, const Inst& in) {
  valu64<2, false, 0b10>(w, in, [](uint64_t a, uint64_t b, uint64_t) { return b << (a & 63); }, SHIFT64(_mm256_sllv_epi64));
}
void v_lshrrev_b64(Wave& w, const Inst& in) {
  valu64<2, false, 0b10>(w, in, [](uint64_t a, uint64_t b, uint64_t) { return b >> (a & 63); }, SHIFT64(_mm256_srlv_epi64));
}
void v_ashrrev_i64(Wave& w, const Inst& in) {
  valu64<2, false, 0b10>(w, in, [](uint64_t a, uint64_t b, uint64_t) {
    return static_cast<uint64_t>(static_cast<int64_t>(b) >> (a & 63));
  });
}
// gfx940+ (AMD Instinct MI300 ISA): v_mov_b64 copies a 64-bit operand (a VGPR or SGPR pair, an
// inline constant, a literal zero-extended as for other b64 operands); v_lshl_add_u64 is
// D = (S0 << S1[2:0]) + S2 on 64-bit S0 and S2 (LLVM emits it for shifts of 0 to 4).
void v_mov_b64(Wave& w, const Inst& in) {
  valu64<1, false, 0b1>(w, in, [](uint64_t a, uint64_t, uint64_t) { return a; });
}
void v_lshl_add_u64(Wave& w, const Inst& in) {
  valu64<3, false, 0b101>(w, in, [](uint64_t a, uint64_t b, uint64_t c) { return (a << (b & 7)) + c; });
}
// v_mad_u64_u32 / v_mad_i64_i32 (VOP3B): D = S0*S1 + S2 (64-bit), carry-out to sdst. The carries
// are taken first and written last (sdst may be the SGPR pair S2 reads).
#if defined(__AVX2__)
// Eight lanes: the 32x32-bit products of the even and odd lanes, S2 added (a VGPR pair's rows, or
// one value: CBroadcast), the carries from an unsigned compare through the sign bit (none when
// S2 is zero), the results blended into the destination unless every lane is active (Full).
template <bool Full, bool CBroadcast, bool CZero>
uint64_t mad_u64_u32_lanes(const uint32_t* A, const uint32_t* B, const uint32_t* Clo, const uint32_t* Chi, uint64_t c,
                           const uint32_t* sel, uint32_t* dlo, uint32_t* dhi) {
  const __m256i sign = _mm256_set1_epi64x(INT64_MIN), cb = _mm256_set1_epi64x(static_cast<int64_t>(c));
  uint64_t co = 0;
  for (unsigned l = 0; l < 64; l += 8) {
    const __m256i a = get8(A + l), b = get8(B + l);
    __m256i se = _mm256_mul_epu32(a, b), so = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
    if (!CZero) {
      __m256i ce = cb, cd = cb;
      if (!CBroadcast) {
        const __m256i clo = get8(Clo + l), chi = get8(Chi + l);
        ce = _mm256_blend_epi32(clo, _mm256_slli_epi64(chi, 32), 0xAA);
        cd = _mm256_blend_epi32(_mm256_srli_epi64(clo, 32), chi, 0xAA);
      }
      const __m256i pe = se, po = so;
      se = _mm256_add_epi64(pe, ce);
      so = _mm256_add_epi64(po, cd);
      // carried: sum < product (unsigned 64-bit compare through the sign bit)
      const __m256i ke = _mm256_cmpgt_epi64(_mm256_xor_si256(pe, sign), _mm256_xor_si256(se, sign));
      const __m256i ko = _mm256_cmpgt_epi64(_mm256_xor_si256(po, sign), _mm256_xor_si256(so, sign));
      const uint32_t me = static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(ke)));
      const uint32_t mo = static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(ko)));
      co |= uint64_t{_pdep_u32(me, 0x55) | _pdep_u32(mo, 0xAA)} << l;
    }
    Lane8 lo = _mm256_blend_epi32(se, _mm256_slli_epi64(so, 32), 0xAA);
    Lane8 hi = _mm256_blend_epi32(_mm256_srli_epi64(se, 32), so, 0xAA);
    if (!Full) {
      const Lane8 m = get8(sel + l);
      lo = blend8(get8(dlo + l), lo, m);
      hi = blend8(get8(dhi + l), hi, m);
    }
    put8(dlo + l, lo);
    put8(dhi + l, hi);
  }
  return co;
}
#endif
void v_mad_u64_u32(Wave& w, const Inst& in) {
  const uint64_t ex = valu_active(w, in);
#if defined(__AVX2__)
  if (!in.clamp && !w.gpr_idx && !(in.flags & kDpp) && (in.plain & 3) == 3) {
    uint32_t t0[64], t1[64], sel[64];
    const uint32_t* A = fetch32(w, in, 0, Ty::B32, t0);
    const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
    const unsigned code = in.src[2];
    const bool bc = code < 256;
    const uint64_t c = bc ? sread64(w, in, code, false) : 0;
    const uint32_t* Clo = bc ? nullptr : w.v[code - 256];
    const uint32_t* Chi = bc ? nullptr : w.v[(code - 255) & (kVRows - 1)];
    uint32_t* dlo = w.v[in.dst];
    uint32_t* dhi = w.v[(in.dst + 1) & (kVRows - 1)];
    const bool full = ex == ~uint64_t{0};
    if (!full) mask_lanes(ex, sel);
    uint64_t co;
    if (full && bc && c == 0) co = mad_u64_u32_lanes<true, true, true>(A, B, Clo, Chi, c, sel, dlo, dhi);
    else if (full && bc) co = mad_u64_u32_lanes<true, true, false>(A, B, Clo, Chi, c, sel, dlo, dhi);
    else if (full) co = mad_u64_u32_lanes<true, false, false>(A, B, Clo, Chi, c, sel, dlo, dhi);
    else if (bc) co = mad_u64_u32_lanes<false, true, false>(A, B, Clo, Chi, c, sel, dlo, dhi);
    else co = mad_u64_u32_lanes<false, false, false>(A, B, Clo, Chi, c, sel, dlo, dhi);
    w.lane_ops += static_cast<unsigned>(std::popcount(ex));
    store_mask(w, in, co & ex);
    return;
  }
#endif
  const uint64_t co = valu64mask<3, false, 0b100>(w, in, [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
    return a * b + c < a * b;
  });
  valu64<3, false, 0b100>(w, in, [](uint64_t a, uint64_t b, uint64_t c) { return a * b + c; });
  store_mask(w, in, co & ex);
}
void v_mad_i64_i32(Wave& w, const Inst& in) {
  const uint64_t ex = valu_active(w, in);
  auto sum = [](uint64_t a, uint64_t b, uint64_t c) {
    return static_cast<__int128>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)) + static_cast<int64_t>(c);
  };
  const uint64_t co = valu64mask<3, false, 0b100>(w, in, [&](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
    const __int128 s = sum(a, b, c);
    return s > INT64_MAX || s < INT64_MIN;
  });
  valu64<3, false, 0b100>(w, in, [&](uint64_t a, uint64_t b, uint64_t c) { return static_cast<uint64_t>(sum(a, b, c)); });
  store_mask(w, in, co & ex);
}

// Conversions between f64 and 32-bit types (vector forms: valu64.h; f64 -> int truncates a
// value clamped to the type's range, NaN selected to 0 first).
template <Ty T, class F, class FV = NoVector>
void cvt_to32(Wave& w, const Inst& in, F f, FV fv = {}) {
  valu64to32<1, true, T>(w, in, [&](uint64_t a, uint64_t, uint64_t) -> uint64_t { return f(f64(a)); }, fv);
}
template <Ty T, class F>
void cvt_to64(Wave& w, const Inst& in, F f) {
  valu64<1, true, 0, T>(w, in, [&](uint64_t a, uint64_t, uint64_t) { return u64(f(static_cast<uint32_t>(a))); });
}
#if defined(__AVX2__)
inline __m256d no_nan(__m256d a) { return _mm256_andnot_pd(_mm256_cmp_pd(a, a, _CMP_UNORD_Q), a); }  // NaN -> +0
#define CVT_I32V [](__m256d a, __m256d, __m256d) { \
    return _mm256_cvttpd_epi32(_mm256_min_pd(_mm256_max_pd(no_nan(a), _mm256_set1_pd(-2147483648.0)), _mm256_set1_pd(2147483647.0))); }
// [0, 2^32 - 1] floored, less 2^31 (exact), converted, plus 2^31 again in 32-bit arithmetic.
#define CVT_U32V [](__m256d a, __m256d, __m256d) { \
    const __m256d c = _mm256_floor_pd(_mm256_min_pd(_mm256_max_pd(no_nan(a), _mm256_setzero_pd()), _mm256_set1_pd(4294967295.0))); \
    return _mm_xor_si128(_mm256_cvttpd_epi32(_mm256_sub_pd(c, _mm256_set1_pd(2147483648.0))), _mm_set1_epi32(INT32_MIN)); }
#define CVT_F32V [](__m256d a, __m256d, __m256d) { return _mm_castps_si128(_mm256_cvtpd_ps(a)); }
#else
#define CVT_I32V NoVector{}
#define CVT_U32V NoVector{}
#define CVT_F32V NoVector{}
#endif
void v_cvt_i32_f64(Wave& w, const Inst& in) {
  cvt_to32<Ty::B32>(w, in, [](double x) -> uint32_t {
    if (std::isnan(x)) return 0;
    if (x >= 2147483647.0) return INT32_MAX;
    if (x <= -2147483648.0) return static_cast<uint32_t>(INT32_MIN);
    return static_cast<uint32_t>(static_cast<int32_t>(x));
  }, CVT_I32V);
}
void v_cvt_u32_f64(Wave& w, const Inst& in) {
  cvt_to32<Ty::B32>(w, in, [](double x) -> uint32_t {
    if (std::isnan(x) || x <= 0) return 0;
    if (x >= 4294967295.0) return UINT32_MAX;
    return static_cast<uint32_t>(x);
  }, CVT_U32V);
}
void v_cvt_f32_f64(Wave& w, const Inst& in) {
  cvt_to32<Ty::F32>(w, in, [](double x) { return u32(static_cast<float>(x)); }, CVT_F32V);
}
void v_frexp_exp_i32_f64(Wave& w, const Inst& in) {
  cvt_to32<Ty::B32>(w, in, [](double x) { int e = 0; if (std::isfinite(x)) std::frexp(x, &e); return static_cast<uint32_t>(e); });
}
void v_cvt_f64_i32(Wave& w, const Inst& in) { cvt_to64<Ty::B32>(w, in, [](uint32_t x) { return static_cast<double>(static_cast<int32_t>(x)); }); }
void v_cvt_f64_u32(Wave& w, const Inst& in) { cvt_to64<Ty::B32>(w, in, [](uint32_t x) { return static_cast<double>(x); }); }
void v_cvt_f64_f32(Wave& w, const Inst& in) { cvt_to64<Ty::F32>(w, in, [](uint32_t x) { return static_cast<double>(f32(x)); }); }

// Division helpers. The host has exact IEEE division, so v_div_scale never scales (VCC = 0)
// and v_div_fixup returns the correctly rounded quotient S2/S1, which is what the
// scale/rcp/fma/fmas/fixup sequence computes on hardware for every input.
void v_div_scale_f32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F32, t0);
  VLOOP r[l] = A[l];
  store32(w, in, ex, r, Ty::F32);
  store_mask(w, in, 0);
}
void v_div_scale_f64(Wave& w, const Inst& in) {
#if defined(__AVX2__)
  if (valu64v<1, true, 7, Ty::B32>(w, in, [](__m256d a, __m256d, __m256d) { return a; })) {
    store_mask(w, in, 0);
    return;
  }
#endif
  uint64_t ex = valu_active(w, in), A[64];
  fetch64(w, in, 0, true, A);
  store64(w, in, ex, A, true);
  store_mask(w, in, 0);
}
void v_div_fmas_f32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in), vcc = w.vcc();
  uint32_t t0[64], t1[64], t2[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F32, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::F32, t1);
  const uint32_t* C = fetch32(w, in, 2, Ty::F32, t2);
  VLOOP {
    float d = std::fma(f32(A[l]), f32(B[l]), f32(C[l]));
    r[l] = u32(((vcc >> l) & 1) ? std::ldexp(d, 32) : d);
  }
  store32(w, in, ex, r, Ty::F32);
}
void v_div_fmas_f64(Wave& w, const Inst& in) {
#if defined(__AVX2__)
  const uint64_t scaled = w.vcc() & w.exec();  // lanes whose result is scaled by 2^64
  if (valu64v<3, true, 7, Ty::B32>(w, in, [](__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); })) {
    uint32_t* lo = w.v[in.dst];
    uint32_t* hi = w.v[(in.dst + 1) & (kVRows - 1)];
    for (uint64_t m = scaled; m; m &= m - 1) {  // VCC lanes: the result times 2^64
      const unsigned l = static_cast<unsigned>(std::countr_zero(m));
      const uint64_t r = u64(std::ldexp(f64(lo[l] | (uint64_t{hi[l]} << 32)), 64));
      lo[l] = static_cast<uint32_t>(r);
      hi[l] = static_cast<uint32_t>(r >> 32);
    }
    return;
  }
#endif
  uint64_t ex = valu_active(w, in), vcc = w.vcc(), A[64], B[64], C[64], R[64];
  fetch64(w, in, 0, true, A); fetch64(w, in, 1, true, B); fetch64(w, in, 2, true, C);
  VLOOP {
    double d = std::fma(f64(A[l]), f64(B[l]), f64(C[l]));
    R[l] = u64(((vcc >> l) & 1) ? std::ldexp(d, 64) : d);
  }
  store64(w, in, ex, R, true);
}
void v_div_fixup_f32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t1[64], t2[64], r[64];
  const uint32_t* B = fetch32(w, in, 1, Ty::F32, t1);
  const uint32_t* C = fetch32(w, in, 2, Ty::F32, t2);
  VLOOP r[l] = u32(f32(C[l]) / f32(B[l]));
  store32(w, in, ex, r, Ty::F32);
}
void v_div_fixup_f64(Wave& w, const Inst& in) {
#if defined(__AVX2__)
  if (valu64v<3, true, 7, Ty::B32>(w, in, [](__m256d, __m256d b, __m256d c) { return _mm256_div_pd(c, b); })) return;
#endif
  uint64_t ex = valu_active(w, in), B[64], C[64], R[64];
  fetch64(w, in, 1, true, B); fetch64(w, in, 2, true, C);
  VLOOP R[l] = u64(f64(C[l]) / f64(B[l]));
  store64(w, in, ex, R, true);
}

// v_trig_preop_f64: 53-bit segment of 2/pi selected by S1[4:0] and S0's exponent
// (ISA: "V_TRIG_PREOP_F64"). 2/pi bits from the public constant 0xA2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163ABDEBBC561B7246E3A424DD2E006492EEA09D1921CFE1DEB1CB129A73EE88235F52EBB4484E99C7026B45F7E413991D639835339F49C845F8BBDF9283B1FF897FFDE05980FEF2F118B5A0A6D1F6D367ECF27CB09B74F463F669E5FEA2D7527BA.
const uint32_t kTwoOverPi[] = {
    0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041, 0xFE5163AB,
    0xDEBBC561, 0xB7246E3A, 0x424DD2E0, 0x06492EEA, 0x09D1921C, 0xFE1DEB1C, 0xB129A73E,
    0xE88235F5, 0x2EBB4484, 0xE99C7026, 0xB45F7E41, 0x3991D639, 0x835339F4, 0x9C845F8B,
    0xBDF9283B, 0x1FF897FF, 0xDE05980F, 0xEF2F118B, 0x5A0A6D1F, 0x6D367ECF, 0x27CB09B7,
    0x4F463F66, 0x9E5FEA2D, 0x7527BA00, 0, 0, 0};
uint64_t twopi_bits(unsigned start) {  // 53 bits of 2/pi starting at bit `start` (0 = MSB)
  uint64_t v = 0;
  for (unsigned i = 0; i < 53; ++i) {
    unsigned b = start + i;
    v = (v << 1) | ((kTwoOverPi[b / 32] >> (31 - b % 32)) & 1);
  }
  return v;
}
void v_trig_preop_f64(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in), A[64], R[64];
  uint32_t t1[64];
  fetch64(w, in, 0, true, A);
  const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
  VLOOP {
    int e = static_cast<int>((A[l] >> 52) & 0x7FF);  // biased exponent
    unsigned shift = (e > 1077 ? static_cast<unsigned>(e - 1077) : 0) + 53 * (B[l] & 31);
    double seg = std::ldexp(static_cast<double>(twopi_bits(shift)), -static_cast<int>(shift) - 53);
    if (e >= 1968) seg = std::ldexp(seg, 128);  // ISA: scale up for large exponents
    R[l] = u64(seg);
  }
  store64(w, in, ex, R, true);
}

// Cross-lane.
void v_readlane_b32(Wave& w, const Inst& in) {
  unsigned lane = sread32(w, in, in.src[1]) & 63;
  uint32_t v = in.src[0] >= 256 ? w.v[in.src[0] - 256][lane] : sread32(w, in, in.src[0]);
  swrite32(w, in.dst, v);
}
void v_readfirstlane_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  unsigned lane = ex ? static_cast<unsigned>(std::countr_zero(ex)) : 0;
  uint32_t v = in.src[0] >= 256 ? w.v[in.src[0] - 256][lane] : sread32(w, in, in.src[0]);
  swrite32(w, in.dst, v);
}
void v_writelane_b32(Wave& w, const Inst& in) {
  unsigned lane = sread32(w, in, in.src[1]) & 63;
  w.v[in.dst][lane] = sread32(w, in, in.src[0]);
}
// v_mbcnt: the active bits of S0 below the lane (lanes 0..31 for _lo, 32..63 for _hi) plus S1.
// With S0 = -1 (the usual lane-id idiom) that count is the lane number, clamped.
void v_mbcnt_lo_u32_b32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], t1[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::B32, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
  if (in.src[0] == 193 && (in.plain & 1)) {  // -1
    VLOOP r[l] = std::min(l, 32u) + B[l];
  } else {
    VLOOP r[l] = static_cast<uint32_t>(std::popcount(A[l] & ((l >= 32 ? 0xFFFFFFFFull : ((1ull << l) - 1)) & 0xFFFFFFFFu))) + B[l];
  }
  store32(w, in, ex, r, Ty::B32);
}
void v_mbcnt_hi_u32_b32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], t1[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::B32, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
  if (in.src[0] == 193 && (in.plain & 1)) {  // -1
    VLOOP r[l] = (l >= 32 ? l - 32 : 0) + B[l];
  } else {
    VLOOP {
      uint64_t below = l >= 32 ? ((1ull << (l - 32)) - 1) : 0;
      r[l] = static_cast<uint32_t>(std::popcount(A[l] & below)) + B[l];
    }
  }
  store32(w, in, ex, r, Ty::B32);
}
void v_nop(Wave&, const Inst&) {}
void v_swap_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t* a = w.v[in.dst];
  uint32_t* b = w.v[in.src[0] - 256];
  VLOOP if ((ex >> l) & 1) { uint32_t t = a[l]; a[l] = b[l]; b[l] = t; }
}
void v_accvgpr_mov(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::B32, t0);
  VLOOP r[l] = A[l];
  store32(w, in, ex, r, Ty::B32);
}

// M0-relative VGPR moves (dynamic indexing of register arrays): the VGPR index is the
// operand's plus M0 (ISA "V_MOVRELS_B32" etc.).
inline unsigned rel_row(unsigned base, const Wave& w) { return (base + w.s[124]) & 255; }
void v_movrels_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  const uint32_t* s = w.v[rel_row(in.src[0] - 256, w)];
  uint32_t* d = w.v[in.dst];
  VLOOP if ((ex >> l) & 1) d[l] = s[l];
}
void v_movreld_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t t0[64];
  const uint32_t* s = fetch32(w, in, 0, Ty::B32, t0);
  uint32_t* d = w.v[rel_row(in.dst, w)];
  VLOOP if ((ex >> l) & 1) d[l] = s[l];
}
void v_movrelsd_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  const uint32_t* s = w.v[rel_row(in.src[0] - 256, w)];
  uint32_t* d = w.v[rel_row(in.dst, w)];
  VLOOP if ((ex >> l) & 1) d[l] = s[l];
}

const HandlerEntry kVop64[] = {
    {"v_movrels_b32", v_movrels_b32}, {"v_movreld_b32", v_movreld_b32}, {"v_movrelsd_b32", v_movrelsd_b32},
#define E(n) {#n, n},
    E(v_add_f64) E(v_mul_f64) E(v_min_f64) E(v_max_f64) E(v_fma_f64) E(v_fmac_f64)
    E(v_trunc_f64) E(v_ceil_f64) E(v_rndne_f64) E(v_floor_f64) E(v_fract_f64) E(v_rcp_f64)
    E(v_rsq_f64) E(v_sqrt_f64) E(v_frexp_mant_f64) E(v_ldexp_f64) E(v_lshlrev_b64)
    E(v_lshrrev_b64) E(v_ashrrev_i64) E(v_mad_u64_u32) E(v_mad_i64_i32) E(v_cvt_i32_f64)
    E(v_cvt_u32_f64) E(v_cvt_f32_f64) E(v_frexp_exp_i32_f64) E(v_cvt_f64_i32) E(v_cvt_f64_u32)
    E(v_cvt_f64_f32) E(v_div_scale_f32) E(v_div_scale_f64) E(v_div_fmas_f32) E(v_div_fmas_f64)
    E(v_div_fixup_f32) E(v_div_fixup_f64) E(v_trig_preop_f64) E(v_readlane_b32)
    E(v_readfirstlane_b32) E(v_writelane_b32) E(v_mbcnt_lo_u32_b32) E(v_mbcnt_hi_u32_b32)
    E(v_nop) E(v_swap_b32) E(v_mov_b64) E(v_lshl_add_u64)
#undef E
    {"v_accvgpr_read_b32", v_accvgpr_mov}, {"v_accvgpr_write_b32", v_accvgpr_mov},
    {"v_accvgpr_mov_b32", v_accvgpr_mov},
};

}  // namespace

HandlerList vop3_handlers() { return {std::begin(kVop64), std::end(kVop64)}; }

}  // namespace emu::shader
