// SPDX-License-Identifier: MIT
// Device tests of AQL queues: ordering, barriers across queues, wraparound, producers, back-pressure.
#include <time.h>

#include <atomic>
#include <thread>
#include <vector>

#include "queue_test_util.h"

namespace {

using namespace qtest;
using queues::Cond;

TEST(AqlQueue, CreatesWithKernelValidatedBuffers) {
  auto q = make_queue(1024);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->size(), 1024u);
  EXPECT_EQ(q->read_index(), 0u);
  EXPECT_EQ(q->write_index(), 0u);
  // rptr and wptr share the first (and only) page of amd_queue_t's buffer.
  auto info = rt().memory().lookup(&q->amd_queue()->read_dispatch_id);
  ASSERT_TRUE(info.ok()) << info.message();
  EXPECT_EQ(info->size, 4096u);
  EXPECT_EQ(info->ptr(), q->amd_queue());
  EXPECT_EQ(q->amd_queue()->hsa_queue.size, 1024u);
  EXPECT_NE(q->amd_queue()->queue_inactive_signal, 0u);
  EXPECT_TRUE(q->error().ok());
  EXPECT_TRUE(q->destroy().ok());
}

TEST(AqlQueue, RejectsBadRingSizes) {
  queues::QueueOptions o;
  o.packets = 100;
  EXPECT_EQ(rt().create_queue(o).err(), EINVAL);
  o.packets = 8;
  EXPECT_EQ(rt().create_queue(o).err(), EINVAL);
  // CREATE_QUEUE's ring_size is a u32 byte count: 2^26 packets (4 GiB) would wrap to 0.
  size_t before = rt().memory().allocation_count();
  o.packets = 1u << 26;
  auto big = rt().create_queue(o);
  EXPECT_EQ(big.err(), EINVAL) << big.message();
  EXPECT_NE(big.message().find("ring size"), std::string::npos) << big.message();
  EXPECT_EQ(rt().memory().allocation_count(), before);
}

TEST(AqlQueue, FailsCleanlyWhenUsedAfterDestroy) {
  auto q = make_queue(64);
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->destroy().ok());
  auto r = q->reserve(1, 10ms);
  EXPECT_EQ(r.err(), EINVAL) << r.message();
  EXPECT_EQ(q->submit(queues::make_marker(0)).err(), EINVAL);
  EXPECT_EQ(q->wait_idle(10ms).err(), EINVAL);
  EXPECT_EQ(q->grow_scratch(16).err(), EINVAL);
}

TEST(AqlQueue, KeepsOrderWithinOneQueue) {
  auto q = make_queue();
  auto gate = make_signal(1);
  std::vector<std::unique_ptr<queues::Signal>> done;
  ASSERT_TRUE(q->submit(barrier_and({gate->handle()}, 0)).ok());
  for (int i = 0; i < 20; ++i) {
    done.push_back(make_signal(1));
    ASSERT_TRUE(q->submit(queues::make_marker(done.back()->handle())).ok());
  }
  // Nothing behind the blocked barrier may complete.
  EXPECT_EQ(done[0]->wait(Cond::Eq, 0, 50ms).err(), ETIMEDOUT);
  EXPECT_EQ(q->read_index(), 0u);
  gate->store(0);
  ASSERT_TRUE(wait_eq(*done.back(), 0).ok());
  for (auto& d : done) EXPECT_EQ(d->load(), 0);  // earlier ones finished first
  EXPECT_TRUE(q->wait_idle(5s).ok());
  EXPECT_EQ(q->read_index(), 21u);
}

TEST(AqlQueue, BarrierBitWaitsForEarlierPackets) {
  auto q = make_queue();
  auto gate = make_signal(1);
  auto first = make_signal(1);
  auto second = make_signal(1);
  ASSERT_TRUE(q->submit(queues::make_barrier_value(gate->handle(), pm4::aql::kCondEq, 0, -1,
                                                   first->handle())).ok());
  ASSERT_TRUE(q->submit(barrier_and({}, second->handle(), /*barrier_bit=*/true)).ok());
  EXPECT_EQ(second->wait(Cond::Eq, 0, 50ms).err(), ETIMEDOUT);
  gate->store(0);
  ASSERT_TRUE(wait_eq(*second, 0).ok());
  EXPECT_EQ(first->load(), 0);
}

