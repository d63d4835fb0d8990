// SPDX-License-Identifier: MIT
// Demo: vector addition with hipMalloc, hipMemcpy, a <<<>>> launch and hipLaunchKernelGGL.
#include <hip/hip_runtime.h>

#include <cmath>
#include <vector>

#include "check.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy(float alpha, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = alpha * x[i] + y[i];
}

int main() {
  const int n = 10000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = 2.0f * float(i) + 0.5f;
  }
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0));
  std::printf("device 0: %s (%s), %d CUs\n", prop.name, prop.gcnArchName, prop.multiProcessorCount);

  float *da, *db, *dc;
  CHECK_HIP(hipMalloc(&da, n * sizeof(float)));
  CHECK_HIP(hipMalloc(&db, n * sizeof(float)));
  CHECK_HIP(hipMalloc(&dc, n * sizeof(float)));
  CHECK_HIP(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));

  const int block = 256, grid = (n + block - 1) / block;
  vector_add<<<grid, block>>>(da, db, dc, n);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += c[i] != a[i] + b[i];
  CHECK(bad == 0);

  hipLaunchKernelGGL(saxpy, dim3(8), dim3(128), 0, 0, 2.0f, da, dc, n);
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < n; ++i) bad += std::fabs(c[i] - (3.0f * a[i] + b[i])) > 1e-3f;
  CHECK(bad == 0);

  CHECK_HIP(hipFree(da));
  CHECK_HIP(hipFree(db));
  CHECK_HIP(hipFree(dc));
  return check::summary();
}
