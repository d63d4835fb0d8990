// SPDX-License-Identifier: MIT
// Corpus: element-wise kernels (vector add, saxpy) and 2D/3D grids with partial workgroups.
#include "kt.h"

KERNEL void vadd(const float* a, const float* b, float* c, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i < n) c[i] = a[i] + b[i];
}

KERNEL void saxpy(float alpha, const float* x, float* y, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i < n) y[i] = alpha * x[i] + y[i];
}

// Every work-item of a 2D grid writes its linear id, so holes or double writes show up.
KERNEL void grid2d(unsigned* out, unsigned width, unsigned height) {
  unsigned x = bid_x() * bdim_x() + tid_x(), y = bid_y() * bdim_y() + tid_y();
  if (x < width && y < height) out[y * width + x] = (y << 16) | x;
}

KERNEL void grid3d(unsigned* out, unsigned nx, unsigned ny, unsigned nz) {
  unsigned x = bid_x() * bdim_x() + tid_x(), y = bid_y() * bdim_y() + tid_y();
  unsigned z = bid_z() * bdim_z() + tid_z();
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z + 1;
}

// No bounds check: the grid itself is partial (grid not a multiple of the block).
KERNEL void partial_fill(unsigned* out) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  out[i] = i * 3 + 1;
}

KERNEL void oob_write(unsigned* out, unsigned index) { if (tid_x() == 0) out[index] = 42; }
