// SPDX-License-Identifier: MIT
// HIP arrays and texture/surface objects on ROCm's own runtime. ROCm lays arrays out as swizzled
// surfaces (its image library picks 4 KiB and 64 KiB swizzle modes by size, element and
// dimension), copies into and out of them with its image blit kernels, and the kernels here read
// them with image_sample and image_load/store: every texel is checked against the host, so a
// swizzle equation of the emulator's that differed from the one ROCm's image library allocated
// by would show (the blit kernels and the samplers share the emulator's equation, but not the
// padded extent ROCm sized the allocation for: a texel past it faults).
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "rocm_stack.h"

namespace {

float value2d(int x, int y) { return float(x * 3 + y * 1000) + 0.25f; }

__global__ void sample2d(hipTextureObject_t t, float* out, int w, int h, float dx) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f + dx, y + 0.5f);
}

__global__ void sample_rgba8(hipTextureObject_t t, float4* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float4>(t, x + 0.5f, y + 0.5f);
}

__global__ void sample_layered(hipTextureObject_t t, float2* out, int w, int h, int layers) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  if (x < w && y < h && l < layers) out[(l * h + y) * w + x] = tex2DLayered<float2>(t, x + 0.5f, y + 0.5f, l);
}

__global__ void sample3d(hipTextureObject_t t, float* out, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

__global__ void square_surface(hipSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float v;
    surf2Dread(&v, s, x * 4, y);
    surf2Dwrite(v * v + 1.0f, s, x * 4, y);
  }
}

hipTextureObject_t texture_of(hipArray_t a, hipTextureFilterMode filter, hipTextureReadMode read) {
  hipResourceDesc res = {};
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = hipAddressModeClamp;
  td.filterMode = filter;
  td.readMode = read;
  hipTextureObject_t t = nullptr;
  CHECK_HIP(hipCreateTextureObject(&t, &res, &td, nullptr));
  return t;
}

// A 2-D float array of w x h: written by hipMemcpy2DToArray, point-sampled, linearly sampled
// halfway between columns, and read back by hipMemcpy2DFromArray.
void float_2d(int w, int h) {
  hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
  hipArray_t a = nullptr;
  CHECK_HIP(hipMallocArray(&a, &cd, w, h, hipArrayDefault));
  std::vector<float> host(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) host[size_t(y) * w + x] = value2d(x, y);
  CHECK_HIP(hipMemcpy2DToArray(a, 0, 0, host.data(), w * sizeof(float), w * sizeof(float), h, hipMemcpyHostToDevice));
  hipTextureObject_t point = texture_of(a, hipFilterModePoint, hipReadModeElementType);
  hipTextureObject_t linear = texture_of(a, hipFilterModeLinear, hipReadModeElementType);
  float* d = nullptr;
  CHECK_HIP(hipMalloc(&d, host.size() * sizeof(float)));
  std::vector<float> out(host.size());
  hipLaunchKernelGGL(sample2d, dim3((w + 63) / 64, h), dim3(64), 0, 0, point, d, w, h, 0.0f);
  CHECK_HIP(hipMemcpy(out.data(), d, out.size() * sizeof(float), hipMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < out.size(); ++i) bad += out[i] != host[i];
  CHECK(bad == 0);
  hipLaunchKernelGGL(sample2d, dim3((w + 63) / 64, h), dim3(64), 0, 0, linear, d, w, h, 0.5f);
  CHECK_HIP(hipMemcpy(out.data(), d, out.size() * sizeof(float), hipMemcpyDeviceToHost));
  bad = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float want = x + 1 < w ? 0.5f * (value2d(x, y) + value2d(x + 1, y)) : value2d(x, y);
      bad += std::fabs(out[size_t(y) * w + x] - want) > 1e-3f * std::fabs(want);
    }
  CHECK(bad == 0);
  std::vector<float> back(host.size(), -1.0f);
  CHECK_HIP(hipMemcpy2DFromArray(back.data(), w * sizeof(float), a, 0, 0, w * sizeof(float), h, hipMemcpyDeviceToHost));
  CHECK(back == host);
  CHECK_HIP(hipDestroyTextureObject(point));
  CHECK_HIP(hipDestroyTextureObject(linear));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipFreeArray(a));
}

