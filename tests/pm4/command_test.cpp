// SPDX-License-Identifier: MIT
// The PM4 and SDMA command builders of queues/ against the hardware's documented encodings (no device).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "pm4/regs.h"
#include "pm4/sdma.h"
#include "pm4/type3.h"
#include "queues/pm4_commands.h"
#include "queues/sdma_commands.h"

namespace {

using queues::Cond;

const pm4::Family& gfx906() { return *pm4::family_for(90006); }
const pm4::Family& gfx90a() { return *pm4::family_for(90010); }
const pm4::Family& gfx1100() { return *pm4::family_for(110000); }

// The packets of a PM4 stream, by opcode, walking the type-3 headers.
struct Walked {
  uint8_t opcode;
  const uint32_t* p;
  uint32_t dwords;
};
std::vector<Walked> walk(const uint32_t* p, size_t n) {
  std::vector<Walked> out;
  for (size_t i = 0; i < n;) {
    auto h = pm4::decode_type3(p[i]);
    EXPECT_EQ(pm4::packet_type(p[i]), pm4::kPacketType3) << "dword " << i;
    out.push_back({h.opcode, p + i, h.dwords()});
    i += h.dwords();
  }
  return out;
}

TEST(Pm4Commands, InterruptSignalIsValueThenMailboxWithTheEventId) {
  queues::SignalTarget s{0x7f0000001000ull, 0x7f0000002008ull, 77};
  uint32_t p[queues::kPm4SignalMaxDwords];
  ASSERT_EQ(queues::pm4_signal_dwords(s), 16u);
  ASSERT_EQ(queues::write_pm4_signal(p, gfx90a(), s, -5), 16u);
  // RELEASE_MEM (Linux soc15d.h): EVENT CACHE_FLUSH_AND_INV_TS (0x14), EVENT_INDEX 5 (EOP),
  // TC_WB (bit 15) + TC (bit 17) on gfx9; DATA_SEL 2 (64-bit), INT_SEL 3 (data after confirm).
  EXPECT_EQ(p[0], 0xC0064902u);
  EXPECT_EQ(p[1], 0x14u | 5u << 8 | 1u << 15 | 1u << 17);
  EXPECT_EQ(p[2], 3u << 24 | 2u << 29);
  EXPECT_EQ(p[3], 0x00001000u);
  EXPECT_EQ(p[4], 0x7f00u);
  EXPECT_EQ(p[5], 0xFFFFFFFBu);
  EXPECT_EQ(p[6], 0xFFFFFFFFu);
  // The interrupt: INT_SEL 2 (after write confirm), event id as data and as INT_CTXID.
  EXPECT_EQ(p[8], 0xC0064902u);
  EXPECT_EQ(p[9], 0x14u | 5u << 8);  // no cache action twice
  EXPECT_EQ(p[10], 2u << 24 | 2u << 29);
  EXPECT_EQ(pm4::decode_release_mem(p + 8).address, 0x7f0000002008ull);
  EXPECT_EQ(p[13], 77u);
  EXPECT_EQ(p[15], 77u);
  // A polling signal: only the value; no writeback when asked not to.
  s.mailbox = 0;
  EXPECT_EQ(queues::pm4_signal_dwords(s), 8u);
  ASSERT_EQ(queues::write_pm4_signal(p, gfx90a(), s, 0, false), 8u);
  EXPECT_EQ(p[1], 0x14u | 5u << 8);
  // gfx10+: the GCR form of the write-back in bits [23:12].
  ASSERT_EQ(queues::write_pm4_signal(p, gfx1100(), s, 0), 8u);
  EXPECT_EQ(p[1] & 0x00FFF000u, pm4::release_cache_writeback(gfx1100()));
  EXPECT_NE(pm4::release_cache_writeback(gfx1100()), pm4::release_cache_writeback(gfx90a()));
}

TEST(Pm4Commands, SignalWaitsAreTwo32BitWaitsHighFirst) {
  uint32_t p[queues::kPm4WaitSignalDwords];
  auto n = queues::write_pm4_wait_signal(p, 0x10000, Cond::Eq, 0x100000005ll);
  ASSERT_TRUE(n.ok()) << n.message();
  ASSERT_EQ(*n, 14u);
  // WAIT_REG_MEM: header for 7 dwords, FUNCTION 3 (equal), MEM_SPACE 1, address, ref, mask, poll.
  EXPECT_EQ(p[0], 0xC0053C02u);
  EXPECT_EQ(p[1], 3u | 1u << 4);
  EXPECT_EQ(p[2], 0x10004u);  // the high dword first
  EXPECT_EQ(p[4], 1u);
  EXPECT_EQ(p[5], 0xFFFFFFFFu);
  EXPECT_EQ(p[9], 0x10000u);
  EXPECT_EQ(p[11], 5u);
  ASSERT_TRUE(queues::write_pm4_wait_signal(p, 0x10000, Cond::Lt, 3).ok());
  EXPECT_EQ(p[4], 0u);
  EXPECT_EQ(p[8] & 7u, uint32_t(pm4::kCompareLess));
  EXPECT_EQ(p[11], 3u);
  ASSERT_TRUE(queues::write_pm4_wait_signal(p, 0x10000, Cond::Lt, int64_t(1) << 32).ok());
  EXPECT_EQ(p[8] & 7u, uint32_t(pm4::kCompareAlways));
  EXPECT_EQ(queues::write_pm4_wait_signal(p, 0x10000, Cond::Ne, 0).err(), EINVAL);
  EXPECT_EQ(queues::write_pm4_wait_signal(p, 0x10000, Cond::Gte, 1).err(), EINVAL);
  EXPECT_EQ(queues::write_pm4_wait_signal(p, 0x10000, Cond::Lt, 0).err(), EINVAL);
  EXPECT_EQ(queues::write_pm4_wait_signal(p, 0x10004, Cond::Eq, 0).err(), EINVAL);
}

TEST(Pm4Commands, TimestampsWriteAndFenceEncodings) {
  uint32_t p[16];
  ASSERT_EQ(queues::write_pm4_timestamp(p, 0x2000), 6u);
  // COPY_DATA: SRC_SEL 9 (GPU clock), DST_SEL 5 (memory), COUNT_SEL 1 (64-bit), WR_CONFIRM.
  EXPECT_EQ(p[0], pm4::type3_header(pm4::kOpCopyData, 6));
  EXPECT_EQ(p[1], 9u | 5u << 8 | 1u << 16 | 1u << 20);
  EXPECT_EQ(p[4], 0x2000u);
  ASSERT_EQ(queues::write_pm4_end_timestamp(p, 0x2008), 8u);
  EXPECT_EQ(p[2], 3u << 24 | 3u << 29);  // DATA_SEL 3: GPU clock at the end of the pipe
  const uint32_t data[2] = {7, 8};
  ASSERT_EQ(queues::write_pm4_write_memory(p, 0x3000, data), 6u);
  // WRITE_DATA (kfdtest): DST_SEL 5, WR_CONFIRM, CACHE_POLICY 2 (bypass).
  EXPECT_EQ(p[0], pm4::type3_header(pm4::kOpWriteData, 6));
  EXPECT_EQ(p[1], 5u << 8 | 1u << 20 | 2u << 25);
  EXPECT_EQ(p[4], 7u);
  EXPECT_EQ(p[5], 8u);
  ASSERT_EQ(queues::write_pm4_fence(p, 0x4000, 9), 8u);
  EXPECT_EQ(p[2], 3u << 24 | 1u << 29);  // 32-bit data, no interrupt
  EXPECT_EQ(p[5], 9u);
  ASSERT_EQ(queues::write_pm4_wait_equal(p, 0x4000, 9), 7u);
  EXPECT_EQ(pm4::decode_wait_reg_mem(p).reference, 9u);
}

// A descriptor enabling every user SGPR but preloading, as AMDGPUUsage orders them.
pm4::KernelDescriptor full_descriptor() {
  pm4::KernelDescriptor kd{};
  kd.group_segment_fixed_size = 1000;
  kd.private_segment_fixed_size = 40;
  kd.kernarg_size = 64;
  kd.kernel_code_entry_byte_offset = 0x1000;
  kd.compute_pgm_rsrc1 = 0x00AF0041;
  kd.compute_pgm_rsrc2 = 15u << 1 | 1u | 1u << 7 | 1u << 8;  // USER_SGPR 15, SCRATCH_EN, TGID_X/Y
  kd.compute_pgm_rsrc3 = 9;
  kd.kernel_code_properties = pm4::kEnableSgprPrivateSegmentBuffer | pm4::kEnableSgprDispatchPtr |
                              pm4::kEnableSgprQueuePtr | pm4::kEnableSgprKernargSegmentPtr |
                              pm4::kEnableSgprDispatchId | pm4::kEnableSgprFlatScratchInit |
                              pm4::kEnableSgprPrivateSegmentSize;
  return kd;
}

queues::Pm4QueueContext context(const pm4::Family& f) {
  queues::Pm4QueueContext q;
  q.family = &f;
  q.trap_present = true;
  q.tmpring_size = 0x1234;
  for (uint32_t i = 0; i < 4; ++i) q.scratch_srd[i] = 0xA0 + i;
  q.scratch_base = 0x7e0000010000ull;
  q.scratch_lane_bytes = 64;
  q.amd_queue = 0x7f1111110000ull;
  q.dispatch_packet = 0x7f2222221000ull;
  q.dispatch_id = 0x500000003ull;
  return q;
}

TEST(Pm4Commands, DispatchRegistersFollowTheDescriptorAndTheLaunch) {
  auto k = queues::make_pm4_kernel(full_descriptor(), 0x7f0000100000ull, gfx90a());
  ASSERT_TRUE(k.ok()) << k.message();
  EXPECT_EQ(k->entry, 0x7f0000101000ull);
  queues::Pm4Launch l;
  l.kernel = &*k;
  l.dims = 2;
  l.grid[0] = 100, l.grid[1] = 3;
  l.workgroup[0] = 64, l.workgroup[1] = 2;
  l.dynamic_group_bytes = 100;
  l.kernarg_address = 0x7f3333330000ull;
  auto r = queues::plan_pm4_dispatch(l, context(gfx90a()));
  ASSERT_TRUE(r.ok()) << r.message();
  using namespace pm4::reg;
  // NUM_THREAD: full size, and the last group's size with PARTIAL_TG_EN (100 % 64, 3 % 2).
  EXPECT_EQ(r->get(kComputeNumThreadX), 64u | 36u << 16);
  EXPECT_EQ(r->get(kComputeNumThreadY), 2u | 1u << 16);
  EXPECT_EQ(r->get(kComputeNumThreadZ), 1u);
  EXPECT_EQ(r->get(kComputeStartX), 0u);
  EXPECT_EQ(r->dispatch.dim[0], 100u);  // threads: USE_THREAD_DIMENSIONS
  EXPECT_EQ(r->dispatch.initiator, initiator::kComputeShaderEn | initiator::kUseThreadDimensions |
                                       initiator::kPartialTgEn);
  EXPECT_EQ(r->get(kComputePgmLo), uint32_t(0x7f0000101000ull >> 8));
  EXPECT_EQ(r->get(kComputePgmHi), 0x7fu);
  EXPECT_EQ(r->get(kComputeDispatchPktAddrLo), 0x22221000u);
  EXPECT_EQ(r->get(kComputeDispatchScratchBaseLo), uint32_t(0x7e0000010000ull >> 8));
  EXPECT_EQ(r->get(kComputeDispatchScratchBaseHi), 0x7eu);
  EXPECT_EQ(r->get(kComputePgmRsrc1), 0x00AF0041u);
  // RSRC2: the descriptor's bits, LDS_SIZE = ceil(1100 / 512) = 3, TRAP_PRESENT.
  const uint32_t rsrc2 = r->get(kComputePgmRsrc2);
  EXPECT_EQ(rsrc2 & ~(kRsrc2LdsSizeMask | kRsrc2TrapPresent), full_descriptor().compute_pgm_rsrc2);
  EXPECT_EQ((rsrc2 & kRsrc2LdsSizeMask) >> kRsrc2LdsSizeShift, 3u);
  EXPECT_TRUE(rsrc2 & kRsrc2TrapPresent);
  EXPECT_EQ(r->rsrc3_reg, kComputePgmRsrc3Gfx90a);
  EXPECT_EQ(r->rsrc3, 9u);
  EXPECT_EQ(r->tmpring_size, 0x1234u);
  // User SGPRs: V# (4), dispatch ptr, queue ptr, kernarg ptr, dispatch id, flat scratch init,
  // private segment size (40, dword-rounded).
  const uint32_t want[] = {0xA0, 0xA1, 0xA2, 0xA3, 0x22221000, 0x7f22, 0x11110000, 0x7f11,
                           0x33330000, 0x7f33, 3, 5, 0x00010000, 0x7e00, 40};
  ASSERT_EQ(r->user_count, 15u);
  for (uint32_t i = 0; i < 15; ++i) EXPECT_EQ(r->user_data[i], want[i]) << "USER_DATA_" << i;
  EXPECT_TRUE(r->acquire);
  EXPECT_EQ(r->acquire_form, pm4::AcquireMemForm::Gfx9);
}

TEST(Pm4Commands, DispatchStreamIsAcquireRegistersDispatchDirect) {
  auto k = queues::make_pm4_kernel(full_descriptor(), 0x7f0000100000ull, gfx90a());
  ASSERT_TRUE(k.ok());
  queues::Pm4Launch l;
  l.kernel = &*k;
  l.grid[0] = 256;
  l.workgroup[0] = 64;
  auto r = queues::plan_pm4_dispatch(l, context(gfx90a()));
  ASSERT_TRUE(r.ok()) << r.message();
  std::vector<uint32_t> buf(queues::pm4_dispatch_dwords(*r) + 4, 0xDEADBEEF);
  ASSERT_EQ(queues::write_pm4_dispatch(buf.data(), *r), queues::pm4_dispatch_dwords(*r));
  EXPECT_EQ(buf[queues::pm4_dispatch_dwords(*r)], 0xDEADBEEFu);
  auto pk = walk(buf.data(), queues::pm4_dispatch_dwords(*r));
  ASSERT_EQ(pk.size(), 8u);
  EXPECT_EQ(pk[0].opcode, pm4::kOpAcquireMem);
  EXPECT_EQ(pk[0].dwords, 7u);
  // ROCr / kfdtest invalidate on gfx9: SH_ICACHE, SH_KCACHE, TC, TCL1 (+ TC_WB).
  EXPECT_EQ(pk[0].p[1] & 0x28C00000u, 0x28C00000u);
  // SET_SH_REG offsets are register - 0x2C00 (soc15d.h PACKET3_SET_SH_REG_START).
  EXPECT_EQ(pk[1].opcode, pm4::kOpSetShReg);
  EXPECT_EQ(pk[1].p[1], 0x204u);  // COMPUTE_START_X
  EXPECT_EQ(pk[1].dwords, 2u + 16u);
  EXPECT_EQ(pk[2].p[1], 0x22Du);  // COMPUTE_PGM_RSRC3 on gfx90a
  EXPECT_EQ(pk[3].p[1], 0x215u);  // COMPUTE_RESOURCE_LIMITS
  EXPECT_EQ(pk[4].p[1], 0x218u);  // COMPUTE_TMPRING_SIZE
  EXPECT_EQ(pk[5].p[1], 0x21Bu);  // COMPUTE_RESTART_X .. THREAD_TRACE_ENABLE
  EXPECT_EQ(pk[5].dwords, 6u);
  EXPECT_EQ(pk[6].p[1], 0x240u);  // COMPUTE_USER_DATA_0
  EXPECT_EQ(pk[6].dwords, 2u + 15u);
  EXPECT_EQ(pk[7].opcode, pm4::kOpDispatchDirect);
  auto d = pm4::decode_dispatch_direct(pk[7].p);
  EXPECT_EQ(d.dim[0], 256u);
  EXPECT_EQ(d.initiator, 0x21u);  // kfdtest's DISPATCH_INIT_VALUE: COMPUTE_SHADER_EN | USE_THREAD_DIMENSIONS
  // No acquire, no RSRC3 on gfx906; the GCR-form acquire and RSRC3 at 0x2E28 on gfx1100.
  l.fence.acquire = pm4::aql::kScopeNone;
  auto k6 = queues::make_pm4_kernel(full_descriptor(), 0x7f0000100000ull, gfx906());
  ASSERT_TRUE(k6.ok());
  l.kernel = &*k6;
  auto r6 = queues::plan_pm4_dispatch(l, context(gfx906()));
  ASSERT_TRUE(r6.ok());
  buf.assign(queues::pm4_dispatch_dwords(*r6), 0);
  auto pk6 = walk(buf.data(), queues::write_pm4_dispatch(buf.data(), *r6));
  ASSERT_EQ(pk6.size(), 6u);
  EXPECT_EQ(pk6[0].opcode, pm4::kOpSetShReg);
  EXPECT_EQ(pk6[1].p[1], 0x215u);
  l.fence.acquire = pm4::aql::kScopeSystem;
  auto k11 = queues::make_pm4_kernel(full_descriptor(), 0x7f0000100000ull, gfx1100());
  ASSERT_TRUE(k11.ok());
  l.kernel = &*k11;
  auto r11 = queues::plan_pm4_dispatch(l, context(gfx1100()));
  ASSERT_TRUE(r11.ok());
  buf.assign(queues::pm4_dispatch_dwords(*r11), 0);
  auto pk11 = walk(buf.data(), queues::write_pm4_dispatch(buf.data(), *r11));
  ASSERT_EQ(pk11.size(), 8u);
  EXPECT_EQ(pk11[0].dwords, 8u);
  EXPECT_EQ(pk11[2].p[1], 0x228u);
}

TEST(Pm4Commands, Wave32SetsCsW32En) {
  pm4::KernelDescriptor kd{};
  kd.kernel_code_entry_byte_offset = 256;
  kd.kernel_code_properties = pm4::kEnableWavefrontSize32;
  auto k = queues::make_pm4_kernel(kd, 0x100000, gfx1100());
  ASSERT_TRUE(k.ok()) << k.message();
  queues::Pm4Launch l;
  l.kernel = &*k;
  auto r = queues::plan_pm4_dispatch(l, context(gfx1100()));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->dispatch.initiator & pm4::reg::initiator::kCsW32En);
  EXPECT_EQ(r->user_count, 0u);
  EXPECT_EQ(queues::make_pm4_kernel(kd, 0x100000, gfx90a()).err(), EINVAL);  // no wave32 on gfx9
}

