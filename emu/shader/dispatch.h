// SPDX-License-Identifier: MIT
// Dispatch setup: the AQL packet and kernel descriptor fields, and each wave's initial state.
#pragma once

#include <memory>
#include <vector>

#include "emu/shader/wave.h"

namespace emu::shader {

// What the shader core needs from the dispatch packet and kernel descriptor.
// layout: REFERENCE §2 (packet) and §3 (AMDGPUUsage "Kernel Descriptor").
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
  uint32_t private_per_lane = 0; // max(descriptor, packet) private segment size, 16-aligned
};

// Reads and validates the packet and descriptor; a non-Ok outcome explains what is wrong.
Outcome read_launch(const Dispatch& d, Target t, Memory& mem, Launch& l);

// Buffers a worker reuses across the workgroups it runs.
struct WorkerStorage {
  std::vector<Wave> waves;
  std::unique_ptr<uint32_t[][64]> vregs;
  size_t vregs_waves = 0;
  std::vector<uint8_t> lds;
  std::vector<uint8_t> scratch;
};

// Prepares workgroup `index` (x fastest) in `g`: waves, SGPRs, VGPRs, EXEC, LDS, scratch.
void setup_group(const Launch& l, DispatchCtx& ctx, uint64_t index, WorkerStorage& st, Group& g);

}  // namespace emu::shader
