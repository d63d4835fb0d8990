// SPDX-License-Identifier: MIT
// Benchmarks of the queues layer: barrier round trip, packet throughput, publishing a packet, queue creation.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "queues/packets.h"
#include "queues/runtime.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

queues::Runtime& rt() {
  static std::unique_ptr<queues::Runtime> r = [] {
    auto x = queues::Runtime::open();
    if (!x) {
      std::fprintf(stderr, "%s\n", x.message().c_str());
      std::exit(1);
    }
    return std::move(x).value();
  }();
  return *r;
}

std::unique_ptr<queues::AqlQueue> queue(uint32_t packets) {
  queues::QueueOptions o;
  o.packets = packets;
  auto q = rt().create_queue(o);
  if (!q) {
    std::fprintf(stderr, "%s\n", q.message().c_str());
    std::exit(1);
  }
  return std::move(q).value();
}

std::unique_ptr<queues::Signal> signal(int64_t v) { return std::move(rt().create_signal(v)).value(); }

void report_percentiles(benchmark::State& state, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  state.counters["median_us"] = us[us.size() / 2];
  state.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
}

// Barrier packet submitted, completion seen by the waiting host thread.
void round_trip(benchmark::State& state, const queues::WaitPolicy& policy) {
  auto q = queue(1024);
  auto s = signal(1);
  std::vector<double> us;
  for (auto _ : state) {
    s->store(1);
    auto t0 = Clock::now();
    if (!q->submit(queues::make_marker(s->handle())).ok()) state.SkipWithError("submit");
    auto r = s->wait(queues::Cond::Eq, 0, 5s, policy);
    auto dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r) state.SkipWithError(r.message().c_str());
    state.SetIterationTime(dt);
    us.push_back(dt * 1e6);
  }
  report_percentiles(state, us);
}

void BM_BarrierRoundTripSpin(benchmark::State& state) {
  round_trip(state, queues::WaitPolicy::spinning());
}
void BM_BarrierRoundTripBlock(benchmark::State& state) {
  round_trip(state, queues::WaitPolicy::blocking());
}
BENCHMARK(BM_BarrierRoundTripSpin)->UseManualTime()->Iterations(5000);
BENCHMARK(BM_BarrierRoundTripBlock)->UseManualTime()->Iterations(5000);

// Packets through N queues: batches of markers, one counter signal per batch.
void BM_PacketThroughput(benchmark::State& state) {
  const int nq = int(state.range(0));
  const int per_queue = 1024;
  std::vector<std::unique_ptr<queues::AqlQueue>> qs;
  for (int i = 0; i < nq; ++i) qs.push_back(queue(4096));
  auto count = signal(0);
  for (auto _ : state) {
    count->store(int64_t(nq) * per_queue);
    for (int i = 0; i < per_queue; ++i)
      for (auto& q : qs)
        if (!q->submit(queues::make_marker(count->handle())).ok()) state.SkipWithError("submit");
    auto r = count->wait(queues::Cond::Eq, 0, 30s, queues::WaitPolicy::spinning());
    if (!r) state.SkipWithError(r.message().c_str());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * nq * per_queue);
}
BENCHMARK(BM_PacketThroughput)->Arg(1)->Arg(4)->UseRealTime()->Unit(benchmark::kMillisecond);

// This thread's CPU time in seconds: preemption on a loaded host does not count.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// CPU cost of publishing one packet: reserve, write, doorbell (the device drains between batches).
// Manual time is wall time; cpu_ns_per_packet is the producer thread's own CPU time, the figure a
// loaded host does not inflate (cache-line transfers to the device still count).
void BM_PublishPacket(benchmark::State& state) {
  const int batch = 256;
  auto q = queue(1024);
  auto p = queues::make_marker(0);
  double cpu = 0;
  for (auto _ : state) {
    const double c0 = thread_cpu_seconds();
    auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i) {
      auto idx = q->reserve(1);
      q->write(*idx, p);
      q->ring_doorbell(*idx);
    }
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
    cpu += thread_cpu_seconds() - c0;
    if (!q->wait_idle(10s).ok()) state.SkipWithError("wait_idle");
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * batch);
  state.counters["ns_per_packet"] = benchmark::Counter(
      double(batch), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  if (state.iterations() > 0)
    state.counters["cpu_ns_per_packet"] = cpu * 1e9 / (double(state.iterations()) * batch);
}
BENCHMARK(BM_PublishPacket)->UseManualTime();

// Queue creation and destruction, without scratch and with 1 KiB per lane (a VRAM slice of the
// scratch window per queue): what the first launch of a scratch-using kernel pays on a new stream.
void BM_CreateQueue(benchmark::State& state) {
  queues::QueueOptions o;
  o.packets = 1024;
  o.scratch_lane_bytes = uint32_t(state.range(0));
  for (auto _ : state) {
    auto q = rt().create_queue(o);
    if (!q) {
      state.SkipWithError(q.message().c_str());
      break;
    }
  }
}
BENCHMARK(BM_CreateQueue)->Arg(0)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
