// SPDX-License-Identifier: MIT
// kfdemu_get_counts (emu/control.h): what this process holds in the emulated amdkfd, for leak tests.
#include <linux/kfd_ioctl.h>

#include <unistd.h>

#include <cstring>
#include <mutex>

#include "emu/control.h"
#include "emu/kfd_process.h"
#include "emu/stats.h"

namespace emu {

bool Process::counts(kfdemu_counts* c) {
  std::memset(c, 0, sizeof *c);
  std::lock_guard<std::mutex> lk(mu);
  // A forked child has no KFD process of its own until it opens /dev/kfd (the parent's state it
  // inherited is not its own).
  if (open_count_ == 0 || owner_ != getpid()) return false;
  for (const auto& [handle, bo] : bos_) {
    ++c->bos;
    c->gpu_mappings += uint32_t(bo->mapped.size());
    switch (bo->kind) {
      case BoKind::Vram: ++c->bos_vram; c->vram_bytes += bo->size; break;
      case BoKind::Gtt: ++c->bos_gtt; c->gtt_bytes += bo->size; break;
      case BoKind::Userptr: ++c->bos_userptr; break;
      case BoKind::Doorbell: ++c->bos_doorbell; break;
      case BoKind::Mmio: ++c->bos_mmio; break;
    }
  }
  for (const auto& [id, q] : queues_) {
    ++c->queues;
    if (q->type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) ++c->queues_aql;
    else if (q->type == KFD_IOC_QUEUE_TYPE_COMPUTE) ++c->queues_pm4;
    else ++c->queues_sdma;
  }
  for (const auto& [gpu_id, d] : devices_) {
    if (d->doorbell_arena != UINT64_MAX) ++c->doorbell_pages;
    for (bool used : d->doorbell_used) c->doorbells += used;
  }
  c->svm_ranges = uint32_t(svm_.size());
  // The engines' work is counted once, in the statistics (emu/stats.h).
  const stats::Counters& st = stats::counters();
  c->sdma_copies = st.sdma_copies.load(std::memory_order_relaxed);
  c->sdma_copy_bytes = st.sdma_copy_bytes.load(std::memory_order_relaxed);
  c->sdma_fills = st.sdma_fills.load(std::memory_order_relaxed);
  c->dispatches = st.aql_dispatches.load(std::memory_order_relaxed) + st.pm4_dispatches.load(std::memory_order_relaxed);
  c->ioctls = ioctls.load(std::memory_order_relaxed);
  c->event_waits = event_waits.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> ek(ev_mu_);
  for (const auto& [id, ev] : events_) {
    ++c->events;
    if (ev.type == KFD_IOC_EVENT_SIGNAL) ++c->signal_events;
  }
  return true;
}

}  // namespace emu

extern "C" int kfdemu_get_counts(struct kfdemu_counts* counts) {
  return emu::Process::get().counts(counts) ? 0 : -1;
}