TEST(AqlQueue, BarrierAndWaitsForAllQueues) {
  auto a = make_queue(), b = make_queue(), c = make_queue();
  auto gate_a = make_signal(1), gate_b = make_signal(1);
  auto done_a = make_signal(1), done_b = make_signal(1), all = make_signal(1);
  ASSERT_TRUE(a->submit(barrier_and({gate_a->handle()}, done_a->handle())).ok());
  ASSERT_TRUE(b->submit(barrier_and({gate_b->handle()}, done_b->handle())).ok());
  ASSERT_TRUE(c->submit(barrier_and({done_a->handle(), 0, done_b->handle()}, all->handle())).ok());
  gate_a->store(0);
  ASSERT_TRUE(wait_eq(*done_a, 0).ok());
  EXPECT_EQ(all->wait(Cond::Eq, 0, 50ms).err(), ETIMEDOUT);  // one dependency still pending
  gate_b->store(0);
  ASSERT_TRUE(wait_eq(*all, 0).ok());
}

TEST(AqlQueue, BarrierOrWaitsForAnyQueue) {
  auto a = make_queue(), c = make_queue();
  auto gate = make_signal(1), never = make_signal(1), done_a = make_signal(1), any = make_signal(1);
  ASSERT_TRUE(a->submit(barrier_and({gate->handle()}, done_a->handle())).ok());
  ASSERT_TRUE(c->submit(barrier_or({never->handle(), done_a->handle()}, any->handle())).ok());
  EXPECT_EQ(any->wait(Cond::Eq, 0, 50ms).err(), ETIMEDOUT);
  gate->store(0);
  ASSERT_TRUE(wait_eq(*any, 0).ok());
  EXPECT_EQ(never->load(), 1);
}

TEST(AqlQueue, BarrierValueComparesMaskedValue) {
  auto q = make_queue();
  auto sig = make_signal(0x100), done = make_signal(1);
  // Waits until (value & 0xff) >= 3: 0x100 and 0x102 do not satisfy it, 0x203 does.
  ASSERT_TRUE(q->submit(queues::make_barrier_value(sig->handle(), pm4::aql::kCondGte, 3, 0xff,
                                                   done->handle())).ok());
  sig->store(0x102);
  EXPECT_EQ(done->wait(Cond::Eq, 0, 50ms).err(), ETIMEDOUT);
  sig->store(0x203);
  ASSERT_TRUE(wait_eq(*done, 0).ok());
}

