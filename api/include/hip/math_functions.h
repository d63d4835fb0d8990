// SPDX-License-Identifier: MIT
// ROCm's hip/math_functions.h: the device math functions, which kfdrt's hip/hip_runtime.h provides.
#pragma once

// ROCm 5.2's header ends up including its hip_runtime.h as well.
#include "hip/hip_runtime.h"
