// SPDX-License-Identifier: MIT
// The queue buffer size formula (Linux kfd_queue.c) on the family table, worked by hand per node.
#include <gtest/gtest.h>

#include <cerrno>

#include "kfd/node_properties.h"
#include "pm4/queue_sizes.h"

namespace {

kfd::NodeProperties gpu(uint32_t gfxv, uint32_t simds, uint32_t simd_per_cu, uint32_t arrays,
                        uint32_t arrays_per_engine, uint32_t xcc = 1) {
  kfd::NodeProperties p;
  p.gfx_target_version = gfxv;
  p.simd_count = simds;
  p.simd_per_cu = simd_per_cu;
  p.array_count = arrays;
  p.simd_arrays_per_engine = arrays_per_engine;
  p.num_xcc = xcc;
  p.lds_size_in_kb = 64;
  return p;
}

// Expected values worked by hand from kfd_queue.c's formula.
TEST(QueueSizes, Mi210Gfx90a) {
  auto s = pm4::queue_buffer_sizes(gpu(90010, 416, 4, 8, 1));
  ASSERT_TRUE(s.cwsr);
  EXPECT_EQ(s.eop_size, 4096u);
  EXPECT_EQ(s.waves, 4096u);              // min(104*40, 8*512)
  EXPECT_EQ(s.ctl_stack_size, 0x9000u);   // PAGE_ALIGN(40 + 4096*8 + 8)
  EXPECT_EQ(s.ctx_save_restore_size, 0x9000u + 104u * 0x95000u);
  EXPECT_EQ(s.debug_memory_size, 4096u * 32u);
  EXPECT_EQ(s.cwsr_total, 0x9000u + 104u * 0x95000u + 0x20000u);
}

TEST(QueueSizes, Mi300xGfx942DividesByXcc) {
  auto s = pm4::queue_buffer_sizes(gpu(90402, 1216, 4, 32, 1, 8));
  EXPECT_EQ(s.num_xcc, 8u);
  EXPECT_EQ(s.waves, 38u * 40u);          // 38 CUs per XCC
  EXPECT_EQ(s.ctl_stack_size, 0x3000u);   // PAGE_ALIGN(40 + 1520*8 + 8)
  EXPECT_EQ(s.ctx_save_restore_size, 0x3000u + 38u * 0x95000u);
  EXPECT_EQ(s.debug_memory_size, 1520u * 32u);
  EXPECT_EQ(s.cwsr_total, (0x3000u + 38u * 0x95000u + 1520u * 32u) * 8u);
}

TEST(QueueSizes, Gfx1100UsesTwelveBytesPerWave) {
  auto s = pm4::queue_buffer_sizes(gpu(110000, 192, 2, 12, 2));
  EXPECT_EQ(s.waves, 96u * 32u);
  EXPECT_EQ(s.ctl_stack_size, 0xA000u);   // PAGE_ALIGN(40 + 3072*12 + 8)
  EXPECT_EQ(s.ctx_save_restore_size, 0xA000u + 96u * 0x75000u);
}

TEST(QueueSizes, Gfx10CapsControlStack) {
  auto s = pm4::queue_buffer_sizes(gpu(100300, 160, 2, 8, 2));
  EXPECT_EQ(s.ctl_stack_size, 0x7000u);
  EXPECT_EQ(s.ctx_save_restore_size, 0x7000u + 80u * 0x55000u);
}

TEST(QueueSizes, Gfx906UsesSmallVgprFile) {
  auto s = pm4::queue_buffer_sizes(gpu(90006, 240, 4, 4, 1));
  EXPECT_EQ(s.waves, 2048u);              // min(60*40, 4*512)
  EXPECT_EQ(s.ctl_stack_size, 0x5000u);   // PAGE_ALIGN(40 + 2048*8 + 8)
  EXPECT_EQ(s.ctx_save_restore_size, 0x5000u + 60u * 0x55000u);
}

TEST(QueueSizes, PrefersSizesPublishedByKernel) {
  auto p = gpu(90010, 416, 4, 8, 1);
  p.cwsr_size = 0x123000;
  p.ctl_stack_size = 0x5000;
  auto s = pm4::queue_buffer_sizes(p);
  EXPECT_EQ(s.ctx_save_restore_size, 0x123000u);
  EXPECT_EQ(s.ctl_stack_size, 0x5000u);
}

TEST(QueueSizes, CpuNodeHasNoQueueBuffers) {
  kfd::NodeProperties cpu;
  cpu.cpu_cores_count = 16;
  auto s = pm4::queue_buffer_sizes(cpu);
  EXPECT_FALSE(s.cwsr);
  EXPECT_EQ(s.eop_size, 0u);
  EXPECT_EQ(s.cwsr_total, 0u);
}

TEST(QueueSizes, IsConstexpr) {
  constexpr auto s = pm4::queue_buffer_sizes(kfd::NodeProperties{});
  static_assert(!s.cwsr);
  EXPECT_FALSE(s.cwsr);
}

}  // namespace
