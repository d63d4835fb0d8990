// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): arrays (allocation, the copies to and from them, their
// descriptors), texture objects on arrays, pitched and linear memory (point and linear filtering,
// normalized and unnormalized coordinates, the address modes, normalized reads of integer texels,
// 1-D, 2-D, 3-D and layered arrays) and surface objects. The expected texels are computed here
// from the data the test wrote; the kernels read them through the GPU's image instructions.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstring>
#include <vector>

#define HIP_ASSERT(x) ASSERT_EQ((x), hipSuccess)

namespace {

constexpr int kW = 37, kH = 11;  // a row of 148 bytes of floats: padded to 256 in the array

float value(int x, int y, int z = 0) { return float(x) + 100.0f * float(y) + 10000.0f * float(z) + 0.25f; }

std::vector<float> pattern(int w, int h, int d = 1) {
  std::vector<float> v(size_t(w) * h * d);
  for (int z = 0; z < d; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) v[(size_t(z) * h + y) * w + x] = value(x, y, z);
  return v;
}

__global__ void fetch_2d(hipTextureObject_t t, float* out, int w, int h, float dx, float dy, float scale_x,
                         float scale_y) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, (float(x) + dx) * scale_x, (float(y) + dy) * scale_y);
}

// An explicit level: the textures have one, so any level reads it.
__global__ void fetch_2d_lod(hipTextureObject_t t, float* out, int w, int h, float level) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2DLod<float>(t, float(x) + 0.5f, float(y) + 0.5f, level);
}

__global__ void fetch_linear(hipTextureObject_t t, float* out, int n, int shift) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, i + shift);
}

__global__ void fetch_linear_int4(hipTextureObject_t t, int4* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[i] = tex1Dfetch<int4>(t, i);
}

__global__ void fetch_uchar4_norm(hipTextureObject_t t, float4* out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = tex2D<float4>(t, float(x) + 0.5f, float(y) + 0.5f);
}

__global__ void fetch_3d(hipTextureObject_t t, float* out, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d)
    out[(z * h + y) * w + x] = tex3D<float>(t, float(x) + 0.5f, float(y) + 0.5f, float(z) + 0.5f);
}

__global__ void fetch_layered(hipTextureObject_t t, float* out, int w, int h, int layers) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  if (x < w && y < h && l < layers) out[(l * h + y) * w + x] = tex2DLayered<float>(t, float(x) + 0.5f, float(y) + 0.5f, l);
}

__global__ void fetch_1d(hipTextureObject_t t, float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, float(i) + 0.5f);
}

__global__ void surface_scale(hipSurfaceObject_t in, hipSurfaceObject_t out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) {
    float v;
    surf2Dread(&v, in, x * int(sizeof(float)), y);
    surf2Dwrite(v * 2.0f, out, x * int(sizeof(float)), y);
  }
}

struct Array2D {
  hipArray_t a = nullptr;
  ~Array2D() {
    if (a) (void)hipFreeArray(a);
  }
};

hipTextureObject_t texture_of(hipArray_t a, hipTextureFilterMode filter, hipTextureAddressMode mode, bool normalized,
                              hipTextureReadMode read = hipReadModeElementType) {
  hipResourceDesc res{};
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = mode;
  td.filterMode = filter;
  td.readMode = read;
  td.normalizedCoords = normalized;
  hipTextureObject_t t = nullptr;
  EXPECT_EQ(hipCreateTextureObject(&t, &res, &td, nullptr), hipSuccess);
  return t;
}

