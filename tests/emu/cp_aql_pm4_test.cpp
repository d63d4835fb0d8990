// SPDX-License-Identifier: MIT
// The AQL vendor PM4-IB packet (ROCr's ExecutePM4) on a raw AQL queue: its IB runs on the PM4 engine and the packet completes like any AQL packet.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "pm4/aql.h"
#include "pm4/queue_error.h"
#include "pm4/type3.h"
#include "tests/emu/engine_util.h"

namespace engtest {
namespace {

using namespace pm4::aql;
using Dw = std::vector<uint32_t>;

class AqlPm4Ib : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (HasFatalFailure()) return;
    q_ = &queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
    aq_ = static_cast<AmdQueue*>(q_->amd_queue());
    done_ = signal(1);
  }
  AmdSignal* signal(int64_t value) {
    auto* s = host<AmdSignal>(1);
    s->kind = kSignalKindUser;
    s->value = value;
    return s;
  }
  uint32_t* ib(const Dw& dw) {
    uint32_t* p = host<uint32_t>(dw.size() + 1);
    std::memcpy(p, dw.data(), dw.size() * 4);
    return p;
  }
  // The packet exactly as ROCr rocm-5.2 ExecutePM4 writes it on gfx9 (amd_aql_queue.cpp).
  void submit_ib(const void* ib_va, size_t dwords, uint32_t dw_cnt_remain = pm4::kPm4IbDwCntRemain) {
    Pm4IbPacket p = pm4::make_aql_pm4_ib(reinterpret_cast<uint64_t>(ib_va), uint32_t(dwords),
                                         reinterpret_cast<uint64_t>(done_),
                                         make_header(kTypeVendor, false, kScopeNone, kScopeNone));
    p.ib_jump_cmd[0] = pm4::type3_header(pm4::kOpIndirectBuffer, pm4::kIndirectBufferDwords, false);
    p.dw_cnt_remain = dw_cnt_remain;
    q_->submit_aql(&p);
  }
  int64_t done_value() const { return __atomic_load_n(&done_->value, __ATOMIC_ACQUIRE); }
  uint64_t read_index() const { return __atomic_load_n(&aq_->read_dispatch_id, __ATOMIC_ACQUIRE); }

  RawQueue* q_ = nullptr;
  AmdQueue* aq_ = nullptr;
  AmdSignal* done_ = nullptr;
};

Dw write_data(const void* p, uint32_t v) {
  pm4::WriteData w;
  w.address = reinterpret_cast<uint64_t>(p);
  Dw out(5);
  Dw data = {v};
  pm4::write_write_data(out.data(), w, data);
  return out;
}

// GpuAgent::InvalidateCodeCaches on gfx9: ACQUIRE_MEM invalidating I$, K$ and the L2 (with
// write-back), over the whole address space, header without the compute shader-type bit.
Dw rocr_acquire_mem() {
  Dw a(pm4::kAcquireMemDwordsGfx9, 0);
  a[0] = pm4::type3_header(pm4::kOpAcquireMem, pm4::kAcquireMemDwordsGfx9, false);
  a[1] = pm4::coher_gfx9::kShIcacheActionEna | pm4::coher_gfx9::kShKcacheActionEna |
         pm4::coher_gfx9::kTcActionEna | pm4::coher_gfx9::kTcWbActionEna;
  a[2] = 0xFFFFFFFFu;
  a[3] = 0xFFu;
  return a;
}

TEST_F(AqlPm4Ib, RunsRocrCodeCacheInvalidation) {
  uint32_t* out = host<uint32_t>(1);
  Dw body = rocr_acquire_mem();
  const Dw w = write_data(out, 77);
  body.insert(body.end(), w.begin(), w.end());
  submit_ib(ib(body), body.size());
  ASSERT_TRUE(eventually([&] { return done_value() == 0; })) << "the completion signal was not decremented";
  EXPECT_EQ(out[0], 77u);
  // The command processor releases the slot and moves the read index after the completion
  // signal: a waiter on the signal may look before it has (seen under TSan's slower threads).
  EXPECT_TRUE(eventually([&] { return read_index() == 1u; })) << "read index " << read_index();
  EXPECT_TRUE(eventually([&] {
    return __atomic_load_n(reinterpret_cast<uint16_t*>(q_->ring()), __ATOMIC_ACQUIRE) == kTypeInvalid;
  })) << "the slot is released";
  // The next packet runs too.
  done_->value = 1;
  submit_ib(ib(rocr_acquire_mem()), pm4::kAcquireMemDwordsGfx9);
  ASSERT_TRUE(eventually([&] { return done_value() == 0; }));
  EXPECT_TRUE(eventually([&] { return read_index() == 2u; })) << "read index " << read_index();
}

