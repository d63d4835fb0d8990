// SPDX-License-Identifier: MIT
// The two ManagedQueue backends (internal to queues/): how each is made, and the checks they share.
#pragma once

#include <cstring>
#include <memory>

#include "queues/managed_queue.h"

namespace queues {

base::Result<std::unique_ptr<ManagedQueue>> make_aql_managed(const gpu::Device& gpu, mem::Context& memory,
                                                             EventManager& events, ScratchWindows& scratch,
                                                             const ManagedQueueOptions& opts);
base::Result<std::unique_ptr<ManagedQueue>> make_pm4_managed(const gpu::Device& gpu, mem::Context& memory,
                                                             EventManager& events, ScratchWindows& scratch,
                                                             const ManagedQueueOptions& opts);

// InvalidArgument for a launch no engine can run (no kernel, a bad shape, arguments without a source).
base::Status check_launch(const KernelLaunch& l);
// Writes the launch's argument bytes at `dst` (kernarg_size bytes).
void write_kernarg(const KernelLaunch& l, uint8_t* dst);

}  // namespace queues
