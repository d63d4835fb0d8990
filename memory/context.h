// SPDX-License-Identifier: MIT
// mem::Context: the process's memory allocator (same-address VRAM, GTT, userptr, doorbell and MMIO memory, pools).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "gpu/device.h"
#include "memory/pool.h"
#include "memory/types.h"
#include "memory/va.h"

namespace mem {

struct ContextOptions {
  size_t pool_chunk_size = size_t(2) << 20;
};

// The allocator of the process's GPU memory: every allocation, registration and pool, at the
// same address on the CPU and the GPUs of a gpu::Platform (which must outlive it). Thread-safe.
// Queues and signals (queues/) and the HIP API allocate through it; it must outlive them.
class Context {
 public:
  static base::Result<std::unique_ptr<Context>> open(const gpu::Platform& platform,
                                                     const ContextOptions& opts = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const gpu::Platform& platform() const { return platform_; }

  // Allocates per the request at a fresh same-address VA, maps it to the GPUs and (when host
  // accessible) on the CPU. Returns the address (CPU pointer == GPU VA).
  base::Result<void*> allocate(const AllocRequest& req);
  // Registers existing, page-aligned host memory (USERPTR) at its own address as GPU VA.
  base::Result<void*> register_host(void* ptr, size_t size, const AllocRequest& req);
  // Frees an allocation, a pooled block or a registration by its base address.
  base::Status free(void* ptr);
  // The allocation containing `ptr` (any interior pointer); ENOENT if none.
  base::Result<AllocationInfo> lookup(const void* ptr) const;
  // The same as a test, without building an error (a caller for whom "no allocation" is an
  // answer, not a failure: HIP telling pinned from pageable host memory on every copy).
  bool find(const void* ptr, AllocationInfo* out) const;
  // The same, without the GPU list and the tag (no copy of either: a copy engine's per-operation
  // check), and whether GPU `gpu_id` maps it.
  base::Result<Placement> locate(const void* ptr, uint32_t gpu_id) const;
  // Attaches `tag` to the allocation (or pooled block) containing `ptr`, replacing any earlier
  // one; it is returned by lookup and dropped when the allocation is freed. ENOENT if none.
  base::Status set_tag(const void* ptr, std::shared_ptr<void> tag);

  // Small-buffer sub-allocation: blocks of pooled chunks of the same kind (no ioctl per block).
  // Falls back to allocate() when the size exceeds the pool's largest block.
  base::Result<void*> allocate_small(const AllocRequest& req);
  // Uncached GTT mapped to every GPU, for kernel arguments.
  base::Result<void*> allocate_kernarg(size_t size, size_t alignment = 64);
  // Uncached GTT mapped to every GPU, 64-byte blocks for amd_signal_t.
  base::Result<void*> allocate_signal_memory(size_t size = 64);

  size_t allocation_count() const;  // live top-level allocations (chunks count once)

 private:
  // lookup/find: `why` (when given) says why there is none.
  bool find_impl(const void* ptr, AllocationInfo* out, std::string* why) const;
  struct Record {
    AllocationInfo info;
    VaRange va;             // reserved range (empty for userptr)
    Pool* pool = nullptr;   // set when this allocation is a pool chunk
    bool owns_va = true;    // false: inside a caller's reservation (AllocRequest::fixed_va)
  };
  explicit Context(const gpu::Platform& p) : platform_(p), kfd_(p.kfd()) {}
  const gpu::Device* gpu(uint32_t gpu_id) const { return platform_.device(gpu_id); }
  base::Status check_request(const AllocRequest& req, const gpu::Device** owner,
                            std::vector<uint32_t>* gpus, size_t* size) const;
  base::Status check_aperture(uintptr_t base, size_t size, const std::vector<uint32_t>& gpus) const;
  base::Result<void*> allocate_internal(const AllocRequest& req, Pool* pool);
  base::Status map_cpu(const gpu::Device& owner, const AllocRequest& req, uint64_t mmap_offset,
                      const VaRange& va);
  base::Status release(Record& rec);
  base::Result<VaRange> place(const AllocRequest& req, size_t size) const;
  Pool& pool_for(const AllocRequest& req, const char* tag = "");
  base::Result<void*> allocate_pooled(const AllocRequest& req, const char* tag);

  const gpu::Platform& platform_;
  const kfd::Kfd& kfd_;
  size_t chunk_size_ = size_t(2) << 20;

  mutable std::shared_mutex map_mu_;
  std::map<uintptr_t, Record> allocations_;  // by base address

  std::mutex pools_mu_;
  std::map<std::string, std::unique_ptr<Pool>> pools_;  // by kind key
};

}  // namespace mem
