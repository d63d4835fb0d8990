// SPDX-License-Identifier: MIT
// Create/destroy loops over the queues API (AQL, PM4 and SDMA queues with work on them, signals):
// the emulated amdkfd's counts and RSS return to their baseline. The 4096-event budget and the
// per-process queue limit end in clear errors, and the runtime goes on working afterwards.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
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

int iters(int dflt) {
  const char* e = std::getenv("KFDRT_LEAK_ITERS");
  return e && std::atoi(e) > 0 ? std::atoi(e) : dflt;
}

// One AQL queue: a barrier packet completing a signal, waited for.
void aql_round(int i) {
  queues::QueueOptions o;
  o.packets = 64;
  auto q = rt().create_queue(o);
  ASSERT_TRUE(q.ok()) << q.message();
  auto s = rt().create_signal(1, i % 2 ? queues::SignalKind::Interrupt : queues::SignalKind::Polling);
  ASSERT_TRUE(s.ok()) << s.message();
  auto p = queues::make_barrier_and(std::span<const uint64_t>{}, (*s)->handle(), queues::Fence{});
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_TRUE((*q)->submit(*p).ok());
  auto w = (*s)->wait(queues::Cond::Eq, 0, 10s);
  ASSERT_TRUE(w.ok()) << w.message();
}

// One PM4 queue: a signal written at end of pipe, waited for.
void pm4_round() {
  auto q = rt().create_pm4_queue({});
  ASSERT_TRUE(q.ok()) << q.message();
  auto s = rt().create_signal(1, queues::SignalKind::Interrupt);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE((*q)->signal(queues::signal_target(**s), 0).ok());
  auto w = (*s)->wait(queues::Cond::Eq, 0, 10s);
  ASSERT_TRUE(w.ok()) << w.message();
  ASSERT_TRUE((*q)->destroy().ok());
}

// One SDMA queue (XGMI when asked and present): a fill, then its completion, waited for.
void sdma_round(bool xgmi, uint64_t dst, uint32_t value) {
  if (xgmi && rt().sdma_engines(0, true) == 0) return;
  queues::SdmaQueueOptions o;
  o.xgmi = xgmi;
  auto q = rt().create_sdma_queue(o);
  ASSERT_TRUE(q.ok()) << q.message();
  ASSERT_TRUE((*q)->fill(dst, value, 256).ok());
  ASSERT_TRUE((*q)->wait_idle(10s).ok());
  ASSERT_EQ(*reinterpret_cast<volatile uint32_t*>(dst + 252), value);
}

class QueueLeak : public testing::Test {
 protected:
  void SetUp() override {
    auto present = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "kfdemu_present"));
    rt();
    if (present && present()) { ASSERT_TRUE(leak::snapshot().have_counts); }
    // The runtime keeps the KFD events of released interrupt signals for reuse, creating fresh
    // ones up to its budget (RuntimeOptions::max_interrupt_events): fill that cache first, so
    // that a loop's growth is a leak and not the cache filling.
    std::vector<std::unique_ptr<queues::Signal>> warm;
    for (int i = 0; i < 300; ++i) {
      auto s = rt().create_signal(0, queues::SignalKind::Interrupt);
      ASSERT_TRUE(s.ok()) << s.message();
      warm.push_back(std::move(s).value());
    }
  }
};

TEST_F(QueueLeak, AqlQueues) { EXPECT_NO_LEAK(iters(1000), aql_round(leak_i_)); }
TEST_F(QueueLeak, Pm4Queues) { EXPECT_NO_LEAK(iters(1000), pm4_round()); }

TEST_F(QueueLeak, SdmaQueues) {
  mem::AllocRequest r;  // coherent host memory the engines reach
  r.coherence = mem::Coherence::Coherent;
  r.size = 4096;
  auto buf = rt().memory().allocate(r);
  ASSERT_TRUE(buf.ok()) << buf.message();
  const uint64_t dst = reinterpret_cast<uint64_t>(*buf);
  EXPECT_NO_LEAK(iters(1000), {
    sdma_round(false, dst, uint32_t(leak_i_));
    sdma_round(true, dst, uint32_t(leak_i_) ^ 0x5a5a5a5a);
  });
  ASSERT_TRUE(rt().memory().free(*buf).ok());
}

