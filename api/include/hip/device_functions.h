// SPDX-License-Identifier: MIT
// ROCm's hip/device_functions.h: the kernels' device functions, which kfdrt's hip/hip_runtime.h provides.
#pragma once

// ROCm 5.2's header brings in the runtime API and the vector types with them; kfdrt's device
// functions (hip/kfdrt/device_functions.h, device_intrinsics.h) need hip_runtime.h's context.
#include "hip/hip_runtime.h"
