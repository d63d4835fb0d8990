// SPDX-License-Identifier: MIT
// kfdtest-style device tests of SDMA queues: create, fences, copies, fills, wraparound, concurrency, events.
#include <atomic>
#include <random>
#include <thread>

#include "pm4_test_util.h"

namespace {

using namespace pm4test;
using queues::Cond;

class SdmaQueue : public ::testing::Test {
 protected:
  void SetUp() override {
    if (rt().sdma_engines() == 0) GTEST_SKIP() << "the GPU has no SDMA engines (topology)";
  }
};

TEST_F(SdmaQueue, CreateDestroySdmaQueue) {
  auto q = make_sdma();
  ASSERT_TRUE(q);
  EXPECT_EQ(q->ring_bytes(), 4096u);
  EXPECT_FALSE(q->xgmi());
  EXPECT_EQ(q->write_index(), 0u);
  EXPECT_TRUE(q->destroy().ok());
  EXPECT_TRUE(q->destroy().ok());
}

TEST_F(SdmaQueue, RejectsBadArguments) {
  queues::SdmaQueueOptions o;
  for (uint32_t bytes : {0u, 100u, 512u, 6000u, 1u << 31}) {
    o.ring_bytes = bytes;
    EXPECT_EQ(rt().create_sdma_queue(o).err(), EINVAL) << bytes;
  }
  o.ring_bytes = 4096;
  o.percentage = 0;
  EXPECT_EQ(rt().create_sdma_queue(o).err(), EINVAL);
  o.percentage = 100;
  if (rt().sdma_engines(0, true) == 0) {
    o.xgmi = true;
    auto x = rt().create_sdma_queue(o);
    EXPECT_EQ(x.kind(), base::ErrorKind::NotSupported) << x.message();
    EXPECT_NE(x.message().find("num_sdma_xgmi_engines 0"), std::string::npos) << x.message();
  }
}

TEST_F(SdmaQueue, CreatesXgmiQueuesWhereTheTopologyHasThem) {
  if (rt().sdma_engines(0, true) == 0) GTEST_SKIP() << "no XGMI SDMA engines";
  auto q = make_sdma(4096, true);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->xgmi());
  Buffer dst(4096);
  ASSERT_TRUE(q->fill(dst.va(), 0x5A5A5A5A, 4096).ok());
  ASSERT_TRUE(q->wait_idle(10s).ok());
  EXPECT_EQ(dst.as()[1023], 0x5A5A5A5Au);
}

