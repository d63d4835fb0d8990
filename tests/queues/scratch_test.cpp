// SPDX-License-Identifier: MIT
// Unit tests of the scratch encodings: values derived by hand from the documented bit layouts.
#include <gtest/gtest.h>

#include "queues/scratch.h"

namespace {

namespace sc = queues::scratch;

// queue_properties bits (ROCr amd_hsa_queue.h): trap handler 0, IS_PTR64 1, debug SGPRs 2,
// ENABLE_PROFILING 3.
static_assert(sc::kPropIsPtr64 == 0x2);
static_assert(sc::kPropEnableProfiling == 0x8);
// COMPUTE_TMPRING_SIZE (gfx9): WAVES [11:0], WAVESIZE [24:12].
static_assert(sc::tmpring_gfx9::kWaveSizeShift == sc::tmpring_gfx9::kWavesBits);
static_assert(sc::tmpring_gfx9::kWaveSizeShift + sc::tmpring_gfx9::kWaveSizeBits == 25);
// V# word3 fields tile bits 0..31 without gaps: DST_SEL x4 (12), NUM_FORMAT 3, DATA_FORMAT 4,
// ELEMENT_SIZE 2, INDEX_STRIDE 2, ADD_TID 1, ATC 1, HASH 1, HEAP 1, MTYPE 3, TYPE 2.
static_assert(sc::vsharp_gfx9::kNumFormatShift == 12 && sc::vsharp_gfx9::kDataFormatShift == 15);
static_assert(sc::vsharp_gfx9::kElementSizeShift == 19 && sc::vsharp_gfx9::kIndexStrideShift == 21);
static_assert(sc::vsharp_gfx9::kAddTidEnableBit == 23 && sc::vsharp_gfx9::kTypeShift == 30);

kfd::NodeProperties mi210() {  // gfx90a, 104 CUs
  kfd::NodeProperties p;
  p.gfx_target_version = 90010;
  p.simd_count = 416;
  p.simd_per_cu = 4;
  p.max_slots_scratch_cu = 32;
  return p;
}

kfd::NodeProperties mi300x() {  // gfx942, 304 CUs in 8 XCCs
  kfd::NodeProperties p;
  p.gfx_target_version = 90402;
  p.simd_count = 1216;
  p.simd_per_cu = 4;
  p.max_slots_scratch_cu = 32;
  p.num_xcc = 8;
  return p;
}

TEST(Scratch, EncodesTmpringSizeFields) {
  // WAVES 0x800 in [11:0], WAVESIZE 4 (4 KiB per wave) in [24:12].
  EXPECT_EQ(sc::tmpring_size_gfx9(0x800, 4), 0x4800u);
  EXPECT_EQ(sc::tmpring_size_gfx9(0xfff, 0x1fff), 0x01ffffffu);
  EXPECT_EQ(sc::tmpring_size_gfx9(0x1000, 0x2000), 0u);  // out-of-field bits never leak
}

TEST(Scratch, EncodesTheGfx9BufferDescriptor) {
  auto d = sc::descriptor_gfx9(0x00007f1234560000ull, 0x100000, false);
  EXPECT_EQ(d.word[0], 0x34560000u);  // BASE_ADDRESS[31:0]
  EXPECT_EQ(d.word[1], 0x80007f12u);  // BASE_ADDRESS_HI, STRIDE 0, SWIZZLE_ENABLE (bit 31)
  EXPECT_EQ(d.word[2], 0x00100000u);  // NUM_RECORDS = bytes
  // SEL X/Y/Z/W = 4/5/6/7 -> 0xfac; NUM_FORMAT UINT(4) 0x4000; DATA_FORMAT 32(4) 0x20000;
  // ELEMENT_SIZE 1 0x80000; INDEX_STRIDE 3 0x600000; ADD_TID_ENABLE 0x800000.
  EXPECT_EQ(d.word[3], 0x00ea4facu);
  EXPECT_EQ(sc::descriptor_gfx9(0, 0, true).word[3], 0x01ea4facu);  // ATC (APU) bit 24
}

TEST(Scratch, SizesTheBackingStoreLikeRocr) {
  // 100 bytes per lane round up to 112 (a wave's share is whole KiB: 112 * 64 = 7 KiB).
  auto l = sc::layout(mi210(), 100);
  ASSERT_TRUE(l.ok()) << l.message();
  EXPECT_EQ(l->lane_bytes, 112u);
  EXPECT_EQ(l->wave_units, 7u);
  EXPECT_EQ(l->total_bytes, 112ull * 64 * 104 * 32);  // lanes * slots(32/CU) * 104 CUs
  EXPECT_EQ(l->waves, 3328u);                          // every slot: 104 * 32
  auto f = sc::encode(mi210(), *l, 0x7f0000000000ull, 0x30000);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->compute_tmpring_size, 3328u | 7u << 12);  // 0x7d00
  EXPECT_EQ(f->backing_location, 0x7f0000000000ull);  // gfx9+: the store's address, not its offset
  EXPECT_EQ(f->backing_byte_size, 112ull * 64 * 104 * 32);
  EXPECT_EQ(f->srd.word[2], uint32_t(112 * 64 * 104 * 32));
  EXPECT_EQ(f->wave64_lane_bytes, 112u);
  EXPECT_EQ(f->srd.word[1], 0x80007f00u);
}

