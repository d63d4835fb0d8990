// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): language and API surface real HIP programs use (found
// missing by HIP's own directed tests): the short vector types' constructors and operators on
// the host and in kernels, memcpy / memset in kernels, __clock, atomicAddNoRet, a kernel template
// launched by name through hipExtLaunchKernelGGL, hipChooseDevice, hipDeviceGetP2PAttribute and
// the typed allocation templates on volatile pointers, __align__.
#include <gtest/gtest.h>
#include <hip/hip_ext.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <type_traits>
#include <vector>

#define HIP_ASSERT(x) ASSERT_EQ((x), hipSuccess)

static_assert(std::is_same<float4::value_type, float>::value, "value_type");
static_assert(std::is_same<uchar1::value_type, unsigned char>::value, "value_type");
static_assert(std::is_trivially_default_constructible<float4>::value, "usable in __shared__ memory and unions");
static_assert(std::is_trivially_copyable<int3>::value, "copied as bytes");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16 && sizeof(char3) == 3, "HIP's layouts");
static_assert(!std::is_convertible<float, float2>::value, "a scalar fills a vector only explicitly");
static_assert(std::is_convertible<int, char1>::value, "one-component vectors convert implicitly");
// CUDA's alignment specifier (rocWMMA declares its vector class `class __align__(4) VecT`).
struct __align__(16) Aligned16 {
  float x;
};
static_assert(alignof(Aligned16) == 16, "__align__");

// Every operator family once, returning what the host computes the same way.
template <class V>
__host__ __device__ V vector_ops(V a, V b) {
  V c = a + b * 2 - V(1);  // vector-scalar, vector-vector
  c += 3;
  c = 2 * c;               // scalar on the left
  c -= b;
  ++c;
  c--;
  V d = -c;
  d = d / V(2);
  return (d == c) ? a : d;  // == over all components
}

template <class V>
__host__ __device__ V integer_ops(V a, V b) {
  V c = (a % b) | (a & b);
  c ^= V(5);
  c <<= 2;
  c = c >> 1;
  c = ~c;
  return c;
}

__global__ void device_vector_ops(float4* f, int3* i, char1* c, uchar2* u) {
  f[0] = vector_ops(f[0], f[1]);
  i[0] = integer_ops(i[0], i[1]);
  c[0] = integer_ops(c[0], c[1]);
  c[0] += 1;
  u[0] = uchar2{~1, 1};  // converting constructor, as HIP's
}

TEST(HipVectorTypes, OperatorsAgreeOnHostAndDevice) {
  float4 f[2] = {make_float4(1, 2, 3, 4), make_float4(-2, 0.5f, 7, 1)};
  int3 i[2] = {make_int3(100, -7, 12345), make_int3(7, 3, 1000)};
  char1 c[2] = {char1(90), char1(7)};
  float4 fw = vector_ops(f[0], f[1]);
  int3 iw = integer_ops(i[0], i[1]);
  char1 cw = integer_ops(c[0], c[1]);
  cw += 1;
  float4* df;
  int3* di;
  char1* dc;
  uchar2* du;
  HIP_ASSERT(hipMalloc(&df, sizeof(f)));
  HIP_ASSERT(hipMalloc(&di, sizeof(i)));
  HIP_ASSERT(hipMalloc(&dc, sizeof(c)));
  HIP_ASSERT(hipMalloc(&du, sizeof(uchar2)));
  HIP_ASSERT(hipMemcpy(df, f, sizeof(f), hipMemcpyHostToDevice));
  HIP_ASSERT(hipMemcpy(di, i, sizeof(i), hipMemcpyHostToDevice));
  HIP_ASSERT(hipMemcpy(dc, c, sizeof(c), hipMemcpyHostToDevice));
  device_vector_ops<<<1, 1>>>(df, di, dc, du);
  float4 fd;
  int3 id;
  char1 cd;
  uchar2 ud;
  HIP_ASSERT(hipMemcpy(&fd, df, sizeof(fd), hipMemcpyDeviceToHost));
  HIP_ASSERT(hipMemcpy(&id, di, sizeof(id), hipMemcpyDeviceToHost));
  HIP_ASSERT(hipMemcpy(&cd, dc, sizeof(cd), hipMemcpyDeviceToHost));
  HIP_ASSERT(hipMemcpy(&ud, du, sizeof(ud), hipMemcpyDeviceToHost));
  EXPECT_TRUE(fd == fw);
  EXPECT_TRUE(id == iw);
  EXPECT_TRUE(cd == cw);
  EXPECT_FALSE(cd != cw);
  // Worked by hand: c = (1,2,3,4) + 2*(-2,.5,7,1) - 1 = (-4,2,16,5); +3, *2, -b, +1-1 = (0,9.5,31,15);
  // d = -c / 2.
  EXPECT_EQ(fw.x, -0.0f);
  EXPECT_EQ(fw.y, -4.75f);
  EXPECT_EQ(fw.w, -7.5f);
  EXPECT_EQ(iw.x, ~((((100 % 7) | (100 & 7)) ^ 5) << 2 >> 1));
  EXPECT_EQ(ud.x, 254);
  EXPECT_EQ(ud.y, 1);
  for (void* p : {(void*)df, (void*)di, (void*)dc, (void*)du}) HIP_ASSERT(hipFree(p));
}