std::vector<float> run_2d(hipTextureObject_t t, float dx, float dy, float sx = 1.0f, float sy = 1.0f) {
  float* d = nullptr;
  EXPECT_EQ(hipMalloc(&d, kW * kH * sizeof(float)), hipSuccess);
  fetch_2d<<<dim3(1, kH), 64>>>(t, d, kW, kH, dx, dy, sx, sy);
  std::vector<float> out(kW * kH, -1.0f);
  EXPECT_EQ(hipMemcpy(out.data(), d, out.size() * sizeof(float), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(hipFree(d), hipSuccess);
  return out;
}

// A 2-D float array filled with pattern(), by hipMemcpy2DToArray from host rows of kW floats.
void make_pattern_array(Array2D* arr) {
  hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
  ASSERT_EQ(hipMallocArray(&arr->a, &cd, kW, kH), hipSuccess);
  auto host = pattern(kW, kH);
  ASSERT_EQ(hipMemcpy2DToArray(arr->a, 0, 0, host.data(), kW * sizeof(float), kW * sizeof(float), kH,
                               hipMemcpyHostToDevice),
            hipSuccess);
}

}  // namespace

TEST(HipArrays, CopiesReachEveryRowThroughThePaddedPitch) {
  Array2D arr;
  make_pattern_array(&arr);
  ASSERT_NE(arr.a, nullptr);
  hipChannelFormatDesc back{};
  HIP_ASSERT(hipGetChannelDesc(&back, arr.a));
  EXPECT_EQ(back.x, 32);
  EXPECT_EQ(back.y, 0);
  EXPECT_EQ(back.f, hipChannelFormatKindFloat);
  EXPECT_EQ(arr.a->width, unsigned(kW));
  EXPECT_EQ(arr.a->height, unsigned(kH));
  EXPECT_EQ(arr.a->textureType, unsigned(hipTextureType2D));

  // The whole array back, rows into a wider host pitch.
  const size_t wide = kW + 3;
  std::vector<float> out(wide * kH, -1.0f);
  HIP_ASSERT(hipMemcpy2DFromArray(out.data(), wide * sizeof(float), arr.a, 0, 0, kW * sizeof(float), kH,
                                  hipMemcpyDeviceToHost));
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * wide + x], value(x, y)) << x << "," << y;
  EXPECT_EQ(out[kW], -1.0f);  // the host padding is left alone

  // A window: 5 floats from (3, 2).
  std::vector<float> win(5 * 4, 0.0f);
  HIP_ASSERT(hipMemcpy2DFromArray(win.data(), 5 * sizeof(float), arr.a, 3 * sizeof(float), 2, 5 * sizeof(float), 4,
                                  hipMemcpyDeviceToHost));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) EXPECT_EQ(win[y * 5 + x], value(x + 3, y + 2));

  // Linear copies run on across rows: from (kW - 2, 1), 2 + kW + 3 floats.
  std::vector<float> lin(kW + 5);
  HIP_ASSERT(hipMemcpyFromArray(lin.data(), arr.a, (kW - 2) * sizeof(float), 1, lin.size() * sizeof(float),
                                hipMemcpyDeviceToHost));
  EXPECT_EQ(lin[0], value(kW - 2, 1));
  EXPECT_EQ(lin[1], value(kW - 1, 1));
  for (int x = 0; x < kW; ++x) EXPECT_EQ(lin[2 + x], value(x, 2));
  EXPECT_EQ(lin[kW + 4], value(2, 3));
  std::vector<float> ones(kW + 5, 1.5f);
  HIP_ASSERT(hipMemcpyToArray(arr.a, (kW - 2) * sizeof(float), 1, ones.data(), ones.size() * sizeof(float),
                              hipMemcpyHostToDevice));
  HIP_ASSERT(hipMemcpyAtoH(lin.data(), arr.a, (kW + kW - 3) * sizeof(float), 3 * sizeof(float)));
  EXPECT_EQ(lin[0], value(kW - 3, 1));
  EXPECT_EQ(lin[1], 1.5f);
  EXPECT_EQ(lin[2], 1.5f);

  // Outside the array: refused, nothing copied.
  EXPECT_EQ(hipMemcpy2DFromArray(win.data(), 5 * sizeof(float), arr.a, (kW - 4) * sizeof(float), 0,
                                 5 * sizeof(float), 1, hipMemcpyDeviceToHost),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy2DToArray(arr.a, 0, kH - 1, ones.data(), kW * sizeof(float), kW * sizeof(float), 2,
                               hipMemcpyHostToDevice),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyFromArray(lin.data(), arr.a, 0, kH - 1, (kW + 1) * sizeof(float), hipMemcpyDeviceToHost),
            hipErrorInvalidValue);
  (void)hipGetLastError();
}

