// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): kernels with private (scratch) memory through
// hipLaunchKernel and hipModuleLaunchKernel: spills, private arrays, dynamic stacks, the queue's
// scratch growing for a later kernel that needs more, and the error when none can be had.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "../../api/include/hc/detail/kfdrt_ext.h"

// For raw AQL dispatch (no hidden arguments): a 6000-word private array, more than any other
// kernel here needs, with the block size fixed at 64.
extern "C" __global__ void raw_private_array(const unsigned* idx, unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * 64 + threadIdx.x;
  if (i >= n) return;
  volatile unsigned arr[6000];
  for (unsigned k = 0; k < 6000; ++k) arr[k] = k * 3 + i;
  unsigned s = 0;
  for (unsigned k = 0; k < 8; ++k) s += arr[(idx[i] + k * 61) % 6000];
  out[i] = s;
}

namespace {

// Register spills: 48 values live across the loops and at most 24 VGPRs.
__global__ __attribute__((amdgpu_num_vgpr(24))) void spill(const float* in, float* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) v[k] = in[i * 48 + k] * float(k + 1);
  float acc = 0;
#pragma unroll
  for (int r = 1; r < 5; ++r)
#pragma unroll
    for (int k = 0; k < 48; ++k) acc += v[k] * v[(k * 7 + r) % 48];
  out[i] = acc;
}

// A private array of N words indexed by data (scratch), N chosen per test.
template <unsigned N>
__global__ void private_array(const unsigned* idx, unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  volatile unsigned arr[N];
  for (unsigned k = 0; k < N; ++k) arr[k] = k * 3 + i;
  unsigned s = 0;
  for (unsigned k = 0; k < 8; ++k) s += arr[(idx[i] + k * 61) % N];
  out[i] = s;
}

__device__ __attribute__((noinline)) unsigned fib(unsigned d, unsigned salt) {
  return d < 2 ? d + salt : fib(d - 1, salt) + fib(d - 2, salt * 3 + 1);
}

__global__ void recurse(unsigned* out, unsigned depth, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(depth, i);
}

// Close to the largest private segment a kernel may have (WAVESIZE: 8191 KiB per wave): its
// queue's backing store is about 4 GiB.
__global__ void huge_private(unsigned* out, unsigned k) {
  volatile unsigned char big[130000];
  unsigned i = threadIdx.x;
  big[(i * 977 + k) % 130000] = (unsigned char)(i + 1);
  out[i] = big[(i * 977 + k) % 130000];
}

unsigned host_fib(unsigned d, unsigned salt) {
  return d < 2 ? d + salt : host_fib(d - 1, salt) + host_fib(d - 2, salt * 3 + 1);
}

unsigned expect_array(unsigned n_words, unsigned idx, unsigned i) {
  unsigned s = 0;
  for (unsigned k = 0; k < 8; ++k) s += ((idx + k * 61) % n_words) * 3 + i;
  return s;
}