TEST(Pm4Commands, PreloadedKernargsFillSgprsAndSkipThePrologue) {
  pm4::KernelDescriptor kd{};
  kd.kernel_code_entry_byte_offset = 0x100;
  kd.kernel_code_properties = pm4::kEnableSgprKernargSegmentPtr;
  kd.kernarg_preload = 3 | 1u << 7;  // 3 dwords from dword 1
  kd.compute_pgm_rsrc2 = 5u << 1;
  auto k = queues::make_pm4_kernel(kd, 0x200000, gfx90a());
  ASSERT_TRUE(k.ok()) << k.message();
  queues::Pm4Launch l;
  l.kernel = &*k;
  l.kernarg_address = 0x300000;
  auto missing = queues::plan_pm4_dispatch(l, context(gfx90a()));
  EXPECT_EQ(missing.err(), EINVAL);
  EXPECT_NE(missing.message().find("preloads"), std::string::npos) << missing.message();
  const uint32_t args[4] = {10, 11, 12, 13};
  l.kernarg = std::span(reinterpret_cast<const uint8_t*>(args), sizeof args);
  auto r = queues::plan_pm4_dispatch(l, context(gfx90a()));
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->user_count, 5u);
  EXPECT_EQ(r->user_data[0], 0x300000u);
  EXPECT_EQ(r->user_data[2], 11u);
  EXPECT_EQ(r->user_data[4], 13u);
  // AMDGPUUsage: a launcher that preloads starts 256 bytes past the entry.
  EXPECT_EQ(pm4::reg::pgm_address(r->get(pm4::reg::kComputePgmLo), r->get(pm4::reg::kComputePgmHi)),
            0x200100u + 256u);
  kd.compute_pgm_rsrc2 = 4u << 1;  // USER_SGPR_COUNT below what is enabled
  EXPECT_EQ(queues::make_pm4_kernel(kd, 0x200000, gfx90a()).err(), EINVAL);
}