TEST(Scratch, ReportsSizesPerXcc) {
  auto l = sc::layout(mi300x(), 64);  // 4 KiB per wave
  ASSERT_TRUE(l.ok()) << l.message();
  EXPECT_EQ(l->total_bytes, 64ull * 64 * 304 * 32);
  EXPECT_EQ(l->waves, 1216u);  // one XCC's eighth: (total / 8) / 4 KiB
  auto f = sc::encode(mi300x(), *l, 0x1000000, 0);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->backing_byte_size, 0x4c0000u);
  EXPECT_EQ(f->srd.word[2], 0x4c0000u);
  EXPECT_EQ(f->compute_tmpring_size, 0x44c0u);
}

TEST(Scratch, CapsTheSlotsAtWhatNumRecordsCovers) {
  // 131056 bytes per lane = 8191 KiB per wave: 3328 slots would need 27 GB, a V# covers 4 GiB.
  auto l = sc::layout(mi210(), 131056);
  ASSERT_TRUE(l.ok()) << l.message();
  const uint64_t wave = 8191ull * 1024;
  EXPECT_EQ(l->waves, uint32_t(UINT32_MAX / wave));  // 512
  EXPECT_EQ(l->total_bytes, l->waves * wave);
  auto f = sc::encode(mi210(), *l, 0x7f0000000000ull, 0);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->compute_tmpring_size, 512u | 8191u << 12);
  EXPECT_EQ(f->srd.word[2], uint32_t(512 * wave));
  // Per XCC on a multi-XCC node: each XCC's share is capped, WAVES counts one XCC's slots.
  auto x = sc::layout(mi300x(), 131056);
  ASSERT_TRUE(x.ok()) << x.message();
  EXPECT_EQ(x->waves, 512u);
  EXPECT_EQ(x->total_bytes, 512 * wave * 8);
  EXPECT_TRUE(sc::encode(mi300x(), *x, 0x1000000, 0).ok());
}

// WAVES is 12 bits: a part with more scratch slots than 4095 (128 CUs x 32) gets 4095 of them
// rather than a WAVES field that wrapped to 0 (no scratch at all).
TEST(Scratch, CapsTheSlotsAtWhatWavesCanCount) {
  kfd::NodeProperties p = mi210();
  p.simd_count = 128 * 4;
  auto l = sc::layout(p, 64);
  ASSERT_TRUE(l.ok()) << l.message();
  EXPECT_EQ(l->waves, 4095u);
  EXPECT_EQ(l->total_bytes, 4095ull * 64 * 64);
  auto f = sc::encode(p, *l, 0x7f0000000000ull, 0);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->compute_tmpring_size & 0xfff, 4095u);
}

TEST(Scratch, NoScratchClearsTheFields) {
  auto l = sc::layout(mi210(), 0);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->total_bytes, 0u);
  auto f = sc::encode(mi210(), *l, 0, 0);
  ASSERT_TRUE(f.ok());
  pm4::aql::AmdQueue q{};
  q.compute_tmpring_size = 1;
  q.scratch_resource_descriptor[3] = 1;
  sc::apply(q, *f);
  EXPECT_EQ(q.compute_tmpring_size, 0u);
  EXPECT_EQ(q.scratch_resource_descriptor[3], 0u);
  kfd::NodeProperties gfx11 = mi210();
  gfx11.gfx_target_version = 110000;
  EXPECT_TRUE(sc::layout(gfx11, 0).ok());  // no scratch needs no encoder
}

TEST(Scratch, RejectsOversizedLanesAndUnknownFamilies) {
  EXPECT_TRUE(sc::layout(mi210(), 131056).ok());         // WAVESIZE 8191: the largest
  auto big = sc::layout(mi210(), 131057);                 // rounds to 8192 units
  EXPECT_EQ(big.err(), EINVAL);
  EXPECT_NE(big.message().find("131057"), std::string::npos) << big.message();
  kfd::NodeProperties p = mi210();
  p.gfx_target_version = 110000;
  EXPECT_EQ(sc::layout(p, 16).err(), ENOTSUP);
  p = mi210();
  p.max_slots_scratch_cu = 0;
  EXPECT_EQ(sc::layout(p, 16).err(), EINVAL);
}

}  // namespace
