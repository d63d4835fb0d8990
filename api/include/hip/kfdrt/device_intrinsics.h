// SPDX-License-Identifier: MIT
// HIP's integer, bit-field, type-conversion, read-only-load and block/warp-vote intrinsics for kernels.
#pragma once

#include "hip/kfdrt/hip_types.h"

#if defined(__HIP__)

#define __KFDRT_DEV static __device__ inline __attribute__((always_inline))

// ---- Bit fields (offset and width taken modulo the word size) ----
// Extract as HIP defines it (ROCm's amd_device_functions.h): the field shifted up to the word's
// top, then down by (bits - width), with the GPU's shifts, which take their count modulo the word
// size. Within the word that is (src >> offset) & mask; a field that runs past the word's end
// (offset + width > bits) wraps instead of being cut, as HIP's own tests expect.
__KFDRT_DEV unsigned int __bitextract_u32(unsigned int src, unsigned int offset, unsigned int width) {
  offset &= 31u, width &= 31u;
  return width == 0 ? 0u : (src << ((32u - offset - width) & 31u)) >> (32u - width);
}
__KFDRT_DEV unsigned long long __bitextract_u64(unsigned long long src, unsigned int offset,
                                                unsigned int width) {
  offset &= 63u, width &= 63u;
  return width == 0 ? 0ull : (src << ((64u - offset - width) & 63u)) >> (64u - width);
}
__KFDRT_DEV unsigned int __bitinsert_u32(unsigned int dst, unsigned int src, unsigned int offset,
                                         unsigned int width) {
  offset &= 31u, width &= 31u;
  unsigned int mask = (1u << width) - 1u;
  return (dst & ~(mask << offset)) | ((src & mask) << offset);
}
__KFDRT_DEV unsigned long long __bitinsert_u64(unsigned long long dst, unsigned long long src,
                                               unsigned int offset, unsigned int width) {
  offset &= 63u, width &= 63u;
  unsigned long long mask = (1ull << width) - 1ull;
  return (dst & ~(mask << offset)) | ((src & mask) << offset);
}

// Result byte i is byte (selector >> 4i) & 7 of the eight bytes y:x (x holds bytes 0..3).
__KFDRT_DEV unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int selector) {
  unsigned long long bytes = (unsigned long long)y << 32 | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned int)((bytes >> (8 * ((selector >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}

// Funnel shifts of hi:lo; the _c forms clamp the shift to 32 instead of wrapping it.
__KFDRT_DEV unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = (unsigned long long)hi << 32 | lo;
  return (unsigned int)((v << (shift & 31u)) >> 32);
}
__KFDRT_DEV unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = (unsigned long long)hi << 32 | lo;
  return (unsigned int)((v << (shift < 32u ? shift : 32u)) >> 32);
}
__KFDRT_DEV unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = (unsigned long long)hi << 32 | lo;
  return (unsigned int)(v >> (shift & 31u));
}
__KFDRT_DEV unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  unsigned long long v = (unsigned long long)hi << 32 | lo;
  return (unsigned int)(v >> (shift < 32u ? shift : 32u));
}

// ---- Averages and sums of absolute differences, without intermediate overflow ----
__KFDRT_DEV int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
__KFDRT_DEV int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
__KFDRT_DEV unsigned int __uhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y) >> 1);
}
__KFDRT_DEV unsigned int __urhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
__KFDRT_DEV unsigned int __sad(int x, int y, unsigned int z) {
  return (x > y ? (unsigned int)((long long)x - y) : (unsigned int)((long long)y - x)) + z;
}
__KFDRT_DEV unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return (x > y ? x - y : y - x) + z;
}

