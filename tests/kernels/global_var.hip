// SPDX-License-Identifier: MIT
// Test kernels: __device__ and __constant__ globals, and a pointer initialised to another global
// (which the linker turns into a dynamic relocation the loader must apply).
#include "kernel_test.h"

__device__ int kt_counter;
__device__ float kt_buffer[64];
__constant__ int kt_table[8] = {1, 2, 3, 5, 8, 13, 21, 34};
__device__ int* kt_table_ptr = (int*)&kt_table[2];
__device__ float* kt_buffer_ptr = &kt_buffer[1];

extern "C" __global__ void bump(int* out) {
  int v = __hip_atomic_fetch_add(&kt_counter, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  out[KT_GID_X] = v + *kt_table_ptr + kt_table[KT_TID_X & 7];
  kt_buffer_ptr[KT_TID_X & 31] = 1.0f;
}
