// SPDX-License-Identifier: MIT
// Device tests of mem::Context: allocations of every heap and coherence kind, lookup, pools, bad input.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <linux/kfd_ioctl.h>
#include <sys/mman.h>

#include <cstring>
#include <memory>

#include "memory/context.h"
#include "memory/va.h"

namespace {

// One platform and allocator per process: KFD binds each GPU's VM to one render-node fd per process.
const gpu::Platform& platform() {
  static std::unique_ptr<gpu::Platform> p = [] {
    auto r = gpu::Platform::open();
    if (!r) {
      ADD_FAILURE() << r.message();
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
      ADD_FAILURE() << r.message();
      std::abort();
    }
    return std::move(r).value();
  }();
  return *c;
}

// A GPU whose VRAM is not all host-visible (small BAR: the topology reports a private frame
// buffer): amdkfd refuses host-visible VRAM there.
bool small_bar() {
  for (const kfd::MemBank& b : platform().devices().front()->node->mem_banks)
    if (b.heap_type == uint32_t(kfd::HeapType::FrameBufferPrivate)) return true;
  return false;
}

bool emulated() { return dlsym(RTLD_DEFAULT, "kfdemu_present") != nullptr; }

mem::AllocRequest req(mem::Heap h, mem::Coherence c, size_t size) {
  mem::AllocRequest r;
  r.heap = h;
  r.coherence = c;
  r.size = size;
  r.host_access = true;  // VRAM too: these tests touch it from the CPU
  return r;
}

TEST(MemoryContext, ExposesGpusWithRenderNodesAndApertures) {
  ASSERT_FALSE(platform().devices().empty());
  for (const auto& g : platform().devices()) {
    EXPECT_NE(g->gpu_id, 0u);
    EXPECT_GE(g->render.fd(), 0);
    EXPECT_LT(g->apertures.gpuvm_base, g->apertures.gpuvm_limit);
    EXPECT_GT(g->vram_size, 0u);
  }
}

TEST(MemoryContext, AllocatesHostVisibleKindsAtTheSameAddress) {
  for (auto h : {mem::Heap::Gtt, mem::Heap::Vram})
    for (auto c : {mem::Coherence::Coherent, mem::Coherence::NonCoherent, mem::Coherence::Uncached}) {
      if (h == mem::Heap::Vram && small_bar()) continue;  // no host-visible VRAM (memory_small_bar_*)
      size_t before = ctx().allocation_count();
      auto p = ctx().allocate(req(h, c, 3 * 4096 + 5));
      ASSERT_TRUE(p.ok()) << p.message();
      std::memset(*p, 0x5a, 3 * 4096 + 5);
      EXPECT_EQ(static_cast<uint8_t*>(*p)[3 * 4096 + 4], 0x5a);
      auto info = ctx().lookup(static_cast<char*>(*p) + 9000);
      ASSERT_TRUE(info.ok()) << info.message();
      EXPECT_EQ(info->ptr(), *p);
      EXPECT_EQ(info->size, 4u * 4096);
      EXPECT_EQ(info->heap, h);
      EXPECT_EQ(info->coherence, c);
      EXPECT_EQ(info->mapped_gpus.size(), 1u);
      EXPECT_EQ(info->owner_gpu, platform().devices().front()->gpu_id);
      ASSERT_TRUE(ctx().free(*p).ok());
      EXPECT_EQ(ctx().allocation_count(), before);
      EXPECT_EQ(ctx().lookup(*p).err(), ENOENT);
    }
}

TEST(MemoryContext, HonoursPowerOfTwoAlignment) {
  auto r = req(mem::Heap::Gtt, mem::Coherence::NonCoherent, 4096);
  r.alignment = size_t(2) << 20;
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % (size_t(2) << 20), 0u);
  EXPECT_TRUE(ctx().free(*p).ok());
  r.alignment = 12345;
  EXPECT_EQ(ctx().allocate(r).err(), EINVAL);
}

TEST(MemoryContext, DeviceOnlyVramStaysInaccessibleToTheCpu) {
  auto r = req(mem::Heap::Vram, mem::Coherence::NonCoherent, 1 << 20);
  r.host_access = false;
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  auto info = ctx().lookup(*p);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->host_access);
  // mincore-free check: the range is still a PROT_NONE reservation, so mprotect to read works
  // only on our own reservation; a failed madvise would mean no mapping at all.
  EXPECT_EQ(madvise(*p, 4096, MADV_NORMAL), 0);
  EXPECT_TRUE(ctx().free(*p).ok());
}

