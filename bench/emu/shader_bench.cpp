// SPDX-License-Identifier: MIT
// Shader core throughput over the clang-15 HIP corpus (wave-instructions/s and lane-ops/s) and
// kfdrt's blit copy kernel (bytes/s), with one worker thread, two, and one per host core (/0),
// under the strict memory model (the default: buffers are coarse-grained VRAM, the dispatch
// acquires and releases at system scope) and, for the corpus, under sc (no caches).
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>

#include "tests/emu/harness.h"

using namespace emu_test;

namespace {

struct Workload {
  const char* file;
  const char* kernel;
  // Allocates inputs in `mem`, returns the launch and arguments.
  std::function<void(HostMemory&, Launch&, Args&)> setup;
};

Launch grid1(uint32_t n, uint16_t b) { Launch l; l.grid[0] = n; l.block[0] = b; return l; }

template <class T>
T* filled(HostMemory& mem, size_t n, std::function<T(size_t)> f) {
  T* p = mem.alloc_array<T>(n);
  for (size_t i = 0; i < n; ++i) p[i] = f(i);
  return p;
}

const Workload kWork[] = {
    {"basic.co", "vadd", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 20;
       l = grid1(n, 256);
       a.add(filled<float>(m, n, [](size_t i) { return 0.5f * i; }))
        .add(filled<float>(m, n, [](size_t i) { return 1.0f * i; })).add(m.alloc_array<float>(n)).add(n);
     }},
    {"lds.co", "reduce_sum", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 20;
       l = grid1(n, 256);
       a.add(filled<float>(m, n, [](size_t i) { return float(i % 7); })).add(m.alloc_array<float>(n / 256)).add(n);
     }},
    {"lds.co", "histogram", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 20;
       l = grid1(64 * 256, 256);
       a.add(filled<uint8_t>(m, n, [](size_t i) { return uint8_t(i * 2654435761u >> 24); })).add(n).add(m.alloc_array<unsigned>(256));
     }},
    {"math.co", "transcend_f32", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 16;
       l = grid1(n, 256);
       a.add(filled<float>(m, n, [](size_t i) { return -1.5f + 1e-5f * i; })).add(m.alloc_array<float>(4 * n)).add(n);
     }},
    {"math.co", "double_ops", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 16;
       l = grid1(n, 256);
       a.add(filled<double>(m, n, [](size_t i) { return -2.0 + 1e-5 * i; })).add(m.alloc_array<double>(4 * n)).add(n);
     }},
    {"math.co", "int64_divmod", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 16;
       l = grid1(n, 256);
       a.add(filled<long long>(m, n, [](size_t i) { return (long long)(i * 0x9E3779B97F4A7C15ull); }))
        .add(filled<long long>(m, n, [](size_t i) { return (long long)(i * 7919 + 3); }))
        .add(m.alloc_array<long long>(n)).add(m.alloc_array<long long>(n)).add(n);
     }},
    {"scratch.co", "private_array", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 14;
       l = grid1(n, 256);
       a.add(filled<unsigned>(m, n, [](size_t i) { return unsigned(i * 31 % 1000); })).add(m.alloc_array<unsigned>(n)).add(n);
     }},
    {"lanes.co", "wave_sum", [](HostMemory& m, Launch& l, Args& a) {
       const unsigned n = 1 << 20;
       l = grid1(n, 256);
       a.add(filled<int>(m, n, [](size_t i) { return int(i % 100); })).add(m.alloc_array<int>(n / 64));
     }},
};

void BM_Corpus(benchmark::State& state, size_t work, unsigned workers, bool strict) {
  const Workload& w = kWork[work];
  HostMemory mem(strict, emu::shader::CacheConfig{});
  CodeObject co;
  std::string err = co.load(kernel_path(w.file), mem);
  if (!err.empty()) { state.SkipWithError(err.c_str()); return; }
  Launch l; Args a;
  w.setup(mem, l, a);
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, workers);
  // The queue's scratch is allocated once, as a runtime's queue keeps it across dispatches.
  const uint64_t kd = co.kernel(w.kernel);
  const uint32_t lane = kernel_scratch_lane_bytes(mem.translate(kd, 64, false), l.private_size);
  l.scratch_lane_bytes = lane;
  l.scratch_waves = 16 * core.workers();
  if (lane) l.scratch_backing = mem.alloc(scratch_bytes(lane, l.scratch_waves));
  uint64_t insts = 0, lanes = 0;
  // Process CPU time covers all worker threads: wave-instructions per CPU-second is the
  // per-core rate even when the host is shared.
  auto cpu_now = [] { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; };
  double cpu0 = cpu_now();
  for (auto _ : state) {
    auto o = dispatch(core, mem, kd, l, a.data(), a.size());
    if (!o.ok()) { state.SkipWithError(o.message.c_str()); return; }
    insts += o.wave_instructions;
    lanes += o.lane_ops;
  }
  double cpu = cpu_now() - cpu0;
  state.counters["wave_insts/cpu_s"] = static_cast<double>(insts) / cpu;
  state.counters["wave_insts/dispatch"] = static_cast<double>(insts) / static_cast<double>(state.iterations());
  state.SetLabel(std::string(w.kernel) + (workers == 0 ? " all workers" : " " + std::to_string(workers) + " worker(s)") +
                 (strict ? " strict" : " sc"));
  state.counters["wave_insts/s"] = benchmark::Counter(static_cast<double>(insts), benchmark::Counter::kIsRate);
  state.counters["lane_ops/s"] = benchmark::Counter(static_cast<double>(lanes), benchmark::Counter::kIsRate);
}

