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

base::Status check_launch_slow(const KernelLaunch& l);
// InvalidArgument for a launch no engine can run (no kernel, a bad shape, arguments without a
// source). The test is inline (it runs on every launch); the message is built out of line.
inline base::Status check_launch(const KernelLaunch& l) {
  const bool ok = l.kernel_object != 0 && l.dims >= 1 && l.dims <= 3 && l.block[0] && l.block[1] && l.block[2] &&
                  l.grid[0] && l.grid[1] && l.grid[2] && (!l.kernarg_size || l.kernarg || l.write_kernarg);
  if (ok) [[likely]] return {};
  return check_launch_slow(l);
}
// Writes the launch's argument bytes at `dst` (kernarg_size bytes).
void write_kernarg_bytes(const KernelLaunch& l, uint8_t* dst);
inline void write_kernarg(const KernelLaunch& l, uint8_t* dst) {
  if (l.kernarg_size != 0) write_kernarg_bytes(l, dst);
}

}  // namespace queues
