// SPDX-License-Identifier: MIT
// HIP's half precision: __half and __half2 (IEEE 754 binary16), their conversions, arithmetic,
// comparisons and math functions, on the host and in kernels.
//
// The API is HIP's (ROCm 5.2 hip/hip_fp16.h, which follows CUDA's cuda_fp16.h): the same type
// and function names, sizes (2 and 4 bytes, aligned to their size), the raw types __half_raw and
// __half2_raw, and the typedefs half and half2. Where ROCm 5.2 and CUDA differ, kfdrt follows
// CUDA's documented semantics (CUDA Math API, "Half Precision Intrinsics"):
//  - __half2's members x and y are __half (ROCm 5.2: unsigned short; ROCm 5.6 and CUDA: __half);
//  - the unordered comparisons (__hequ, __hltu, ...) are true when either operand is NaN, and
//    __half2int_rn and the other _rn/_rd/_ru integer conversions round as named (ROCm 5.2's
//    compare ordered and truncate);
//  - __hisinf returns -1, 1 or 0 (ROCm 5.2: a bool; both read the same in a condition);
//  - operators and functions work on the host too (ROCm 5.2 has most of them __device__ only).
// Arithmetic is on _Float16 (the compiler's binary16: clang on amdgcn, clang 15 and GCC 12 or
// later on x86-64; C sees the raw types only): one binary16 instruction in a kernel (v_add_f16, v_fma_f16, ...), float arithmetic
// rounded once to binary16 on the host, which for + - * / and sqrt gives the same correctly
// rounded result (float carries more than twice binary16's 11 significant bits).
// __HIP_NO_HALF_CONVERSIONS__ and __HIP_NO_HALF_OPERATORS__ remove the implicit conversions and
// the operators, as in HIP.
#pragma once

#include "hip/kfdrt/hip_common.h"

// The bit patterns alone (C and C++). Under clang, as in ROCm 5.2's HIP, `data` views the same
// bits as binary16 values: _Float16 in __half_raw, a two-element _Float16 vector (members .x, .y)
// in __half2_raw. The integer members come first, so `__half_raw{bits}` sets the bits.
#if defined(__clang__)
typedef _Float16 __kfdrt_float16_2 __attribute__((ext_vector_type(2)));
typedef struct __half_raw {
  union {
    unsigned short x;
    _Float16 data;
  };
} __half_raw;
typedef struct __half2_raw {
  union {
    struct {
      unsigned short x;
      unsigned short y;
    };
    __kfdrt_float16_2 data;
  };
} __half2_raw;
#else
typedef struct __half_raw {
  unsigned short x;
} __half_raw;
typedef struct __half2_raw {
  unsigned short x;
  unsigned short y;
} __half2_raw;
#endif

#ifndef __cplusplus
// C sees the storage only: the functions below are C++.
typedef __half_raw __half;
typedef __half2_raw __half2;
#else

#ifndef __FLT16_MANT_DIG__
#error "hip/hip_fp16.h: this C++ compiler has no _Float16 (binary16); kfdrt's __half needs clang 15 or later, GCC 12 or later on x86-64, or the HIP device compiler"
#endif

#include <math.h>

#include <limits>
#include <type_traits>

#include "hip/hip_vector_types.h"

#define __KFDRT_HFN __host__ __device__ inline