TEST(Pm4Commands, RejectsLaunchesTheHardwareCannotRun) {
  auto k = queues::make_pm4_kernel(full_descriptor(), 0x7f0000100000ull, gfx90a());
  ASSERT_TRUE(k.ok());
  auto q = context(gfx90a());
  queues::Pm4Launch l;
  l.kernel = &*k;
  l.dynamic_group_bytes = 65536;  // + 1000 fixed: over the node's 64 KiB
  auto r = queues::plan_pm4_dispatch(l, q);
  EXPECT_EQ(r.err(), EINVAL);
  EXPECT_NE(r.message().find("66536"), std::string::npos) << r.message();
  l.dynamic_group_bytes = 0;
  l.private_segment_bytes = 100;  // the queue holds 64 per work-item
  r = queues::plan_pm4_dispatch(l, q);
  EXPECT_EQ(r.err(), EINVAL);
  EXPECT_NE(r.message().find("scratch_lane_bytes"), std::string::npos) << r.message();
  l.private_segment_bytes = 0;
  q.scratch_lane_bytes = 0;
  EXPECT_EQ(queues::plan_pm4_dispatch(l, q).err(), EINVAL);  // 40 fixed, none in the queue
  q = context(gfx90a());
  l.workgroup[0] = 1024, l.workgroup[1] = 2, l.dims = 2;
  EXPECT_EQ(queues::plan_pm4_dispatch(l, q).err(), EINVAL);
  l.workgroup[1] = 1, l.dims = 1, l.grid[1] = 4;  // axis 1 beyond dims
  EXPECT_EQ(queues::plan_pm4_dispatch(l, q).err(), EINVAL);
  l.grid[1] = 1, l.dims = 0;
  EXPECT_EQ(queues::plan_pm4_dispatch(l, q).err(), EINVAL);
  l.dims = 1, l.grid[0] = 0;
  EXPECT_EQ(queues::plan_pm4_dispatch(l, q).err(), EINVAL);
  l.grid[0] = 1;
  q.dispatch_packet = 0;  // the kernel reads a dispatch packet the queue did not give
  EXPECT_EQ(queues::plan_pm4_dispatch(l, q).err(), EINVAL);
  EXPECT_EQ(queues::make_pm4_kernel(full_descriptor(), 0x7f0000100080ull, gfx90a()).err(), EINVAL);
}

