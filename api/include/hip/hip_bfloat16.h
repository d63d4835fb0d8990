// SPDX-License-Identifier: MIT
// HIP's bfloat16 type hip_bfloat16: float's upper 16 bits, with conversions, arithmetic and comparisons.
//
// The API is ROCm 5.2's hip/hip_bfloat16.h:
//  - hip_bfloat16 holds one uint16_t `data` (the bit pattern: sign, 8 exponent bits, 7 fraction
//    bits, i.e. the upper half of an IEEE 754 binary32); 2 bytes, aligned to 2;
//  - the class with its operators is what a HIP compiler sees in C++11 or later; C, C++98 and a
//    host-only C++ compiler (g++ building the host side of a program) see the struct alone, with
//    the same layout, as in ROCm;
//  - construction from float is explicit: hip_bfloat16(f) rounds to nearest, ties to even;
//    hip_bfloat16(f, hip_bfloat16::truncate) drops the low 16 bits; round_to_bfloat16(f) and
//    round_to_bfloat16(f, truncate) return the same as a hip_bfloat16;
//  - Inf stays Inf; a NaN keeps its sign and upper fraction bits, and when its payload is only in
//    the dropped half the lowest kept bit is set so that it stays a NaN (a quiet NaN stays quiet,
//    a signalling one signalling), in both conversions;
//  - arithmetic converts to float, computes there and rounds back (+ - * /, the compound
//    assignments, ++ and -- by 1.0); unary - flips the sign bit;
//  - std::isinf, std::isnan and std::iszero overloads, and operator<< for std::ostream.
// One difference: the comparisons are float's (IEEE 754: every ordered comparison with a NaN is
// false, so NaN <= x and NaN >= x are false); ROCm 5.2 defines <= and >= as !(a > b) and
// !(a < b), which are true when an operand is NaN.
#pragma once

#include "hip/kfdrt/hip_common.h"

#if !defined(__cplusplus) || __cplusplus < 201103L || !defined(__HIPCC__)

#include <stdint.h>

// The storage alone (C, old C++, host-only compilers): the same layout as the class below.
typedef struct {
  uint16_t data;
} hip_bfloat16;

#else

// What ROCm's header brings in; programs may rely on it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "hip/hip_runtime.h"

struct hip_bfloat16 {
  uint16_t data;

  enum truncate_t { truncate };

  // Trivial, as the C struct is: `hip_bfloat16 x;` is uninitialised, `hip_bfloat16 x{};` zero.
  __host__ __device__ hip_bfloat16() = default;

  // Round to nearest, ties to even.
  explicit __host__ __device__ hip_bfloat16(float f) : data(__kfdrt_round(f)) {}
  // Round toward zero (drop the low 16 bits).
  explicit __host__ __device__ hip_bfloat16(float f, truncate_t) : data(__kfdrt_truncate(f)) {}

  // Exact: the 16 bits become the upper half of a float whose lower half is zero.
  __host__ __device__ operator float() const { return __builtin_bit_cast(float, uint32_t(data) << 16); }

  static __host__ __device__ hip_bfloat16 round_to_bfloat16(float f) {
    hip_bfloat16 r;
    r.data = __kfdrt_round(f);
    return r;
  }
  static __host__ __device__ hip_bfloat16 round_to_bfloat16(float f, truncate_t) {
    hip_bfloat16 r;
    r.data = __kfdrt_truncate(f);
    return r;
  }

 private:
  // IEEE 754 binary32 fields: exponent bits 30..23 all ones is Inf (zero fraction) or NaN.
  static __host__ __device__ bool __kfdrt_inf_or_nan(uint32_t bits) {
    return (bits & 0x7f800000u) == 0x7f800000u;
  }
  // The upper half of a NaN is a NaN only if a fraction bit is set there: when the payload was
  // all in the lower half, bit 0 of the result is set instead of returning Inf.
  static __host__ __device__ uint16_t __kfdrt_nan_upper_half(uint32_t bits) {
    uint16_t upper = uint16_t(bits >> 16);
    return (bits & 0xffffu) != 0 ? uint16_t(upper | 1u) : upper;
  }
  static __host__ __device__ uint16_t __kfdrt_round(float f) {
    uint32_t bits = __builtin_bit_cast(uint32_t, f);
    if (__kfdrt_inf_or_nan(bits)) return __kfdrt_nan_upper_half(bits);
    // Adding just under half a unit of the 16th bit (0x7fff), plus the kept part's lowest bit,
    // carries into the kept half exactly when the dropped half is above one half, or is one half
    // and the kept part is odd: round to nearest, ties to even. A carry out of the fraction steps
    // the exponent (the next binade, or Inf from the largest finite values), which is the correct
    // rounded value; subnormals round the same way.
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return uint16_t(bits >> 16);
  }
  static __host__ __device__ uint16_t __kfdrt_truncate(float f) {
    uint32_t bits = __builtin_bit_cast(uint32_t, f);
    if (__kfdrt_inf_or_nan(bits)) return __kfdrt_nan_upper_half(bits);
    return uint16_t(bits >> 16);
  }
};

