// SPDX-License-Identifier: MIT
// Corpus: arithmetic through the device libraries and in double precision; 64-bit integers.
#include "kt.h"

KERNEL void transcend_f32(const float* x, float* out, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  float v = x[i];
  out[4 * i + 0] = __ocml_sin_f32(v);
  out[4 * i + 1] = __ocml_exp_f32(v);
  out[4 * i + 2] = __ocml_log_f32(v + 2.0f);
  out[4 * i + 3] = __ocml_sqrt_f32(v + 2.0f);
}

KERNEL void divide_f32(const float* a, const float* b, float* out, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i < n) out[i] = a[i] / b[i];
}

KERNEL void double_ops(const double* x, double* out, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  double v = x[i];
  out[4 * i + 0] = v * v + 1.0 / (v + 3.0);
  out[4 * i + 1] = __ocml_sqrt_f64(v + 3.0);
  out[4 * i + 2] = __ocml_exp_f64(v * 0.5);
  out[4 * i + 3] = __ocml_sin_f64(v);
}

KERNEL void int64_divmod(const long long* a, const long long* b, long long* q, long long* r, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i < n) { q[i] = a[i] / b[i]; r[i] = a[i] % b[i]; }
}

KERNEL void u64_div(const unsigned long long* a, const unsigned long long* b, unsigned long long* q, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i < n) q[i] = a[i] / b[i];
}

KERNEL void int32_ops(const int* a, const int* b, int* out, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  int x = a[i], y = b[i];
  out[4 * i + 0] = x / (y | 1);
  out[4 * i + 1] = (int)((unsigned)x % ((unsigned)y | 1u));
  out[4 * i + 2] = (x * y) ^ (x >> 3);
  out[4 * i + 3] = __builtin_popcount(x) + __builtin_clz((unsigned)y | 1u);
}
