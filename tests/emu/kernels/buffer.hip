// SPDX-License-Identifier: MIT
// Corpus: MUBUF loads, stores and atomics through buffer resources (V#) built in the kernel, as
// libraries reach them with the llvm.amdgcn.raw.buffer.* intrinsics (no clang builtins).
#include "kt.h"

typedef int int4_t __attribute__((ext_vector_type(4)));
#define RAW(name) __asm("llvm.amdgcn.raw.buffer." name)
extern "C" __device__ float raw_load_f32(int4_t rsrc, int voff, int soff, int aux) RAW("load.f32");
extern "C" __device__ void raw_store_f32(float v, int4_t rsrc, int voff, int soff, int aux) RAW("store.f32");
extern "C" __device__ int raw_add_i32(int v, int4_t rsrc, int voff, int soff, int aux) RAW("atomic.add.i32");
extern "C" __device__ int raw_cmpswap_i32(int v, int cmp, int4_t rsrc, int voff, int soff, int aux) RAW("atomic.cmpswap.i32");
extern "C" __device__ float raw_fadd_f32(float v, int4_t rsrc, int voff, int soff, int aux) RAW("atomic.fadd.f32");
extern "C" __device__ long raw_umax_i64(long v, int4_t rsrc, int voff, int soff, int aux) RAW("atomic.umax.i64");
extern "C" __device__ int raw_smin_i32(int v, int4_t rsrc, int voff, int soff, int aux) RAW("atomic.smin.i32");

// A linear (raw) buffer of `bytes` at p: stride 0, num_records = bytes, 32-bit data format.
__device__ inline int4_t rsrc(const void* p, unsigned bytes) {
  unsigned long a = (unsigned long)p;
  return (int4_t){(int)(unsigned)a, (int)(unsigned)(a >> 32), (int)bytes, 0x00027000};
}

// Every work-item of the (possibly oversized) grid loads in[i] and stores 2*in[i]+1: lanes past
// n are out of the buffers' range, so they read 0 and their stores are dropped.
KERNEL void buffer_ops(const float* in, float* out, unsigned n, int* counters, int* olds, float* fsum,
                       unsigned long* mx) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  float v = raw_load_f32(rsrc(in, n * 4), (int)(i * 4), 0, 0);
  raw_store_f32(v * 2.0f + 1.0f, rsrc(out, n * 4), (int)(i * 4), 0, 0);
  int4_t c = rsrc(counters, 12);
  olds[i] = raw_add_i32(1, c, 0, 0, 0);
  raw_cmpswap_i32((int)i, -1, c, 4, 0, 0);
  raw_smin_i32(-(int)i, c, 8, 0, 0);
  raw_fadd_f32(0.5f, rsrc(fsum, 4), 0, 0, 0);
  raw_umax_i64((long)i * 3, rsrc(mx, 8), 0, 0, 0);
}

typedef float float4_t __attribute__((ext_vector_type(4)));
extern "C" __device__ float4_t raw_load_v4f32(int4_t rsrc, int voff, int soff, int aux) RAW("load.v4f32");
extern "C" __device__ void raw_store_v4f32(float4_t v, int4_t rsrc, int voff, int soff, int aux) RAW("store.v4f32");

// 16-byte loads and stores over buffers of `bytes`: range checking is per dword, so the vector
// that straddles the end keeps its in-range dwords. sums[i] = sum of the loaded vector.
KERNEL void buffer_tail(const float* in, float* out, float* sums, unsigned bytes) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  float4_t v = raw_load_v4f32(rsrc(in, bytes), (int)(i * 16), 0, 0);
  sums[i] = v.x + v.y + v.z + v.w;
  raw_store_v4f32(v + 1.0f, rsrc(out, bytes), (int)(i * 16), 0, 0);
}
