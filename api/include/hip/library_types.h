// SPDX-License-Identifier: MIT
// hipDataType and hipLibraryPropertyType, the types HIP's math libraries' APIs share (ROCm 5.2 values).
#pragma once

#include "hip/kfdrt/hip_common.h"

// The values are ROCm 5.2's hip/library_types.h (the ABI of libraries built against it).
typedef enum hipDataType {
  HIP_R_16F = 2,
  HIP_R_32F = 0,
  HIP_R_64F = 1,
  HIP_C_16F = 6,
  HIP_C_32F = 4,
  HIP_C_64F = 5
} hipDataType;

typedef enum hipLibraryPropertyType {
  HIP_LIBRARY_MAJOR_VERSION = 0,
  HIP_LIBRARY_MINOR_VERSION = 1,
  HIP_LIBRARY_PATCH_LEVEL = 2
} hipLibraryPropertyType;
