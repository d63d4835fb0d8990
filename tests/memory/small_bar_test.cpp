// SPDX-License-Identifier: MIT
// A GPU whose VRAM is mostly not host-visible (small BAR): what amdkfd refuses and what stays possible.
//
// Run with KFDEMU_VISIBLE_VRAM_MB=256 or 0 under the emulator, or on a real small-BAR GPU; on a
// large-BAR GPU (the topology reports a public frame buffer) the tests skip.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <linux/kfd_ioctl.h>
#include <sys/mman.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "memory/context.h"
#include "memory/va.h"

namespace {

// The emulator's VRAM per GPU without KFDEMU_VRAM_MB (emu/device_model.h default_vram_bytes):
// the modelled 64 GiB, but at most half the host's memory (physical, or the cgroup's limit) over
// the GPUs, in whole GiB, at least 4 GiB.
uint64_t default_emulated_vram() {
  constexpr uint64_t kGiB = 1ull << 30;
  uint64_t host = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (FILE* f = std::fopen("/sys/fs/cgroup/memory.max", "re")) {
    unsigned long long limit = 0;
    if (std::fscanf(f, "%llu", &limit) == 1 && limit > 0 && limit < host) host = limit;
    std::fclose(f);
  }
  const char* g = std::getenv("KFDEMU_GPUS");
  const uint64_t gpus = g ? std::max(1ull, std::strtoull(g, nullptr, 0)) : 1;
  return std::clamp(host / 2 / gpus / kGiB * kGiB, 4 * kGiB, 64 * kGiB);
}

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
    EXPECT_EQ(fb, mb ? std::strtoull(mb, nullptr, 0) << 20 : default_emulated_vram());
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

// The raw driver view: VRAM allocated without PUBLIC, mapped on the render node. PROT_NONE
// (what ROCm's thunk maps for the debugger) is allowed; an accessible mapping is refused with
// EPERM, as amdgpu_gem_object_mmap refuses a BO without CPU access (a kernel since Linux 5.14
// maps it and moves the BO into the BAR on first touch instead: the emulator keeps the stricter
// answer, so only there is it checked).
TEST(SmallBar, RefusesCpuMappingsOfDeviceOnlyVram) {
  REQUIRE_SMALL_BAR();
  if (!emulated()) GTEST_SKIP() << "Linux >= 5.14 maps device-only VRAM and migrates it on a CPU access";
  const uint64_t size = 2u << 20;
  auto va = mem::reserve_va(size, 0);
  ASSERT_TRUE(va.ok()) << va.message();
  const uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE |
                         KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
  auto a = platform().kfd().alloc_memory(gpu().gpu_id, va->base, size, flags);
  ASSERT_TRUE(a.ok()) << a.message();
  auto* at = reinterpret_cast<void*>(va->base);
  auto none = gpu().render.mmap(at, size, PROT_NONE, MAP_PRIVATE | MAP_FIXED, a->mmap_offset);
  EXPECT_TRUE(none.ok()) << none.message();
  for (int prot : {PROT_READ, PROT_WRITE, PROT_READ | PROT_WRITE}) {
    auto m = gpu().render.mmap(at, size, prot, MAP_SHARED | MAP_FIXED, a->mmap_offset);
    EXPECT_EQ(m.err(), EPERM) << "prot " << prot << ": " << (m ? "mapped VRAM without CPU access" : m.message());
  }
  EXPECT_TRUE(platform().kfd().free_memory(a->handle).ok());
  mem::release_va(*va);
}

}  // namespace
