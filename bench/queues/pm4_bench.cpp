// SPDX-License-Identifier: MIT
// Benchmarks of PM4 and SDMA queues: dispatch host cost and round trip against AQL, SDMA copies against memcpy.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "loader/code_object.h"
#include "loader/load.h"
#include "queues/packets.h"
#include "queues/runtime.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "pm4_bench: %s\n", m.c_str());
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

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Code object segments in host-visible executable VRAM.
class Segments : public loader::SegmentMemory {
 public:
  base::Result<loader::Span> allocate(size_t size, size_t align, bool executable) override {
    mem::AllocRequest r;
    r.heap = mem::Heap::Vram;
    r.size = size;
    r.alignment = std::max<size_t>(align, 256);
    r.executable = executable;
    r.host_access = true;
    auto a = rt().memory().allocate(r);
    if (!a) {  // no host-visible VRAM (a small-BAR GPU): system memory the GPU maps
      r.heap = mem::Heap::Gtt;
      r.alignment = std::max<size_t>(r.alignment, 4096);
      a = rt().memory().allocate(r);
    }
    KFD_ASSIGN(void* p, std::move(a));
    std::memset(p, 0, size);
    return loader::Span{static_cast<uint8_t*>(p), size};
  }
  void free(loader::Span s) override { (void)rt().memory().free(s.host); }
};

// The empty kernel of the pm4 test kernels, for this GPU's processor.
struct EmptyKernel {
  pm4::KernelDescriptor descriptor{};
  uint64_t object = 0;
  queues::Pm4Kernel pm4;
};

const EmptyKernel& empty_kernel() {
  static EmptyKernel k = [] {
    const uint32_t v = rt().gpus().front()->props().gfx_target_version;
    char cpu[16];
    std::snprintf(cpu, sizeof cpu, "gfx%u%x%x", v / 10000, (v / 100) % 100, v % 100);
    const std::string path = std::string(PM4_KERNEL_DIR) + "/pm4_kernels-" + cpu + ".co";
    std::ifstream f(path, std::ios::binary);
    if (!f) die("no test kernels for " + std::string(cpu) + " (" + path + ")");
    static std::vector<uint8_t> image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto co = must(loader::CodeObject::parse(loader::Bytes(image.data(), image.size())), "parse");
    static Segments segments;
    static auto code = must(loader::LoadedCodeObject::load(co, segments), "load");
    EmptyKernel e;
    e.descriptor = co.find_kernel("empty_kernel")->descriptor;
    e.object = must(code.kernel_object("empty_kernel"), "kernel_object");
    e.pm4 = must(queues::make_pm4_kernel(e.descriptor, e.object, *rt().gpus().front()->family), "pm4 kernel");
    return e;
  }();
  return k;
}

void report_percentiles(benchmark::State& state, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  state.counters["median_us"] = us[us.size() / 2];
  state.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
}

// ---- dispatch: host cost and round trip, AQL against PM4 ---------------------------------------

enum Engine { kAql = 0, kPm4 = 1 };

struct Dispatcher {
  std::unique_ptr<queues::AqlQueue> aql;
  std::unique_ptr<queues::Pm4Queue> pm4;
  explicit Dispatcher(Engine e) {
    if (e == kAql) {
      queues::QueueOptions o;
      o.packets = 1024;
      aql = must(rt().create_queue(o), "AQL queue");
    } else {
      queues::Pm4QueueOptions o;
      o.ring_bytes = 256 << 10;
      pm4 = must(rt().create_pm4_queue(o), "PM4 queue");
    }
  }
  // One dispatch of the empty kernel as the HIP layer would issue it: built and published.
  base::Status dispatch(queues::Signal* done) {
    const EmptyKernel& k = empty_kernel();
    if (aql) {
      queues::DispatchParams p;
      p.kernel_object = k.object;
      p.completion_signal = done ? done->handle() : 0;
      KFD_ASSIGN(queues::Packet pk, queues::make_dispatch(p));
      return aql->submit(pk);
    }
    queues::Pm4Launch l;
    l.kernel = &k.pm4;
    if (done) l.completion = queues::signal_target(*done);
    return pm4->dispatch(l);
  }
  base::Status wait_idle() { return aql ? aql->wait_idle(30s) : pm4->wait_idle(30s); }
};

// Producer CPU time of one dispatch (batches of 64; the device drains between batches).
void BM_DispatchHostCost(benchmark::State& state) {
  Dispatcher d(Engine(state.range(0)));
  const int batch = 64;
  double cpu = 0;
  for (auto _ : state) {
    const double c0 = thread_cpu_seconds();
    auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i)
      if (!d.dispatch(nullptr).ok()) state.SkipWithError("dispatch");
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    cpu += thread_cpu_seconds() - c0;
    if (auto st = d.wait_idle(); !st) state.SkipWithError(st.message().c_str());
  }
  if (state.iterations() > 0)
    state.counters["cpu_ns_per_dispatch"] = cpu * 1e9 / (double(state.iterations()) * batch);
  state.SetLabel(state.range(0) == kAql ? "AQL" : "PM4");
}
BENCHMARK(BM_DispatchHostCost)->Arg(kAql)->Arg(kPm4)->UseManualTime()->Iterations(200);

