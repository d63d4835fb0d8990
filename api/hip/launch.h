// SPDX-License-Identifier: MIT
// The launch path shared by hipLaunchKernel (<<<>>>) and hipModuleLaunchKernel.
#pragma once

#include "api/hip/code.h"

namespace hip {

// Explicit arguments: one pointer per argument (kernelParams, the <<<>>> stub's array), or one
// buffer laid out at the metadata's offsets (hipModuleLaunchKernel's `extra`).
struct ArgSource {
  void** params = nullptr;
  const void* buffer = nullptr;
  size_t buffer_size = 0;
  uint64_t multigrid_sync = 0;  // hidden_multigrid_sync_arg: 1 for a cooperative launch (cooperative.cpp)
};

// Checks the configuration, lays out the kernel arguments and submits the dispatch. `grid` is
// in blocks.
hipError_t launch(Function* f, dim3 grid, dim3 block, size_t shared, hipStream_t stream,
                  const ArgSource& args, const char* api);
// The same with the grid in work-items (hipExtModuleLaunchKernel): a size that is not a multiple
// of the block size ends in a partial block, as in an AQL packet.
hipError_t launch_items(Function* f, const uint32_t items[3], dim3 block, size_t shared,
                        hipStream_t stream, const ArgSource& args, const char* api);

// hipModuleLaunchKernel's `extra`: HIP_LAUNCH_PARAM_BUFFER_POINTER / _SIZE pairs up to _END.
hipError_t parse_launch_extra(void** extra, ArgSource* args);

hipError_t kernel_attributes(Function* f, hipFuncAttributes* attr);

}  // namespace hip
