// SPDX-License-Identifier: MIT
// HIP's short vector types (char1 .. double4) with make_* helpers, constructors and HIP's
// operator set: element-wise arithmetic with a vector or a scalar on either side, compound
// assignment, increments, unary minus, the bitwise and shift operators and % for integer
// elements, and == / != (true when every component compares so).
#pragma once

#include "hip/kfdrt/hip_common.h"

#ifdef __cplusplus

#define __KFDRT_VEC_FN __host__ __device__ static inline constexpr
#define __KFDRT_VEC_CTOR __host__ __device__ constexpr

template <class U>
U&& __kfdrt_vec_declval() noexcept;  // unevaluated only

// Members x..w as in HIP; 2- and 4-element vectors are aligned to their size like HIP's;
// value_type names the element. The default constructor is trivial (vectors live in __shared__
// memory and unions, and `T v{}` zero-fills); a value of any type convertible to the element
// fills every component (explicitly, as in HIP; implicitly for one-component vectors), and N such
// values give the N components, each converted as by static_cast (HIP's constructors are such
// templates: make_uchar2(~1, 1) and uchar2{~1, 1} both build).
#define __KFDRT_VEC1(name, T)                                                                  \
  struct name {                                                                                \
    typedef T value_type;                                                                      \
    T x;                                                                                       \
    name() = default;                                                                          \
    template <class U, class = decltype(static_cast<T>(__kfdrt_vec_declval<U>()))>             \
    __KFDRT_VEC_CTOR name(U x_) : x(static_cast<T>(x_)) {}                                     \
  };
#define __KFDRT_VEC2(name, T)                                                                  \
  struct alignas(2 * sizeof(T)) name {                                                         \
    typedef T value_type;                                                                      \
    T x, y;                                                                                    \
    name() = default;                                                                          \
    template <class U, class = decltype(static_cast<T>(__kfdrt_vec_declval<U>()))>             \
    __KFDRT_VEC_CTOR explicit name(U s) : x(static_cast<T>(s)), y(static_cast<T>(s)) {}        \
    template <class A, class B>                                                                \
    __KFDRT_VEC_CTOR name(A x_, B y_) : x(static_cast<T>(x_)), y(static_cast<T>(y_)) {}        \
  };
#define __KFDRT_VEC3(name, T)                                                                  \
  struct name {                                                                                \
    typedef T value_type;                                                                      \
    T x, y, z;                                                                                 \
    name() = default;                                                                          \
    template <class U, class = decltype(static_cast<T>(__kfdrt_vec_declval<U>()))>             \
    __KFDRT_VEC_CTOR explicit name(U s) : x(static_cast<T>(s)), y(static_cast<T>(s)), z(static_cast<T>(s)) {} \
    template <class A, class B, class C>                                                       \
    __KFDRT_VEC_CTOR name(A x_, B y_, C z_)                                                    \
        : x(static_cast<T>(x_)), y(static_cast<T>(y_)), z(static_cast<T>(z_)) {}               \
  };
#define __KFDRT_VEC4(name, T)                                                                  \
  struct alignas(4 * sizeof(T)) name {                                                         \
    typedef T value_type;                                                                      \
    T x, y, z, w;                                                                              \
    name() = default;                                                                          \
    template <class U, class = decltype(static_cast<T>(__kfdrt_vec_declval<U>()))>             \
    __KFDRT_VEC_CTOR explicit name(U s)                                                        \
        : x(static_cast<T>(s)), y(static_cast<T>(s)), z(static_cast<T>(s)), w(static_cast<T>(s)) {} \
    template <class A, class B, class C, class D>                                              \
    __KFDRT_VEC_CTOR name(A x_, B y_, C z_, D w_)                                              \
        : x(static_cast<T>(x_)), y(static_cast<T>(y_)), z(static_cast<T>(z_)), w(static_cast<T>(w_)) {} \
  };

// Component-wise application, N = 1..4: E(c) names component c of the operands.
#define __KFDRT_EACH1(E) E(x)
#define __KFDRT_EACH2(E) E(x) E(y)
#define __KFDRT_EACH3(E) E(x) E(y) E(z)
#define __KFDRT_EACH4(E) E(x) E(y) E(z) E(w)
#define __KFDRT_ALL1(E) E(x)
#define __KFDRT_ALL2(E) E(x) && E(y)
#define __KFDRT_ALL3(E) E(x) && E(y) && E(z)
#define __KFDRT_ALL4(E) E(x) && E(y) && E(z) && E(w)

