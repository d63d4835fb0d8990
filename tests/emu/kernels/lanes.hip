// SPDX-License-Identifier: MIT
// Corpus: cross-lane kernels: shuffles through ds_bpermute, ballot, and a wave-level reduction.
#include "kt.h"

KERNEL void shuffle_rotate(const int* in, int* out, int delta) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  int v = in[i];
  out[i] = shfl(v, (lane_id() + delta) & 63);
}

KERNEL void ballot_odd(const int* in, unsigned long long* out) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  uint64_t b = ballot(in[i] & 1);
  if (lane_id() == 0) out[i / 64] = b;
}

KERNEL void wave_sum(const int* in, int* out) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  int v = in[i];
  for (int o = 32; o > 0; o >>= 1) v += shfl(v, (lane_id() + o) & 63);
  if (lane_id() == 0) out[i / 64] = v;
}
