// SPDX-License-Identifier: MIT
// Emulated amdkfd queue ioctls with the kernel's argument checks and Linux 6.12 buffer validation.
#include <cerrno>

#include "emu/command_processor.h"
#include "emu/sdma_engine.h"
#include "emu/kfd_process.h"
#include "emu/stats.h"
#include "pm4/queue_sizes.h"
#include "kfd/uapi_ext.h"

namespace emu {

namespace {
constexpr uint64_t kPage = 4096;
constexpr uint32_t kMaxQueues = 1024;
constexpr size_t kHeldRing = 2;  // Queue::held is wptr, rptr, ring, then EOP and CWSR
constexpr int kENOTSUPP = 524;  // kernel-internal errno the queue-type check returns
constexpr uint32_t kSdmaQueuesPerEngine = 8;  // the topology's num_sdma_queues_per_engine

bool is_sdma(uint32_t type) { return type == KFD_IOC_QUEUE_TYPE_SDMA || type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI; }

// x86-64 TASK_SIZE_MAX: access_ok() refuses a range that ends above it.
constexpr uint64_t kTaskSizeMax = (1ull << 47) - kPage;
bool access_ok(uint64_t addr, uint64_t size) { return addr <= kTaskSizeMax && size <= kTaskSizeMax - addr; }

// The node's properties as the kernel sees them, for the shared size formula.
kfd::NodeProperties node_props(const GpuModel& g) {
  kfd::NodeProperties p;
  p.simd_count = g.cus * 4;
  p.simd_per_cu = 4;
  p.array_count = g.target->shader_engines;
  p.simd_arrays_per_engine = 1;
  p.gfx_target_version = g.target->gfx_target_version;
  p.lds_size_in_kb = g.target->lds_kb;
  p.num_xcc = g.target->num_xcc;
  return p;
}

}  // namespace

// kfd_queue_buffer_get: `va` must lie in the first page of one VM mapping; when `size` is at
// least a page, that mapping must be exactly size / 4 KiB pages long (a smaller size is not checked).
static int buffer_get(Process& p, DeviceState& d, uint64_t va, uint64_t size,
                      std::shared_ptr<Bo> (Process::*find)(DeviceState&, uint64_t),
                      std::vector<std::shared_ptr<Bo>>* held) {
  std::shared_ptr<Bo> bo = (p.*find)(d, va);
  if (!bo) return -EINVAL;
  uint64_t page = va & ~(kPage - 1);
  if (page != bo->va) return -EINVAL;
  uint64_t pages = size / kPage;
  if (pages != 0 && page + pages * kPage != bo->va + bo->size) return -EINVAL;
  held->push_back(bo);
  return 0;
}

int Process::validate_queue_buffers(DeviceState& d, const kfd_ioctl_create_queue_args& a,
                                    Queue& q) {
  auto find = &Process::bo_at_locked;
  int r;
  if ((r = buffer_get(*this, d, a.write_pointer_address, kPage, find, &q.held))) return r;
  if ((r = buffer_get(*this, d, a.read_pointer_address, kPage, find, &q.held))) return r;
  uint64_t ring = a.ring_size;
  if (a.queue_type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL && d.model->target->gfx_target_version < 90000)
    ring /= 2;
  if ((r = buffer_get(*this, d, a.ring_base_address, ring, find, &q.held))) return r;
  if (a.queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE && a.queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL)
    return 0;  // only compute queues carry EOP and CWSR buffers
  const pm4::QueueBufferSizes s = pm4::queue_buffer_sizes(node_props(*d.model));
  if (a.eop_buffer_address) {
    if (a.eop_buffer_size != s.eop_size) return -EINVAL;
    if ((r = buffer_get(*this, d, a.eop_buffer_address, a.eop_buffer_size, find, &q.held))) return r;
  }
  if (a.ctl_stack_size != s.ctl_stack_size) return -EINVAL;
  if (a.ctx_save_restore_size < s.ctx_save_restore_size) return -EINVAL;  // at least, not equal
  // Linux 6.12: the CWSR area is one mapping of exactly ALIGN((cwsr + debug) * xcc, PAGE_SIZE).
  return buffer_get(*this, d, a.ctx_save_restore_address, s.cwsr_total, find, &q.held);
}

// set_queue_properties_from_user, in the kernel's order. A ring_size under the minimum (0
// included) is raised to it, and the caller sees the new value.
static int check_queue_args(kfd_ioctl_create_queue_args* a) {
  if ((a->queue_percentage & 0xff) > KFD_MAX_QUEUE_PERCENTAGE) return -EINVAL;
  if (a->queue_priority > KFD_MAX_QUEUE_PRIORITY) return -EINVAL;
  if (a->ring_base_address && !access_ok(a->ring_base_address, 8)) return -EFAULT;
  if (a->ring_size & (a->ring_size - 1)) return -EINVAL;  // a power of two, or 0
  if (a->ring_size < KFD_MIN_QUEUE_RING_SIZE) a->ring_size = KFD_MIN_QUEUE_RING_SIZE;
  if (!access_ok(a->read_pointer_address, 4) || !access_ok(a->write_pointer_address, 4))
    return -EFAULT;
  if (a->eop_buffer_address && !access_ok(a->eop_buffer_address, 4)) return -EFAULT;
  if (a->ctx_save_restore_address && !access_ok(a->ctx_save_restore_address, 4)) return -EFAULT;
  if (a->queue_type > KFD_IOC_QUEUE_TYPE_SDMA_XGMI) return -kENOTSUPP;
  return 0;
}

// allocate_sdma_queue (kfd_device_queue_manager.c): the lowest free slot of the type's bitmap;
// engine = slot % engines, XGMI engines numbered after the PCIe ones. ENOMEM when none is free.
static int assign_sdma(DeviceState& d, uint32_t type, Queue& q) {
  const TargetInfo& t = *d.model->target;
  const bool xgmi = type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI;
  const uint32_t engines = xgmi ? t.sdma_xgmi_engines : t.sdma_engines;
  std::vector<bool>& used = xgmi ? d.sdma_xgmi_used : d.sdma_used;
  if (used.empty()) used.assign(engines * kSdmaQueuesPerEngine, false);
  uint32_t id = 0;
  while (id < used.size() && used[id]) ++id;
  if (id == used.size()) return -ENOMEM;
  q.sdma_id = id;
  q.sdma_engine = (xgmi ? t.sdma_engines : 0) + id % engines;
  return 0;
}

// The engine that serves a queue: the CP, or its SDMA engine (started with its first queue).
static EngineThread& engine_for(Process& p, DeviceState& d, const Queue& q) {
  if (!is_sdma(q.type)) {
    if (!d.cp) d.cp = std::make_unique<CommandProcessor>(p, d);
    return *d.cp;
  }
  const TargetInfo& t = *d.model->target;
  if (d.sdma.empty()) d.sdma.resize(t.sdma_engines + t.sdma_xgmi_engines);
  auto& e = d.sdma[q.sdma_engine];
  if (!e) e = std::make_shared<SdmaEngine>(p, d, q.sdma_engine);
  return *e;
}

int Process::create_queue(kfd_ioctl_create_queue_args* a) {
  if (int r = check_queue_args(a)) return r;
  std::lock_guard<std::mutex> lk(mu);
  DeviceState* d = device(a->gpu_id);
  if (!d) return -EINVAL;
  if (!d->vm_acquired) return -ESRCH;  // kfd_bind_process_to_device failed
  if (queues_.size() >= kMaxQueues) return -ENOMEM;
  auto q = std::make_shared<Queue>();
  if (int r = validate_queue_buffers(*d, *a, *q)) return r;
  if (is_sdma(a->queue_type))
    if (int r = assign_sdma(*d, a->queue_type, *q)) return r;
  uint32_t slot = 0;
  while (slot < d->doorbell_used.size() && d->doorbell_used[slot]) ++slot;
  if (slot == d->doorbell_used.size()) return -ENOMEM;
  if (d->doorbell_arena == UINT64_MAX) d->doorbell_arena = Arena::get().allocate(kfd::uapi::kDoorbellSliceSize);
  uint32_t qid = 0;
  while (queues_.count(qid)) ++qid;
  q->id = qid;
  q->gpu_id = a->gpu_id;
  q->type = a->queue_type;
  q->ring_va = a->ring_base_address;
  q->ring_size = a->ring_size;
  q->rptr_va = a->read_pointer_address;
  q->wptr_va = a->write_pointer_address;
  q->doorbell_index = slot;
  q->percentage = a->queue_percentage & 0xff;
  q->priority = a->queue_priority;
  auto* db = reinterpret_cast<uint64_t*>(Arena::get().host(d->doorbell_arena)) + slot;
  __atomic_store_n(db, 0, __ATOMIC_RELEASE);
  for (auto& bo : q->held) ++bo->queue_refs;
  if (q->type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {  // the CP writes both (else it faults on them)
    const Bo& rp = *q->held[1];
    const Bo& ring = *q->held[kHeldRing];
    if (rp.writable()) q->rptr_host = reinterpret_cast<uint64_t*>(rp.host + (q->rptr_va - rp.va));
    if (ring.writable()) q->ring_host = ring.host + (q->ring_va - ring.va);
  }
  d->doorbell_used[slot] = true;
  if (is_sdma(q->type))
    (q->type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI ? d->sdma_xgmi_used : d->sdma_used)[q->sdma_id] = true;
  queues_[qid] = q;
  engine_for(*this, *d, *q).add_queue(q);
  auto& st = stats::counters();
  stats::bump(q->type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL ? st.queues_aql
              : q->type == KFD_IOC_QUEUE_TYPE_COMPUTE   ? st.queues_pm4
              : q->type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI ? st.queues_sdma_xgmi
                                                        : st.queues_sdma);
  a->queue_id = qid;
  a->doorbell_offset = kfd::uapi::mmap_offset(kfd::uapi::kMmapTypeDoorbell, a->gpu_id) |
                       uint64_t(slot) * kfd::uapi::kDoorbellSize;
  return 0;
}

int Process::destroy_queue(kfd_ioctl_destroy_queue_args* a) {
  std::shared_ptr<Queue> q;
  {
    std::lock_guard<std::mutex> lk(mu);
    auto it = queues_.find(a->queue_id);
    if (it == queues_.end()) return -EINVAL;
    q = it->second;
    queues_.erase(it);
    q->dead = true;
    DeviceState* d = device(q->gpu_id);
    if (d) {
      engine_for(*this, *d, *q).remove_queue(q);  // waits until the engine has let go of it
      d->doorbell_used[q->doorbell_index] = false;
      if (is_sdma(q->type))
        (q->type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI ? d->sdma_xgmi_used : d->sdma_used)[q->sdma_id] = false;
    }
    for (auto& bo : q->held) --bo->queue_refs;
  }
  return 0;
}

int Process::update_queue(kfd_ioctl_update_queue_args* a) {
  if ((a->queue_percentage & 0xff) > KFD_MAX_QUEUE_PERCENTAGE) return -EINVAL;
  if (a->queue_priority > KFD_MAX_QUEUE_PRIORITY) return -EINVAL;
  if (a->ring_base_address && !access_ok(a->ring_base_address, 8)) return -EFAULT;
  if (a->ring_size & (a->ring_size - 1)) return -EINVAL;
  if (a->ring_size < KFD_MIN_QUEUE_RING_SIZE) a->ring_size = KFD_MIN_QUEUE_RING_SIZE;
  std::lock_guard<std::mutex> lk(mu);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return -EFAULT;  // pqm_update_queue_properties: no such queue
  Queue& q = *it->second;
  std::lock_guard<std::mutex> qk(q.busy);
  if (a->ring_size != q.ring_size || a->ring_base_address != q.ring_va) {
    // The new ring is validated and held like the old one was; the old one is let go.
    std::vector<std::shared_ptr<Bo>> held;
    if (buffer_get(*this, *device(q.gpu_id), a->ring_base_address, a->ring_size,
                   &Process::bo_at_locked, &held))
      return -EINVAL;
    ++held[0]->queue_refs;
    --q.held[kHeldRing]->queue_refs;
    q.held[kHeldRing] = held[0];
    q.ring_va = a->ring_base_address;
    q.ring_size = a->ring_size;
    if (q.type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL)
      q.ring_host = held[0]->writable() ? held[0]->host + (q.ring_va - held[0]->va) : nullptr;
    q.quiet.store(false, std::memory_order_relaxed);
  }
  q.percentage = a->queue_percentage & 0xff;
  q.priority = a->queue_priority;
  return 0;
}

}  // namespace emu
