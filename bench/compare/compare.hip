// SPDX-License-Identifier: MIT
// Host-side HIP figures measured the same way against any HIP runtime (built with kfdcc and hipcc).
//
// compare            one line per figure: "<name> <median ns> <p99 ns> <samples>"
// compare --only G   one group of figures (launch, copy, event, stream, memcpy), for profiling
// compare --first    runs one empty kernel and prints ns since KFDRT_BENCH_T0 (CLOCK_MONOTONIC
//                    ns taken by the parent just before it started this process)
// Each sample times one operation (or the mean of a small batch where one operation is too short
// for the clock, said per figure); the device is the first HIP device.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

__global__ void empty_kernel() {}

namespace {

long long now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

// Stops the program with the failing call's text and HIP's error name.
void check(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  std::fprintf(stderr, "compare: %s failed: %s\n", what, hipGetErrorName(e));
  std::exit(1);
}
#define CHECK(expr) check((expr), #expr)

void report(const char* name, std::vector<double>& ns) {
  std::sort(ns.begin(), ns.end());
  const double med = ns[ns.size() / 2];
  const double p99 = ns[std::min(ns.size() - 1, ns.size() * 99 / 100)];
  std::printf("%s %.1f %.1f %zu\n", name, med, p99, ns.size());
  std::fflush(stdout);
}

// Host time of an asynchronous launch: batches of 16 launches timed together (the stream is
// drained between batches, outside the timed region).
void launch_async(hipStream_t s) {
  constexpr int kBatch = 16;
  std::vector<double> ns;
  for (int rep = 0; rep < 400; ++rep) {
    long long t0 = now_ns();
    for (int i = 0; i < kBatch; ++i) hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, s);
    long long t1 = now_ns();
    CHECK(hipStreamSynchronize(s));
    if (rep >= 20) ns.push_back(double(t1 - t0) / kBatch);
  }
  CHECK(hipGetLastError());
  report("launch_async", ns);
}

// One empty kernel launched and waited for (hipStreamSynchronize).
void launch_sync(hipStream_t s) {
  std::vector<double> ns;
  for (int rep = 0; rep < 2100; ++rep) {
    long long t0 = now_ns();
    hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, s);
    CHECK(hipStreamSynchronize(s));
    long long t1 = now_ns();
    if (rep >= 100) ns.push_back(double(t1 - t0));
  }
  report("launch_sync", ns);
}

// hipMemcpy of `bytes` from (h2d) or to a pinned or pageable host buffer; one copy per sample.
void memcpy_figure(size_t bytes, bool pinned, bool h2d) {
  void* dev = nullptr;
  CHECK(hipMalloc(&dev, bytes));
  void* host = nullptr;
  std::vector<char> pageable;
  if (pinned) {
    CHECK(hipHostMalloc(&host, bytes));
  } else {
    pageable.resize(bytes);
    host = pageable.data();
  }
  std::memset(host, 1, bytes);
  CHECK(hipMemset(dev, 2, bytes));
  CHECK(hipDeviceSynchronize());
  const int reps = bytes >= (64u << 20) ? 12 : bytes >= (1u << 20) ? 100 : 1000;
  std::vector<double> ns;
  for (int rep = 0; rep < reps; ++rep) {
    long long t0 = now_ns();
    if (h2d) CHECK(hipMemcpy(dev, host, bytes, hipMemcpyHostToDevice));
    else CHECK(hipMemcpy(host, dev, bytes, hipMemcpyDeviceToHost));
    long long t1 = now_ns();
    if (rep >= reps / 10) ns.push_back(double(t1 - t0));
  }
  const char* size = bytes == 4096 ? "4K" : bytes == (1u << 20) ? "1M" : "64M";
  std::string name = std::string("memcpy_") + (h2d ? "h2d_" : "d2h_") + (pinned ? "pinned_" : "pageable_") + size;
  report(name.c_str(), ns);
  if (pinned) CHECK(hipHostFree(host));
  CHECK(hipFree(dev));
}

