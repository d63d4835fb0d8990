// SPDX-License-Identifier: MIT
// Host + device test source: built into a shared library that embeds a HIP fat binary
// (.hip_fatbin and the .hipFatBinSegment wrapper), with just enough host declarations for clang.
#include "kernel_test.h"

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct ihipStream_t* hipStream_t;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, hipStream_t);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" int __hipPopCallConfiguration(dim3*, dim3*, unsigned long*, hipStream_t*);

extern "C" __global__ void host_scale(float* data, float factor, unsigned n) {
  unsigned i = KT_GID_X;
  if (i < n) data[i] *= factor;
}

extern "C" void launch_host_scale(float* data, float factor, unsigned n) {
  host_scale<<<dim3((n + 63) / 64), dim3(64), 0, nullptr>>>(data, factor, n);
}
