// SPDX-License-Identifier: MIT
// Kernel dispatch when the emulator was built without its shader core: stop the queue and say so.
#include "emu/command_processor.h"
#include "pm4/queue_error.h"

namespace emu {

namespace {
DispatchResult missing() {
  DispatchResult r;
  r.error = pm4::queue_error::kIllegalInstruction;
  r.message = "kernel dispatch: this libkfdemu.so was built without the shader core (emu/shader)";
  return r;
}
}  // namespace

DispatchResult run_kernel_dispatch(Process&, DeviceState&, const Queue&, uint64_t, uint64_t, uint64_t, LookupCache*) {
  return missing();
}

void prepare_dispatch(DeviceState&) {}

DispatchResult run_register_dispatch(Process&, DeviceState&, const shader::RegisterDispatch&) {
  return missing();
}

}  // namespace emu
