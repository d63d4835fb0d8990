// SPDX-License-Identifier: MIT
// HIP's complex numbers: hipFloatComplex (float2) and hipDoubleComplex (double2) and their functions.
//
// The API is ROCm 5.2's hip/hip_complex.h (hip/amd_detail/amd_hip_complex.h), itself CUDA's
// cuComplex.h renamed: the same functions, all __host__ __device__ and static inline, from C and
// C++. The real part is .x, the imaginary part .y. Where kfdrt goes beyond ROCm 5.2:
//  - hipCabsf/hipCabs are hypot (C99 7.12.7.3: no overflow or underflow in the intermediate
//    squares), so |(1e30, 1e30)| is 1.41e30 and not Inf; ROCm's is sqrt(x*x + y*y);
//  - hipCdivf/hipCdiv use Smith's algorithm (R. L. Smith, "Algorithm 116: Complex division",
//    CACM 5(8), 1962), which never squares the divisor's parts: (7+i)*2^100 / (1+i)*2^100 is
//    4-3i, where ROCm's products overflow to Inf and give Inf/Inf, a NaN;
//  - hipCfmaf/hipCfma compute p*q + r as two fused multiply-adds per part (fmaf/fma, one rounding
//    each), the same on the host and in kernels. ROCm writes the same four multiply-adds
//    unfused, which the device compiler contracts and the host compiler on x86-64 does not.
// In C++, the operators of ROCm's header: unary -, == and !=, complex * and / (hipCmulf,
// hipCdivf), and products by a scalar (complex * unsigned short, short, unsigned int, int, float,
// unsigned long, long, double, long long, unsigned long long). As in ROCm 5.2, including this
// header makes float2 * float2 and / complex in that translation unit: these non-template
// operators outrank hip/hip_vector_types.h's element-wise templates. + and - stay the vector
// types' (element-wise, the same as complex). ROCm's compound assignments (+= -= *= /=) are not
// declared: with ROCm 5.2's vector types every use of them is ambiguous, so no program compiled
// with ROCm uses them.
// In C, where kfdrt's vector types do not exist, hipFloatComplex and hipDoubleComplex are structs
// of their own with the same members, size and alignment as float2 and double2.
#pragma once

#include "hip/kfdrt/hip_common.h"

#ifdef __cplusplus
#include <cmath>

#include "hip/hip_vector_types.h"

typedef float2 hipFloatComplex;
typedef double2 hipDoubleComplex;
#else
#include <math.h>

typedef struct __attribute__((aligned(8))) {
  float x, y;
} hipFloatComplex;
typedef struct __attribute__((aligned(16))) {
  double x, y;
} hipDoubleComplex;
#endif

typedef hipFloatComplex hipComplex;

#define __KFDRT_CPLX_FN __host__ __device__ static inline

// ---- float ----
__KFDRT_CPLX_FN float hipCrealf(hipFloatComplex z) { return z.x; }
__KFDRT_CPLX_FN float hipCimagf(hipFloatComplex z) { return z.y; }
__KFDRT_CPLX_FN hipFloatComplex make_hipFloatComplex(float re, float im) {
  hipFloatComplex z;
  z.x = re;
  z.y = im;
  return z;
}
__KFDRT_CPLX_FN hipFloatComplex hipConjf(hipFloatComplex z) { return make_hipFloatComplex(z.x, -z.y); }
// |z|^2, as ROCm and CUDA define it (overflows for parts above about 1.8e19).
__KFDRT_CPLX_FN float hipCsqabsf(hipFloatComplex z) { return z.x * z.x + z.y * z.y; }
__KFDRT_CPLX_FN hipFloatComplex hipCaddf(hipFloatComplex p, hipFloatComplex q) {
  return make_hipFloatComplex(p.x + q.x, p.y + q.y);
}
__KFDRT_CPLX_FN hipFloatComplex hipCsubf(hipFloatComplex p, hipFloatComplex q) {
  return make_hipFloatComplex(p.x - q.x, p.y - q.y);
}
// (a+bi)(c+di) = (ac - bd) + (ad + bc)i
__KFDRT_CPLX_FN hipFloatComplex hipCmulf(hipFloatComplex p, hipFloatComplex q) {
  return make_hipFloatComplex(p.x * q.x - p.y * q.y, p.x * q.y + p.y * q.x);
}
// Smith's algorithm: divide through by the divisor's larger part, so that only the ratio of its
// parts (at most 1 in magnitude) is ever multiplied.
__KFDRT_CPLX_FN hipFloatComplex hipCdivf(hipFloatComplex p, hipFloatComplex q) {
  if (fabsf(q.x) >= fabsf(q.y)) {
    float r = q.y / q.x, den = q.x + q.y * r;
    return make_hipFloatComplex((p.x + p.y * r) / den, (p.y - p.x * r) / den);
  }
  float r = q.x / q.y, den = q.x * r + q.y;
  return make_hipFloatComplex((p.x * r + p.y) / den, (p.y * r - p.x) / den);
}
__KFDRT_CPLX_FN float hipCabsf(hipFloatComplex z) { return hypotf(z.x, z.y); }

