// SPDX-License-Identifier: MIT
// A tiny stand-in for hip_runtime.h so test kernels build with clang alone (no HIP headers yet).
#pragma once

#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif

// Work-item ids and sizes from clang's AMDGPU builtins (what HIP's threadIdx/blockIdx expand to).
#define KT_TID_X (__builtin_amdgcn_workitem_id_x())
#define KT_TID_Y (__builtin_amdgcn_workitem_id_y())
#define KT_BID_X (__builtin_amdgcn_workgroup_id_x())
#define KT_BID_Y (__builtin_amdgcn_workgroup_id_y())
#define KT_BDIM_X (__builtin_amdgcn_workgroup_size_x())
#define KT_BDIM_Y (__builtin_amdgcn_workgroup_size_y())
#define KT_GDIM_X (__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x())
#define KT_GID_X (KT_BID_X * KT_BDIM_X + KT_TID_X)

// __syncthreads(): workgroup release fence, barrier, acquire fence.
static __device__ inline void kt_syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
