// SPDX-License-Identifier: MIT
// The per-GPU scratch windows: one SET_SCRATCH_BACKING_VA range per GPU, slices of it for each queue's scratch.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "base/result.h"
#include "gpu/device.h"
#include "memory/context.h"
#include "queues/scratch.h"

namespace queues {

// Owns, per GPU (on first use), a reservation of `window_bytes` of address space the kernel is
// told about (SET_SCRATCH_BACKING_VA), and hands out 64 KiB-aligned slices of it, each backed by
// device-only VRAM, for queues' scratch. Thread-safe; the allocator must outlive it.
class ScratchWindows {
 public:
  ScratchWindows(mem::Context& memory, uint64_t window_bytes)
      : mem_(memory), window_bytes_(window_bytes) {}
  ~ScratchWindows();
  ScratchWindows(const ScratchWindows&) = delete;
  ScratchWindows& operator=(const ScratchWindows&) = delete;

  // Device-only VRAM for a queue's scratch inside the GPU's window; release frees it.
  base::Result<scratch::Slice> acquire(const gpu::Device& gpu, uint64_t bytes);
  void release(uint32_t gpu_id, const scratch::Slice& s);
  // A queue's scratch of `lane_bytes` per work-item: sized, allocated (fewer slots under memory
  // pressure) and encoded; nothing installed. 0 gives the empty store.
  base::Result<scratch::Prepared> prepare(const gpu::Device& gpu, uint32_t lane_bytes);
  void discard(uint32_t gpu_id, const scratch::Prepared& p) { release(gpu_id, p.slice); }

 private:
  struct Window {
    mem::VaRange va;
    std::map<uint64_t, uint64_t> used;  // offset -> size of live slices
  };
  base::Result<Window*> window(const gpu::Device& gpu);  // mu_ held

  mem::Context& mem_;
  const uint64_t window_bytes_;
  std::mutex mu_;
  std::map<uint32_t, Window> windows_;  // gpu_id -> window
};

}  // namespace queues
