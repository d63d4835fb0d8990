// SPDX-License-Identifier: MIT
// Test kernel: a workgroup sum in static LDS with barriers (group_segment_fixed_size > 0).
#include "kernel_test.h"

extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(1, 256)))
lds_reduce(const int* in, int* out) {
  __shared__ int tile[256];
  unsigned t = KT_TID_X;
  tile[t] = in[KT_GID_X];
  kt_syncthreads();
  for (unsigned s = KT_BDIM_X / 2; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    kt_syncthreads();
  }
  if (t == 0) out[KT_BID_X] = tile[0];
}
