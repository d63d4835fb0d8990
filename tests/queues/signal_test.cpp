// SPDX-License-Identifier: MIT
// Device tests of signals: conditions, timeouts, the wait policy, interrupt wake-ups, event budget.
#include <atomic>
#include <thread>
#include <vector>

#include "queue_test_util.h"

namespace {

using namespace qtest;
using queues::Cond;
using Clock = std::chrono::steady_clock;

TEST(Signal, LivesInUncachedSignalMemory) {
  auto s = make_signal(42);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->amd()->kind, pm4::aql::kSignalKindUser);
  EXPECT_EQ(s->load(), 42);
  EXPECT_TRUE(s->is_interrupt());
  EXPECT_NE(s->amd()->event_mailbox_ptr, 0u);
  auto info = rt().memory().lookup(s->amd());
  ASSERT_TRUE(info.ok()) << info.message();
  EXPECT_EQ(info->coherence, mem::Coherence::Uncached);
  auto p = make_signal(0, queues::SignalKind::Polling);
  EXPECT_FALSE(p->is_interrupt());
  EXPECT_EQ(p->amd()->event_mailbox_ptr, 0u);
}

TEST(Signal, HostOperationsReturnOldValues) {
  auto s = make_signal(10);
  EXPECT_EQ(s->add(5), 10);
  EXPECT_EQ(s->sub(3), 15);
  EXPECT_EQ(s->exchange(7), 12);
  int64_t expected = 7;
  EXPECT_TRUE(s->compare_exchange(expected, 9));
  expected = 1;
  EXPECT_FALSE(s->compare_exchange(expected, 2));
  EXPECT_EQ(expected, 9);
}

TEST(Signal, WaitsOnEveryCondition) {
  auto s = make_signal(5);
  EXPECT_EQ(*s->wait(Cond::Eq, 5, 0ms), 5);
  EXPECT_EQ(*s->wait(Cond::Ne, 4, 0ms), 5);
  EXPECT_EQ(*s->wait(Cond::Lt, 6, 0ms), 5);
  EXPECT_EQ(*s->wait(Cond::Gte, 5, 0ms), 5);
  EXPECT_EQ(s->wait(Cond::Eq, 4, 0ms).err(), ETIMEDOUT);
  EXPECT_EQ(s->wait(Cond::Ne, 5, 0ms).err(), ETIMEDOUT);
  EXPECT_EQ(s->wait(Cond::Lt, 5, 0ms).err(), ETIMEDOUT);
  EXPECT_EQ(s->wait(Cond::Gte, 6, 0ms).err(), ETIMEDOUT);
}

TEST(Signal, TimesOutWithEveryPolicy) {
  for (const auto& policy : {queues::WaitPolicy::spinning(), queues::WaitPolicy::blocking(),
                             queues::WaitPolicy{}}) {
    for (auto kind : {queues::SignalKind::Interrupt, queues::SignalKind::Polling}) {
      auto s = make_signal(1, kind);
      auto t0 = Clock::now();
      auto r = s->wait(Cond::Eq, 0, 30ms, policy);
      auto dt = Clock::now() - t0;
      EXPECT_EQ(r.err(), ETIMEDOUT) << r.message();
      EXPECT_NE(r.message().find("timed out"), std::string::npos);
      EXPECT_GE(dt, 30ms);
      EXPECT_LT(dt, 1s);
    }
  }
}

TEST(Signal, HostStoreWakesBlockedWaiter) {
  auto s = make_signal(1);
  queues::WaitPolicy p = queues::WaitPolicy::blocking();
  p.block_slice_ms = 20000;  // only the event can end the wait early
  std::thread t([&] {
    std::this_thread::sleep_for(30ms);
    s->store(0);
  });
  auto t0 = Clock::now();
  auto r = s->wait(Cond::Eq, 0, 10s, p);
  auto dt = Clock::now() - t0;
  t.join();
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_LT(dt, 2s);
}

TEST(Signal, BlockedWaiterIsWokenByTheDeviceInterrupt) {
  auto q = make_queue();
  auto s = make_signal(1);
  queues::WaitPolicy p = queues::WaitPolicy::blocking();
  p.block_slice_ms = 20000;  // a polling waiter would sleep 20 s per slice
  std::atomic<bool> waiting{false};
  Clock::time_point woke;
  base::Result<int64_t> r = base::Error::msg("not run");
  std::thread waiter([&] {
    waiting = true;
    r = s->wait(Cond::Eq, 0, 10s, p);
    woke = Clock::now();
  });
  while (!waiting) std::this_thread::yield();
  std::this_thread::sleep_for(50ms);  // let it block in WAIT_EVENTS
  auto sent = Clock::now();
  ASSERT_TRUE(q->submit(queues::make_marker(s->handle())).ok());
  waiter.join();
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(*r, 0);
  EXPECT_LT(woke - sent, 2s);
}

TEST(Signal, ManySignalsShareABoundedSetOfEvents) {
  const int n = 5000;
  std::vector<std::unique_ptr<queues::Signal>> sigs;
  for (int i = 0; i < n; ++i) {
    sigs.push_back(make_signal(1));
    ASSERT_TRUE(sigs.back());
  }
  EXPECT_LE(rt().events().event_count(), rt().events().max_events());
  int interrupt = 0;
  for (auto& s : sigs) interrupt += s->is_interrupt();
  EXPECT_EQ(interrupt, n);  // shared, not dropped to polling
  // Signals that share an event still wake their own waiters.
  auto q = make_queue();
  queues::WaitPolicy p = queues::WaitPolicy::blocking();
  p.block_slice_ms = 20000;
  for (int i : {0, 64, 128, n - 1}) {
    std::thread t([&] {
      std::this_thread::sleep_for(10ms);
      EXPECT_TRUE(q->submit(queues::make_marker(sigs[i]->handle())).ok());
    });
    auto r = sigs[i]->wait(Cond::Eq, 0, 10s, p);
    t.join();
    EXPECT_TRUE(r.ok()) << r.message();
  }
  EXPECT_EQ(sigs[1]->load(), 1);
}

}  // namespace