// Host cost of hipMemcpyAsync (4 KiB, pinned host to device): batches of 16 timed together.
void memcpy_async(hipStream_t s) {
  constexpr size_t kBytes = 4096;
  constexpr int kBatch = 16;
  void* dev = nullptr;
  void* host = nullptr;
  CHECK(hipMalloc(&dev, kBytes * kBatch));
  CHECK(hipHostMalloc(&host, kBytes * kBatch));
  std::memset(host, 1, kBytes * kBatch);
  std::vector<double> ns;
  for (int rep = 0; rep < 300; ++rep) {
    long long t0 = now_ns();
    for (int i = 0; i < kBatch; ++i)
      CHECK(hipMemcpyAsync(static_cast<char*>(dev) + i * kBytes, static_cast<char*>(host) + i * kBytes, kBytes,
                           hipMemcpyHostToDevice, s));
    long long t1 = now_ns();
    CHECK(hipStreamSynchronize(s));
    if (rep >= 20) ns.push_back(double(t1 - t0) / kBatch);
  }
  report("memcpy_async_4K", ns);
  CHECK(hipHostFree(host));
  CHECK(hipFree(dev));
}

// hipEventRecord on an idle stream followed by hipEventQuery until it reports completion.
void event_record_query(hipStream_t s) {
  hipEvent_t ev;
  CHECK(hipEventCreate(&ev));
  std::vector<double> ns;
  for (int rep = 0; rep < 2100; ++rep) {
    long long t0 = now_ns();
    CHECK(hipEventRecord(ev, s));
    hipError_t q;
    while ((q = hipEventQuery(ev)) == hipErrorNotReady) {}
    check(q, "hipEventQuery(ev)");
    long long t1 = now_ns();
    if (rep >= 100) ns.push_back(double(t1 - t0));
  }
  report("event_record_query", ns);
  CHECK(hipEventDestroy(ev));
}

// hipStreamCreate followed by hipStreamDestroy.
void stream_create_destroy() {
  std::vector<double> ns;
  for (int rep = 0; rep < 110; ++rep) {
    hipStream_t s;
    long long t0 = now_ns();
    CHECK(hipStreamCreate(&s));
    CHECK(hipStreamDestroy(s));
    long long t1 = now_ns();
    if (rep >= 10) ns.push_back(double(t1 - t0));
  }
  report("stream_create_destroy", ns);
}

int first_kernel() {
  hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, 0);
  CHECK(hipDeviceSynchronize());
  long long now = now_ns();
  const char* t0 = std::getenv("KFDRT_BENCH_T0");
  if (!t0) {
    std::fprintf(stderr, "compare --first: KFDRT_BENCH_T0 (the parent's CLOCK_MONOTONIC ns) is not set\n");
    return 1;
  }
  std::printf("first_kernel %lld\n", now - std::atoll(t0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--first") == 0) return first_kernel();
  // --only GROUP (launch, copy, event, stream, memcpy): one group of figures, for profiling.
  const char* only = argc > 2 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : nullptr;
  if (argc > 1 && !only) {
    std::fprintf(stderr, "usage: %s [--first | --only launch|copy|event|stream|memcpy]\n", argv[0]);
    return 2;
  }
  auto want = [&](const char* g) { return !only || std::strcmp(only, g) == 0; };
  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, s);  // warm up: code object, queue
  CHECK(hipStreamSynchronize(s));
  if (want("launch")) {
    launch_async(s);
    launch_sync(s);
  }
  if (want("copy")) memcpy_async(s);
  if (want("event")) event_record_query(s);
  if (want("stream")) stream_create_destroy();
  if (want("memcpy"))
    for (size_t bytes : {size_t{4096}, size_t{1} << 20, size_t{64} << 20})
      for (bool pinned : {true, false})
        for (bool h2d : {true, false}) memcpy_figure(bytes, pinned, h2d);
  CHECK(hipStreamDestroy(s));
  return 0;
}
