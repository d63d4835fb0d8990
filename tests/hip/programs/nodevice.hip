// SPDX-License-Identifier: MIT
// Run with HIP_VISIBLE_DEVICES set to hide every GPU: every call reports hipErrorNoDevice, but
// hipSetDevice, for which any index is then an invalid device (as in HIP 5.2).
#include <hip/hip_runtime.h>

#include "check.h"

int main() {
  int n = -1;
  CHECK_ERR(hipGetDeviceCount(&n), hipErrorNoDevice);
  CHECK(n == 0);
  void* p = nullptr;
  CHECK_ERR(hipMalloc(&p, 16), hipErrorNoDevice);
  CHECK_ERR(hipSetDevice(0), hipErrorInvalidDevice);
  CHECK_ERR(hipDeviceSynchronize(), hipErrorNoDevice);
  CHECK_ERR(hipGetLastError(), hipErrorNoDevice);
  return check::summary();
}