TEST(HipArrays, DescriptorsFormatsAndFrees) {
  HIP_ARRAY_DESCRIPTOR d{};
  d.Width = 64;
  d.Height = 8;
  d.Format = HIP_AD_FORMAT_UNSIGNED_INT16;
  d.NumChannels = 2;
  hipArray_t a = nullptr;
  HIP_ASSERT(hipArrayCreate(&a, &d));
  hipChannelFormatDesc cd{};
  HIP_ASSERT(hipGetChannelDesc(&cd, a));
  EXPECT_EQ(cd.x, 16);
  EXPECT_EQ(cd.y, 16);
  EXPECT_EQ(cd.z, 0);
  EXPECT_EQ(cd.f, hipChannelFormatKindUnsigned);
  HIP_ARRAY_DESCRIPTOR back{};
  HIP_ASSERT(hipArrayGetDescriptor(&back, a));
  EXPECT_EQ(back.Width, 64u);
  EXPECT_EQ(back.Format, HIP_AD_FORMAT_UNSIGNED_INT16);
  HIP_ASSERT(hipArrayDestroy(a));
  EXPECT_EQ(hipArrayDestroy(a), hipErrorInvalidValue);  // freed
  EXPECT_EQ(hipGetChannelDesc(&cd, a), hipErrorInvalidValue);
  d.NumChannels = 3;  // 16_16_16 is no image format
  EXPECT_EQ(hipArrayCreate(&a, &d), hipErrorInvalidValue);
  hipChannelFormatDesc gap = hipCreateChannelDesc(8, 0, 8, 0, hipChannelFormatKindUnsigned);
  EXPECT_EQ(hipMallocArray(&a, &gap, 16, 16), hipErrorInvalidValue);
  hipChannelFormatDesc f = hipCreateChannelDesc<float>();
  EXPECT_EQ(hipMallocArray(&a, &f, 16385, 1), hipErrorInvalidValue);  // past the image unit's 16384
  EXPECT_EQ(hipMallocArray(&a, &f, 0, 1), hipErrorInvalidValue);
  (void)hipGetLastError();
}

TEST(HipTextures, PointSamplingReadsEachTexel) {
  Array2D arr;
  make_pattern_array(&arr);
  hipTextureObject_t t = texture_of(arr.a, hipFilterModePoint, hipAddressModeClamp, false);
  ASSERT_NE(t, nullptr);
  auto out = run_2d(t, 0.5f, 0.5f);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * kW + x], value(x, y)) << x << "," << y;
  // Anywhere inside a texel reads it.
  out = run_2d(t, 0.9f, 0.1f);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * kW + x], value(x, y)) << x << "," << y;
  float* d = nullptr;
  HIP_ASSERT(hipMalloc(&d, kW * kH * sizeof(float)));
  fetch_2d_lod<<<dim3(1, kH), 64>>>(t, d, kW, kH, 3.0f);
  HIP_ASSERT(hipMemcpy(out.data(), d, out.size() * sizeof(float), hipMemcpyDeviceToHost));
  HIP_ASSERT(hipFree(d));
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * kW + x], value(x, y)) << x << "," << y;
  hipTextureDesc td{};
  HIP_ASSERT(hipGetTextureObjectTextureDesc(&td, t));
  EXPECT_EQ(td.filterMode, hipFilterModePoint);
  hipResourceDesc rd{};
  HIP_ASSERT(hipGetTextureObjectResourceDesc(&rd, t));
  EXPECT_EQ(rd.res.array.array, arr.a);
  HIP_ASSERT(hipDestroyTextureObject(t));
  EXPECT_EQ(hipDestroyTextureObject(t), hipErrorInvalidValue);
  (void)hipGetLastError();
}

