// SPDX-License-Identifier: MIT
// Loader benchmarks: parse + load + relocate a ~1 MiB code object; pick from an 8-target bundle.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "loader/bundle.h"
#include "loader/load.h"

namespace {

std::vector<uint8_t> read_data(const std::string& name) {
  const char* dir = std::getenv("KFDRT_LOADER_DATA");
  std::ifstream f(std::string(dir ? dir : ".") + "/" + name, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

template <class T>
void put(std::vector<uint8_t>& v, size_t off, T x) { std::memcpy(v.data() + off, &x, sizeof x); }

// An uncompressed bundle of eight device entries (the same object under eight target ids).
std::vector<uint8_t> eight_target_bundle() {
  std::vector<uint8_t> co = read_data("vector_add-gfx90a.co");
  const char* ids[] = {"hipv4-amdgcn-amd-amdhsa--gfx900", "hipv4-amdgcn-amd-amdhsa--gfx906",
                       "hipv4-amdgcn-amd-amdhsa--gfx908", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
                       "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx942",
                       "hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx1100"};
  size_t table = 32;
  for (const char* id : ids) table += 24 + std::strlen(id);
  std::vector<uint8_t> b(table);
  std::memcpy(b.data(), "__CLANG_OFFLOAD_BUNDLE__", 24);
  put<uint64_t>(b, 24, 8);
  size_t pos = 32;
  for (const char* id : ids) {
    size_t off = (b.size() + 4095) & ~size_t(4095);
    b.resize(off + co.size());
    std::memcpy(b.data() + off, co.data(), co.size());
    put<uint64_t>(b, pos, off);
    put<uint64_t>(b, pos + 8, co.size());
    put<uint64_t>(b, pos + 16, std::strlen(id));
    std::memcpy(b.data() + pos + 24, id, std::strlen(id));
    pos += 24 + std::strlen(id);
  }
  return b;
}

void BM_LoadRelocate1MiB(benchmark::State& state) {
  std::vector<uint8_t> bytes = read_data("big_table-gfx90a.co");
  if (bytes.empty()) { state.SkipWithError("big_table-gfx90a.co not found (set KFDRT_LOADER_DATA)"); return; }
  loader::HostSegmentMemory mem;
  for (auto _ : state) {
    auto co = loader::CodeObject::parse(bytes);
    if (!co) { state.SkipWithError(co.message().c_str()); return; }
    auto lco = loader::LoadedCodeObject::load(*co, mem);
    if (!lco) { state.SkipWithError(lco.message().c_str()); return; }
    benchmark::DoNotOptimize(lco->kernel_object("big_kernel_87"));
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
  state.counters["file_bytes"] = double(bytes.size());
}

// Hands out one retained block again and again, like a warm memory pool: what remains is the
// loader's own work (parse, copy, zero-fill, relocate) without the kernel's page faults.
struct WarmMemory : loader::SegmentMemory {
  base::Result<loader::Span> allocate(size_t size, size_t align, bool executable) override {
    if (!block.host) {
      auto r = host.allocate(size, align, executable);
      if (!r) return r;
      block = *r;
    }
    if (size > block.size) return base::Error::msg("warm memory: block too small");
    return loader::Span{block.host, size};
  }
  void free(loader::Span) override {}
  ~WarmMemory() override { host.free(block); }
  loader::HostSegmentMemory host;
  loader::Span block;
};

void BM_LoadRelocate1MiBWarm(benchmark::State& state) {
  std::vector<uint8_t> bytes = read_data("big_table-gfx90a.co");
  if (bytes.empty()) { state.SkipWithError("big_table-gfx90a.co not found (set KFDRT_LOADER_DATA)"); return; }
  WarmMemory mem;
  for (auto _ : state) {
    auto co = loader::CodeObject::parse(bytes);
    if (!co) { state.SkipWithError(co.message().c_str()); return; }
    auto lco = loader::LoadedCodeObject::load(*co, mem);
    if (!lco) { state.SkipWithError(lco.message().c_str()); return; }
    benchmark::DoNotOptimize(lco->kernel_object("big_kernel_87"));
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}

void BM_Parse1MiB(benchmark::State& state) {
  std::vector<uint8_t> bytes = read_data("big_table-gfx90a.co");
  if (bytes.empty()) { state.SkipWithError("big_table-gfx90a.co not found (set KFDRT_LOADER_DATA)"); return; }
  for (auto _ : state) {
    auto co = loader::CodeObject::parse(bytes);
    if (!co) { state.SkipWithError(co.message().c_str()); return; }
    benchmark::DoNotOptimize(co->kernels().data());
  }
}

void BM_PickFrom8TargetBundle(benchmark::State& state) {
  std::vector<uint8_t> bytes = eight_target_bundle();
  auto device = *loader::TargetId::parse("gfx90a:sramecc+:xnack-");
  for (auto _ : state) {
    auto b = loader::parse_bundle(bytes);
    if (!b) { state.SkipWithError(b.message().c_str()); return; }
    auto e = loader::select_code_object(*b, device);
    if (!e) { state.SkipWithError(e.message().c_str()); return; }
    benchmark::DoNotOptimize(*e);
  }
}

// The clang-made zstd bundle (7 entries): decompression dominates.
void BM_PickFromCompressedBundle(benchmark::State& state) {
  std::vector<uint8_t> bytes = read_data("multi.cbundle");
  if (bytes.empty()) { state.SkipWithError("multi.cbundle not found"); return; }
  auto device = *loader::TargetId::parse("gfx90a:sramecc+:xnack-");
  for (auto _ : state) {
    auto b = loader::parse_bundle(bytes);
    if (!b) { state.SkipWithError(b.message().c_str()); return; }
    benchmark::DoNotOptimize(loader::select_code_object(*b, device));
  }
}

BENCHMARK(BM_LoadRelocate1MiB)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoadRelocate1MiBWarm)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Parse1MiB)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PickFrom8TargetBundle)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PickFromCompressedBundle)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
