// SPDX-License-Identifier: MIT
// HIP's short vector types (int2, float4, uint3, ...) with make_* helpers and element-wise operators.
#pragma once

#include "hip/kfdrt/hip_common.h"

#ifdef __cplusplus

#define __KFDRT_VEC_FN __host__ __device__ static inline constexpr

// Members x..w as in HIP; 2- and 4-element vectors are aligned to their size like HIP's.
// The element-wise operators are templates (as HIP's are): a non-template operator for the same
// types outranks them, as hip/hip_complex.h's complex * and / for float2 and double2 do.
#define __KFDRT_VEC1(name, T) \
  struct name { T x; };
#define __KFDRT_VEC2(name, T) \
  struct alignas(2 * sizeof(T)) name { T x, y; };
#define __KFDRT_VEC3(name, T) \
  struct name { T x, y, z; };
#define __KFDRT_VEC4(name, T) \
  struct alignas(4 * sizeof(T)) name { T x, y, z, w; };

#define __KFDRT_VEC_OPS2(name, T, op)                                                      \
  template <class = void> __KFDRT_VEC_FN name operator op(name a, name b) { return name{static_cast<T>(a.x op b.x), static_cast<T>(a.y op b.y)}; }
#define __KFDRT_VEC_OPS3(name, T, op)                                                      \
  template <class = void> __KFDRT_VEC_FN name operator op(name a, name b) {                                        \
    return name{static_cast<T>(a.x op b.x), static_cast<T>(a.y op b.y), static_cast<T>(a.z op b.z)};                              \
  }
#define __KFDRT_VEC_OPS4(name, T, op)                                                      \
  template <class = void> __KFDRT_VEC_FN name operator op(name a, name b) {                                        \
    return name{static_cast<T>(a.x op b.x), static_cast<T>(a.y op b.y), static_cast<T>(a.z op b.z), static_cast<T>(a.w op b.w)};               \
  }

#define __KFDRT_VEC_FAMILY(base, T)                                                        \
  __KFDRT_VEC1(base##1, T)                                                                 \
  __KFDRT_VEC2(base##2, T)                                                                 \
  __KFDRT_VEC3(base##3, T)                                                                 \
  __KFDRT_VEC4(base##4, T)                                                                 \
  __KFDRT_VEC_FN base##1 make_##base##1(T x) { return base##1{x}; }                        \
  __KFDRT_VEC_FN base##2 make_##base##2(T x, T y) { return base##2{x, y}; }                \
  __KFDRT_VEC_FN base##3 make_##base##3(T x, T y, T z) { return base##3{x, y, z}; }        \
  __KFDRT_VEC_FN base##4 make_##base##4(T x, T y, T z, T w) { return base##4{x, y, z, w}; } \
  __KFDRT_VEC_OPS2(base##2, T, +) __KFDRT_VEC_OPS2(base##2, T, -)                                \
  __KFDRT_VEC_OPS2(base##2, T, *) __KFDRT_VEC_OPS2(base##2, T, /)                                \
  __KFDRT_VEC_OPS3(base##3, T, +) __KFDRT_VEC_OPS3(base##3, T, -)                                \
  __KFDRT_VEC_OPS3(base##3, T, *) __KFDRT_VEC_OPS3(base##3, T, /)                                \
  __KFDRT_VEC_OPS4(base##4, T, +) __KFDRT_VEC_OPS4(base##4, T, -)                                \
  __KFDRT_VEC_OPS4(base##4, T, *) __KFDRT_VEC_OPS4(base##4, T, /)

__KFDRT_VEC_FAMILY(char, signed char)
__KFDRT_VEC_FAMILY(uchar, unsigned char)
__KFDRT_VEC_FAMILY(short, short)
__KFDRT_VEC_FAMILY(ushort, unsigned short)
__KFDRT_VEC_FAMILY(int, int)
__KFDRT_VEC_FAMILY(uint, unsigned int)
__KFDRT_VEC_FAMILY(long, long)
__KFDRT_VEC_FAMILY(ulong, unsigned long)
__KFDRT_VEC_FAMILY(longlong, long long)
__KFDRT_VEC_FAMILY(ulonglong, unsigned long long)
__KFDRT_VEC_FAMILY(float, float)
__KFDRT_VEC_FAMILY(double, double)

#undef __KFDRT_VEC_FAMILY
#undef __KFDRT_VEC1
#undef __KFDRT_VEC2
#undef __KFDRT_VEC3
#undef __KFDRT_VEC4
#undef __KFDRT_VEC_OPS2
#undef __KFDRT_VEC_OPS3
#undef __KFDRT_VEC_OPS4
#undef __KFDRT_VEC_FN

#endif  // __cplusplus
