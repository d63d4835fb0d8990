// SPDX-License-Identifier: MIT
// A kernel's s_sendmsg(MSG_INTERRUPT) wakes a host thread blocked in WAIT_EVENTS on that signal's
// event: the device-to-host interrupt path end to end (kfdrt queues and loader, real ioctls).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>
#include <vector>

#include "gpu_segments.h"
#include "loader/code_object.h"
#include "queues/packets.h"
#include "queues/runtime.h"

namespace {

using namespace std::chrono_literals;

class DeviceInterrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    auto rt = queues::Runtime::open();
    ASSERT_TRUE(rt.ok()) << rt.message();
    rt_ = std::move(*rt);
    std::ifstream f(std::string(EMU_KERNEL_DIR) + "/interrupt.co", std::ios::binary);
    image_.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    auto co = loader::CodeObject::parse(loader::Bytes(image_.data(), image_.size()));
    ASSERT_TRUE(co.ok()) << co.message();
    segments_ = std::make_unique<emutest::GpuSegments>(rt_->memory());
    auto lco = loader::LoadedCodeObject::load(*co, *segments_);
    ASSERT_TRUE(lco.ok()) << lco.message();
    code_ = std::make_unique<loader::LoadedCodeObject>(std::move(*lco));
    auto kd = code_->kernel_object("signal_from_device");
    ASSERT_TRUE(kd.ok()) << kd.message();
    kernel_object_ = *kd;
  }
  void TearDown() override {
    for (void* p : buffers_) (void)rt_->memory().free(p);
    code_.reset();
  }

  // Fine-grained host memory: the kernel spins on what the host writes.
  uint32_t* coherent_word() {
    mem::AllocRequest r;
    r.coherence = mem::Coherence::Coherent;
    r.size = sizeof(uint32_t);
    auto p = rt_->memory().allocate(r);
    EXPECT_TRUE(p.ok()) << p.message();
    if (!p.ok()) return nullptr;
    buffers_.push_back(*p);
    *static_cast<uint32_t*>(*p) = 0;
    return static_cast<uint32_t*>(*p);
  }

  std::unique_ptr<queues::Runtime> rt_;
  std::vector<uint8_t> image_;
  std::unique_ptr<emutest::GpuSegments> segments_;
  std::unique_ptr<loader::LoadedCodeObject> code_;
  uint64_t kernel_object_ = 0;
  std::vector<void*> buffers_;
};

TEST_F(DeviceInterrupt, WakesAHostThreadBlockedOnTheSignal) {
  auto q = rt_->create_queue(queues::QueueOptions{});
  ASSERT_TRUE(q.ok()) << q.message();
  auto sig = rt_->create_signal(1, queues::SignalKind::Interrupt);
  ASSERT_TRUE(sig.ok()) << sig.message();
  auto done = rt_->create_signal(1);
  ASSERT_TRUE(done.ok()) << done.message();
  pm4::aql::AmdSignal* s = (*sig)->amd();
  ASSERT_NE(s->event_mailbox_ptr, 0u);
  uint32_t* go = coherent_word();
  uint32_t* status = coherent_word();
  ASSERT_TRUE(go && status);

  struct {
    int64_t* value;
    uint64_t mailbox;
    uint32_t event_id;
    uint32_t pad;
    const uint32_t* go;
    uint32_t* status;
  } args{&s->value, s->event_mailbox_ptr, s->event_id, 0, go, status};
  auto* ka = static_cast<uint8_t*>(rt_->memory().allocate_kernarg(256).value());
  buffers_.push_back(ka);
  std::memcpy(ka, &args, sizeof args);
  queues::DispatchParams p;
  p.workgroup[0] = 64;
  p.grid[0] = 64;
  p.kernel_object = kernel_object_;
  p.kernarg_address = reinterpret_cast<uint64_t>(ka);
  p.completion_signal = (*done)->handle();
  auto pk = queues::make_dispatch(p);
  ASSERT_TRUE(pk.ok()) << pk.message();
  ASSERT_TRUE((*q)->submit(*pk).ok());

  // The kernel waits for `go`, given once this thread is (very likely) asleep in WAIT_EVENTS.
  // One WAIT_EVENTS slice outlasts the wait's timeout, so only the device's interrupt can end it
  // early; polling cannot.
  std::thread host([go] {
    std::this_thread::sleep_for(200ms);
    __atomic_store_n(go, 1u, __ATOMIC_RELEASE);
  });
  queues::WaitPolicy blocking = queues::WaitPolicy::blocking();
  blocking.block_slice_ms = 120000;
  const auto start = std::chrono::steady_clock::now();
  auto woke = (*sig)->wait(queues::Cond::Eq, 0, 60s, blocking);
  const auto waited = std::chrono::steady_clock::now() - start;
  host.join();
  ASSERT_TRUE(woke.ok()) << woke.message();
  // Without the interrupt the waiter sleeps through to the 60 s deadline (and then finds the value
  // met); with it, it wakes about 200 ms in. The bound is generous for a loaded host.
  EXPECT_LT(waited, 30s) << "woken by the deadline, not by the device's interrupt";
  auto finished = (*done)->wait(queues::Cond::Eq, 0, 60s);
  ASSERT_TRUE(finished.ok()) << finished.message();
  EXPECT_EQ(__atomic_load_n(status, __ATOMIC_ACQUIRE), 1u);
  EXPECT_EQ((*sig)->load(), 0);
}

}  // namespace