struct Blob {
  int words[9];
  char tail[3];
};

__global__ void copy_and_fill(Blob* out, const Blob* in, unsigned char* bytes, int n) {
  Blob local;
  memcpy(&local, &in[threadIdx.x], sizeof(Blob));
  local.words[0] += 1;
  memcpy(&out[threadIdx.x], &local, sizeof(Blob));
  if (threadIdx.x == 0) memset(bytes, 0x5a, n);
}

TEST(HipDeviceLibrary, MemcpyAndMemsetInKernels) {
  std::vector<Blob> in(64);
  for (int t = 0; t < 64; ++t) {
    for (int k = 0; k < 9; ++k) in[t].words[k] = t * 100 + k;
    in[t].tail[0] = char(t), in[t].tail[1] = 'x', in[t].tail[2] = 'y';
  }
  Blob *din, *dout;
  unsigned char* bytes;
  HIP_ASSERT(hipMalloc(&din, 64 * sizeof(Blob)));
  HIP_ASSERT(hipMalloc(&dout, 64 * sizeof(Blob)));
  HIP_ASSERT(hipMalloc(&bytes, 100));
  HIP_ASSERT(hipMemset(bytes, 0, 100));
  HIP_ASSERT(hipMemcpy(din, in.data(), 64 * sizeof(Blob), hipMemcpyHostToDevice));
  copy_and_fill<<<1, 64>>>(dout, din, bytes, 77);
  std::vector<Blob> out(64);
  HIP_ASSERT(hipMemcpy(out.data(), dout, 64 * sizeof(Blob), hipMemcpyDeviceToHost));
  std::vector<unsigned char> b(100);
  HIP_ASSERT(hipMemcpy(b.data(), bytes, 100, hipMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(out[t].words[0], t * 100 + 1);
    EXPECT_EQ(out[t].words[8], t * 100 + 8);
    EXPECT_EQ(out[t].tail[0], char(t));
    EXPECT_EQ(out[t].tail[2], 'y');
  }
  for (int k = 0; k < 100; ++k) EXPECT_EQ(b[k], k < 77 ? 0x5a : 0) << k;
  for (void* p : {(void*)din, (void*)dout, (void*)bytes}) HIP_ASSERT(hipFree(p));
}

__global__ void clocks_and_adds(long long* t, float* sum) {
  long long a = __clock(), b = __clock64(), c = clock64();
  t[threadIdx.x] = (b >= a && c >= b) ? 1 : 0;
  atomicAddNoRet(sum, 0.5f);
}

TEST(HipDeviceLibrary, ClocksAndAtomicAddNoRet) {
  long long* t;
  float* sum;
  HIP_ASSERT(hipMalloc(&t, 64 * sizeof(long long)));
  HIP_ASSERT(hipMalloc(&sum, sizeof(float)));
  HIP_ASSERT(hipMemset(sum, 0, sizeof(float)));
  clocks_and_adds<<<4, 64>>>(t, sum);
  std::vector<long long> h(64);
  float s = 0;
  HIP_ASSERT(hipMemcpy(h.data(), t, 64 * sizeof(long long), hipMemcpyDeviceToHost));
  HIP_ASSERT(hipMemcpy(&s, sum, sizeof(float), hipMemcpyDeviceToHost));
  for (long long v : h) EXPECT_EQ(v, 1);  // the shader clock never runs backwards
  EXPECT_EQ(s, 128.0f);
  HIP_ASSERT(hipFree(t));
  HIP_ASSERT(hipFree(sum));
}

template <class T>
__global__ void add_vectors(const T* a, const T* b, T* c, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) c[i] = a[i] + b[i];
}

