// SPDX-License-Identifier: MIT
// ROCm's HIP on the device: streams, events, cross-stream waits and host callbacks, each checked.
#include <hip/hip_runtime.h>

#include <atomic>
#include <vector>

#include "rocm_stack.h"

__global__ void fill(int* p, int v, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void scale_add(const int* in, int* out, int k, int add, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k + add;
}

constexpr size_t kN = 1 << 18;
constexpr int kStreams = 4;

// Each stream copies in, computes and copies out on its own; events time the work.
static void independent_streams() {
  hipStream_t s[kStreams];
  hipEvent_t start[kStreams], stop[kStreams];
  int *host_in[kStreams], *host_out[kStreams], *din[kStreams], *dout[kStreams];
  for (int k = 0; k < kStreams; ++k) {
    CHECK_HIP(hipStreamCreateWithFlags(&s[k], hipStreamNonBlocking));
    CHECK_HIP(hipEventCreate(&start[k]));
    CHECK_HIP(hipEventCreate(&stop[k]));
    CHECK_HIP(hipHostMalloc(&host_in[k], kN * sizeof(int), hipHostMallocDefault));
    CHECK_HIP(hipHostMalloc(&host_out[k], kN * sizeof(int), hipHostMallocDefault));
    CHECK_HIP(hipMalloc(&din[k], kN * sizeof(int)));
    CHECK_HIP(hipMalloc(&dout[k], kN * sizeof(int)));
    for (size_t i = 0; i < kN; ++i) host_in[k][i] = int(i) + k;
  }
  for (int k = 0; k < kStreams; ++k) {
    CHECK_HIP(hipEventRecord(start[k], s[k]));
    CHECK_HIP(hipMemcpyAsync(din[k], host_in[k], kN * sizeof(int), hipMemcpyHostToDevice, s[k]));
    hipLaunchKernelGGL(scale_add, dim3(kN / 256), dim3(256), 0, s[k], din[k], dout[k], k + 2, k, kN);
    CHECK_HIP(hipMemcpyAsync(host_out[k], dout[k], kN * sizeof(int), hipMemcpyDeviceToHost, s[k]));
    CHECK_HIP(hipEventRecord(stop[k], s[k]));
  }
  for (int k = 0; k < kStreams; ++k) {
    CHECK_HIP(hipEventSynchronize(stop[k]));
    CHECK_HIP(hipEventQuery(stop[k]));
    float ms = -1;
    CHECK_HIP(hipEventElapsedTime(&ms, start[k], stop[k]));
    CHECK(ms >= 0.0f);
    bool ok = true;
    for (size_t i = 0; i < kN; ++i) ok &= host_out[k][i] == (int(i) + k) * (k + 2) + k;
    CHECK(ok);
    CHECK_HIP(hipStreamQuery(s[k]));
  }
  for (int k = 0; k < kStreams; ++k) {
    CHECK_HIP(hipStreamDestroy(s[k]));
    CHECK_HIP(hipEventDestroy(start[k]));
    CHECK_HIP(hipEventDestroy(stop[k]));
    CHECK_HIP(hipHostFree(host_in[k]));
    CHECK_HIP(hipHostFree(host_out[k]));
    CHECK_HIP(hipFree(din[k]));
    CHECK_HIP(hipFree(dout[k]));
  }
}

// Stream b waits for an event of stream a: b's kernel must see all of a's writes.
static void cross_stream_wait() {
  hipStream_t a, b;
  CHECK_HIP(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  hipEvent_t done;
  CHECK_HIP(hipEventCreateWithFlags(&done, hipEventDisableTiming));
  const size_t n = 1 << 22;
  int *x, *y;
  CHECK_HIP(hipMalloc(&x, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&y, n * sizeof(int)));
  for (int round = 1; round <= 3; ++round) {
    hipLaunchKernelGGL(fill, dim3(n / 256), dim3(256), 0, a, x, 7 * round, n);
    CHECK_HIP(hipEventRecord(done, a));
    CHECK_HIP(hipStreamWaitEvent(b, done, 0));
    hipLaunchKernelGGL(scale_add, dim3(n / 256), dim3(256), 0, b, x, y, 1, 1, n);
    CHECK_HIP(hipStreamSynchronize(b));
    std::vector<int> h(n);
    CHECK_HIP(hipMemcpy(h.data(), y, n * sizeof(int), hipMemcpyDeviceToHost));
    bool ok = true;
    for (size_t i = 0; i < n; ++i) ok &= h[i] == 7 * round + 1;
    CHECK(ok);
  }
  CHECK_HIP(hipEventDestroy(done));
  CHECK_HIP(hipStreamDestroy(a));
  CHECK_HIP(hipStreamDestroy(b));
  CHECK_HIP(hipFree(x));
  CHECK_HIP(hipFree(y));
}

static std::atomic<int> g_callbacks{0};

static void on_done(hipStream_t, hipError_t status, void* data) {
  if (status == hipSuccess) g_callbacks.fetch_add(*static_cast<int*>(data));
}

// Host callbacks run after the work before them, in stream order.
static void callbacks() {
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  int* d;
  CHECK_HIP(hipMalloc(&d, kN * sizeof(int)));
  int one = 1, ten = 10;
  hipLaunchKernelGGL(fill, dim3(kN / 256), dim3(256), 0, s, d, 3, kN);
  CHECK_HIP(hipStreamAddCallback(s, on_done, &one, 0));
  hipLaunchKernelGGL(fill, dim3(kN / 256), dim3(256), 0, s, d, 4, kN);
  CHECK_HIP(hipStreamAddCallback(s, on_done, &ten, 0));
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK_HIP(hipDeviceSynchronize());
  CHECK(g_callbacks.load() == 11);
  int last = 0;
  CHECK_HIP(hipMemcpy(&last, d + kN - 1, sizeof last, hipMemcpyDeviceToHost));
  CHECK(last == 4);
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipStreamDestroy(s));
}

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  if (!CHECK(count >= 1)) return check::summary();
  rocm_stack::expect_rocm_runtime();
  independent_streams();
  cross_stream_wait();
  callbacks();
  return check::summary();
}
