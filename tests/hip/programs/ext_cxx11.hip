// SPDX-License-Identifier: MIT
// hip/hip_ext.h compiled as C++11 (built with -std=c++11, as CMake projects with CXX_STANDARD 11
// build it): hipExtLaunchKernelGGL with events, with arguments and with none.
#include <hip/hip_ext.h>

#include "check.h"

static_assert(__cplusplus == 201103L, "this test must be built with -std=c++11");

__device__ int ext_flag;

__global__ void add_to(int* out, int value, short step) {
  out[threadIdx.x] = value + step * int(threadIdx.x);
}

__global__ void set_flag() { ext_flag = 7; }

int main() {
  int* d = nullptr;
  CHECK_HIP(hipMalloc(&d, 64 * sizeof(int)));
  hipEvent_t start, stop;
  CHECK_HIP(hipEventCreate(&start));
  CHECK_HIP(hipEventCreate(&stop));
  hipExtLaunchKernelGGL(add_to, dim3(1), dim3(64), 0, 0, start, stop, 0, d, 100, 2);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipEventSynchronize(stop));
  float ms = -1.0f;
  CHECK_HIP(hipEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0.0f);
  int h[64] = {};
  CHECK_HIP(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  CHECK(h[0] == 100 && h[63] == 100 + 2 * 63);
  hipExtLaunchKernelGGL(set_flag, dim3(1), dim3(1), 0, 0, nullptr, nullptr, 0);
  CHECK_HIP(hipDeviceSynchronize());
  int flag = 0;
  CHECK_HIP(hipMemcpyFromSymbol(&flag, HIP_SYMBOL(ext_flag), sizeof flag));
  CHECK(flag == 7);
  CHECK_HIP(hipEventDestroy(start));
  CHECK_HIP(hipEventDestroy(stop));
  CHECK_HIP(hipFree(d));
  return check::summary();
}
