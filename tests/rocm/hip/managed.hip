// SPDX-License-Identifier: MIT
// ROCm's HIP managed memory on the device (ROCm's HMM path: the KFD SVM ioctl): host and kernels
// share one allocation; advice, prefetches both ways and range attributes; each result checked.
#include <hip/hip_runtime.h>

#include <vector>

#include "rocm_stack.h"

__global__ void scale_in_place(int* p, int k, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * k + 1;
}

__managed__ int g_counter[4];

__global__ void bump_counter() { atomicAdd(&g_counter[threadIdx.x % 4], 1); }

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  if (!CHECK(count >= 1)) return check::summary();
  rocm_stack::expect_rocm_runtime();
  int managed = 0;
  CHECK_HIP(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 0));
  CHECK(managed == 1);

  const size_t n = (1 << 20) + 77;  // not a whole number of pages
  int* p = nullptr;
  if (!CHECK_HIP(hipMallocManaged(&p, n * sizeof(int)))) return check::summary();
  for (size_t i = 0; i < n; ++i) p[i] = int(i % 1000);
  hipLaunchKernelGGL(scale_in_place, dim3((n + 255) / 256), dim3(256), 0, 0, p, 3, n);
  CHECK_HIP(hipDeviceSynchronize());
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok &= p[i] == int(i % 1000) * 3 + 1;
  CHECK(ok);

  // Advice and prefetches: the data stays where the program put it.
  CHECK_HIP(hipMemAdvise(p, n * sizeof(int), hipMemAdviseSetPreferredLocation, 0));
  int loc = -7;
  CHECK_HIP(hipMemRangeGetAttribute(&loc, sizeof loc, hipMemRangeAttributePreferredLocation, p,
                                    n * sizeof(int)));
  CHECK(loc == 0);
  CHECK_HIP(hipMemAdvise(p, n * sizeof(int), hipMemAdviseSetReadMostly, 0));
  int read_mostly = 0;
  CHECK_HIP(hipMemRangeGetAttribute(&read_mostly, sizeof read_mostly, hipMemRangeAttributeReadMostly, p,
                                    n * sizeof(int)));
  CHECK(read_mostly == 1);
  CHECK_HIP(hipMemAdvise(p, n * sizeof(int), hipMemAdviseUnsetReadMostly, 0));
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipMemPrefetchAsync(p, n * sizeof(int), 0, s));
  hipLaunchKernelGGL(scale_in_place, dim3((n + 255) / 256), dim3(256), 0, s, p, 2, n);
  CHECK_HIP(hipMemPrefetchAsync(p, n * sizeof(int), hipCpuDeviceId, s));
  CHECK_HIP(hipStreamSynchronize(s));
  ok = true;
  for (size_t i = 0; i < n; ++i) ok &= p[i] == (int(i % 1000) * 3 + 1) * 2 + 1;
  CHECK(ok);
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(p));

  // A second allocation after the first is gone, and a __managed__ variable.
  int* q = nullptr;
  CHECK_HIP(hipMallocManaged(&q, 4096 * 3));
  for (int i = 0; i < 3072; ++i) q[i] = -i;
  hipLaunchKernelGGL(scale_in_place, dim3(12), dim3(256), 0, 0, q, -1, size_t(3072));
  CHECK_HIP(hipDeviceSynchronize());
  ok = true;
  for (int i = 0; i < 3072; ++i) ok &= q[i] == i + 1;
  CHECK(ok);
  CHECK_HIP(hipFree(q));
  for (int& c : g_counter) c = 10;
  hipLaunchKernelGGL(bump_counter, dim3(3), dim3(128), 0, 0);
  CHECK_HIP(hipDeviceSynchronize());
  CHECK(g_counter[0] == 10 + 96 && g_counter[3] == 10 + 96);
  return check::summary();
}