// ---- Bit-level helpers (not part of HIP's API) ----
__KFDRT_HFN _Float16 __kfdrt_h_from_bits(unsigned short b) { return __builtin_bit_cast(_Float16, b); }
__KFDRT_HFN unsigned short __kfdrt_h_to_bits(_Float16 v) { return __builtin_bit_cast(unsigned short, v); }
// The neighbour of a finite or infinite binary16 toward +inf (up) or -inf (down); NaN unchanged.
__KFDRT_HFN unsigned short __kfdrt_h_step(unsigned short b, bool up) {
  if ((b & 0x7fffu) > 0x7c00u) return b;                      // NaN
  if ((b & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u;       // +-0 -> the smallest subnormal
  bool neg = (b & 0x8000u) != 0;
  return (unsigned short)((neg == up) ? b - 1 : b + 1);        // toward zero shrinks the magnitude
}
// float -> binary16 under one of IEEE 754's rounding directions: 0 nearest-even, 1 toward zero,
// 2 down (toward -inf), 3 up (toward +inf). The nearest value is corrected by one step when it
// lies on the wrong side of the input.
__KFDRT_HFN unsigned short __kfdrt_f2h_bits(float f, int mode) {
  _Float16 h = static_cast<_Float16>(f);
  unsigned short b = __kfdrt_h_to_bits(h);
  if (f != f || mode == 0) return b;
  float back = static_cast<float>(h);
  if (back == f) return b;
  switch (mode) {
    case 1: return fabsf(back) > fabsf(f) ? (unsigned short)(b - 1) : b;  // |h| > 0 here: shrink it
    case 2: return back > f ? __kfdrt_h_step(b, false) : b;
    default: return back < f ? __kfdrt_h_step(b, true) : b;
  }
}

struct __half {
 protected:
  unsigned short __x;

 public:
  __half() = default;
  __half(const __half&) = default;
  __KFDRT_HFN __half(const __half_raw& r) : __x(r.x) {}
#if !defined(__HIP_NO_HALF_CONVERSIONS__)
  __KFDRT_HFN __half(_Float16 v) : __x(__kfdrt_h_to_bits(v)) {}
  __KFDRT_HFN __half(float v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(v))) {}
  __KFDRT_HFN __half(double v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(v))) {}
  __KFDRT_HFN __half(int v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
  __KFDRT_HFN __half(unsigned v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
  __KFDRT_HFN __half(short v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
  __KFDRT_HFN __half(unsigned short v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
  __KFDRT_HFN __half(long v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
  __KFDRT_HFN __half(unsigned long v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
  __KFDRT_HFN __half(long long v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
  __KFDRT_HFN __half(unsigned long long v) : __x(__kfdrt_h_to_bits(static_cast<_Float16>(static_cast<float>(v)))) {}
#endif
  __KFDRT_HFN __half& operator=(const __half_raw& r) {
    __x = r.x;
    return *this;
  }
  __KFDRT_HFN volatile __half& operator=(const __half_raw& r) volatile {
    __x = r.x;
    return *this;
  }
  __KFDRT_HFN __half& operator=(const volatile __half_raw& r) {
    __x = r.x;
    return *this;
  }
  __KFDRT_HFN volatile __half& operator=(const volatile __half_raw& r) volatile {
    __x = r.x;
    return *this;
  }
  __KFDRT_HFN __half& operator=(__half_raw&& r) {
    __x = r.x;
    return *this;
  }
  __KFDRT_HFN __half& operator=(volatile __half_raw&& r) {
    __x = r.x;
    return *this;
  }
  __half& operator=(const __half&) = default;
  __KFDRT_HFN operator __half_raw() const { return __half_raw{__x}; }
  __KFDRT_HFN operator __half_raw() const volatile { return __half_raw{__x}; }
#if !defined(__HIP_NO_HALF_CONVERSIONS__)
  __KFDRT_HFN operator float() const { return static_cast<float>(__kfdrt_h_from_bits(__x)); }
#endif
#if !defined(__HIP_NO_HALF_OPERATORS__)
  __KFDRT_HFN __half& operator+=(const __half& o) { return *this = __half_raw{__kfdrt_h_to_bits(__kfdrt_h_from_bits(__x) + __kfdrt_h_from_bits(o.__x))}; }
  __KFDRT_HFN __half& operator-=(const __half& o) { return *this = __half_raw{__kfdrt_h_to_bits(__kfdrt_h_from_bits(__x) - __kfdrt_h_from_bits(o.__x))}; }
  __KFDRT_HFN __half& operator*=(const __half& o) { return *this = __half_raw{__kfdrt_h_to_bits(__kfdrt_h_from_bits(__x) * __kfdrt_h_from_bits(o.__x))}; }
  __KFDRT_HFN __half& operator/=(const __half& o) { return *this = __half_raw{__kfdrt_h_to_bits(__kfdrt_h_from_bits(__x) / __kfdrt_h_from_bits(o.__x))}; }
  __KFDRT_HFN __half& operator++() { return *this += __half_raw{0x3c00u}; }
  __KFDRT_HFN __half& operator--() { return *this -= __half_raw{0x3c00u}; }
  __KFDRT_HFN __half operator++(int) {
    __half old = *this;
    ++*this;
    return old;
  }
  __KFDRT_HFN __half operator--(int) {
    __half old = *this;
    --*this;
    return old;
  }
#endif
};

struct alignas(4) __half2 {
  __half x;
  __half y;

  __half2() = default;
  __half2(const __half2&) = default;
  __KFDRT_HFN __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __KFDRT_HFN __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  __KFDRT_HFN __half2& operator=(const __half2_raw& r) {
    x = __half_raw{r.x};
    y = __half_raw{r.y};
    return *this;
  }
  __half2& operator=(const __half2&) = default;
  __KFDRT_HFN operator __half2_raw() const {
    __half2_raw r;
    r.x = static_cast<__half_raw>(x).x;
    r.y = static_cast<__half_raw>(y).x;
    return r;
  }
#if !defined(__HIP_NO_HALF_OPERATORS__)
  __KFDRT_HFN __half2& operator+=(const __half2& o) { x += o.x; y += o.y; return *this; }
  __KFDRT_HFN __half2& operator-=(const __half2& o) { x -= o.x; y -= o.y; return *this; }
  __KFDRT_HFN __half2& operator*=(const __half2& o) { x *= o.x; y *= o.y; return *this; }
  __KFDRT_HFN __half2& operator/=(const __half2& o) { x /= o.x; y /= o.y; return *this; }
#if !defined(__HIP_NO_HALF_CONVERSIONS__)
  // A number on the right applies to both halves (ROCm 5.2's HIP accepts `h2 += 0` so, its
  // __half2 converting a scalar to a two-element vector).
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  __KFDRT_HFN __half2& operator+=(T s) { return *this += __half2(__half(s), __half(s)); }
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  __KFDRT_HFN __half2& operator-=(T s) { return *this -= __half2(__half(s), __half(s)); }
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  __KFDRT_HFN __half2& operator*=(T s) { return *this *= __half2(__half(s), __half(s)); }
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  __KFDRT_HFN __half2& operator/=(T s) { return *this /= __half2(__half(s), __half(s)); }
#endif
  __KFDRT_HFN __half2& operator++() { ++x; ++y; return *this; }
  __KFDRT_HFN __half2& operator--() { --x; --y; return *this; }
  __KFDRT_HFN __half2 operator++(int) {
    __half2 old = *this;
    ++*this;
    return old;
  }
  __KFDRT_HFN __half2 operator--(int) {
    __half2 old = *this;
    --*this;
    return old;
  }
#endif
};

static_assert(sizeof(__half) == 2 && alignof(__half) == 2, "__half is binary16's two bytes");
// Trivially copyable: __half goes through memcpy, hipMemcpy and the shuffles' bit casts.
static_assert(std::is_trivially_copyable<__half>::value && std::is_trivially_copyable<__half2>::value,
              "__half and __half2 are trivially copyable");
static_assert(sizeof(__half2) == 4 && alignof(__half2) == 4, "__half2 is two __half aligned to 4");

typedef __half half;
typedef __half2 half2;

// ---- Bits ----
__KFDRT_HFN unsigned short __half_as_ushort(__half h) { return static_cast<__half_raw>(h).x; }
__KFDRT_HFN short __half_as_short(__half h) { return static_cast<short>(static_cast<__half_raw>(h).x); }
__KFDRT_HFN __half __ushort_as_half(unsigned short b) { return __half_raw{b}; }
__KFDRT_HFN __half __short_as_half(short b) { return __half_raw{static_cast<unsigned short>(b)}; }
__KFDRT_HFN _Float16 __kfdrt_hv(__half h) { return __kfdrt_h_from_bits(__half_as_ushort(h)); }
__KFDRT_HFN __half __kfdrt_hh(_Float16 v) { return __half_raw{__kfdrt_h_to_bits(v)}; }

// ---- Conversions ----
__KFDRT_HFN float __half2float(__half h) { return static_cast<float>(__kfdrt_hv(h)); }
__KFDRT_HFN __half __float2half(float f) { return __half_raw{__kfdrt_f2h_bits(f, 0)}; }
__KFDRT_HFN __half __float2half_rn(float f) { return __half_raw{__kfdrt_f2h_bits(f, 0)}; }
__KFDRT_HFN __half __float2half_rz(float f) { return __half_raw{__kfdrt_f2h_bits(f, 1)}; }
__KFDRT_HFN __half __float2half_rd(float f) { return __half_raw{__kfdrt_f2h_bits(f, 2)}; }
__KFDRT_HFN __half __float2half_ru(float f) { return __half_raw{__kfdrt_f2h_bits(f, 3)}; }
__KFDRT_HFN __half2 __float2half2_rn(float f) { return __half2(__float2half_rn(f), __float2half_rn(f)); }
__KFDRT_HFN __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half_rn(a), __float2half_rn(b)); }
__KFDRT_HFN __half2 __float22half2_rn(float2 v) { return __floats2half2_rn(v.x, v.y); }
__KFDRT_HFN float2 __half22float2(__half2 v) { return float2{__half2float(v.x), __half2float(v.y)}; }
__KFDRT_HFN float __low2float(__half2 v) { return __half2float(v.x); }
__KFDRT_HFN float __high2float(__half2 v) { return __half2float(v.y); }
__KFDRT_HFN __half2 __half2half2(__half h) { return __half2(h, h); }
__KFDRT_HFN __half2 __halves2half2(__half lo, __half hi) { return __half2(lo, hi); }
__KFDRT_HFN __half2 make_half2(__half x, __half y) { return __half2(x, y); }
__KFDRT_HFN __half __low2half(__half2 v) { return v.x; }
__KFDRT_HFN __half __high2half(__half2 v) { return v.y; }
__KFDRT_HFN __half2 __low2half2(__half2 v) { return __half2(v.x, v.x); }
__KFDRT_HFN __half2 __high2half2(__half2 v) { return __half2(v.y, v.y); }
__KFDRT_HFN __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__KFDRT_HFN __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__KFDRT_HFN __half2 __lowhigh2highlow(__half2 v) { return __half2(v.y, v.x); }

// Integer <- half: rounded as named (rn nearest-even, rz toward zero, rd down, ru up), then
// clamped to the type's range (infinities to its ends); NaN gives 0, and 0x8000000000000000 for
// the 64-bit ones (CUDA's documented results).
__KFDRT_HFN float __kfdrt_hround(__half h, int mode) {
  float f = __half2float(h);
  switch (mode) {
    case 0: return rintf(f);
    case 1: return truncf(f);
    case 2: return floorf(f);
    default: return ceilf(f);
  }
}
template <class T>
__KFDRT_HFN T __kfdrt_h2i(__half h, int mode) {
  float r = __kfdrt_hround(h, mode);
  if (r != r) return sizeof(T) == 8 ? static_cast<T>(0x8000000000000000ull) : T(0);
  if (r <= static_cast<float>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (r >= static_cast<float>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}
#define __KFDRT_H2I(name, T)                                                                 \
  __KFDRT_HFN T __half2##name##_rn(__half h) { return __kfdrt_h2i<T>(h, 0); }                \
  __KFDRT_HFN T __half2##name##_rz(__half h) { return __kfdrt_h2i<T>(h, 1); }                \
  __KFDRT_HFN T __half2##name##_rd(__half h) { return __kfdrt_h2i<T>(h, 2); }                \
  __KFDRT_HFN T __half2##name##_ru(__half h) { return __kfdrt_h2i<T>(h, 3); }
__KFDRT_H2I(int, int)
__KFDRT_H2I(uint, unsigned int)
__KFDRT_H2I(short, short)
__KFDRT_H2I(ushort, unsigned short)
__KFDRT_H2I(ll, long long)
__KFDRT_H2I(ull, unsigned long long)
#undef __KFDRT_H2I

// Half <- integer: every integer a binary16 can hold (and every one whose rounding matters, up to
// 65520) is exact in float, so the float's rounding to binary16 is the only one that counts.
#define __KFDRT_I2H(name, T)                                                                       \
  __KFDRT_HFN __half __##name##2half_rn(T v) { return __half_raw{__kfdrt_f2h_bits((float)v, 0)}; } \
  __KFDRT_HFN __half __##name##2half_rz(T v) { return __half_raw{__kfdrt_f2h_bits((float)v, 1)}; } \
  __KFDRT_HFN __half __##name##2half_rd(T v) { return __half_raw{__kfdrt_f2h_bits((float)v, 2)}; } \
  __KFDRT_HFN __half __##name##2half_ru(T v) { return __half_raw{__kfdrt_f2h_bits((float)v, 3)}; }
__KFDRT_I2H(int, int)
__KFDRT_I2H(uint, unsigned int)
__KFDRT_I2H(short, short)
__KFDRT_I2H(ushort, unsigned short)
__KFDRT_I2H(ll, long long)
__KFDRT_I2H(ull, unsigned long long)
#undef __KFDRT_I2H

// ---- Arithmetic ----
// _sat: the result clamped to [0, 1], NaN to +0.
__KFDRT_HFN __half __kfdrt_hsat(__half h) {
  _Float16 v = __kfdrt_hv(h);
  if (!(v > (_Float16)0)) return __half_raw{0};
  return v > (_Float16)1 ? __half(__half_raw{0x3c00u}) : h;
}
__KFDRT_HFN __half __hadd(__half a, __half b) { return __kfdrt_hh(__kfdrt_hv(a) + __kfdrt_hv(b)); }
__KFDRT_HFN __half __hsub(__half a, __half b) { return __kfdrt_hh(__kfdrt_hv(a) - __kfdrt_hv(b)); }
__KFDRT_HFN __half __hmul(__half a, __half b) { return __kfdrt_hh(__kfdrt_hv(a) * __kfdrt_hv(b)); }
__KFDRT_HFN __half __hdiv(__half a, __half b) { return __kfdrt_hh(__kfdrt_hv(a) / __kfdrt_hv(b)); }
// a * b + c rounded once in a kernel (v_fma_f16). On the host it is computed in double (a * b is
// exact there) and rounded to double, then to binary16.
__KFDRT_HFN __half __hfma(__half a, __half b, __half c) {
#if defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__
  return __kfdrt_hh(__builtin_fmaf16(__kfdrt_hv(a), __kfdrt_hv(b), __kfdrt_hv(c)));
#else
  return __kfdrt_hh(static_cast<_Float16>(fma((double)__half2float(a), (double)__half2float(b), (double)__half2float(c))));
#endif
}
__KFDRT_HFN __half __hneg(__half a) { return __ushort_as_half((unsigned short)(__half_as_ushort(a) ^ 0x8000u)); }
__KFDRT_HFN __half __habs(__half a) { return __ushort_as_half((unsigned short)(__half_as_ushort(a) & 0x7fffu)); }
__KFDRT_HFN __half __hadd_sat(__half a, __half b) { return __kfdrt_hsat(__hadd(a, b)); }
__KFDRT_HFN __half __hsub_sat(__half a, __half b) { return __kfdrt_hsat(__hsub(a, b)); }
__KFDRT_HFN __half __hmul_sat(__half a, __half b) { return __kfdrt_hsat(__hmul(a, b)); }
__KFDRT_HFN __half __hfma_sat(__half a, __half b, __half c) { return __kfdrt_hsat(__hfma(a, b, c)); }

__KFDRT_HFN __half2 __hadd2(__half2 a, __half2 b) { return __half2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
__KFDRT_HFN __half2 __hsub2(__half2 a, __half2 b) { return __half2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
__KFDRT_HFN __half2 __hmul2(__half2 a, __half2 b) { return __half2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
__KFDRT_HFN __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
__KFDRT_HFN __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
#if defined(__HIP__)
// a.x * b.x + a.y * b.y + c in single precision (v_dot2_f32_f16; AMD's amd_mixed_dot).
__device__ inline float amd_mixed_dot(__half2 a, __half2 b, float c, bool saturate) {
  typedef _Float16 __kfdrt_h2v __attribute__((ext_vector_type(2)));
  __half2_raw ra = a, rb = b;
  __kfdrt_h2v va = __builtin_bit_cast(__kfdrt_h2v, (unsigned int)(ra.x | (unsigned int)ra.y << 16));
  __kfdrt_h2v vb = __builtin_bit_cast(__kfdrt_h2v, (unsigned int)(rb.x | (unsigned int)rb.y << 16));
  return saturate ? __builtin_amdgcn_fdot2(va, vb, c, true) : __builtin_amdgcn_fdot2(va, vb, c, false);
}
#endif
__KFDRT_HFN __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
__KFDRT_HFN __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
__KFDRT_HFN __half2 __hadd2_sat(__half2 a, __half2 b) { return __half2(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)); }
__KFDRT_HFN __half2 __hsub2_sat(__half2 a, __half2 b) { return __half2(__hsub_sat(a.x, b.x), __hsub_sat(a.y, b.y)); }
__KFDRT_HFN __half2 __hmul2_sat(__half2 a, __half2 b) { return __half2(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)); }
__KFDRT_HFN __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) { return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)); }

// ---- Comparisons: ordered ones are false with a NaN operand, unordered ones (u) true ----
__KFDRT_HFN bool __hisnan(__half a) { return (__half_as_ushort(a) & 0x7fffu) > 0x7c00u; }
__KFDRT_HFN int __hisinf(__half a) {
  unsigned short b = __half_as_ushort(a);
  return b == 0x7c00u ? 1 : b == 0xfc00u ? -1 : 0;
}
__KFDRT_HFN bool __heq(__half a, __half b) { return __kfdrt_hv(a) == __kfdrt_hv(b); }
__KFDRT_HFN bool __hne(__half a, __half b) { return !__hisnan(a) && !__hisnan(b) && __kfdrt_hv(a) != __kfdrt_hv(b); }
__KFDRT_HFN bool __hlt(__half a, __half b) { return __kfdrt_hv(a) < __kfdrt_hv(b); }
__KFDRT_HFN bool __hle(__half a, __half b) { return __kfdrt_hv(a) <= __kfdrt_hv(b); }
__KFDRT_HFN bool __hgt(__half a, __half b) { return __kfdrt_hv(a) > __kfdrt_hv(b); }
__KFDRT_HFN bool __hge(__half a, __half b) { return __kfdrt_hv(a) >= __kfdrt_hv(b); }
__KFDRT_HFN bool __hequ(__half a, __half b) { return !(__kfdrt_hv(a) < __kfdrt_hv(b) || __kfdrt_hv(a) > __kfdrt_hv(b)); }
__KFDRT_HFN bool __hneu(__half a, __half b) { return !__heq(a, b); }
__KFDRT_HFN bool __hltu(__half a, __half b) { return !__hge(a, b); }
__KFDRT_HFN bool __hleu(__half a, __half b) { return !__hgt(a, b); }
__KFDRT_HFN bool __hgtu(__half a, __half b) { return !__hle(a, b); }
__KFDRT_HFN bool __hgeu(__half a, __half b) { return !__hlt(a, b); }
// The larger / smaller of two, +0 above -0 (CUDA's __hmax / __hmin): a NaN operand gives the
// other one, two NaNs the canonical NaN (0x7fff). The _nan forms give that NaN when either is one.
__KFDRT_HFN bool __kfdrt_hgreater(__half a, __half b) {  // a > b, with +0 > -0
  return __hgt(a, b) || (__heq(a, b) && __half_as_ushort(a) == 0 && __half_as_ushort(b) == 0x8000u);
}
__KFDRT_HFN __half __hmax(__half a, __half b) {
  if (__hisnan(a) && __hisnan(b)) return __ushort_as_half(0x7fffu);
  return __hisnan(a) ? b : __hisnan(b) ? a : __kfdrt_hgreater(b, a) ? b : a;
}
__KFDRT_HFN __half __hmin(__half a, __half b) {
  if (__hisnan(a) && __hisnan(b)) return __ushort_as_half(0x7fffu);
  return __hisnan(a) ? b : __hisnan(b) ? a : __kfdrt_hgreater(a, b) ? b : a;
}
__KFDRT_HFN __half __hmax_nan(__half a, __half b) {
  return __hisnan(a) || __hisnan(b) ? __ushort_as_half(0x7fffu) : __hmax(a, b);
}
__KFDRT_HFN __half __hmin_nan(__half a, __half b) {
  return __hisnan(a) || __hisnan(b) ? __ushort_as_half(0x7fffu) : __hmin(a, b);
}

// Per-lane results as 1.0 / 0.0 (__heq2, ...), or true when both lanes hold (__hbeq2, ...).
#define __KFDRT_HCMP2(op)                                                                        \
  __KFDRT_HFN __half2 op##2(__half2 a, __half2 b) {                                             \
    return __half2(__half_raw{(unsigned short)(op(a.x, b.x) ? 0x3c00u : 0u)},                    \
                   __half_raw{(unsigned short)(op(a.y, b.y) ? 0x3c00u : 0u)});                   \
  }
#define __KFDRT_HBCMP2(name, op) \
  __KFDRT_HFN bool name(__half2 a, __half2 b) { return op(a.x, b.x) && op(a.y, b.y); }
__KFDRT_HCMP2(__heq) __KFDRT_HCMP2(__hne) __KFDRT_HCMP2(__hlt) __KFDRT_HCMP2(__hle)
__KFDRT_HCMP2(__hgt) __KFDRT_HCMP2(__hge) __KFDRT_HCMP2(__hequ) __KFDRT_HCMP2(__hneu)
__KFDRT_HCMP2(__hltu) __KFDRT_HCMP2(__hleu) __KFDRT_HCMP2(__hgtu) __KFDRT_HCMP2(__hgeu)
__KFDRT_HBCMP2(__hbeq2, __heq) __KFDRT_HBCMP2(__hbne2, __hne) __KFDRT_HBCMP2(__hblt2, __hlt)
__KFDRT_HBCMP2(__hble2, __hle) __KFDRT_HBCMP2(__hbgt2, __hgt) __KFDRT_HBCMP2(__hbge2, __hge)
__KFDRT_HBCMP2(__hbequ2, __hequ) __KFDRT_HBCMP2(__hbneu2, __hneu) __KFDRT_HBCMP2(__hbltu2, __hltu)
__KFDRT_HBCMP2(__hbleu2, __hleu) __KFDRT_HBCMP2(__hbgtu2, __hgtu) __KFDRT_HBCMP2(__hbgeu2, __hgeu)
#undef __KFDRT_HCMP2
#undef __KFDRT_HBCMP2
__KFDRT_HFN __half2 __hisnan2(__half2 a) {
  return __half2(__half_raw{(unsigned short)(__hisnan(a.x) ? 0x3c00u : 0u)}, __half_raw{(unsigned short)(__hisnan(a.y) ? 0x3c00u : 0u)});
}
__KFDRT_HFN __half2 __hisinf2(__half2 a) {
  return __half2(__half_raw{(unsigned short)(__hisinf(a.x) ? 0x3c00u : 0u)}, __half_raw{(unsigned short)(__hisinf(a.y) ? 0x3c00u : 0u)});
}
__KFDRT_HFN __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
__KFDRT_HFN __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
__KFDRT_HFN __half2 __hmax2_nan(__half2 a, __half2 b) { return __half2(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y)); }
__KFDRT_HFN __half2 __hmin2_nan(__half2 a, __half2 b) { return __half2(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y)); }

// ---- Math: evaluated in float and rounded to binary16 (correctly rounded for sqrt and rcp) ----
#define __KFDRT_HMATH(hname, h2name, expr)                                                   \
  __KFDRT_HFN __half hname(__half h) {                                                       \
    float x = __half2float(h);                                                               \
    return __float2half_rn(expr);                                                            \
  }                                                                                          \
  __KFDRT_HFN __half2 h2name(__half2 v) { return __half2(hname(v.x), hname(v.y)); }
__KFDRT_HMATH(hsqrt, h2sqrt, sqrtf(x))
__KFDRT_HMATH(hrsqrt, h2rsqrt, 1.0f / sqrtf(x))
__KFDRT_HMATH(hrcp, h2rcp, 1.0f / x)
__KFDRT_HMATH(hexp, h2exp, expf(x))
__KFDRT_HMATH(hexp2, h2exp2, exp2f(x))
__KFDRT_HMATH(hexp10, h2exp10, exp10f(x))
__KFDRT_HMATH(hlog, h2log, logf(x))
__KFDRT_HMATH(hlog2, h2log2, log2f(x))
__KFDRT_HMATH(hlog10, h2log10, log10f(x))
__KFDRT_HMATH(hsin, h2sin, sinf(x))
__KFDRT_HMATH(hcos, h2cos, cosf(x))
__KFDRT_HMATH(hceil, h2ceil, ceilf(x))
__KFDRT_HMATH(hfloor, h2floor, floorf(x))
__KFDRT_HMATH(htrunc, h2trunc, truncf(x))
__KFDRT_HMATH(hrint, h2rint, rintf(x))
#undef __KFDRT_HMATH

// ---- Operators (free functions, found by argument-dependent lookup) ----
#if !defined(__HIP_NO_HALF_OPERATORS__)
__KFDRT_HFN __half operator+(const __half& a, const __half& b) { return __hadd(a, b); }
__KFDRT_HFN __half operator-(const __half& a, const __half& b) { return __hsub(a, b); }
__KFDRT_HFN __half operator*(const __half& a, const __half& b) { return __hmul(a, b); }
__KFDRT_HFN __half operator/(const __half& a, const __half& b) { return __hdiv(a, b); }
__KFDRT_HFN __half operator+(const __half& a) { return a; }
__KFDRT_HFN __half operator-(const __half& a) { return __hneg(a); }
__KFDRT_HFN bool operator==(const __half& a, const __half& b) { return __heq(a, b); }
__KFDRT_HFN bool operator!=(const __half& a, const __half& b) { return __hneu(a, b); }
__KFDRT_HFN bool operator<(const __half& a, const __half& b) { return __hlt(a, b); }
__KFDRT_HFN bool operator<=(const __half& a, const __half& b) { return __hle(a, b); }
__KFDRT_HFN bool operator>(const __half& a, const __half& b) { return __hgt(a, b); }
__KFDRT_HFN bool operator>=(const __half& a, const __half& b) { return __hge(a, b); }

__KFDRT_HFN __half2 operator+(const __half2& a, const __half2& b) { return __hadd2(a, b); }
__KFDRT_HFN __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
__KFDRT_HFN __half2 operator*(const __half2& a, const __half2& b) { return __hmul2(a, b); }
__KFDRT_HFN __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }
__KFDRT_HFN __half2 operator+(const __half2& a) { return a; }
__KFDRT_HFN __half2 operator-(const __half2& a) { return __hneg2(a); }
__KFDRT_HFN bool operator==(const __half2& a, const __half2& b) { return __hbeq2(a, b); }
__KFDRT_HFN bool operator!=(const __half2& a, const __half2& b) { return __hbneu2(a, b); }
__KFDRT_HFN bool operator<(const __half2& a, const __half2& b) { return __hblt2(a, b); }
__KFDRT_HFN bool operator<=(const __half2& a, const __half2& b) { return __hble2(a, b); }
__KFDRT_HFN bool operator>(const __half2& a, const __half2& b) { return __hbgt2(a, b); }
__KFDRT_HFN bool operator>=(const __half2& a, const __half2& b) { return __hbge2(a, b); }
#endif

// __ldg and the cache-hinted loads (__ldca, __ldcg, __ldcs): on gfx9 ordinary loads.
#if defined(__HIP__)
#define __KFDRT_HLOAD(name)                                          \
  __device__ inline __half name(const __half* p) { return *p; }     \
  __device__ inline __half2 name(const __half2* p) { return *p; }
__KFDRT_HLOAD(__ldg)
__KFDRT_HLOAD(__ldca)
__KFDRT_HLOAD(__ldcg)
__KFDRT_HLOAD(__ldcs)
#undef __KFDRT_HLOAD
#endif

#undef __KFDRT_HFN
#endif  // __cplusplus
