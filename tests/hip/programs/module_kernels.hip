// SPDX-License-Identifier: MIT
// Kernels loaded at run time through the module API (built with kfdcc --genco).
#include <hip/hip_runtime.h>

__device__ int module_counter = 42;
__constant__ float module_table[4] = {1.0f, 2.0f, 3.0f, 4.0f};

extern "C" __global__ void fill(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}

extern "C" __global__ void add_counter(int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = module_counter + int(module_table[3]);
}
