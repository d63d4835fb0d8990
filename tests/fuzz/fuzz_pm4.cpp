// SPDX-License-Identifier: MIT
// libFuzzer target: PM4 type-3 packets and indirect buffers on a PM4 compute queue (emu/cp_pm4.cpp), on the emulated GPU.
#include <linux/kfd_ioctl.h>

#include "tests/fuzz/engine_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::run_queue_input(KFD_IOC_QUEUE_TYPE_COMPUTE, data, size);
  return 0;
}