// VRAM allocated without PUBLIC has no CPU mapping, whatever the BAR: the render node grants a
// PROT_NONE mapping (ROCm's thunk makes one for the debugger) and refuses an accessible one
// with EPERM, as amdgpu_gem_object_mmap refuses a BO without CPU access. PUBLIC VRAM (a large
// BAR only) maps. Linux >= 5.14 maps non-PUBLIC VRAM too (and moves it into the BAR on a CPU
// access), so this is the emulator's rule only.
TEST(MemoryContext, RendersNodeMapsOnlyPublicVramForTheCpu) {
  if (!emulated()) GTEST_SKIP() << "Linux >= 5.14 maps device-only VRAM and migrates it on a CPU access";
  const gpu::Device& g = *platform().devices().front();
  const uint64_t size = 64u << 10;
  auto va = mem::reserve_va(2 * size, 0);
  ASSERT_TRUE(va.ok()) << va.message();
  const uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  auto priv = platform().kfd().alloc_memory(g.gpu_id, va->base, size, flags);
  ASSERT_TRUE(priv.ok()) << priv.message();
  auto* at = reinterpret_cast<void*>(va->base);
  EXPECT_TRUE(g.render.mmap(at, size, PROT_NONE, MAP_PRIVATE | MAP_FIXED, priv->mmap_offset).ok());
  auto rw = g.render.mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, priv->mmap_offset);
  EXPECT_EQ(rw.err(), EPERM) << (rw ? "mapped VRAM allocated without PUBLIC" : rw.message());
  EXPECT_TRUE(platform().kfd().free_memory(priv->handle).ok());
  auto pub = platform().kfd().alloc_memory(g.gpu_id, va->base + size, size, flags | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
  if (small_bar()) {
    EXPECT_EQ(pub.err(), EINVAL) << "PUBLIC VRAM on a small-BAR GPU";
  } else {
    ASSERT_TRUE(pub.ok()) << pub.message();
    auto* at2 = reinterpret_cast<void*>(va->base + size);
    auto m = g.render.mmap(at2, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, pub->mmap_offset);
    ASSERT_TRUE(m.ok()) << m.message();
    static_cast<volatile uint8_t*>(at2)[size - 1] = 3;
    EXPECT_TRUE(platform().kfd().free_memory(pub->handle).ok());
  }
  if (pub && small_bar()) (void)platform().kfd().free_memory(pub->handle);
  mem::release_va(*va);
}

TEST(MemoryContext, VramIsDeviceOnlyByDefault) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  r.size = 64 << 10;
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  auto info = ctx().lookup(*p);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->host_access);
  EXPECT_TRUE(ctx().free(*p).ok());
}

TEST(MemoryContext, MapsToEveryGpu) {
  auto r = req(mem::Heap::Gtt, mem::Coherence::Coherent, 8192);
  r.map_all = true;
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  auto info = ctx().lookup(*p);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->mapped_gpus.size(), platform().devices().size());
  EXPECT_TRUE(ctx().free(*p).ok());
}

TEST(MemoryContext, MapsToAListOfGpus) {
  if (platform().devices().size() < 2) GTEST_SKIP() << "needs two GPUs (KFDEMU_GPUS=2 under the emulator)";
  auto r = req(mem::Heap::Vram, mem::Coherence::Coherent, 8192);
  r.host_access = false;  // device-only VRAM: any BAR
  r.owner_gpu = platform().devices()[1]->gpu_id;
  r.map_to = {platform().devices()[0]->gpu_id, platform().devices()[1]->gpu_id};
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  auto info = ctx().lookup(*p);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->owner_gpu, platform().devices()[1]->gpu_id);
  EXPECT_EQ(info->mapped_gpus.size(), 2u);
  EXPECT_TRUE(ctx().free(*p).ok());
}

