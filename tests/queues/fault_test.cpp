// SPDX-License-Identifier: MIT
// A packet naming an unmapped signal address ends in an error naming the address, not a crash.
#include <sys/mman.h>

#include "queue_test_util.h"

namespace {

using namespace qtest;
using queues::Cond;

TEST(GpuFault, UnmappedCompletionSignalEndsWaitsWithTheFaultAddress) {
  auto q = make_queue();
  // Reserved on the CPU, never mapped to the GPU.
  void* hole = mmap(nullptr, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  uint64_t bad = reinterpret_cast<uint64_t>(hole) + 0x1000;
  auto after = make_signal(1);
  auto sent = submit_together(*q, {queues::make_marker(bad), queues::make_marker(after->handle())});
  ASSERT_TRUE(sent.ok()) << sent.message();
  for (const auto& policy : {queues::WaitPolicy::spinning(), queues::WaitPolicy::blocking()}) {
    auto r = after->wait(Cond::Eq, 0, 10s, policy);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.err(), ETIMEDOUT) << r.message();
    EXPECT_NE(r.message().find(base::hex(bad).substr(2, 6)), std::string::npos) << r.message();
  }
  EXPECT_FALSE(rt().check_device(true).ok());
  EXPECT_TRUE(q->destroy().ok());
  munmap(hole, 1 << 16);
}

}  // namespace