// The operators are templates (as HIP's are): a non-template operator for the same types
// outranks them, as hip/hip_complex.h's complex * and / for float2 and double2 do.
#define __KFDRT_CA_V1(op) a.x op b.x;
#define __KFDRT_CA_V2(op) a.x op b.x; a.y op b.y;
#define __KFDRT_CA_V3(op) a.x op b.x; a.y op b.y; a.z op b.z;
#define __KFDRT_CA_V4(op) a.x op b.x; a.y op b.y; a.z op b.z; a.w op b.w;
#define __KFDRT_CA_S1(op) a.x op s;
#define __KFDRT_CA_S2(op) a.x op s; a.y op s;
#define __KFDRT_CA_S3(op) a.x op s; a.y op s; a.z op s;
#define __KFDRT_CA_S4(op) a.x op s; a.y op s; a.z op s; a.w op s;
#define __KFDRT_VEC_BINARY(name, T, N, op)                                                              \
  template <class = void> __KFDRT_VEC_FN name& operator op##=(name& a, name b) {                        \
    __KFDRT_CA_V##N(op##=) return a;                                                                    \
  }                                                                                                     \
  template <class = void> __KFDRT_VEC_FN name& operator op##=(name& a, T s) {                           \
    __KFDRT_CA_S##N(op##=) return a;                                                                    \
  }                                                                                                     \
  template <class = void> __KFDRT_VEC_FN name operator op(name a, name b) { return a op##= b; }         \
  template <class = void> __KFDRT_VEC_FN name operator op(name a, T s) { return a op##= s; }            \
  template <class = void> __KFDRT_VEC_FN name operator op(T s, name b) {                                \
    name a(__KFDRT_BCAST##N(s));                                                                        \
    return a op##= b;                                                                                   \
  }
#define __KFDRT_BCAST1(s) s
#define __KFDRT_BCAST2(s) s, s
#define __KFDRT_BCAST3(s) s, s, s
#define __KFDRT_BCAST4(s) s, s, s, s

#define __KFDRT_EQ(c) (a.c == b.c)
#define __KFDRT_NEG(c) a.c = static_cast<decltype(a.c)>(-a.c);
#define __KFDRT_NOT(c) a.c = static_cast<decltype(a.c)>(~a.c);
#define __KFDRT_INC(c) ++a.c;
#define __KFDRT_DEC(c) --a.c;
#define __KFDRT_VEC_COMMON(name, T, N)                                                                  \
  __KFDRT_VEC_BINARY(name, T, N, +) __KFDRT_VEC_BINARY(name, T, N, -)                                   \
  __KFDRT_VEC_BINARY(name, T, N, *) __KFDRT_VEC_BINARY(name, T, N, /)                                   \
  template <class = void> __KFDRT_VEC_FN bool operator==(name a, name b) { return __KFDRT_ALL##N(__KFDRT_EQ); } \
  template <class = void> __KFDRT_VEC_FN bool operator!=(name a, name b) { return !(a == b); }          \
  template <class = void> __KFDRT_VEC_FN bool operator==(name a, T s) { return a == name(__KFDRT_BCAST##N(s)); } \
  template <class = void> __KFDRT_VEC_FN bool operator!=(name a, T s) { return !(a == s); }             \
  template <class = void> __KFDRT_VEC_FN bool operator==(T s, name b) { return b == s; }                \
  template <class = void> __KFDRT_VEC_FN bool operator!=(T s, name b) { return !(b == s); }             \
  template <class = void> __KFDRT_VEC_FN name operator+(name a) { return a; }                           \
  template <class = void> __KFDRT_VEC_FN name operator-(name a) {                                       \
    __KFDRT_EACH##N(__KFDRT_NEG) return a;                                                              \
  }                                                                                                     \
  template <class = void> __KFDRT_VEC_FN name& operator++(name& a) {                                     \
    __KFDRT_EACH##N(__KFDRT_INC) return a;                                                              \
  }                                                                                                     \
  template <class = void> __KFDRT_VEC_FN name& operator--(name& a) {                                     \
    __KFDRT_EACH##N(__KFDRT_DEC) return a;                                                              \
  }                                                                                                     \
  template <class = void> __KFDRT_VEC_FN name operator++(name& a, int) {                                \
    name old = a;                                                                                       \
    ++a;                                                                                                \
    return old;                                                                                         \
  }                                                                                                     \
  template <class = void> __KFDRT_VEC_FN name operator--(name& a, int) {                                \
    name old = a;                                                                                       \
    --a;                                                                                                \
    return old;                                                                                         \
  }
#define __KFDRT_VEC_INTEGER(name, T, N)                                                                 \
  __KFDRT_VEC_BINARY(name, T, N, %) __KFDRT_VEC_BINARY(name, T, N, &)                                   \
  __KFDRT_VEC_BINARY(name, T, N, |) __KFDRT_VEC_BINARY(name, T, N, ^)                                   \
  __KFDRT_VEC_BINARY(name, T, N, <<) __KFDRT_VEC_BINARY(name, T, N, >>)                                 \
  template <class = void> __KFDRT_VEC_FN name operator~(name a) {                                       \
    __KFDRT_EACH##N(__KFDRT_NOT) return a;                                                              \
  }

#define __KFDRT_VEC_TYPES(base, T)                                                             \
  __KFDRT_VEC1(base##1, T)                                                                     \
  __KFDRT_VEC2(base##2, T)                                                                     \
  __KFDRT_VEC3(base##3, T)                                                                     \
  __KFDRT_VEC4(base##4, T)                                                                     \
  __KFDRT_VEC_FN base##1 make_##base##1(T x) { return base##1(x); }                            \
  __KFDRT_VEC_FN base##2 make_##base##2(T x, T y) { return base##2(x, y); }                    \
  __KFDRT_VEC_FN base##3 make_##base##3(T x, T y, T z) { return base##3(x, y, z); }            \
  __KFDRT_VEC_FN base##4 make_##base##4(T x, T y, T z, T w) { return base##4(x, y, z, w); }   \
  __KFDRT_VEC_COMMON(base##1, T, 1) __KFDRT_VEC_COMMON(base##2, T, 2)                          \
  __KFDRT_VEC_COMMON(base##3, T, 3) __KFDRT_VEC_COMMON(base##4, T, 4)
#define __KFDRT_VEC_FAMILY_INT(base, T)                                                        \
  __KFDRT_VEC_TYPES(base, T)                                                                   \
  __KFDRT_VEC_INTEGER(base##1, T, 1) __KFDRT_VEC_INTEGER(base##2, T, 2)                        \
  __KFDRT_VEC_INTEGER(base##3, T, 3) __KFDRT_VEC_INTEGER(base##4, T, 4)

__KFDRT_VEC_FAMILY_INT(char, signed char)
__KFDRT_VEC_FAMILY_INT(uchar, unsigned char)
__KFDRT_VEC_FAMILY_INT(short, short)
__KFDRT_VEC_FAMILY_INT(ushort, unsigned short)
__KFDRT_VEC_FAMILY_INT(int, int)
__KFDRT_VEC_FAMILY_INT(uint, unsigned int)
__KFDRT_VEC_FAMILY_INT(long, long)
__KFDRT_VEC_FAMILY_INT(ulong, unsigned long)
__KFDRT_VEC_FAMILY_INT(longlong, long long)
__KFDRT_VEC_FAMILY_INT(ulonglong, unsigned long long)
__KFDRT_VEC_TYPES(float, float)
__KFDRT_VEC_TYPES(double, double)

#undef __KFDRT_VEC_FAMILY_INT
#undef __KFDRT_VEC_TYPES
#undef __KFDRT_VEC_INTEGER
#undef __KFDRT_VEC_COMMON
#undef __KFDRT_VEC_BINARY
#undef __KFDRT_EQ
#undef __KFDRT_NEG
#undef __KFDRT_NOT
#undef __KFDRT_INC
#undef __KFDRT_DEC
#undef __KFDRT_CA_V1
#undef __KFDRT_CA_V2
#undef __KFDRT_CA_V3
#undef __KFDRT_CA_V4
#undef __KFDRT_CA_S1
#undef __KFDRT_CA_S2
#undef __KFDRT_CA_S3
#undef __KFDRT_CA_S4
#undef __KFDRT_BCAST1
#undef __KFDRT_BCAST2
#undef __KFDRT_BCAST3
#undef __KFDRT_BCAST4
#undef __KFDRT_EACH1
#undef __KFDRT_EACH2
#undef __KFDRT_EACH3
#undef __KFDRT_EACH4
#undef __KFDRT_ALL1
#undef __KFDRT_ALL2
#undef __KFDRT_ALL3
#undef __KFDRT_ALL4
#undef __KFDRT_VEC1
#undef __KFDRT_VEC2
#undef __KFDRT_VEC3
#undef __KFDRT_VEC4
#undef __KFDRT_VEC_CTOR
#undef __KFDRT_VEC_FN

#endif  // __cplusplus