TEST(MemoryContext, RegistersHostMemoryAsUserptr) {
  const size_t size = 5 * 4096;
  void* host = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(host, MAP_FAILED);
  std::memset(host, 1, size);
  auto r = req(mem::Heap::Userptr, mem::Coherence::Coherent, size);
  auto p = ctx().register_host(host, size, r);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(*p, host);
  auto info = ctx().lookup(static_cast<char*>(host) + size - 1);
  ASSERT_TRUE(info.ok()) << info.message();
  EXPECT_EQ(info->heap, mem::Heap::Userptr);
  EXPECT_EQ(info->coherence, mem::Coherence::Coherent);
  EXPECT_EQ(ctx().register_host(host, 4096, r).err(), EEXIST);
  EXPECT_TRUE(ctx().free(host).ok());
  EXPECT_EQ(static_cast<uint8_t*>(host)[0], 1);  // host memory untouched and still mapped
  munmap(host, size);
}

TEST(MemoryContext, MapsTheDoorbellSlice) {
  auto r = req(mem::Heap::Doorbell, mem::Coherence::Coherent, 0);
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  auto info = ctx().lookup(*p);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->size, 8192u);
  EXPECT_EQ(info->heap, mem::Heap::Doorbell);
  EXPECT_TRUE(ctx().free(*p).ok());
  r.size = 4096;
  EXPECT_EQ(ctx().allocate(r).err(), EINVAL);
}

TEST(MemoryContext, SmallAllocationsShareAChunk) {
  size_t before = ctx().allocation_count();
  std::vector<void*> ps;
  auto r = req(mem::Heap::Gtt, mem::Coherence::NonCoherent, 200);
  for (int i = 0; i < 500; ++i) {
    auto p = ctx().allocate_small(r);
    ASSERT_TRUE(p.ok()) << p.message();
    ps.push_back(*p);
  }
  EXPECT_LE(ctx().allocation_count(), before + 1);
  auto info = ctx().lookup(static_cast<char*>(ps[7]) + 100);
  ASSERT_TRUE(info.ok()) << info.message();
  EXPECT_TRUE(info->pooled);
  EXPECT_EQ(info->ptr(), ps[7]);
  EXPECT_EQ(info->size, 256u);
  for (void* p : ps) ASSERT_TRUE(ctx().free(p).ok());
  EXPECT_EQ(ctx().free(ps[3]).err(), EINVAL);  // double free of a pooled block
}

TEST(MemoryContext, KernargAndSignalPoolsAreUncachedAndMappedEverywhere) {
  auto k = ctx().allocate_kernarg(256);
  auto s = ctx().allocate_signal_memory();
  ASSERT_TRUE(k.ok()) << k.message();
  ASSERT_TRUE(s.ok()) << s.message();
  for (void* p : {*k, *s}) {
    auto info = ctx().lookup(p);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->coherence, mem::Coherence::Uncached);
    EXPECT_EQ(info->heap, mem::Heap::Gtt);
    EXPECT_EQ(info->mapped_gpus.size(), platform().devices().size());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  }
  EXPECT_NE(ctx().lookup(*k)->chunk_base, ctx().lookup(*s)->chunk_base);
  EXPECT_TRUE(ctx().free(*k).ok());
  EXPECT_TRUE(ctx().free(*s).ok());
}

TEST(MemoryContext, RejectsZeroSize) {
  size_t before = ctx().allocation_count();
  for (auto h : {mem::Heap::Vram, mem::Heap::Gtt}) {
    auto p = ctx().allocate(req(h, mem::Coherence::NonCoherent, 0));
    EXPECT_EQ(p.err(), EINVAL);
    EXPECT_NE(p.message().find("zero-size"), std::string::npos) << p.message();
  }
  EXPECT_EQ(ctx().allocate_small(req(mem::Heap::Gtt, mem::Coherence::NonCoherent, 0)).err(), EINVAL);
  EXPECT_EQ(ctx().allocation_count(), before);
}

TEST(MemoryContext, RejectsMoreThanTheHeapNamingHeapAndSizes) {
  size_t before = ctx().allocation_count();
  uint64_t vram = platform().devices().front()->vram_size;
  auto p = ctx().allocate(req(mem::Heap::Vram, mem::Coherence::NonCoherent, vram * 2));
  EXPECT_EQ(p.err(), ENOMEM);
  EXPECT_NE(p.message().find("VRAM heap"), std::string::npos) << p.message();
  EXPECT_NE(p.message().find(std::to_string(vram)), std::string::npos) << p.message();
  EXPECT_NE(p.message().find(std::to_string(vram * 2)), std::string::npos) << p.message();
  auto g = ctx().allocate(req(mem::Heap::Gtt, mem::Coherence::NonCoherent, platform().system_memory_size() * 2));
  EXPECT_EQ(g.err(), ENOMEM);
  EXPECT_NE(g.message().find("GTT heap"), std::string::npos) << g.message();
  EXPECT_EQ(ctx().allocation_count(), before);
}

