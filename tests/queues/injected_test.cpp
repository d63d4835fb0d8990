// SPDX-License-Identifier: MIT
// Faults injected through the emulator's control API end waits with errors naming them.
#include <thread>

#include "queue_test_util.h"

namespace {

using namespace qtest;
using queues::Cond;

// A GPU reset (HW_EXCEPTION event) ends a waiter blocked in WAIT_EVENTS with an error naming it,
// not with its timeout; afterwards every wait of the process fails the same way.
TEST(InjectedFault, GpuResetEndsABlockedWait) {
  auto reset = control<int (*)(uint32_t, int)>("kfdemu_inject_hw_exception");
  if (!reset) GTEST_SKIP() << "not on the emulated GPU";
  auto never = make_signal(1);
  const uint32_t gpu = rt().gpus()[0]->gpu_id;
  EXPECT_EQ(reset(0xfffe, 1), -1);  // unknown GPU: refused
  queues::WaitPolicy p = queues::WaitPolicy::blocking();
  p.block_slice_ms = 20000;  // only the event can end the wait early
  std::thread injector([&] {
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(reset(gpu, 1), 0);
  });
  auto r = never->wait(Cond::Eq, 0, 15s, p);
  injector.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.err(), EIO) << r.message();
  EXPECT_NE(r.message().find("hardware exception on GPU " + base::hex(gpu)), std::string::npos)
      << r.message();
  EXPECT_NE(r.message().find("memory_lost=1"), std::string::npos) << r.message();
  EXPECT_EQ(never->wait(Cond::Eq, 0, 1s, p).err(), EIO);
  EXPECT_FALSE(rt().check_device(true).ok());
}

}  // namespace
