// SPDX-License-Identifier: MIT
// hc::precise_math (float and double, full precision) and hc::fast_math (float, native approximations).
#pragma once

#include "hc.hpp"

#include <cmath>
// hcc's hc_math.hpp made the C math functions callable unqualified, integer arguments included,
// on the host as on the device; <math.h> puts libstdc++'s std:: overloads (isnormal(int), ...)
// into the global namespace next to clang's device ones.
#include <math.h>

namespace hc {

// Functions whose host and device C library spellings agree: xf(float), x(double).
#define HC_MATH_1(name)                                                        \
  HC_HD float name##f(float x) { return ::name##f(x); }                        \
  HC_HD float name(float x) { return ::name##f(x); }                           \
  HC_HD double name(double x) { return ::name(x); }
#define HC_MATH_2(name)                                                        \
  HC_HD float name##f(float x, float y) { return ::name##f(x, y); }            \
  HC_HD float name(float x, float y) { return ::name##f(x, y); }               \
  HC_HD double name(double x, double y) { return ::name(x, y); }

namespace precise_math {
HC_MATH_1(acos) HC_MATH_1(acosh) HC_MATH_1(asin) HC_MATH_1(asinh) HC_MATH_1(atan) HC_MATH_1(atanh)
HC_MATH_1(cbrt) HC_MATH_1(ceil) HC_MATH_1(cos) HC_MATH_1(cosh) HC_MATH_1(erf) HC_MATH_1(erfc)
HC_MATH_1(exp) HC_MATH_1(exp2) HC_MATH_1(expm1) HC_MATH_1(fabs) HC_MATH_1(floor)
HC_MATH_1(lgamma) HC_MATH_1(log) HC_MATH_1(log10) HC_MATH_1(log2) HC_MATH_1(log1p) HC_MATH_1(logb)
HC_MATH_1(nearbyint) HC_MATH_1(round) HC_MATH_1(sin) HC_MATH_1(sinh) HC_MATH_1(sqrt) HC_MATH_1(tan)
HC_MATH_1(tanh) HC_MATH_1(tgamma) HC_MATH_1(trunc) HC_MATH_1(rint)
HC_MATH_2(atan2) HC_MATH_2(copysign) HC_MATH_2(fdim) HC_MATH_2(fmax) HC_MATH_2(fmin) HC_MATH_2(fmod)
HC_MATH_2(hypot) HC_MATH_2(nextafter) HC_MATH_2(pow) HC_MATH_2(remainder)

HC_HD float fmaf(float x, float y, float z) { return ::fmaf(x, y, z); }
HC_HD float fma(float x, float y, float z) { return ::fmaf(x, y, z); }
HC_HD double fma(double x, double y, double z) { return ::fma(x, y, z); }
HC_HD float frexpf(float x, int* e) { return ::frexpf(x, e); }
HC_HD float frexp(float x, int* e) { return ::frexpf(x, e); }
HC_HD double frexp(double x, int* e) { return ::frexp(x, e); }
HC_HD float ldexpf(float x, int e) { return ::ldexpf(x, e); }
HC_HD float ldexp(float x, int e) { return ::ldexpf(x, e); }
HC_HD double ldexp(double x, int e) { return ::ldexp(x, e); }
HC_HD float modff(float x, float* i) { return ::modff(x, i); }
HC_HD float modf(float x, float* i) { return ::modff(x, i); }
HC_HD double modf(double x, double* i) { return ::modf(x, i); }
HC_HD float remquof(float x, float y, int* q) { return ::remquof(x, y, q); }
HC_HD float remquo(float x, float y, int* q) { return ::remquof(x, y, q); }
HC_HD double remquo(double x, double y, int* q) { return ::remquo(x, y, q); }
HC_HD float scalbnf(float x, int e) { return ::scalbnf(x, e); }
HC_HD float scalbn(float x, int e) { return ::scalbnf(x, e); }
HC_HD double scalbn(double x, int e) { return ::scalbn(x, e); }
HC_HD float scalbf(float x, float e) { return ::scalbnf(x, static_cast<int>(e)); }
HC_HD double scalb(double x, double e) { return ::scalbn(x, static_cast<int>(e)); }
HC_HD int ilogbf(float x) { return ::ilogbf(x); }
HC_HD int ilogb(float x) { return ::ilogbf(x); }
HC_HD int ilogb(double x) { return ::ilogb(x); }
HC_HD float nanf(const char* s) { return ::nanf(s); }
HC_HD double nan(const char* s) { return ::nan(s); }
HC_HD void sincosf(float x, float* s, float* c) { *s = ::sinf(x), *c = ::cosf(x); }
HC_HD void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
HC_HD void sincos(double x, double* s, double* c) { *s = ::sin(x), *c = ::cos(x); }
HC_HD int isfinite(float x) { return __builtin_isfinite(x); }
HC_HD int isfinite(double x) { return __builtin_isfinite(x); }
HC_HD int isinf(float x) { return __builtin_isinf(x); }
HC_HD int isinf(double x) { return __builtin_isinf(x); }
HC_HD int isnan(float x) { return __builtin_isnan(x); }
HC_HD int isnan(double x) { return __builtin_isnan(x); }
HC_HD int isnormal(float x) { return __builtin_isnormal(x); }
HC_HD int isnormal(double x) { return __builtin_isnormal(x); }
HC_HD int signbit(float x) { return __builtin_signbit(x); }
HC_HD int signbit(double x) { return __builtin_signbit(x); }

// No host C library function: written out on the host, the device library's on the device.
HC_HD float rsqrtf(float x) {
#if HC_ON_DEVICE
  return ::rsqrtf(x);
#else
  return 1.0f / ::sqrtf(x);
#endif
}
HC_HD float rsqrt(float x) { return rsqrtf(x); }
HC_HD double rsqrt(double x) {
#if HC_ON_DEVICE
  return ::rsqrt(x);
#else
  return 1.0 / ::sqrt(x);
#endif
}
HC_HD float rcbrtf(float x) { return 1.0f / ::cbrtf(x); }
HC_HD double rcbrt(double x) { return 1.0 / ::cbrt(x); }
HC_HD float sinpif(float x) {
#if HC_ON_DEVICE
  return ::sinpif(x);
#else
  return ::sinf(static_cast<float>(M_PI) * x);
#endif
}
HC_HD float sinpi(float x) { return sinpif(x); }
HC_HD double sinpi(double x) { return ::sin(M_PI * x); }
HC_HD float cospif(float x) {
#if HC_ON_DEVICE
  return ::cospif(x);
#else
  return ::cosf(static_cast<float>(M_PI) * x);
#endif
}
HC_HD float cospi(float x) { return cospif(x); }
HC_HD double cospi(double x) { return ::cos(M_PI * x); }
HC_HD float exp10f(float x) { return ::powf(10.0f, x); }
HC_HD float exp10(float x) { return exp10f(x); }
HC_HD double exp10(double x) { return ::pow(10.0, x); }
} // namespace precise_math

// Float-only, lower-precision versions; on the device the native approximations where HIP has them.
namespace fast_math {
#define HC_FAST_1(name, native)                                                \
  HC_HD float name##f(float x) {                                               \
    if constexpr (HC_ON_DEVICE) return native(x);                              \
    else return ::name##f(x);                                                  \
  }                                                                            \
  HC_HD float name(float x) { return name##f(x); }
#if HC_ON_DEVICE
#define HC_NATIVE(n) __##n##f
#else
#define HC_NATIVE(n) ::n##f
#endif
HC_FAST_1(sin, HC_NATIVE(sin)) HC_FAST_1(cos, HC_NATIVE(cos)) HC_FAST_1(tan, HC_NATIVE(tan))
HC_FAST_1(exp, HC_NATIVE(exp)) HC_FAST_1(log, HC_NATIVE(log)) HC_FAST_1(log2, HC_NATIVE(log2))
HC_FAST_1(log10, HC_NATIVE(log10))
HC_FAST_1(acos, ::acosf) HC_FAST_1(asin, ::asinf) HC_FAST_1(atan, ::atanf) HC_FAST_1(ceil, ::ceilf)
HC_FAST_1(cosh, ::coshf) HC_FAST_1(exp2, ::exp2f) HC_FAST_1(fabs, ::fabsf) HC_FAST_1(floor, ::floorf)
HC_FAST_1(round, ::roundf) HC_FAST_1(sinh, ::sinhf) HC_FAST_1(sqrt, ::sqrtf) HC_FAST_1(tanh, ::tanhf)
HC_FAST_1(trunc, ::truncf)
#undef HC_FAST_1
#undef HC_NATIVE
HC_HD float powf(float x, float y) {
#if HC_ON_DEVICE
  return __powf(x, y);
#else
  return ::powf(x, y);
#endif
}
HC_HD float pow(float x, float y) { return powf(x, y); }
HC_HD float atan2f(float y, float x) { return ::atan2f(y, x); }
HC_HD float atan2(float y, float x) { return ::atan2f(y, x); }
HC_HD float fmaxf(float x, float y) { return ::fmaxf(x, y); }
HC_HD float fmax(float x, float y) { return ::fmaxf(x, y); }
HC_HD float fminf(float x, float y) { return ::fminf(x, y); }
HC_HD float fmin(float x, float y) { return ::fminf(x, y); }
HC_HD float fmodf(float x, float y) { return ::fmodf(x, y); }
HC_HD float fmod(float x, float y) { return ::fmodf(x, y); }
HC_HD float frexpf(float x, int* e) { return ::frexpf(x, e); }
HC_HD float frexp(float x, int* e) { return ::frexpf(x, e); }
HC_HD float ldexpf(float x, int e) { return ::ldexpf(x, e); }
HC_HD float ldexp(float x, int e) { return ::ldexpf(x, e); }
HC_HD float modff(float x, float* i) { return ::modff(x, i); }
HC_HD float modf(float x, float* i) { return ::modff(x, i); }
HC_HD float rsqrtf(float x) { return precise_math::rsqrtf(x); }
HC_HD float rsqrt(float x) { return precise_math::rsqrtf(x); }
HC_HD void sincosf(float x, float* s, float* c) { *s = sinf(x), *c = cosf(x); }
HC_HD void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
HC_HD int isfinite(float x) { return __builtin_isfinite(x); }
HC_HD int isinf(float x) { return __builtin_isinf(x); }
HC_HD int isnan(float x) { return __builtin_isnan(x); }
HC_HD int signbit(float x) { return __builtin_signbit(x); }
} // namespace fast_math

#undef HC_MATH_1
#undef HC_MATH_2

} // namespace hc
