// SPDX-License-Identifier: MIT
// A known program for the trace tests: kernels on two streams, an event dependency, copies, a callback.
#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hc/detail/kfdrt_ext.h"
#include "check.h"

__global__ void trace_scale(float* x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}

__global__ void trace_add(float* dst, const float* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i];
}

std::atomic<int> g_callbacks{0};
void on_done(hipStream_t, hipError_t status, void*) {
  if (status == hipSuccess) ++g_callbacks;
}

// argv[1] (optional): record through kfdrtTraceStart/Stop into this path instead of KFDRT_TRACE.
int main(int argc, char** argv) {
  if (argc > 1) CHECK_HIP(kfdrtTraceStart(argv[1]));
  const int n = 1 << 12, block = 256;
  const int kScale = 3, kAdd = 2;  // launches per kernel (the test reads these counts)
  size_t bytes = n * sizeof(float);
  float *host, *dx, *dy;
  CHECK_HIP(hipHostMalloc(&host, bytes));
  CHECK_HIP(hipMalloc(&dx, bytes));
  CHECK_HIP(hipMalloc(&dy, bytes));
  for (int i = 0; i < n; ++i) host[i] = 1.0f;
  hipStream_t s1, s2;
  CHECK_HIP(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  hipEvent_t ev;
  CHECK_HIP(hipEventCreate(&ev));

  CHECK_HIP(hipMemcpyAsync(dx, host, bytes, hipMemcpyHostToDevice, s1));
  CHECK_HIP(hipMemcpyAsync(dy, host, bytes, hipMemcpyHostToDevice, s2));
  for (int k = 0; k < kScale; ++k) trace_scale<<<n / block, block, 0, s1>>>(dx, 2.0f, n);
  CHECK_HIP(hipEventRecord(ev, s1));
  CHECK_HIP(hipStreamWaitEvent(s2, ev, 0));  // s2's kernels read dx after s1's kernels
  for (int k = 0; k < kAdd; ++k) trace_add<<<n / block, block, 0, s2>>>(dy, dx, n);
  CHECK_HIP(hipMemcpyAsync(host, dy, bytes, hipMemcpyDeviceToHost, s2));
  CHECK_HIP(hipStreamAddCallback(s2, on_done, nullptr, 0));
  CHECK_HIP(hipDeviceSynchronize());

  // dy = 1 + 2 * 8 (two adds of dx = 8)
  bool ok = true;
  for (int i = 0; i < n; ++i) ok &= host[i] == 17.0f;
  CHECK(ok);
  CHECK(g_callbacks.load() == 1);
  std::printf("launches trace_scale=%d trace_add=%d\n", kScale, kAdd);
  CHECK_HIP(hipEventDestroy(ev));
  CHECK_HIP(hipStreamDestroy(s1));
  CHECK_HIP(hipStreamDestroy(s2));
  CHECK_HIP(hipFree(dx));
  CHECK_HIP(hipFree(dy));
  CHECK_HIP(hipHostFree(host));
  if (argc > 1) CHECK_HIP(kfdrtTraceStop());
  return ::check::summary();
}
