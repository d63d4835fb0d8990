// SPDX-License-Identifier: MIT
// mem::Context: the process's view of the GPUs (kfd, topology, render nodes, VMs) and its memory.
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

#include "kfd/kfd.h"
#include "kfd/render_node.h"
#include "base/result.h"
#include "kfd/topology.h"
#include "memory/pool.h"
#include "pm4/family.h"
#include "memory/types.h"
#include "memory/va.h"

namespace mem {

// One GPU of the process: its topology node, render node (holding the GPU VM) and apertures.
struct Gpu {
  explicit Gpu(kfd::RenderNode rn) : render(std::move(rn)) {}
  uint32_t index = 0;      // 0-based among the GPUs
  uint32_t gpu_id = 0;     // KFD gpu_id
  uint32_t node_id = 0;    // KFD topology node index
  const kfd::Node* node = nullptr;
  kfd::RenderNode render;
  kfd::Apertures apertures{};
  uint64_t vram_size = 0;  // the VRAM heap
  // The generation's hardware facts, chosen once from gfx_target_version (nullptr: not in the table).
  const pm4::Family* family = nullptr;

  const kfd::NodeProperties& props() const { return node->props; }
};

struct ContextOptions {
  const char* kfd_path = kfd::Kfd::kPath;
  bool runtime_enable = true;       // RUNTIME_ENABLE when KFD >= 1.13
  size_t pool_chunk_size = size_t(2) << 20;
};

// Owns /dev/kfd, the render nodes and every allocation. Thread-safe. Queues and signals (queues/)
// and the HIP API build on it; it must outlive them.
class Context {
 public:
  // Opens /dev/kfd, reads the topology, opens each GPU's render node, fetches the apertures,
  // ACQUIRE_VMs each GPU and (KFD >= 1.13) RUNTIME_ENABLEs, in the thunk's order (libhsakmt openclose.c).
  static base::Result<std::unique_ptr<Context>> open(const ContextOptions& opts = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const kfd::Kfd& kfd() const { return kfd_; }
  const kfd::Topology& topology() const { return topo_; }
  std::span<const std::unique_ptr<Gpu>> gpus() const { return gpus_; }
  const Gpu* gpu(uint32_t gpu_id) const;  // nullptr if unknown
  uint64_t system_memory_size() const { return system_mem_; }
  // What the driver says about a GPU, for the API layer (which makes no ioctl itself):
  // AVAILABLE_MEMORY (KFD >= 1.9), the process's XNACK mode, and a GET_CLOCK_COUNTERS sample.
  base::Result<uint64_t> available_vram(uint32_t gpu_id) const { return kfd_.available_memory(gpu_id); }
  base::Result<bool> xnack_enabled() const { return kfd_.get_xnack_mode(); }
  base::Result<kfd::ClockCounters> clock_counters(uint32_t gpu_id) const { return kfd_.get_clock_counters(gpu_id); }
  bool runtime_enabled() const { return runtime_enabled_; }

  // Allocates per the request at a fresh same-address VA, maps it to the GPUs and (when host
  // accessible) on the CPU. Returns the address (CPU pointer == GPU VA).
  base::Result<void*> allocate(const AllocRequest& req);
  // Registers existing, page-aligned host memory (USERPTR) at its own address as GPU VA.
  base::Result<void*> register_host(void* ptr, size_t size, const AllocRequest& req);
  // Frees an allocation, a pooled block or a registration by its base address.
  base::Status free(void* ptr);
  // The allocation containing `ptr` (any interior pointer); ENOENT if none.
  base::Result<AllocationInfo> lookup(const void* ptr) const;

  // Small-buffer sub-allocation: blocks of pooled chunks of the same kind (no ioctl per block).
  // Falls back to allocate() when the size exceeds the pool's largest block.
  base::Result<void*> allocate_small(const AllocRequest& req);
  // Uncached GTT mapped to every GPU, for kernel arguments.
  base::Result<void*> allocate_kernarg(size_t size, size_t alignment = 64);
  // Uncached GTT mapped to every GPU, 64-byte blocks for amd_signal_t.
  base::Result<void*> allocate_signal_memory(size_t size = 64);

  size_t allocation_count() const;  // live top-level allocations (chunks count once)

 private:
  struct Record {
    AllocationInfo info;
    VaRange va;             // reserved range (empty for userptr)
    Pool* pool = nullptr;   // set when this allocation is a pool chunk
    bool owns_va = true;    // false: inside a caller's reservation (AllocRequest::fixed_va)
  };
  explicit Context(kfd::Kfd k) : kfd_(std::move(k)) {}
  base::Status init(const ContextOptions& opts);
  base::Status check_request(const AllocRequest& req, const Gpu** owner,
                            std::vector<uint32_t>* gpus, size_t* size) const;
  base::Status check_aperture(uintptr_t base, size_t size, const std::vector<uint32_t>& gpus) const;
  base::Result<void*> allocate_internal(const AllocRequest& req, Pool* pool);
  base::Status map_cpu(const Gpu& owner, const AllocRequest& req, uint64_t mmap_offset,
                      const VaRange& va);
  base::Status release(Record& rec);
  base::Result<VaRange> place(const AllocRequest& req, size_t size) const;
  Pool& pool_for(const AllocRequest& req, const char* tag = "");
  base::Result<void*> allocate_pooled(const AllocRequest& req, const char* tag);

  kfd::Kfd kfd_;
  kfd::Topology topo_;
  std::vector<std::unique_ptr<Gpu>> gpus_;
  uint64_t system_mem_ = 0;
  bool runtime_enabled_ = false;
  size_t chunk_size_ = size_t(2) << 20;

  mutable std::shared_mutex map_mu_;
  std::map<uintptr_t, Record> allocations_;  // by base address

  std::mutex pools_mu_;
  std::map<std::string, std::unique_ptr<Pool>> pools_;  // by kind key
};

}  // namespace mem
