// SPDX-License-Identifier: MIT
// Corpus: private memory: a large per-thread array indexed dynamically (lives in scratch).
#include "kt.h"

KERNEL void private_array(const unsigned* idx, unsigned* out, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  volatile unsigned arr[300];
  for (unsigned k = 0; k < 300; ++k) arr[k] = k * 7 + i;
  unsigned s = 0;
  for (unsigned k = 0; k < 16; ++k) s += arr[(idx[i] + k * 13) % 300];
  if (i < n) out[i] = s;
}