// Four 8-bit channels read as normalized floats. (ROCm 5.2's hipCreateChannelDesc<uchar4>() says
// hipChannelFormatKindSigned, so its textures of it read as SNORM: the descriptor is spelled out.)
void rgba8_2d(int w, int h) {
  hipChannelFormatDesc cd = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
  hipArray_t a = nullptr;
  CHECK_HIP(hipMallocArray(&a, &cd, w, h, hipArrayDefault));
  std::vector<uchar4> host(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      host[size_t(y) * w + x] = make_uchar4(x & 255, y & 255, (x * 7 + y) & 255, 255 - (x & 255));
  CHECK_HIP(hipMemcpy2DToArray(a, 0, 0, host.data(), w * sizeof(uchar4), w * sizeof(uchar4), h, hipMemcpyHostToDevice));
  hipTextureObject_t t = texture_of(a, hipFilterModePoint, hipReadModeNormalizedFloat);
  float4* d = nullptr;
  CHECK_HIP(hipMalloc(&d, host.size() * sizeof(float4)));
  hipLaunchKernelGGL(sample_rgba8, dim3((w + 63) / 64, h), dim3(64), 0, 0, t, d, w, h);
  std::vector<float4> out(host.size());
  CHECK_HIP(hipMemcpy(out.data(), d, out.size() * sizeof(float4), hipMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const uchar4 c = host[i];
    bad += std::fabs(out[i].x - c.x / 255.0f) > 1e-6f || std::fabs(out[i].y - c.y / 255.0f) > 1e-6f ||
           std::fabs(out[i].z - c.z / 255.0f) > 1e-6f || std::fabs(out[i].w - c.w / 255.0f) > 1e-6f;
  }
  CHECK(bad == 0);
  CHECK_HIP(hipDestroyTextureObject(t));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipFreeArray(a));
}

// A layered array of float2, and a 3-D array of float, both through hipMemcpy3D.
void layered_and_3d(int w, int h, int n) {
  {
    hipChannelFormatDesc cd = hipCreateChannelDesc<float2>();
    hipArray_t a = nullptr;
    CHECK_HIP(hipMalloc3DArray(&a, &cd, make_hipExtent(w, h, n), hipArrayLayered));
    std::vector<float2> host(size_t(w) * h * n);
    for (size_t i = 0; i < host.size(); ++i) host[i] = make_float2(float(i), -float(i) * 0.5f);
    hipMemcpy3DParms p = {};
    p.srcPtr = make_hipPitchedPtr(host.data(), w * sizeof(float2), w, h);
    p.dstArray = a;
    p.extent = make_hipExtent(w, h, n);
    p.kind = hipMemcpyHostToDevice;
    CHECK_HIP(hipMemcpy3D(&p));
    hipTextureObject_t t = texture_of(a, hipFilterModePoint, hipReadModeElementType);
    float2* d = nullptr;
    CHECK_HIP(hipMalloc(&d, host.size() * sizeof(float2)));
    hipLaunchKernelGGL(sample_layered, dim3(h, n), dim3(w), 0, 0, t, d, w, h, n);
    std::vector<float2> out(host.size());
    CHECK_HIP(hipMemcpy(out.data(), d, out.size() * sizeof(float2), hipMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < out.size(); ++i) bad += out[i].x != host[i].x || out[i].y != host[i].y;
    CHECK(bad == 0);
    CHECK_HIP(hipDestroyTextureObject(t));
    CHECK_HIP(hipFree(d));
    CHECK_HIP(hipFreeArray(a));
  }
  {
    hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
    hipArray_t a = nullptr;
    CHECK_HIP(hipMalloc3DArray(&a, &cd, make_hipExtent(w, h, n), 0));
    std::vector<float> host(size_t(w) * h * n), back(host.size(), -1.0f);
    for (size_t i = 0; i < host.size(); ++i) host[i] = float(i) * 1.5f + 3.0f;
    hipMemcpy3DParms p = {};
    p.srcPtr = make_hipPitchedPtr(host.data(), w * sizeof(float), w, h);
    p.dstArray = a;
    p.extent = make_hipExtent(w, h, n);
    p.kind = hipMemcpyHostToDevice;
    CHECK_HIP(hipMemcpy3D(&p));
    hipTextureObject_t t = texture_of(a, hipFilterModePoint, hipReadModeElementType);
    float* d = nullptr;
    CHECK_HIP(hipMalloc(&d, host.size() * sizeof(float)));
    hipLaunchKernelGGL(sample3d, dim3(h, n), dim3(w), 0, 0, t, d, w, h, n);
    std::vector<float> out(host.size());
    CHECK_HIP(hipMemcpy(out.data(), d, out.size() * sizeof(float), hipMemcpyDeviceToHost));
    CHECK(out == host);
    hipMemcpy3DParms q = {};
    q.srcArray = a;
    q.dstPtr = make_hipPitchedPtr(back.data(), w * sizeof(float), w, h);
    q.extent = make_hipExtent(w, h, n);
    q.kind = hipMemcpyDeviceToHost;
    CHECK_HIP(hipMemcpy3D(&q));
    CHECK(back == host);
    CHECK_HIP(hipDestroyTextureObject(t));
    CHECK_HIP(hipFree(d));
    CHECK_HIP(hipFreeArray(a));
  }
}

// A surface over a 2-D float array: read, squared plus one, written in place. (ROCm 5.2's surface
// functions convert the texel's value to and from float, so integer surfaces do not round-trip
// there; kfdrt's move the bits.)
void surface_2d(int w, int h) {
  hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
  hipArray_t a = nullptr;
  CHECK_HIP(hipMallocArray(&a, &cd, w, h, hipArrayDefault));
  std::vector<float> host(size_t(w) * h), back(host.size());
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(int(i % 4000) - 2000);
  CHECK_HIP(hipMemcpy2DToArray(a, 0, 0, host.data(), w * sizeof(float), w * sizeof(float), h, hipMemcpyHostToDevice));
  hipResourceDesc res = {};
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipSurfaceObject_t s = nullptr;
  CHECK_HIP(hipCreateSurfaceObject(&s, &res));
  hipLaunchKernelGGL(square_surface, dim3((w + 63) / 64, h), dim3(64), 0, 0, s, w, h);
  CHECK_HIP(hipMemcpy2DFromArray(back.data(), w * sizeof(float), a, 0, 0, w * sizeof(float), h, hipMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < host.size(); ++i) bad += back[i] != host[i] * host[i] + 1.0f;
  CHECK(bad == 0);
  CHECK_HIP(hipDestroySurfaceObject(s));
  CHECK_HIP(hipFreeArray(a));
}

}  // namespace

int main() {
  CHECK_HIP(hipSetDevice(0));
  rocm_stack::expect_rocm_runtime();
  float_2d(40, 6);      // a small surface (ROCm picks a 4 KiB swizzle)
  float_2d(300, 200);   // a large one (64 KiB)
  rgba8_2d(130, 70);
  layered_and_3d(33, 17, 5);
  surface_2d(150, 90);
  return check::summary();
}
