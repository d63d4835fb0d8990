// SPDX-License-Identifier: MIT
// base::FastMutex: mutual exclusion under contention (the futex path), try_lock, lock_guard use.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "base/fast_mutex.h"

namespace {

// Four threads add to a plain counter under the mutex: a lost update (no exclusion) or a
// missed wake-up (a waiter that never returns) makes the total wrong or the test hang.
TEST(FastMutex, ExcludesContendingThreads) {
  base::FastMutex mu;
  uint64_t counter = 0;  // deliberately not atomic: only the mutex protects it
  constexpr int kThreads = 4, kRounds = 200000;
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        std::lock_guard lk(mu);
        uint64_t v = counter;
        if (i % 1024 == 0) std::this_thread::yield();  // hold it across a reschedule now and then
        counter = v + 1;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(counter, uint64_t(kThreads) * kRounds);
}

TEST(FastMutex, TryLockFailsWhileHeld) {
  base::FastMutex mu;
  ASSERT_TRUE(mu.try_lock());
  bool other = true;
  std::thread([&] { other = mu.try_lock(); }).join();
  EXPECT_FALSE(other);
  mu.unlock();
  EXPECT_TRUE(mu.try_lock());
  mu.unlock();
}

}  // namespace
