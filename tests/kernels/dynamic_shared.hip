// SPDX-License-Identifier: MIT
// Test kernel: dynamic shared memory (extern __shared__ array sized at launch) plus a static one.
#include "kernel_test.h"

extern __shared__ float kt_dynamic[];

extern "C" __global__ void reverse_dynamic(float* data, unsigned n) {
  __shared__ unsigned count;
  unsigned t = KT_TID_X;
  if (t == 0) count = n;
  if (t < n) kt_dynamic[t] = data[t];
  kt_syncthreads();
  if (t < count) data[t] = kt_dynamic[count - 1 - t];
}
