// SPDX-License-Identifier: MIT
// f32 transcendentals the VALU computes in hardware (v_exp_f32, v_log_f32) in double precision:
// per lane, and eight lanes at a time with AVX2 (the same operations in the same order, so the
// results are the same bits).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace emu::shader {

// v_exp_f32: 2^x. AMDGPUUsage ("llvm.exp2") gives the hardware 1 ulp accuracy and no denormal
// support: results below 2^-126 (x < -126) are +0, as LLVM's lowering expects when it scales
// such inputs itself. Here 2^r for r = x - round(x) in [-0.5, 0.5] by its Taylor series in
// r*ln2 to degree 13 (truncation below 1e-17 relative) in double, times 2^round(x), rounded
// once to f32: within 0.5 ulp except for values within about 1e-15 of a rounding midpoint.
inline constexpr double kLn2 = 0.69314718055994530942;
constexpr double exp2_coefficient(int n) {  // ln(2)^n / n!
  double c = 1.0;
  for (int i = 1; i <= n; ++i) c = c * kLn2 / i;
  return c;
}
inline float exp2_f32(float x) {
  constexpr double c[14] = {exp2_coefficient(0), exp2_coefficient(1), exp2_coefficient(2), exp2_coefficient(3),
                            exp2_coefficient(4), exp2_coefficient(5), exp2_coefficient(6), exp2_coefficient(7),
                            exp2_coefficient(8), exp2_coefficient(9), exp2_coefficient(10), exp2_coefficient(11),
                            exp2_coefficient(12), exp2_coefficient(13)};
  const double d = static_cast<double>(x);
  const double in = d < -127.0 ? -127.0 : d > 129.0 ? 129.0 : d;  // NaN passes through the selects
  const double k = std::nearbyint(in);
  const double r = in - k;  // exact
  double p = c[13];
  for (int i = 12; i >= 0; --i) p = std::fma(p, r, c[i]);
  const int64_t e = static_cast<int64_t>(k == k ? k : 0.0) + 1023;
  const double v = p * std::bit_cast<double>(static_cast<uint64_t>(e) << 52);
  const float f = static_cast<float>(v);
  return d != d ? std::bit_cast<float>(std::bit_cast<uint32_t>(x) | 0x400000u) : d < -126.0 ? 0.0f : f;
}

// v_log_f32: log2(x). 1 ulp in hardware, and denormal inputs are not supported (AMDGPUUsage
// "llvm.log2"; LLVM scales them by 2^32 first): they count as zero, so -inf. x = m * 2^e with m in
// [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its series to
// s^21 (truncation below 3e-17 relative) in double; log2(x) = e + log(m) / ln 2, rounded once.
inline float log2_f32(float x) {
  constexpr double k2Log2e = 2.0 * 1.44269504088896340736;
  const uint32_t b = std::bit_cast<uint32_t>(x);
  const uint32_t mant = b & 0x7FFFFFu;
  const uint32_t hi = mant >= 0x3504F3u;  // m >= sqrt(2): halve it
  const int32_t e = static_cast<int32_t>((b >> 23) & 0xFF) - 127 + static_cast<int32_t>(hi);
  const double m = static_cast<double>(std::bit_cast<float>(mant | ((127u - hi) << 23)));
  const double s = (m - 1.0) / (m + 1.0), z = s * s;
  double p = 1.0 / 21;
  for (int n = 19; n >= 1; n -= 2) p = std::fma(p, z, 1.0 / n);
  const float f = static_cast<float>(static_cast<double>(e) + s * p * k2Log2e);
  const uint32_t exp = b & 0x7F800000u;
  const float special = x != x ? std::bit_cast<float>(b | 0x400000u)        // NaN: quieted
                        : exp == 0 ? -INFINITY                               // +-0, denormals
                        : (b >> 31) ? std::bit_cast<float>(0x7FC00000u)       // negative: NaN
                        : INFINITY;                                          // +inf
  return (exp == 0 || exp == 0x7F800000u || (b >> 31)) ? special : f;
}

