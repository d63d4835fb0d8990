// SPDX-License-Identifier: MIT
// ROCm's HIP on the device: kernels built at -O0 that need private (scratch) memory, which ROCm
// hands out on demand (its queues start without scratch; the first such dispatch asks for it).
#include <hip/hip_runtime.h>

#include <vector>

#include "rocm_stack.h"

// A private array indexed by data: lives in scratch at any optimisation level.
__global__ void private_table(const int* in, int* out, int n) {
  int t[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 64; ++k) t[k] = k * k + i;
  if (i < n) out[i] = t[in[i] & 63] + t[(in[i] >> 6) & 63];
}

__device__ int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

// Recursion: a call stack of unknown depth (the dynamic-stack case).
__global__ void recursive(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(i % 12);
}

static int host_fib(int k) { return k < 2 ? k : host_fib(k - 1) + host_fib(k - 2); }

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  if (!CHECK(count >= 1)) return check::summary();
  rocm_stack::expect_rocm_runtime();
  const int n = 4096;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 7;
  int *din, *dout;
  CHECK_HIP(hipMalloc(&din, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&dout, n * sizeof(int)));
  CHECK_HIP(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(private_table, dim3(n / 128), dim3(128), 0, 0, din, dout, n);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    int a = in[i] & 63, b = (in[i] >> 6) & 63;
    ok &= out[i] == a * a + i + b * b + i;
  }
  CHECK(ok);
  hipLaunchKernelGGL(recursive, dim3(n / 256), dim3(256), 0, 0, dout, n);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  ok = true;
  for (int i = 0; i < n; ++i) ok &= out[i] == host_fib(i % 12);
  CHECK(ok);
  CHECK_HIP(hipFree(din));
  CHECK_HIP(hipFree(dout));
  return check::summary();
}
