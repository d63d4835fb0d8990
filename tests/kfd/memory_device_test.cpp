// SPDX-License-Identifier: MIT
// Device tests of ALLOC/FREE/MAP/UNMAP_MEMORY_OF_GPU: VRAM, GTT, userptr, and the kernel's rejections.
#include <sys/mman.h>

#include <cstring>

#include "tests/kfd/device.h"

namespace kfdtest {
namespace {

class Memory : public DeviceTest {};

TEST_F(Memory, AllocMapFreeVram) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Vram, 2 << 20, 0, /*cpu=*/false);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_NE(b->handle(), 0u);
  EXPECT_EQ(b->handle() >> 32, gpu0().gpu_id) << "the handle carries the gpu_id in bits 32..63";
}

// A small-BAR GPU (the topology reports a private frame buffer) refuses PUBLIC VRAM (kfd_chardev.c:
// "Alloc host visible vram on small bar is not allowed").
bool small_bar(const Gpu& g) {
  for (const kfd::MemBank& b : g.node->mem_banks)
    if (b.heap_type == uint32_t(kfd::HeapType::FrameBufferPrivate)) return true;
  return false;
}

TEST_F(Memory, AllocMapFreeVisibleVramIsCpuWritable) {
  if (small_bar(gpu0())) GTEST_SKIP() << "a small-BAR GPU has no host-visible VRAM (the emulator: KFDEMU_VISIBLE_VRAM_MB=all)";
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Vram, 64 << 10,
                        KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
  ASSERT_TRUE(b.ok()) << b.message();
  auto* p = static_cast<volatile uint32_t*>(b->ptr());
  p[0] = 0x1234abcd;
  p[(64 << 10) / 4 - 1] = 0x5678;
  EXPECT_EQ(p[0], 0x1234abcdu);
  EXPECT_EQ(p[(64 << 10) / 4 - 1], 0x5678u);
}

TEST_F(Memory, AllocMapFreeGtt) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, 3 * kPage);
  ASSERT_TRUE(b.ok()) << b.message();
  std::memset(b->ptr(), 0x5a, b->size());
  EXPECT_EQ(static_cast<unsigned char*>(b->ptr())[b->size() - 1], 0x5a);
}

TEST_F(Memory, AllocMapFreeUserptr) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Userptr, 16 * kPage);
  ASSERT_TRUE(b.ok()) << b.message();
  static_cast<char*>(b->ptr())[0] = 'k';
  EXPECT_EQ(static_cast<char*>(b->ptr())[0], 'k');
}

TEST_F(Memory, AllocMapFreeCoherentAndUncachedGtt) {
  auto c = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, kPage, KFD_IOC_ALLOC_MEM_FLAGS_COHERENT);
  ASSERT_TRUE(c.ok()) << c.message();
  auto u = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, kPage, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED);
  ASSERT_TRUE(u.ok()) << u.message();
}

// Reserves one page of VA and returns its address (unmapped by the caller).
uint64_t reserve(size_t size) {
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? 0 : reinterpret_cast<uintptr_t>(p);
}

// The coherence flags can be combined: the kernel gives them a precedence when it builds the
// page-table flags (amdgpu_amdkfd_gpuvm.c get_pte_flags), it does not refuse the mix.
TEST_F(Memory, AcceptsCombinedCoherenceFlags) {
  const uint32_t base = KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  const uint32_t mixes[] = {KFD_IOC_ALLOC_MEM_FLAGS_COHERENT | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED,
                            KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED | kfd::uapi::kAllocExtCoherent};
  for (uint32_t extra : mixes) {
    auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, kPage, extra);
    EXPECT_TRUE(b.ok()) << b.message() << " flags " << base::hex(base | extra);
  }
}

