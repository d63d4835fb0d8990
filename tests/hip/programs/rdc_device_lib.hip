// SPDX-License-Identifier: MIT
// Device code for a static library built with -fgpu-rdc: functions and a table the kernels of
// rdc_main.hip, another translation unit, call and read.
#include <hip/hip_runtime.h>

__device__ int rdc_table[4] = {5, 7, 11, 13};

__device__ int rdc_weight(int i) { return rdc_table[i % 4] * i; }