TEST(HipTextures, LinearFilteringWeighsNeighbours) {
  Array2D arr;
  make_pattern_array(&arr);
  hipTextureObject_t t = texture_of(arr.a, hipFilterModeLinear, hipAddressModeClamp, false);
  // Halfway between texel centres in x: the mean of two neighbours (the last column clamps).
  auto out = run_2d(t, 1.0f, 0.5f);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      float want = x + 1 < kW ? 0.5f * (value(x, y) + value(x + 1, y)) : value(x, y);
      ASSERT_NEAR(out[y * kW + x], want, 1e-3f * std::fabs(want)) << x << "," << y;
    }
  // A quarter of the way in both directions: bilinear weights 3/4 and 1/4.
  out = run_2d(t, 0.75f, 0.75f);
  for (int y = 0; y + 1 < kH; ++y)
    for (int x = 0; x + 1 < kW; ++x) {
      float want = 0.5625f * value(x, y) + 0.1875f * value(x + 1, y) + 0.1875f * value(x, y + 1) +
                   0.0625f * value(x + 1, y + 1);
      ASSERT_NEAR(out[y * kW + x], want, 1e-3f * std::fabs(want)) << x << "," << y;
    }
  HIP_ASSERT(hipDestroyTextureObject(t));
}

TEST(HipTextures, AddressModesAtTheEdges) {
  Array2D arr;
  make_pattern_array(&arr);
  // Normalized coordinates shifted by one whole texture: wrap reads the same texels.
  hipTextureObject_t wrap = texture_of(arr.a, hipFilterModePoint, hipAddressModeWrap, true);
  auto out = run_2d(wrap, 0.5f + kW, 0.5f + kH, 1.0f / kW, 1.0f / kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * kW + x], value(x, y)) << x << "," << y;
  // Mirror: one texture to the left reads the row backwards.
  hipTextureObject_t mirror = texture_of(arr.a, hipFilterModePoint, hipAddressModeMirror, true);
  out = run_2d(mirror, 0.5f - kW, 0.5f, 1.0f / kW, 1.0f / kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * kW + x], value(kW - 1 - x, y)) << x << "," << y;
  // Clamp and border one row below the last.
  hipTextureObject_t clamp = texture_of(arr.a, hipFilterModePoint, hipAddressModeClamp, false);
  hipTextureObject_t border = texture_of(arr.a, hipFilterModePoint, hipAddressModeBorder, false);
  out = run_2d(clamp, 0.5f, 0.5f + kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * kW + x], value(x, kH - 1)) << x << "," << y;
  out = run_2d(border, 0.5f, 0.5f + kH);
  for (float v : out) ASSERT_EQ(v, 0.0f);
  for (auto t : {wrap, mirror, clamp, border}) HIP_ASSERT(hipDestroyTextureObject(t));
}

