// SPDX-License-Identifier: MIT
// Host + device test source linked into a non-PIE executable (the fat binary wrapper's pointer is
// then a plain address, not a relocation); hip_stubs.cpp stands in for the HIP runtime.
#include "kernel_test.h"

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct ihipStream_t* hipStream_t;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, hipStream_t);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" int __hipPopCallConfiguration(dim3*, dim3*, unsigned long*, hipStream_t*);

__device__ int kt_exe_counter;

extern "C" __global__ void exe_count(int* out) { out[KT_GID_X] = ++kt_exe_counter; }

int main() {
  exe_count<<<dim3(1), dim3(64), 0, nullptr>>>(nullptr);  // configuration push "fails": no launch
  return 0;
}
