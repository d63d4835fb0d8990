// SPDX-License-Identifier: MIT
// Device functions of HIP kernels: barriers, fences, atomics, cross-lane operations, bit tricks, clocks.
#pragma once

#if defined(__HIP__)

#include <stdint.h>

#define __KFDRT_DEV static __device__ inline __attribute__((always_inline))

// ---- Barriers and fences ----
// __syncthreads: release the workgroup's writes, wait for every wave, acquire theirs.
__KFDRT_DEV void __syncthreads(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__KFDRT_DEV void __threadfence_block(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__KFDRT_DEV void __threadfence(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__KFDRT_DEV void __threadfence_system(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }

// ---- Lanes and wave votes ----
__KFDRT_DEV unsigned int __lane_id(void) {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
__KFDRT_DEV unsigned long long __ballot(int predicate) {
  return __builtin_amdgcn_uicmpl(predicate != 0, 0, 33);  // 33: ICMP_NE
}
__KFDRT_DEV unsigned long long __ballot64(int predicate) { return __ballot(predicate); }
__KFDRT_DEV unsigned long long __activemask(void) { return __ballot(1); }
__KFDRT_DEV int __any(int predicate) { return __ballot(predicate) != 0; }
__KFDRT_DEV int __all(int predicate) { return __ballot(predicate) == __ballot(1); }

// ---- Bit operations ----
__KFDRT_DEV int __popc(unsigned int x) { return __builtin_popcount(x); }
__KFDRT_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__KFDRT_DEV int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
__KFDRT_DEV int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
__KFDRT_DEV int __ffs(int x) { return __builtin_ffs(x); }
__KFDRT_DEV int __ffsll(long long x) { return __builtin_ffsll(x); }
__KFDRT_DEV unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__KFDRT_DEV unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__KFDRT_DEV int __mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
__KFDRT_DEV unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
__KFDRT_DEV int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
__KFDRT_DEV unsigned int __umulhi(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x * y) >> 32);
}
__KFDRT_DEV long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
__KFDRT_DEV unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}

// ---- Clocks ----
// clock64: the shader clock (s_memtime); wall_clock64: the constant-rate clock (s_memrealtime),
// whose rate hipDeviceAttributeWallClockRate reports.
__KFDRT_DEV long long clock64(void) { return (long long)__builtin_amdgcn_s_memtime(); }
__KFDRT_DEV long long __clock64(void) { return clock64(); }
__KFDRT_DEV long long clock(void) { return clock64(); }
__KFDRT_DEV long long __clock(void) { return clock64(); }
__KFDRT_DEV long long wall_clock64(void) { return (long long)__builtin_amdgcn_s_memrealtime(); }

// ---- Cross-lane shuffles (ds_bpermute: lane i reads lane index[i]) ----
__KFDRT_DEV int __kfdrt_bpermute(int lane, int v) { return __builtin_amdgcn_ds_bpermute(lane << 2, v); }

template <class T, unsigned Size = sizeof(T)>
struct __kfdrt_shfl;
template <class T>
struct __kfdrt_shfl<T, 2> {  // __half, short: widened to the 32-bit lane the permute moves
  static __device__ inline T move(T v, int lane) {
    unsigned short b = __builtin_bit_cast(unsigned short, v);
    return __builtin_bit_cast(T, (unsigned short)__kfdrt_bpermute(lane, (int)b));
  }
};
template <class T>
struct __kfdrt_shfl<T, 4> {
  static __device__ inline T move(T v, int lane) {
    return __builtin_bit_cast(T, __kfdrt_bpermute(lane, __builtin_bit_cast(int, v)));
  }
};
template <class T>
struct __kfdrt_shfl<T, 8> {
  struct Pair {
    int lo, hi;
  };
  static __device__ inline T move(T v, int lane) {
    Pair p = __builtin_bit_cast(Pair, v);
    p.lo = __kfdrt_bpermute(lane, p.lo);
    p.hi = __kfdrt_bpermute(lane, p.hi);
    return __builtin_bit_cast(T, p);
  }
};

// Lanes are grouped in segments of `width` (a power of two up to warpSize); a source outside the
// caller's segment leaves the caller's own value, as HIP specifies.
template <class T>
__KFDRT_DEV T __shfl(T var, int src_lane, int width = __AMDGCN_WAVEFRONT_SIZE) {
  int self = (int)__lane_id();
  int index = (src_lane & (width - 1)) + (self & ~(width - 1));
  return __kfdrt_shfl<T>::move(var, index);
}
template <class T>
__KFDRT_DEV T __shfl_up(T var, unsigned int delta, int width = __AMDGCN_WAVEFRONT_SIZE) {
  int self = (int)__lane_id();
  int index = self - (int)delta;
  if (index < (self & ~(width - 1))) index = self;
  return __kfdrt_shfl<T>::move(var, index);
}
template <class T>
__KFDRT_DEV T __shfl_down(T var, unsigned int delta, int width = __AMDGCN_WAVEFRONT_SIZE) {
  int self = (int)__lane_id();
  int index = self + (int)delta;
  if ((self & (width - 1)) + (int)delta >= width) index = self;
  return __kfdrt_shfl<T>::move(var, index);
}
template <class T>
__KFDRT_DEV T __shfl_xor(T var, int lane_mask, int width = __AMDGCN_WAVEFRONT_SIZE) {
  int self = (int)__lane_id();
  int index = self ^ lane_mask;
  if (index >= ((self + width) & ~(width - 1))) index = self;
  return __kfdrt_shfl<T>::move(var, index);
}
// CUDA-style *_sync spellings (the mask is ignored: AMD waves run in lockstep).
template <class T>
__KFDRT_DEV T __shfl_sync(unsigned long long, T var, int src, int width = __AMDGCN_WAVEFRONT_SIZE) {
  return __shfl(var, src, width);
}
template <class T>
__KFDRT_DEV T __shfl_up_sync(unsigned long long, T var, unsigned int d, int width = __AMDGCN_WAVEFRONT_SIZE) {
  return __shfl_up(var, d, width);
}
template <class T>
__KFDRT_DEV T __shfl_down_sync(unsigned long long, T var, unsigned int d, int width = __AMDGCN_WAVEFRONT_SIZE) {
  return __shfl_down(var, d, width);
}
template <class T>
__KFDRT_DEV T __shfl_xor_sync(unsigned long long, T var, int m, int width = __AMDGCN_WAVEFRONT_SIZE) {
  return __shfl_xor(var, m, width);
}

// ---- Atomics (relaxed, agent scope unless _system / _block) ----
#define __KFDRT_SCOPE_AGENT __HIP_MEMORY_SCOPE_AGENT
#define __KFDRT_SCOPE_SYSTEM __HIP_MEMORY_SCOPE_SYSTEM
#define __KFDRT_SCOPE_BLOCK __HIP_MEMORY_SCOPE_WORKGROUP

#define __KFDRT_ATOMIC_RMW(name, builtin, T)                                        \
  __KFDRT_DEV T name(T* p, T v) {                                                   \
    return builtin(p, v, __ATOMIC_RELAXED, __KFDRT_SCOPE_AGENT);                    \
  }                                                                                 \
  __KFDRT_DEV T name##_system(T* p, T v) {                                          \
    return builtin(p, v, __ATOMIC_RELAXED, __KFDRT_SCOPE_SYSTEM);                   \
  }                                                                                 \
  __KFDRT_DEV T name##_block(T* p, T v) {                                           \
    return builtin(p, v, __ATOMIC_RELAXED, __KFDRT_SCOPE_BLOCK);                    \
  }