// One benchmark per workload, worker count and memory model, named after the kernel so that a
// filter picks workloads: BM_Corpus/<kernel>/1/strict (one worker), BM_Corpus/<kernel>/2/strict
// (two), BM_Corpus/<kernel>/0/sc (one per host core, no caches).
const bool kCorpusRegistered = [] {
  for (size_t i = 0; i < std::size(kWork); ++i)
    for (unsigned workers : {1u, 2u, 0u})
      for (bool strict : {false, true}) {
        std::string name = std::string("BM_Corpus/") + kWork[i].kernel + "/" + std::to_string(workers) +
                           (strict ? "/strict" : "/sc");
        benchmark::RegisterBenchmark(name.c_str(), BM_Corpus, i, workers, strict)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
  return true;
}();

// Cost of one tiny dispatch (one 64-item workgroup, or 8 of them): packet and descriptor
// reads, worker hand-off, decode-cache revalidation.
void BM_SmallDispatch(benchmark::State& state) {
  HostMemory mem;
  CodeObject co;
  std::string err = co.load(kernel_path("basic.co"), mem);
  if (!err.empty()) { state.SkipWithError(err.c_str()); return; }
  const unsigned n = static_cast<unsigned>(state.range(0));
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* c = mem.alloc_array<float>(n);
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, static_cast<unsigned>(state.range(1)));
  Launch l = grid1(n, 64);
  Args args; args.add(a).add(b).add(c).add(n);
  for (auto _ : state) {
    auto o = dispatch(core, mem, co.kernel("vadd"), l, args.data(), args.size());
    if (!o.ok()) { state.SkipWithError(o.message.c_str()); return; }
  }
}
BENCHMARK(BM_SmallDispatch)->Args({64, 1})->Args({512, 1})->Args({512, 0})->Unit(benchmark::kMicrosecond);

#if defined(EMU_BLIT_CO)
// kfdrt's blit copy kernel (queues/blit) on coarse-grained device memory under the strict model,
// each copy followed by the system-scope release (the L2's write-back) as the runtime's is:
// bytes copied per second of process CPU time and of wall time, against memcpy of the same
// size (BM_BlitMemcpy). Args: bytes, workers (0: one per host core).
void BM_BlitCopy(benchmark::State& state) {
  const uint64_t bytes = static_cast<uint64_t>(state.range(0));
  HostMemory mem(true, emu::shader::CacheConfig{});
  CodeObject co;
  std::string err = co.load(EMU_BLIT_CO, mem);
  if (!err.empty()) { state.SkipWithError(err.c_str()); return; }
  uint8_t* src = mem.alloc(bytes);
  uint8_t* dst = mem.alloc(bytes);
  for (uint64_t i = 0; i < bytes; ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, static_cast<unsigned>(state.range(1)));
  // The runtime's grid (queues/blit_kernels.cpp threads_for): a work-item per 16-byte unit, at
  // most two 256-item workgroups per compute unit of the emulated GPU (104 CUs).
  constexpr uint64_t kMaxThreads = 104 * 256 * 2;
  const uint32_t threads = static_cast<uint32_t>(std::min(kMaxThreads, (std::max<uint64_t>(bytes / 16, 1) + 255) / 256 * 256));
  Launch l = grid1(threads, 256);
  Args a;
  a.add(dst).add(src).add(bytes).add(threads).add(uint32_t{0});
  auto cpu_now = [] { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; };
  const uint64_t kd = co.kernel("kfdrt_blit_copy");
  double cpu0 = cpu_now();
  for (auto _ : state) {
    auto o = dispatch(core, mem, kd, l, a.data(), a.size());
    if (!o.ok()) { state.SkipWithError(o.message.c_str()); return; }
  }
  const double cpu = cpu_now() - cpu0;
  if (std::memcmp(dst, src, bytes) != 0) { state.SkipWithError("the copy differs from its source"); return; }
  state.counters["GB/cpu_s"] = static_cast<double>(bytes) * static_cast<double>(state.iterations()) / cpu / 1e9;
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(bytes) * static_cast<double>(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BlitCopy)->ArgsProduct({{64 << 10, 1 << 20, 16 << 20}, {1, 0}})->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_BlitMemcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
  }
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(bytes) * static_cast<double>(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BlitMemcpy)->Arg(64 << 10)->Arg(1 << 20)->Arg(16 << 20)->Unit(benchmark::kMicrosecond);
#endif

}  // namespace

BENCHMARK_MAIN();
