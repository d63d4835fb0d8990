// SPDX-License-Identifier: MIT
// Texture and surface objects, built by kfdcc and by ROCm's hipcc (whose headers compute the
// descriptors' addresses and call the device library's image functions themselves: the layout of
// a texture object is HIP 5.2's ABI). A 2-D float array read with point and linear filtering, a
// linear buffer read with tex1Dfetch, an array written through a surface; every texel checked
// against what the host computes.
#include <hip/hip_runtime.h>

#include <cmath>
#include <vector>

#include "check.h"

constexpr int kW = 40, kH = 6;

float texel(int x, int y) { return float(x * 3 + y * 1000) + 0.5f; }

__global__ void sample(hipTextureObject_t point, hipTextureObject_t linear, float* out) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * kW + x] = tex2D<float>(point, x + 0.5f, y + 0.5f);
  out[kW * kH + y * kW + x] = tex2D<float>(linear, x + 1.0f, y + 0.5f);  // halfway to x + 1
}

__global__ void fetch(hipTextureObject_t t, int* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[i] = tex1Dfetch<int>(t, i);
}

__global__ void square(hipSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) {
    float v;
    surf2Dread(&v, s, x * 4, y);
    surf2Dwrite(v * v, s, x * 4, y);
  }
}

int main() {
  hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
  hipArray* arr = nullptr;
  CHECK_HIP(hipMallocArray(&arr, &cd, kW, kH, hipArraySurfaceLoadStore));
  std::vector<float> host(kW * kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) host[y * kW + x] = texel(x, y);
  CHECK_HIP(hipMemcpy2DToArray(arr, 0, 0, host.data(), kW * sizeof(float), kW * sizeof(float), kH,
                               hipMemcpyHostToDevice));
  hipResourceDesc res = {};
  res.resType = hipResourceTypeArray;
  res.res.array.array = arr;
  hipTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = hipAddressModeClamp;
  td.filterMode = hipFilterModePoint;
  td.readMode = hipReadModeElementType;
  hipTextureObject_t point = nullptr, linear = nullptr;
  CHECK_HIP(hipCreateTextureObject(&point, &res, &td, nullptr));
  td.filterMode = hipFilterModeLinear;
  CHECK_HIP(hipCreateTextureObject(&linear, &res, &td, nullptr));
  float* d = nullptr;
  CHECK_HIP(hipMalloc(&d, 2 * kW * kH * sizeof(float)));
  hipLaunchKernelGGL(sample, dim3(kH), dim3(kW), 0, 0, point, linear, d);
  std::vector<float> out(2 * kW * kH);
  CHECK_HIP(hipMemcpy(out.data(), d, out.size() * sizeof(float), hipMemcpyDeviceToHost));
  int bad_point = 0, bad_linear = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      if (out[y * kW + x] != texel(x, y)) ++bad_point;
      float want = x + 1 < kW ? 0.5f * (texel(x, y) + texel(x + 1, y)) : texel(x, y);
      if (std::fabs(out[kW * kH + y * kW + x] - want) > 1e-3f * std::fabs(want)) ++bad_linear;
    }
  CHECK(bad_point == 0);
  CHECK(bad_linear == 0);

  // tex1Dfetch on linear memory: integers come back as integers; past the end, 0.
  const int n = 500;
  std::vector<int> ints(n);
  for (int i = 0; i < n; ++i) ints[i] = i * 7 - 1000;
  int *src = nullptr, *dst = nullptr;
  CHECK_HIP(hipMalloc(&src, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&dst, (n + 12) * sizeof(int)));
  CHECK_HIP(hipMemcpy(src, ints.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipResourceDesc lres = {};
  lres.resType = hipResourceTypeLinear;
  lres.res.linear.devPtr = src;
  lres.res.linear.desc = hipCreateChannelDesc<int>();
  lres.res.linear.sizeInBytes = n * sizeof(int);
  hipTextureDesc ltd = {};
  ltd.readMode = hipReadModeElementType;
  hipTextureObject_t lt = nullptr;
  CHECK_HIP(hipCreateTextureObject(&lt, &lres, &ltd, nullptr));
  hipLaunchKernelGGL(fetch, dim3(4), dim3(128), 0, 0, lt, dst, n + 12);
  std::vector<int> got(n + 12);
  CHECK_HIP(hipMemcpy(got.data(), dst, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int bad_fetch = 0;
  for (int i = 0; i < n + 12; ++i)
    if (got[i] != (i < n ? ints[i] : 0)) ++bad_fetch;
  CHECK(bad_fetch == 0);

  // A surface over the same array: each texel squared in place.
  hipSurfaceObject_t surf = nullptr;
  CHECK_HIP(hipCreateSurfaceObject(&surf, &res));
  hipLaunchKernelGGL(square, dim3(kH), dim3(64), 0, 0, surf, kW, kH);
  std::vector<float> sq(kW * kH);
  CHECK_HIP(hipMemcpy2DFromArray(sq.data(), kW * sizeof(float), arr, 0, 0, kW * sizeof(float), kH,
                                 hipMemcpyDeviceToHost));
  int bad_surface = 0;
  for (int i = 0; i < kW * kH; ++i)
    if (sq[i] != host[i] * host[i]) ++bad_surface;
  CHECK(bad_surface == 0);

  CHECK_HIP(hipDestroySurfaceObject(surf));
  CHECK_HIP(hipDestroyTextureObject(point));
  CHECK_HIP(hipDestroyTextureObject(linear));
  CHECK_HIP(hipDestroyTextureObject(lt));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipFree(src));
  CHECK_HIP(hipFree(dst));
  CHECK_HIP(hipFreeArray(arr));
  return check::summary();
}