TEST_F(SdmaQueue, SubmitNopSdmaQueue) {
  auto q = make_sdma();
  ASSERT_TRUE(q);
  uint32_t nop[4];
  pm4::sdma::write_nop(nop, 4);
  ASSERT_TRUE(q->submit(nop).ok());
  auto st = q->wait_consumed(10s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(q->read_index(), q->write_index());
}

// A FENCE lands (kfdtest SubmitPacketSdmaQueue writes a dword the same way).
TEST_F(SdmaQueue, SubmitPacketSdmaQueue) {
  auto q = make_sdma();
  Buffer dst(4096);
  ASSERT_TRUE(q && dst);
  std::memset(dst.as(), 0xFF, 4096);
  uint32_t f[pm4::sdma::kFenceDwords];
  pm4::sdma::write_fence(f, dst.va(), 0x02020202);
  ASSERT_TRUE(q->submit(f).ok());
  ASSERT_TRUE(q->wait_consumed(10s).ok());
  EXPECT_TRUE(wait_value(dst.as(), 0x02020202));
  EXPECT_EQ(dst.as()[1], 0xFFFFFFFFu);
  ASSERT_TRUE(q->wait_idle(10s).ok());
}

TEST_F(SdmaQueue, CopiesAndFillsOfEveryShape) {
  auto q = make_sdma(64 << 10);
  const size_t size = (9u << 20) + 13;  // over two COPY_LINEAR packets on SDMA v4, odd length
  Buffer src(size + 64), dst(size + 64);
  ASSERT_TRUE(q && src && dst);
  std::mt19937 rng(7);
  for (size_t i = 0; i < size; ++i) src.as<uint8_t>()[i + 3] = uint8_t(rng());
  ASSERT_TRUE(q->copy(dst.va() + 1, src.va() + 3, size).ok());  // unaligned both sides
  ASSERT_TRUE(q->wait_idle(30s).ok());
  EXPECT_EQ(std::memcmp(dst.as<uint8_t>() + 1, src.as<uint8_t>() + 3, size), 0);
  EXPECT_EQ(dst.as<uint8_t>()[0], 0u);
  EXPECT_EQ(dst.as<uint8_t>()[size + 1], 0u);
  ASSERT_TRUE(q->fill(dst.va() + 64, 0xC0FFEE00, 4096).ok());
  ASSERT_TRUE(q->wait_idle(10s).ok());
  EXPECT_EQ(dst.as()[16], 0xC0FFEE00u);
  EXPECT_EQ(dst.as()[16 + 1023], 0xC0FFEE00u);
  EXPECT_NE(dst.as()[16 + 1024], 0xC0FFEE00u);
  EXPECT_EQ(q->fill(dst.va() + 2, 0, 8).err(), EINVAL);
}

// Copies round a one-page ring more than once, each followed by a FENCE (kfdtest
// SdmaQueueWraparound): a packet is never split at the ring's end.
TEST_F(SdmaQueue, SdmaQueueWraparound) {
  auto q = make_sdma(4096);
  const size_t page = 4096;
  Buffer src(page), dst(2 * page);
  ASSERT_TRUE(q && src && dst);
  const uint32_t per = pm4::sdma::kCopyLinearDwords + pm4::sdma::kFenceDwords +
                       (q->hdp_flush() ? pm4::sdma::kPollRegMemDwords : 0);
  const uint32_t rounds = 2 * 1024 / per + 3;
  for (uint32_t i = 1; i <= rounds; ++i) {
    std::memset(dst.as(), 0, page);
    for (size_t w = 0; w < page / 4; ++w) src.as()[w] = i * 1000 + uint32_t(w);
    ASSERT_TRUE(q->copy(dst.va(), src.va(), page).ok());
    uint32_t f[pm4::sdma::kFenceDwords];
    pm4::sdma::write_fence(f, dst.va() + page, i);
    ASSERT_TRUE(q->submit(f).ok());
    ASSERT_TRUE(q->wait_consumed(10s).ok());
    ASSERT_TRUE(wait_value(dst.as() + page / 4, i)) << "round " << i;
    ASSERT_EQ(std::memcmp(dst.as(), src.as(), page), 0) << "round " << i;
  }
  EXPECT_GT(q->write_index(), 2u * 1024u);
}

// Copies from several threads on one queue each, one queue per SDMA engine and more, with waits
// at uneven times (kfdtest SdmaConcurrentCopies, scaled to the machine).
TEST_F(SdmaQueue, SdmaConcurrentCopies) {
  const uint32_t nq = std::min(2 * rt().sdma_engines(), 2 * cores());
  const uint32_t iters = 64 * cores();
  const size_t size = 64 << 10;
  std::vector<std::thread> ts;
  std::atomic<int> failures{0};
  std::vector<std::string> why(nq);
  for (uint32_t t = 0; t < nq; ++t)
    ts.emplace_back([&, t] {
      auto q = make_sdma(16 << 10);
      Buffer src(size), dst(size);
      if (!q || !src || !dst) {
        ++failures;
        return;
      }
      for (uint32_t i = 0; i < iters; ++i) {
        src.as()[i % (size / 4)] = i + t;
        if (!q->copy(dst.va(), src.va(), size).ok()) ++failures;
        for (uint32_t k = 0; k < (i & 0xF); ++k) std::this_thread::yield();
        if ((i & 7) == 0) {
          auto st = q->wait_consumed(30s);
          if (!st.ok()) {
            why[t] = st.message();
            ++failures;
          }
        }
      }
      auto st = q->wait_idle(60s);
      if (!st.ok()) {
        why[t] = st.message();
        ++failures;
        return;
      }
      if (std::memcmp(dst.as(), src.as(), size) != 0) {
        why[t] = "copy mismatch";
        ++failures;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (auto& w : why) EXPECT_TRUE(w.empty()) << w;
}

// Copies on up to three queues at once, each completing an interrupt signal (FENCE + TRAP),
// with SDMA timestamps around the work (kfdtest SdmaEventInterrupt), many times.
TEST_F(SdmaQueue, SdmaEventInterrupt) {
  const size_t size = 1 << 20;
  Buffer src(size), ts(4096);
  ASSERT_TRUE(src && ts);
  const uint32_t nq = 3, iters = 8 * cores();
  std::vector<std::unique_ptr<Buffer>> dst;
  for (uint32_t i = 0; i < nq; ++i) dst.push_back(std::make_unique<Buffer>(size));
  queues::WaitPolicy blocking = queues::WaitPolicy::blocking();
  for (uint32_t active = 1; active <= nq; ++active)
    for (uint32_t it = 0; it < iters; ++it) {
      std::vector<std::unique_ptr<queues::SdmaQueue>> qs;
      std::vector<std::unique_ptr<queues::Signal>> evs;
      src.as<uint64_t>()[0] = uint64_t(active) << 32 | it;
      for (uint32_t i = 0; i < active; ++i) {
        qs.push_back(make_sdma(16 << 10));
        evs.push_back(make_signal(1));
        ASSERT_TRUE(qs[i] && evs[i]);
        const uint64_t stamps = ts.va() + 128 * i;
        queues::SdmaCompletion c;
        c.signal = queues::signal_target(*evs[i]);
        const uint32_t dw = 2 * pm4::sdma::kTimestampDwords + queues::sdma_copy_dwords(size, family()) +
                            queues::sdma_signal_dwords(c);
        auto st = qs[i]->emit(dw, [&](uint32_t* out) {
          size_t n = *queues::write_sdma_timestamp(out, stamps);
          n += queues::write_sdma_copy(out + n, family(), dst[i]->va(), src.va(), size);
          n += *queues::write_sdma_timestamp(out + n, stamps + 32);
          return n + queues::write_sdma_signal(out + n, c);
        });
        ASSERT_TRUE(st.ok()) << st.message();
      }
      for (uint32_t i = 0; i < active; ++i) {
        auto w = evs[i]->wait(Cond::Eq, 0, 20s, blocking);
        ASSERT_TRUE(w.ok()) << active << " queues, iteration " << it << ", queue " << i << ": " << w.message();
        EXPECT_EQ(dst[i]->as<uint64_t>()[0], src.as<uint64_t>()[0]);
        const uint64_t* t = reinterpret_cast<const uint64_t*>(ts.as<uint8_t>() + 128 * i);
        EXPECT_LE(t[0], t[4]);  // before the copy, after it
      }
      for (auto& q : qs) EXPECT_TRUE(q->destroy().ok());
    }
}

// A blocked waiter is woken by the TRAP's interrupt, not by its timeout; a decrement completion
// (SDMA ATOMIC) counts several copies down.
TEST_F(SdmaQueue, TrapWakesABlockedWaiterAndAtomicsCountDown) {
  auto q = make_sdma(16 << 10);
  Buffer gate(4096), src(4096), dst(4096);
  auto ev = make_signal(3);
  ASSERT_TRUE(q && gate && ev);
  uint32_t poll[pm4::sdma::kPollRegMemDwords];
  pm4::sdma::PollRegMem p;
  p.address = gate.va();
  p.value = 1;
  pm4::sdma::write_poll_regmem(poll, p);
  ASSERT_TRUE(q->submit(poll).ok());
  queues::SdmaCompletion c;
  c.signal = queues::signal_target(*ev);
  c.decrement = true;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(q->copy(dst.va(), src.va(), 4096, &c).ok());
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
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << "woken by the deadline, not the trap";
}

// POLL_REGMEM on a 64-bit signal holds the queue until the value reaches 0.
TEST_F(SdmaQueue, WaitsOnASignalValue) {
  auto q = make_sdma();
  Buffer dst(4096);
  auto gate = make_signal(int64_t(1) << 32, queues::SignalKind::Polling);
  ASSERT_TRUE(q && dst && gate);
  ASSERT_TRUE(q->wait_signal(reinterpret_cast<uint64_t>(&gate->amd()->value), Cond::Eq, 0).ok());
  ASSERT_TRUE(q->fill(dst.va(), 9, 4).ok());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(dst.as()[0], 0u);
  gate->store(0);
  EXPECT_TRUE(wait_value(dst.as(), 9));
}

TEST_F(SdmaQueue, FailsCleanlyWhenUsedAfterDestroy) {
  auto q = make_sdma();
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->destroy().ok());
  uint32_t nop = 0;
  EXPECT_EQ(q->submit(std::span(&nop, 1)).err(), EINVAL);
  EXPECT_EQ(q->copy(0x1000, 0x2000, 4).err(), EINVAL);
  EXPECT_EQ(q->wait_idle(10ms).err(), EINVAL);
  EXPECT_EQ(q->wait_consumed(10ms).err(), EINVAL);
}

// DESTROY_QUEUE while the engine polls memory nobody writes.
TEST_F(SdmaQueue, DestroysWithWorkPending) {
  auto q = make_sdma();
  Buffer gate(4096);
  ASSERT_TRUE(q && gate);
  uint32_t poll[pm4::sdma::kPollRegMemDwords];
  pm4::sdma::PollRegMem p;
  p.address = gate.va();
  p.value = 1;
  pm4::sdma::write_poll_regmem(poll, p);
  ASSERT_TRUE(q->submit(poll).ok());
  ASSERT_TRUE(q->fill(gate.va() + 4, 5, 4).ok());
  auto st = q->wait_idle(50ms);
  EXPECT_EQ(st.err(), ETIMEDOUT) << st.message();
  EXPECT_TRUE(q->destroy().ok());
  EXPECT_EQ(gate.as()[1], 0u);
  auto q2 = make_sdma();
  ASSERT_TRUE(q2);
  ASSERT_TRUE(q2->fill(gate.va() + 8, 6, 4).ok());
  EXPECT_TRUE(q2->wait_idle(10s).ok());
  EXPECT_EQ(gate.as()[2], 6u);
}

}  // namespace
