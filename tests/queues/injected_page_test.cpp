// SPDX-License-Identifier: MIT
// A page made to fault through the emulator's control API stops the queue that touches it.
#include "queue_test_util.h"

namespace {

using namespace qtest;
using queues::Cond;

// The completion signal is mapped to the GPU, but its page faults: the wait on the packet behind
// it ends with the fault's address instead of a timeout.
TEST(InjectedFault, FaultingSignalPageEndsWaitsWithItsAddress) {
  auto inject = control<int (*)(uint32_t, uint64_t, uint64_t)>("kfdemu_inject_fault");
  if (!inject) GTEST_SKIP() << "not on the emulated GPU";
  auto q = make_queue();
  auto victim = make_signal(1), after = make_signal(1);
  const uint32_t gpu = q->gpu_id();
  EXPECT_EQ(inject(0xfffe, victim->handle(), 4096), -1);  // unknown GPU: refused
  EXPECT_EQ(inject(gpu, ~0ull - 10, 4096), -1);           // wraps around: refused
  const uint64_t page = victim->handle() & ~0xfffull;
  ASSERT_EQ(inject(gpu, page, 4096), 0);
  auto sent = submit_together(*q, {queues::make_marker(victim->handle()),
                                   queues::make_marker(after->handle())});
  ASSERT_TRUE(sent.ok()) << sent.message();
  auto r = after->wait(Cond::Eq, 0, 10s, queues::WaitPolicy::blocking());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.err(), EFAULT) << r.message();
  EXPECT_NE(r.message().find("GPU memory fault at " + base::hex(page)), std::string::npos)
      << r.message();
  EXPECT_EQ(victim->load(), 1);  // never written by the device
  EXPECT_EQ(inject(gpu, 0, 0), 0);  // clears
  EXPECT_TRUE(q->destroy().ok());
}

}  // namespace
