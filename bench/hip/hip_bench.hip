// SPDX-License-Identifier: MIT
// HIP runtime benchmarks: launch host cost (tracing off and on), launch+sync round trip, hipMemcpy bandwidth against
// memcpy (pinned and pageable), and process start to first kernel completed.
#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hc/detail/kfdrt_ext.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

extern char** environ;

__global__ void empty_kernel() {}

// A kernel with the arguments of a vector add and the hidden arguments its index needs.
__global__ void axpy_kernel(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

#define BENCH_HIP(expr)                                                    \
  do {                                                                     \
    if ((expr) != hipSuccess) {                                            \
      state.SkipWithError(#expr " failed");                                \
      return;                                                              \
    }                                                                      \
  } while (0)

// Host time of one asynchronous launch (the queue is drained outside the timed region).
void BM_LaunchAsync(benchmark::State& state) {
  hipStream_t s;
  BENCH_HIP(hipStreamCreate(&s));
  int n = 0;
  for (auto _ : state) {
    hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, s);
    if (++n % 256 == 0) {
      state.PauseTiming();
      BENCH_HIP(hipStreamSynchronize(s));
      state.ResumeTiming();
    }
  }
  BENCH_HIP(hipStreamSynchronize(s));
  BENCH_HIP(hipStreamDestroy(s));
}
BENCHMARK(BM_LaunchAsync)->UseRealTime();

// BM_LaunchAsync for a kernel with arguments: four explicit ones and a block of hidden ones (the
// grid and block sizes its index reads), written into the argument slot of every launch.
void BM_LaunchAsyncArgs(benchmark::State& state) {
  hipStream_t s;
  BENCH_HIP(hipStreamCreate(&s));
  float *x, *y;
  BENCH_HIP(hipMalloc(&x, 64 * sizeof(float)));
  BENCH_HIP(hipMalloc(&y, 64 * sizeof(float)));
  int n = 0;
  for (auto _ : state) {
    hipLaunchKernelGGL(axpy_kernel, dim3(1), dim3(64), 0, s, 2.0f, x, y, 64);
    if (++n % 256 == 0) {
      state.PauseTiming();
      BENCH_HIP(hipStreamSynchronize(s));
      state.ResumeTiming();
    }
  }
  BENCH_HIP(hipStreamSynchronize(s));
  BENCH_HIP(hipFree(x));
  BENCH_HIP(hipFree(y));
  BENCH_HIP(hipStreamDestroy(s));
}
BENCHMARK(BM_LaunchAsyncArgs)->UseRealTime();

// BM_LaunchAsync with tracing on (kfdrtTraceStart): each launch records its HIP call and its
// dispatch packet (with a probe and the forwarding barrier); the difference to BM_LaunchAsync is
// the host cost of tracing one packet. Fixed iterations: every one is kept until the file is
// written (untimed, then deleted).
void BM_LaunchAsyncTraced(benchmark::State& state) {
  hipStream_t s;
  BENCH_HIP(hipStreamCreate(&s));
  char path[] = "/tmp/kfdrt-bench-trace-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    state.SkipWithError("mkstemp failed");
    return;
  }
  close(fd);
  BENCH_HIP(kfdrtTraceStart(path));
  int n = 0;
  for (auto _ : state) {
    hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, s);
    if (++n % 256 == 0) {
      state.PauseTiming();
      BENCH_HIP(hipStreamSynchronize(s));
      state.ResumeTiming();
    }
  }
  BENCH_HIP(hipStreamSynchronize(s));
  BENCH_HIP(kfdrtTraceStop());
  unlink(path);
  BENCH_HIP(hipStreamDestroy(s));
}
BENCHMARK(BM_LaunchAsyncTraced)->UseRealTime()->Iterations(50000);

// Host time of one hipMemcpyAsync on a stream (to the engine's doorbell): 4 KiB device to device
// (arg 0 = 0, blit kernels) or 1 MiB pinned host to device (1, SDMA); a synchronize every 256.
void BM_CopyAsyncSubmit(benchmark::State& state) {
  const bool h2d = state.range(0) != 0;
  const size_t n = h2d ? size_t(1) << 20 : 4096;
  void *src = nullptr, *dst = nullptr;
  if (h2d) BENCH_HIP(hipHostMalloc(&src, n));
  else BENCH_HIP(hipMalloc(&src, n));
  BENCH_HIP(hipMalloc(&dst, n));
  hipStream_t s;
  BENCH_HIP(hipStreamCreate(&s));
  int i = 0;
  for (auto _ : state) {
    BENCH_HIP(hipMemcpyAsync(dst, src, n, hipMemcpyDefault, s));
    if (++i % 256 == 0) {
      state.PauseTiming();
      BENCH_HIP(hipStreamSynchronize(s));
      state.ResumeTiming();
    }
  }
  BENCH_HIP(hipStreamSynchronize(s));
  BENCH_HIP(hipStreamDestroy(s));
  BENCH_HIP(hipFree(dst));
  BENCH_HIP(h2d ? hipHostFree(src) : hipFree(src));
}
BENCHMARK(BM_CopyAsyncSubmit)->Arg(0)->Arg(1)->Iterations(20000);

