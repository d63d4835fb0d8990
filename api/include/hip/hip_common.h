// SPDX-License-Identifier: MIT
// ROCm's hip/hip_common.h: the platform macros and attribute fallbacks (kfdrt's hip/kfdrt/hip_common.h).
#pragma once

#include "hip/kfdrt/hip_common.h"
