// SPDX-License-Identifier: MIT
// Test kernel: reads grid and block sizes, so the compiler keeps its hidden (implicit) arguments.
#include "kernel_test.h"

extern "C" __global__ void dims(unsigned* out) {
  if (KT_GID_X == 0) {
    out[0] = KT_BDIM_X;
    out[1] = KT_BDIM_Y;
    out[2] = KT_GDIM_X;
    out[3] = __builtin_amdgcn_grid_size_y();
    // The implicit argument block itself (global offsets on v4, block counts on v5).
    const unsigned* implicit = (const unsigned*)__builtin_amdgcn_implicitarg_ptr();
    out[4] = implicit[0];
  }
}
