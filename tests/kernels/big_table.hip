// SPDX-License-Identifier: MIT
// Benchmark kernel object of about 1 MiB: a 1 MiB constant table, 4096 relocated pointers into
// it, and 64 kernels, so loading exercises copying, relocation and symbol lookup at scale.
#include "kernel_test.h"

#define KT_R8(x) (x), (x) + 1, (x) + 2, (x) + 3, (x) + 4, (x) + 5, (x) + 6, (x) + 7
#define KT_R64(x) KT_R8(x), KT_R8((x) + 8), KT_R8((x) + 16), KT_R8((x) + 24), KT_R8((x) + 32), \
                  KT_R8((x) + 40), KT_R8((x) + 48), KT_R8((x) + 56)
#define KT_R512(x) KT_R64(x), KT_R64((x) + 64), KT_R64((x) + 128), KT_R64((x) + 192), \
                   KT_R64((x) + 256), KT_R64((x) + 320), KT_R64((x) + 384), KT_R64((x) + 448)
#define KT_R4K(x) KT_R512(x), KT_R512((x) + 512), KT_R512((x) + 1024), KT_R512((x) + 1536), \
                  KT_R512((x) + 2048), KT_R512((x) + 2560), KT_R512((x) + 3072), KT_R512((x) + 3584)
#define KT_R32K(x) KT_R4K(x), KT_R4K((x) + 4096), KT_R4K((x) + 8192), KT_R4K((x) + 12288), \
                   KT_R4K((x) + 16384), KT_R4K((x) + 20480), KT_R4K((x) + 24576), KT_R4K((x) + 28672)
#define KT_R256K(x) KT_R32K(x), KT_R32K((x) + 32768), KT_R32K((x) + 65536), KT_R32K((x) + 98304), \
                    KT_R32K((x) + 131072), KT_R32K((x) + 163840), KT_R32K((x) + 196608), KT_R32K((x) + 229376)

__device__ const int kt_big_table[262144] = {KT_R256K(7)};

// 4096 pointers, each needing an R_AMDGPU_RELATIVE64 relocation at load time.
#define KT_P8(x) &kt_big_table[(x) * 64], &kt_big_table[(x) * 64 + 8], &kt_big_table[(x) * 64 + 16], \
                 &kt_big_table[(x) * 64 + 24], &kt_big_table[(x) * 64 + 32], &kt_big_table[(x) * 64 + 40], \
                 &kt_big_table[(x) * 64 + 48], &kt_big_table[(x) * 64 + 56]
#define KT_P64(x) KT_P8((x) * 8), KT_P8((x) * 8 + 1), KT_P8((x) * 8 + 2), KT_P8((x) * 8 + 3), \
                  KT_P8((x) * 8 + 4), KT_P8((x) * 8 + 5), KT_P8((x) * 8 + 6), KT_P8((x) * 8 + 7)
#define KT_P512(x) KT_P64((x) * 8), KT_P64((x) * 8 + 1), KT_P64((x) * 8 + 2), KT_P64((x) * 8 + 3), \
                   KT_P64((x) * 8 + 4), KT_P64((x) * 8 + 5), KT_P64((x) * 8 + 6), KT_P64((x) * 8 + 7)
__device__ const int* kt_big_ptrs[4096] = {KT_P512(0), KT_P512(1), KT_P512(2), KT_P512(3),
                                           KT_P512(4), KT_P512(5), KT_P512(6), KT_P512(7)};

#define KT_KERNEL(n)                                                        \
  extern "C" __global__ void big_kernel_##n(int* out, unsigned i) {         \
    out[KT_GID_X] = kt_big_ptrs[(i + n) & 4095][KT_TID_X & 7] + n;          \
  }
#define KT_K8(a) KT_KERNEL(a##0) KT_KERNEL(a##1) KT_KERNEL(a##2) KT_KERNEL(a##3) \
                 KT_KERNEL(a##4) KT_KERNEL(a##5) KT_KERNEL(a##6) KT_KERNEL(a##7)
KT_K8(1) KT_K8(2) KT_K8(3) KT_K8(4) KT_K8(5) KT_K8(6) KT_K8(7) KT_K8(8)
