// SPDX-License-Identifier: MIT
// hc device built-ins: atomics, cross-lane operations, bit operations, 24-bit multiplies, clocks and group segment queries.
#pragma once

#include "config.hpp"

// HIP's headers declare some of the same built-ins (__lane_id, __ballot, __shfl, ...) in the
// global namespace. hc's are function templates with a defaulted parameter, so in code that says
// `using namespace hc;` an unqualified call prefers HIP's non-template function (same meaning)
// instead of being ambiguous, while hc::__name always works.
#define HC_BUILTIN template <int hc_builtin_ = 0> __device__ inline
#define HC_BUILTIN_HD template <int hc_builtin_ = 0> __host__ __device__ inline

namespace hc {

// ---- atomics (device scope, relaxed, on global or tile_static memory) ----

#define HC_ATOMIC_RMW(name, builtin)                                                        \
  template <class T> __device__ inline T name(T* dest, T val) {                             \
    return builtin(dest, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                  \
  }
HC_ATOMIC_RMW(atomic_exchange, __hip_atomic_exchange)
HC_ATOMIC_RMW(atomic_fetch_add, __hip_atomic_fetch_add)
HC_ATOMIC_RMW(atomic_fetch_and, __hip_atomic_fetch_and)
HC_ATOMIC_RMW(atomic_fetch_or, __hip_atomic_fetch_or)
HC_ATOMIC_RMW(atomic_fetch_xor, __hip_atomic_fetch_xor)
HC_ATOMIC_RMW(atomic_fetch_max, __hip_atomic_fetch_max)
HC_ATOMIC_RMW(atomic_fetch_min, __hip_atomic_fetch_min)
#undef HC_ATOMIC_RMW

template <class T> __device__ inline T atomic_fetch_sub(T* dest, T val) {
  return __hip_atomic_fetch_add(dest, static_cast<T>(-val), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <class T> __device__ inline T atomic_fetch_inc(T* dest) { return atomic_fetch_add(dest, T(1)); }
template <class T> __device__ inline T atomic_fetch_dec(T* dest) { return atomic_fetch_sub(dest, T(1)); }

// Stores `val` if *dest equals *expected; otherwise loads *dest into *expected. True if stored.
template <class T> __device__ inline bool atomic_compare_exchange(T* dest, T* expected, T val) {
  return __hip_atomic_compare_exchange_strong(dest, expected, val, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                              __HIP_MEMORY_SCOPE_AGENT);
}

// ---- cross-lane operations (wave64) ----

HC_BUILTIN unsigned int __lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
// One bit per active lane whose predicate is non-zero.
HC_BUILTIN uint64_t __ballot(int predicate) {
  return __builtin_amdgcn_uicmpl(static_cast<long>(predicate != 0), 0l, 33 /* ICMP_NE */);
}
HC_BUILTIN unsigned int __activelanecount_u32_b1(unsigned int input) {
  return static_cast<unsigned>(__builtin_popcountll(__ballot(input != 0)));
}
HC_BUILTIN uint64_t __activelanemask_v4_b64_b1(unsigned int input) { return __ballot(input != 0); }
HC_BUILTIN int __any(int predicate) { return __ballot(predicate) != 0; }
HC_BUILTIN int __all(int predicate) {
  return __ballot(predicate) == __ballot(1);
}

HC_BUILTIN int __amdgcn_ds_bpermute(int index, int src) {
  return __builtin_amdgcn_ds_bpermute(index, src);
}
HC_BUILTIN float __amdgcn_ds_bpermute(int index, float src) {
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute(index, __builtin_bit_cast(int, src)));
}
HC_BUILTIN unsigned int __amdgcn_ds_bpermute(int index, unsigned int src) {
  return static_cast<unsigned>(__builtin_amdgcn_ds_bpermute(index, static_cast<int>(src)));
}
HC_BUILTIN unsigned int __amdgcn_ds_permute(int index, unsigned int src) {
  return static_cast<unsigned>(__builtin_amdgcn_ds_permute(index, static_cast<int>(src)));
}
HC_BUILTIN int __amdgcn_ds_permute(int index, int src) {
  return __builtin_amdgcn_ds_permute(index, src);
}
HC_BUILTIN float __amdgcn_ds_permute(int index, float src) {
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_permute(index, __builtin_bit_cast(int, src)));
}
// The swizzle pattern and DPP controls must be constants, so these are macros.
#define __amdgcn_ds_swizzle(src, pattern) __builtin_amdgcn_ds_swizzle((src), (pattern))
#define __amdgcn_move_dpp(src, dpp_ctrl, row_mask, bank_mask, bound_ctrl) \
  __builtin_amdgcn_mov_dpp((src), (dpp_ctrl), (row_mask), (bank_mask), (bound_ctrl))
HC_BUILTIN int __amdgcn_wave_sr1(int src, bool bound_ctrl) {
  (void)bound_ctrl;
  return __builtin_amdgcn_mov_dpp(src, 0x138, 0xF, 0xF, false);  // wave_shr:1
}

constexpr int __HSA_WAVEFRONT_SIZE__ = 64;

// Value of `var` in lane srcLane of the caller's width-sized segment.
HC_BUILTIN int __shfl(int var, int srcLane, int width = __HSA_WAVEFRONT_SIZE__) {
  const int self = static_cast<int>(__lane_id());
  const int lane = (self & ~(width - 1)) + (srcLane & (width - 1));
  return __builtin_amdgcn_ds_bpermute(lane << 2, var);
}
HC_BUILTIN int __shfl_up(int var, unsigned int delta, int width = __HSA_WAVEFRONT_SIZE__) {
  const int self = static_cast<int>(__lane_id());
  const int lane = (self & (width - 1)) >= static_cast<int>(delta) ? self - static_cast<int>(delta) : self;
  return __builtin_amdgcn_ds_bpermute(lane << 2, var);
}
HC_BUILTIN int __shfl_down(int var, unsigned int delta, int width = __HSA_WAVEFRONT_SIZE__) {
  const int self = static_cast<int>(__lane_id());
  const int lane = (self & (width - 1)) + static_cast<int>(delta) < width ? self + static_cast<int>(delta) : self;
  return __builtin_amdgcn_ds_bpermute(lane << 2, var);
}
HC_BUILTIN int __shfl_xor(int var, int laneMask, int width = __HSA_WAVEFRONT_SIZE__) {
  const int self = static_cast<int>(__lane_id());
  const int lane = ((self ^ laneMask) & (width - 1)) | (self & ~(width - 1));
  return __builtin_amdgcn_ds_bpermute(lane << 2, var);
}
#define HC_SHFL_FLOAT(name, T2)                                                          \
  HC_BUILTIN float name(float var, T2 arg, int width = __HSA_WAVEFRONT_SIZE__) {          \
    return __builtin_bit_cast(float, name(__builtin_bit_cast(int, var), arg, width));    \
  }                                                                                      \
  HC_BUILTIN unsigned int name(unsigned int var, T2 arg, int width = __HSA_WAVEFRONT_SIZE__) { \
    return static_cast<unsigned>(name(static_cast<int>(var), arg, width));               \
  }
HC_SHFL_FLOAT(__shfl, int)
HC_SHFL_FLOAT(__shfl_up, unsigned int)
HC_SHFL_FLOAT(__shfl_down, unsigned int)
HC_SHFL_FLOAT(__shfl_xor, int)
#undef HC_SHFL_FLOAT

// ---- bit operations (HSAIL semantics: "first" counts from the MSB, "last" from the LSB) ----

HC_BUILTIN_HD unsigned int __popcount_u32_b32(unsigned int x) { return __builtin_popcount(x); }
HC_BUILTIN_HD unsigned int __popcount_u32_b64(unsigned long long x) { return __builtin_popcountll(x); }
HC_BUILTIN_HD int __firstbit_u32_u32(unsigned int x) { return x ? __builtin_clz(x) : -1; }
HC_BUILTIN_HD int __firstbit_u32_u64(unsigned long long x) { return x ? __builtin_clzll(x) : -1; }
// Signed: the first bit (from the MSB) that differs from the sign bit.
HC_BUILTIN_HD int __firstbit_u32_s32(int x) { return __firstbit_u32_u32(x < 0 ? ~static_cast<unsigned>(x) : static_cast<unsigned>(x)); }
HC_BUILTIN_HD int __firstbit_u32_s64(long long x) {
  return __firstbit_u32_u64(x < 0 ? ~static_cast<unsigned long long>(x) : static_cast<unsigned long long>(x));
}
HC_BUILTIN_HD int __lastbit_u32_u32(unsigned int x) { return x ? __builtin_ctz(x) : -1; }
HC_BUILTIN_HD int __lastbit_u32_u64(unsigned long long x) { return x ? __builtin_ctzll(x) : -1; }
HC_BUILTIN_HD int __lastbit_u32_s32(int x) { return __lastbit_u32_u32(static_cast<unsigned>(x)); }
HC_BUILTIN_HD int __lastbit_u32_s64(long long x) { return __lastbit_u32_u64(static_cast<unsigned long long>(x)); }

HC_BUILTIN_HD unsigned int __bitextract_u32(unsigned int src, unsigned int offset, unsigned int width) {
  offset &= 31, width &= 31;
  return width ? (src << (32 - width - offset)) >> (32 - width) : 0u;
}
HC_BUILTIN_HD int __bitextract_s32(int src, unsigned int offset, unsigned int width) {
  offset &= 31, width &= 31;
  return width ? static_cast<int>(static_cast<unsigned>(src) << (32 - width - offset)) >> (32 - width) : 0;
}
HC_BUILTIN_HD unsigned long long __bitextract_u64(unsigned long long src, unsigned int offset, unsigned int width) {
  offset &= 63, width &= 63;
  return width ? (src << (64 - width - offset)) >> (64 - width) : 0ull;
}
HC_BUILTIN_HD long long __bitextract_s64(long long src, unsigned int offset, unsigned int width) {
  offset &= 63, width &= 63;
  return width ? static_cast<long long>(static_cast<unsigned long long>(src) << (64 - width - offset)) >> (64 - width) : 0ll;
}
// src0 with bits [offset, offset+width) replaced by the low bits of src1.
HC_BUILTIN_HD unsigned int __bitinsert_u32(unsigned int src0, unsigned int src1, unsigned int offset, unsigned int width) {
  offset &= 31, width &= 31;
  const unsigned mask = ((1u << width) - 1u) << offset;
  return (src0 & ~mask) | ((src1 << offset) & mask);
}
HC_BUILTIN_HD unsigned long long __bitinsert_u64(unsigned long long src0, unsigned long long src1, unsigned int offset,
                                         unsigned int width) {
  offset &= 63, width &= 63;
  const unsigned long long mask = ((1ull << width) - 1ull) << offset;
  return (src0 & ~mask) | ((src1 << offset) & mask);
}
HC_BUILTIN_HD unsigned int __bitmask_b32(unsigned int offset, unsigned int width) {
  return ((width & 31) ? ((1u << (width & 31)) - 1u) : 0u) << (offset & 31);
}
HC_BUILTIN_HD unsigned int __bitrev_b32(unsigned int x) { return __builtin_bitreverse32(x); }
HC_BUILTIN_HD unsigned long long __bitrev_b64(unsigned long long x) { return __builtin_bitreverse64(x); }
HC_BUILTIN_HD unsigned int __bitalign_b32(unsigned int hi, unsigned int lo, unsigned int shift) {
  return static_cast<unsigned>((((unsigned long long)hi << 32) | lo) >> (shift & 31));
}
HC_BUILTIN_HD unsigned int __bytealign_b32(unsigned int hi, unsigned int lo, unsigned int shift) {
  return __bitalign_b32(hi, lo, (shift & 3) * 8);
}

// ---- 24-bit multiplies ----

HC_BUILTIN_HD int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
HC_BUILTIN_HD unsigned int __mul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
HC_BUILTIN_HD int __mad24(int a, int b, int c) { return __mul24(a, b) + c; }
HC_BUILTIN_HD unsigned int __mad24(unsigned int a, unsigned int b, unsigned int c) { return __mul24(a, b) + c; }

// ---- clocks ----

// A constant-rate clock (s_memrealtime) and the shader cycle counter (s_memtime).
HC_BUILTIN uint64_t __clock_u64() { return __builtin_amdgcn_s_memrealtime(); }
HC_BUILTIN uint64_t __cycle_u64() { return __builtin_amdgcn_s_memtime(); }

// ---- group segment (LDS) ----

// The dispatch packet's group_segment_size: static plus dynamic LDS of this launch.
__device__ inline unsigned int get_group_segment_size() {
  const char* packet = (const char*)__builtin_amdgcn_dispatch_ptr();
  return *reinterpret_cast<const unsigned int*>(packet + 28);  // layout: HSA kernel dispatch packet
}
// The kernel's statically allocated LDS (tile_static variables): group_segment_fixed_size of
// the kernel descriptor the dispatch packet names. (__builtin_amdgcn_groupstaticsize would give
// the LDS of the function it is compiled into, 0 in a kernel lambda that is not inlined.)
__device__ inline unsigned int get_static_group_segment_size() {
  const char* packet = (const char*)__builtin_amdgcn_dispatch_ptr();
  // layout: HSA kernel dispatch packet (kernel_object at 32); AMDGPU kernel descriptor
  // (group_segment_fixed_size at 0).
  const char* kd = reinterpret_cast<const char*>(*reinterpret_cast<const uint64_t*>(packet + 32));
  return *reinterpret_cast<const unsigned int*>(kd);
}
__device__ inline unsigned int get_dynamic_group_segment_size() {
  return get_group_segment_size() - get_static_group_segment_size();
}
// Dynamic LDS follows the static LDS, as clang lays out `extern __shared__` arrays.
__device__ inline void* get_dynamic_group_segment_base_pointer() {
  extern __shared__ __attribute__((aligned(16))) char hc_dynamic_lds[];
  return static_cast<void*>(hc_dynamic_lds);
}
__device__ inline void* get_group_segment_base_pointer() {
  return static_cast<char*>(get_dynamic_group_segment_base_pointer()) - get_static_group_segment_size();
}

} // namespace hc

#undef HC_BUILTIN
#undef HC_BUILTIN_HD
