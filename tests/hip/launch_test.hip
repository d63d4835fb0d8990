// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): launch checks, argument layout, built-ins, atomics, lanes, math.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

struct Pod {
  char c;
  double d;
  short s[3];
};

__global__ void echo_args(char c, short s, int i, long long l, float f, double d, Pod p, const int* ptr,
                          double* out) {
  out[0] = c;
  out[1] = s;
  out[2] = i;
  out[3] = double(l);
  out[4] = f;
  out[5] = d;
  out[6] = p.c + p.d + p.s[0] + p.s[1] + p.s[2];
  out[7] = ptr[0];
}

__global__ void ids(unsigned* out) {
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned g = b * blockDim.x * blockDim.y * blockDim.z + t;
  out[g * 4 + 0] = t;
  out[g * 4 + 1] = b;
  out[g * 4 + 2] = blockDim.x * 10000 + blockDim.y * 100 + blockDim.z;
  out[g * 4 + 3] = gridDim.x * 10000 + gridDim.y * 100 + gridDim.z;
}

__global__ void lanes(int* out) {
  int lane = threadIdx.x;
  out[lane] = __shfl(lane * 2, 5);                 // everyone reads lane 5
  out[64 + lane] = __shfl_down(lane, 1);           // the next lane (the last keeps its own)
  out[128 + lane] = __shfl_up(lane, 1);            // the previous lane (the first keeps its own)
  out[192 + lane] = __shfl_xor(lane, 1);           // pairs swapped
  unsigned long long odd = __ballot(lane & 1);
  out[256 + lane] = __popcll(odd) + __any(lane == 63) * 1000 + __all(lane < 64) * 10000 + __popc(0xF0u) * 100000;
  double dv = __shfl(double(lane) + 0.5, 63);
  out[320 + lane] = int(dv * 2);
  out[384 + lane] = warpSize;
}

__global__ void atomics(int* i, unsigned* u, unsigned long long* ull, float* f, double* d) {
  atomicAdd(i, 1);
  atomicSub(i + 1, 2);
  atomicMax(i + 2, int(threadIdx.x));
  atomicMin(i + 3, -int(threadIdx.x));
  atomicOr(u, 1u << (threadIdx.x % 32));
  atomicInc(u + 1, 9);
  atomicAdd(ull, 1ull << 33);
  atomicCAS(ull + 1, 0ull, 77ull);
  atomicAdd(f, 0.5f);
  atomicAdd(d, 0.25);
  atomicExch(i + 4, 5);
}

