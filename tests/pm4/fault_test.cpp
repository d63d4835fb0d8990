// SPDX-License-Identifier: MIT
// A PM4 or SDMA packet naming an unmapped address ends every wait in an error naming it (own process each).
#include <dlfcn.h>
#include <sys/mman.h>

#include "pm4_test_util.h"

namespace {

using namespace pm4test;
using queues::Cond;

// A page reserved on the CPU and never mapped to the GPU.
class Hole {
 public:
  Hole() {
    p_ = mmap(nullptr, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    EXPECT_NE(p_, MAP_FAILED);
  }
  ~Hole() { munmap(p_, 1 << 16); }
  uint64_t address() const { return reinterpret_cast<uint64_t>(p_) + 0x1000; }  // page aligned

 private:
  void* p_ = nullptr;
};

// Every wait after the fault ends with it, naming the page, never with a timeout: waits on a
// signal nothing will complete (spinning and blocking), the queue's idle wait, the device check.
// The completion behind the faulting packet may or may not land first: a real GPU drops the
// faulting write and goes on until the driver evicts the process's queues.
template <class Queue>
void expect_fault_everywhere(Queue& q, queues::Signal& after, uint64_t bad) {
  const std::string page = base::hex(bad);
  auto never = make_signal(1);
  ASSERT_TRUE(never);
  for (const auto& policy : {queues::WaitPolicy::spinning(), queues::WaitPolicy::blocking()}) {
    auto r = never->wait(Cond::Eq, 0, 20s, policy);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.err(), ETIMEDOUT) << r.message();
    EXPECT_EQ(r.kind(), base::ErrorKind::DeviceFault) << r.message();
    EXPECT_NE(r.message().find(page), std::string::npos) << r.message();
  }
  auto a = after.wait(Cond::Eq, 0, 20s);
  if (!a.ok()) {
    EXPECT_NE(a.message().find(page), std::string::npos) << a.message();
  }
  auto idle = q.wait_idle(20s);
  EXPECT_FALSE(idle.ok());
  EXPECT_NE(idle.err(), ETIMEDOUT) << idle.message();
  EXPECT_NE(idle.message().find(page), std::string::npos) << idle.message();
  EXPECT_FALSE(rt().check_device(true).ok());
  EXPECT_TRUE(q.destroy().ok());
}

// kfdtest-style SdmaQueueException: a copy into an unmapped page.
TEST(QueueException, SdmaQueueException) {
  if (rt().sdma_engines() == 0) GTEST_SKIP() << "the GPU has no SDMA engines (topology)";
  auto q = make_sdma(16 << 10);
  Buffer src(8192);
  auto after = make_signal(1);
  Hole hole;
  ASSERT_TRUE(q && src && after);
  queues::SdmaCompletion done;
  done.signal = queues::signal_target(*after);
  auto st = q->copy(hole.address(), src.va(), 8192, &done);
  ASSERT_TRUE(st.ok()) << st.message();
  expect_fault_everywhere(*q, *after, hole.address());
}

// The same on a PM4 queue: WRITE_DATA into an unmapped page, then a completion.
TEST(QueueException, Pm4QueueException) {
  auto q = make_pm4();
  auto after = make_signal(1);
  Hole hole;
  ASSERT_TRUE(q && after);
  auto w = write_data(hole.address(), 1);
  std::vector<uint32_t> cmd(w.size() + queues::kPm4SignalMaxDwords);
  std::copy(w.begin(), w.end(), cmd.begin());
  const size_t n = w.size() + queues::write_pm4_signal(cmd.data() + w.size(), family(),
                                                       queues::signal_target(*after), 0);
  ASSERT_TRUE(q->submit(std::span(cmd.data(), n)).ok());
  expect_fault_everywhere(*q, *after, hole.address());
}

// An opcode the CP does not know stops a PM4 queue; with no error signal, the driver's
// HW_EXCEPTION event (raised without details) ends every wait. Only on the emulated GPU: a real
// CP may hang on it until the driver resets the GPU.
TEST(QueueException, UnknownPacketStopsAPm4Queue) {
  if (!dlsym(RTLD_DEFAULT, "kfdemu_inject_hw_exception")) GTEST_SKIP() << "emulated GPU only";
  auto q = make_pm4();
  auto never = make_signal(1);
  ASSERT_TRUE(q && never);
  uint32_t bad[2] = {pm4::type3_header(0xEE, 2), 0};
  ASSERT_TRUE(q->submit(bad).ok());
  auto r = never->wait(Cond::Eq, 0, 20s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.kind(), base::ErrorKind::DeviceFault) << r.message();
  EXPECT_NE(r.message().find("hardware exception"), std::string::npos) << r.message();
  auto idle = q->wait_idle(20s);
  EXPECT_FALSE(idle.ok());
  EXPECT_NE(idle.err(), ETIMEDOUT) << idle.message();
  EXPECT_TRUE(q->destroy().ok());
}

}  // namespace