// Device buffers of n words filled from the host, released at the end of the test.
struct Buffers {
  std::vector<void*> ptrs;
  ~Buffers() {
    for (void* p : ptrs) (void)hipFree(p);
  }
  template <class T>
  T* make(const std::vector<T>& host) {
    void* p = nullptr;
    EXPECT_EQ(hipMalloc(&p, host.size() * sizeof(T)), hipSuccess);
    if (p) EXPECT_EQ(hipMemcpy(p, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
    ptrs.push_back(p);
    return static_cast<T*>(p);
  }
};

std::vector<unsigned> random_indices(unsigned n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned> v(n);
  for (auto& x : v) x = rng() % 100000;
  return v;
}

template <class T>
std::vector<T> read_back(const T* dev, size_t n) {
  std::vector<T> v(n);
  EXPECT_EQ(hipMemcpy(v.data(), dev, n * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
  return v;
}

size_t local_bytes(const void* fn) {
  hipFuncAttributes a{};
  EXPECT_EQ(hipFuncGetAttributes(&a, fn), hipSuccess);
  return a.localSizeBytes;
}

// First in the file: on the default (unshuffled) order the null stream's queue starts without
// scratch here, so each launch below needs more than the queue has and makes it grow, with the
// earlier kernels still queued (the queue must drain before its scratch changes).
TEST(Scratch, GrowsTheQueueScratchForLaterKernelsNeedingMore) {
  ASSERT_EQ(hipDeviceReset(), hipSuccess);  // queues without the scratch other tests grew
  ASSERT_GT(local_bytes(reinterpret_cast<const void*>(&private_array<64>)), 0u);
  ASSERT_LT(local_bytes(reinterpret_cast<const void*>(&private_array<64>)),
            local_bytes(reinterpret_cast<const void*>(&private_array<1024>)));
  ASSERT_LT(local_bytes(reinterpret_cast<const void*>(&private_array<1024>)),
            local_bytes(reinterpret_cast<const void*>(&private_array<4096>)));
  const unsigned n = 1000;
  Buffers b;
  auto idx = random_indices(n, 1);
  unsigned* didx = b.make(idx);
  unsigned* o1 = b.make(std::vector<unsigned>(n));
  unsigned* o2 = b.make(std::vector<unsigned>(n));
  unsigned* o3 = b.make(std::vector<unsigned>(n));
  private_array<64><<<(n + 127) / 128, 128>>>(didx, o1, n);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  private_array<1024><<<(n + 127) / 128, 128>>>(didx, o2, n);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  private_array<4096><<<(n + 255) / 256, 256>>>(didx, o3, n);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  private_array<64><<<(n + 63) / 64, 64>>>(didx, o1, n);  // smaller again: no change needed
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto r1 = read_back(o1, n), r2 = read_back(o2, n), r3 = read_back(o3, n);
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(r1[i], expect_array(64, idx[i], i)) << i;
    ASSERT_EQ(r2[i], expect_array(1024, idx[i], i)) << i;
    ASSERT_EQ(r3[i], expect_array(4096, idx[i], i)) << i;
  }
}

TEST(Scratch, RunsSpillingKernelThroughHipLaunchKernel) {
  ASSERT_GT(local_bytes(reinterpret_cast<const void*>(&spill)), 0u) << "the kernel must spill";
  const unsigned n = 300;
  std::vector<float> in(n * 48);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 13) * 0.25f - 1.0f;
  Buffers b;
  float* din = b.make(in);
  float* dout = b.make(std::vector<float>(n));
  void* args[] = {&din, &dout, const_cast<unsigned*>(&n)};
  ASSERT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(&spill), dim3((n + 63) / 64), dim3(64), args, 0,
                            nullptr),
            hipSuccess);
  auto out = read_back(dout, n);
  for (unsigned i = 0; i < n; ++i) {
    float v[48], acc = 0;
    for (int k = 0; k < 48; ++k) v[k] = in[i * 48 + k] * float(k + 1);
    for (int r = 1; r < 5; ++r)
      for (int k = 0; k < 48; ++k) acc += v[k] * v[(k * 7 + r) % 48];
    ASSERT_NEAR(out[i], acc, 1e-3f * (1.0f + std::fabs(acc))) << i;
  }
}

TEST(Scratch, RunsLargePrivateArrayThroughHipLaunchKernel) {
  const unsigned n = 777;
  Buffers b;
  auto idx = random_indices(n, 2);
  unsigned* didx = b.make(idx);
  unsigned* dout = b.make(std::vector<unsigned>(n));
  unsigned nn = n;
  void* args[] = {&didx, &dout, &nn};
  ASSERT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(&private_array<2048>), dim3((n + 255) / 256),
                            dim3(256), args, 0, nullptr),
            hipSuccess);
  auto out = read_back(dout, n);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[i], expect_array(2048, idx[i], i)) << i;
}

TEST(Scratch, RunsRecursiveKernelWithDynamicStack) {
  const unsigned n = 200, depth = 9;
  Buffers b;
  unsigned* dout = b.make(std::vector<unsigned>(n));
  recurse<<<(n + 63) / 64, 64>>>(dout, depth, n);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  auto out = read_back(dout, n);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[i], host_fib(depth, i)) << i;
}

TEST(Scratch, RunsScratchKernelsThroughHipModuleLaunchKernel) {
  hipModule_t m;
  ASSERT_EQ(hipModuleLoad(&m, KFDRT_SCRATCH_CO), hipSuccess);
  hipFunction_t arr, rec;
  ASSERT_EQ(hipModuleGetFunction(&arr, m, "module_private_array"), hipSuccess);
  ASSERT_EQ(hipModuleGetFunction(&rec, m, "module_recurse"), hipSuccess);
  const unsigned n = 500, depth = 8;
  Buffers b;
  auto idx = random_indices(n, 3);
  unsigned* didx = b.make(idx);
  unsigned* o1 = b.make(std::vector<unsigned>(n));
  unsigned* o2 = b.make(std::vector<unsigned>(n));
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  unsigned nn = n, dd = depth;
  void* a1[] = {&didx, &o1, &nn};
  void* a2[] = {&o2, &dd, &nn};
  ASSERT_EQ(hipModuleLaunchKernel(arr, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, a1, nullptr), hipSuccess);
  ASSERT_EQ(hipModuleLaunchKernel(rec, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, a2, nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  auto r1 = read_back(o1, n), r2 = read_back(o2, n);
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(r1[i], expect_array(512, idx[i], i)) << i;
    ASSERT_EQ(r2[i], host_fib(depth, i)) << i;
  }
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipModuleUnload(m), hipSuccess);
}

