// SPDX-License-Identifier: MIT
// Corpus: every ocml function of ocml_list.h in f32 and f64 (one result slot of 64 lanes each):
// wide coverage of the arithmetic, conversion and classification instructions the libraries use.
#include "kt.h"
#include "ocml_list.h"

#define DECL1(name, ref) extern "C" __device__ float __ocml_##name##_f32(float); \
                         extern "C" __device__ double __ocml_##name##_f64(double);
#define DECL2(name, ref) extern "C" __device__ float __ocml_##name##_f32(float, float); \
                         extern "C" __device__ double __ocml_##name##_f64(double, double);
OCML_UNARY(DECL1)
OCML_BINARY(DECL2)

#define CALL1_F32(name, ref) out[k++ * 64 + i] = __ocml_##name##_f32(x);
#define CALL2_F32(name, ref) out[k++ * 64 + i] = __ocml_##name##_f32(x, y);
#define CALL1_F64(name, ref) out[k++ * 64 + i] = __ocml_##name##_f64(x);
#define CALL2_F64(name, ref) out[k++ * 64 + i] = __ocml_##name##_f64(x, y);

KERNEL void ocml_f32(const float* in, float* out) {
  unsigned i = tid_x(), k = 0;
  float x = in[i], y = in[i ^ 1];
  OCML_UNARY(CALL1_F32)
  OCML_BINARY(CALL2_F32)
}

KERNEL void ocml_f64(const double* in, double* out) {
  unsigned i = tid_x(), k = 0;
  double x = in[i], y = in[i ^ 1];
  OCML_UNARY(CALL1_F64)
  OCML_BINARY(CALL2_F64)
}
