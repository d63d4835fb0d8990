// SPDX-License-Identifier: MIT
// Demo: work split over streams, ordered with events, timed with hipEventElapsedTime, callbacks.
#include <hip/hip_runtime.h>

#include <atomic>
#include <vector>

#include "check.h"

__global__ void scale(float* x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}

__global__ void add_into(float* dst, const float* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i];
}

std::atomic<int> g_callbacks{0};
void on_done(hipStream_t, hipError_t status, void* user) {
  if (status == hipSuccess) g_callbacks += *static_cast<int*>(user);
}

int main() {
  const int n = 1 << 14, streams = 4, chunk = n / streams;
  size_t bytes = n * sizeof(float);
  float *host, *dx, *dy;
  CHECK_HIP(hipHostMalloc(&host, bytes));
  CHECK_HIP(hipMalloc(&dx, bytes));
  CHECK_HIP(hipMalloc(&dy, bytes));
  for (int i = 0; i < n; ++i) host[i] = float(i % 100);

  hipStream_t s[streams];
  hipEvent_t done[streams], start, stop;
  for (int k = 0; k < streams; ++k) {
    CHECK_HIP(hipStreamCreate(&s[k]));
    CHECK_HIP(hipEventCreateWithFlags(&done[k], hipEventDisableTiming));
  }
  CHECK_HIP(hipEventCreate(&start));
  CHECK_HIP(hipEventCreate(&stop));

  // Each stream copies its chunk in, scales it, and records an event.
  CHECK_HIP(hipEventRecord(start, s[0]));
  for (int k = 0; k < streams; ++k) {
    float* d = dx + k * chunk;
    CHECK_HIP(hipMemcpyAsync(d, host + k * chunk, chunk * sizeof(float), hipMemcpyHostToDevice, s[k]));
    scale<<<chunk / 256, 256, 0, s[k]>>>(d, 2.0f, chunk);
    CHECK_HIP(hipEventRecord(done[k], s[k]));
  }
  // Stream 0 waits for every chunk, then adds dx into dy (= dx) and copies back.
  CHECK_HIP(hipMemsetAsync(dy, 0, bytes, s[0]));
  for (int k = 1; k < streams; ++k) CHECK_HIP(hipStreamWaitEvent(s[0], done[k], 0));
  add_into<<<n / 256, 256, 0, s[0]>>>(dy, dx, n);
  int weight = 5;
  CHECK_HIP(hipStreamAddCallback(s[0], on_done, &weight, 0));
  CHECK_HIP(hipMemcpyAsync(host, dy, bytes, hipMemcpyDeviceToHost, s[0]));
  CHECK_HIP(hipEventRecord(stop, s[0]));
  CHECK_HIP(hipEventSynchronize(stop));
  CHECK_HIP(hipEventQuery(stop));

  int bad = 0;
  for (int i = 0; i < n; ++i) bad += host[i] != 2.0f * float(i % 100);
  CHECK(bad == 0);
  CHECK(g_callbacks.load() == 5);
  float ms = -1.0f;
  CHECK_HIP(hipEventElapsedTime(&ms, start, stop));
  std::printf("4 streams: %.3f ms between the start and stop events\n", ms);
  CHECK(ms >= 0.0f);
  CHECK_ERR(hipEventElapsedTime(&ms, done[0], stop), hipErrorInvalidHandle);  // DisableTiming

  for (int k = 0; k < streams; ++k) {
    CHECK_HIP(hipStreamSynchronize(s[k]));
    CHECK_HIP(hipStreamQuery(s[k]));
    CHECK_HIP(hipStreamDestroy(s[k]));
    CHECK_HIP(hipEventDestroy(done[k]));
  }
  CHECK_HIP(hipEventDestroy(start));
  CHECK_HIP(hipEventDestroy(stop));
  CHECK_HIP(hipHostFree(host));
  CHECK_HIP(hipFree(dx));
  CHECK_HIP(hipFree(dy));
  return check::summary();
}
