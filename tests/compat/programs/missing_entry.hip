// SPDX-License-Identifier: MIT
// Calls HIP 5.2 entry points kfdrt does not implement: each must fail (never succeed silently) and name itself once on stderr.
// Built by Debian's hipcc and run against kfdrt's libamdhip64.so.5; the runner checks stderr.
#include <hip/hip_runtime.h>

#include "check.h"

int main() {
  hipGraph_t graph = nullptr;
  for (int i = 0; i < 2; ++i) {  // the second call fails the same way but is not reported again
    CHECK(hipGraphCreate(&graph, 0) == hipErrorNotSupported);
    CHECK(hipGetLastError() == hipErrorNotSupported);
  }
  // A C++ entry point of HIP 5.2 (exported under its C++ name) reaches kfdrt's own: a surface
  // of no array is refused as an invalid value.
  hipSurfaceObject_t surface = nullptr;
  hipResourceDesc desc = {};
  CHECK(hipCreateSurfaceObject(&surface, &desc) == hipErrorInvalidValue);
  CHECK(hipGetLastError() == hipErrorInvalidValue);
  // One that returns a pointer: NULL.
  CHECK(hipKernelNameRef(nullptr) == nullptr);
  // The runtime still works after them.
  int* d = nullptr;
  CHECK_HIP(hipMalloc(&d, 64));
  CHECK_HIP(hipMemset(d, 0, 64));
  CHECK_HIP(hipFree(d));
  return check::summary();
}
