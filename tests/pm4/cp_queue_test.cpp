// SPDX-License-Identifier: MIT
// kfdtest-style device tests of PM4 compute queues: create, NOPs, WRITE_DATA, wraparound, events, waits.
#include <linux/kfd_ioctl.h>

#include <atomic>
#include <bit>
#include <thread>

#include "pm4_test_util.h"

namespace {

using namespace pm4test;
using queues::Cond;

TEST(Pm4Queue, CreateDestroyCpQueue) {
  auto q = make_pm4();
  ASSERT_TRUE(q);
  EXPECT_EQ(q->ring_bytes(), 4096u);
  EXPECT_EQ(q->write_index(), 0u);
  EXPECT_EQ(q->read_index(), 0u);
  // Linux 6.12's rules: EOP and CWSR sized as the node's compute queues need them.
  EXPECT_EQ(q->buffer_sizes().eop_size, pm4::queue_buffer_sizes(first_gpu().props()).eop_size);
  EXPECT_EQ(q->amd_queue()->hsa_queue.id, q->queue_id());
  EXPECT_TRUE(q->destroy().ok());
  EXPECT_TRUE(q->destroy().ok());  // idempotent
}

TEST(Pm4Queue, RejectsBadRingSizes) {
  queues::Pm4QueueOptions o;
  const size_t before = rt().memory().allocation_count();
  for (uint32_t bytes : {0u, 512u, 3000u, 4097u, 1u << 31}) {
    o.ring_bytes = bytes;
    auto q = rt().create_pm4_queue(o);
    EXPECT_EQ(q.err(), EINVAL) << bytes;
    EXPECT_NE(q.message().find("ring size"), std::string::npos) << q.message();
  }
  o.ring_bytes = 4096;
  o.priority = 16;
  EXPECT_EQ(rt().create_pm4_queue(o).err(), EINVAL);
  o.priority = 7;
  o.gpu_id = 0xFFFF;
  EXPECT_EQ(rt().create_pm4_queue(o).err(), ENODEV);
  EXPECT_EQ(rt().memory().allocation_count(), before);
}

TEST(Pm4Queue, SubmitNopCpQueue) {
  auto q = make_pm4();
  ASSERT_TRUE(q);
  uint32_t nops[8];
  pm4::write_nop(nops, 1);
  pm4::write_nop(nops + 1, 7);
  ASSERT_TRUE(q->submit(nops).ok());
  EXPECT_EQ(q->write_index(), 8u);
  auto st = q->wait_consumed(10s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(q->read_index(), 8u);
  st = q->wait_idle(10s);
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(Pm4Queue, SubmitPacketCpQueue) {
  auto q = make_pm4();
  Buffer dst(4096);
  ASSERT_TRUE(q && dst);
  std::memset(dst.as(), 0xFF, 4096);
  ASSERT_TRUE(q->submit(write_data(dst.va(), 0)).ok());
  ASSERT_TRUE(q->wait_consumed(10s).ok());
  EXPECT_TRUE(wait_value(dst.as(), 0));
  EXPECT_EQ(dst.as()[1], 0xFFFFFFFFu);  // one dword, no more
  // Several dwords in one WRITE_DATA, then idle: all landed.
  const uint32_t data[4] = {1, 2, 3, 4};
  ASSERT_TRUE(q->emit(queues::pm4_write_memory_dwords(4), [&](uint32_t* out) {
    return queues::write_pm4_write_memory(out, dst.va() + 64, data);
  }).ok());
  ASSERT_TRUE(q->wait_idle(10s).ok());
  EXPECT_EQ(std::memcmp(dst.as() + 16, data, sizeof data), 0);
}

// Twice around a one-page ring with one WRITE_DATA and an event each time (kfdtest
// CpQueueWraparound): packets never straddle the end; the tail is NOP-padded.
TEST(Pm4Queue, CpQueueWraparound) {
  auto q = make_pm4(4096);
  Buffer dst(4096);
  auto ev = make_signal(1);
  ASSERT_TRUE(q && dst && ev);
  const uint32_t per = queues::pm4_write_memory_dwords(1) + queues::pm4_signal_dwords(queues::signal_target(*ev));
  const uint32_t rounds = 2 * (1024 / per) + 3;
  for (uint32_t i = 1; i <= rounds; ++i) {
    ev->store(1);
    auto st = q->emit(per, [&](uint32_t* out) {
      size_t n = queues::write_pm4_write_memory(out, dst.va(), std::span(&i, 1));
      return n + queues::write_pm4_signal(out + n, family(), queues::signal_target(*ev), 0);
    });
    ASSERT_TRUE(st.ok()) << st.message();
    auto w = ev->wait(Cond::Eq, 0, 10s);
    ASSERT_TRUE(w.ok()) << "round " << i << ": " << w.message();
    ASSERT_EQ(dst.as()[0], i);
  }
  EXPECT_GT(q->write_index(), 2u * 1024u);  // went round twice
  EXPECT_TRUE(q->wait_consumed(10s).ok());
}

// The ring fills faster than the CP drains it (a WAIT_REG_MEM holds the CP): producers wait and
// resume, and a producer with a deadline gives up with ETIMEDOUT, naming the queue.
TEST(Pm4Queue, WaitsForRoomWhenTheRingIsFull) {
  auto q = make_pm4(1024);
  Buffer gate(4096), dst(4096);
  ASSERT_TRUE(q && gate && dst);
  std::vector<uint32_t> wait(pm4::kWaitRegMemDwords);
  queues::write_pm4_wait_equal(wait.data(), gate.va(), 1);
  ASSERT_TRUE(q->submit(wait).ok());
  uint32_t n = 0;
  base::Status st;
  while ((st = q->submit(write_data(dst.va(), ++n), 50ms)).ok()) ASSERT_LT(n, 1000u);
  EXPECT_EQ(st.err(), ETIMEDOUT) << st.message();
  EXPECT_NE(st.message().find("PM4 queue " + std::to_string(q->queue_id())), std::string::npos) << st.message();
  EXPECT_GE(n - 1, 40u);  // 256 dwords held 40+ five-dword packets before refusing
  std::thread opener([&] {
    std::this_thread::sleep_for(100ms);
    __atomic_store_n(gate.as(), 1u, __ATOMIC_RELEASE);
  });
  for (uint32_t i = 0; i < 400; ++i) {
    st = q->submit(write_data(dst.va() + 4, 10000 + i));  // blocks until the gate opens
    ASSERT_TRUE(st.ok()) << st.message();
  }
  opener.join();
  st = q->wait_idle(10s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(dst.as()[1], 10399u);
}

// Many queues x many iterations, each a page of WRITE_DATAs and an interrupt (kfdtest
// PM4EventInterrupt), scaled to the machine.
TEST(Pm4Queue, PM4EventInterrupt) {
  const uint32_t nq = std::min(8u, 4 * cores());
  const uint32_t iters = 16 * cores();
  const uint32_t words = 1024;
  std::vector<std::unique_ptr<Buffer>> bufs;
  for (uint32_t i = 0; i < nq; ++i) bufs.push_back(std::make_unique<Buffer>(words * 4));
  const uint32_t per = words * queues::pm4_write_memory_dwords(1) + queues::kPm4SignalMaxDwords;
  const uint32_t ring = std::bit_ceil(per * 4 + 4);
  queues::WaitPolicy blocking = queues::WaitPolicy::blocking();
  for (uint32_t it = 0; it < iters; ++it) {
    std::vector<std::unique_ptr<queues::Pm4Queue>> qs;
    std::vector<std::unique_ptr<queues::Signal>> evs;
    const uint32_t marker = 0xdead0000u + it;
    for (uint32_t i = 0; i < nq; ++i) {
      qs.push_back(make_pm4(ring));
      evs.push_back(make_signal(1));
      ASSERT_TRUE(qs.back() && evs.back());
      auto st = qs[i]->emit(per, [&](uint32_t* out) {
        size_t n = 0;
        for (uint32_t w = 0; w < words; ++w)
          n += queues::write_pm4_write_memory(out + n, bufs[i]->va() + 4 * w, std::span(&marker, 1));
        return n + queues::write_pm4_signal(out + n, family(), queues::signal_target(*evs[i]), 0);
      });
      ASSERT_TRUE(st.ok()) << st.message();
    }
    for (uint32_t i = 0; i < nq; ++i) {
      auto w = evs[i]->wait(Cond::Eq, 0, 20s, blocking);
      ASSERT_TRUE(w.ok()) << "iteration " << it << " queue " << i << ": " << w.message();
      EXPECT_EQ(bufs[i]->as()[0], marker);
      EXPECT_EQ(bufs[i]->as()[words - 1], marker);
    }
    for (auto& q : qs) EXPECT_TRUE(q->destroy().ok());
  }
}

// A host thread blocked in WAIT_EVENTS is woken by the RELEASE_MEM interrupt, not its timeout.
TEST(Pm4Queue, ReleaseMemInterruptWakesABlockedWaiter) {
  auto q = make_pm4();
  Buffer gate(4096);
  auto ev = make_signal(1);
  ASSERT_TRUE(q && gate && ev);
  ASSERT_NE(ev->amd()->event_mailbox_ptr, 0u);
  uint32_t cmd[pm4::kWaitRegMemDwords];
  queues::write_pm4_wait_equal(cmd, gate.va(), 1);
  ASSERT_TRUE(q->submit(cmd).ok());
  ASSERT_TRUE(q->signal(queues::signal_target(*ev), 0).ok());
  std::thread opener([&] {
    std::this_thread::sleep_for(200ms);
    __atomic_store_n(gate.as(), 1u, __ATOMIC_RELEASE);
  });
  queues::WaitPolicy blocking = queues::WaitPolicy::blocking();
  blocking.block_slice_ms = 120000;
  const auto start = std::chrono::steady_clock::now();
  auto w = ev->wait(Cond::Eq, 0, 60s, blocking);
  opener.join();
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << "woken by the deadline, not the interrupt";
}

// WAIT_REG_MEM on a 64-bit signal: the CP holds later packets until the value reaches the operand.
TEST(Pm4Queue, WaitsOnASignalValue) {
  auto q = make_pm4();
  Buffer dst(4096);
  auto gate = make_signal(int64_t(1) << 32 | 3, queues::SignalKind::Polling);
  ASSERT_TRUE(q && dst && gate);
  const uint64_t value = reinterpret_cast<uint64_t>(&gate->amd()->value);
  EXPECT_EQ(q->wait_signal(value, Cond::Gte, 1).err(), EINVAL);  // not expressible in two waits
  ASSERT_TRUE(q->wait_signal(value, Cond::Eq, 0).ok());
  ASSERT_TRUE(q->submit(write_data(dst.va(), 7)).ok());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(dst.as()[0], 0u);  // still held
  gate->store(1);              // high dword 0, low 1: still held
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(dst.as()[0], 0u);
  gate->store(0);
  EXPECT_TRUE(wait_value(dst.as(), 7));
  EXPECT_TRUE(q->wait_idle(10s).ok());
}

// COPY_DATA and RELEASE_MEM stamp the GPU clock in order.
TEST(Pm4Queue, TimestampsAreMonotonic) {
  auto q = make_pm4();
  Buffer ts(4096);
  ASSERT_TRUE(q && ts);
  uint32_t cmd[2 * queues::kPm4TimestampDwords + queues::kPm4EndTimestampDwords];
  size_t n = queues::write_pm4_timestamp(cmd, ts.va());
  n += queues::write_pm4_end_timestamp(cmd + n, ts.va() + 8);
  n += queues::write_pm4_timestamp(cmd + n, ts.va() + 16);
  ASSERT_TRUE(q->submit(std::span(cmd, n)).ok());
  ASSERT_TRUE(q->wait_idle(10s).ok());
  const uint64_t* t = ts.as<uint64_t>();
  EXPECT_NE(t[0], 0u);
  EXPECT_LE(t[0], t[1]);
  EXPECT_LE(t[1], t[2]);
}

// An INDIRECT_BUFFER runs the packets it points at, then the ring goes on.
TEST(Pm4Queue, RunsAnIndirectBuffer) {
  auto q = make_pm4();
  Buffer ib(4096, mem::Coherence::Uncached, mem::Heap::Gtt, true), dst(4096);
  ASSERT_TRUE(q && ib && dst);
  size_t n = 0;
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t v = 100 + i;
    n += queues::write_pm4_write_memory(ib.as() + n, dst.va() + 4 * i, std::span(&v, 1));
  }
  pm4::IndirectBuffer b;
  b.address = ib.va();
  b.dwords = uint32_t(n);
  uint32_t cmd[pm4::kIndirectBufferDwords];
  pm4::write_indirect_buffer(cmd, b);
  ASSERT_TRUE(q->submit(cmd).ok());
  ASSERT_TRUE(q->submit(write_data(dst.va() + 64, 1)).ok());
  ASSERT_TRUE(q->wait_idle(10s).ok());
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(dst.as()[i], 100 + i);
  EXPECT_EQ(dst.as()[16], 1u);
}

// Several threads submit through one queue: each WRITE_DATA lands, none is lost or torn.
TEST(Pm4Queue, ProducersOnManyThreads) {
  auto q = make_pm4(4096);
  Buffer dst(4096);
  ASSERT_TRUE(q && dst);
  const uint32_t threads = std::min(4u, 2 * cores()), each = 200;
  std::vector<std::thread> ts;
  std::atomic<int> failures{0};
  for (uint32_t t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      for (uint32_t i = 1; i <= each; ++i)
        if (!q->submit(write_data(dst.va() + 4 * t, i)).ok()) ++failures;
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE(q->wait_idle(10s).ok());
  for (uint32_t t = 0; t < threads; ++t) EXPECT_EQ(dst.as()[t], each);
}

TEST(Pm4Queue, FailsCleanlyWhenUsedAfterDestroy) {
  auto q = make_pm4();
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->destroy().ok());
  uint32_t nop = pm4::kNop1;
  EXPECT_EQ(q->submit(std::span(&nop, 1)).err(), EINVAL);
  EXPECT_EQ(q->wait_idle(10ms).err(), EINVAL);
  EXPECT_EQ(q->wait_consumed(10ms).err(), EINVAL);
  EXPECT_EQ(q->emit(1, [](uint32_t* o) { o[0] = pm4::kNop1; return size_t(1); }).err(), EINVAL);
  queues::Pm4Launch l;
  EXPECT_EQ(q->dispatch(l).err(), EINVAL);
  EXPECT_EQ(q->grow_scratch(64).err(), EINVAL);
}

TEST(Pm4Queue, RejectsPacketsTheRingCannotHold) {
  auto q = make_pm4(1024);
  ASSERT_TRUE(q);
  std::vector<uint32_t> big(256);
  pm4::write_nop(big.data(), 256);  // the whole ring: one dword must stay free
  auto st = q->submit(big);
  EXPECT_EQ(st.err(), EINVAL) << st.message();
  EXPECT_EQ(q->submit(std::span<const uint32_t>()).err(), EINVAL);
  pm4::write_nop(big.data(), 255);
  EXPECT_TRUE(q->submit(std::span(big.data(), 255)).ok());
  EXPECT_TRUE(q->wait_idle(10s).ok());
}

// DESTROY_QUEUE while the CP waits forever on memory nobody writes: the queue goes away.
TEST(Pm4Queue, DestroysWithWorkPending) {
  auto q = make_pm4();
  Buffer gate(4096);
  ASSERT_TRUE(q && gate);
  uint32_t cmd[pm4::kWaitRegMemDwords];
  queues::write_pm4_wait_equal(cmd, gate.va(), 1);
  ASSERT_TRUE(q->submit(cmd).ok());
  ASSERT_TRUE(q->submit(write_data(gate.va() + 4, 5)).ok());
  std::this_thread::sleep_for(20ms);
  auto st = q->wait_idle(50ms);
  EXPECT_EQ(st.err(), ETIMEDOUT) << st.message();
  EXPECT_NE(st.message().find("not idle"), std::string::npos) << st.message();
  EXPECT_TRUE(q->destroy().ok());
  EXPECT_EQ(gate.as()[1], 0u);
  // The device is still usable.
  auto q2 = make_pm4();
  ASSERT_TRUE(q2);
  ASSERT_TRUE(q2->submit(write_data(gate.va() + 8, 6)).ok());
  EXPECT_TRUE(q2->wait_idle(10s).ok());
  EXPECT_EQ(gate.as()[2], 6u);
}

}  // namespace
