// SPDX-License-Identifier: MIT
// ROCm's dynamic scratch on a raw AQL queue: a dispatch needing more scratch than the queue has makes the CP ask through queue_inactive_signal and wait; the test then does what ROCr's DynamicScratchHandler does.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <random>
#include <thread>

#include "pm4/aql.h"
#include "pm4/kernel_descriptor.h"
#include "pm4/queue_error.h"
#include "tests/emu/engine_util.h"

namespace engtest {
namespace {

using namespace pm4::aql;

class DynamicScratch : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (HasFatalFailure()) return;
    if (gpu0().node->props.gfx_target_version != 90010) GTEST_SKIP() << "the scratch kernel is built for gfx90a";
    if (access(kernel_path("scratch.co").c_str(), R_OK) != 0) GTEST_SKIP() << "the kernel corpus is not built";
    ASSERT_EQ(code_.load(kernel_path("scratch.co"), dev(), gpu0()), "");
    kd_va_ = code_.kernel_descriptor("private_array");
    ASSERT_NE(kd_va_, 0u);
    std::memcpy(&kd_, reinterpret_cast<const void*>(kd_va_), sizeof kd_);
    q_ = &queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
    aq_ = static_cast<AmdQueue*>(q_->amd_queue());
    idx_ = host<uint32_t>(kN);
    out_ = host<uint32_t>(kN);
    std::mt19937 rng(7);
    for (uint32_t i = 0; i < kN; ++i) idx_[i] = rng() % 1000;
    done_ = signal(1);
  }
  AmdSignal* signal(int64_t value) {
    auto* s = host<AmdSignal>(1);
    s->kind = kSignalKindUser;
    s->value = value;
    return s;
  }
  void submit() {
    auto* ka = host<uint8_t>(256);
    struct { uint32_t *idx, *out; uint32_t n; } args{idx_, out_, kN};
    std::memcpy(ka, &args, sizeof args);
    KernelDispatchPacket p{};
    p.header = make_header(kTypeKernelDispatch, true, kScopeSystem, kScopeSystem);
    p.setup = 1;
    p.workgroup_size_x = 64, p.workgroup_size_y = 1, p.workgroup_size_z = 1;
    p.grid_size_x = kN, p.grid_size_y = 1, p.grid_size_z = 1;
    p.private_segment_size = kd_.private_segment_fixed_size;
    p.kernel_object = kd_va_;
    p.kernarg_address = reinterpret_cast<uint64_t>(ka);
    p.completion_signal = reinterpret_cast<uint64_t>(done_);
    q_->submit_aql(&p);
  }
  // What ROCr's handler does once it has the memory: the queue's scratch fields, then 0.
  void grow_scratch(AmdSignal* inactive) {
    const uint32_t lane = (kd_.private_segment_fixed_size + 15) / 16 * 16, waves = 32;
    const uint64_t base = buffer(uint64_t(lane) * 64 * waves, Kind::Vram).va();
    scratch_vsharp(base, aq_->scratch_resource_descriptor);
    aq_->compute_tmpring_size = tmpring_gfx9(waves, lane);
    aq_->scratch_backing_memory_location = base;  // gfx9+: the store's address
    aq_->scratch_backing_memory_byte_size = uint64_t(lane) * 64 * waves;
    aq_->scratch_wave64_lane_byte_size = lane;
    __atomic_store_n(&inactive->value, int64_t(0), __ATOMIC_RELEASE);
  }
  bool results_right() {
    for (uint32_t i = 0; i < kN; ++i) {
      uint32_t s = 0;
      for (uint32_t k = 0; k < 16; ++k) s += ((idx_[i] + k * 13) % 300) * 7 + i;
      if (out_[i] != s) return false;
    }
    return true;
  }
  int64_t done_value() const { return __atomic_load_n(&done_->value, __ATOMIC_ACQUIRE); }

  static constexpr uint32_t kN = 150;
  GpuCode code_;
  uint64_t kd_va_ = 0;
  pm4::KernelDescriptor kd_{};
  RawQueue* q_ = nullptr;
  AmdQueue* aq_ = nullptr;
  uint32_t *idx_ = nullptr, *out_ = nullptr;
  AmdSignal* done_ = nullptr;
};

TEST_F(DynamicScratch, WaitsForTheRuntimeAndResumes) {
  SignalEvent ev = signal_event();
  AmdSignal* inactive = signal(0);
  inactive->event_mailbox_ptr = ev.slot_va();
  inactive->event_id = ev.id;
  aq_->queue_inactive_signal = reinterpret_cast<uint64_t>(inactive);
  testing::internal::CaptureStderr();
  submit();
  const bool asked = wait_event(ev.id, 10000) == kfd::WaitResult::Complete;
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(asked) << "the CP did not raise queue_inactive_signal's event";
  EXPECT_EQ(uint64_t(inactive->value), pm4::queue_error::kScratchWave64);
  EXPECT_TRUE(pm4::queue_error::wants_scratch(uint64_t(inactive->value)));
  EXPECT_EQ(aq_->read_dispatch_id, 0u) << "the runtime finds the packet at read_dispatch_id";
  EXPECT_NE(log.find("bytes of scratch per work-item"), std::string::npos) << log;
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(done_value(), 1) << "the dispatch ran without scratch";
  grow_scratch(inactive);
  ASSERT_TRUE(eventually([&] { return done_value() == 0; }));
  EXPECT_EQ(aq_->read_dispatch_id, 1u);
  EXPECT_TRUE(results_right());
  // The queue goes on: the next dispatch finds the scratch there.
  std::memset(out_, 0, kN * 4);
  done_->value = 1;
  submit();
  ASSERT_TRUE(eventually([&] { return done_value() == 0; }));
  EXPECT_TRUE(results_right());
  EXPECT_EQ(inactive->value, 0);
}

// Without a signal to ask through, the CP cannot wait for scratch: the queue stops.
TEST_F(DynamicScratch, WithoutAnInactiveSignalTheQueueStops) {
  testing::internal::CaptureStderr();
  submit();
  std::this_thread::sleep_for(100ms);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(done_value(), 1);
  EXPECT_NE(log.find("stopped"), std::string::npos) << log;
  EXPECT_NE(log.find("insufficient scratch"), std::string::npos) << log;
}

}  // namespace
}  // namespace engtest