__global__ void block_sum(const int* in, int* out) {
  __shared__ int partial[256];
  partial[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int step = 128; step > 0; step >>= 1) {
    if (int(threadIdx.x) < step) partial[threadIdx.x] += partial[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

__global__ void math(float* out) {
  float x = 0.5f + threadIdx.x;
  out[threadIdx.x * 4 + 0] = sinf(x);
  out[threadIdx.x * 4 + 1] = expf(x / 4);
  out[threadIdx.x * 4 + 2] = sqrtf(x);
  out[threadIdx.x * 4 + 3] = float(pow(double(x), 1.5));
}

__global__ void clocks(long long* out) {
  long long a = clock64();
  long long w = wall_clock64();
  for (volatile int k = 0; k < 100; k = k + 1) {
  }
  out[0] = clock64() - a;
  out[1] = wall_clock64() - w;
  out[2] = w;
}

template <class T>
__global__ void fill_t(T* p, T v) {
  p[threadIdx.x] = v;
}

void not_a_kernel() {}

class HipLaunch : public ::testing::Test {
 protected:
  void TearDown() override { (void)hipGetLastError(); }
};

TEST_F(HipLaunch, ArgumentsFollowTheMetadataLayout) {
  int* ptr;
  double* out;
  ASSERT_EQ(hipMalloc(&ptr, sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMalloc(&out, 8 * sizeof(double)), hipSuccess);
  int v = 99;
  ASSERT_EQ(hipMemcpy(ptr, &v, sizeof v, hipMemcpyHostToDevice), hipSuccess);
  Pod p{3, 0.5, {1, 2, 4}};
  echo_args<<<1, 1>>>(char(-5), short(-300), 123456, 1ll << 40, 1.25f, -2.5, p, ptr, out);
  std::vector<double> h(8);
  ASSERT_EQ(hipMemcpy(h.data(), out, 8 * sizeof(double), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], -5);
  EXPECT_EQ(h[1], -300);
  EXPECT_EQ(h[2], 123456);
  EXPECT_EQ(h[3], double(1ll << 40));
  EXPECT_EQ(h[4], 1.25);
  EXPECT_EQ(h[5], -2.5);
  EXPECT_EQ(h[6], 10.5);
  EXPECT_EQ(h[7], 99);
  // The same kernel through hipLaunchKernel with an argument array.
  char c = 1;
  short s = 2;
  int i = 3;
  long long l = 4;
  float f = 5;
  double d = 6;
  void* args[] = {&c, &s, &i, &l, &f, &d, &p, &ptr, &out};
  ASSERT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(echo_args), dim3(1), dim3(1), args, 0, 0), hipSuccess);
  ASSERT_EQ(hipMemcpy(h.data(), out, 8 * sizeof(double), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0] + h[1] + h[2] + h[3] + h[4] + h[5], 21);
  EXPECT_EQ(hipFree(ptr), hipSuccess);
  EXPECT_EQ(hipFree(out), hipSuccess);
}

TEST_F(HipLaunch, BuiltinsIn3D) {
  dim3 grid(3, 2, 2), block(4, 2, 8);
  unsigned total = 12 * 64;
  unsigned* out;
  ASSERT_EQ(hipMalloc(&out, total * 4 * sizeof(unsigned)), hipSuccess);
  hipLaunchKernelGGL(ids, grid, block, 0, 0, out);
  std::vector<unsigned> h(total * 4);
  ASSERT_EQ(hipMemcpy(h.data(), out, h.size() * sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
  int bad = 0;
  for (unsigned g = 0; g < total; ++g) {
    bad += h[g * 4 + 0] != g % 64 || h[g * 4 + 1] != g / 64;
    bad += h[g * 4 + 2] != 40208u || h[g * 4 + 3] != 30202u;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(hipFree(out), hipSuccess);
}

TEST_F(HipLaunch, CrossLaneOperations) {
  int* out;
  ASSERT_EQ(hipMalloc(&out, 448 * sizeof(int)), hipSuccess);
  lanes<<<1, 64>>>(out);
  std::vector<int> h(448);
  ASSERT_EQ(hipMemcpy(h.data(), out, h.size() * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  int bad = 0;
  for (int l = 0; l < 64; ++l) {
    bad += h[l] != 10;
    bad += h[64 + l] != (l == 63 ? 63 : l + 1);
    bad += h[128 + l] != (l == 0 ? 0 : l - 1);
    bad += h[192 + l] != (l ^ 1);
    bad += h[256 + l] != 32 + 1000 + 10000 + 400000;
    bad += h[320 + l] != 127;
    bad += h[384 + l] != 64;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(hipFree(out), hipSuccess);
}

TEST_F(HipLaunch, AtomicsOfEveryWidth) {
  struct Buf {
    int i[5];
    unsigned u[2];
    unsigned long long ull[2];
    float f;
    double d;
  } init{{0, 0, -1, 0, 0}, {0, 0}, {0, 0}, 0, 0}, h{};
  Buf* d;
  ASSERT_EQ(hipMalloc(&d, sizeof(Buf)), hipSuccess);
  ASSERT_EQ(hipMemcpy(d, &init, sizeof init, hipMemcpyHostToDevice), hipSuccess);
  atomics<<<2, 64>>>(d->i, d->u, d->ull, &d->f, &d->d);
  ASSERT_EQ(hipMemcpy(&h, d, sizeof h, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h.i[0], 128);
  EXPECT_EQ(h.i[1], -256);
  EXPECT_EQ(h.i[2], 63);
  EXPECT_EQ(h.i[3], -63);
  EXPECT_EQ(h.i[4], 5);
  EXPECT_EQ(h.u[0], 0xFFFFFFFFu);
  EXPECT_EQ(h.u[1], 128u % 10u);
  EXPECT_EQ(h.ull[0], 128ull << 33);
  EXPECT_EQ(h.ull[1], 77ull);
  EXPECT_EQ(h.f, 64.0f);
  EXPECT_EQ(h.d, 32.0);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(HipLaunch, SharedMemoryReduction) {
  const int blocks = 8;
  std::vector<int> in(blocks * 256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i % 17);
  int *din, *dout;
  ASSERT_EQ(hipMalloc(&din, in.size() * sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMalloc(&dout, blocks * sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemcpy(din, in.data(), in.size() * sizeof(int), hipMemcpyHostToDevice), hipSuccess);
  block_sum<<<blocks, 256>>>(din, dout);
  std::vector<int> out(blocks);
  ASSERT_EQ(hipMemcpy(out.data(), dout, blocks * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int i = 0; i < 256; ++i) want += in[b * 256 + i];
    EXPECT_EQ(out[b], want) << b;
  }
  EXPECT_EQ(hipFree(din), hipSuccess);
  EXPECT_EQ(hipFree(dout), hipSuccess);
}

TEST_F(HipLaunch, DeviceLibraryMath) {
  float* out;
  ASSERT_EQ(hipMalloc(&out, 64 * 4 * sizeof(float)), hipSuccess);
  math<<<1, 64>>>(out);
  std::vector<float> h(256);
  ASSERT_EQ(hipMemcpy(h.data(), out, h.size() * sizeof(float), hipMemcpyDeviceToHost), hipSuccess);
  for (int t = 0; t < 64; ++t) {
    float x = 0.5f + t;
    EXPECT_NEAR(h[t * 4 + 0], std::sin(x), 1e-5);
    EXPECT_NEAR(h[t * 4 + 1], std::exp(x / 4), 1e-3 * std::exp(x / 4));
    EXPECT_NEAR(h[t * 4 + 2], std::sqrt(x), 1e-5);
    EXPECT_NEAR(h[t * 4 + 3], std::pow(double(x), 1.5), 1e-3);
  }
  EXPECT_EQ(hipFree(out), hipSuccess);
}

TEST_F(HipLaunch, ClocksAdvance) {
  long long* out;
  ASSERT_EQ(hipMalloc(&out, 3 * sizeof(long long)), hipSuccess);
  clocks<<<1, 1>>>(out);
  long long h[3];
  ASSERT_EQ(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_GT(h[0], 0);
  EXPECT_GE(h[1], 0);
  EXPECT_GT(h[2], 0);
  EXPECT_EQ(hipFree(out), hipSuccess);
}

TEST_F(HipLaunch, TemplateKernels) {
  double* d;
  ASSERT_EQ(hipMalloc(&d, 64 * sizeof(double)), hipSuccess);
  hipLaunchKernelGGL(fill_t<double>, dim3(1), dim3(64), 0, 0, d, 2.5);
  fill_t<int><<<1, 32>>>(reinterpret_cast<int*>(d), 7);
  std::vector<double> h(64);
  ASSERT_EQ(hipMemcpy(h.data(), d, h.size() * sizeof(double), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[63], 2.5);
  EXPECT_EQ(reinterpret_cast<int*>(h.data())[31], 7);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

// One record per launch: its tag and the shape the kernel sees (from the packet or the hidden
// arguments, whichever the code object uses).
__global__ void shape(unsigned* out, unsigned tag) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0) {
    out[0] = tag;
    out[1] = gridDim.x;
    out[2] = gridDim.y;
    out[3] = blockDim.x;
  }
}

// A stream keeps the launches it saw prepared (packet and hidden arguments built once) and
// repeats them with new explicit arguments: twelve shapes, more than it keeps, each launched
// three times in turn, every launch with its own output and tag.
TEST_F(HipLaunch, RepeatedLaunchesKeepTheirOwnArgumentsAndShapes) {
  constexpr unsigned kShapes = 12, kRounds = 3;
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  unsigned* out;
  ASSERT_EQ(hipMalloc(&out, kShapes * kRounds * 4 * sizeof(unsigned)), hipSuccess);
  ASSERT_EQ(hipMemset(out, 0, kShapes * kRounds * 4 * sizeof(unsigned)), hipSuccess);
  auto grid_of = [](unsigned c) { return dim3(1 + c % 3, 1 + (c / 3) % 2); };
  auto block_of = [](unsigned c) { return dim3(c < 6 ? 64 : 32); };
  for (unsigned r = 0; r < kRounds; ++r)
    for (unsigned c = 0; c < kShapes; ++c)
      shape<<<grid_of(c), block_of(c), 0, s>>>(out + 4 * (r * kShapes + c), 1000 * r + c);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  std::vector<unsigned> h(kShapes * kRounds * 4);
  ASSERT_EQ(hipMemcpyAsync(h.data(), out, h.size() * sizeof(unsigned), hipMemcpyDeviceToHost, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  for (unsigned r = 0; r < kRounds; ++r)
    for (unsigned c = 0; c < kShapes; ++c) {
      const unsigned* rec = &h[4 * (r * kShapes + c)];
      EXPECT_EQ(rec[0], 1000 * r + c) << r << " " << c;
      EXPECT_EQ(rec[1], grid_of(c).x) << r << " " << c;
      EXPECT_EQ(rec[2], grid_of(c).y) << r << " " << c;
      EXPECT_EQ(rec[3], block_of(c).x) << r << " " << c;
    }
  EXPECT_EQ(hipFree(out), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// A launch of a prepared shape checks its arguments as the first one did: a null argument
// pointer is refused before anything is written, and the kernel does not run.
TEST_F(HipLaunch, PreparedLaunchesStillCheckTheirArguments) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  unsigned* out;
  ASSERT_EQ(hipMalloc(&out, 4 * sizeof(unsigned)), hipSuccess);
  for (unsigned tag = 1; tag <= 2; ++tag) shape<<<dim3(2), dim3(64), 0, s>>>(out, tag);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  unsigned tag = 3;
  void* bad[] = {&out, nullptr};
  EXPECT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(shape), dim3(2), dim3(64), bad, 0, s), hipErrorInvalidValue);
  void* none[] = {nullptr, &tag};
  EXPECT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(shape), dim3(2), dim3(64), none, 0, s), hipErrorInvalidValue);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  unsigned h = 0;
  ASSERT_EQ(hipMemcpy(&h, out, sizeof h, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h, 2u);  // the last launch that ran
  EXPECT_EQ(hipFree(out), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HipLaunch, BadConfigurationsAreRejected) {
  int* d;
  ASSERT_EQ(hipMalloc(&d, 1024 * sizeof(int)), hipSuccess);
  (void)hipGetLastError();
  fill_t<int><<<1, 1025>>>(d, 1);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
  fill_t<int><<<dim3(1), dim3(32, 32, 2)>>>(d, 1);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
  fill_t<int><<<0, 64>>>(d, 1);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
  fill_t<int><<<dim3(1), dim3(0)>>>(d, 1);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
  fill_t<int><<<1, 64, 65 * 1024>>>(d, 1);  // more LDS than a workgroup has
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
  fill_t<int><<<1, 64>>>(d, 1);
  EXPECT_EQ(hipGetLastError(), hipSuccess);
  void* args[] = {&d};
  EXPECT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(not_a_kernel), dim3(1), dim3(1), args, 0, 0),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipLaunchKernel(nullptr, dim3(1), dim3(1), args, 0, 0), hipErrorInvalidDeviceFunction);
  hipStream_t bogus = reinterpret_cast<hipStream_t>(0x1234);
  EXPECT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(fill_t<int>), dim3(1), dim3(1), args, 0, bogus),
            hipErrorInvalidHandle);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(HipLaunch, FunctionAttributesAndOccupancy) {
  hipFuncAttributes a;
  ASSERT_EQ(hipFuncGetAttributes(&a, block_sum), hipSuccess);
  EXPECT_EQ(a.sharedSizeBytes, 256 * sizeof(int));
  EXPECT_GE(a.maxThreadsPerBlock, 256);
  EXPECT_GT(a.numRegs, 0);
  EXPECT_EQ(hipFuncGetAttributes(nullptr, reinterpret_cast<const void*>(block_sum)), hipErrorInvalidValue);
  EXPECT_EQ(hipFuncGetAttributes(&a, reinterpret_cast<const void*>(not_a_kernel)), hipErrorInvalidDeviceFunction);
  int grid = 0, block = 0;
  ASSERT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, block_sum, 0, 0), hipSuccess);
  EXPECT_GT(grid, 0);
  EXPECT_GE(block, 64);
  int blocks = 0;
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, block_sum, 256, 0), hipSuccess);
  EXPECT_GT(blocks, 0);
}

__global__ void tiny(int* out) { out[threadIdx.x] = 1; }

__global__ void lds_hog(int* out) {
  __shared__ int big[4096];  // 16 KiB
  big[threadIdx.x] = int(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = big[4095 - threadIdx.x % 4096];
}

// HIP's model: a block takes whole waves; a compute unit has simds x waves-per-simd wave slots,
// fewer when the kernel's registers do not fit that many, and a share of LDS.
TEST_F(HipLaunch, OccupancyCountsWavesRegistersAndLds) {
  hipDeviceProp_tR0600 p;  // HIP 6's layout has the per-multiprocessor limits
  ASSERT_EQ(hipGetDevicePropertiesR0600(&p, 0), hipSuccess);
  const int wave_slots = p.maxThreadsPerMultiProcessor / p.warpSize;
  hipFuncAttributes a;
  ASSERT_EQ(hipFuncGetAttributes(&a, tiny), hipSuccess);
  const bool unified = std::string(p.gcnArchName).rfind("gfx90a", 0) == 0 ||
                       std::string(p.gcnArchName).rfind("gfx94", 0) == 0;
  const int granule = unified ? 8 : 4, file = unified ? 512 : 256;
  const int simds = 4, per_simd = wave_slots / simds;
  const int by_vgprs = std::min(per_simd, file / ((a.numRegs + granule - 1) / granule * granule)) * simds;
  int blocks = 0;
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, 32, 0), hipSuccess);
  EXPECT_EQ(blocks, std::min(by_vgprs, p.maxBlocksPerMultiProcessor));  // half-empty waves count whole
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, 256, 0), hipSuccess);
  EXPECT_EQ(blocks, by_vgprs / 4);
  blocks = -1;  // the same with hipOccupancyDefault, the only flag HIP has
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, tiny, 256, 0, hipOccupancyDefault), hipSuccess);
  EXPECT_EQ(blocks, by_vgprs / 4);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, tiny, 256, 0, 1u), hipErrorInvalidValue);
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, 100, 32 * 1024), hipSuccess);
  EXPECT_EQ(blocks, int(p.sharedMemPerMultiprocessor / (32 * 1024)));  // LDS-bound
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, lds_hog, 64, 0), hipSuccess);
  EXPECT_EQ(blocks, int(p.sharedMemPerMultiprocessor / (16 * 1024)));
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, 2048, 0), hipSuccess);
  EXPECT_EQ(blocks, 0);  // more threads than a block may have
  int grid = 0, block = 0;
  ASSERT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, tiny, 0, 0), hipSuccess);
  ASSERT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, block, 0), hipSuccess);
  EXPECT_EQ(block * blocks, by_vgprs * p.warpSize);  // every slot filled with whole waves
  EXPECT_EQ(grid, blocks * p.multiProcessorCount);
  ASSERT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, tiny, 0, 100), hipSuccess);
  EXPECT_LE(block, 100);
  EXPECT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, tiny, size_t(1) << 20, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, tiny, 0, -1), hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, tiny, 64, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(&p), 64, 0),
            hipErrorInvalidDeviceFunction);
  // No kernel at all is an invalid value (HIP 5.2), an unknown one an invalid function; the
  // kernel's pointer type may be named as the template argument, as HIP's headers allow.
  EXPECT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, static_cast<const void*>(nullptr), 0, 0),
            hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, reinterpret_cast<const void*>(&p), 0, 0),
            hipErrorInvalidDeviceFunction);
  ASSERT_EQ(hipOccupancyMaxPotentialBlockSize<decltype(&tiny)>(&grid, &block, tiny, 0, 0), hipSuccess);
  EXPECT_GT(block, 0);
  (void)hipGetLastError();
}