// ---- Finding set bits ----
// The lowest set bit's index, or -1 (0xffffffff) for 0.
__KFDRT_DEV unsigned int __lastbit_u32_u32(unsigned int x) { return x ? (unsigned int)__builtin_ctz(x) : ~0u; }
__KFDRT_DEV unsigned int __lastbit_u32_u64(unsigned long long x) {
  return x ? (unsigned int)__builtin_ctzll(x) : ~0u;
}
// The |offset|-th set bit of `mask` counting from bit `base` upwards (offset > 0) or downwards
// (offset < 0); offset 0 asks whether bit `base` itself is set. ~0u when there is none.
__KFDRT_DEV unsigned int __kfdrt_fns(unsigned long long mask, int bits, unsigned int base, int offset) {
  if (base >= (unsigned int)bits) return ~0u;
  if (offset == 0) return (mask >> base) & 1ull ? base : ~0u;
  int step = offset > 0 ? 1 : -1, left = offset > 0 ? offset : -offset;
  for (int i = (int)base; i >= 0 && i < bits; i += step)
    if (((mask >> i) & 1ull) && --left == 0) return (unsigned int)i;
  return ~0u;
}
__KFDRT_DEV unsigned int __fns32(unsigned long long mask, unsigned int base, int offset) {
  return __kfdrt_fns(mask & 0xffffffffull, 32, base, offset);
}
__KFDRT_DEV unsigned int __fns64(unsigned long long mask, unsigned int base, int offset) {
  return __kfdrt_fns(mask, 64, base, offset);
}

// The compute unit the wave runs on, from the gfx9 HW_ID register (CU_ID [11:8], SH_ID [12],
// SE_ID [15:13]): se:sh:cu, as HIP numbers it.
__KFDRT_DEV unsigned int __smid(void) {
  unsigned int hw_id = __builtin_amdgcn_s_getreg((31 << 11) | (0 << 6) | 4);
  return ((hw_id >> 13) & 7u) << 5 | ((hw_id >> 12) & 1u) << 4 | ((hw_id >> 8) & 15u);
}

// ---- Reinterpretation ----
__KFDRT_DEV int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__KFDRT_DEV unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__KFDRT_DEV float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__KFDRT_DEV float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__KFDRT_DEV long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__KFDRT_DEV double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__KFDRT_DEV int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__KFDRT_DEV int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
__KFDRT_DEV double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, (unsigned long long)(unsigned int)hi << 32 | (unsigned int)lo);
}

// ---- Conversions with a rounding mode: rn nearest-even, rz toward zero, rd down, ru up ----
// Floating point to integer: round in the source type, then convert.
#define __KFDRT_F2I(name, F, I, floorf_, rintf_, ceilf_, truncf_)          \
  __KFDRT_DEV I name##_rd(F x) { return (I)floorf_(x); }                   \
  __KFDRT_DEV I name##_rn(F x) { return (I)rintf_(x); }                    \
  __KFDRT_DEV I name##_ru(F x) { return (I)ceilf_(x); }                    \
  __KFDRT_DEV I name##_rz(F x) { return (I)truncf_(x); }
__KFDRT_F2I(__float2int, float, int, __builtin_floorf, __builtin_rintf, __builtin_ceilf, __builtin_truncf)
__KFDRT_F2I(__float2uint, float, unsigned int, __builtin_floorf, __builtin_rintf, __builtin_ceilf, __builtin_truncf)
__KFDRT_F2I(__float2ll, float, long long, __builtin_floorf, __builtin_rintf, __builtin_ceilf, __builtin_truncf)
__KFDRT_F2I(__float2ull, float, unsigned long long, __builtin_floorf, __builtin_rintf, __builtin_ceilf,
            __builtin_truncf)
__KFDRT_F2I(__double2int, double, int, __builtin_floor, __builtin_rint, __builtin_ceil, __builtin_trunc)
__KFDRT_F2I(__double2uint, double, unsigned int, __builtin_floor, __builtin_rint, __builtin_ceil, __builtin_trunc)
__KFDRT_F2I(__double2ll, double, long long, __builtin_floor, __builtin_rint, __builtin_ceil, __builtin_trunc)
__KFDRT_F2I(__double2ull, double, unsigned long long, __builtin_floor, __builtin_rint, __builtin_ceil,
            __builtin_trunc)
#undef __KFDRT_F2I

