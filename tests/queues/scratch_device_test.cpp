// SPDX-License-Identifier: MIT
// Device tests of queue scratch: amd_queue_t fields populated, slices of one window, grow and free.
#include "queue_test_util.h"

namespace {

using namespace qtest;

std::unique_ptr<queues::AqlQueue> scratch_queue(uint32_t lane_bytes, bool profiling = false) {
  queues::QueueOptions o;
  o.packets = 64;
  o.scratch_lane_bytes = lane_bytes;
  o.profiling = profiling;
  auto q = rt().create_queue(o);
  EXPECT_TRUE(q.ok()) << q.message();
  return q.ok() ? std::move(q).value() : nullptr;
}

TEST(QueueScratch, PopulatesAmdQueueScratchFields) {
  auto q = scratch_queue(256, /*profiling=*/true);
  ASSERT_TRUE(q);
  const auto& p = rt().gpus().front()->props();
  const uint64_t cus = p.simd_count / p.simd_per_cu;
  const uint64_t want = 256ull * 64 * p.max_slots_scratch_cu * cus;  // 16 KiB per wave
  const auto* a = q->amd_queue();
  const uint64_t base = q->scratch_slice().base;
  EXPECT_NE(base, 0u);
  EXPECT_EQ(base % 65536, 0u);
  EXPECT_EQ(a->scratch_resource_descriptor[0], uint32_t(base));
  EXPECT_EQ(a->scratch_resource_descriptor[1], uint32_t(base >> 32) | 0x80000000u);
  EXPECT_EQ(a->scratch_resource_descriptor[2], uint32_t(want / p.num_xcc));
  EXPECT_EQ(a->scratch_resource_descriptor[3] & ~0x01000000u, 0x00ea4facu);
  EXPECT_EQ(a->compute_tmpring_size >> 12, 16u);  // WAVESIZE in KiB
  EXPECT_EQ(a->compute_tmpring_size & 0xfff,
            std::min<uint64_t>(want / p.num_xcc / 16384, cus * p.max_slots_scratch_cu));
  EXPECT_EQ(a->scratch_backing_memory_location, base);  // gfx9+: an address (ROCr need_queue_scratch_base)
  EXPECT_EQ(a->scratch_backing_memory_byte_size, want / p.num_xcc);
  EXPECT_EQ(a->scratch_wave64_lane_byte_size, 256u);
  EXPECT_EQ(a->queue_properties, 0x2u | 0x8u);  // IS_PTR64 | ENABLE_PROFILING
  EXPECT_NE(a->private_segment_aperture_base_hi, 0u);
  EXPECT_NE(a->group_segment_aperture_base_hi, 0u);
  EXPECT_EQ(a->private_segment_aperture_base_hi,
            uint32_t(rt().gpus().front()->apertures.scratch_base >> 32));
  // The backing store is device-only VRAM of the whole size.
  auto info = rt().memory().lookup(reinterpret_cast<void*>(base));
  ASSERT_TRUE(info.ok()) << info.message();
  EXPECT_EQ(info->heap, mem::Heap::Vram);
  EXPECT_FALSE(info->host_access);
  EXPECT_GE(info->size, want);
  // The queue still runs packets.
  auto done = make_signal(1);
  ASSERT_TRUE(q->submit(queues::make_marker(done->handle())).ok());
  EXPECT_TRUE(wait_eq(*done, 0).ok());
}

TEST(QueueScratch, QueuesWithoutScratchLeaveTheFieldsZero) {
  auto q = scratch_queue(0);
  ASSERT_TRUE(q);
  const auto* a = q->amd_queue();
  EXPECT_EQ(a->compute_tmpring_size, 0u);
  for (uint32_t w : a->scratch_resource_descriptor) EXPECT_EQ(w, 0u);
  EXPECT_EQ(a->scratch_backing_memory_byte_size, 0u);
  EXPECT_EQ(a->queue_properties, 0x2u);
}

TEST(QueueScratch, QueuesTakeDisjointSlicesOfOneWindow) {
  auto a = scratch_queue(64), b = scratch_queue(64);
  ASSERT_TRUE(a && b);
  const auto& sa = a->scratch_slice();
  const auto& sb = b->scratch_slice();
  // Same process backing base (what SET_SCRATCH_BACKING_VA was told), different offsets.
  EXPECT_EQ(sa.base - sa.offset, sb.base - sb.offset);
  EXPECT_TRUE(sa.offset + sa.size <= sb.offset || sb.offset + sb.size <= sa.offset);
  const uint64_t freed = sa.offset;
  a.reset();
  auto c = scratch_queue(64);  // first fit reuses the freed slice
  ASSERT_TRUE(c);
  EXPECT_EQ(c->scratch_slice().offset, freed);
}

TEST(QueueScratch, GrowsWhenIdleAndRefusesWhenBusy) {
  auto warm = make_signal(0);
  size_t before = rt().memory().allocation_count();
  {
    auto q = scratch_queue(16);
    ASSERT_TRUE(q);
    EXPECT_EQ(q->amd_queue()->scratch_wave64_lane_byte_size, 16u);
    ASSERT_TRUE(q->grow_scratch(1024).ok());
    EXPECT_EQ(q->amd_queue()->scratch_wave64_lane_byte_size, 1024u);
    EXPECT_EQ(q->amd_queue()->compute_tmpring_size >> 12, 64u);
    EXPECT_EQ(q->amd_queue()->scratch_resource_descriptor[0], uint32_t(q->scratch_slice().base));
    auto gate = make_signal(1), done = make_signal(1);
    ASSERT_TRUE(q->submit(barrier_and({gate->handle()}, done->handle())).ok());
    auto busy = q->grow_scratch(2048);
    EXPECT_EQ(busy.err(), EBUSY) << busy.message();
    EXPECT_EQ(q->amd_queue()->scratch_wave64_lane_byte_size, 1024u);  // unchanged
    gate->store(0);
    ASSERT_TRUE(wait_eq(*done, 0).ok());
    ASSERT_TRUE(q->wait_idle(5s).ok());
    ASSERT_TRUE(q->grow_scratch(0).ok());  // frees it
    EXPECT_EQ(q->amd_queue()->compute_tmpring_size, 0u);
    EXPECT_EQ(q->scratch_slice().size, 0u);
  }
  EXPECT_EQ(rt().memory().allocation_count(), before);  // queue and scratch freed
}

TEST(QueueScratch, RejectsOversizedScratch) {
  queues::QueueOptions o;
  o.packets = 64;
  o.scratch_lane_bytes = 1u << 20;  // 64 MiB per wave: beyond WAVESIZE
  auto q = rt().create_queue(o);
  EXPECT_EQ(q.err(), EINVAL) << q.message();
}

}  // namespace
