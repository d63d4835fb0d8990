// SPDX-License-Identifier: MIT
// Faults at scale through the queues API: every queue type faulting at once (a storm), and a GPU
// reset (HW_EXCEPTION) with work queued on AQL, PM4 and SDMA queues. Each wait ends in an error
// naming the address or the reset, never a hang; queues are destroyed and nothing leaks.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "leak_check.h"
#include "queues/aql_queue.h"
#include "queues/packets.h"
#include "queues/pm4_commands.h"
#include "queues/pm4_queue.h"
#include "queues/runtime.h"
#include "queues/sdma_commands.h"
#include "queues/sdma_queue.h"
#include "queues/signal.h"

namespace {

using namespace std::chrono_literals;
using queues::Cond;

queues::Runtime& rt() {
  static std::unique_ptr<queues::Runtime> r = [] {
    auto x = queues::Runtime::open();
    if (!x) {
      ADD_FAILURE() << x.message();
      std::abort();
    }
    return std::move(x).value();
  }();
  return *r;
}

std::unique_ptr<queues::Signal> signal(int64_t v) {
  auto s = rt().create_signal(v, queues::SignalKind::Interrupt);
  EXPECT_TRUE(s.ok()) << s.message();
  return s.ok() ? std::move(s).value() : nullptr;
}

// An address range reserved on the CPU and never mapped to the GPU.
struct Hole {
  Hole() { p = mmap(nullptr, kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0); }
  ~Hole() { munmap(p, kSize); }
  uint64_t at(uint64_t off) const { return reinterpret_cast<uint64_t>(p) + off; }
  static constexpr size_t kSize = 1 << 20;
  void* p;
};

// The work every queue type holds, a waiter per queue, and the addresses/words that name them.
struct Queues {
  std::vector<std::unique_ptr<queues::AqlQueue>> aql;
  std::vector<std::unique_ptr<queues::Pm4Queue>> pm4;
  std::vector<std::unique_ptr<queues::SdmaQueue>> sdma;
};

Queues make_queues(int n_aql, int n_pm4, int n_sdma) {
  Queues q;
  for (int i = 0; i < n_aql; ++i) {
    queues::QueueOptions o;
    o.packets = 64;
    auto x = rt().create_queue(o);
    EXPECT_TRUE(x.ok()) << x.message();
    if (x) q.aql.push_back(std::move(x).value());
  }
  for (int i = 0; i < n_pm4; ++i) {
    auto x = rt().create_pm4_queue({});
    EXPECT_TRUE(x.ok()) << x.message();
    if (x) q.pm4.push_back(std::move(x).value());
  }
  for (int i = 0; i < n_sdma; ++i) {
    auto x = rt().create_sdma_queue({});
    EXPECT_TRUE(x.ok()) << x.message();
    if (x) q.sdma.push_back(std::move(x).value());
  }
  return q;
}

// Every queue of every type writes a bad address at once; every waiter ends with the device's
// fault, naming one of the addresses, within seconds.
TEST(FaultStorm, EveryQueueTypeFaultsAtOnce) {
  const leak::Snapshot before = leak::snapshot();
  {
    Hole hole;
    Queues q = make_queues(8, 4, 2);
    ASSERT_FALSE(HasFailure());
    std::vector<std::unique_ptr<queues::Signal>> after;
    uint64_t off = 0x1000;
    for (auto& a : q.aql) {
      after.push_back(signal(1));
      auto first = a->reserve(2);
      ASSERT_TRUE(first.ok());
      a->write(*first, queues::make_marker(hole.at(off)));
      a->write(*first + 1, queues::make_marker(after.back()->handle()));
      a->ring_doorbell(*first + 1);
      off += 0x1000;
    }
    for (auto& p : q.pm4) {
      queues::SignalTarget bad;
      bad.value_address = hole.at(off);
      off += 0x1000;
      ASSERT_TRUE(p->signal(bad, 0).ok());
      after.push_back(signal(1));
      ASSERT_TRUE(p->signal(queues::signal_target(*after.back()), 0).ok());
    }
    for (auto& s : q.sdma) {
      ASSERT_TRUE(s->fill(hole.at(off), 0xdead, 4096).ok());
      off += 0x10000;
      after.push_back(signal(1));
      queues::SdmaCompletion c;
      c.signal = queues::signal_target(*after.back());
      ASSERT_TRUE(s->signal(c).ok());
    }
    const std::string base = base::hex(reinterpret_cast<uint64_t>(hole.p)).substr(0, 7);
    auto t0 = std::chrono::steady_clock::now();
    for (auto& s : after) {
      auto r = s->wait(Cond::Eq, 0, 20s);
      ASSERT_FALSE(r.ok()) << "a queue went on past its fault";
      EXPECT_NE(r.err(), ETIMEDOUT) << r.message();
      EXPECT_EQ(r.kind(), base::ErrorKind::DeviceFault) << r.message();
      EXPECT_NE(r.message().find(base), std::string::npos) << "names no address in the hole " << base
                                                          << ": " << r.message();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 15s);
    for (auto& p : q.pm4) EXPECT_FALSE(p->wait_idle(5s).ok());
    for (auto& s : q.sdma) EXPECT_FALSE(s->wait_idle(5s).ok());
    for (auto& a : q.aql) EXPECT_TRUE(a->destroy().ok());
    for (auto& p : q.pm4) EXPECT_TRUE(p->destroy().ok());
    for (auto& s : q.sdma) EXPECT_TRUE(s->destroy().ok());
  }
  if (before.have_counts) {
    const leak::Snapshot after = leak::snapshot();
    EXPECT_EQ(after.c.queues, before.c.queues);
    EXPECT_EQ(after.c.doorbells, before.c.doorbells);
  }
}

// A GPU reset with work held on every queue type (each waits for a signal nobody sets): every
// waiter ends with an error naming the reset, wait_idle returns, the queues are destroyed.
TEST(GpuReset, WorkQueuedOnEveryQueueTypeEndsWithTheReset) {
  auto inject = reinterpret_cast<int (*)(uint32_t, int)>(dlsym(RTLD_DEFAULT, "kfdemu_inject_hw_exception"));
  if (!inject) GTEST_SKIP() << "needs the emulator's kfdemu_inject_hw_exception";
  const leak::Snapshot before = leak::snapshot();
  const uint32_t gpu = rt().gpus()[0]->gpu_id;
  {
    Queues q = make_queues(4, 2, 2);
    ASSERT_FALSE(HasFailure());
    auto never = signal(1);
    const uint64_t never_value = reinterpret_cast<uint64_t>(&never->amd()->value);
    std::vector<std::unique_ptr<queues::Signal>> after;
    for (auto& a : q.aql) {
      after.push_back(signal(1));
      auto first = a->reserve(2);
      ASSERT_TRUE(first.ok());
      const uint64_t deps[] = {never->handle()};
      auto gate = queues::make_barrier_and(deps, 0, queues::Fence{});
      ASSERT_TRUE(gate.ok());
      a->write(*first, *gate);
      a->write(*first + 1, queues::make_marker(after.back()->handle()));
      a->ring_doorbell(*first + 1);
    }
    for (auto& p : q.pm4) {
      ASSERT_TRUE(p->wait_signal(never_value, Cond::Eq, 0).ok());
      after.push_back(signal(1));
      ASSERT_TRUE(p->signal(queues::signal_target(*after.back()), 0).ok());
    }
    for (auto& s : q.sdma) {
      ASSERT_TRUE(s->wait_signal(never_value, Cond::Eq, 0).ok());
      after.push_back(signal(1));
      queues::SdmaCompletion c;
      c.signal = queues::signal_target(*after.back());
      ASSERT_TRUE(s->signal(c).ok());
    }
    std::this_thread::sleep_for(20ms);  // the engines reach their waits
    for (auto& s : after) EXPECT_EQ(s->load(), 1);
    ASSERT_EQ(inject(gpu, 1), 0);
    const std::string names_reset = "hardware exception on GPU " + base::hex(gpu);
    for (auto& s : after) {
      auto r = s->wait(Cond::Eq, 0, 20s, queues::WaitPolicy::blocking());
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.err(), EIO) << r.message();
      EXPECT_NE(r.message().find(names_reset), std::string::npos) << r.message();
    }
    for (auto& p : q.pm4) EXPECT_EQ(p->wait_idle(5s).err(), EIO);
    for (auto& s : q.sdma) EXPECT_EQ(s->wait_idle(5s).err(), EIO);
    EXPECT_FALSE(rt().check_device(true).ok());
    for (auto& a : q.aql) EXPECT_TRUE(a->destroy().ok());
    for (auto& p : q.pm4) EXPECT_TRUE(p->destroy().ok());
    for (auto& s : q.sdma) EXPECT_TRUE(s->destroy().ok());
    // New work after a reset is refused with the reset, not accepted and lost.
    auto late = rt().create_pm4_queue({});
    if (late) { EXPECT_FALSE((*late)->wait_idle(5s).ok()); }
  }
  if (before.have_counts) { EXPECT_EQ(leak::snapshot().c.queues, before.c.queues); }
}

}  // namespace
