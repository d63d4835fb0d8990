// SPDX-License-Identifier: MIT
// Kernels for the rocm suite's HSA program, compiled device-only by clang-15 into a code object
// (no HIP headers: the work-item vocabulary comes from clang's builtins and the dispatch packet).
#include <stdint.h>

#define KERNEL extern "C" __attribute__((global))
#define DEVICE __attribute__((device))

DEVICE static inline unsigned group_size_x() {
  return reinterpret_cast<const uint16_t*>(__builtin_amdgcn_dispatch_ptr())[2];  // workgroup_size_x
}
DEVICE static inline unsigned global_id_x() {
  return __builtin_amdgcn_workgroup_id_x() * group_size_x() + __builtin_amdgcn_workitem_id_x();
}

// out[i] = a[i] * k + b[i]
KERNEL void scale_add(const int* a, const int* b, int* out, int k, unsigned n) {
  unsigned i = global_id_x();
  if (i < n) out[i] = a[i] * k + b[i];
}

// Per-workgroup sums through group memory (the packet's dynamic group segment holds the table).
KERNEL void group_sum(const unsigned* in, unsigned* sums) {
  extern __attribute__((shared)) unsigned part[];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  part[t] = in[global_id_x()];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  for (unsigned s = group_size_x() / 2; s > 0; s /= 2) {
    if (t < s) part[t] += part[t + s];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  }
  if (t == 0) sums[__builtin_amdgcn_workgroup_id_x()] = part[0];
}
