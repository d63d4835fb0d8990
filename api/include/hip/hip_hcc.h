// SPDX-License-Identifier: MIT
// The old name of hip_ext.h, still included by programs written for hcc-era HIP.
#pragma once

#include "hip/hip_ext.h"
