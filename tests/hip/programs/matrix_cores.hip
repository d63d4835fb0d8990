// SPDX-License-Identifier: MIT
// Demo: a half-precision GEMM on the matrix cores (MI100/MI200/MI300: v_mfma_f32_32x32x8f16),
// checked against the CPU. Each wave computes a 32x32 tile of C = A x B, stepping through K
// eight columns at a time: lane l holds A[row l % 32][k0 + 4 * (l / 32) + 0..3] and
// B[k0 + 4 * (l / 32) + 0..3][col l % 32], and its sixteen results are rows
// 8 * (r / 4) + 4 * (l / 32) + r % 4 of column l % 32 (the CDNA ISA's layout for this
// instruction; AMD's matrix instruction calculator prints it).
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"

typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));

// C (m x n, row-major f32) = A (m x k, row-major f16) x B (k x n, row-major f16); m, n multiples
// of 32, k of 8. A block of 64 threads is one wave: one tile.
__global__ void hgemm_mfma(const _Float16* a, const _Float16* b, float* c, int m, int n, int k) {
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__)
  const int lane = threadIdx.x, row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
  const int half = lane / 32, idx = lane % 32;
  f32x16 acc = {};
  for (int k0 = 0; k0 < k; k0 += 8) {
    f16x4 av, bv;
    for (int e = 0; e < 4; ++e) {
      av[e] = a[(row0 + idx) * k + k0 + 4 * half + e];
      bv[e] = b[(k0 + 4 * half + e) * n + col0 + idx];
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(av, bv, acc, 0, 0, 0);
  }
  for (int r = 0; r < 16; ++r) c[(row0 + 8 * (r / 4) + 4 * half + r % 4) * n + col0 + idx] = acc[r];
#else
  __builtin_trap();  // no matrix cores on this target
#endif
}

int main() {
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0));
  const std::string arch = prop.gcnArchName;
  if (arch.rfind("gfx908", 0) != 0 && arch.rfind("gfx90a", 0) != 0 && arch.rfind("gfx942", 0) != 0) {
    std::printf("matrix_cores: %s has no matrix cores (MFMA): nothing to run\n", arch.c_str());
    return 0;
  }
  const int m = 128, n = 96, k = 64;
  std::vector<_Float16> a(size_t(m) * k), b(size_t(k) * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = _Float16(float(int(i * 37 % 17) - 8) / 8.0f);
  for (size_t i = 0; i < b.size(); ++i) b[i] = _Float16(float(int(i * 11 % 13) - 6) / 4.0f);
  _Float16 *da, *db;
  float* dc;
  CHECK_HIP(hipMalloc(&da, a.size() * sizeof(_Float16)));
  CHECK_HIP(hipMalloc(&db, b.size() * sizeof(_Float16)));
  CHECK_HIP(hipMalloc(&dc, size_t(m) * n * sizeof(float)));
  CHECK_HIP(hipMemcpy(da, a.data(), a.size() * sizeof(_Float16), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(db, b.data(), b.size() * sizeof(_Float16), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(hgemm_mfma, dim3(n / 32, m / 32), dim3(64), 0, 0, da, db, dc, m, n, k);
  CHECK_HIP(hipGetLastError());
  std::vector<float> c(size_t(m) * n);
  CHECK_HIP(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
  // The inputs are small multiples of 1/8 and 1/4: every product and sum is exact
  // in f32, so the matrix cores must give the CPU's result exactly.
  size_t bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int q = 0; q < k; ++q) want += float(a[size_t(i) * k + q]) * float(b[size_t(q) * n + j]);
      bad += c[size_t(i) * n + j] != want;
    }
  std::printf("matrix_cores: %dx%dx%d f16 GEMM on %s with v_mfma_f32_32x32x8f16, %zu of %d results differ\n", m,
              n, k, arch.c_str(), bad, m * n);
  CHECK(bad == 0);
  CHECK_HIP(hipFree(da));
  CHECK_HIP(hipFree(db));
  CHECK_HIP(hipFree(dc));
  return check::summary();
}
