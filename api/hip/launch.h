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
};

// Checks the configuration, lays out the kernel arguments and submits the dispatch. `grid` is
// in blocks.
hipError_t launch(Function* f, dim3 grid, dim3 block, size_t shared, hipStream_t stream,
                  const ArgSource& args, const char* api);

hipError_t kernel_attributes(Function* f, hipFuncAttributes* attr);

}  // namespace hip
