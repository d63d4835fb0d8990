// SPDX-License-Identifier: MIT
// Queue creation stress across kinds (PM4, SDMA, AQL) in every order, and the SDMA queue limit.
#include <algorithm>
#include <array>

#include "pm4_test_util.h"
#include "queues/packets.h"

namespace {

using namespace pm4test;
using queues::Cond;

enum Kind { kPm4, kSdma, kAql };

// One queue of any kind; destroy() says whether DESTROY_QUEUE succeeded.
struct AnyQueue {
  std::unique_ptr<queues::Pm4Queue> pm4;
  std::unique_ptr<queues::SdmaQueue> sdma;
  std::unique_ptr<queues::AqlQueue> aql;
  base::Status destroy() {
    if (pm4) return pm4->destroy();
    if (sdma) return sdma->destroy();
    return aql->destroy();
  }
};

base::Result<AnyQueue> create(Kind k) {
  AnyQueue q;
  if (k == kPm4) {
    queues::Pm4QueueOptions o;
    o.ring_bytes = 4096;
    KFD_ASSIGN(q.pm4, rt().create_pm4_queue(o));
  } else if (k == kSdma) {
    queues::SdmaQueueOptions o;
    o.ring_bytes = 4096;
    KFD_ASSIGN(q.sdma, rt().create_sdma_queue(o));
  } else {
    queues::QueueOptions o;
    o.packets = 64;
    KFD_ASSIGN(q.aql, rt().create_queue(o));
  }
  return q;
}

// Every creation order of the three kinds against every destruction order (kfdtest
// CreateQueueStressSingleThreaded covers PM4 and SDMA in both orders), then each kind still works.
TEST(QueueStress, CreateQueueStress) {
  std::vector<Kind> kinds = {kPm4, kAql};
  if (rt().sdma_engines() > 0) kinds.push_back(kSdma);
  std::sort(kinds.begin(), kinds.end());
  const uint32_t rounds = std::max(1u, cores() / 2);
  uint32_t combos = 0;
  for (uint32_t round = 0; round < rounds; ++round) {
    std::vector<Kind> make = kinds;
    do {
      std::vector<size_t> order(kinds.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      do {
        std::vector<AnyQueue> qs;
        for (Kind k : make) {
          auto q = create(k);
          ASSERT_TRUE(q.ok()) << "kind " << k << ": " << q.message();
          qs.push_back(std::move(*q));
        }
        for (size_t i : order) {
          auto st = qs[i].destroy();
          EXPECT_TRUE(st.ok()) << st.message();
        }
        ++combos;
      } while (std::next_permutation(order.begin(), order.end()));
    } while (std::next_permutation(make.begin(), make.end()));
  }
  EXPECT_GE(combos, 4u);
  // The device still takes work on every kind.
  Buffer dst(4096);
  auto p = make_pm4();
  ASSERT_TRUE(p && dst);
  ASSERT_TRUE(p->submit(write_data(dst.va(), 1)).ok());
  ASSERT_TRUE(p->wait_idle(10s).ok());
  EXPECT_EQ(dst.as()[0], 1u);
  if (rt().sdma_engines() > 0) {
    auto s = make_sdma();
    ASSERT_TRUE(s);
    ASSERT_TRUE(s->fill(dst.va() + 4, 2, 4).ok());
    auto idle = s->wait_idle(10s);
    ASSERT_TRUE(idle.ok()) << idle.message();
    EXPECT_EQ(dst.as()[1], 2u);
  }
  auto a = rt().create_queue();
  ASSERT_TRUE(a.ok());
  auto sig = make_signal(1);
  ASSERT_TRUE((*a)->submit(queues::make_marker(sig->handle())).ok());
  EXPECT_TRUE(sig->wait(Cond::Eq, 0, 10s).ok());
}

// The driver has num_sdma_engines x num_sdma_queues_per_engine SDMA queues per device (shared
// with other processes): one more than that fails cleanly, and the queues made before still work.
TEST(QueueStress, RefusesMoreSdmaQueuesThanTheEnginesHave) {
  const auto& p = gpu().props();
  if (p.num_sdma_engines == 0 || p.num_sdma_queues_per_engine == 0)
    GTEST_SKIP() << "the topology reports no SDMA queue count";
  const uint32_t limit = p.num_sdma_engines * p.num_sdma_queues_per_engine;
  std::vector<std::unique_ptr<queues::SdmaQueue>> qs;
  base::Status refused;
  for (uint32_t i = 0; i <= limit; ++i) {
    queues::SdmaQueueOptions o;
    o.ring_bytes = 1024;
    auto q = rt().create_sdma_queue(o);
    if (!q) {
      refused = q.error();
      break;
    }
    qs.push_back(std::move(*q));
  }
  ASSERT_FALSE(refused.ok()) << "created " << qs.size() << " SDMA queues, the topology allows " << limit;
  EXPECT_LE(qs.size(), limit);
  EXPECT_NE(refused.message().find("SDMA queue"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("AMDKFD_IOC_CREATE_QUEUE"), std::string::npos) << refused.message();
  Buffer dst(4096);
  ASSERT_FALSE(qs.empty());
  ASSERT_TRUE(qs.back()->fill(dst.va(), 3, 4).ok());
  ASSERT_TRUE(qs.back()->wait_idle(10s).ok());
  EXPECT_EQ(dst.as()[0], 3u);
  qs.clear();
  auto again = make_sdma();  // the slots came back
  EXPECT_TRUE(again);
}

}  // namespace
