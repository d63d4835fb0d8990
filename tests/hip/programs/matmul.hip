// SPDX-License-Identifier: MIT
// Demo: tiled matrix multiply with __shared__ memory and __syncthreads, checked against the CPU.
#include <hip/hip_runtime.h>

#include <cmath>
#include <vector>

#include "check.h"

constexpr int kTile = 16;

// C = A * B for n x n row-major matrices; each block computes one kTile x kTile tile of C.
__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (n + kTile - 1) / kTile; ++t) {
    int ac = t * kTile + threadIdx.x, br = t * kTile + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? a[row * n + ac] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = (br < n && col < n) ? b[br * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}

// The same product with the tile in dynamic shared memory (the launch gives its size).
__global__ void matmul_dynamic(const float* a, const float* b, float* c, int n) {
  extern __shared__ float tiles[];
  float* ta = tiles;
  float* tb = tiles + kTile * kTile;
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int t = 0; t < (n + kTile - 1) / kTile; ++t) {
    ta[ty * kTile + tx] = (row < n && t * kTile + tx < n) ? a[row * n + t * kTile + tx] : 0.0f;
    tb[ty * kTile + tx] = (t * kTile + ty < n && col < n) ? b[(t * kTile + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += ta[ty * kTile + k] * tb[k * kTile + tx];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}

int main() {
  const int n = 100;  // not a multiple of the tile: exercises the edges
  std::vector<float> a(n * n), b(n * n), c(n * n), ref(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = float((i * 7) % 13) - 6.0f;
    b[i] = float((i * 5) % 11) * 0.25f;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      ref[i * n + j] = s;
    }
  size_t bytes = size_t(n) * n * sizeof(float);
  float *da, *db, *dc;
  CHECK_HIP(hipMalloc(&da, bytes));
  CHECK_HIP(hipMalloc(&db, bytes));
  CHECK_HIP(hipMalloc(&dc, bytes));
  CHECK_HIP(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice));
  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);

  auto max_error = [&] {
    float worst = 0.0f;
    for (int i = 0; i < n * n; ++i) worst = std::fmax(worst, std::fabs(c[i] - ref[i]));
    return worst;
  };
  hipLaunchKernelGGL(matmul_tiled, grid, block, 0, 0, da, db, dc, n);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  std::printf("static shared memory: max error %g\n", max_error());
  CHECK(max_error() < 1e-3f);

  CHECK_HIP(hipMemset(dc, 0, bytes));
  matmul_dynamic<<<grid, block, 2 * kTile * kTile * sizeof(float)>>>(da, db, dc, n);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  std::printf("dynamic shared memory: max error %g\n", max_error());
  CHECK(max_error() < 1e-3f);

  hipFuncAttributes attr;
  // The kernel as const void*, as HIP 5.2's hipFuncGetAttributes takes it (the demo also builds
  // with ROCm's hipcc).
  CHECK_HIP(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(matmul_tiled)));
  CHECK(attr.sharedSizeBytes == 2 * kTile * kTile * sizeof(float));
  CHECK_HIP(hipFree(da));
  CHECK_HIP(hipFree(db));
  CHECK_HIP(hipFree(dc));
  return check::summary();
}
