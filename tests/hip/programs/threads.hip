// SPDX-License-Identifier: MIT
// Many host threads, each with its own stream, launching, copying and synchronising at once.
#include <hip/hip_runtime.h>

#include <thread>
#include <vector>

#include "check.h"

__global__ void bump(int* counter, int by) {
  if (threadIdx.x == 0) atomicAdd(counter, by);
}

int main() {
  const int threads = 8, launches = 200;
  std::vector<int> results(threads, -1), errors(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([t, &results, &errors] {
      hipStream_t s;
      int* counter = nullptr;
      errors[t] += hipStreamCreateWithFlags(&s, t % 2 ? hipStreamNonBlocking : hipStreamDefault) != hipSuccess;
      errors[t] += hipMalloc(&counter, sizeof(int)) != hipSuccess;
      errors[t] += hipMemsetAsync(counter, 0, sizeof(int), s) != hipSuccess;
      for (int i = 0; i < launches; ++i) {
        hipLaunchKernelGGL(bump, dim3(1), dim3(64), 0, s, counter, t + 1);
        if (i % 50 == 49) errors[t] += hipStreamSynchronize(s) != hipSuccess;
      }
      int h = 0;
      errors[t] += hipMemcpyAsync(&h, counter, sizeof h, hipMemcpyDeviceToHost, s) != hipSuccess;
      errors[t] += hipStreamSynchronize(s) != hipSuccess;
      results[t] = h;
      errors[t] += hipFree(counter) != hipSuccess;
      errors[t] += hipStreamDestroy(s) != hipSuccess;
    });
  }
  for (auto& th : pool) th.join();
  int good = 0, errs = 0;
  for (int t = 0; t < threads; ++t) {
    good += results[t] == launches * (t + 1);
    errs += errors[t];
  }
  std::printf("%d threads x %d launches: %d correct counters, %d API errors\n", threads, launches, good, errs);
  CHECK(good == threads);
  CHECK(errs == 0);
  CHECK_HIP(hipDeviceSynchronize());
  return check::summary();
}
