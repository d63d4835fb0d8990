// SPDX-License-Identifier: MIT
// The hardware floor's packet encodings against documented constants, and writer/decoder round trips.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "pm4/queue_error.h"
#include "pm4/regs.h"
#include "pm4/sdma.h"
#include "pm4/type3.h"

namespace {

const pm4::Family& gfx90a() { return *pm4::family_for(90010); }
const pm4::Family& gfx1100() { return *pm4::family_for(110000); }

TEST(Type3, HeadersMatchDocumentedValues) {
  // Linux soc15d.h: PACKET3(op, n) = 3 << 30 | (n & 0x3FFF) << 16 | op << 8; compute bit 1.
  EXPECT_EQ(pm4::type3_header(pm4::kOpReleaseMem, 8), 0xC0064902u);
  EXPECT_EQ(pm4::type3_header(pm4::kOpIndirectBuffer, 4, false), 0xC0023F00u);  // ROCr's IB jump
  EXPECT_EQ(pm4::type3_header(pm4::kOpAcquireMem, 7, false), 0xC0055800u);
  EXPECT_EQ(pm4::kNop1, 0xFFFF1000u);
  auto h = pm4::decode_type3(0xC0064902u);
  EXPECT_EQ(h.opcode, pm4::kOpReleaseMem);
  EXPECT_EQ(h.dwords(), 8u);
  EXPECT_TRUE(h.compute);
  EXPECT_EQ(pm4::decode_type3(pm4::kNop1).dwords(), 1u);
  EXPECT_EQ(pm4::packet_type(pm4::kType2Filler), pm4::kPacketType2);
  EXPECT_STREQ(pm4::opcode_name(0x58), "ACQUIRE_MEM");
  EXPECT_EQ(pm4::opcode_name(0xEE), nullptr);
}

TEST(Type3, NopsHaveTheRequestedLength) {
  std::array<uint32_t, 8> buf;
  buf.fill(0xDEADBEEF);
  EXPECT_EQ(pm4::write_nop(buf.data(), 1), 1u);
  EXPECT_EQ(buf[0], pm4::kNop1);
  EXPECT_EQ(pm4::write_nop(buf.data(), 5), 5u);
  EXPECT_EQ(pm4::decode_type3(buf[0]).dwords(), 5u);
  EXPECT_EQ(buf[4], 0u);
  EXPECT_EQ(buf[5], 0xDEADBEEFu);  // nothing beyond
}

TEST(Type3, ReleaseMemFieldsAndRoundTrip) {
  pm4::ReleaseMem r;
  r.cache = pm4::release_cache_writeback(gfx90a());
  r.int_sel = pm4::kIntAfterWriteConfirm;
  r.data_sel = pm4::kData64;
  r.address = 0x7f00'1234'5678ull;
  r.data = 0x1122334455667788ull;
  r.int_ctxid = 42;
  uint32_t p[8];
  ASSERT_EQ(pm4::write_release_mem(p, r), 8u);
  // kfdtest PM4ReleaseMemoryPacket (AI): event 0x14, index 5, TC_WB (15) and TC (17).
  EXPECT_EQ(p[1], 0x14u | 5u << 8 | 1u << 15 | 1u << 17);
  EXPECT_EQ(p[2], 2u << 24 | 2u << 29);
  EXPECT_EQ(p[3], 0x12345678u);
  EXPECT_EQ(p[4], 0x7f00u);
  EXPECT_EQ(p[7], 42u);
  auto d = pm4::decode_release_mem(p);
  EXPECT_EQ(d.address, r.address);
  EXPECT_EQ(d.data, r.data);
  EXPECT_EQ(d.int_sel, r.int_sel);
  EXPECT_EQ(d.data_sel, r.data_sel);
  EXPECT_EQ(d.cache, r.cache);
  // gfx10+: RELEASE_MEM's GCR field as kfdtest writes it (SEQ, GL2_WB, GL2_INV, GL1_INV, GLV_INV).
  EXPECT_EQ(pm4::release_cache_writeback(gfx1100()), ((1u << 10) | (1u << 9) | (1u << 8) | (1u << 3) | (1u << 2)) << 12);
}

TEST(Type3, AcquireMemHasBothForms) {
  uint32_t p[8] = {};
  auto a = pm4::acquire_invalidate_all(gfx90a());
  ASSERT_EQ(pm4::write_acquire_mem(p, a, pm4::AcquireMemForm::Gfx9), 7u);
  EXPECT_EQ(pm4::decode_type3(p[0]).dwords(), 7u);
  // ROCr InvalidateCodeCaches (gfx9): SH_ICACHE | SH_KCACHE | TC | TC_WB, here with TCL1 too.
  EXPECT_EQ(p[1] & (1u << 29 | 1u << 27 | 1u << 23 | 1u << 18), 1u << 29 | 1u << 27 | 1u << 23 | 1u << 18);
  EXPECT_EQ(p[2], 0xFFFFFFFFu);  // whole address space
  EXPECT_EQ(p[3], 0xFFu);
  EXPECT_EQ(pm4::decode_acquire_mem(p, pm4::AcquireMemForm::Gfx9).size, ~0ull);
  auto g = pm4::acquire_invalidate_all(gfx1100());
  ASSERT_EQ(pm4::write_acquire_mem(p, g, pm4::AcquireMemForm::Gfx10), 8u);
  EXPECT_EQ(p[1], 0u);  // COHER_CNTL unused on gfx10+
  // ROCr InvalidateCodeCaches (gfx10+): GLI_INV(1) | GLK_INV | GLV_INV | GL1_INV | GL2_INV.
  EXPECT_EQ(p[7], 1u | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 14);
  pm4::AcquireMem ranged;
  ranged.base = 0x10000;
  ranged.size = 0x1001;
  pm4::write_acquire_mem(p, ranged, pm4::AcquireMemForm::Gfx9);
  auto back = pm4::decode_acquire_mem(p, pm4::AcquireMemForm::Gfx9);
  EXPECT_EQ(back.base, 0x10000u);
  EXPECT_EQ(back.size, 0x1100u);  // rounded up to 256-byte units
}

// An AQL fence's cache actions done by a PM4 queue: agent scope leaves the L2 alone, a
// system-scope acquire invalidates it without writing back, a system-scope release writes it
// back without invalidating (soc15d.h bit numbers).
TEST(Type3, FenceScopesAsPm4CacheActions) {
  EXPECT_EQ(pm4::acquire_for_scope(gfx90a(), 0).coher_cntl, 0u);
  EXPECT_EQ(pm4::acquire_for_scope(gfx90a(), 1).coher_cntl, 1u << 29 | 1u << 27 | 1u << 22);  // I$, K$, TCL1
  EXPECT_EQ(pm4::acquire_for_scope(gfx90a(), 2).coher_cntl,
            1u << 29 | 1u << 27 | 1u << 22 | 1u << 23 | 1u << 3);  // + TC, TC_NC; no TC_WB (bit 18)
  EXPECT_EQ(pm4::acquire_for_scope(gfx1100(), 1).gcr_cntl, 1u | 1u << 7 | 1u << 8 | 1u << 9);
  EXPECT_EQ(pm4::acquire_for_scope(gfx1100(), 2).gcr_cntl, 1u | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 14);
  EXPECT_EQ(pm4::release_for_scope(gfx90a(), 0), 0u);
  EXPECT_EQ(pm4::release_for_scope(gfx90a(), 1), 0u);
  EXPECT_EQ(pm4::release_for_scope(gfx90a(), 2), 1u << 15);  // TC_WB without TC (bit 17)
  EXPECT_EQ(pm4::release_for_scope(gfx1100(), 2), ((1u << 10) | (1u << 9)) << 12);  // SEQ 1, GL2_WB
}

TEST(Type3, WaitRegMemIndirectBufferCopyDataRoundTrip) {
  uint32_t p[8];
  pm4::WaitRegMem w;
  w.function = pm4::kCompareGreaterEqual;
  w.address = 0x1'0000'0040ull;
  w.reference = 7;
  w.mask = 0xFF;
  pm4::write_wait_reg_mem(p, w);
  EXPECT_EQ(p[1], 5u | 1u << 4);
  auto wd = pm4::decode_wait_reg_mem(p);
  EXPECT_EQ(wd.address, w.address);
  EXPECT_EQ(wd.reference, 7u);
  EXPECT_TRUE(pm4::compare_holds(wd.function, 9, 7));
  EXPECT_FALSE(pm4::compare_holds(wd.function, 6, 7));
  EXPECT_FALSE(pm4::compare_holds(7, 1, 1));  // reserved function never holds

  pm4::IndirectBuffer ib;
  ib.address = 0x7fff'0000'1000ull;
  ib.dwords = 12;
  pm4::write_indirect_buffer(p, ib);
  EXPECT_EQ(p[3], 12u | 1u << 23);  // ROCr's IB_SIZE | IB_VALID
  EXPECT_EQ(pm4::decode_indirect_buffer(p).address, ib.address);

  pm4::CopyData c;
  c.src_sel = pm4::kCopySrcGpuClock;
  c.count64 = true;
  c.dst = 0xABC0;
  pm4::write_copy_data(p, c);
  auto cd = pm4::decode_copy_data(p);
  EXPECT_EQ(cd.src_sel, 9u);
  EXPECT_TRUE(cd.count64);
  EXPECT_EQ(cd.dst, 0xABC0u);
}

TEST(Type3, SetShRegAndDispatch) {
  uint32_t p[8];
  const uint32_t v[2] = {0x1234, 0x5};
  ASSERT_EQ(pm4::write_set_sh_reg(p, pm4::reg::kComputePgmLo, v), 4u);
  EXPECT_EQ(p[1], 0x20Cu);  // 0x2E0C - 0x2C00
  EXPECT_EQ(pm4::decode_type3(p[0]).dwords(), 4u);
  pm4::DispatchDirect d;
  d.dim[0] = 256;
  d.initiator = pm4::reg::initiator::kComputeShaderEn | pm4::reg::initiator::kUseThreadDimensions;
  pm4::write_dispatch_direct(p, d);
  EXPECT_EQ(p[4], 0x21u);  // kfdtest's DISPATCH_INITIATOR
  EXPECT_EQ(pm4::reg::pgm_address(pm4::reg::pgm_lo(0x7f12'3456'7800ull), pm4::reg::pgm_hi(0x7f12'3456'7800ull)),
            0x7f12'3456'7800ull);
}

TEST(Type3, AqlPm4IbPacketIsRocrs) {
  auto pkt = pm4::make_aql_pm4_ib(0x5000'0000ull, 7, 0xAB00, 0);
  EXPECT_EQ(pkt.format, pm4::aql::kVendorPm4Ib);
  EXPECT_EQ(pkt.dw_cnt_remain, 0xAu);
  EXPECT_EQ(pm4::decode_type3(pkt.ib_jump_cmd[0]).opcode, pm4::kOpIndirectBuffer);
  EXPECT_EQ(pm4::decode_indirect_buffer(pkt.ib_jump_cmd).dwords, 7u);
  EXPECT_EQ(pkt.completion_signal, 0xAB00u);
}

TEST(Sdma, PacketsMatchKfdtestAndRocr) {
  uint32_t p[16];
  pm4::sdma::CopyLinear c{0x1000, 0x2000, 4096};
  ASSERT_EQ(pm4::sdma::write_copy_linear(p, c), 7u);
  EXPECT_EQ(p[0], 1u);
  EXPECT_EQ(p[1], 4095u);  // v4: bytes - 1
  auto cd = pm4::sdma::decode_copy_linear(p, gfx90a());
  EXPECT_EQ(cd.bytes, 4096u);
  EXPECT_EQ(cd.dst, 0x2000u);
  // A copy one byte beyond ROCr's per-packet limit takes two packets.
  EXPECT_EQ(pm4::sdma::copy_packets(0x3fffe0 + 1, gfx90a()), 2u);
  EXPECT_EQ(pm4::sdma::copy_packets(0x3fffe0, gfx90a()), 1u);

  pm4::sdma::PollRegMem poll;
  poll.address = 0x3000;
  pm4::sdma::write_poll_regmem(p, poll);
  // ROCr BuildPollCommand: op 8, mem_poll, func 3 (equal); interval 4, retry 0xFFF.
  EXPECT_EQ(p[0], 8u | 3u << 28 | 1u << 31);
  EXPECT_EQ(p[5], 4u | 0xFFFu << 16);
  pm4::sdma::write_hdp_flush(p);
  const uint32_t hdp[6] = {0x8, 0x0, 0x80000000, 0x0, 0x0, 0x0};  // ROCr sdma_registers.h
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], hdp[i]) << i;