TEST(MemoryContext, RejectsDoubleFreeAndUnknownPointers) {
  auto p = ctx().allocate(req(mem::Heap::Gtt, mem::Coherence::Coherent, 4096));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(ctx().free(static_cast<char*>(*p) + 64).err(), EINVAL);  // interior pointer
  ASSERT_TRUE(ctx().free(*p).ok());
  auto again = ctx().free(*p);
  EXPECT_EQ(again.err(), EINVAL);
  EXPECT_NE(again.message().find("double free"), std::string::npos) << again.message();
  int on_stack = 0;
  EXPECT_EQ(ctx().free(&on_stack).err(), EINVAL);
  EXPECT_EQ(ctx().free(nullptr).err(), EINVAL);
}

TEST(MemoryContext, RejectsUnalignedUserptrWithoutLeaking) {
  size_t before = ctx().allocation_count();
  std::vector<char> buf(3 * 4096);
  char* p = buf.data();
  if ((reinterpret_cast<uintptr_t>(p) & 4095) == 0) ++p;
  auto r = ctx().register_host(p, 4096, req(mem::Heap::Userptr, mem::Coherence::Coherent, 4096));
  EXPECT_EQ(r.err(), EINVAL);
  EXPECT_NE(r.message().find("not page aligned"), std::string::npos) << r.message();
  EXPECT_EQ(ctx().register_host(nullptr, 4096, {}).err(), EINVAL);
  EXPECT_EQ(ctx().allocation_count(), before);
}

TEST(MemoryContext, RejectsUnknownGpu) {
  auto r = req(mem::Heap::Gtt, mem::Coherence::Coherent, 4096);
  r.map_to = {0xfffe};
  EXPECT_EQ(ctx().allocate(r).err(), ENODEV);
}

}  // namespace

namespace {

TEST(MemoryContext, MapsTheMmioRemapPage) {
  auto r = req(mem::Heap::Mmio, mem::Coherence::Coherent, 0);
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  auto info = ctx().lookup(*p);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->size, 4096u);
  EXPECT_EQ(info->heap, mem::Heap::Mmio);
  EXPECT_TRUE(ctx().free(*p).ok());
}

TEST(MemoryContext, RejectsMmioRemapOtherThanOnePage) {
  size_t before = ctx().allocation_count();
  auto r = ctx().allocate(req(mem::Heap::Mmio, mem::Coherence::Coherent, 8192));
  EXPECT_EQ(r.err(), EINVAL) << r.message();
  EXPECT_NE(r.message().find("8192"), std::string::npos) << r.message();
  EXPECT_EQ(ctx().allocation_count(), before);
}

}  // namespace

namespace {

TEST(MemoryContext, PlacesAtAFixedAddressAndKeepsTheCallersReservation) {
  auto res = mem::reserve_va(size_t(1) << 20, 0);
  ASSERT_TRUE(res.ok()) << res.message();
  auto r = req(mem::Heap::Vram, mem::Coherence::NonCoherent, 64 << 10);
  r.host_access = false;
  r.fixed_va = res->base + (128 << 10);
  auto p = ctx().allocate(r);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*p), r.fixed_va);
  ASSERT_TRUE(ctx().free(*p).ok());
  // Still reserved: a no-replace mapping at that address must fail with EEXIST.
  void* probe = mmap(reinterpret_cast<void*>(r.fixed_va), 4096, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  EXPECT_EQ(probe, MAP_FAILED);
  EXPECT_EQ(errno, EEXIST);
  if (probe != MAP_FAILED) munmap(probe, 4096);
  r.fixed_va = res->base + 100;  // not page aligned
  size_t before = ctx().allocation_count();
  EXPECT_EQ(ctx().allocate(r).err(), EINVAL);
  EXPECT_EQ(ctx().allocation_count(), before);
  mem::release_va(*res);
}

}  // namespace