// Narrowing to a floating type in a directed mode: the conversion rounds to nearest, then one step
// of the result's spacing corrects it when it went the wrong way. The step is taken on the bit
// pattern; the result is never 0 then, since only inexact values are corrected.
template <class F>
struct __kfdrt_fbits;
template <>
struct __kfdrt_fbits<float> {
  typedef unsigned int U;
};
template <>
struct __kfdrt_fbits<double> {
  typedef unsigned long long U;
};
template <class F>
__device__ inline F __kfdrt_step(F r, bool up) {
  typedef typename __kfdrt_fbits<F>::U U;
  U b = __builtin_bit_cast(U, r);
  b = ((r > 0) == up) ? b + 1 : b - 1;  // growing magnitude away from 0 means +1 on the pattern
  return __builtin_bit_cast(F, b);
}
// Exact comparison of an integer-valued F with an integer (cmp < 0: r < x, 0: equal, > 0: r > x).
template <class F, class I>
__device__ inline int __kfdrt_cmp(F r, I x) {
  const F limit = (F)(sizeof(I) == 8 ? 0x1p64 : 0x1p32) / (((I)-1 < 0) ? 2 : 1);
  if (r >= limit) return 1;
  if (r < -limit) return -1;
  I ri = (I)r;
  return ri < x ? -1 : ri > x ? 1 : 0;
}
template <class F, class I>
__device__ inline F __kfdrt_int2fp(I x, int mode) {  // mode: 0 rn, 1 rz, 2 rd, 3 ru
  F r = (F)x;
  int c = __kfdrt_cmp<F, I>(r, x);
  if (c == 0 || mode == 0) return r;
  bool too_big = c > 0;
  if (mode == 2 && too_big) return __kfdrt_step(r, false);
  if (mode == 3 && !too_big) return __kfdrt_step(r, true);
  if (mode == 1 && (too_big == (r > 0))) return __kfdrt_step(r, !too_big);
  return r;
}
__device__ inline float __kfdrt_d2f(double x, int mode) {
  float r = (float)x;
  if (mode == 0 || !((double)r != x) || x != x) return r;
  bool too_big = (double)r > x;
  if (mode == 2 && too_big) return __kfdrt_step(r, false);
  if (mode == 3 && !too_big) return __kfdrt_step(r, true);
  if (mode == 1 && (too_big == (r > 0))) return __kfdrt_step(r, !too_big);
  return r;
}
#define __KFDRT_I2F(name, I, F, cvt)                         \
  __KFDRT_DEV F name##_rn(I x) { return cvt(x, 0); }        \
  __KFDRT_DEV F name##_rz(I x) { return cvt(x, 1); }        \
  __KFDRT_DEV F name##_rd(I x) { return cvt(x, 2); }        \
  __KFDRT_DEV F name##_ru(I x) { return cvt(x, 3); }
__KFDRT_I2F(__int2float, int, float, (__kfdrt_int2fp<float, int>))
__KFDRT_I2F(__uint2float, unsigned int, float, (__kfdrt_int2fp<float, unsigned int>))
__KFDRT_I2F(__ll2float, long long, float, (__kfdrt_int2fp<float, long long>))
__KFDRT_I2F(__ull2float, unsigned long long, float, (__kfdrt_int2fp<float, unsigned long long>))
__KFDRT_I2F(__ll2double, long long, double, (__kfdrt_int2fp<double, long long>))
__KFDRT_I2F(__ull2double, unsigned long long, double, (__kfdrt_int2fp<double, unsigned long long>))
__KFDRT_I2F(__double2float, double, float, __kfdrt_d2f)
#undef __KFDRT_I2F
// 32-bit integers convert to double exactly.
__KFDRT_DEV double __int2double_rn(int x) { return (double)x; }
__KFDRT_DEV double __uint2double_rn(unsigned int x) { return (double)x; }

// ---- Integer min/max under CUDA's names ----
__KFDRT_DEV unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__KFDRT_DEV unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__KFDRT_DEV long long llmin(long long a, long long b) { return a < b ? a : b; }
__KFDRT_DEV long long llmax(long long a, long long b) { return a > b ? a : b; }
__KFDRT_DEV unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__KFDRT_DEV unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- Read-only loads: AMD GPUs have no separate read-only path, so a plain load ----
template <class T>
__KFDRT_DEV T __ldg(const T* p) {
  return *p;
}