// Launch of an empty kernel and hipStreamSynchronize until it completed.
void BM_LaunchSync(benchmark::State& state) {
  hipStream_t s;
  BENCH_HIP(hipStreamCreate(&s));
  std::vector<double> us;  // each round trip: the mean hides the scheduler's rare long gaps
  for (auto _ : state) {
    timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, s);
    BENCH_HIP(hipStreamSynchronize(s));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    us.push_back(double(t1.tv_sec - t0.tv_sec) * 1e6 + double(t1.tv_nsec - t0.tv_nsec) / 1e3);
  }
  BENCH_HIP(hipStreamDestroy(s));
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  state.counters["median_us"] = us[us.size() / 2];
  state.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
}
BENCHMARK(BM_LaunchSync)->UseRealTime();

// kPlainMemcpy: memcpy between two ordinary host buffers; kMappedMemcpy: memcpy between the
// same pinned buffer and host-visible device memory (through the CPU mapping), i.e. hipMemcpy
// without the runtime; kPinned / kPageable: hipMemcpy with a pinned / pageable host buffer.
enum Host { kPlainMemcpy, kPinned, kPageable, kMappedMemcpy };

// hipMemcpy H2D (arg 1 = 0) or D2H (1) of arg 0 bytes; arg 2 picks the host buffer kind.
void BM_Memcpy(benchmark::State& state) {
  size_t n = size_t(state.range(0));
  bool d2h = state.range(1) != 0;
  Host kind = Host(state.range(2));
  void* dev = nullptr;
  // hipMalloc memory has no CPU mapping: the mapped reference uses VRAM the host can reach.
  if (kind == kMappedMemcpy) BENCH_HIP(hipExtMallocWithFlags(&dev, n, hipDeviceMallocDefault));
  else BENCH_HIP(hipMalloc(&dev, n));
  std::vector<char> pageable;
  void* host = nullptr;
  if (kind == kPinned || kind == kMappedMemcpy) {
    BENCH_HIP(hipHostMalloc(&host, n));
  } else {
    pageable.resize(n);
    host = pageable.data();
  }
  std::memset(host, 1, n);
  BENCH_HIP(hipMemset(dev, 2, n));
  std::vector<char> other(kind == kPlainMemcpy ? n : 0, 3);
  for (auto _ : state) {
    if (kind == kPlainMemcpy) {
      if (d2h) std::memcpy(other.data(), host, n);
      else std::memcpy(host, other.data(), n);
      benchmark::ClobberMemory();
    } else if (kind == kMappedMemcpy) {
      std::memcpy(d2h ? host : dev, d2h ? dev : host, n);
      benchmark::ClobberMemory();
    } else {
      BENCH_HIP(hipMemcpy(d2h ? host : dev, d2h ? dev : host, n,
                          d2h ? hipMemcpyDeviceToHost : hipMemcpyHostToDevice));
    }
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(n));
  const char* names[] = {"memcpy", "pinned", "pageable", "memcpy-mapped"};
  state.SetLabel(std::string(names[kind]) +
                 (d2h ? " D2H" : " H2D"));
  if (kind == kPinned || kind == kMappedMemcpy) (void)hipHostFree(host);
  (void)hipFree(dev);
}
BENCHMARK(BM_Memcpy)
    ->ArgsProduct({{1 << 16, 1 << 20, 16 << 20}, {0, 1}, {kPlainMemcpy, kMappedMemcpy, kPinned, kPageable}})
    ->UseRealTime();

// exec of the first_kernel program until its first kernel completed (it reports the time).
void BM_ProcessStartToFirstKernel(benchmark::State& state) {
  const char* exe = std::getenv("KFDRT_FIRST_KERNEL");
  if (!exe) {
    state.SkipWithError("KFDRT_FIRST_KERNEL is not set");
    return;
  }
  double total_ms = 0;
  for (auto _ : state) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    std::string t0 = "KFDRT_BENCH_T0=" + std::to_string(ts.tv_sec * 1000000000ll + ts.tv_nsec);
    std::vector<char*> env;
    for (char** e = environ; *e; ++e) env.push_back(*e);
    env.push_back(t0.data());
    env.push_back(nullptr);
    int fds[2];
    if (pipe(fds) != 0) return state.SkipWithError("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    pid_t pid;
    char* argv[] = {const_cast<char*>(exe), nullptr};
    if (posix_spawn(&pid, exe, &fa, nullptr, argv, env.data()) != 0) return state.SkipWithError("spawn");
    close(fds[1]);
    char buf[64] = {};
    ssize_t got = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    posix_spawn_file_actions_destroy(&fa);
    if (got <= 0 || status != 0) return state.SkipWithError("first_kernel failed");
    double ms = double(std::atoll(buf)) / 1e6;
    total_ms += ms;
    state.SetIterationTime(ms / 1e3);
  }
  state.counters["ms_to_first_kernel"] = total_ms / double(state.iterations());
}
BENCHMARK(BM_ProcessStartToFirstKernel)->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
