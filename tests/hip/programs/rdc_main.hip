// SPDX-License-Identifier: MIT
// A kernel calling a device function that lives in a static library (rdc_device_lib.hip, built
// with -fgpu-rdc): the device code of both translation units is linked together.
#include "check.h"

extern __device__ int rdc_table[4];
__device__ int rdc_weight(int i);

__global__ void weigh(int* out) {
  int i = int(threadIdx.x);
  out[i] = rdc_weight(i) + rdc_table[0];
}

int main() {
  int* d = nullptr;
  CHECK_HIP(hipMalloc(&d, 64 * sizeof(int)));
  hipLaunchKernelGGL(weigh, dim3(1), dim3(64), 0, 0, d);
  CHECK_HIP(hipGetLastError());
  int h[64] = {};
  CHECK_HIP(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  const int table[4] = {5, 7, 11, 13};
  int bad = 0;
  for (int i = 0; i < 64; ++i) bad += h[i] != table[i % 4] * i + 5;
  CHECK(bad == 0);
  CHECK_HIP(hipFree(d));
  return check::summary();
}
