// SPDX-License-Identifier: MIT
// Cooperative launches: what they share with the occupancy API.
#pragma once

#include "api/hip/code.h"

namespace hip {

// Blocks of `block` threads of kernel `k` one compute unit of `dev` holds, with `dyn` bytes of
// dynamic LDS (occupancy.cpp; hipOccupancyMaxActiveBlocksPerMultiprocessor answers it).
int max_blocks_per_cu(Device& dev, const KernelInfo& k, int block, size_t dyn);

}  // namespace hip