TEST(HipLaunch, ExtLaunchOfAKernelTemplateByName) {
  constexpr int n = 300;
  std::vector<int> a(n), b(n), c(n, 0);
  for (int i = 0; i < n; ++i) a[i] = i, b[i] = 3 * i;
  int *da, *db, *dc;
  HIP_ASSERT(hipMalloc(&da, n * sizeof(int)));
  HIP_ASSERT(hipMalloc(&db, n * sizeof(int)));
  HIP_ASSERT(hipMalloc(&dc, n * sizeof(int)));
  HIP_ASSERT(hipMemcpy(da, a.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_ASSERT(hipMemcpy(db, b.data(), n * sizeof(int), hipMemcpyHostToDevice));
  // The instance is the one whose parameters are the arguments' types (add_vectors<int>).
  hipExtLaunchKernelGGL(add_vectors, dim3(3), dim3(128), 0, nullptr, nullptr, nullptr, 0,
                        static_cast<const int*>(da), static_cast<const int*>(db), dc, n);
  HIP_ASSERT(hipMemcpy(c.data(), dc, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 4 * i) << i;
  for (void* p : {(void*)da, (void*)db, (void*)dc}) HIP_ASSERT(hipFree(p));
}

TEST(HipDevices, ChooseDeviceAndPeerAttributes) {
  hipDeviceProp_t want{};
  int count = 0;
  HIP_ASSERT(hipGetDeviceCount(&count));
  hipDeviceProp_t p0;
  HIP_ASSERT(hipGetDeviceProperties(&p0, 0));
  want.major = p0.major;
  want.minor = p0.minor;
  int dev = -1;
  HIP_ASSERT(hipChooseDevice(&dev, &want));
  EXPECT_GE(dev, 0);
  EXPECT_LT(dev, count);
  hipDeviceProp_t chosen;
  HIP_ASSERT(hipGetDeviceProperties(&chosen, dev));
  EXPECT_EQ(chosen.major, p0.major);
  EXPECT_EQ(hipChooseDevice(nullptr, &want), hipErrorInvalidValue);
  int v = -1;
  EXPECT_EQ(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 0, 0), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 0, count), hipErrorInvalidDevice);
  if (count > 1) {
    int can = 0;
    HIP_ASSERT(hipDeviceCanAccessPeer(&can, 0, 1));
    HIP_ASSERT(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 0, 1));
    EXPECT_EQ(v, can);
    HIP_ASSERT(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrPerformanceRank, 1, 0));
    EXPECT_GE(v, 0);
  }
  (void)hipGetLastError();
}

__global__ void write_flag(volatile int* p) { *p = 42; }

TEST(HipMemory, TypedAllocationTemplatesTakeVolatilePointers) {
  volatile int* flag = nullptr;
  HIP_ASSERT(hipHostMalloc(&flag, sizeof(int), hipHostMallocCoherent));
  *flag = 0;
  write_flag<<<1, 1>>>(flag);
  HIP_ASSERT(hipDeviceSynchronize());
  EXPECT_EQ(*flag, 42);
  HIP_ASSERT(hipHostFree(const_cast<int*>(flag)));
}

