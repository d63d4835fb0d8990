// SPDX-License-Identifier: MIT
// Device-free tests of the memory layer: VA reservation, KFD flag mapping, the pool sub-allocator.
#include <gtest/gtest.h>
#include <linux/kfd_ioctl.h>
#include <sys/mman.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "memory/flags.h"
#include "memory/pool.h"
#include "memory/va.h"

namespace {

// Protection string of the /proc/self/maps line covering `addr` ("" if unmapped).
std::string prot_at(uintptr_t addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream ls(line);
    std::string range, prot;
    ls >> range >> prot;
    auto dash = range.find('-');
    uintptr_t lo = std::stoull(range.substr(0, dash), nullptr, 16);
    uintptr_t hi = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (addr >= lo && addr < hi) return prot;
  }
  return "";
}

TEST(Va, ReservesAlignedRangeWithGuardPages) {
  for (size_t align : {size_t(4096), size_t(65536), size_t(2) << 20}) {
    auto r = mem::reserve_va(10000, align);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->base % align, 0u);
    EXPECT_EQ(r->size, 12288u);
    EXPECT_EQ(prot_at(r->base), "---p");
    EXPECT_EQ(prot_at(r->base - 4096), "---p");             // guard below
    EXPECT_EQ(prot_at(r->base + r->size), "---p");          // guard above
    mem::release_va(*r);
    EXPECT_EQ(prot_at(r->base), "");
  }
}

TEST(Va, DefaultAlignmentGrowsToTwoMiB) {
  EXPECT_EQ(mem::default_alignment(1), 4096u);
  EXPECT_EQ(mem::default_alignment(5000), 8192u);
  EXPECT_EQ(mem::default_alignment(size_t(64) << 20), size_t(2) << 20);
}

TEST(Va, RejectsBadAlignmentAndZeroSize) {
  EXPECT_EQ(mem::reserve_va(0, 0).err(), EINVAL);
  EXPECT_EQ(mem::reserve_va(4096, 3 * 4096).err(), EINVAL);
  EXPECT_EQ(mem::reserve_va(4096, size_t(4) << 20).err(), EINVAL);
}

TEST(Va, RejectsSizesThatWrapAround) {
  // page_align(SIZE_MAX - 100) wraps to 0: that must not come back as a zero-size range.
  auto r = mem::reserve_va(SIZE_MAX - 100, 0);
  EXPECT_EQ(r.err(), ENOMEM) << (r.ok() ? "reserved " + base::hex(r->size) + " bytes" : r.message());
  if (r.ok()) mem::release_va(*r);
}

TEST(Flags, MapsCoherenceKindsAsRocmDoes) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Gtt;
  r.coherence = mem::Coherence::Coherent;
  EXPECT_EQ(*mem::alloc_flags(r), uint32_t(KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE |
                                           KFD_IOC_ALLOC_MEM_FLAGS_COHERENT));
  r.coherence = mem::Coherence::NonCoherent;
  EXPECT_EQ(*mem::alloc_flags(r), uint32_t(KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE));
  r.coherence = mem::Coherence::Uncached;
  EXPECT_EQ(*mem::alloc_flags(r), uint32_t(KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE |
                                           KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
}

TEST(Flags, VramIsDeviceOnlyUnlessHostAccessIsAsked) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  EXPECT_FALSE(r.host_access);
  const uint32_t f = *mem::alloc_flags(r);
  EXPECT_FALSE(f & KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC) << mem::describe_flags(f);
  EXPECT_EQ(mem::describe_flags(f), "VRAM|WRITABLE|NO_SUBSTITUTE");
}