TEST(Pm4Commands, DispatchPacketMirrorsTheLaunch) {
  auto k = queues::make_pm4_kernel(full_descriptor(), 0x7f0000100000ull, gfx90a());
  ASSERT_TRUE(k.ok());
  queues::Pm4Launch l;
  l.kernel = &*k;
  l.dims = 3;
  l.grid[0] = 10, l.grid[1] = 20, l.grid[2] = 30;
  l.workgroup[0] = 2, l.workgroup[1] = 4, l.workgroup[2] = 8;
  l.dynamic_group_bytes = 64;
  l.private_segment_bytes = 16;
  l.kernarg_address = 0x1234000;
  auto p = queues::pm4_dispatch_packet(l);
  ASSERT_TRUE(p.ok()) << p.message();
  pm4::aql::KernelDispatchPacket d;
  std::memcpy(&d, p->dw, sizeof d);
  EXPECT_EQ(pm4::aql::header_type(d.header), pm4::aql::kTypeKernelDispatch);
  EXPECT_EQ(d.setup & 3u, 3u);
  EXPECT_EQ(d.workgroup_size_y, 4u);
  EXPECT_EQ(d.grid_size_z, 30u);
  EXPECT_EQ(d.group_segment_size, 64u);
  EXPECT_EQ(d.private_segment_size, 16u);
  EXPECT_EQ(d.kernel_object, 0x7f0000100000ull);
  EXPECT_EQ(d.kernarg_address, 0x1234000u);
  EXPECT_EQ(d.completion_signal, 0u);
}