// ---- Block votes: every thread of the block must reach them, like __syncthreads ----
// A count in LDS between barriers (ockl's work-group reductions do not build at -O0 with clang-15).
// Thread 0 resets the count before the first barrier; the last barrier keeps the next vote's reset
// from overtaking a slow reader of this one.
__device__ inline int __kfdrt_block_count(int predicate) {
  __shared__ int count;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) count = 0;
  __syncthreads();
  if (predicate) __hip_atomic_fetch_add(&count, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __syncthreads();
  int n = count;
  __syncthreads();
  return n;
}
__KFDRT_DEV int __syncthreads_count(int predicate) { return __kfdrt_block_count(predicate); }
__KFDRT_DEV int __syncthreads_and(int predicate) {
  return __kfdrt_block_count(predicate) == (int)(blockDim.x * blockDim.y * blockDim.z);
}
__KFDRT_DEV int __syncthreads_or(int predicate) { return __kfdrt_block_count(predicate) != 0; }

// ---- Warp votes with a member mask (CUDA's *_sync spellings); lanes outside `mask` do not count ----
__KFDRT_DEV unsigned long long __ballot_sync(unsigned long long mask, int predicate) {
  return __ballot(predicate) & mask;
}
__KFDRT_DEV int __any_sync(unsigned long long mask, int predicate) { return (__ballot(predicate) & mask) != 0; }
__KFDRT_DEV int __all_sync(unsigned long long mask, int predicate) {
  return (__ballot(predicate) & mask) == (__activemask() & mask);
}
// A wave executes in lockstep; what __syncwarp must still give is memory ordering among its lanes.
__KFDRT_DEV void __syncwarp(unsigned long long = ~0ull) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

// ---- Dot products with accumulate (the GPU's v_dot* instructions; AMD's amd_mixed_dot) ----
// Two 16-bit, four 8-bit or eight 4-bit products summed into c; saturate clamps the sum to the
// accumulator's range instead of wrapping.
typedef short __kfdrt_short2v __attribute__((ext_vector_type(2)));
typedef unsigned short __kfdrt_ushort2v __attribute__((ext_vector_type(2)));
__KFDRT_DEV int amd_mixed_dot(short2 a, short2 b, int c, bool saturate) {
  __kfdrt_short2v va = {a.x, a.y}, vb = {b.x, b.y};
  return saturate ? __builtin_amdgcn_sdot2(va, vb, c, true) : __builtin_amdgcn_sdot2(va, vb, c, false);
}
__KFDRT_DEV unsigned int amd_mixed_dot(ushort2 a, ushort2 b, unsigned int c, bool saturate) {
  __kfdrt_ushort2v va = {a.x, a.y}, vb = {b.x, b.y};
  return saturate ? __builtin_amdgcn_udot2(va, vb, c, true) : __builtin_amdgcn_udot2(va, vb, c, false);
}
__KFDRT_DEV int amd_mixed_dot(char4 a, char4 b, int c, bool saturate) {
  int pa = __builtin_bit_cast(int, a), pb = __builtin_bit_cast(int, b);
  return saturate ? __builtin_amdgcn_sdot4(pa, pb, c, true) : __builtin_amdgcn_sdot4(pa, pb, c, false);
}
__KFDRT_DEV unsigned int amd_mixed_dot(uchar4 a, uchar4 b, unsigned int c, bool saturate) {
  unsigned int pa = __builtin_bit_cast(unsigned int, a), pb = __builtin_bit_cast(unsigned int, b);
  return saturate ? __builtin_amdgcn_udot4(pa, pb, c, true) : __builtin_amdgcn_udot4(pa, pb, c, false);
}
// Eight signed (unsigned) 4-bit fields of a and b.
__KFDRT_DEV int amd_mixed_dot(int a, int b, int c, bool saturate) {
  return saturate ? __builtin_amdgcn_sdot8(a, b, c, true) : __builtin_amdgcn_sdot8(a, b, c, false);
}
__KFDRT_DEV unsigned int amd_mixed_dot(unsigned int a, unsigned int b, unsigned int c, bool saturate) {
  return saturate ? __builtin_amdgcn_udot8(a, b, c, true) : __builtin_amdgcn_udot8(a, b, c, false);
}

#undef __KFDRT_DEV

#endif  // __HIP__