// The encoding alone: plan a dispatch of the empty kernel and write its PM4 stream into host
// memory (what Pm4Queue::dispatch adds to a ring reservation).
void BM_Pm4DispatchEncode(benchmark::State& state) {
  const EmptyKernel& k = empty_kernel();
  queues::Pm4QueueContext ctx;
  ctx.family = rt().gpus().front()->family;
  queues::Pm4Launch l;
  l.kernel = &k.pm4;
  std::vector<uint32_t> out(512);
  for (auto _ : state) {
    auto r = queues::plan_pm4_dispatch(l, ctx);
    if (!r) state.SkipWithError(r.message().c_str());
    benchmark::DoNotOptimize(queues::write_pm4_dispatch(out.data(), *r));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Pm4DispatchEncode);

// Launch to completion seen by a spinning host thread.
void BM_LaunchRoundTrip(benchmark::State& state) {
  Dispatcher d(Engine(state.range(0)));
  auto s = must(rt().create_signal(1), "signal");
  std::vector<double> us;
  for (auto _ : state) {
    s->store(1);
    auto t0 = Clock::now();
    if (!d.dispatch(s.get()).ok()) state.SkipWithError("dispatch");
    auto r = s->wait(queues::Cond::Eq, 0, 10s, queues::WaitPolicy::spinning());
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r) state.SkipWithError(r.message().c_str());
    state.SetIterationTime(dt);
    us.push_back(dt * 1e6);
  }
  report_percentiles(state, us);
  state.SetLabel(state.range(0) == kAql ? "AQL" : "PM4");
}
BENCHMARK(BM_LaunchRoundTrip)->Arg(kAql)->Arg(kPm4)->UseManualTime()->Iterations(2000);

// ---- SDMA: copy bandwidth against memcpy, host cost of a submission -----------------------------

void* host_buffer(size_t bytes) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Gtt;
  r.coherence = mem::Coherence::NonCoherent;
  r.size = bytes;
  void* p = must(rt().memory().allocate(r), "buffer");
  std::memset(p, 1, bytes);
  return p;
}

// One copy of `bytes` between two system-memory buffers, submitted and waited for.
void BM_SdmaCopy(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  queues::SdmaQueueOptions o;
  auto q = must(rt().create_sdma_queue(o), "SDMA queue");
  void* src = host_buffer(bytes);
  void* dst = host_buffer(bytes);
  for (auto _ : state) {
    auto t0 = Clock::now();
    auto st = q->copy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), bytes);
    if (st) st = q->wait_idle(60s);
    if (!st) state.SkipWithError(st.message().c_str());
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  (void)rt().memory().free(src);
  (void)rt().memory().free(dst);
}
BENCHMARK(BM_SdmaCopy)->Arg(64 << 10)->Arg(1 << 20)->Arg(64 << 20)->UseManualTime();

// Bandwidth with the engine kept busy: 16 copies of `bytes` submitted back to back, one wait.
void BM_SdmaCopyPipelined(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  const int depth = 16;
  queues::SdmaQueueOptions o;
  auto q = must(rt().create_sdma_queue(o), "SDMA queue");
  void* src = host_buffer(bytes);
  void* dst = host_buffer(bytes);
  for (auto _ : state) {
    auto t0 = Clock::now();
    base::Status st;
    for (int i = 0; i < depth && st.ok(); ++i)
      st = q->copy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), bytes);
    if (st) st = q->wait_idle(60s);
    if (!st) state.SkipWithError(st.message().c_str());
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * depth * int64_t(bytes));
  (void)rt().memory().free(src);
  (void)rt().memory().free(dst);
}
BENCHMARK(BM_SdmaCopyPipelined)->Arg(64 << 10)->Arg(1 << 20)->UseManualTime();

// The same copy with memcpy on the host thread.
void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  void* src = host_buffer(bytes);
  void* dst = host_buffer(bytes);
  for (auto _ : state) {
    std::memcpy(dst, src, bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  (void)rt().memory().free(src);
  (void)rt().memory().free(dst);
}
BENCHMARK(BM_Memcpy)->Arg(64 << 10)->Arg(1 << 20)->Arg(64 << 20);

// Producer CPU time of submitting one 64 KiB copy (batches of 32; the engine drains between).
void BM_SdmaSubmitCost(benchmark::State& state) {
  const size_t bytes = 64 << 10;
  queues::SdmaQueueOptions o;
  auto q = must(rt().create_sdma_queue(o), "SDMA queue");
  void* src = host_buffer(bytes);
  void* dst = host_buffer(bytes);
  const int batch = 32;
  double cpu = 0;
  for (auto _ : state) {
    const double c0 = thread_cpu_seconds();
    auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i)
      if (!q->copy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), bytes).ok())
        state.SkipWithError("copy");
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    cpu += thread_cpu_seconds() - c0;
    if (auto st = q->wait_idle(60s); !st) state.SkipWithError(st.message().c_str());
  }
  if (state.iterations() > 0)
    state.counters["cpu_ns_per_copy"] = cpu * 1e9 / (double(state.iterations()) * batch);
  (void)rt().memory().free(src);
  (void)rt().memory().free(dst);
}
BENCHMARK(BM_SdmaSubmitCost)->UseManualTime()->Iterations(200);

}  // namespace

BENCHMARK_MAIN();
