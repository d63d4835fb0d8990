// SPDX-License-Identifier: MIT
// Kernel dispatch when the emulator was built without its shader core: stop the queue and say so.
#include "emu/command_processor.h"
#include "pm4/queue_error.h"

namespace emu {

DispatchResult run_kernel_dispatch(Process&, DeviceState&, uint64_t, uint64_t, uint64_t) {
  DispatchResult r;
  r.error = pm4::queue_error::kIllegalInstruction;
  r.message = "kernel dispatch: this libkfdemu.so was built without the shader core (emu/shader)";
  return r;
}

DispatchResult run_register_dispatch(Process& p, DeviceState& d, const shader::RegisterDispatch&) {
  return run_kernel_dispatch(p, d, 0, 0, 0);
}

}  // namespace emu
