// SPDX-License-Identifier: MIT
// threadIdx, blockIdx, blockDim, gridDim and warpSize for kernels, built on clang's AMDGPU builtins.
#pragma once

#include "hip/kfdrt/hip_types.h"

#if defined(__HIP__)

// Each built-in is an object whose .x/.y/.z are properties: reading one calls a static getter,
// so `threadIdx.x` costs exactly the builtin (a VGPR read, an SGPR, or a load through the
// dispatch pointer for the sizes; AMDGPUUsage). The objects are never defined or copied.
#define __KFDRT_PROPERTY(field, expr)                                                   \
  __declspec(property(get = __get_##field)) unsigned int field;                        \
  static __device__ __attribute__((always_inline)) unsigned int __get_##field(void) { \
    return (expr);                                                                     \
  }

#define __KFDRT_NO_INSTANCES(T)              \
  __device__ T() = delete;                   \
  __device__ T(const T&) = delete;           \
  __device__ void operator=(const T&) const = delete; \
  __device__ T* operator&() const = delete

struct __kfdrt_thread_idx_t {
  __KFDRT_PROPERTY(x, __builtin_amdgcn_workitem_id_x())
  __KFDRT_PROPERTY(y, __builtin_amdgcn_workitem_id_y())
  __KFDRT_PROPERTY(z, __builtin_amdgcn_workitem_id_z())
  __device__ operator dim3() const { return dim3(__get_x(), __get_y(), __get_z()); }

 private:
  __KFDRT_NO_INSTANCES(__kfdrt_thread_idx_t);
};

struct __kfdrt_block_idx_t {
  __KFDRT_PROPERTY(x, __builtin_amdgcn_workgroup_id_x())
  __KFDRT_PROPERTY(y, __builtin_amdgcn_workgroup_id_y())
  __KFDRT_PROPERTY(z, __builtin_amdgcn_workgroup_id_z())
  __device__ operator dim3() const { return dim3(__get_x(), __get_y(), __get_z()); }

 private:
  __KFDRT_NO_INSTANCES(__kfdrt_block_idx_t);
};

// Workgroup sizes come from the dispatch packet (code object v4) or the implicit arguments (v5);
// clang picks the source for the code object version it emits.
struct __kfdrt_block_dim_t {
  __KFDRT_PROPERTY(x, __builtin_amdgcn_workgroup_size_x())
  __KFDRT_PROPERTY(y, __builtin_amdgcn_workgroup_size_y())
  __KFDRT_PROPERTY(z, __builtin_amdgcn_workgroup_size_z())
  __device__ operator dim3() const { return dim3(__get_x(), __get_y(), __get_z()); }

 private:
  __KFDRT_NO_INSTANCES(__kfdrt_block_dim_t);
};

// Grid sizes in the packet are in work-items; HIP launches whole blocks, so the division is exact.
struct __kfdrt_grid_dim_t {
  __KFDRT_PROPERTY(x, __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x())
  __KFDRT_PROPERTY(y, __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y())
  __KFDRT_PROPERTY(z, __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z())
  __device__ operator dim3() const { return dim3(__get_x(), __get_y(), __get_z()); }

 private:
  __KFDRT_NO_INSTANCES(__kfdrt_grid_dim_t);
};

#undef __KFDRT_PROPERTY
#undef __KFDRT_NO_INSTANCES

extern const __device__ __attribute__((weak)) __kfdrt_thread_idx_t threadIdx;
extern const __device__ __attribute__((weak)) __kfdrt_block_idx_t blockIdx;
extern const __device__ __attribute__((weak)) __kfdrt_block_dim_t blockDim;
extern const __device__ __attribute__((weak)) __kfdrt_grid_dim_t gridDim;

// HIP's older spellings.
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

#endif  // __HIP__

// The wavefront size: the target's in device code, 64 (gfx9 wave64) on the host side.
#if defined(__AMDGCN_WAVEFRONT_SIZE)
static constexpr int warpSize = __AMDGCN_WAVEFRONT_SIZE;
#else
static constexpr int warpSize = 64;
#endif
