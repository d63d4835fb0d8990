// SPDX-License-Identifier: MIT
// Kernel dispatch packets the AQL packet processor refuses before any wave starts: the queue stops with the hardware's error bit in queue_inactive_signal, the completion signal is untouched, nothing is written.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>

#include "pm4/aql.h"
#include "pm4/queue_error.h"
#include "tests/emu/engine_util.h"

namespace engtest {
namespace {

using namespace pm4::aql;
namespace qe = pm4::queue_error;

struct BadPacket {
  const char* name;
  std::function<void(KernelDispatchPacket&)> spoil;
  uint64_t error;       // the bit the queue stops with
  const char* message;  // what the emulator's report on stderr names
};

class AqlInvalidDispatch : public EngineTest, public ::testing::WithParamInterface<BadPacket> {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (HasFatalFailure()) return;
    if (gpu0().node->props.gfx_target_version != 90010) GTEST_SKIP() << "the kernel corpus is built for gfx90a";
    if (access(kernel_path("basic.co").c_str(), R_OK) != 0) GTEST_SKIP() << "the kernel corpus is not built";
    ASSERT_EQ(code_.load(kernel_path("basic.co"), dev(), gpu0()), "");
    kd_va_ = code_.kernel_descriptor("vadd");
    ASSERT_NE(kd_va_, 0u);
  }
  AmdSignal* signal(int64_t value) {
    auto* s = host<AmdSignal>(1);
    s->kind = kSignalKindUser;
    s->value = value;
    return s;
  }
  GpuCode code_;
  uint64_t kd_va_ = 0;
};

TEST_P(AqlInvalidDispatch, StopsTheQueueWithTheHardwaresErrorBit) {
  const BadPacket& bad = GetParam();
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
  auto* aq = static_cast<AmdQueue*>(q.amd_queue());
  AmdSignal* inactive = signal(0);
  aq->queue_inactive_signal = reinterpret_cast<uint64_t>(inactive);
  constexpr uint32_t n = 256;
  float* a = host<float>(n);
  float* b = host<float>(n);
  float* c = host<float>(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = float(i), b[i] = 1.0f, c[i] = -1.0f;
  auto* ka = host<uint8_t>(256);
  struct { float *a, *b, *c; uint32_t n; } args{a, b, c, n};
  std::memcpy(ka, &args, sizeof args);
  AmdSignal* done = signal(1);
  KernelDispatchPacket p{};
  p.header = make_header(kTypeKernelDispatch, true, kScopeSystem, kScopeSystem);
  p.setup = 1;
  p.workgroup_size_x = 64, p.workgroup_size_y = 1, p.workgroup_size_z = 1;
  p.grid_size_x = n, p.grid_size_y = 1, p.grid_size_z = 1;
  p.kernel_object = kd_va_;
  p.kernarg_address = reinterpret_cast<uint64_t>(ka);
  p.completion_signal = reinterpret_cast<uint64_t>(done);
  bad.spoil(p);
  testing::internal::CaptureStderr();
  q.submit_aql(&p);
  const bool stopped = eventually([&] { return __atomic_load_n(&inactive->value, __ATOMIC_ACQUIRE) != 0; });
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(stopped) << bad.name << ": the queue did not stop";
  EXPECT_EQ(uint64_t(inactive->value), bad.error) << qe::describe(uint64_t(inactive->value));
  EXPECT_NE(log.find(bad.message), std::string::npos) << log;
  EXPECT_EQ(__atomic_load_n(&done->value, __ATOMIC_ACQUIRE), 1) << "the refused packet completed";
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], -1.0f) << "a wave of the refused dispatch ran: c[" << i << "]";
}

// The CP decrements the completion signal's 64-bit value atomically: 8-byte alignment is what that
// needs (ROCr's signals are 64-byte aligned; a 32-byte aligned one is just as usable), and a signal
// whose value is not aligned is a memory fault, not undefined behaviour in the emulator.
class AqlSignalAlignment : public AqlInvalidDispatch {};

