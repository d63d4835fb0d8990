// SPDX-License-Identifier: MIT
// Corpus: LDS kernels: tree reduction with barriers, dynamic shared memory, LDS and global
// atomics (histogram).
#include "kt.h"

KERNEL void reduce_sum(const float* in, float* out, unsigned n) {
  __shared__ float part[256];
  unsigned t = tid_x(), i = bid_x() * bdim_x() + t;
  part[t] = i < n ? in[i] : 0.0f;
  syncthreads();
  for (unsigned s = bdim_x() / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    syncthreads();
  }
  if (t == 0) out[bid_x()] = part[0];
}

extern __shared__ unsigned dyn_lds[];

// Reverses each block's slice through dynamic LDS (size = blockDim * 4 given at launch).
KERNEL void reverse_dynamic(const unsigned* in, unsigned* out) {
  unsigned t = tid_x(), b = bdim_x(), base = bid_x() * b;
  dyn_lds[t] = in[base + t];
  syncthreads();
  out[base + t] = dyn_lds[b - 1 - t];
}

KERNEL void histogram(const unsigned char* data, unsigned n, unsigned* bins) {
  __shared__ unsigned local[256];
  unsigned t = tid_x();
  for (unsigned i = t; i < 256; i += bdim_x()) local[i] = 0;
  syncthreads();
  for (unsigned i = bid_x() * bdim_x() + t; i < n; i += bdim_x() * (grid_x() / bdim_x()))
    __atomic_fetch_add(&local[data[i]], 1u, __ATOMIC_RELAXED);
  syncthreads();
  for (unsigned i = t; i < 256; i += bdim_x())
    if (local[i]) __atomic_fetch_add(&bins[i], local[i], __ATOMIC_RELAXED);
}

KERNEL void global_atomics(unsigned* counter, int* minmax, unsigned long long* sum64) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
  __atomic_fetch_min(&minmax[0], (int)i - 1000, __ATOMIC_RELAXED);
  __atomic_fetch_max(&minmax[1], (int)i - 1000, __ATOMIC_RELAXED);
  __atomic_fetch_add(sum64, (unsigned long long)i << 20, __ATOMIC_RELAXED);
}