TEST(SdmaCommands, CopiesAreChunkedAtTheFamilysLimit) {
  const uint64_t bytes = 10ull << 20;
  ASSERT_EQ(pm4::sdma::copy_packets(bytes, gfx90a()), 3u);
  std::vector<uint32_t> p(queues::sdma_copy_dwords(bytes, gfx90a()));
  ASSERT_EQ(queues::write_sdma_copy(p.data(), gfx90a(), 0x100000000ull, 0x200000000ull, bytes), 21u);
  uint64_t total = 0;
  for (int i = 0; i < 3; ++i) {
    const uint32_t* c = p.data() + 7 * i;
    EXPECT_EQ(pm4::sdma::op_of(c[0]), pm4::sdma::kOpCopy);
    EXPECT_EQ(pm4::sdma::sub_op_of(c[0]), pm4::sdma::kSubCopyLinear);
    auto d = pm4::sdma::decode_copy_linear(c, gfx90a());
    EXPECT_LE(d.bytes, gfx90a().sdma_max_copy_bytes);
    EXPECT_EQ(c[1], d.bytes - 1);  // COUNT = bytes - 1 on SDMA v4
    EXPECT_EQ(d.src, 0x200000000ull + total);
    EXPECT_EQ(d.dst, 0x100000000ull + total);
    total += d.bytes;
  }
  EXPECT_EQ(total, bytes);
  EXPECT_EQ(queues::write_sdma_copy(p.data(), gfx90a(), 0, 0, 0), 0u);
  // SDMA v6 (gfx11) takes 30-bit counts: one packet.
  EXPECT_EQ(queues::sdma_copy_dwords(bytes, gfx1100()), 7u);
}

