// SPDX-License-Identifier: MIT
// libFuzzer target: SDMA v4 packets on an SDMA queue (emu/sdma_engine.cpp), on the emulated GPU.
#include <linux/kfd_ioctl.h>

#include "tests/fuzz/engine_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::run_queue_input(KFD_IOC_QUEUE_TYPE_SDMA, data, size);
  return 0;
}