TEST_F(AqlSignalAlignment, EightByteAlignedSignalsCompleteMisalignedOnesFault) {
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
  auto* raw = host<uint8_t>(256);
  auto* aligned32 = reinterpret_cast<int64_t*>(raw + 64 + 32 + offsetof(AmdSignal, value));
  *aligned32 = 1;
  BarrierPacket b{};
  b.header = make_header(kTypeBarrierAnd, true, kScopeSystem, kScopeSystem);
  b.completion_signal = reinterpret_cast<uint64_t>(raw + 64 + 32);
  q.submit_aql(&b);
  ASSERT_TRUE(eventually([&] { return __atomic_load_n(aligned32, __ATOMIC_ACQUIRE) == 0; }))
      << "a 32-byte aligned completion signal was not decremented";

  const uint32_t mem = memory_event();
  RawQueue& q2 = queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
  auto* misaligned = raw + 128 + 4;
  b.completion_signal = reinterpret_cast<uint64_t>(misaligned);
  testing::internal::CaptureStderr();
  q2.submit_aql(&b);
  kfd_hsa_memory_exception_data d{};
  const bool got = wait_memory_event(mem, 10000, &d);
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(got) << log;
  // The driver reports the faulting page (Linux kfd_events.c kfd_signal_vm_fault_event: page_addr).
  EXPECT_EQ(d.va, (reinterpret_cast<uint64_t>(misaligned) + offsetof(AmdSignal, value)) & ~uint64_t{4095});
  EXPECT_NE(log.find("is not 8-byte aligned"), std::string::npos) << log;
}

// The command processor remembers the mappings it looked up last (no lock per signal): a signal
// whose buffer was unmapped since faults on its next use, as on hardware (the GPU's page table
// entry is gone); a signal mapped again completes again.
class AqlSignalMapping : public AqlInvalidDispatch {};

TEST_F(AqlSignalMapping, ASignalUnmappedAfterUseFaultsOnItsNextUse) {
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
  Buffer& buf = buffer(4096, Kind::Gtt, KFD_IOC_ALLOC_MEM_FLAGS_COHERENT);  // signals are fine-grained
  auto* s = static_cast<AmdSignal*>(buf.ptr());
  s->kind = kSignalKindUser;
  s->value = 2;
  BarrierPacket b{};
  b.header = make_header(kTypeBarrierAnd, true, kScopeSystem, kScopeSystem);
  b.completion_signal = buf.va();
  q.submit_aql(&b);
  q.submit_aql(&b);
  ASSERT_TRUE(eventually([&] { return __atomic_load_n(&s->value, __ATOMIC_ACQUIRE) == 0; }))
      << "the completion signal was not decremented twice";

  const uint32_t ids[] = {gpu0().gpu_id};
  auto un = kfd().unmap_memory(buf.handle(), ids);
  ASSERT_TRUE(un.ok()) << un.message();
  const uint32_t mem = memory_event();
  __atomic_store_n(&s->value, 1, __ATOMIC_RELEASE);
  testing::internal::CaptureStderr();
  q.submit_aql(&b);
  kfd_hsa_memory_exception_data d{};
  const bool got = wait_memory_event(mem, 10000, &d);
  const std::string log = testing::internal::GetCapturedStderr();
  auto re = kfd().map_memory(buf.handle(), ids);  // (the fixture unmaps it at the end)
  ASSERT_TRUE(re.ok()) << re.message();
  ASSERT_TRUE(got) << "no memory fault for a completion signal unmapped since its last use\n" << log;
  EXPECT_EQ(d.va, buf.va() & ~uint64_t{4095});
  EXPECT_NE(log.find("is not mapped"), std::string::npos) << log;
  EXPECT_EQ(__atomic_load_n(&s->value, __ATOMIC_ACQUIRE), 1) << "the unmapped signal was written";

  // Mapped again: a new queue's packet completes on it.
  RawQueue& q2 = queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
  q2.submit_aql(&b);
  EXPECT_TRUE(eventually([&] { return __atomic_load_n(&s->value, __ATOMIC_ACQUIRE) == 0; }))
      << "the signal mapped again was not decremented";
}

INSTANTIATE_TEST_SUITE_P(
    Packets, AqlInvalidDispatch,
    ::testing::Values(
        BadPacket{"null kernel object", [](KernelDispatchPacket& p) { p.kernel_object = 0; }, qe::kInvalidCode,
                  "kernel_object is 0"},
        BadPacket{"zero workgroup size", [](KernelDispatchPacket& p) { p.workgroup_size_y = 0; }, qe::kInvalidDim,
                  "has a zero dimension"},
        BadPacket{"2048 work-items", [](KernelDispatchPacket& p) { p.workgroup_size_x = 1024, p.workgroup_size_y = 2; },
                  qe::kGroupTooLarge, "more than the hardware's 1024"},
        BadPacket{"65 KiB of group memory", [](KernelDispatchPacket& p) { p.group_segment_size = 65 * 1024; },
                  qe::kInvalidGroupMemory, "bytes of LDS a workgroup can have"},
        BadPacket{"4 GiB of group memory", [](KernelDispatchPacket& p) { p.group_segment_size = 0xfffffffeu; },
                  qe::kInvalidGroupMemory, "bytes of LDS a workgroup can have"}),
    [](const ::testing::TestParamInfo<BadPacket>& i) {
      std::string s = i.param.name;
      for (char& ch : s)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return s;
    });

}  // namespace
}  // namespace engtest
