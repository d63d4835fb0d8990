// SPDX-License-Identifier: MIT
// A second host + device translation unit, linked with host_launch.hip into one shared library so
// that .hip_fatbin holds two bundles and .hipFatBinSegment two wrappers.
#include "kernel_test.h"

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct ihipStream_t* hipStream_t;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, hipStream_t);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" int __hipPopCallConfiguration(dim3*, dim3*, unsigned long*, hipStream_t*);

extern "C" __global__ void host_offset(int* data, int delta, unsigned n) {
  unsigned i = KT_GID_X;
  if (i < n) data[i] += delta;
}

extern "C" void launch_host_offset(int* data, int delta, unsigned n) {
  host_offset<<<dim3((n + 63) / 64), dim3(64), 0, nullptr>>>(data, delta, n);
}
