// SPDX-License-Identifier: MIT
// A queue error reported by the device surfaces on the queue and on every wait (own process).
#include <thread>

#include "pm4/queue_error.h"
#include "queue_test_util.h"

namespace {

using namespace qtest;
using queues::Cond;

queues::Packet invalid_packet() {
  queues::Packet p;
  p.dw[0] = pm4::aql::make_header(pm4::aql::kTypeVendor, false, pm4::aql::kScopeSystem,
                                     pm4::aql::kScopeSystem) |
            (0x7fu << 16);  // vendor format 0x7f: no such packet
  return p;
}

TEST(QueueError, SurfacesOnTheQueueAndOnEveryWait) {
  auto bad = make_queue();
  auto good = make_queue();
  auto after = make_signal(1), unrelated = make_signal(1);
  auto sent = submit_together(*bad, {invalid_packet(), queues::make_marker(after->handle())});
  ASSERT_TRUE(sent.ok()) << sent.message();

  auto r = after->wait(Cond::Eq, 0, 10s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err(), ETIMEDOUT) << r.message();
  EXPECT_NE(r.message().find("AQL queue " + std::to_string(bad->queue_id())), std::string::npos)
      << r.message();
  EXPECT_FALSE(bad->error().ok());
  EXPECT_EQ(uint64_t(bad->error_code()), pm4::queue_error::kInvalidVendorPacket) << bad->error().message();
  EXPECT_EQ(after->load(), 1);
  // A blocked waiter on another signal is ended by the queue's error event, not by its timeout.
  queues::WaitPolicy p = queues::WaitPolicy::blocking();
  p.block_slice_ms = 20000;
  EXPECT_FALSE(unrelated->wait(Cond::Eq, 0, 10s, p).ok());
  EXPECT_FALSE(bad->submit(queues::make_marker(0)).ok());
  EXPECT_FALSE(bad->wait_idle(5s).ok());
  // Once the broken queue is gone, the device is usable again.
  EXPECT_TRUE(bad->destroy().ok());
  auto done = make_signal(1);
  ASSERT_TRUE(good->submit(queues::make_marker(done->handle())).ok());
  auto ok = done->wait(Cond::Eq, 0, 10s, p);
  EXPECT_TRUE(ok.ok()) << ok.message();
}

}  // namespace
