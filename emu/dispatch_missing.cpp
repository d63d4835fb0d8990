// SPDX-License-Identifier: MIT
// Kernel dispatch when the emulator was built without its shader core: stop the queue and say so.
#include "emu/command_processor.h"

namespace emu {

DispatchResult run_kernel_dispatch(Process&, DeviceState&, uint64_t, uint64_t, uint64_t) {
  DispatchResult r;
  r.error = queues::aql::kQueueErrorUnimplemented;
  r.message = "kernel dispatch: this libkfdemu.so was built without the shader core (emu/shader)";
  return r;
}

}  // namespace emu