// Every kind of allocation the memory layer makes, sizes from a page to 2 MiB.
TEST_F(QueueLeak, AllocationsOfEveryKind) {
  mem::Context& m = rt().memory();
  std::vector<char> host(size_t(2) << 20, 1);
  void* page = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(host.data()) + 4095) & ~uintptr_t(4095));
  bool large_bar = true;
  for (const kfd::MemBank& b : m.platform().devices().front()->node->mem_banks)
    if (b.heap_type == uint32_t(kfd::HeapType::FrameBufferPrivate)) large_bar = false;
  EXPECT_NO_LEAK(iters(1000), {
    mem::AllocRequest r;
    r.size = size_t(4096) << (leak_i_ % 10);
    base::Result<void*> p = base::Error{};
    switch (leak_i_ % 7) {
      case 0: r.heap = mem::Heap::Vram; p = m.allocate(r); break;
      case 1:  // host-visible VRAM where the BAR allows (a small-BAR GPU refuses it)
        r.heap = mem::Heap::Vram; r.host_access = large_bar; r.map_all = true; p = m.allocate(r); break;
      case 2: r.coherence = mem::Coherence::Coherent; p = m.allocate(r); break;
      case 3: r.coherence = mem::Coherence::Uncached; r.executable = true; p = m.allocate(r); break;
      case 4: r.size = std::min<size_t>(r.size, size_t(1) << 20); p = m.register_host(page, r.size, r); break;
      case 5: r.size = 64 << (leak_i_ % 6); p = m.allocate_small(r); break;
      case 6: p = leak_i_ % 2 ? m.allocate_kernarg(256) : m.allocate_signal_memory(); break;
    }
    ASSERT_TRUE(p.ok()) << p.message() << " (kind " << leak_i_ % 7 << ")";
    ASSERT_TRUE(m.free(*p).ok());
  });
}

TEST_F(QueueLeak, Signals) {
  EXPECT_NO_LEAK(iters(4000), {
    auto s = rt().create_signal(leak_i_, leak_i_ % 2 ? queues::SignalKind::Interrupt
                                                     : queues::SignalKind::Polling);
    ASSERT_TRUE(s.ok()) << s.message();
    (*s)->store(0);
    ASSERT_TRUE((*s)->wait(queues::Cond::Eq, 0, 1s).ok());
  });
}

// The events page has 4096 slots: CREATE_EVENT past them fails with ENOSPC, clearly; the
// runtime's signals keep working (sharing events), and freeing the events gives the slots back.
TEST(Limits, EventBudgetEndsInAClearErrorAndTheProcessGoesOn) {
  const kfd::Kfd& k = rt().platform().kfd();
  const leak::Snapshot before = leak::snapshot();
  std::vector<uint32_t> ids;
  base::Error last;
  for (int i = 0; i < 5000; ++i) {
    auto e = k.create_event(KFD_IOC_EVENT_SIGNAL, true);
    if (!e) {
      last = e.error();
      break;
    }
    ids.push_back(e->event_id);
  }
  ASSERT_NE(last.err, 0) << "5000 signal events created: no budget";
  EXPECT_EQ(last.err, ENOSPC) << last.message;
  EXPECT_EQ(last.kind, base::ErrorKind::OutOfMemory) << last.message;
  EXPECT_NE(last.message.find("CREATE_EVENT"), std::string::npos) << last.message;
  std::printf("after %zu more signal events: %s\n", ids.size(), last.message.c_str());
  EXPECT_GT(ids.size(), 3000u);  // the runtime's own (at most its budget of 256, and a few) aside
  EXPECT_LT(ids.size(), 4096u);
  if (before.have_counts) { EXPECT_EQ(leak::snapshot().c.signal_events, 4095u); }  // slot 0 is reserved
  // The runtime goes on: interrupt signals share events (or poll), queues run.
  aql_round(1);
  aql_round(2);
  for (uint32_t id : ids) ASSERT_TRUE(k.destroy_event(id).ok());
  EXPECT_EQ(leak::count_diff(before, leak::snapshot()), "");
  auto again = k.create_event(KFD_IOC_EVENT_SIGNAL, true);
  ASSERT_TRUE(again.ok()) << again.message();
  ASSERT_TRUE(k.destroy_event(again->event_id).ok());
}

// Queues until the process's limit: the next CREATE_QUEUE fails with a clear error, the queues
// already made still run, and destroying them gives the slots back.
TEST(Limits, QueueLimitEndsInAClearErrorAndTheProcessGoesOn) {
  const leak::Snapshot before = leak::snapshot();
  std::vector<std::unique_ptr<queues::AqlQueue>> qs;
  base::Error last;
  queues::QueueOptions o;
  o.packets = 16;
  for (int i = 0; i < 1100; ++i) {
    auto q = rt().create_queue(o);
    if (!q) {
      last = q.error();
      break;
    }
    qs.push_back(std::move(q).value());
  }
  ASSERT_NE(last.err, 0) << "1100 queues created: no limit";
  std::printf("after %zu queues: %s\n", qs.size(), last.message.c_str());
  EXPECT_NE(last.message.find("CREATE_QUEUE"), std::string::npos) << last.message;
  EXPECT_EQ(last.kind, base::ErrorKind::OutOfMemory) << last.message;
  EXPECT_GE(qs.size(), 100u) << last.message;
  // The last queue made still runs work.
  auto s = rt().create_signal(1, queues::SignalKind::Polling);
  ASSERT_TRUE(s.ok());
  auto p = queues::make_barrier_and(std::span<const uint64_t>{}, (*s)->handle(), queues::Fence{});
  ASSERT_TRUE(qs.back()->submit(*p).ok());
  ASSERT_TRUE((*s)->wait(queues::Cond::Eq, 0, 10s).ok());
  s->reset();
  qs.clear();
  EXPECT_EQ(leak::count_diff(before, leak::snapshot()), "");
  aql_round(3);
}

}  // namespace
