// SPDX-License-Identifier: MIT
// The pools of mem::Context: kernel arguments, signals and small buffers, each over chunk allocations.
#include <algorithm>

#include "memory/context.h"

namespace mem {
namespace {

std::string pool_key(const AllocRequest& r) {
  std::string k = std::string(heap_name(r.heap)) + "/" + coherence_name(r.coherence);
  k += r.host_access ? "/host" : "/device";
  if (r.executable) k += "/x";
  if (r.read_only) k += "/ro";
  k += "/" + std::to_string(r.owner_gpu);
  if (r.map_all) {
    k += "/all";
  } else {
    std::vector<uint32_t> ids = r.map_to;
    std::sort(ids.begin(), ids.end());
    for (uint32_t id : ids) k += "," + std::to_string(id);
  }
  return k;
}

}  // namespace

Pool& Context::pool_for(const AllocRequest& req, const char* tag) {
  std::string key = tag + pool_key(req);
  std::lock_guard lk(pools_mu_);
  auto it = pools_.find(key);
  if (it != pools_.end()) return *it->second;
  AllocRequest chunk = req;
  chunk.alignment = 0;
  auto self = std::make_shared<Pool*>(nullptr);
  auto alloc = [this, chunk, self](size_t size) -> base::Result<uintptr_t> {
    AllocRequest r = chunk;
    r.size = size;
    KFD_ASSIGN(void* p, allocate_internal(r, *self));
    return reinterpret_cast<uintptr_t>(p);
  };
  auto release_chunk = [this](uintptr_t base) {
    std::unique_lock lk(map_mu_);
    auto it = allocations_.find(base);
    if (it == allocations_.end()) return;
    if (release(it->second).ok()) allocations_.erase(it);
  };
  auto pool = std::make_unique<Pool>(key, chunk_size_, alloc, release_chunk);
  *self = pool.get();
  return *pools_.emplace(key, std::move(pool)).first->second;
}

base::Result<void*> Context::allocate_small(const AllocRequest& req) {
  if (req.heap == Heap::Userptr || req.heap == Heap::Doorbell || req.heap == Heap::Mmio)
    return base::Error::msg(std::string("allocate_small: ") + heap_name(req.heap) +
                           " memory cannot be sub-allocated", EINVAL);
  if (req.size == 0)
    return base::Error::msg(std::string("allocate_small: zero-size ") + heap_name(req.heap) +
                           " allocation", EINVAL);
  return allocate_pooled(req, "");
}

// A block of the kind's pool, or a direct allocation when it exceeds the pool's largest block.
base::Result<void*> Context::allocate_pooled(const AllocRequest& req, const char* tag) {
  Pool& pool = pool_for(req, tag);
  if (std::max(req.size, req.alignment) > pool.max_block()) return allocate(req);
  KFD_ASSIGN(uintptr_t p, pool.allocate(req.size, req.alignment));
  return reinterpret_cast<void*>(p);
}

base::Result<void*> Context::allocate_kernarg(size_t size, size_t alignment) {
  AllocRequest r;
  r.heap = Heap::Gtt;
  r.coherence = Coherence::Uncached;
  r.map_all = true;
  r.size = size;
  r.alignment = alignment;
  return allocate_small(r);
}

base::Result<void*> Context::allocate_signal_memory(size_t size) {
  AllocRequest r;
  r.heap = Heap::Gtt;
  r.coherence = Coherence::Uncached;
  r.map_all = true;
  r.size = size;
  r.alignment = 64;
  // Its own pool, apart from kernel arguments: signals are long-lived, kernel arguments churn.
  return allocate_pooled(r, "signal:");
}

}  // namespace mem
