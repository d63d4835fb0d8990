// SPDX-License-Identifier: MIT
// ROCm's HIP on two GPUs: peer access both ways, peer copies (sync and async) and a kernel on one
// GPU reading the other's memory, each result checked. Skipped (exit 77) with fewer than two GPUs.
#include <hip/hip_runtime.h>

#include <vector>

#include "rocm_stack.h"

__global__ void add_from_peer(const int* peer, int* out, int k, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = peer[i] + k;
}

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  if (count < 2) {
    std::printf("SKIP: %d GPU(s); the peer test needs two\n", count);
    return 77;
  }
  rocm_stack::expect_rocm_runtime();
  int can01 = 0, can10 = 0;
  CHECK_HIP(hipDeviceCanAccessPeer(&can01, 0, 1));
  CHECK_HIP(hipDeviceCanAccessPeer(&can10, 1, 0));
  if (!CHECK(can01 == 1 && can10 == 1)) return check::summary();
  CHECK_HIP(hipSetDevice(0));
  CHECK_HIP(hipDeviceEnablePeerAccess(1, 0));
  CHECK_HIP(hipSetDevice(1));
  CHECK_HIP(hipDeviceEnablePeerAccess(0, 0));

  const size_t n = 3 << 18;
  std::vector<int> h(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) h[i] = int(i * 2654435761u);
  int *d0, *d1, *d1b;
  CHECK_HIP(hipSetDevice(0));
  CHECK_HIP(hipMalloc(&d0, n * sizeof(int)));
  CHECK_HIP(hipMemcpy(d0, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
  CHECK_HIP(hipSetDevice(1));
  CHECK_HIP(hipMalloc(&d1, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&d1b, n * sizeof(int)));

  // GPU 0 -> GPU 1, then back to the host from GPU 1.
  CHECK_HIP(hipMemcpyPeer(d1, 1, d0, 0, n * sizeof(int)));
  CHECK_HIP(hipMemcpy(back.data(), d1, n * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(back == h);

  // A kernel on GPU 1 reading GPU 0's memory through peer access.
  hipLaunchKernelGGL(add_from_peer, dim3(n / 256), dim3(256), 0, 0, d0, d1b, 5, n);
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(back.data(), d1b, n * sizeof(int), hipMemcpyDeviceToHost));
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok &= back[i] == h[i] + 5;
  CHECK(ok);

  // GPU 1 -> GPU 0 on a stream of GPU 1, and a cross-device hipMemcpyDefault.
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipMemcpyPeerAsync(d0, 0, d1b, 1, n * sizeof(int), s));
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK_HIP(hipMemcpy(d1, d0, n * sizeof(int), hipMemcpyDefault));
  CHECK_HIP(hipMemcpy(back.data(), d1, n * sizeof(int), hipMemcpyDeviceToHost));
  ok = true;
  for (size_t i = 0; i < n; ++i) ok &= back[i] == h[i] + 5;
  CHECK(ok);
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d1));
  CHECK_HIP(hipFree(d1b));
  CHECK_HIP(hipSetDevice(0));
  CHECK_HIP(hipFree(d0));
  return check::summary();
}
