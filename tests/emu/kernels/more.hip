// SPDX-License-Identifier: MIT
// Corpus: a wider spread of device-library math (f32 and f64), half precision, conversions,
// and char/short data, to exercise more of the instruction set.
#include "kt.h"

extern "C" __device__ float __ocml_tan_f32(float);
extern "C" __device__ float __ocml_pow_f32(float, float);
extern "C" __device__ float __ocml_atan2_f32(float, float);
extern "C" __device__ float __ocml_erf_f32(float);
extern "C" __device__ float __ocml_fmod_f32(float, float);
extern "C" __device__ float __ocml_cbrt_f32(float);
extern "C" __device__ float __ocml_tanh_f32(float);
extern "C" __device__ double __ocml_pow_f64(double, double);
extern "C" __device__ double __ocml_cos_f64(double);
extern "C" __device__ double __ocml_atan_f64(double);
extern "C" __device__ double __ocml_log2_f64(double);

KERNEL void math_more_f32(const float* x, float* out, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  float v = x[i];
  out[8 * i + 0] = __ocml_tan_f32(v);
  out[8 * i + 1] = __ocml_pow_f32(v + 2.0f, 1.7f);
  out[8 * i + 2] = __ocml_atan2_f32(v, 0.75f);
  out[8 * i + 3] = __ocml_erf_f32(v);
  out[8 * i + 4] = __ocml_fmod_f32(v * 13.0f, 1.25f);
  out[8 * i + 5] = __ocml_cbrt_f32(v);
  out[8 * i + 6] = __ocml_tanh_f32(v);
  out[8 * i + 7] = (float)(int)(v * 1000.0f) + (float)(unsigned)(v * v * 1000.0f);
}

KERNEL void math_more_f64(const double* x, double* out, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  double v = x[i];
  out[4 * i + 0] = __ocml_pow_f64(v + 2.0, 1.3);
  out[4 * i + 1] = __ocml_cos_f64(v);
  out[4 * i + 2] = __ocml_atan_f64(v);
  out[4 * i + 3] = __ocml_log2_f64(v + 2.0) + (double)(long long)(v * 1e6) / (v - 7.0);
}

KERNEL void half_ops(const _Float16* a, const _Float16* b, _Float16* out, float* outf, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  _Float16 x = a[i], y = b[i];
  out[2 * i + 0] = x * y + x;
  out[2 * i + 1] = x > y ? x - y : y / (x + (_Float16)4.0f);
  outf[i] = (float)x * 0.5f + (float)y;
}

KERNEL void bytes_shorts(const signed char* c, const short* s, int* out, unsigned char* outc, unsigned n) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  out[i] = c[i] * 3 + s[i] - (s[i] >> 2);
  outc[i] = (unsigned char)(c[i] + s[i]);
}
