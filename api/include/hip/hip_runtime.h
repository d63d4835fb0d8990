// SPDX-License-Identifier: MIT
// The header HIP programs include: the runtime API, the kernel built-ins and device functions, launches.
#pragma once

#include "hip/hip_runtime_api.h"
#include "hip/kfdrt/hip_common.h"

#ifdef __cplusplus
#include "hip/hip_vector_types.h"
#include "hip/kfdrt/device_builtins.h"
#include "hip/kfdrt/device_functions.h"
#include "hip/kfdrt/device_intrinsics.h"
#endif

// hipLaunchKernelGGL(kernel, grid, block, shared bytes, stream, args...): a <<<>>> launch.
#if defined(__HIP__)
#define hipLaunchKernelGGL(kernelName, numBlocks, numThreads, memPerBlock, streamId, ...) \
  do {                                                                                  \
    kernelName<<<(numBlocks), (numThreads), (memPerBlock), (streamId)>>>(__VA_ARGS__);  \
  } while (0)
#endif

// Dynamic shared memory: an unsized extern __shared__ array whose size the launch gives.
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#ifndef __launch_bounds__
#define __kfdrt_launch_bounds1(max_threads) __attribute__((amdgpu_flat_work_group_size(1, max_threads)))
#define __kfdrt_launch_bounds2(max_threads, min_blocks)                 \
  __attribute__((amdgpu_flat_work_group_size(1, max_threads)))
#define __kfdrt_launch_bounds_pick(_1, _2, name, ...) name
#define __launch_bounds__(...) \
  __kfdrt_launch_bounds_pick(__VA_ARGS__, __kfdrt_launch_bounds2, __kfdrt_launch_bounds1, )(__VA_ARGS__)
#endif