// Streams spread over several AQL queues: each queue gets its own scratch.
TEST(Scratch, RunsScratchKernelsOnManyStreams) {
  const unsigned n = 256, streams = 6;
  Buffers b;
  auto idx = random_indices(n, 4);
  unsigned* didx = b.make(idx);
  std::vector<unsigned*> outs;
  std::vector<hipStream_t> ss(streams);
  for (unsigned k = 0; k < streams; ++k) {
    ASSERT_EQ(hipStreamCreate(&ss[k]), hipSuccess);
    outs.push_back(b.make(std::vector<unsigned>(n)));
    private_array<1536><<<n / 64, 64, 0, ss[k]>>>(didx, outs[k], n);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
  }
  for (unsigned k = 0; k < streams; ++k) {
    ASSERT_EQ(hipStreamSynchronize(ss[k]), hipSuccess);
    auto r = read_back(outs[k], n);
    for (unsigned i = 0; i < n; ++i) ASSERT_EQ(r[i], expect_array(1536, idx[i], i)) << k << " " << i;
    EXPECT_EQ(hipStreamDestroy(ss[k]), hipSuccess);
  }
}

// A host callback holds the stream's queue while a kernel needing more scratch is launched
// behind it: the launch returns at once (the grow waits on the device side), the callback's
// gate is opened only after that, and the kernel then runs after the callback with its scratch.
TEST(Scratch, GrowsBehindAHostCallbackWithoutBlockingTheLaunch) {
  ASSERT_EQ(hipDeviceReset(), hipSuccess);  // queues without the scratch earlier tests grew
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  // Buffers first: their copies on the null stream would wait for the held stream.
  const unsigned n = 128;
  Buffers b;
  auto idx = random_indices(n, 5);
  unsigned* didx = b.make(idx);
  unsigned* dout = b.make(std::vector<unsigned>(n));
  static std::atomic<int> gate{0}, called{0};
  gate = 0;
  called = 0;
  ASSERT_EQ(hipLaunchHostFunc(s, [](void*) {
              const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
              while (!gate.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
              called = 1;
            }, nullptr),
            hipSuccess);
  std::atomic<bool> returned{false};
  std::thread launcher([&] {
    private_array<3000><<<n / 64, 64, 0, s>>>(didx, dout, n);
    EXPECT_EQ(hipGetLastError(), hipSuccess);
    returned = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!returned.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  const bool returned_first = returned.load();
  gate = 1;  // also unblocks a launch that waited for the callback
  launcher.join();
  EXPECT_TRUE(returned_first) << "the launch waited for the stream's host callback";
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(called.load(), 1);
  auto r = read_back(dout, n);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(r[i], expect_array(3000, idx[i], i)) << i;
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// A raw packet whose private_segment_size is 0: the runtime still gives the queue the scratch
// the kernel descriptor asks for (the emulator stops a dispatch whose queue has less).
TEST(Scratch, RunsRawAqlDispatchWhosePacketUnderstatesPrivateSize) {
  uint64_t object = 0;
  uint32_t kernarg_size = 0, group = 0, priv = 0;
  ASSERT_EQ(kfdrtFuncGetKernelObject(reinterpret_cast<const void*>(&raw_private_array), 0, &object,
                                     &kernarg_size, &group, &priv),
            hipSuccess);
  ASSERT_GE(priv, 6000u * 4);
  const unsigned n = 192;
  Buffers b;
  auto idx = random_indices(n, 7);
  unsigned* didx = b.make(idx);
  unsigned* dout = b.make(std::vector<unsigned>(n));
  hsa_kernel_dispatch_packet_t p{};
  p.header = uint16_t(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  p.setup = 1;
  p.workgroup_size_x = 64;
  p.workgroup_size_y = p.workgroup_size_z = 1;
  p.grid_size_x = n;
  p.grid_size_y = p.grid_size_z = 1;
  p.private_segment_size = 0;
  p.kernel_object = object;
  struct {
    const unsigned* idx;
    unsigned* out;
    unsigned n;
  } args{didx, dout, n};
  std::vector<char> ka(std::max<size_t>(kernarg_size, sizeof args), 0);
  std::memcpy(ka.data(), &args, sizeof args);
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  ASSERT_EQ(kfdrtStreamDispatchAql(s, &p, ka.data(), ka.size(), nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  auto r = read_back(dout, n);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(r[i], expect_array(6000, idx[i], i)) << i;
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// With the device memory taken by buffers, a kernel needing more scratch than its queue has
// cannot get it: the launch fails with hipErrorOutOfMemory and nothing runs. Once the memory is
// free again the same launch works.
TEST(Scratch, ReportsOutOfMemoryWhenScratchCannotBeHad) {
  ASSERT_EQ(hipDeviceReset(), hipSuccess);  // queues without the scratch earlier tests grew
  Buffers b;
  unsigned* dout = b.make(std::vector<unsigned>(64, 7u));
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  std::vector<void*> hog;
  // Down to the last MiB: not even one workgroup's scratch slots (16 waves, about 130 MB) fit.
  for (size_t block : {size_t(256) << 20, size_t(16) << 20, size_t(1) << 20})
    for (void* p = nullptr; hog.size() < 16384 && hipMalloc(&p, block) == hipSuccess;) hog.push_back(p);
  (void)hipGetLastError();
  ASSERT_FALSE(hog.empty());
  huge_private<<<1, 64, 0, s>>>(dout, 3);
  const hipError_t launched = hipGetLastError();
  for (void* p : hog) EXPECT_EQ(hipFree(p), hipSuccess);
  EXPECT_EQ(launched, hipErrorOutOfMemory);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  auto r = read_back(dout, 64);
  for (unsigned i = 0; i < 64; ++i) ASSERT_EQ(r[i], 7u) << "the kernel must not run";
  huge_private<<<1, 64, 0, s>>>(dout, 3);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  r = read_back(dout, 64);
  for (unsigned i = 0; i < 64; ++i) ASSERT_EQ(r[i], (i + 1) & 0xFF) << i;
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// With too little device memory for a slot per wave of the whole device but enough for one
// workgroup, the queue gets fewer slots (COMPUTE_TMPRING_SIZE.WAVES) and the kernel still runs:
// the CP throttles its waves instead of the launch failing.
TEST(Scratch, TakesFewerSlotsUnderMemoryPressure) {
  ASSERT_EQ(hipDeviceReset(), hipSuccess);  // queues without the scratch earlier tests grew
  Buffers b;
  unsigned* dout = b.make(std::vector<unsigned>(64, 7u));
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  std::vector<void*> hog;
  for (void* p = nullptr; hog.size() < 4096 && hipMalloc(&p, size_t(256) << 20) == hipSuccess;) hog.push_back(p);
  (void)hipGetLastError();
  ASSERT_GE(hog.size(), 2u);
  ASSERT_EQ(hipFree(hog.back()), hipSuccess);  // 256 to 512 MiB free: far below the 4 GiB wanted
  hog.pop_back();
  huge_private<<<1, 64, 0, s>>>(dout, 3);
  const hipError_t launched = hipGetLastError();
  EXPECT_EQ(launched, hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(s), hipSuccess);
  void* q = nullptr;
  ASSERT_EQ(kfdrtStreamGetAqlQueue(s, &q), hipSuccess);
  const uint32_t tmpring = static_cast<const uint32_t*>(q)[140 / 4];  // amd_queue_t.compute_tmpring_size
  const uint32_t waves = tmpring & 0xFFF, wave_kib = tmpring >> 12;
  EXPECT_GE(waves, 16u);
  EXPECT_LE(uint64_t(waves) * wave_kib * 1024, uint64_t(512) << 20) << "WAVES " << waves;
  for (void* p : hog) EXPECT_EQ(hipFree(p), hipSuccess);
  auto r = read_back(dout, 64);
  for (unsigned i = 0; i < 64; ++i) ASSERT_EQ(r[i], (i + 1) & 0xFF) << i;
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// hipDeviceReset gives back the scratch kernels made the queues grow (the queues themselves stay
// and take scratch again when a kernel needs it).
TEST(Scratch, DeviceResetFreesQueueScratch) {
  Buffers b;
  unsigned* dout = b.make(std::vector<unsigned>(64, 7u));
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  huge_private<<<1, 64, 0, s>>>(dout, 3);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  void* q = nullptr;
  ASSERT_EQ(kfdrtStreamGetAqlQueue(s, &q), hipSuccess);
  EXPECT_NE(static_cast<const uint32_t*>(q)[140 / 4], 0u);  // amd_queue_t.compute_tmpring_size
  size_t free_before = 0, free_after = 0, total = 0;
  ASSERT_EQ(hipMemGetInfo(&free_before, &total), hipSuccess);
  ASSERT_EQ(hipDeviceReset(), hipSuccess);  // also destroys `s`
  ASSERT_EQ(hipMemGetInfo(&free_after, &total), hipSuccess);
  EXPECT_GT(free_after, free_before) << "the scratch of the huge kernel's queue was not freed";
}

}  // namespace