__global__ void dots(int* i, unsigned* u, float* f) {
  i[0] = amd_mixed_dot(make_short2(-3, 200), make_short2(7, -5), 10, false);
  i[1] = amd_mixed_dot(make_char4(-1, 2, -3, 4), make_char4(5, 6, 7, 8), 100, false);
  i[2] = amd_mixed_dot(make_short2(32767, 32767), make_short2(32767, 32767), 2147483000, true);  // clamps
  // Eight signed nibbles: 0x12345670 . 0x11111111 = 0+7+6+...+1 = 28 (nibbles < 8 are positive).
  i[3] = amd_mixed_dot(0x12345670, 0x11111111, 0, false);
  u[0] = amd_mixed_dot(make_uchar4(255, 1, 2, 3), make_uchar4(2, 3, 4, 5), 1u, false);
  u[1] = amd_mixed_dot(make_ushort2(65535, 2), make_ushort2(2, 3), 0u, false);
  f[0] = amd_mixed_dot(__half2(__float2half(1.5f), __float2half(-2.0f)), __half2(__float2half(4.0f), __float2half(0.25f)),
                       0.5f, false);
}

TEST(HipDeviceLibrary, MixedDotProducts) {
  int* i;
  unsigned* u;
  float* f;
  HIP_ASSERT(hipMalloc(&i, 4 * sizeof(int)));
  HIP_ASSERT(hipMalloc(&u, 2 * sizeof(unsigned)));
  HIP_ASSERT(hipMalloc(&f, sizeof(float)));
  dots<<<1, 1>>>(i, u, f);
  int hi[4];
  unsigned hu[2];
  float hf;
  HIP_ASSERT(hipMemcpy(hi, i, sizeof(hi), hipMemcpyDeviceToHost));
  HIP_ASSERT(hipMemcpy(hu, u, sizeof(hu), hipMemcpyDeviceToHost));
  HIP_ASSERT(hipMemcpy(&hf, f, sizeof(hf), hipMemcpyDeviceToHost));
  EXPECT_EQ(hi[0], -3 * 7 + 200 * -5 + 10);
  EXPECT_EQ(hi[1], -5 + 12 - 21 + 32 + 100);
  EXPECT_EQ(hi[2], 2147483647);
  EXPECT_EQ(hi[3], 1 + 2 + 3 + 4 + 5 + 6 + 7 + 0);
  EXPECT_EQ(hu[0], 255u * 2 + 3 + 8 + 15 + 1);
  EXPECT_EQ(hu[1], 65535u * 2 + 6);
  EXPECT_EQ(hf, 1.5f * 4.0f - 2.0f * 0.25f + 0.5f);
  HIP_ASSERT(hipFree(i));
  HIP_ASSERT(hipFree(u));
  HIP_ASSERT(hipFree(f));
}

template <class A, class B>
__global__ void scale_by(A* out, B k) {
  out[threadIdx.x] = A(threadIdx.x) * A(k);
}

