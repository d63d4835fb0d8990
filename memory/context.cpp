// SPDX-License-Identifier: MIT
// mem::Context set-up: kfd, topology, render nodes, apertures, ACQUIRE_VM and RUNTIME_ENABLE.
#include "memory/context.h"

#include <unistd.h>

#include <cerrno>

namespace mem {

base::Result<std::unique_ptr<Context>> Context::open(const ContextOptions& opts) {
  KFD_ASSIGN(kfd::Kfd k, kfd::Kfd::open(opts.kfd_path));
  std::unique_ptr<Context> ctx(new Context(std::move(k)));
  KFD_TRY(ctx->init(opts));
  return ctx;
}

base::Status Context::init(const ContextOptions& opts) {
  chunk_size_ = opts.pool_chunk_size;
  KFD_ASSIGN(topo_, kfd::read_topology());
  // System memory (the GTT / USERPTR heap): the CPU nodes' memory banks.
  for (const auto& n : topo_.nodes)
    if (!n.is_gpu())
      for (const auto& b : n.mem_banks) system_mem_ += b.size_in_bytes;
  if (system_mem_ == 0) system_mem_ = uint64_t(sysconf(_SC_PHYS_PAGES)) * kPageSize;

  for (const kfd::Node* n : topo_.gpus()) {
    auto rn = kfd::RenderNode::open(n->props.drm_render_minor);
    if (!rn) return rn.error().context("GPU " + base::hex(n->gpu_id));
    auto g = std::make_unique<Gpu>(std::move(rn).value());
    g->index = uint32_t(gpus_.size());
    g->gpu_id = n->gpu_id;
    g->node_id = n->index;
    g->node = n;
    g->vram_size = n->vram_size() ? n->vram_size() : n->props.local_mem_size;
    g->family = pm4::family_for(n->props.gfx_target_version);
    gpus_.push_back(std::move(g));
  }
  if (gpus_.empty()) return base::Error::msg("no GPU in the KFD topology", ENODEV);

  KFD_ASSIGN(auto aps, kfd_.get_process_apertures());
  for (auto& g : gpus_) {
    bool found = false;
    for (const auto& a : aps)
      if (a.gpu_id == g->gpu_id) { g->apertures = a; found = true; }
    if (!found)
      return base::Error::msg("GET_PROCESS_APERTURES_NEW: no apertures for GPU " +
                             base::hex(g->gpu_id), ENODEV);
    KFD_TRY(kfd_.acquire_vm(g->gpu_id, g->render.fd()));
  }
  if (opts.runtime_enable && kfd_.has_minor(kfd::minor::kRuntimeEnable)) {
    auto r = kfd_.runtime_enable();
    // EBUSY/EEXIST: another runtime in this process already enabled it; that is fine.
    if (!r && r.err() != EEXIST && r.err() != EBUSY) return r.error();
    runtime_enabled_ = true;
  }
  return {};
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

const Gpu* Context::gpu(uint32_t gpu_id) const {
  for (const auto& g : gpus_)
    if (g->gpu_id == gpu_id) return g.get();
  return nullptr;
}

size_t Context::allocation_count() const {
  std::shared_lock lk(map_mu_);
  return allocations_.size();
}

}  // namespace mem
