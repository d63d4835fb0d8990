// SPDX-License-Identifier: MIT
// Test kernels: element-wise vector addition and saxpy (global buffers, by-value scalars).
#include "kernel_test.h"

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, unsigned n) {
  unsigned i = KT_GID_X;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(float alpha, const float* x, float* y, unsigned n) {
  unsigned i = KT_GID_X;
  if (i < n) y[i] = alpha * x[i] + y[i];
}
