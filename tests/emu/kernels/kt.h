// SPDX-License-Identifier: MIT
// Minimal device-side HIP vocabulary for the corpus (no hip_runtime.h): qualifiers, thread and
// block indices via clang builtins, blockDim/gridDim from the dispatch packet, __syncthreads.
#pragma once
#include <stdint.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define KERNEL extern "C" __global__

__device__ inline const uint16_t* kt_packet16() { return (const uint16_t*)__builtin_amdgcn_dispatch_ptr(); }
__device__ inline const uint32_t* kt_packet32() { return (const uint32_t*)__builtin_amdgcn_dispatch_ptr(); }
__device__ inline unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ inline unsigned tid_y() { return __builtin_amdgcn_workitem_id_y(); }
__device__ inline unsigned tid_z() { return __builtin_amdgcn_workitem_id_z(); }
__device__ inline unsigned bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ inline unsigned bid_y() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ inline unsigned bid_z() { return __builtin_amdgcn_workgroup_id_z(); }
__device__ inline unsigned bdim_x() { return kt_packet16()[2]; }
__device__ inline unsigned bdim_y() { return kt_packet16()[3]; }
__device__ inline unsigned bdim_z() { return kt_packet16()[4]; }
__device__ inline unsigned grid_x() { return kt_packet32()[3]; }  // in work-items
__device__ inline unsigned grid_y() { return kt_packet32()[4]; }
__device__ inline void sync_threads() { __builtin_amdgcn_s_barrier(); }
__device__ inline void kt_fence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__device__ inline void syncthreads() { kt_fence(); sync_threads(); kt_fence(); }
__device__ inline unsigned lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
__device__ inline int shfl(int v, int src) { return __builtin_amdgcn_ds_bpermute(src << 2, v); }
__device__ inline uint64_t ballot(bool p) { return __builtin_amdgcn_uicmp((int)p, 0, 33 /*ICMP_NE*/); }

// Device libraries (ocml), declared here since we have no HIP headers.
extern "C" __device__ float __ocml_sin_f32(float);
extern "C" __device__ float __ocml_cos_f32(float);
extern "C" __device__ float __ocml_exp_f32(float);
extern "C" __device__ float __ocml_log_f32(float);
extern "C" __device__ float __ocml_sqrt_f32(float);
extern "C" __device__ double __ocml_sin_f64(double);
extern "C" __device__ double __ocml_exp_f64(double);
extern "C" __device__ double __ocml_log_f64(double);
extern "C" __device__ double __ocml_sqrt_f64(double);
