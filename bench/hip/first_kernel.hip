// SPDX-License-Identifier: MIT
// Process start to first kernel completed: runs one empty kernel, prints the time since exec.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

__global__ void empty_kernel() {}

int main() {
  empty_kernel<<<1, 64>>>();
  hipError_t e = hipDeviceSynchronize();
  // KFDRT_BENCH_T0: CLOCK_MONOTONIC ns just before the parent exec'd us.
  if (const char* t0 = std::getenv("KFDRT_BENCH_T0")) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now = ts.tv_sec * 1000000000ll + ts.tv_nsec;
    std::printf("%lld\n", now - std::atoll(t0));
  }
  return e == hipSuccess ? 0 : 1;
}
