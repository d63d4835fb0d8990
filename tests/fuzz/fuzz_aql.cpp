// SPDX-License-Identifier: MIT
// libFuzzer target: AQL packets (kernel dispatch, barriers, vendor PM4-IB) on an AQL queue, on the emulated GPU.
#include <linux/kfd_ioctl.h>

#include "tests/fuzz/engine_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::run_queue_input(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, data, size);
  return 0;
}