#if defined(__AVX2__)
// Four f32 lanes widened to double: the same steps as exp2_f32 / log2_f32.
inline __m128 exp2_f32x4(__m128 x) {
  constexpr double c[14] = {exp2_coefficient(0), exp2_coefficient(1), exp2_coefficient(2), exp2_coefficient(3),
                            exp2_coefficient(4), exp2_coefficient(5), exp2_coefficient(6), exp2_coefficient(7),
                            exp2_coefficient(8), exp2_coefficient(9), exp2_coefficient(10), exp2_coefficient(11),
                            exp2_coefficient(12), exp2_coefficient(13)};
  const __m256d d = _mm256_cvtps_pd(x);
  const __m256d nan = _mm256_cmp_pd(d, d, _CMP_UNORD_Q);
  const __m256d in = _mm256_andnot_pd(nan, _mm256_min_pd(_mm256_max_pd(d, _mm256_set1_pd(-127.0)), _mm256_set1_pd(129.0)));
  const __m256d k = _mm256_round_pd(in, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256d r = _mm256_sub_pd(in, k);
  __m256d p = _mm256_set1_pd(c[13]);
  for (int i = 12; i >= 0; --i) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(c[i]));
  const __m256i e = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k)), _mm256_set1_epi64x(1023));
  const __m128 f = _mm256_cvtpd_ps(_mm256_mul_pd(p, _mm256_castsi256_pd(_mm256_slli_epi64(e, 52))));
  const __m128 small = _mm_cmplt_ps(x, _mm_set1_ps(-126.0f));  // false for NaN
  const __m128 quiet = _mm_or_ps(x, _mm_castsi128_ps(_mm_set1_epi32(0x400000)));
  return _mm_blendv_ps(_mm_andnot_ps(small, f), quiet, _mm_cmpunord_ps(x, x));
}
inline __m128 log2_f32x4(__m128 x) {
  constexpr double k2Log2e = 2.0 * 1.44269504088896340736;
  const __m128i b = _mm_castps_si128(x);
  const __m128i mant = _mm_and_si128(b, _mm_set1_epi32(0x7FFFFF));
  const __m128i hi = _mm_cmpgt_epi32(mant, _mm_set1_epi32(0x3504F3 - 1));  // all ones: halve m
  const __m128i e = _mm_sub_epi32(_mm_sub_epi32(_mm_and_si128(_mm_srli_epi32(b, 23), _mm_set1_epi32(0xFF)), _mm_set1_epi32(127)), hi);
  const __m128 mf = _mm_castsi128_ps(_mm_or_si128(mant, _mm_slli_epi32(_mm_add_epi32(_mm_set1_epi32(127), hi), 23)));
  const __m256d m = _mm256_cvtps_pd(mf);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d s = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one)), z = _mm256_mul_pd(s, s);
  __m256d p = _mm256_set1_pd(1.0 / 21);
  for (int n = 19; n >= 1; n -= 2) p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(1.0 / n));
  const __m256d lg = _mm256_add_pd(_mm256_cvtepi32_pd(e), _mm256_mul_pd(_mm256_mul_pd(s, p), _mm256_set1_pd(k2Log2e)));
  const __m128 f = _mm256_cvtpd_ps(lg);
  const __m128i exp = _mm_and_si128(b, _mm_set1_epi32(0x7F800000));
  const __m128i zero = _mm_cmpeq_epi32(exp, _mm_setzero_si128()), top = _mm_cmpeq_epi32(exp, _mm_set1_epi32(0x7F800000));
  const __m128i neg = _mm_srai_epi32(b, 31);
  const __m128 nan = _mm_cmpunord_ps(x, x);
  __m128 special = _mm_blendv_ps(_mm_set1_ps(INFINITY), _mm_castsi128_ps(_mm_set1_epi32(0x7FC00000)), _mm_castsi128_ps(neg));
  special = _mm_blendv_ps(special, _mm_set1_ps(-INFINITY), _mm_castsi128_ps(zero));
  special = _mm_blendv_ps(special, _mm_or_ps(x, _mm_castsi128_ps(_mm_set1_epi32(0x400000))), nan);
  return _mm_blendv_ps(f, special, _mm_castsi128_ps(_mm_or_si128(_mm_or_si128(zero, top), neg)));
}
#endif

}  // namespace emu::shader
