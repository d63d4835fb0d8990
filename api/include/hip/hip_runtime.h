// SPDX-License-Identifier: MIT
// The header HIP programs include: the runtime API, the kernel built-ins and device functions, launches.
#pragma once

// What ROCm 5.2's hip/hip_runtime.h brings in on its way (its own list and those of
// amd_hip_runtime.h, amd_hip_vector_types.h and amd_math_functions.h): programs rely on it, using
// std::array, std::thread, std::numeric_limits, printf or assert without including them.
// Included first, before any macro of ours can reach them. <string.h>: see KFDRT_HIP_NO_STRING_H
// in hip_runtime_api.h.
#include <assert.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef KFDRT_HIP_NO_STRING_H
#include <string.h>
#endif
#ifdef __cplusplus
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <thread>
#include <type_traits>
#else
#include <math.h>
#endif

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
// Two levels, so that a macro standing for several of the launch's arguments
// (#define CONFIG grid, block, 0, 0) is expanded before they are told apart.
#define __kfdrt_launch_ggl(kernelName, numBlocks, numThreads, memPerBlock, streamId, ...) \
  do {                                                                                   \
    kernelName<<<(numBlocks), (numThreads), (memPerBlock), (streamId)>>>(__VA_ARGS__);   \
  } while (0)
#define hipLaunchKernelGGL(kernelName, ...) __kfdrt_launch_ggl((kernelName), __VA_ARGS__)
#endif

// Dynamic shared memory: an unsized extern __shared__ array whose size the launch gives.
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#define __forceinline__ inline __attribute__((always_inline))
// CUDA's alignment specifier, as HIP 5.2 defines it (rocWMMA's vector class is declared so).
#ifndef __align__
#define __align__(x) __attribute__((aligned(x)))
#endif
// clang 15 and later know __noinline__ as a keyword in HIP (the cuda_noinline_keyword feature),
// so libstdc++'s __attribute__((__noinline__)) keeps working in headers included after this
// one; a macro would turn that into the unknown attribute "noinline" of nothing.
#if defined(__has_feature)
#if __has_feature(cuda_noinline_keyword)
#define __KFDRT_NOINLINE_KEYWORD 1
#endif
#endif
#if !defined(__KFDRT_NOINLINE_KEYWORD) && !defined(__noinline__)
#define __noinline__ __attribute__((noinline))
#endif
#ifndef __launch_bounds__
#define __kfdrt_launch_bounds1(max_threads) __attribute__((amdgpu_flat_work_group_size(1, max_threads)))
#define __kfdrt_launch_bounds2(max_threads, min_blocks)                 \
  __attribute__((amdgpu_flat_work_group_size(1, max_threads)))
#define __kfdrt_launch_bounds_pick(_1, _2, name, ...) name
#define __launch_bounds__(...) \
  __kfdrt_launch_bounds_pick(__VA_ARGS__, __kfdrt_launch_bounds2, __kfdrt_launch_bounds1, )(__VA_ARGS__)
#endif