// hipLaunchKernelGGL's launch configuration may come from a macro that stands for several of its
// arguments, and the kernel from a template-id with commas (HIP_KERNEL_NAME), as in HIP's tests.
TEST(HipLaunch, GglConfigurationFromAMacro) {
  int* d;
  HIP_ASSERT(hipMalloc(&d, 32 * sizeof(int)));
#define KFDRT_TEST_CONFIG dim3(1), dim3(32), 0, 0
  hipLaunchKernelGGL(HIP_KERNEL_NAME(scale_by<int, float>), KFDRT_TEST_CONFIG, d, 3.0f);
#undef KFDRT_TEST_CONFIG
  std::vector<int> h(32);
  HIP_ASSERT(hipMemcpy(h.data(), d, 32 * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) EXPECT_EQ(h[i], 3 * i);
  HIP_ASSERT(hipFree(d));
}

// ROCm 5.2's spellings of the half types: `data` views the raw bits as binary16 (a two-element
// vector in __half2_raw), a volatile __half_raw assigns to a __half, and a number on the right of
// __half2's compound assignments applies to both halves.
static_assert(std::is_assignable<__half&, volatile __half_raw&>::value, "volatile raw assigns");
static_assert(std::is_assignable<__half&, volatile __half_raw&&>::value, "volatile raw assigns");
static_assert(sizeof(__half_raw) == 2 && sizeof(__half2_raw) == 4, "raw sizes");

__global__ void half_spellings(float* out, __half2 a, __half b) {
  __half2_raw r = a;
  out[0] = static_cast<float>(r.data.x);
  out[1] = static_cast<float>(r.data.y);
  __half_raw rb = b;
  out[2] = static_cast<float>(rb.data);
  a += 1;
  a *= 2.0f;
  a -= 1.0;
  a /= 2;
  out[3] = __low2float(a);
  out[4] = __high2float(a);
  volatile __half_raw vr;
  vr.x = 0x4200;  // 3.0
  __half h;
  h = vr;
  out[5] = __half2float(h);
}

TEST(HipHalf, RocmRawViewsAndScalarCompoundAssignment) {
  float* d;
  HIP_ASSERT(hipMalloc(&d, 6 * sizeof(float)));
  half_spellings<<<1, 1>>>(d, __half2(__float2half(1.5f), __float2half(-4.0f)), __float2half(0.25f));
  float h[6];
  HIP_ASSERT(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 1.5f);
  EXPECT_EQ(h[1], -4.0f);
  EXPECT_EQ(h[2], 0.25f);
  EXPECT_EQ(h[3], ((1.5f + 1) * 2 - 1) / 2);
  EXPECT_EQ(h[4], ((-4.0f + 1) * 2 - 1) / 2);
  EXPECT_EQ(h[5], 3.0f);
  // The same on the host.
  __half2 a(__float2half(2.0f), __float2half(8.0f));
  a -= 1;
  a /= 0.5f;
  __half2_raw r = a;
  EXPECT_EQ(static_cast<float>(r.data.x), 2.0f);
  EXPECT_EQ(static_cast<float>(r.data.y), 14.0f);
  HIP_ASSERT(hipFree(d));
}

// The driver API's allocation spellings that HIP 5.2 keeps.
TEST(HipMemory, DriverApiHostAndPitchedAllocations) {
  int* h = nullptr;
  HIP_ASSERT(hipMemAllocHost(reinterpret_cast<void**>(&h), 64 * sizeof(int)));
  ASSERT_NE(h, nullptr);
  unsigned int flags = 99;
  HIP_ASSERT(hipHostGetFlags(&flags, h));
  EXPECT_EQ(flags, 0u);
  write_flag<<<1, 1>>>(h);
  HIP_ASSERT(hipDeviceSynchronize());
  EXPECT_EQ(h[0], 42);
  HIP_ASSERT(hipHostFree(h));
  hipDeviceptr_t p = nullptr;
  size_t pitch = 0, pitch_rt = 0;
  HIP_ASSERT(hipMemAllocPitch(&p, &pitch, 100, 3, 4));
  void* q = nullptr;
  HIP_ASSERT(hipMallocPitch(&q, &pitch_rt, 100, 3));
  EXPECT_EQ(pitch, pitch_rt);
  EXPECT_GE(pitch, 100u);
  HIP_ASSERT(hipMemset2D(p, pitch, 7, 100, 3));
  std::vector<unsigned char> back(pitch * 3);
  HIP_ASSERT(hipMemcpy(back.data(), p, back.size(), hipMemcpyDeviceToHost));
  EXPECT_EQ(back[2 * pitch + 99], 7);
  EXPECT_EQ(hipMemAllocPitch(&p, nullptr, 100, 3, 4), hipErrorInvalidValue);
  HIP_ASSERT(hipFree(p));
  HIP_ASSERT(hipFree(q));
}
