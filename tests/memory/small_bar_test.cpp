// SPDX-License-Identifier: MIT
// A GPU whose VRAM is mostly not host-visible (small BAR): what amdkfd refuses and what stays possible.
//
// Run with KFDEMU_VISIBLE_VRAM_MB=256 or 0 under the emulator, or on a real small-BAR GPU; on a
// large-BAR GPU (the topology reports a public frame buffer) the tests skip.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <linux/kfd_ioctl.h>
#include <sys/mman.h>

#include <cstdlib>
#include <memory>

#include "memory/context.h"
#include "memory/va.h"

namespace {

// One platform and allocator per process: KFD binds each GPU's VM to one render-node fd per process.
const gpu::Platform& platform() {
  static std::unique_ptr<gpu::Platform> p = [] {
    auto r = gpu::Platform::open();
    if (!r) {
      std::fprintf(stderr, "%s\n", r.message().c_str());
      std::abort();
    }
    return std::move(r).value();
  }();
  return *p;
}

mem::Context& ctx() {
  static std::unique_ptr<mem::Context> c = [] {
    auto r = mem::Context::open(platform());
    if (!r) {
      std::fprintf(stderr, "%s\n", r.message().c_str());
      std::abort();
    }
    return std::move(r).value();
  }();
  return *c;
}

const gpu::Device& gpu() { return *platform().devices().front(); }

bool small_bar() {
  for (const kfd::MemBank& b : gpu().node->mem_banks)
    if (b.heap_type == uint32_t(kfd::HeapType::FrameBufferPrivate)) return true;
  return false;
}

bool emulated() { return dlsym(RTLD_DEFAULT, "kfdemu_present") != nullptr; }

#define REQUIRE_SMALL_BAR() \
  if (!small_bar()) GTEST_SKIP() << "the GPU reports a public frame buffer (large BAR)"

TEST(SmallBar, TopologyReportsTheWholeVramAsOnePrivateHeap) {
  REQUIRE_SMALL_BAR();
  uint64_t fb = 0;
  for (const kfd::MemBank& b : gpu().node->mem_banks) {
    EXPECT_NE(b.heap_type, uint32_t(kfd::HeapType::FrameBufferPublic));
    if (b.heap_type == uint32_t(kfd::HeapType::FrameBufferPrivate)) fb += b.size_in_bytes;
  }
  EXPECT_EQ(fb, gpu().vram_size);
  if (emulated()) {
    const char* mb = std::getenv("KFDEMU_VRAM_MB");
    EXPECT_EQ(fb, (mb ? std::strtoull(mb, nullptr, 0) : 65536ull) << 20);
  }
}

TEST(SmallBar, RefusesHostVisibleVramAsAmdkfdDoes) {
  REQUIRE_SMALL_BAR();
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  r.size = 4096;  // even one page: kfd_dev_is_large_bar() decides, not the size
  r.host_access = true;
  auto p = ctx().allocate(r);
  EXPECT_EQ(p.err(), EINVAL) << (p ? "allocated host-visible VRAM" : p.message());
  if (p) (void)ctx().free(*p);
}

TEST(SmallBar, AllocatesDeviceOnlyVramAndHostMemory) {
  REQUIRE_SMALL_BAR();
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  r.size = 64u << 20;
  auto v = ctx().allocate(r);
  ASSERT_TRUE(v.ok()) << v.message();
  r.heap = mem::Heap::Gtt;
  auto g = ctx().allocate(r);
  ASSERT_TRUE(g.ok()) << g.message();
  static_cast<volatile uint8_t*>(*g)[12345] = 7;  // host memory stays host-visible
  EXPECT_TRUE(ctx().free(*v).ok());
  EXPECT_TRUE(ctx().free(*g).ok());
}

// The raw driver view: a device-only VRAM BO mapped on the render node. PROT_NONE (what ROCm's
// thunk maps for the debugger) is allowed; an accessible mapping is the emulator's EPERM once
// the BAR cannot hold the buffer (Linux >= 5.14 would move the BO into the BAR on first touch,
// or SIGBUS).
TEST(SmallBar, CpuMappingsOfVramFitTheVisibleWindowOnly) {
  REQUIRE_SMALL_BAR();
  if (!emulated()) GTEST_SKIP() << "the emulator's mmap-time rule (a real kernel decides at fault time)";
  const char* mb = std::getenv("KFDEMU_VISIBLE_VRAM_MB");
  const uint64_t visible = mb ? std::strtoull(mb, nullptr, 0) << 20 : 0;
  const uint64_t size = visible ? visible : (64u << 20);
  auto va = mem::reserve_va(2 * size, 0);
  ASSERT_TRUE(va.ok()) << va.message();
  const uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE |
                         KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
  auto a = platform().kfd().alloc_memory(gpu().gpu_id, va->base, size, flags);
  ASSERT_TRUE(a.ok()) << a.message();
  auto b = platform().kfd().alloc_memory(gpu().gpu_id, va->base + size, size, flags);
  ASSERT_TRUE(b.ok()) << b.message();
  auto* at = reinterpret_cast<void*>(va->base);
  auto none = gpu().render.mmap(at, size, PROT_NONE, MAP_SHARED | MAP_FIXED, a->mmap_offset);
  EXPECT_TRUE(none.ok()) << none.message();
  auto rw = gpu().render.mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, a->mmap_offset);
  if (visible) {
    ASSERT_TRUE(rw.ok()) << "the first BO fits the " << (visible >> 20) << " MiB window: " << rw.message();
    static_cast<volatile uint8_t*>(at)[size - 1] = 1;
  } else {
    EXPECT_EQ(rw.err(), EPERM) << (rw ? "mapped VRAM with no visible window" : rw.message());
  }
  auto second = gpu().render.mmap(reinterpret_cast<void*>(va->base + size), size, PROT_READ, MAP_SHARED | MAP_FIXED,
                                  b->mmap_offset);
  EXPECT_EQ(second.err(), EPERM) << (second ? "mapped past the visible window" : second.message());
  EXPECT_TRUE(platform().kfd().free_memory(a->handle).ok());
  EXPECT_TRUE(platform().kfd().free_memory(b->handle).ok());
  mem::release_va(*va);
}

}  // namespace