#define __KFDRT_ATOMIC_INTS(name, builtin)                      \
  __KFDRT_ATOMIC_RMW(name, builtin, int)                        \
  __KFDRT_ATOMIC_RMW(name, builtin, unsigned int)               \
  __KFDRT_ATOMIC_RMW(name, builtin, unsigned long long)

__KFDRT_ATOMIC_INTS(atomicAdd, __hip_atomic_fetch_add)
__KFDRT_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, long long)
__KFDRT_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, float)
__KFDRT_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, double)
// The add whose result is not wanted (HIP's deprecated spelling for float).
__KFDRT_DEV void atomicAddNoRet(float* p, float v) { (void)atomicAdd(p, v); }
__KFDRT_ATOMIC_INTS(atomicAnd, __hip_atomic_fetch_and)
__KFDRT_ATOMIC_INTS(atomicOr, __hip_atomic_fetch_or)
__KFDRT_ATOMIC_INTS(atomicXor, __hip_atomic_fetch_xor)
__KFDRT_ATOMIC_INTS(atomicMin, __hip_atomic_fetch_min)
__KFDRT_ATOMIC_RMW(atomicMin, __hip_atomic_fetch_min, long long)
__KFDRT_ATOMIC_INTS(atomicMax, __hip_atomic_fetch_max)
__KFDRT_ATOMIC_RMW(atomicMax, __hip_atomic_fetch_max, long long)
__KFDRT_ATOMIC_INTS(atomicExch, __hip_atomic_exchange)
__KFDRT_ATOMIC_RMW(atomicExch, __hip_atomic_exchange, float)
__KFDRT_ATOMIC_RMW(atomicExch, __hip_atomic_exchange, double)

