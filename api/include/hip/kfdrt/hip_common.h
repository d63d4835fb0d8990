// SPDX-License-Identifier: MIT
// Platform macros and attribute fallbacks shared by every kfdrt HIP header (host or HIP compiler).
#pragma once

#include "hip/hip_version.h"

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#ifndef __HIP_PLATFORM_HCC__
#define __HIP_PLATFORM_HCC__ 1  // deprecated spelling, still tested by older programs
#endif
#define __HIP_PLATFORM_KFDRT__ 1

#if defined(__clang__) && defined(__HIP__)
#define __HIP_CLANG_ONLY__ 1
#ifndef __HIPCC__
#define __HIPCC__ 1
#endif
#if defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__
#define __HIP_DEVICE_COMPILE_ACTIVE__ 1
#endif
#endif

// A plain C/C++ compiler (gcc building host code) sees the HIP attributes as nothing.
#ifndef __HIP__
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#endif

#if defined(__cplusplus) && __cplusplus >= 201703L
#define __HIP_NODISCARD [[nodiscard]]
#else
#define __HIP_NODISCARD
#endif

#ifdef __cplusplus
#define __HIP_DEFAULT(v) = v
#else
#define __HIP_DEFAULT(v)
#endif

#define HIPRT_CB
#define __HIP_API_EXPORT __attribute__((visibility("default")))
