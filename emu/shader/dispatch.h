// SPDX-License-Identifier: MIT
// Dispatch setup: what a dispatch launches (from an AQL packet or PM4 registers), and each wave's initial state.
#pragma once

#include <memory>
#include <vector>

#include "emu/shader/wave.h"
#include "pm4/family.h"

namespace emu::shader {

// The dispatch's scratch: for AQL as a gfx9 CP reads it from amd_queue_t (pm4/aql.h), for PM4
// from COMPUTE_TMPRING_SIZE and the V# the runtime put in USER_DATA_0..3.
struct QueueScratch {
  uint32_t vsharp[4] = {};  // scratch_resource_descriptor: the private segment buffer V#
  uint64_t base = 0;        // the V#'s base: the queue's backing store
  uint64_t flat_base = 0;   // flat scratch base: Dispatch::private_base + backing location (AQL)
  uint64_t wave_bytes = 0;  // COMPUTE_TMPRING_SIZE.WAVESIZE in bytes: one slot
  uint32_t waves = 0;       // COMPUTE_TMPRING_SIZE.WAVES: slots
};

// What the shader core launches: one form for both front ends (an AQL packet with its kernel
// descriptor and queue, or PM4 COMPUTE_* registers), and one wave set-up from it.
// layout: pm4/aql.h (packet, amd_queue_t), pm4/kernel_descriptor.h (AMDGPUUsage "Kernel Descriptor").
struct Launch {
  Dispatch d;                     // AQL: packet, queue, dispatch id (zero for a PM4 dispatch)
  Target target = Target::gfx90a;
  const pm4::Family* family = nullptr;  // per-target facts (work-item id packing, flat scratch)
  uint16_t wg[3] = {1, 1, 1};
  uint32_t grid[3] = {1, 1, 1};   // work-items per dimension, counted from workgroup 0
  uint32_t start[3] = {};         // the first workgroup's id (PM4 COMPUTE_START_*)
  uint32_t groups[3] = {1, 1, 1}; // workgroups per dimension from `start`
  uint64_t total_groups = 0;
  uint64_t entry = 0;
  uint64_t kernel_object = 0;     // AQL: the kernel descriptor (0 for a PM4 dispatch)
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint32_t mode = 0;              // initial MODE register (RSRC1 float modes, DX10_CLAMP, IEEE)
  uint32_t user_sgpr[16] = {};    // s0.. as the CP loads them
  unsigned user_sgprs = 0;
  uint32_t lds_bytes = 0;
  uint32_t private_per_lane = 0;  // AQL: max(descriptor, packet) private segment size, dword-aligned
  bool needs_scratch = false;     // the dispatch uses the private segment
  unsigned group_waves = 1;       // waves of a whole workgroup
  QueueScratch scratch;
  unsigned max_workers = ~0u;     // workgroups that may run at once (scratch slots)
  uint64_t resident = ~0ull;      // workgroups resident at once (compute units and scratch)
  const std::vector<uint32_t>* cus = nullptr;  // Dispatch::cus: workgroup i runs on (*cus)[i % size]
};

// Workgroups of the dispatch `cus` compute units hold at once, as the SPI places them: wave slots
// per SIMD (the family's), VGPRs from RSRC1, SGPRs, LDS, and at most kMaxGroupsPerCu per CU
// (the limit kfdrt's runtime reports as maxBlocksPerMultiProcessor). `cus` 0: no limit.
inline constexpr unsigned kMaxGroupsPerCu = 32;
uint64_t resident_groups(const Launch& l, unsigned cus);

// Reads and validates the packet, descriptor and the queue's scratch; a non-Ok outcome explains
// what is wrong (ScratchTooSmall names the bytes needed and available).
Outcome read_launch(const Dispatch& d, Target t, Memory& mem, Launch& l);
// The same from COMPUTE_* registers (a PM4 DISPATCH_DIRECT).
Outcome read_launch(const RegisterDispatch& r, Target t, Launch& l);

// The kernel's name from the code object loaded around its descriptor (its dynamic symbol
// table: "<name>.kd" at kernel_object), else "kernel at 0x<entry>".
std::string kernel_name(Memory& mem, uint64_t kernel_object, uint64_t entry);
// After a dispatch under the memory model: names the kernel in `r` when there is something to
// report, and prints the stale loads (config report_stale) and the cache instructions (trace).
void report_memory(GpuCache& cache, Memory& mem, const Launch& l, MemoryReport& r);

// Buffers a worker reuses across the workgroups it runs.
struct WorkerStorage {
  uint64_t serial = 0;  // the dispatch (DispatchCtx::epoch) its caches and scratch views are of
  Group group;          // the workgroup it holds
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
