// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): the kfdrt extension API (timestamps, signals, gpu ids, kernel objects, raw AQL dispatch).
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "../../api/include/hc/detail/kfdrt_ext.h"

constexpr unsigned kGroup = 64;

// Kernels for raw dispatch read no hidden arguments (blockDim, gridDim): a raw packet carries
// only the arguments its caller passes.
extern "C" __global__ void raw_fill(int* out, int value, unsigned n) {
  unsigned i = blockIdx.x * kGroup + threadIdx.x;
  if (i < n) out[i] = value + int(i);
}

// Appends `value` to a log: log[0] is the count, log[1..] the entries.
extern "C" __global__ void raw_append(int* log, int value) {
  if (threadIdx.x || blockIdx.x) return;
  int i = __hip_atomic_fetch_add(log, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_store(log + 1 + i, value, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

namespace {

void host_function() {}

void hold_until_gate(void* gate) {
  while (__atomic_load_n(static_cast<int*>(gate), __ATOMIC_ACQUIRE) == 0) std::this_thread::yield();
}

struct Kernel {
  uint64_t object = 0;
  uint32_t kernarg_size = 0, group = 0, priv = 0;
};

hsa_kernel_dispatch_packet_t packet(const Kernel& k, uint32_t grid) {
  hsa_kernel_dispatch_packet_t p{};
  p.header = uint16_t(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  p.setup = 1;
  p.workgroup_size_x = kGroup;
  p.workgroup_size_y = p.workgroup_size_z = 1;
  p.grid_size_x = grid;
  p.grid_size_y = p.grid_size_z = 1;
  p.group_segment_size = k.group;
  p.private_segment_size = k.priv;
  p.kernel_object = k.object;
  return p;
}

template <class Args>
std::vector<char> kernargs(const Kernel& k, const Args& a, size_t size = 0) {
  std::vector<char> v(std::max<size_t>(size ? size : k.kernarg_size, sizeof a), 0);
  std::memcpy(v.data(), &a, sizeof a);
  return v;
}

struct FillArgs {
  int* out;
  int value;
  unsigned n;
};
struct AppendArgs {
  int* log;
  int value;
};

int64_t signal_value(void* amd_signal) {  // layout: amd_signal_t {int64 kind; int64 value; ...}
  return __atomic_load_n(reinterpret_cast<int64_t*>(static_cast<char*>(amd_signal) + 8), __ATOMIC_ACQUIRE);
}

class KfdrtExt : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipHostMalloc(&gate_, 64 * sizeof(int), hipHostMallocCoherent), hipSuccess);
    std::fill(gate_, gate_ + 64, 0);
    log_ = gate_ + 16;
    ASSERT_EQ(hipStreamCreate(&s_), hipSuccess);
    fill_ = get(reinterpret_cast<const void*>(&raw_fill));
    append_ = get(reinterpret_cast<const void*>(&raw_append));
  }
  void TearDown() override {
    open_gate();
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(s_), hipSuccess);
    EXPECT_EQ(hipHostFree(gate_), hipSuccess);
    (void)hipGetLastError();
  }
  static Kernel get(const void* fn) {
    Kernel k;
    EXPECT_EQ(kfdrtFuncGetKernelObject(fn, 0, &k.object, &k.kernarg_size, &k.group, &k.priv), hipSuccess);
    return k;
  }
  void hold() { ASSERT_EQ(hipLaunchHostFunc(s_, hold_until_gate, gate_), hipSuccess); }
  void open_gate() { __atomic_store_n(gate_, 1, __ATOMIC_RELEASE); }
  int load(const int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
  // Gives the device time to (wrongly) run work that must still be blocked.
  void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }
  uint64_t now() {
    uint64_t t = 0, hz = 0;
    EXPECT_EQ(kfdrtGetSystemTicks(&t, &hz), hipSuccess);
    return t;
  }

  int* gate_ = nullptr;
  int* log_ = nullptr;
  hipStream_t s_ = nullptr;
  Kernel fill_, append_;
};

TEST_F(KfdrtExt, GetSystemTicksRejectsNullsAndAdvances) {
  uint64_t t = 0, hz = 0;
  EXPECT_EQ(kfdrtGetSystemTicks(nullptr, &hz), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtGetSystemTicks(&t, nullptr), hipErrorInvalidValue);
  ASSERT_EQ(kfdrtGetSystemTicks(&t, &hz), hipSuccess);
  EXPECT_GT(hz, 0u);
  uint64_t prev = t;
  for (int i = 0; i < 100; ++i) {
    uint64_t u = now();
    EXPECT_GE(u, prev);
    prev = u;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(now() - t, hz / 50);  // 20 ms later by the system clock
}

TEST_F(KfdrtExt, DeviceGetGpuIdChecksDevice) {
  uint32_t id = 0, node = 99;
  int n = 0;
  ASSERT_EQ(hipGetDeviceCount(&n), hipSuccess);
  EXPECT_EQ(kfdrtDeviceGetGpuId(0, nullptr, &node), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtDeviceGetGpuId(-1, &id, &node), hipErrorInvalidDevice);
  EXPECT_EQ(kfdrtDeviceGetGpuId(n, &id, &node), hipErrorInvalidDevice);
  ASSERT_EQ(kfdrtDeviceGetGpuId(0, &id, &node), hipSuccess);
  EXPECT_NE(id, 0u);
  EXPECT_NE(node, 99u);
  uint32_t again = 0;
  EXPECT_EQ(kfdrtDeviceGetGpuId(0, &again, nullptr), hipSuccess);  // the node is optional
  EXPECT_EQ(again, id);
}

TEST_F(KfdrtExt, FuncGetKernelObjectChecksFunction) {
  uint64_t ko = 0;
  uint32_t size = 0;
  EXPECT_EQ(kfdrtFuncGetKernelObject(reinterpret_cast<const void*>(&raw_fill), 0, nullptr, &size, nullptr, nullptr),
            hipErrorInvalidValue);
  EXPECT_EQ(kfdrtFuncGetKernelObject(nullptr, 0, &ko, nullptr, nullptr, nullptr), hipErrorInvalidDeviceFunction);
  EXPECT_EQ(kfdrtFuncGetKernelObject(reinterpret_cast<const void*>(&host_function), 0, &ko, nullptr, nullptr, nullptr),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(kfdrtFuncGetKernelObject(reinterpret_cast<const void*>(&raw_fill), 1000, &ko, nullptr, nullptr, nullptr),
            hipErrorInvalidDevice);
  ASSERT_EQ(kfdrtFuncGetKernelObject(reinterpret_cast<const void*>(&raw_fill), 0, &ko, &size, nullptr, nullptr),
            hipSuccess);
  EXPECT_NE(ko, 0u);
  EXPECT_EQ(ko % 64, 0u);
  EXPECT_GE(size, sizeof(FillArgs));
  EXPECT_NE(ko, append_.object);
}

TEST_F(KfdrtExt, EventGetTimestampsChecksEvent) {
  hipEvent_t e, untimed, never, gone;
  ASSERT_EQ(hipEventCreate(&e), hipSuccess);
  ASSERT_EQ(hipEventCreateWithFlags(&untimed, hipEventDisableTiming), hipSuccess);
  ASSERT_EQ(hipEventCreate(&never), hipSuccess);
  ASSERT_EQ(hipEventCreate(&gone), hipSuccess);
  ASSERT_EQ(hipEventDestroy(gone), hipSuccess);
  uint64_t a = 0, b = 0;
  const uint64_t t0 = now();
  ASSERT_EQ(hipEventRecord(e, s_), hipSuccess);
  ASSERT_EQ(hipEventRecord(untimed, s_), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
  const uint64_t t1 = now();
  EXPECT_EQ(kfdrtEventGetTimestamps(e, nullptr, &b), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtEventGetTimestamps(e, &a, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtEventGetTimestamps(nullptr, &a, &b), hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtEventGetTimestamps(reinterpret_cast<hipEvent_t>(0x1000), &a, &b), hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtEventGetTimestamps(gone, &a, &b), hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtEventGetTimestamps(untimed, &a, &b), hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtEventGetTimestamps(never, &a, &b), hipErrorInvalidHandle);
  ASSERT_EQ(kfdrtEventGetTimestamps(e, &a, &b), hipSuccess);
  // In the system-tick domain; 10 ms of slack for the clock samples' skew.
  uint64_t hz = 0, t = 0;
  ASSERT_EQ(kfdrtGetSystemTicks(&t, &hz), hipSuccess);
  EXPECT_LE(a, b);
  EXPECT_GE(a + hz / 100, t0);
  EXPECT_LE(b, t1 + hz / 100);
  EXPECT_EQ(hipEventDestroy(e), hipSuccess);
  EXPECT_EQ(hipEventDestroy(untimed), hipSuccess);
  EXPECT_EQ(hipEventDestroy(never), hipSuccess);
}

TEST_F(KfdrtExt, EventGetSignalFollowsTheRecord) {
  hipEvent_t e;
  ASSERT_EQ(hipEventCreate(&e), hipSuccess);
  void* sig = nullptr;
  uint64_t a = 0, b = 0;
  EXPECT_EQ(kfdrtEventGetSignal(e, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtEventGetSignal(reinterpret_cast<hipEvent_t>(0x1000), &sig), hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtEventGetSignal(e, &sig), hipErrorInvalidHandle);  // never recorded
  hold();
  ASSERT_EQ(hipEventRecord(e, s_), hipSuccess);
  ASSERT_EQ(kfdrtEventGetSignal(e, &sig), hipSuccess);
  ASSERT_NE(sig, nullptr);
  settle();
  EXPECT_EQ(signal_value(sig), 1);
  EXPECT_EQ(kfdrtEventGetTimestamps(e, &a, &b), hipErrorNotReady);
  open_gate();
  ASSERT_EQ(hipEventSynchronize(e), hipSuccess);
  EXPECT_EQ(signal_value(sig), 0);
  EXPECT_EQ(kfdrtEventGetTimestamps(e, &a, &b), hipSuccess);
  EXPECT_EQ(hipEventDestroy(e), hipSuccess);
  EXPECT_EQ(kfdrtEventGetSignal(e, &sig), hipErrorInvalidHandle);  // destroyed
}

// The dispatch waits for the stream's earlier work and later work waits for it.
TEST_F(KfdrtExt, DispatchAqlRunsInStreamOrder) {
  hipEvent_t done;
  ASSERT_EQ(hipEventCreate(&done), hipSuccess);
  hold();
  hipLaunchKernelGGL(raw_append, dim3(1), dim3(1), 0, s_, log_, 1);
  hsa_kernel_dispatch_packet_t p = packet(append_, 1);
  std::vector<char> args = kernargs(append_, AppendArgs{log_, 2});
  ASSERT_EQ(kfdrtStreamDispatchAql(s_, &p, args.data(), args.size(), done), hipSuccess);
  hipLaunchKernelGGL(raw_append, dim3(1), dim3(1), 0, s_, log_, 3);
  settle();
  EXPECT_EQ(load(log_), 0);
  EXPECT_EQ(hipEventQuery(done), hipErrorNotReady);
  EXPECT_EQ(hipStreamQuery(s_), hipErrorNotReady);
  open_gate();
  ASSERT_EQ(hipEventSynchronize(done), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
  ASSERT_EQ(load(log_), 3);
  EXPECT_EQ(load(log_ + 1), 1);
  EXPECT_EQ(load(log_ + 2), 2);
  EXPECT_EQ(load(log_ + 3), 3);
  EXPECT_EQ(hipEventDestroy(done), hipSuccess);
}

// Without a completion event the dispatch still counts as the stream's work.
TEST_F(KfdrtExt, DispatchAqlWithoutEventIsStreamWork) {
  const unsigned n = 1000;  // partial last workgroup
  int* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, n * sizeof(int)), hipSuccess);
  hold();
  hsa_kernel_dispatch_packet_t p = packet(fill_, n);
  std::vector<char> args = kernargs(fill_, FillArgs{d, 100, n});
  ASSERT_EQ(kfdrtStreamDispatchAql(s_, &p, args.data(), args.size(), nullptr), hipSuccess);
  std::fill(args.begin(), args.end(), 0);  // copied at the call
  EXPECT_EQ(hipStreamQuery(s_), hipErrorNotReady);
  open_gate();
  ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
  EXPECT_EQ(hipStreamQuery(s_), hipSuccess);
  std::vector<int> h(n);
  ASSERT_EQ(hipMemcpy(h.data(), d, n * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(h[i], 100 + int(i)) << "element " << i;
  EXPECT_EQ(hipFree(d), hipSuccess);
}

// Kernel arguments larger than a queue slot, the null stream, and a completion event that
// other streams wait for and that times the kernel.
TEST_F(KfdrtExt, DispatchAqlCompletionEventTimesTheKernel) {
  const unsigned n = 4096;
  int* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, n * sizeof(int)), hipSuccess);
  hipEvent_t before, done;
  ASSERT_EQ(hipEventCreate(&before), hipSuccess);
  ASSERT_EQ(hipEventCreate(&done), hipSuccess);
  hsa_kernel_dispatch_packet_t p = packet(fill_, n);
  std::vector<char> args = kernargs(fill_, FillArgs{d, 7, n}, 8192);
  const uint64_t t0 = now();
  ASSERT_EQ(hipEventRecord(before, nullptr), hipSuccess);
  ASSERT_EQ(kfdrtStreamDispatchAql(nullptr, &p, args.data(), args.size(), done), hipSuccess);
  hipStream_t other;
  ASSERT_EQ(hipStreamCreateWithFlags(&other, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(hipStreamWaitEvent(other, done, 0), hipSuccess);
  std::vector<int> h(n);
  ASSERT_EQ(hipMemcpyAsync(h.data(), d, n * sizeof(int), hipMemcpyDeviceToHost, other), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(other), hipSuccess);
  const uint64_t t1 = now();
  EXPECT_EQ(h[0], 7);
  EXPECT_EQ(h[n - 1], 7 + int(n - 1));
  float ms = -1;
  EXPECT_EQ(hipEventElapsedTime(&ms, before, done), hipSuccess);
  EXPECT_GE(ms, 0.0f);
  uint64_t a = 0, b = 0, hz = 0, t = 0;
  ASSERT_EQ(kfdrtEventGetTimestamps(done, &a, &b), hipSuccess);
  ASSERT_EQ(kfdrtGetSystemTicks(&t, &hz), hipSuccess);
  EXPECT_LE(a, b);
  EXPECT_GE(a + hz / 100, t0);
  EXPECT_LE(b, t1 + hz / 100);
  EXPECT_EQ(hipStreamDestroy(other), hipSuccess);
  EXPECT_EQ(hipEventDestroy(before), hipSuccess);
  EXPECT_EQ(hipEventDestroy(done), hipSuccess);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(KfdrtExt, DispatchAqlRejectsBadArguments) {
  int* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, 64 * sizeof(int)), hipSuccess);
  const hsa_kernel_dispatch_packet_t good = packet(fill_, 64);
  std::vector<char> args = kernargs(fill_, FillArgs{d, 1, 64});
  auto dispatch = [&](const hsa_kernel_dispatch_packet_t& p) {
    return kfdrtStreamDispatchAql(s_, &p, args.data(), args.size(), nullptr);
  };
  hipStream_t dead;
  ASSERT_EQ(hipStreamCreate(&dead), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(dead), hipSuccess);
  hipEvent_t gone;
  ASSERT_EQ(hipEventCreate(&gone), hipSuccess);
  ASSERT_EQ(hipEventDestroy(gone), hipSuccess);

  EXPECT_EQ(kfdrtStreamDispatchAql(s_, nullptr, args.data(), args.size(), nullptr), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtStreamDispatchAql(s_, &good, nullptr, 16, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtStreamDispatchAql(s_, &good, args.data(), size_t(1) << 40, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtStreamDispatchAql(s_, &good, args.data(), SIZE_MAX, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(kfdrtStreamDispatchAql(reinterpret_cast<hipStream_t>(0x1000), &good, args.data(), args.size(), nullptr),
            hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtStreamDispatchAql(dead, &good, args.data(), args.size(), nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtStreamDispatchAql(s_, &good, args.data(), args.size(), gone), hipErrorInvalidHandle);
  EXPECT_EQ(kfdrtStreamDispatchAql(s_, &good, args.data(), args.size(), reinterpret_cast<hipEvent_t>(0x1000)),
            hipErrorInvalidHandle);

  hsa_kernel_dispatch_packet_t p = good;
  p.header = uint16_t((good.header & ~0xff) | HSA_PACKET_TYPE_BARRIER_AND);
  EXPECT_EQ(dispatch(p), hipErrorInvalidValue);
  p.header = uint16_t(good.header & ~0xff);  // vendor-specific
  EXPECT_EQ(dispatch(p), hipErrorInvalidValue);
  p = good;
  p.header |= 3 << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE;
  EXPECT_EQ(dispatch(p), hipErrorInvalidValue);
  for (uint64_t ko : {uint64_t(0), fill_.object + 8, uint64_t(0x1000), uint64_t(reinterpret_cast<uintptr_t>(d)),
                      uint64_t(reinterpret_cast<uintptr_t>(gate_)), ~uint64_t(63)}) {
    p = good;
    p.kernel_object = ko;
    EXPECT_EQ(dispatch(p), hipErrorInvalidValue) << "kernel_object " << std::hex << ko;
  }
  p = good;
  p.setup = 0;
  EXPECT_EQ(dispatch(p), hipErrorInvalidConfiguration);
  p = good;
  p.workgroup_size_x = 0;
  EXPECT_EQ(dispatch(p), hipErrorInvalidConfiguration);
  p = good;
  p.grid_size_x = 0;
  EXPECT_EQ(dispatch(p), hipErrorInvalidConfiguration);
  p = good;
  p.grid_size_y = 2;  // a 1-dimensional packet with a second dimension
  EXPECT_EQ(dispatch(p), hipErrorInvalidConfiguration);
  p = good;
  p.setup = 3;
  p.workgroup_size_x = 64, p.workgroup_size_y = 4, p.workgroup_size_z = 8;  // 2048 work-items
  EXPECT_EQ(dispatch(p), hipErrorInvalidConfiguration);
  p = good;
  p.group_segment_size = 1u << 30;
  EXPECT_EQ(dispatch(p), hipErrorInvalidConfiguration);
  p = good;
  p.private_segment_size = 1u << 30;
  EXPECT_EQ(dispatch(p), hipErrorInvalidConfiguration);

  // Nothing was enqueued, and the stream still runs a good dispatch.
  EXPECT_EQ(hipStreamQuery(s_), hipSuccess);
  ASSERT_EQ(dispatch(good), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
  int h[64];
  ASSERT_EQ(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 1);
  EXPECT_EQ(h[63], 64);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

}  // namespace
