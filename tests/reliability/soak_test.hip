// SPDX-License-Identifier: MIT
// A bounded soak: threads on every GPU run random mixes of kernels, copies (host<->device, device
// to device, across GPUs), memsets, events (cross-stream and cross-GPU waits) and host callbacks
// on their own streams, with random sizes, and check every result against a host model.
// KFDRT_SOAK_SECONDS (default 3) sets the length, KFDRT_SOAK_THREADS (default 4) the threads,
// KFDRT_SOAK_TRACE=1 prints every operation.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

__global__ void affine(int* p, int n, int mul, int add) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = p[i] * mul + add;
}

int env_int(const char* name, int dflt) {
  const char* e = std::getenv(name);
  return e && std::atoi(e) > 0 ? std::atoi(e) : dflt;
}

struct Totals {
  std::atomic<long> ops{0}, kernels{0}, copies{0}, callbacks{0}, checks{0};
};

void on_callback(hipStream_t, hipError_t status, void* data) {
  if (status == hipSuccess) static_cast<std::atomic<long>*>(data)->fetch_add(1);
}

#define SOAK_HIP(e)                                                                     \
  do {                                                                                  \
    hipError_t soak_e_ = (e);                                                           \
    if (soak_e_ != hipSuccess) return std::string(#e) + ": " + hipGetErrorName(soak_e_); \
  } while (0)

// One worker: a buffer on its GPU and one on the next (peer), a host model of both, random ops.
// Returns "" or what went wrong (the first mismatch names the op, index and values).
std::string worker(int id, int gpus, std::chrono::steady_clock::time_point end, Totals& t) {
  std::mt19937 rng(1234u + unsigned(id));
  const int dev = id % gpus, peer = (id + 1) % gpus;
  const int max_n = 1 << 18;
  SOAK_HIP(hipSetDevice(dev));
  hipStream_t s, ps;
  int *a = nullptr, *b = nullptr;
  SOAK_HIP(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  SOAK_HIP(hipMalloc(&a, max_n * sizeof(int)));
  SOAK_HIP(hipSetDevice(peer));
  SOAK_HIP(hipStreamCreateWithFlags(&ps, hipStreamNonBlocking));
  SOAK_HIP(hipMalloc(&b, max_n * sizeof(int)));
  SOAK_HIP(hipSetDevice(dev));
  std::vector<int> ma(max_n, 0), mb(max_n, 0), host(max_n);
  int* pinned = nullptr;
  SOAK_HIP(hipHostMalloc(&pinned, max_n * sizeof(int), hipHostMallocDefault));
  SOAK_HIP(hipMemsetAsync(a, 0, max_n * sizeof(int), s));
  SOAK_HIP(hipMemsetAsync(b, 0, max_n * sizeof(int), ps));
  SOAK_HIP(hipStreamSynchronize(ps));
  std::atomic<long> cbs{0};
  long cbs_expected = 0;
  const bool trace = std::getenv("KFDRT_SOAK_TRACE") != nullptr;  // each op on stderr
  while (std::chrono::steady_clock::now() < end) {
    const int n = 1 + int(rng() % max_n);
    const int op = int(rng() % 7);
    if (trace) std::fprintf(stderr, "soak %d: op %d n %d\n", id, op, n);
    switch (op) {
      case 0: case 1: {  // kernel on a
        const int mul = 1 + int(rng() % 3), add = int(rng() % 100);
        affine<<<1 + int(rng() % 64), 64 << (rng() % 3), 0, s>>>(a, n, mul, add);
        SOAK_HIP(hipGetLastError());
        for (int i = 0; i < n; ++i) ma[i] = ma[i] * mul + add;
        t.kernels++;
        break;
      }
      case 2: {  // host -> a (pageable or pinned)
        for (int i = 0; i < n; ++i) host[i] = int(rng());
        const int* src = host.data();
        if (rng() % 2) {
          SOAK_HIP(hipStreamSynchronize(s));  // pinned buffer reused: the last copy out of it is done
          std::copy(host.begin(), host.begin() + n, pinned);
          src = pinned;
        }
        SOAK_HIP(hipMemcpyAsync(a, src, n * sizeof(int), hipMemcpyHostToDevice, s));
        if (src == host.data()) SOAK_HIP(hipStreamSynchronize(s));  // pageable source reused next op
        std::copy(host.begin(), host.begin() + n, ma.begin());
        t.copies++;
        break;
      }
      case 3: {  // a -> b on the peer GPU, ordered by an event; then a kernel there
        // Results consumed by another device need a system-scope release: hipStreamWaitEvent
        // carries no fence (tests/hip/visibility_test.hip), hipEventReleaseToSystem asks for it.
        hipEvent_t e;
        SOAK_HIP(hipEventCreateWithFlags(&e, hipEventDisableTiming | hipEventReleaseToSystem));
        SOAK_HIP(hipEventRecord(e, s));
        SOAK_HIP(hipStreamWaitEvent(ps, e, 0));
        SOAK_HIP(hipMemcpyAsync(b, a, n * sizeof(int), hipMemcpyDeviceToDevice, ps));
        SOAK_HIP(hipSetDevice(peer));
        affine<<<8, 64, 0, ps>>>(b, n, 1, 1);
        SOAK_HIP(hipGetLastError());
        hipEvent_t back;  // a's next writer waits for the copy out of it (an event of the peer)
        SOAK_HIP(hipEventCreateWithFlags(&back, hipEventDisableTiming));
        SOAK_HIP(hipEventRecord(back, ps));
        SOAK_HIP(hipSetDevice(dev));
        SOAK_HIP(hipStreamWaitEvent(s, back, 0));
        SOAK_HIP(hipEventDestroy(back));
        SOAK_HIP(hipEventDestroy(e));
        for (int i = 0; i < n; ++i) mb[i] = ma[i] + 1;
        t.copies++;
        t.kernels++;
        break;
      }
      case 4: {  // b -> a back, ordered by an event on the peer stream
        hipEvent_t e;
        SOAK_HIP(hipSetDevice(peer));
        SOAK_HIP(hipEventCreateWithFlags(&e, hipEventReleaseToSystem));
        SOAK_HIP(hipEventRecord(e, ps));
        SOAK_HIP(hipSetDevice(dev));
        SOAK_HIP(hipStreamWaitEvent(s, e, 0));
        SOAK_HIP(hipMemcpyAsync(a, b, n * sizeof(int), hipMemcpyDeviceToDevice, s));
        SOAK_HIP(hipEventDestroy(e));
        std::copy(mb.begin(), mb.begin() + n, ma.begin());
        t.copies++;
        break;
      }
      case 5: {  // memset and a callback
        const int v = int(rng() % 256);
        SOAK_HIP(hipMemsetAsync(a, v, n * sizeof(int), s));
        for (int i = 0; i < n; ++i) ma[i] = v * 0x01010101;
        SOAK_HIP(hipStreamAddCallback(s, on_callback, &cbs, 0));
        ++cbs_expected;
        break;
      }
      case 6: {  // check a and b against the model
        SOAK_HIP(hipMemcpyAsync(host.data(), a, max_n * sizeof(int), hipMemcpyDeviceToHost, s));
        SOAK_HIP(hipStreamSynchronize(s));
        for (int i = 0; i < max_n; ++i)
          if (host[i] != ma[i])
            return "a[" + std::to_string(i) + "] = " + std::to_string(host[i]) + ", want " + std::to_string(ma[i]);
        SOAK_HIP(hipSetDevice(peer));
        SOAK_HIP(hipMemcpy(host.data(), b, max_n * sizeof(int), hipMemcpyDeviceToHost));
        SOAK_HIP(hipSetDevice(dev));
        for (int i = 0; i < max_n; ++i)
          if (host[i] != mb[i])
            return "b[" + std::to_string(i) + "] = " + std::to_string(host[i]) + ", want " + std::to_string(mb[i]);
        t.checks++;
        break;
      }
    }
    t.ops++;
  }
  SOAK_HIP(hipStreamSynchronize(s));
  SOAK_HIP(hipStreamSynchronize(ps));
  SOAK_HIP(hipMemcpy(host.data(), a, max_n * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < max_n; ++i)
    if (host[i] != ma[i]) return "final a[" + std::to_string(i) + "] = " + std::to_string(host[i]);
  t.checks++;
  if (cbs.load() != cbs_expected)
    return "callbacks: " + std::to_string(cbs.load()) + " of " + std::to_string(cbs_expected);
  t.callbacks += cbs_expected;
  SOAK_HIP(hipStreamDestroy(s));
  SOAK_HIP(hipStreamDestroy(ps));
  SOAK_HIP(hipFree(a));
  SOAK_HIP(hipFree(b));
  SOAK_HIP(hipHostFree(pinned));
  return "";
}

TEST(Soak, MixedWorkOnEveryGpuFromManyThreads) {
  int gpus = 0;
  ASSERT_EQ(hipGetDeviceCount(&gpus), hipSuccess);
  ASSERT_GE(gpus, 1);
  for (int d = 0; d < gpus; ++d)
    for (int p = 0; p < gpus; ++p)
      if (d != p) {
        ASSERT_EQ(hipSetDevice(d), hipSuccess);
        hipError_t e = hipDeviceEnablePeerAccess(p, 0);
        ASSERT_TRUE(e == hipSuccess || e == hipErrorPeerAccessAlreadyEnabled) << hipGetErrorName(e);
      }
  const int secs = env_int("KFDRT_SOAK_SECONDS", 3), threads = env_int("KFDRT_SOAK_THREADS", 4);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(secs);
  Totals t;
  std::vector<std::string> errors(threads);
  std::vector<std::thread> ts;
  for (int i = 0; i < threads; ++i) ts.emplace_back([&, i] { errors[i] = worker(i, gpus, end, t); });
  for (auto& th : ts) th.join();
  for (int i = 0; i < threads; ++i) EXPECT_EQ(errors[i], "") << "thread " << i;
  std::printf("soak: %d s, %d threads, %d GPUs: %ld ops (%ld kernels, %ld copies, %ld callbacks, %ld checks)\n",
              secs, threads, gpus, t.ops.load(), t.kernels.load(), t.copies.load(), t.callbacks.load(),
              t.checks.load());
  EXPECT_GT(t.checks.load(), threads);  // every thread checked at least at its end
}

}  // namespace