TEST(AqlQueue, WrapsAroundTenTimesTheRing) {
  const uint32_t ring = 64, n = ring * 10;
  auto q = make_queue(ring);
  auto count = make_signal(n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_TRUE(q->submit(queues::make_marker(count->handle())).ok());
  ASSERT_TRUE(wait_eq(*count, 0).ok());
  EXPECT_TRUE(q->wait_idle(5s).ok());
  EXPECT_EQ(q->read_index(), uint64_t(n));
  EXPECT_EQ(q->write_index(), uint64_t(n));
}

// On a multi-producer queue the doorbell may be rung with any packet index: two producers that
// race can leave the lower index in the doorbell last. Every published packet still runs.
TEST(AqlQueue, RunsPacketsPastALowerDoorbellValue) {
  auto q = make_queue(64);
  auto first = make_signal(1), second = make_signal(1);
  auto idx = q->reserve(2);
  ASSERT_TRUE(idx.ok()) << idx.message();
  q->write(*idx, queues::make_marker(first->handle()));
  q->write(*idx + 1, queues::make_marker(second->handle()));
  q->ring_doorbell(*idx);  // the later producer's ring came first and was overwritten
  ASSERT_TRUE(wait_eq(*first, 0).ok());
  auto r = wait_eq(*second, 0);
  EXPECT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(q->wait_idle(5s).ok());
}

TEST(AqlQueue, EightProducersRaceOnOneQueue) {
  const int threads = 8, per = 1000;
  auto q = make_queue(128);
  auto count = make_signal(threads * per);
  std::atomic<int> failures{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < per; ++i)
        if (!q->submit(queues::make_marker(count->handle())).ok()) failures++;
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE(wait_eq(*count, 0, 30s).ok());
  EXPECT_TRUE(q->wait_idle(5s).ok());
  EXPECT_EQ(q->read_index(), uint64_t(threads * per));
}

TEST(AqlQueue, AppliesBackPressureWhenFull) {
  const uint32_t ring = 16;
  auto q = make_queue(ring);
  auto gate = make_signal(1), count = make_signal(ring);
  ASSERT_TRUE(q->submit(barrier_and({gate->handle()}, count->handle())).ok());
  for (uint32_t i = 1; i < ring; ++i) ASSERT_TRUE(q->submit(queues::make_marker(count->handle())).ok());
  // Full: a bounded reserve gives up and leaves no hole.
  auto r = q->reserve(1, 30ms);
  EXPECT_EQ(r.err(), ETIMEDOUT) << r.message();
  EXPECT_EQ(q->write_index(), uint64_t(ring));
  // An unbounded producer blocks until the device makes room.
  auto extra = make_signal(1);
  std::atomic<bool> returned{false};
  std::thread producer([&] {
    EXPECT_TRUE(q->submit(queues::make_marker(extra->handle())).ok());
    returned = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(returned.load());
  gate->store(0);
  producer.join();
  EXPECT_TRUE(returned.load());
  ASSERT_TRUE(wait_eq(*extra, 0).ok());
  EXPECT_EQ(count->load(), 0);
}

// A retired packet: completion signal stamped (profiling queue) within the GPU clock's bounds, the
// slot's header back to INVALID, read_dispatch_id past it.
TEST(AqlQueue, RetiresPacketsWithTimestampsAndInvalidHeaders) {
  queues::QueueOptions o;
  o.packets = 64;
  o.profiling = true;
  auto made = rt().create_queue(o);
  ASSERT_TRUE(made.ok()) << made.message();
  auto q = std::move(made).value();
  auto done = make_signal(1);
  auto clock = [&] {
    auto c = rt().platform().kfd().get_clock_counters(q->gpu_id());
    EXPECT_TRUE(c.ok()) << c.message();
    return c.ok() ? c->gpu_clock_counter : 0;
  };
  const uint64_t before = clock();
  auto idx = q->reserve(1);
  ASSERT_TRUE(idx.ok()) << idx.message();
  q->write(*idx, queues::make_marker(done->handle()));
  q->ring_doorbell(*idx);
  ASSERT_TRUE(wait_eq(*done, 0).ok());
  ASSERT_TRUE(q->wait_idle(5s).ok());
  const uint64_t after = clock();
  EXPECT_LE(before, done->amd()->start_ts);
  EXPECT_LE(done->amd()->start_ts, done->amd()->end_ts);
  EXPECT_LE(done->amd()->end_ts, after);
  EXPECT_GT(done->amd()->end_ts, 0u);
  auto* ring = reinterpret_cast<const uint16_t*>(q->amd_queue()->hsa_queue.base_address);
  const uint16_t header = __atomic_load_n(&ring[(*idx % q->size()) * 32], __ATOMIC_ACQUIRE);
  EXPECT_EQ(pm4::aql::header_type(header), pm4::aql::kTypeInvalid);
  EXPECT_EQ(q->read_index(), *idx + 1);
}

// Without ENABLE_PROFILING the device completes the signal but leaves its timestamps alone (a
// runtime that wants packet times must ask for them, as on hardware).
TEST(AqlQueue, LeavesTimestampsAloneWithoutProfiling) {
  auto q = make_queue(64);
  ASSERT_NE(q, nullptr);
  auto done = make_signal(1);
  done->amd()->start_ts = 7;
  done->amd()->end_ts = 9;
  ASSERT_TRUE(q->submit(queues::make_marker(done->handle())).ok());
  ASSERT_TRUE(wait_eq(*done, 0).ok());
  EXPECT_EQ(done->amd()->start_ts, 7u);
  EXPECT_EQ(done->amd()->end_ts, 9u);
}

// CPU time of the whole process (the emulator's command processor runs in it), in seconds.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// An idle device must not burn a host core: with a queue alive and nothing to run, the process
// uses a small part of one core. (A busy host only lowers the figure, so this cannot flake on
// load; a command processor that kept spinning would use most of a core.)
TEST(AqlQueue, IdleQueueCostsLittleHostCpu) {
  auto q = make_queue(64);
  auto done = make_signal(1);
  ASSERT_TRUE(q->submit(queues::make_marker(done->handle())).ok());
  ASSERT_TRUE(wait_eq(*done, 0).ok());
  std::this_thread::sleep_for(200ms);  // let the device settle into its idle state
  const double cpu0 = process_cpu_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(1s);
  const double cpu = process_cpu_seconds() - cpu0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  EXPECT_LT(cpu, 0.2 * wall) << cpu << " s of CPU in " << wall << " s with an idle queue";
  // Still responsive after idling.
  auto again = make_signal(1);
  ASSERT_TRUE(q->submit(queues::make_marker(again->handle())).ok());
  EXPECT_TRUE(wait_eq(*again, 0).ok());
}

TEST(AqlQueue, DestroysWithPendingWorkWithoutLeaking) {
  auto warm = make_signal(0);  // the signal pool's first chunk exists before we count
  size_t before = rt().memory().allocation_count();
  {
    auto q = make_queue(64);
    auto gate = make_signal(1), done = make_signal(1);
    ASSERT_TRUE(q->submit(barrier_and({gate->handle()}, 0)).ok());
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(q->submit(queues::make_marker(done->handle())).ok());
    EXPECT_EQ(q->read_index(), 0u);
    EXPECT_TRUE(q->destroy().ok());
    EXPECT_TRUE(q->destroy().ok());  // idempotent
    EXPECT_EQ(done->load(), 1);
  }
  EXPECT_EQ(rt().memory().allocation_count(), before);
  auto q = make_queue(64);  // the device is still usable
  auto done = make_signal(1);
  ASSERT_TRUE(q->submit(queues::make_marker(done->handle())).ok());
  EXPECT_TRUE(wait_eq(*done, 0).ok());
}

}  // namespace

namespace {

using namespace qtest;

TEST(AqlQueue, BarrierAndSpansTwoGpus) {
  if (rt().gpus().size() < 2) GTEST_SKIP() << "needs two GPUs (KFDEMU_GPUS=2 under the emulator)";
  queues::QueueOptions o0, o1;
  o0.gpu_id = rt().gpus()[0]->gpu_id;
  o1.gpu_id = rt().gpus()[1]->gpu_id;
  auto q0 = std::move(rt().create_queue(o0)).value();
  auto q1 = std::move(rt().create_queue(o1)).value();
  EXPECT_EQ(q1->gpu_id(), o1.gpu_id);
  auto gate = make_signal(1), on0 = make_signal(1), on1 = make_signal(1);
  ASSERT_TRUE(q0->submit(barrier_and({gate->handle()}, on0->handle())).ok());
  ASSERT_TRUE(q1->submit(barrier_and({on0->handle()}, on1->handle())).ok());
  EXPECT_EQ(on1->wait(queues::Cond::Eq, 0, 50ms).err(), ETIMEDOUT);
  gate->store(0);
  EXPECT_TRUE(wait_eq(*on1, 0).ok());
}

}  // namespace

namespace {

using namespace qtest;

TEST(AqlQueue, RefusesToFreeItsBuffersWhileAlive) {
  auto q = make_queue(64);
  void* ring = reinterpret_cast<void*>(q->amd_queue()->hsa_queue.base_address);
  auto st = rt().memory().free(ring);
  EXPECT_EQ(st.err(), EBUSY) << st.message();
  auto info = rt().memory().lookup(ring);  // still a valid allocation
  ASSERT_TRUE(info.ok()) << info.message();
  auto done = make_signal(1);
  ASSERT_TRUE(q->submit(queues::make_marker(done->handle())).ok());
  EXPECT_TRUE(wait_eq(*done, 0).ok());
  EXPECT_TRUE(q->destroy().ok());
}

}  // namespace
