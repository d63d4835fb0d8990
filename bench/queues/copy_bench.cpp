// SPDX-License-Identifier: MIT
// Copy engine benchmarks: each path (SDMA, blit kernels) per kind and size against memcpy, pageable staging, submit cost.
#include <benchmark/benchmark.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "queues/copy_engine.h"
#include "queues/runtime.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using queues::CopyPath;

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "copy_bench: %s\n", m.c_str());
  std::exit(1);
}

template <class T>
T must(base::Result<T> r, const char* what) {
  if (!r) die(std::string(what) + ": " + r.message());
  return std::move(r).value();
}

queues::Runtime& rt() {
  static std::unique_ptr<queues::Runtime> r = must(queues::Runtime::open(), "open");
  return *r;
}

// One engine per forced path (and one on Auto), created once.
queues::CopyEngine& engine(CopyPath p) {
  static std::unique_ptr<queues::CopyEngine> e[3];
  auto& slot = e[int(p)];
  if (!slot) {
    queues::CopyPolicy pol;
    pol.force = p;
    slot = must(queues::CopyEngine::create(rt(), *rt().gpus().front(), pol), "copy engine");
  }
  return *slot;
}

enum Kind { kH2D, kD2H, kD2D };

void* alloc(bool device, size_t bytes) {
  mem::AllocRequest r;
  r.heap = device ? mem::Heap::Vram : mem::Heap::Gtt;
  r.coherence = mem::Coherence::Coherent;
  r.size = bytes;
  void* p = must(rt().memory().allocate(r), "allocate");
  if (!device) std::memset(p, 1, bytes);
  return p;
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// One copy of `bytes` (range 1) of kind (range 2) on path (range 0), submitted and waited for.
void BM_EngineCopy(benchmark::State& state) {
  const CopyPath path = CopyPath(state.range(0));
  const size_t bytes = size_t(state.range(1));
  const Kind kind = Kind(state.range(2));
  queues::CopyEngine& e = engine(path);
  if ((path == CopyPath::Sdma && !e.has_sdma()) || (path == CopyPath::Blit && !e.has_blit())) {
    state.SkipWithError("path not available");
    return;
  }
  void* src = alloc(kind != kH2D, bytes);
  void* dst = alloc(kind != kD2H, bytes);
  auto done = must(rt().create_signal(0), "signal");
  // Untimed first copy: the destination's pages are touched once (first-touch faults are not
  // copy bandwidth).
  if (auto st = e.copy(uint64_t(dst), uint64_t(src), bytes); !st || !e.wait_idle(60s)) {
    state.SkipWithError("warm-up copy failed");
    return;
  }
  for (auto _ : state) {
    auto t0 = Clock::now();
    done->store(1);
    auto st = e.copy(uint64_t(dst), uint64_t(src), bytes, queues::CopyOrder{{}, queues::signal_target(*done)});
    if (st) {
      auto w = done->wait(queues::Cond::Lt, 1, 60s);
      if (!w) st = w.error();
    }
    if (!st) state.SkipWithError(st.message().c_str());
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  (void)rt().memory().free(src);
  (void)rt().memory().free(dst);
}

void CopyArgs(benchmark::internal::Benchmark* b) {
  for (int path : {int(CopyPath::Sdma), int(CopyPath::Blit)})
    for (int kind : {kH2D, kD2H, kD2D})
      for (int64_t bytes : {int64_t(4) << 10, int64_t(64) << 10, int64_t(1) << 20, int64_t(16) << 20,
                            int64_t(256) << 20})
        b->Args({path, bytes, kind});
  b->ArgNames({"path", "bytes", "kind"});
}
BENCHMARK(BM_EngineCopy)->Apply(CopyArgs)->UseManualTime();

// memcpy between two host buffers, the reference.
void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  std::vector<char> a(bytes, 1), b(bytes, 2);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK(BM_Memcpy)->RangeMultiplier(16)->Range(4 << 10, 256 << 20);

// Pageable host memory (a std::vector) to the device and back: staging (range 1 = 0) or
// registration in place (1), on the Auto engine's path for the size.
void BM_Pageable(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  const bool registered = state.range(1) != 0;
  const bool to_device = state.range(2) == 0;
  queues::CopyPolicy pol;
  pol.userptr_min_bytes = registered ? 1 : 0;
  static std::unique_ptr<queues::CopyEngine> e[2];
  if (!e[registered]) e[registered] = must(queues::CopyEngine::create(rt(), *rt().gpus().front(), pol), "engine");
  std::vector<char> host(bytes, 3);
  void* dev = alloc(true, bytes);
  for (auto _ : state) {
    auto st = to_device ? e[registered]->copy_from_pageable(uint64_t(dev), host.data(), bytes)
                        : e[registered]->copy_to_pageable(host.data(), uint64_t(dev), bytes);
    if (st && to_device) st = e[registered]->wait_idle(60s);
    if (!st) state.SkipWithError(st.message().c_str());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  (void)rt().memory().free(dev);
}
BENCHMARK(BM_Pageable)
    ->ArgsProduct({{int64_t(64) << 10, int64_t(1) << 20, int64_t(16) << 20, int64_t(256) << 20}, {0, 1}, {0, 1}})
    ->ArgNames({"bytes", "registered", "d2h"})
    ->UseRealTime();

// Host CPU time to submit one asynchronous 64 KiB copy (device-to-device, with a completion
// signal), per path: the thread's CPU time over batches of 32 submissions (the clock read is a
// system call: once per batch), the engine drained between batches outside the timing.
void BM_SubmitCost(benchmark::State& state) {
  const CopyPath path = CopyPath(state.range(0));
  queues::CopyEngine& e = engine(path);
  const size_t bytes = 64 << 10;
  void* src = alloc(true, bytes);
  void* dst = alloc(true, bytes);
  auto done = must(rt().create_signal(0), "signal");
  const queues::CopyOrder o{{}, queues::signal_target(*done)};
  constexpr int kBatch = 32;
  double cpu = 0;
  int64_t n = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_seconds();
    for (int i = 0; i < kBatch; ++i)
      if (auto st = e.copy(uint64_t(dst), uint64_t(src), bytes, o); !st) state.SkipWithError(st.message().c_str());
    cpu += thread_cpu_seconds() - t0;
    n += kBatch;
    state.PauseTiming();
    (void)e.wait_idle(60s);
    state.ResumeTiming();
  }
  state.counters["cpu_ns_per_copy"] = cpu / double(n) * 1e9;
  (void)rt().memory().free(src);
  (void)rt().memory().free(dst);
}
BENCHMARK(BM_SubmitCost)->Arg(int(CopyPath::Sdma))->Arg(int(CopyPath::Blit))->ArgName("path");

}  // namespace

BENCHMARK_MAIN();
