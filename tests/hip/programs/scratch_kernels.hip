// SPDX-License-Identifier: MIT
// Kernels with private (scratch) memory for hipModuleLaunchKernel: a large private array and a
// recursive function (dynamic stack). Their results have host-side formulas in scratch_test.hip.
#include <hip/hip_runtime.h>

// A 2 KiB private array indexed by data: it lives in scratch.
extern "C" __global__ void module_private_array(const unsigned* idx, unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  volatile unsigned arr[512];
  for (unsigned k = 0; k < 512; ++k) arr[k] = k * 3 + i;
  unsigned s = 0;
  for (unsigned k = 0; k < 8; ++k) s += arr[(idx[i] + k * 61) % 512];
  out[i] = s;
}

__device__ __attribute__((noinline)) unsigned module_fib(unsigned d, unsigned salt) {
  return d < 2 ? d + salt : module_fib(d - 1, salt) + module_fib(d - 2, salt * 3 + 1);
}

// Tree recursion: clang cannot turn it into a loop, so the kernel uses a dynamic stack.
extern "C" __global__ void module_recurse(unsigned* out, unsigned depth, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = module_fib(depth, i);
}
