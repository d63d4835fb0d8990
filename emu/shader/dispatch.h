// SPDX-License-Identifier: MIT
// Dispatch setup: the AQL packet and kernel descriptor fields, and each wave's initial state.
#pragma once

#include <memory>
#include <vector>

#include "emu/shader/wave.h"

namespace emu::shader {

// The queue's scratch as a gfx9 CP reads it from amd_queue_t (REFERENCE §2).
struct QueueScratch {
  uint32_t vsharp[4] = {};  // scratch_resource_descriptor: the private segment buffer V#
  uint64_t base = 0;        // the V#'s base: the queue's backing store
  uint64_t flat_base = 0;   // flat scratch init: Dispatch::private_base + backing location
  uint64_t wave_bytes = 0;  // COMPUTE_TMPRING_SIZE.WAVESIZE * 1 KiB: one slot
  uint32_t waves = 0;       // COMPUTE_TMPRING_SIZE.WAVES: slots
};

// What the shader core needs from the dispatch packet, kernel descriptor and queue.
// layout: REFERENCE §2 (packet, amd_queue_t) and §3 (AMDGPUUsage "Kernel Descriptor").
struct Launch {
  Dispatch d;
  Target target = Target::gfx90a;
  uint16_t wg[3] = {1, 1, 1};
  uint32_t grid[3] = {1, 1, 1};
  uint32_t groups[3] = {1, 1, 1};
  uint64_t total_groups = 0;
  uint64_t kernarg = 0;
  uint64_t entry = 0;
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint16_t props = 0;
  uint32_t lds_bytes = 0;        // descriptor's fixed size + packet's group_segment_size
  uint32_t private_per_lane = 0; // max(descriptor, packet) private segment size, dword-aligned
  bool needs_scratch = false;    // private_per_lane > 0 or a dynamic stack
  unsigned group_waves = 1;      // waves of a whole workgroup
  QueueScratch scratch;
  unsigned max_workers = ~0u;    // workgroups that may run at once (scratch slots)
};

// Reads and validates the packet, descriptor and the queue's scratch; a non-Ok outcome explains
// what is wrong (ScratchTooSmall names the bytes needed and available).
Outcome read_launch(const Dispatch& d, Target t, Memory& mem, Launch& l);

// Buffers a worker reuses across the workgroups it runs.
struct WorkerStorage {
  std::vector<Wave> waves;
  std::unique_ptr<uint32_t[][64]> vregs;
  size_t vregs_waves = 0;
  std::vector<uint8_t> lds;
  std::vector<uint8_t*> slot_host;  // host view of the worker's scratch slots (this dispatch)
};

// Worker `worker` owns scratch slots [worker * group_waves, (worker + 1) * group_waves): binds
// their host views once per dispatch, before its first workgroup (nullptr when not mapped).
void bind_scratch_slots(const Launch& l, Memory& mem, unsigned worker, WorkerStorage& st);

// Prepares workgroup `index` (x fastest) in `g` on worker `worker`: waves, SGPRs, VGPRs, EXEC,
// LDS and scratch slots.
void setup_group(const Launch& l, DispatchCtx& ctx, unsigned worker, uint64_t index,
                 WorkerStorage& st, Group& g);

}  // namespace emu::shader
