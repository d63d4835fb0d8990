// SPDX-License-Identifier: MIT
// mem::Context lifetime: opening the allocator on a platform, freeing what is left at the end.
#include "memory/context.h"

namespace mem {

base::Result<std::unique_ptr<Context>> Context::open(const gpu::Platform& platform,
                                                     const ContextOptions& opts) {
  std::unique_ptr<Context> ctx(new Context(platform));
  ctx->chunk_size_ = opts.pool_chunk_size;
  return ctx;
}

Context::~Context() {
  // Pools first: their chunks are allocations of this context.
  {
    std::lock_guard lk(pools_mu_);
    pools_.clear();
  }
  std::unique_lock lk(map_mu_);
  for (auto& [base, rec] : allocations_) (void)release(rec);
  allocations_.clear();
}

size_t Context::allocation_count() const {
  std::shared_lock lk(map_mu_);
  return allocations_.size();
}

}  // namespace mem