  pm4::sdma::write_trap(p, 0x1234567);
  EXPECT_EQ(p[0], 6u);
  EXPECT_EQ(pm4::sdma::trap_context(p), 0x1234567u);
  pm4::sdma::Atomic a;
  a.address = 0x4000;
  a.src = ~0ull;
  pm4::sdma::write_atomic(p, a);
  EXPECT_EQ(p[0], 10u | 47u << 25);  // ROCr's SDMA_ATOMIC_ADD64
  pm4::sdma::ConstFill f{0x5000, 0xA5A5A5A5, 64, 2};
  pm4::sdma::write_const_fill(p, f);
  EXPECT_EQ(p[0], 11u | 2u << 30);
  EXPECT_EQ(pm4::sdma::decode_const_fill(p, gfx90a()).bytes, 64u);
  EXPECT_EQ(pm4::sdma::write_nop(p, 3), 3u);
  EXPECT_EQ(pm4::sdma::nop_dwords(p[0]), 3u);
  EXPECT_EQ(pm4::sdma::nop_dwords(0), 1u);  // a zero dword is a one-dword NOP
  EXPECT_STREQ(pm4::sdma::op_name(13, 2), "TIMESTAMP_GET_GLOBAL");
}

TEST(Sdma, CopyRectRoundTrips) {
  pm4::sdma::CopyRect r;
  r.element_log2 = 2;
  r.src = 0x10000;
  r.dst = 0x20000;
  r.src_x = 3, r.src_y = 4, r.src_z = 1, r.src_pitch = 256, r.src_slice = 256 * 64;
  r.dst_x = 0, r.dst_y = 0, r.dst_z = 0, r.dst_pitch = 128, r.dst_slice = 128 * 32;
  r.width = 100, r.height = 20, r.depth = 2;
  uint32_t p[13];
  ASSERT_EQ(pm4::sdma::write_copy_rect(p, r), 13u);
  auto d = pm4::sdma::decode_copy_rect(p);
  EXPECT_EQ(d.element_log2, 2u);
  EXPECT_EQ(d.src_y, 4u);
  EXPECT_EQ(d.src_pitch, 256u);
  EXPECT_EQ(d.dst_slice, 128u * 32);
  EXPECT_EQ(d.width, 100u);
  EXPECT_EQ(d.depth, 2u);
}

TEST(QueueError, NamesTheHardwareBits) {
  EXPECT_EQ(pm4::queue_error::describe(0x20), "invalid packet format (0x20)");
  EXPECT_EQ(pm4::queue_error::describe(0x40000000), "illegal instruction (0x40000000)");
  EXPECT_NE(pm4::queue_error::describe(0x401).find("wave32"), std::string::npos);
  EXPECT_NE(pm4::queue_error::describe(0x10).find("unknown bits 0x10"), std::string::npos);
  EXPECT_TRUE(pm4::queue_error::wants_scratch(0x400));
  EXPECT_FALSE(pm4::queue_error::wants_scratch(0x20));
}

}  // namespace