// An unaligned userptr must not become a GPU mapping. Where the kernel refuses it (ALLOC or, via
// amdgpu_vm_bo_map's alignment check, MAP) is not pinned down here: ROCm's thunk always aligns.
TEST_F(Memory, RejectsUnalignedUserptr) {
  void* mem = mmap(nullptr, 4 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  uint64_t addr = reinterpret_cast<uintptr_t>(mem) + 100;
  auto r = kfd().alloc_memory(gpu0().gpu_id, addr, 2 * kPage,
                              KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE, addr);
  if (!r.ok()) {
    EXPECT_TRUE(fails_with(r, EINVAL, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU"));
    EXPECT_NE(r.message().find("userptr=" + base::hex(addr)), std::string::npos) << r.message();
  } else {
    const uint32_t ids[] = {gpu0().gpu_id};
    EXPECT_TRUE(fails_with(kfd().map_memory(r->handle, ids), EINVAL, "AMDKFD_IOC_MAP_MEMORY_TO_GPU"));
    EXPECT_TRUE(kfd().free_memory(r->handle).ok());
  }
  munmap(mem, 4 * kPage);
}

TEST_F(Memory, AllocRejectsBadArguments) {
  uint64_t va = reserve(kPage);
  ASSERT_NE(va, 0u);
  const uint32_t gtt = KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  auto zero = kfd().alloc_memory(gpu0().gpu_id, va, 0, gtt);
  EXPECT_TRUE(fails_with(zero, EINVAL, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU"));
  EXPECT_NE(zero.message().find("size=0x0"), std::string::npos) << zero.message();
  auto bad_gpu = kfd().alloc_memory(kBadGpuId, va, kPage, gtt);
  EXPECT_TRUE(fails_with(bad_gpu, EINVAL, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU"));
  EXPECT_NE(bad_gpu.message().find("gpu_id=0xdead"), std::string::npos) << bad_gpu.message();
  auto null_userptr = kfd().alloc_memory(gpu0().gpu_id, va, kPage,
                                         KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, /*cpu address=*/0);
  EXPECT_TRUE(fails_with(null_userptr, EINVAL, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU"));
  munmap(reinterpret_cast<void*>(va), kPage);
}

TEST_F(Memory, FreeRejectsUnknownHandle) {
  uint64_t handle = (uint64_t(gpu0().gpu_id) << 32) | 0x7fff0;
  auto r = kfd().free_memory(handle);
  EXPECT_TRUE(fails_with(r, EINVAL, "AMDKFD_IOC_FREE_MEMORY_OF_GPU"));
  EXPECT_TRUE(fails_with(kfd().free_memory(uint64_t(kBadGpuId) << 32), EINVAL,
                         "AMDKFD_IOC_FREE_MEMORY_OF_GPU"));
}

TEST_F(Memory, MapRejectsBadArguments) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, kPage);
  ASSERT_TRUE(b.ok()) << b.message();
  const uint32_t bad[] = {kBadGpuId};
  EXPECT_TRUE(fails_with(kfd().map_memory(b->handle(), bad), EINVAL, "AMDKFD_IOC_MAP_MEMORY_TO_GPU"));
  EXPECT_TRUE(fails_with(kfd().map_memory(b->handle(), {}), EINVAL, "AMDKFD_IOC_MAP_MEMORY_TO_GPU"));
  const uint32_t ok[] = {gpu0().gpu_id};
  uint64_t unknown = (uint64_t(gpu0().gpu_id) << 32) | 0x7fff0;
  // kfd_process_device_translate_handle finds nothing: ENOMEM, as the kernel returns.
  EXPECT_TRUE(fails_with(kfd().map_memory(unknown, ok), ENOMEM, "AMDKFD_IOC_MAP_MEMORY_TO_GPU"));
}

TEST_F(Memory, UnmapRejectsBadArguments) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, kPage);
  ASSERT_TRUE(b.ok()) << b.message();
  const uint32_t bad[] = {kBadGpuId};
  EXPECT_TRUE(fails_with(kfd().unmap_memory(b->handle(), bad), EINVAL,
                         "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU"));
  const uint32_t ok[] = {gpu0().gpu_id};
  uint64_t unknown = (uint64_t(gpu0().gpu_id) << 32) | 0x7fff0;
  EXPECT_TRUE(fails_with(kfd().unmap_memory(unknown, ok), ENOMEM,
                         "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU"));
}

}  // namespace
}  // namespace kfdtest
