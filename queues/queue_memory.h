// SPDX-License-Identifier: MIT
// Buffers every queue kind allocates alike: kernel-validated rings and pointer pages, EOP and CWSR areas, amd_queue_t device fields.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/result.h"
#include "memory/context.h"
#include "pm4/aql.h"
#include "pm4/queue_sizes.h"

namespace queues {

// An allocation of `size` bytes owned by `gpu` (VRAM is device-only, other heaps host-visible).
mem::AllocRequest queue_buffer_request(mem::Heap heap, mem::Coherence c, size_t size, uint32_t gpu);

// The EOP and CWSR buffers of a compute queue (AQL or PM4), sized by pm4::queue_buffer_sizes;
// null when the node has none. free_compute_buffers frees what was allocated (idempotent).
struct ComputeBuffers {
  void* eop = nullptr;
  void* cwsr = nullptr;
};
base::Status allocate_compute_buffers(mem::Context& ctx, const mem::Gpu& gpu,
                                      const pm4::QueueBufferSizes& sizes, ComputeBuffers* out);
void free_compute_buffers(mem::Context& ctx, ComputeBuffers* b);

// The amd_queue_t fields that describe the device rather than the queue: aperture bases and the
// largest CU and wave ids (ROCr AqlQueue's constructor).
void init_amd_queue_device_fields(pm4::aql::AmdQueue& q, const mem::Gpu& gpu);

}  // namespace queues