TEST_F(AqlPm4Ib, WaitInsideTheIbHoldsThePacket) {
  uint32_t* flag = host<uint32_t>(1);
  uint32_t* out = host<uint32_t>(1);
  pm4::WaitRegMem wr;
  wr.address = reinterpret_cast<uint64_t>(flag);
  wr.reference = 1;
  Dw body(pm4::kWaitRegMemDwords);
  pm4::write_wait_reg_mem(body.data(), wr);
  const Dw w = write_data(out, 5);
  body.insert(body.end(), w.begin(), w.end());
  submit_ib(ib(body), body.size());
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(done_value(), 1);
  EXPECT_EQ(read_index(), 0u);
  EXPECT_EQ(out[0], 0u);
  __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
  ASSERT_TRUE(eventually([&] { return done_value() == 0; }));
  EXPECT_TRUE(eventually([&] { return read_index() == 1u; })) << "read index " << read_index();
  EXPECT_EQ(out[0], 5u);
}

class AqlPm4IbErrors : public AqlPm4Ib {
 protected:
  void SetUp() override {
    AqlPm4Ib::SetUp();
    if (HasFatalFailure()) return;
    inactive_ = signal(0);
    aq_->queue_inactive_signal = reinterpret_cast<uint64_t>(inactive_);
  }
  int64_t error_value() { return __atomic_load_n(&inactive_->value, __ATOMIC_ACQUIRE); }
  AmdSignal* inactive_ = nullptr;
};

TEST_F(AqlPm4IbErrors, WrongDwCntRemainIsAVendorPacketError) {
  testing::internal::CaptureStderr();
  submit_ib(ib(rocr_acquire_mem()), pm4::kAcquireMemDwordsGfx9, 9);
  const bool stopped = eventually([&] { return error_value() != 0; });
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(stopped);
  EXPECT_EQ(uint64_t(error_value()), pm4::queue_error::kInvalidVendorPacket);
  EXPECT_EQ(done_value(), 1);
  EXPECT_NE(log.find("dw_cnt_remain 0x9"), std::string::npos) << log;
}

TEST_F(AqlPm4IbErrors, BadPm4InTheIbIsAPacketFormatError) {
  testing::internal::CaptureStderr();
  submit_ib(ib({pm4::type3_header(0x7E, 2), 0}), 2);
  const bool stopped = eventually([&] { return error_value() != 0; });
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(stopped);
  EXPECT_EQ(uint64_t(error_value()), pm4::queue_error::kInvalidPacketFormat);
  EXPECT_EQ(read_index(), 0u);
  EXPECT_NE(log.find("unknown PM4 opcode 0x7e"), std::string::npos) << log;
}

TEST_F(AqlPm4IbErrors, UnmappedIbRaisesAMemoryEvent) {
  const uint32_t mem = memory_event();
  const uint64_t va = unmapped_va();
  testing::internal::CaptureStderr();
  submit_ib(reinterpret_cast<void*>(va), 16);
  kfd_hsa_memory_exception_data d{};
  const bool got = wait_memory_event(mem, 10000, &d);
  std::this_thread::sleep_for(20ms);
  testing::internal::GetCapturedStderr();
  ASSERT_TRUE(got);
  EXPECT_EQ(d.va, va);
  EXPECT_EQ(error_value(), 0) << "a page fault writes no queue error";
  EXPECT_EQ(done_value(), 1);
}

}  // namespace
}  // namespace engtest
