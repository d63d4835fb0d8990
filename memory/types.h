// SPDX-License-Identifier: MIT
// Public value types of the memory layer: heaps, coherence kinds, requests and allocation records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <memory>
#include <vector>

namespace mem {

// Where the memory lives. Userptr registers existing host memory; Doorbell is the process's
// doorbell slice of one GPU; Mmio is the one-page MMIO remap of one GPU.
enum class Heap : uint8_t { Vram, Gtt, Userptr, Doorbell, Mmio };

// Coherence as ROCm names it (ROCr): fine-grained = Coherent, coarse-grained =
// NonCoherent, and Uncached for rings, signals and kernel arguments.
enum class Coherence : uint8_t { NonCoherent, Coherent, Uncached };

const char* heap_name(Heap h);
const char* coherence_name(Coherence c);

struct AllocRequest {
  Heap heap = Heap::Gtt;
  Coherence coherence = Coherence::NonCoherent;
  size_t size = 0;
  size_t alignment = 0;        // 0: automatic; else a power of two up to 2 MiB
  // VRAM: host-visible (PUBLIC) and mapped on the CPU. Off by default: a GPU with a small BAR
  // has little or no host-visible VRAM (amdkfd refuses PUBLIC VRAM there), and the runtime
  // moves device data with the GPU's engines, never through the CPU.
  bool host_access = false;
  bool executable = false;
  bool read_only = false;      // GPU mapping without WRITABLE
  uint32_t owner_gpu = 0;      // gpu_id allocating the memory; 0 = first GPU
  std::vector<uint32_t> map_to;  // gpu_ids to map to; empty = the owner only
  bool map_all = false;        // map to every GPU (overrides map_to)
  // Place the buffer at this page-aligned address inside a PROT_NONE reservation the caller owns
  // (a scratch window); 0 = a fresh reservation of its own. Freeing leaves the reservation.
  uintptr_t fixed_va = 0;
};

// What the address lookup returns for any pointer inside an allocation.
struct AllocationInfo {
  uintptr_t base = 0;         // start of the allocation (the block, for pooled memory)
  size_t size = 0;
  Heap heap = Heap::Gtt;
  Coherence coherence = Coherence::NonCoherent;
  bool host_access = false;
  uint32_t owner_gpu = 0;
  std::vector<uint32_t> mapped_gpus;
  uint64_t handle = 0;        // KFD buffer handle (of the pool chunk for pooled memory)
  bool pooled = false;        // a block of a pool chunk
  uintptr_t chunk_base = 0;   // the backing allocation (== base unless pooled)
  size_t chunk_size = 0;
  // What the layer that made the allocation attached to it (Context::set_tag; the HIP API keeps
  // its per-allocation attributes here, so the allocator's map is the process's only one).
  std::shared_ptr<void> tag;

  void* ptr() const { return reinterpret_cast<void*>(base); }
};

// Where an address lies, as a copy engine needs it (Context::locate).
struct Placement {
  uintptr_t base = 0;  // the allocation (the block, for pooled memory)
  size_t size = 0;
  Heap heap = Heap::Gtt;
  uint32_t owner_gpu = 0;
  bool mapped = false;  // to the GPU asked about
};

}  // namespace mem