// ---- double ----
__KFDRT_CPLX_FN double hipCreal(hipDoubleComplex z) { return z.x; }
__KFDRT_CPLX_FN double hipCimag(hipDoubleComplex z) { return z.y; }
__KFDRT_CPLX_FN hipDoubleComplex make_hipDoubleComplex(double re, double im) {
  hipDoubleComplex z;
  z.x = re;
  z.y = im;
  return z;
}
__KFDRT_CPLX_FN hipDoubleComplex hipConj(hipDoubleComplex z) { return make_hipDoubleComplex(z.x, -z.y); }
__KFDRT_CPLX_FN double hipCsqabs(hipDoubleComplex z) { return z.x * z.x + z.y * z.y; }
__KFDRT_CPLX_FN hipDoubleComplex hipCadd(hipDoubleComplex p, hipDoubleComplex q) {
  return make_hipDoubleComplex(p.x + q.x, p.y + q.y);
}
__KFDRT_CPLX_FN hipDoubleComplex hipCsub(hipDoubleComplex p, hipDoubleComplex q) {
  return make_hipDoubleComplex(p.x - q.x, p.y - q.y);
}
__KFDRT_CPLX_FN hipDoubleComplex hipCmul(hipDoubleComplex p, hipDoubleComplex q) {
  return make_hipDoubleComplex(p.x * q.x - p.y * q.y, p.x * q.y + p.y * q.x);
}
__KFDRT_CPLX_FN hipDoubleComplex hipCdiv(hipDoubleComplex p, hipDoubleComplex q) {
  if (fabs(q.x) >= fabs(q.y)) {
    double r = q.y / q.x, den = q.x + q.y * r;
    return make_hipDoubleComplex((p.x + p.y * r) / den, (p.y - p.x * r) / den);
  }
  double r = q.x / q.y, den = q.x * r + q.y;
  return make_hipDoubleComplex((p.x * r + p.y) / den, (p.y * r - p.x) / den);
}
__KFDRT_CPLX_FN double hipCabs(hipDoubleComplex z) { return hypot(z.x, z.y); }

// ---- hipComplex (hipFloatComplex), conversions, fused multiply-add ----
__KFDRT_CPLX_FN hipComplex make_hipComplex(float re, float im) { return make_hipFloatComplex(re, im); }
__KFDRT_CPLX_FN hipFloatComplex hipComplexDoubleToFloat(hipDoubleComplex z) {
  return make_hipFloatComplex((float)z.x, (float)z.y);
}
__KFDRT_CPLX_FN hipDoubleComplex hipComplexFloatToDouble(hipFloatComplex z) {
  return make_hipDoubleComplex((double)z.x, (double)z.y);
}
// p*q + r: real part r.x + p.x*q.x - p.y*q.y, imaginary part r.y + p.y*q.x + p.x*q.y.
__KFDRT_CPLX_FN hipComplex hipCfmaf(hipComplex p, hipComplex q, hipComplex r) {
  return make_hipComplex(fmaf(-p.y, q.y, fmaf(p.x, q.x, r.x)), fmaf(p.x, q.y, fmaf(p.y, q.x, r.y)));
}
__KFDRT_CPLX_FN hipDoubleComplex hipCfma(hipDoubleComplex p, hipDoubleComplex q, hipDoubleComplex r) {
  return make_hipDoubleComplex(fma(-p.y, q.y, fma(p.x, q.x, r.x)), fma(p.x, q.y, fma(p.y, q.x, r.y)));
}

#ifdef __cplusplus
// ---- Operators (see the top of this file) ----
#define __KFDRT_CPLX_OPS(T, MUL, DIV)                                                                    \
  __KFDRT_CPLX_FN T operator-(const T& z) {                                                      \
    T r;                                                                                         \
    r.x = -z.x;                                                                                  \
    r.y = -z.y;                                                                                  \
    return r;                                                                                    \
  }                                                                                              \
  __KFDRT_CPLX_FN bool operator==(const T& a, const T& b) { return a.x == b.x && a.y == b.y; }   \
  __KFDRT_CPLX_FN bool operator!=(const T& a, const T& b) { return !(a == b); }                  \
  __KFDRT_CPLX_FN T operator*(const T& a, const T& b) { return MUL(a, b); }                      \
  __KFDRT_CPLX_FN T operator/(const T& a, const T& b) { return DIV(a, b); }
// complex * scalar: both parts multiplied (in the usual arithmetic conversions' type), then
// converted back to the part's type.
#define __KFDRT_CPLX_SCALE(T, R, S)                                                              \
  __KFDRT_CPLX_FN T operator*(const T& z, S s) {                                                 \
    T r;                                                                                         \
    r.x = static_cast<R>(z.x * s);                                                               \
    r.y = static_cast<R>(z.y * s);                                                               \
    return r;                                                                                    \
  }
#define __KFDRT_CPLX_ALL(T, R, MUL, DIV)                                                         \
  __KFDRT_CPLX_OPS(T, MUL, DIV)                                                                          \
  __KFDRT_CPLX_SCALE(T, R, unsigned short)                                                       \
  __KFDRT_CPLX_SCALE(T, R, signed short)                                                         \
  __KFDRT_CPLX_SCALE(T, R, unsigned int)                                                         \
  __KFDRT_CPLX_SCALE(T, R, signed int)                                                           \
  __KFDRT_CPLX_SCALE(T, R, float)                                                                \
  __KFDRT_CPLX_SCALE(T, R, unsigned long)                                                        \
  __KFDRT_CPLX_SCALE(T, R, signed long)                                                          \
  __KFDRT_CPLX_SCALE(T, R, double)                                                               \
  __KFDRT_CPLX_SCALE(T, R, signed long long)                                                     \
  __KFDRT_CPLX_SCALE(T, R, unsigned long long)

__KFDRT_CPLX_ALL(hipFloatComplex, float, hipCmulf, hipCdivf)
__KFDRT_CPLX_ALL(hipDoubleComplex, double, hipCmul, hipCdiv)

#undef __KFDRT_CPLX_ALL
#undef __KFDRT_CPLX_SCALE
#undef __KFDRT_CPLX_OPS
#endif

#undef __KFDRT_CPLX_FN
