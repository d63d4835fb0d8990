// SPDX-License-Identifier: MIT
// The per-GPU scratch window of queues::Runtime: SET_SCRATCH_BACKING_VA once, 64 KiB slices per queue.
#include <algorithm>
#include <cerrno>

#include "queues/runtime.h"
#include "queues/scratch.h"

namespace queues {

// The thunk reserves one scratch backing range per GPU and programs SH_HIDDEN_PRIVATE_BASE with
// its base >> 16 (libhsakmt fmm_allocate_scratch); ROCr records each queue's offset into it.
base::Result<Runtime::ScratchWindow*> Runtime::scratch_window(const mem::Gpu& gpu) {
  auto it = scratch_.find(gpu.gpu_id);
  if (it != scratch_.end()) return &it->second;
  KFD_ASSIGN(mem::VaRange va, mem::reserve_va(scratch_window_size_, mem::kMaxVaAlignment));
  static_assert(mem::kMaxVaAlignment % scratch::kBackingAlign == 0);
  if (auto st = ctx_->kfd().set_scratch_backing_va(gpu.gpu_id, va.base >> 16); !st) {
    mem::release_va(va);
    return st.error();
  }
  ScratchWindow& w = scratch_[gpu.gpu_id];
  w.va = va;
  return &w;
}

base::Result<ScratchSlice> Runtime::acquire_scratch(const mem::Gpu& gpu, uint64_t bytes) {
  const uint64_t a = scratch::kBackingAlign;
  const uint64_t size = (bytes + a - 1) / a * a;
  if (bytes == 0 || size < bytes)
    return base::Error::msg("scratch: invalid size " + std::to_string(bytes), EINVAL);
  std::lock_guard lk(mu_);
  KFD_ASSIGN(ScratchWindow* w, scratch_window(gpu));
  // First fit among the gaps between live slices (kept sorted by offset).
  uint64_t off = 0;
  for (const auto& [o, s] : w->used) {
    if (o - off >= size) break;
    off = o + s;
  }
  if (off + size > w->va.size)
    return base::Error::msg("scratch: " + std::to_string(size) + " bytes do not fit the GPU " +
                           base::hex(gpu.gpu_id) + " scratch window of " +
                           std::to_string(w->va.size) + " bytes (RuntimeOptions::scratch_window)",
                           ENOMEM);
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  r.host_access = false;
  r.size = size;
  r.owner_gpu = gpu.gpu_id;
  r.fixed_va = w->va.base + off;
  KFD_ASSIGN(void* p, ctx_->allocate(r));
  w->used.emplace(off, size);
  return ScratchSlice{reinterpret_cast<uint64_t>(p), off, size};
}

void Runtime::release_scratch(uint32_t gpu_id, const ScratchSlice& s) {
  if (s.size == 0) return;
  std::lock_guard lk(mu_);
  (void)ctx_->free(reinterpret_cast<void*>(s.base));
  auto it = scratch_.find(gpu_id);
  if (it != scratch_.end()) it->second.used.erase(s.offset);
}

// Sizes, allocates and encodes a backing store of `lane_bytes` per work-item (halving the slots
// under memory pressure, down to one workgroup's worth), as ROCr's AqlQueue::InitScratchSRD.
base::Result<scratch::Prepared> Runtime::prepare_scratch(const mem::Gpu& gpu, uint32_t lane_bytes) {
  scratch::Prepared p;
  KFD_ASSIGN(p.layout, scratch::layout(gpu.props(), lane_bytes));
  if (p.layout.total_bytes == 0) return p;  // no scratch: all fields zero
  for (;;) {
    auto slice = acquire_scratch(gpu, p.layout.total_bytes);
    if (slice) {
      p.slice = *slice;
      break;
    }
    // Out of memory: fewer slots only throttle the waves.
    if (slice.err() != ENOMEM || p.layout.waves <= scratch::kMinWaves) return slice.error();
    p.layout = scratch::with_waves(p.layout, std::max(scratch::kMinWaves, p.layout.waves / 2));
  }
  auto f = scratch::encode(gpu.props(), p.layout, p.slice.base, p.slice.offset);
  if (!f) {
    release_scratch(gpu.gpu_id, p.slice);
    return f.error();
  }
  p.fields = *f;
  return p;
}

}  // namespace queues