static_assert(sizeof(hip_bfloat16) == 2 && alignof(hip_bfloat16) == 2, "hip_bfloat16: 2 bytes, aligned to 2");
static_assert(offsetof(hip_bfloat16, data) == 0, "hip_bfloat16: data at offset 0, as in the C struct");
static_assert(std::is_standard_layout<hip_bfloat16>::value && std::is_trivial<hip_bfloat16>::value,
              "hip_bfloat16 must stay layout-compatible with the C struct");

inline std::ostream& operator<<(std::ostream& os, const hip_bfloat16& b) { return os << float(b); }

inline __host__ __device__ hip_bfloat16 operator+(hip_bfloat16 a) { return a; }
inline __host__ __device__ hip_bfloat16 operator-(hip_bfloat16 a) {
  a.data = uint16_t(a.data ^ 0x8000u);  // IEEE 754 negate: the sign bit alone, NaNs included
  return a;
}

inline __host__ __device__ hip_bfloat16 operator+(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) + float(b));
}
inline __host__ __device__ hip_bfloat16 operator-(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) - float(b));
}
inline __host__ __device__ hip_bfloat16 operator*(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) * float(b));
}
inline __host__ __device__ hip_bfloat16 operator/(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) / float(b));
}

inline __host__ __device__ bool operator==(hip_bfloat16 a, hip_bfloat16 b) { return float(a) == float(b); }
inline __host__ __device__ bool operator!=(hip_bfloat16 a, hip_bfloat16 b) { return float(a) != float(b); }
inline __host__ __device__ bool operator<(hip_bfloat16 a, hip_bfloat16 b) { return float(a) < float(b); }
inline __host__ __device__ bool operator<=(hip_bfloat16 a, hip_bfloat16 b) { return float(a) <= float(b); }
inline __host__ __device__ bool operator>(hip_bfloat16 a, hip_bfloat16 b) { return float(a) > float(b); }
inline __host__ __device__ bool operator>=(hip_bfloat16 a, hip_bfloat16 b) { return float(a) >= float(b); }

inline __host__ __device__ hip_bfloat16& operator+=(hip_bfloat16& a, hip_bfloat16 b) { return a = a + b; }
inline __host__ __device__ hip_bfloat16& operator-=(hip_bfloat16& a, hip_bfloat16 b) { return a = a - b; }
inline __host__ __device__ hip_bfloat16& operator*=(hip_bfloat16& a, hip_bfloat16 b) { return a = a * b; }
inline __host__ __device__ hip_bfloat16& operator/=(hip_bfloat16& a, hip_bfloat16 b) { return a = a / b; }

inline __host__ __device__ hip_bfloat16& operator++(hip_bfloat16& a) { return a += hip_bfloat16(1.0f); }
inline __host__ __device__ hip_bfloat16& operator--(hip_bfloat16& a) { return a -= hip_bfloat16(1.0f); }
inline __host__ __device__ hip_bfloat16 operator++(hip_bfloat16& a, int) {
  hip_bfloat16 before = a;
  ++a;
  return before;
}
inline __host__ __device__ hip_bfloat16 operator--(hip_bfloat16& a, int) {
  hip_bfloat16 before = a;
  --a;
  return before;
}

// Classification from the bits (bfloat16 fields: exponent 0x7f80, fraction 0x007f), as ROCm
// declares them: in namespace std, beside <cmath>'s.
namespace std {
constexpr __host__ __device__ bool isinf(hip_bfloat16 a) { return (a.data & 0x7fffu) == 0x7f80u; }
constexpr __host__ __device__ bool isnan(hip_bfloat16 a) { return (a.data & 0x7fffu) > 0x7f80u; }
constexpr __host__ __device__ bool iszero(hip_bfloat16 a) { return (a.data & 0x7fffu) == 0; }
}  // namespace std

#endif
