// SPDX-License-Identifier: MIT
// Benchmarks of the memory layer: allocate + free cost of small and large buffers of each kind.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "memory/context.h"

namespace {

mem::Context& ctx() {
  static std::unique_ptr<gpu::Platform> platform = [] {
    auto x = gpu::Platform::open();
    if (!x) {
      std::fprintf(stderr, "%s\n", x.message().c_str());
      std::exit(1);
    }
    return std::move(x).value();
  }();
  static std::unique_ptr<mem::Context> c = [] {
    auto x = mem::Context::open(*platform);
    if (!x) {
      std::fprintf(stderr, "%s\n", x.message().c_str());
      std::exit(1);
    }
    return std::move(x).value();
  }();
  return *c;
}

mem::AllocRequest request(mem::Heap h, mem::Coherence c, size_t size, bool host = true) {
  mem::AllocRequest r;
  r.heap = h;
  r.coherence = c;
  r.size = size;
  r.host_access = host;
  return r;
}

// Direct allocations: reserve VA, ALLOC, MAP, mmap; then UNMAP, munmap, FREE.
void BM_AllocFree(benchmark::State& state, mem::Heap h, mem::Coherence c, bool host) {
  auto r = request(h, c, size_t(state.range(0)), host);
  for (auto _ : state) {
    auto p = ctx().allocate(r);
    if (!p) {
      state.SkipWithError(p.message().c_str());
      break;
    }
    benchmark::DoNotOptimize(*p);
    if (!ctx().free(*p).ok()) state.SkipWithError("free");
  }
}
BENCHMARK_CAPTURE(BM_AllocFree, gtt_coherent, mem::Heap::Gtt, mem::Coherence::Coherent, true)
    ->Arg(4096)->Arg(64 << 20);
BENCHMARK_CAPTURE(BM_AllocFree, vram_host, mem::Heap::Vram, mem::Coherence::NonCoherent, true)
    ->Arg(4096)->Arg(64 << 20);
BENCHMARK_CAPTURE(BM_AllocFree, vram_device, mem::Heap::Vram, mem::Coherence::NonCoherent, false)
    ->Arg(4096)->Arg(64 << 20);

// Pooled small allocations: no ioctl once the chunk exists.
void BM_SmallAllocFree(benchmark::State& state) {
  auto r = request(mem::Heap::Gtt, mem::Coherence::NonCoherent, size_t(state.range(0)));
  for (auto _ : state) {
    auto p = ctx().allocate_small(r);
    benchmark::DoNotOptimize(*p);
    if (!ctx().free(*p).ok()) state.SkipWithError("free");
  }
}
BENCHMARK(BM_SmallAllocFree)->Arg(64)->Arg(4096);

void BM_KernargAllocFree(benchmark::State& state) {
  for (auto _ : state) {
    auto p = ctx().allocate_kernarg(256);
    benchmark::DoNotOptimize(*p);
    if (!ctx().free(*p).ok()) state.SkipWithError("free");
  }
}
BENCHMARK(BM_KernargAllocFree);

void BM_Lookup(benchmark::State& state) {
  auto p = ctx().allocate(request(mem::Heap::Gtt, mem::Coherence::Coherent, 1 << 20));
  for (auto _ : state) benchmark::DoNotOptimize(ctx().lookup(static_cast<char*>(*p) + 12345));
  (void)ctx().free(*p);
}
BENCHMARK(BM_Lookup);

}  // namespace

BENCHMARK_MAIN();
