// SPDX-License-Identifier: MIT
// The queue's scratch as the shader core uses it: amd_queue_t sizes checked against the kernel,
// private data in the queue's backing store at each wave's slot, slot bounds and page checks.
#include <random>

#include "tests/emu/isa_fixture.h"

using namespace emu_test;
using Kind = emu::shader::Outcome::Kind;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class QueueScratch : public IsaTest {};

TEST_F(QueueScratch, StopsKernelNeedingScratchOnQueueWithout) {
  scratch_lane = 0;  // amd_queue_t without scratch
  auto o = run_isa("mem.co", "k_scratch", 128, 128);
  ASSERT_EQ(o.kind, Kind::ScratchTooSmall) << o.message;
  EXPECT_TRUE(has(o.message, "needs 64 bytes of scratch per work-item")) << o.message;
  EXPECT_TRUE(has(o.message, "no scratch")) << o.message;
  EXPECT_TRUE(has(o.message, "available 0 bytes")) << o.message;
  EXPECT_EQ(out[0], 0xBADBADu) << "no wave may run";
}

TEST_F(QueueScratch, StopsKernelNeedingMoreScratchThanQueueProvides) {
  scratch_lane = 16;  // WAVESIZE 1 KiB: 16 bytes per work-item, the kernel declares 64
  auto o = run_isa("mem.co", "k_scratch", 128, 128);
  ASSERT_EQ(o.kind, Kind::ScratchTooSmall) << o.message;
  EXPECT_TRUE(has(o.message, "needs 64 bytes")) << o.message;
  EXPECT_TRUE(has(o.message, "provides 16 bytes per work-item")) << o.message;
}

TEST_F(QueueScratch, StopsWorkgroupWithMoreWavesThanSlots) {
  scratch_waves = 1;  // one slot, a workgroup of two waves
  auto o = run_isa("mem.co", "k_scratch", 128, 128);
  ASSERT_EQ(o.kind, Kind::ScratchTooSmall) << o.message;
  EXPECT_TRUE(has(o.message, "2 waves")) << o.message;
  EXPECT_TRUE(has(o.message, "has 1")) << o.message;
}

TEST_F(QueueScratch, KeepsPrivateDataInTheQueueBackingStore) {
  scratch_lane = 64;  // WAVESIZE 4 KiB
  scratch_waves = 16;
  scratch_backing = mem.alloc(scratch_bytes(64, 16));
  auto o = run_isa("mem.co", "k_scratch", 128, 128);  // one worker: waves 0, 1 in slots 0, 1
  ASSERT_TRUE(o.ok()) << o.message;
  auto word = [&](unsigned slot, unsigned lane, unsigned off) {
    uint32_t v;
    std::memcpy(&v, scratch_backing + slot * 4096 + (off / 4) * 256 + lane * 4, 4);
    return v;
  };
  for (unsigned t = 0; t < 128; ++t) {
    const unsigned slot = t / 64, lane = t % 64;
    ASSERT_EQ(word(slot, lane, 16), 3 * t + 7) << t;  // buffer_store offset:16
    ASSERT_EQ(word(slot, lane, 32), 3 * t + 8) << t;  // flat store in the private aperture
    ASSERT_EQ(out[t], 3 * t + 7) << t;                 // and read back through scratch_*
  }
  for (unsigned slot = 2; slot < 16; ++slot)  // slots of waves that did not run stay untouched
    for (unsigned lane = 0; lane < 64; ++lane) ASSERT_EQ(word(slot, lane, 16), 0u) << slot;
}

TEST_F(QueueScratch, FaultsOnAccessPastTheWaveSlot) {
  scratch_waves = 16;
  scratch_backing = mem.alloc(scratch_bytes(16, 16));  // kernel's 16 bytes: 1 KiB slots
  auto o = run_isa("scratch_slots.co", "k_scratch_past_slot", 64, 64);
  ASSERT_EQ(o.kind, Kind::MemoryFault) << o.message;
  // Lane 0's private offset 16 is the first byte of slot 1: mapped, but another wave's.
  EXPECT_EQ(o.fault_va, reinterpret_cast<uint64_t>(scratch_backing) + 1024);
  EXPECT_TRUE(has(o.message, "outside the wave's scratch slot")) << o.message;
  for (size_t i = 1024; i < 2048; ++i) ASSERT_EQ(scratch_backing[i], 0u) << i;
}

TEST_F(QueueScratch, FaultsWhenTheBackingStoreIsNotMapped) {
  scratch_lane = 64;
  scratch_waves = 16;
  // The V# and flat scratch init point at an address no buffer of `mem` covers.
  uint8_t* gone = reinterpret_cast<uint8_t*>(uintptr_t{0x1000'0000'0000});
  scratch_backing = gone;
  auto o = run_isa("mem.co", "k_scratch", 64, 64);
  ASSERT_EQ(o.kind, Kind::MemoryFault) << o.message;
  EXPECT_EQ(o.fault_va, reinterpret_cast<uint64_t>(gone) + 16 / 4 * 256);  // lane 0, offset 16
}

TEST_F(QueueScratch, RunsDynamicStackKernelOnScratchSizedForIt) {
  auto o = run_isa("scratch_slots.co", "k_dynamic_stack", 128, 128);  // 1 KiB allowance
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned t = 0; t < 128; ++t) ASSERT_EQ(out[t], t + 5) << t;
}

TEST_F(QueueScratch, StopsDynamicStackKernelOnQueueWithoutScratch) {
  scratch_lane = 0;
  auto o = run_isa("scratch_slots.co", "k_dynamic_stack", 64, 64);
  ASSERT_EQ(o.kind, Kind::ScratchTooSmall) << o.message;
  EXPECT_TRUE(has(o.message, "dynamic stack")) << o.message;
}

// More workers than the queue has slots for: the core runs only as many workgroups at once as
// there are slots, so no two waves share one (they would overwrite each other's arrays).
TEST(QueueScratchWorkers, RunsPrivateArraysWithFewerSlotsThanWorkers) {
  HostMemory mem;
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, 4);
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("scratch.co"), mem), "");
  const unsigned n = 8192;  // 128 workgroups: every worker would get some
  std::mt19937 rng(7);
  unsigned* idx = mem.alloc_array<unsigned>(n);
  unsigned* out = mem.alloc_array<unsigned>(n);
  for (unsigned i = 0; i < n; ++i) idx[i] = rng() % 1000;
  Launch l;
  l.grid[0] = n;
  l.block[0] = 64;
  l.scratch_waves = 2;  // two one-wave workgroups at a time
  Args a;
  a.add(idx).add(out).add(n);
  auto o = dispatch(core, mem, co.kernel("private_array"), l, a.data(), a.size());
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned i = 0; i < n; ++i) {
    unsigned s = 0;
    for (unsigned k = 0; k < 16; ++k) s += ((idx[i] + k * 13) % 300) * 7 + i;
    ASSERT_EQ(out[i], s) << i;
  }
}

}  // namespace