__KFDRT_DEV int atomicSub(int* p, int v) { return atomicAdd(p, -v); }
__KFDRT_DEV unsigned int atomicSub(unsigned int* p, unsigned int v) { return atomicAdd(p, 0u - v); }
__KFDRT_DEV unsigned long long atomicSub(unsigned long long* p, unsigned long long v) {
  return atomicAdd(p, 0ull - v);
}
__KFDRT_DEV float atomicSub(float* p, float v) { return atomicAdd(p, -v); }
__KFDRT_DEV double atomicSub(double* p, double v) { return atomicAdd(p, -v); }
__KFDRT_DEV float unsafeAtomicAdd(float* p, float v) { return atomicAdd(p, v); }
__KFDRT_DEV double unsafeAtomicAdd(double* p, double v) { return atomicAdd(p, v); }

#define __KFDRT_ATOMIC_CAS(T)                                                              \
  __KFDRT_DEV T atomicCAS(T* p, T expected, T desired) {                                   \
    __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED,         \
                                         __ATOMIC_RELAXED, __KFDRT_SCOPE_AGENT);           \
    return expected;                                                                       \
  }                                                                                        \
  __KFDRT_DEV T atomicCAS_system(T* p, T expected, T desired) {                            \
    __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED,         \
                                         __ATOMIC_RELAXED, __KFDRT_SCOPE_SYSTEM);          \
    return expected;                                                                       \
  }
__KFDRT_ATOMIC_CAS(int)
__KFDRT_ATOMIC_CAS(unsigned int)
__KFDRT_ATOMIC_CAS(unsigned long long)
__KFDRT_ATOMIC_CAS(float)
__KFDRT_ATOMIC_CAS(double)

// atomicInc / atomicDec wrap at `limit` (CUDA semantics), done with a CAS loop.
__KFDRT_DEV unsigned int atomicInc(unsigned int* p, unsigned int limit) {
  unsigned int old = __hip_atomic_load(p, __ATOMIC_RELAXED, __KFDRT_SCOPE_AGENT), seen;
  do {
    seen = old;
    old = atomicCAS(p, seen, seen >= limit ? 0u : seen + 1u);
  } while (old != seen);
  return old;
}
__KFDRT_DEV unsigned int atomicDec(unsigned int* p, unsigned int limit) {
  unsigned int old = __hip_atomic_load(p, __ATOMIC_RELAXED, __KFDRT_SCOPE_AGENT), seen;
  do {
    seen = old;
    old = atomicCAS(p, seen, (seen == 0u || seen > limit) ? limit : seen - 1u);
  } while (old != seen);
  return old;
}
// Floating-point min/max by CAS on the bit pattern.
__KFDRT_DEV float atomicMax(float* p, float v) {
  float old = __hip_atomic_load(p, __ATOMIC_RELAXED, __KFDRT_SCOPE_AGENT), seen;
  while (old < v) {
    seen = old;
    old = atomicCAS(p, seen, v);
    if (__builtin_bit_cast(unsigned, old) == __builtin_bit_cast(unsigned, seen)) break;
  }
  return old;
}
__KFDRT_DEV float atomicMin(float* p, float v) {
  float old = __hip_atomic_load(p, __ATOMIC_RELAXED, __KFDRT_SCOPE_AGENT), seen;
  while (old > v) {
    seen = old;
    old = atomicCAS(p, seen, v);
    if (__builtin_bit_cast(unsigned, old) == __builtin_bit_cast(unsigned, seen)) break;
  }
  return old;
}

#undef __KFDRT_ATOMIC_RMW
#undef __KFDRT_ATOMIC_INTS
#undef __KFDRT_ATOMIC_CAS

// ---- Device printf: clang turns each call into ockl hostcalls; the runtime's hostcall thread
// formats and prints the message (api/hip/hostcall.cpp). ----
extern "C" __device__ int printf(const char* format, ...);

// ---- Device-side assert: a trap stops the queue; the host sees a launch failure. ----
extern "C" __device__ __attribute__((weak, noinline)) void __assert_fail(const char*, const char*,
                                                                       unsigned int, const char*) {
  __builtin_trap();
}

// ---- memcpy and memset in kernels ----
// Device overloads of <string.h>'s functions, as HIP provides them (the compiler expands them
// into loads and stores; nothing is called).
__KFDRT_DEV void* memcpy(void* dst, const void* src, size_t n) {
  __builtin_memcpy(dst, src, n);
  return dst;
}
__KFDRT_DEV void* memset(void* dst, int v, size_t n) {
  __builtin_memset(dst, v, n);
  return dst;
}

#undef __KFDRT_DEV

#endif  // __HIP__