TEST(SdmaCommands, FillsAreWholeDwords) {
  uint32_t p[10];
  auto n = queues::write_sdma_fill(p, gfx90a(), 0x1000, 0xA5A5A5A5, 64);
  ASSERT_TRUE(n.ok()) << n.message();
  ASSERT_EQ(*n, 5u);
  // CONSTANT_FILL: op 11, FILLSIZE 2 (dword) at [31:30], COUNT = bytes - 1.
  EXPECT_EQ(p[0], 11u | 2u << 30);
  EXPECT_EQ(p[3], 0xA5A5A5A5u);
  EXPECT_EQ(p[4], 63u);
  EXPECT_EQ(queues::write_sdma_fill(p, gfx90a(), 0x1002, 0, 64).err(), EINVAL);
  EXPECT_EQ(queues::write_sdma_fill(p, gfx90a(), 0x1000, 0, 6).err(), EINVAL);
}

TEST(SdmaCommands, SignalCompletionIsFencesThenMailboxAndTrap) {
  queues::SdmaCompletion c;
  c.signal = {0x5000, 0x6008, 0x123};
  c.value = 0x100000002ll;
  uint32_t p[32];
  ASSERT_EQ(queues::sdma_signal_dwords(c), 14u);
  ASSERT_EQ(queues::write_sdma_signal(p, c), 14u);
  // FENCE (op 5): high dword first, then low, then the event id into the mailbox; TRAP (op 6)
  // with INT_CONTEXT = the event id (ROCr BuildFenceCommand / BuildTrapCommand).
  EXPECT_EQ(p[0], 5u);
  EXPECT_EQ(p[1], 0x5004u);
  EXPECT_EQ(p[3], 1u);
  EXPECT_EQ(p[5], 0x5000u);
  EXPECT_EQ(p[7], 2u);
  EXPECT_EQ(p[9], 0x6008u);
  EXPECT_EQ(p[11], 0x123u);
  EXPECT_EQ(p[12], 6u);
  EXPECT_EQ(pm4::sdma::trap_context(p + 12), 0x123u);
  c.decrement = true;
  c.signal.mailbox = 0;
  ASSERT_EQ(queues::sdma_signal_dwords(c), 8u);
  ASSERT_EQ(queues::write_sdma_signal(p, c), 8u);
  // ATOMIC (op 10), ATOMIC_OP 47 (TC_OP_ATOMIC_ADD_RTN_64) at [31:25], source -1.
  EXPECT_EQ(p[0], 10u | 47u << 25);
  EXPECT_EQ(p[3], 0xFFFFFFFFu);
  EXPECT_EQ(p[4], 0xFFFFFFFFu);
}

