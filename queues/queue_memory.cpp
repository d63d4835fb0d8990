// SPDX-License-Identifier: MIT
// Buffers every queue kind allocates alike: EOP and CWSR areas, amd_queue_t device fields.
#include "queues/queue_memory.h"

namespace queues {

mem::AllocRequest queue_buffer_request(mem::Heap heap, mem::Coherence c, size_t size, uint32_t gpu) {
  mem::AllocRequest r;
  r.heap = heap;
  r.coherence = c;
  r.size = size;
  r.owner_gpu = gpu;
  r.host_access = heap != mem::Heap::Vram;
  return r;
}

base::Status allocate_compute_buffers(mem::Context& ctx, const gpu::Device& gpu,
                                      const pm4::QueueBufferSizes& sizes, ComputeBuffers* out) {
  const uint32_t id = gpu.gpu_id;
  if (sizes.eop_size) {
    KFD_ASSIGN(out->eop, ctx.allocate(queue_buffer_request(mem::Heap::Vram, mem::Coherence::NonCoherent,
                                                           sizes.eop_size, id)));
  }
  // The context save area (tens of MiB on a large part: every wave slot's state) in system
  // memory, as libhsakmt allocates it (queues.c: allocate_exec_aligned_memory with DeviceLocal
  // false): in VRAM it took 60 MiB of the device's memory per queue, and hipMemGetInfo's free
  // memory dropped on a process's first kernel. The EOP buffer stays in VRAM (libhsakmt: device-local).
  if (sizes.cwsr) {
    KFD_ASSIGN(out->cwsr, ctx.allocate(queue_buffer_request(mem::Heap::Gtt, mem::Coherence::NonCoherent,
                                                            sizes.cwsr_total, id)));
  }
  return {};
}

void free_compute_buffers(mem::Context& ctx, ComputeBuffers* b) {
  for (void** p : {&b->eop, &b->cwsr}) {
    if (*p) (void)ctx.free(*p);
    *p = nullptr;
  }
}

void init_amd_queue_device_fields(pm4::aql::AmdQueue& q, const gpu::Device& gpu) {
  const auto& p = gpu.props();
  q.group_segment_aperture_base_hi = uint32_t(gpu.apertures.lds_base >> 32);
  q.private_segment_aperture_base_hi = uint32_t(gpu.apertures.scratch_base >> 32);
  const uint32_t cus = p.simd_per_cu ? p.simd_count / p.simd_per_cu : 1;
  q.max_cu_id = cus ? cus - 1 : 0;
  const uint32_t waves = p.max_waves_per_simd * p.simd_per_cu;
  q.max_wave_id = waves ? waves - 1 : 0;
}

}  // namespace queues