TEST(HipTextures, NormalizedReadsOfBytes) {
  constexpr int w = 20, h = 3;
  hipChannelFormatDesc cd = hipCreateChannelDesc<uchar4>();
  hipArray_t a = nullptr;
  HIP_ASSERT(hipMallocArray(&a, &cd, w, h));
  std::vector<uchar4> host(w * h);
  for (int i = 0; i < w * h; ++i) host[i] = make_uchar4(i, 255 - i, 2 * i, 128);
  HIP_ASSERT(hipMemcpy2DToArray(a, 0, 0, host.data(), w * sizeof(uchar4), w * sizeof(uchar4), h, hipMemcpyHostToDevice));
  hipTextureObject_t t = texture_of(a, hipFilterModePoint, hipAddressModeClamp, false, hipReadModeNormalizedFloat);
  float4* d = nullptr;
  HIP_ASSERT(hipMalloc(&d, w * h * sizeof(float4)));
  fetch_uchar4_norm<<<h, 32>>>(t, d, w, h);
  std::vector<float4> out(w * h);
  HIP_ASSERT(hipMemcpy(out.data(), d, out.size() * sizeof(float4), hipMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i) {
    EXPECT_NEAR(out[i].x, host[i].x / 255.0f, 1e-6f) << i;
    EXPECT_NEAR(out[i].y, host[i].y / 255.0f, 1e-6f) << i;
    EXPECT_NEAR(out[i].z, host[i].z / 255.0f, 1e-6f) << i;
    EXPECT_NEAR(out[i].w, 128 / 255.0f, 1e-6f) << i;
  }
  HIP_ASSERT(hipDestroyTextureObject(t));
  HIP_ASSERT(hipFree(d));
  HIP_ASSERT(hipFreeArray(a));
}

TEST(HipTextures, LinearMemoryFetchesByElement) {
  constexpr int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.5f * i - 7.0f;
  float *src = nullptr, *dst = nullptr;
  HIP_ASSERT(hipMalloc(&src, n * sizeof(float)));
  HIP_ASSERT(hipMalloc(&dst, n * sizeof(float)));
  HIP_ASSERT(hipMemcpy(src, host.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipResourceDesc res{};
  res.resType = hipResourceTypeLinear;
  res.res.linear.devPtr = src;
  res.res.linear.desc = hipCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = n * sizeof(float);
  hipTextureDesc td{};
  td.readMode = hipReadModeElementType;
  hipTextureObject_t t = nullptr;
  HIP_ASSERT(hipCreateTextureObject(&t, &res, &td, nullptr));
  // Shifted by 10: the last ten fetches are past the end and read 0.
  fetch_linear<<<(n + 255) / 256, 256>>>(t, dst, n, 10);
  std::vector<float> out(n);
  HIP_ASSERT(hipMemcpy(out.data(), dst, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], i + 10 < n ? host[i + 10] : 0.0f) << i;
  HIP_ASSERT(hipDestroyTextureObject(t));

  // int4 elements: the integer bits come back.
  std::vector<int4> ih(64);
  for (int i = 0; i < 64; ++i) ih[i] = make_int4(i, -i, i * 1000000, -7);
  int4 *isrc = nullptr, *idst = nullptr;
  HIP_ASSERT(hipMalloc(&isrc, 64 * sizeof(int4)));
  HIP_ASSERT(hipMalloc(&idst, 64 * sizeof(int4)));
  HIP_ASSERT(hipMemcpy(isrc, ih.data(), 64 * sizeof(int4), hipMemcpyHostToDevice));
  res.res.linear.devPtr = isrc;
  res.res.linear.desc = hipCreateChannelDesc<int4>();
  res.res.linear.sizeInBytes = 64 * sizeof(int4);
  HIP_ASSERT(hipCreateTextureObject(&t, &res, &td, nullptr));
  fetch_linear_int4<<<1, 64>>>(t, idst, 64);
  std::vector<int4> iout(64);
  HIP_ASSERT(hipMemcpy(iout.data(), idst, 64 * sizeof(int4), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(iout[i].x, ih[i].x);
    EXPECT_EQ(iout[i].y, ih[i].y);
    EXPECT_EQ(iout[i].z, ih[i].z);
    EXPECT_EQ(iout[i].w, ih[i].w);
  }
  HIP_ASSERT(hipDestroyTextureObject(t));
  for (void* p : {(void*)src, (void*)dst, (void*)isrc, (void*)idst}) HIP_ASSERT(hipFree(p));
}

TEST(HipTextures, PitchedMemoryAndItsAlignment) {
  float* p = nullptr;
  size_t pitch = 0;
  HIP_ASSERT(hipMallocPitch(reinterpret_cast<void**>(&p), &pitch, kW * sizeof(float), kH));
  auto host = pattern(kW, kH);
  HIP_ASSERT(hipMemcpy2D(p, pitch, host.data(), kW * sizeof(float), kW * sizeof(float), kH, hipMemcpyHostToDevice));
  hipResourceDesc res{};
  res.resType = hipResourceTypePitch2D;
  res.res.pitch2D.devPtr = p;
  res.res.pitch2D.desc = hipCreateChannelDesc<float>();
  res.res.pitch2D.width = kW;
  res.res.pitch2D.height = kH;
  res.res.pitch2D.pitchInBytes = pitch;
  hipTextureDesc td{};
  td.addressMode[0] = td.addressMode[1] = hipAddressModeClamp;
  td.filterMode = hipFilterModePoint;
  hipTextureObject_t t = nullptr;
  HIP_ASSERT(hipCreateTextureObject(&t, &res, &td, nullptr));
  auto out = run_2d(t, 0.5f, 0.5f);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(out[y * kW + x], value(x, y)) << x << "," << y;
  HIP_ASSERT(hipDestroyTextureObject(t));
  // A pitch the image unit cannot take, and a base off the 256-byte alignment.
  res.res.pitch2D.pitchInBytes = kW * sizeof(float);
  EXPECT_EQ(hipCreateTextureObject(&t, &res, &td, nullptr), hipErrorInvalidValue);
  res.res.pitch2D.pitchInBytes = pitch;
  res.res.pitch2D.devPtr = p + 1;
  EXPECT_EQ(hipCreateTextureObject(&t, &res, &td, nullptr), hipErrorInvalidValue);
  // A border colour the GPU cannot give without its border-colour table.
  res.res.pitch2D.devPtr = p;
  td.addressMode[0] = hipAddressModeBorder;
  td.borderColor[0] = 0.5f;
  EXPECT_EQ(hipCreateTextureObject(&t, &res, &td, nullptr), hipErrorNotSupported);
  HIP_ASSERT(hipFree(p));
  (void)hipGetLastError();
}

TEST(HipTextures, ThreeDimensionalLayeredAndOneDimensionalArrays) {
  constexpr int w = 9, h = 5, d = 4;
  auto host = pattern(w, h, d);
  hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
  float* dev = nullptr;
  HIP_ASSERT(hipMalloc(&dev, host.size() * sizeof(float)));
  for (unsigned flags : {0u, unsigned(hipArrayLayered)}) {
    hipArray_t a = nullptr;
    HIP_ASSERT(hipMalloc3DArray(&a, &cd, make_hipExtent(w, h, d), flags));
    EXPECT_EQ(a->textureType, unsigned(flags ? hipTextureType2DLayered : hipTextureType3D));
    hipMemcpy3DParms p{};
    p.srcPtr = make_hipPitchedPtr(host.data(), w * sizeof(float), w, h);
    p.dstArray = a;
    p.extent = make_hipExtent(w, h, d);  // elements, an array being named
    p.kind = hipMemcpyHostToDevice;
    HIP_ASSERT(hipMemcpy3D(&p));
    hipTextureObject_t t = texture_of(a, hipFilterModePoint, hipAddressModeClamp, false);
    HIP_ASSERT(hipMemset(dev, 0xff, host.size() * sizeof(float)));
    if (flags) fetch_layered<<<dim3(h, d), 32>>>(t, dev, w, h, d);
    else fetch_3d<<<dim3(h, d), 32>>>(t, dev, w, h, d);
    std::vector<float> out(host.size());
    HIP_ASSERT(hipMemcpy(out.data(), dev, out.size() * sizeof(float), hipMemcpyDeviceToHost));
    for (size_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], host[i]) << "flags " << flags << " at " << i;
    // And back out of the array with hipMemcpy3D.
    std::vector<float> back(host.size(), -1.0f);
    hipMemcpy3DParms q{};
    q.srcArray = a;
    q.dstPtr = make_hipPitchedPtr(back.data(), w * sizeof(float), w, h);
    q.extent = make_hipExtent(w, h, d);
    q.kind = hipMemcpyDeviceToHost;
    HIP_ASSERT(hipMemcpy3D(&q));
    EXPECT_EQ(back, host);
    HIP_ASSERT(hipDestroyTextureObject(t));
    HIP_ASSERT(hipFreeArray(a));
  }
  hipArray_t a1 = nullptr;
  HIP_ASSERT(hipMallocArray(&a1, &cd, 50));
  EXPECT_EQ(a1->textureType, unsigned(hipTextureType1D));
  HIP_ASSERT(hipMemcpyToArray(a1, 0, 0, host.data(), 50 * sizeof(float), hipMemcpyHostToDevice));
  hipTextureObject_t t = texture_of(a1, hipFilterModePoint, hipAddressModeClamp, false);
  fetch_1d<<<1, 64>>>(t, dev, 50);
  std::vector<float> out(50);
  HIP_ASSERT(hipMemcpy(out.data(), dev, 50 * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < 50; ++i) EXPECT_EQ(out[i], host[i]) << i;
  HIP_ASSERT(hipDestroyTextureObject(t));
  HIP_ASSERT(hipFreeArray(a1));
  HIP_ASSERT(hipFree(dev));
}

TEST(HipSurfaces, ReadAndWriteByByteOffset) {
  Array2D in, out;
  make_pattern_array(&in);
  hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
  HIP_ASSERT(hipMallocArray(&out.a, &cd, kW, kH, hipArraySurfaceLoadStore));
  hipResourceDesc res{};
  res.resType = hipResourceTypeArray;
  hipSurfaceObject_t si = nullptr, so = nullptr;
  res.res.array.array = in.a;
  HIP_ASSERT(hipCreateSurfaceObject(&si, &res));
  res.res.array.array = out.a;
  HIP_ASSERT(hipCreateSurfaceObject(&so, &res));
  surface_scale<<<kH, 64>>>(si, so, kW, kH);
  HIP_ASSERT(hipDeviceSynchronize());
  std::vector<float> host(kW * kH, -1.0f);
  HIP_ASSERT(hipMemcpy2DFromArray(host.data(), kW * sizeof(float), out.a, 0, 0, kW * sizeof(float), kH,
                                  hipMemcpyDeviceToHost));
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) ASSERT_EQ(host[y * kW + x], 2.0f * value(x, y)) << x << "," << y;
  HIP_ASSERT(hipDestroySurfaceObject(si));
  HIP_ASSERT(hipDestroySurfaceObject(so));
  EXPECT_EQ(hipDestroySurfaceObject(so), hipErrorInvalidValue);
  (void)hipGetLastError();
}

// The limits say whether the device has an image unit: gfx90a's T# holds 14-bit extents; gfx940
// and later have no image instructions, report 0 and refuse texture objects (the suite runs this
// once more on an emulated gfx942).
TEST(HipTextures, LimitsFollowTheImageUnit) {
  int dev = 0;
  HIP_ASSERT(hipGetDevice(&dev));
  hipDeviceProp_t p;
  HIP_ASSERT(hipGetDeviceProperties(&p, dev));
  const bool no_images = std::strncmp(p.gcnArchName, "gfx94", 5) == 0;
  float* mem = nullptr;
  HIP_ASSERT(hipMalloc(&mem, 4096));
  hipResourceDesc res{};
  res.resType = hipResourceTypeLinear;
  res.res.linear.devPtr = mem;
  res.res.linear.desc = hipCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = 4096;
  hipTextureDesc td{};
  hipTextureObject_t t = nullptr;
  // Programs ask hipDeviceAttributeImageSupport before they use textures (AMD's rocm-examples'
  // texture_management does).
  int image_support = -1;
  HIP_ASSERT(hipDeviceGetAttribute(&image_support, hipDeviceAttributeImageSupport, dev));
  EXPECT_EQ(image_support, no_images ? 0 : 1);
  if (no_images) {
    EXPECT_EQ(p.maxTexture2D[0], 0);
    EXPECT_EQ(p.maxTexture1DLinear, 0);
    EXPECT_EQ(hipCreateTextureObject(&t, &res, &td, nullptr), hipErrorNotSupported);
    EXPECT_EQ(t, nullptr);
  } else {
    EXPECT_EQ(p.maxTexture1D, 16384);
    EXPECT_EQ(p.maxTexture2D[1], 16384);
    EXPECT_EQ(p.maxTexture3D[2], 8192);
    HIP_ASSERT(hipCreateTextureObject(&t, &res, &td, nullptr));
    HIP_ASSERT(hipDestroyTextureObject(t));
  }
  HIP_ASSERT(hipFree(mem));
  (void)hipGetLastError();
}

// The driver-API copies name arrays by memory type: hipMemcpyParam2D into a window of a 2-D
// array, hipDrvMemcpy3D out of a 3-D one; a window past the array's end is refused.
TEST(HipArrays, DriverApiCopiesNameArrays) {
  Array2D arr;
  make_pattern_array(&arr);
  std::vector<float> ones(5 * 3, 7.5f);
  hip_Memcpy2D m{};
  m.srcMemoryType = hipMemoryTypeHost;
  m.srcHost = ones.data();
  m.srcPitch = 5 * sizeof(float);
  m.dstMemoryType = hipMemoryTypeArray;
  m.dstArray = arr.a;
  m.dstXInBytes = 2 * sizeof(float);
  m.dstY = 4;
  m.WidthInBytes = 5 * sizeof(float);
  m.Height = 3;
  HIP_ASSERT(hipMemcpyParam2D(&m));
  std::vector<float> back(kW * kH);
  HIP_ASSERT(hipMemcpy2DFromArray(back.data(), kW * sizeof(float), arr.a, 0, 0, kW * sizeof(float), kH,
                                  hipMemcpyDeviceToHost));
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const bool in = x >= 2 && x < 7 && y >= 4 && y < 7;
      ASSERT_EQ(back[y * kW + x], in ? 7.5f : value(x, y)) << x << "," << y;
    }
  m.dstY = kH - 2;  // three rows from the second-to-last
  EXPECT_EQ(hipMemcpyParam2D(&m), hipErrorInvalidValue);

  constexpr int w = 6, h = 4, d = 3;
  auto host = pattern(w, h, d);
  hipChannelFormatDesc cd = hipCreateChannelDesc<float>();
  hipArray_t a3 = nullptr;
  HIP_ASSERT(hipMalloc3DArray(&a3, &cd, make_hipExtent(w, h, d), 0));
  hipMemcpy3DParms in{};
  in.srcPtr = make_hipPitchedPtr(host.data(), w * sizeof(float), w, h);
  in.dstArray = a3;
  in.extent = make_hipExtent(w, h, d);
  in.kind = hipMemcpyHostToDevice;
  HIP_ASSERT(hipMemcpy3D(&in));
  std::vector<float> out(w * 2 * 2, -1.0f);
  HIP_MEMCPY3D q{};
  q.srcMemoryType = hipMemoryTypeArray;
  q.srcArray = a3;
  q.srcXInBytes = sizeof(float);
  q.srcY = 1;
  q.srcZ = 1;
  q.dstMemoryType = hipMemoryTypeHost;
  q.dstHost = out.data();
  q.dstPitch = w * sizeof(float);
  q.dstHeight = 2;
  q.WidthInBytes = 4 * sizeof(float);
  q.Height = 2;
  q.Depth = 2;
  HIP_ASSERT(hipDrvMemcpy3D(&q));
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < w; ++x)
        ASSERT_EQ(out[(z * 2 + y) * w + x], x < 4 ? value(x + 1, y + 1, z + 1) : -1.0f) << x << "," << y << "," << z;
  q.srcZ = 2;  // slices 2 and 3 of three
  EXPECT_EQ(hipDrvMemcpy3D(&q), hipErrorInvalidValue);
  HIP_ASSERT(hipFreeArray(a3));
  (void)hipGetLastError();
}