TEST(SdmaCommands, WaitsTimestampsAndMinimumSubmission) {
  uint32_t p[16];
  auto n = queues::write_sdma_wait_signal(p, 0x8000, Cond::Eq, 0);
  ASSERT_TRUE(n.ok()) << n.message();
  ASSERT_EQ(*n, 12u);
  // POLL_REGMEM (op 8): FUNC 3 (equal) at [30:28], MEM_POLL 31; retry 0xFFF (forever), interval 4.
  EXPECT_EQ(p[0], 8u | 3u << 28 | 1u << 31);
  EXPECT_EQ(p[1], 0x8004u);
  EXPECT_EQ(p[4], 0xFFFFFFFFu);
  EXPECT_EQ(p[5], 4u | 0xFFFu << 16);
  EXPECT_EQ(p[7], 0x8000u);
  EXPECT_EQ(queues::write_sdma_wait_signal(p, 0x8000, Cond::Gte, 0).err(), EINVAL);
  auto t = queues::write_sdma_timestamp(p, 0x9000);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(p[0], 13u | 2u << 8);  // TIMESTAMP, GET_GLOBAL
  EXPECT_EQ(queues::write_sdma_timestamp(p, 0x9008).err(), EINVAL);
  EXPECT_EQ(pm4::sdma::min_submission_dwords(90000), 64u);
  EXPECT_EQ(pm4::sdma::min_submission_dwords(90012), 64u);
  EXPECT_EQ(pm4::sdma::min_submission_dwords(90010), 0u);
  EXPECT_EQ(pm4::sdma::min_submission_dwords(90006), 0u);
}

}  // namespace