TEST(Flags, VramHostAccessIsPublicAndNeverSubstituted) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  r.host_access = true;
  uint32_t f = *mem::alloc_flags(r);
  EXPECT_TRUE(f & KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
  EXPECT_TRUE(f & KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE);
  r.host_access = false;
  r.read_only = true;
  r.executable = true;
  f = *mem::alloc_flags(r);
  EXPECT_FALSE(f & KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
  EXPECT_FALSE(f & KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE);
  EXPECT_TRUE(f & KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE);
  EXPECT_EQ(mem::describe_flags(f), "VRAM|EXECUTABLE|NO_SUBSTITUTE");
}

TEST(Flags, NeverCombinesTwoCoherenceFlags) {
  const uint32_t kCoh = KFD_IOC_ALLOC_MEM_FLAGS_COHERENT | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED | (1u << 24);
  for (auto heap : {mem::Heap::Vram, mem::Heap::Gtt, mem::Heap::Userptr, mem::Heap::Doorbell})
    for (auto c : {mem::Coherence::Coherent, mem::Coherence::NonCoherent, mem::Coherence::Uncached}) {
      mem::AllocRequest r;
      r.heap = heap;
      r.coherence = c;
      uint32_t f = *mem::alloc_flags(r);
      EXPECT_LE(__builtin_popcount(f & kCoh), 1) << mem::describe_flags(f);
    }
}

TEST(Flags, RejectsHeapsAndCoherenceKindsOutsideTheEnums) {
  mem::AllocRequest r;
  r.coherence = static_cast<mem::Coherence>(3);
  auto c = mem::alloc_flags(r);
  EXPECT_EQ(c.err(), EINVAL);
  EXPECT_NE(c.message().find("unknown coherence kind 3"), std::string::npos) << c.message();
  r = {};
  r.heap = static_cast<mem::Heap>(9);
  auto h = mem::alloc_flags(r);
  EXPECT_EQ(h.err(), EINVAL);
  EXPECT_NE(h.message().find("unknown heap 9"), std::string::npos) << h.message();
}

TEST(Flags, RejectsReadOnlyDoorbell) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Doorbell;
  r.read_only = true;
  EXPECT_EQ(mem::alloc_flags(r).err(), EINVAL);
}

// A pool over plain aligned host memory: the sub-allocator logic without a device.
struct HostPool {
  std::vector<uintptr_t> chunks;
  size_t frees = 0;
  mem::Pool pool{"test", 64 << 10,
                 [this](size_t size) -> base::Result<uintptr_t> {
                   void* p = std::aligned_alloc(size, size);
                   chunks.push_back(reinterpret_cast<uintptr_t>(p));
                   return reinterpret_cast<uintptr_t>(p);
                 },
                 [this](uintptr_t p) {
                   ++frees;
                   std::free(reinterpret_cast<void*>(p));
                 }};
};

TEST(Pool, SmallBlocksShareOneChunk) {
  HostPool h;
  std::vector<uintptr_t> blocks;
  for (int i = 0; i < 100; ++i) {
    auto b = h.pool.allocate(100);
    ASSERT_TRUE(b.ok()) << b.message();
    EXPECT_EQ(*b % 128, 0u);
    blocks.push_back(*b);
  }
  EXPECT_EQ(h.chunks.size(), 1u);  // 100 x 128 B in one 64 KiB chunk
  EXPECT_EQ(h.pool.live_blocks(), 100u);
  for (auto b : blocks) EXPECT_TRUE(h.pool.free(b).ok());
  EXPECT_EQ(h.pool.trim(), 1u);
  EXPECT_EQ(h.frees, 1u);
}

TEST(Pool, FindsBlockFromInteriorPointer) {
  HostPool h;
  uintptr_t b = *h.pool.allocate(1000, 256);
  mem::Pool::Block blk{};
  ASSERT_TRUE(h.pool.find(b + 999, &blk));
  EXPECT_EQ(blk.base, b);
  EXPECT_EQ(blk.size, 1024u);
  EXPECT_FALSE(h.pool.find(b + 1024, &blk));
}

TEST(Pool, RejectsDoubleFreeUnknownPointerAndBadSizes) {
  HostPool h;
  uintptr_t b = *h.pool.allocate(64);
  EXPECT_TRUE(h.pool.free(b).ok());
  auto again = h.pool.free(b);
  EXPECT_EQ(again.err(), EINVAL);
  EXPECT_NE(again.message().find("double free"), std::string::npos) << again.message();
  EXPECT_EQ(h.pool.free(0x1000).err(), EINVAL);
  EXPECT_EQ(h.pool.allocate(0).err(), EINVAL);
  EXPECT_EQ(h.pool.allocate(h.pool.max_block() + 1).err(), E2BIG);
  EXPECT_EQ(h.pool.allocate(64, 48).err(), EINVAL);
}

}  // namespace
