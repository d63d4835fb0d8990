// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): stream ordering, the legacy null stream, events, callbacks.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <atomic>
#include <set>
#include <chrono>
#include <thread>
#include <vector>

// Spin bound in ticks of the constant 100 MHz wall clock (30 s): a broken runtime fails, never hangs.
constexpr long long kBound = 30ll * 100000000;

// Waits (bounded) until the host sets *gate, then stores `value` into *out.
__global__ void wait_then_store(const int* gate, int* out, int value) {
  if (threadIdx.x || blockIdx.x) return;
  long long t0 = wall_clock64();
  bool timed_out = false;
  while (__hip_atomic_load(gate, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0 && !timed_out)
    timed_out = wall_clock64() - t0 > kBound;
  __hip_atomic_store(out, timed_out ? -1 : value, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

// Appends `value` to a log: out[0] is the count, out[1..] the entries (shows execution order).
__global__ void append(int* log, int value) {
  if (threadIdx.x || blockIdx.x) return;
  int i = __hip_atomic_fetch_add(log, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_store(log + 1 + i, value, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

__global__ void increment(int* p) {
  if (threadIdx.x == 0) *p += 1;
}

class HipStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipHostMalloc(&gate_, 64 * sizeof(int), hipHostMallocCoherent), hipSuccess);
    std::fill(gate_, gate_ + 64, 0);
    log_ = gate_ + 16;
  }
  void TearDown() override {
    __atomic_store_n(gate_, 1, __ATOMIC_RELEASE);  // never leave a kernel waiting
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(hipHostFree(gate_), hipSuccess);
    (void)hipGetLastError();
  }
  void open_gate() { __atomic_store_n(gate_, 1, __ATOMIC_RELEASE); }
  int load(const int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
  // Gives the device time to (wrongly) run work that must still be blocked.
  void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }
  int* gate_ = nullptr;
  int* log_ = nullptr;
};

TEST_F(HipStreams, CreateQueryDestroy) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  unsigned flags = 9;
  EXPECT_EQ(hipStreamGetFlags(s, &flags), hipSuccess);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(hipStreamQuery(s), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(s), hipSuccess);
  hipDevice_t dev = -1;
  EXPECT_EQ(hipStreamGetDevice(s, &dev), hipSuccess);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipErrorInvalidHandle);
  EXPECT_EQ(hipStreamQuery(s), hipErrorInvalidHandle);
  EXPECT_EQ(hipStreamDestroy(nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(hipStreamCreate(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamCreateWithFlags(&s, 0x10), hipErrorInvalidValue);
  ASSERT_EQ(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, -1), hipSuccess);
  int prio = 5;
  EXPECT_EQ(hipStreamGetPriority(s, &prio), hipSuccess);
  EXPECT_EQ(prio, -1);
  EXPECT_EQ(hipStreamGetFlags(s, &flags), hipSuccess);
  EXPECT_EQ(flags, unsigned(hipStreamNonBlocking));
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  int least, greatest;
  EXPECT_EQ(hipDeviceGetStreamPriorityRange(&least, &greatest), hipSuccess);
  EXPECT_LE(greatest, least);
}

TEST_F(HipStreams, PacketsOfAStreamRunInOrder) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  int* d;
  ASSERT_EQ(hipMalloc(&d, sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(d, 0, sizeof(int), s), hipSuccess);
  for (int i = 0; i < 100; ++i) increment<<<1, 64, 0, s>>>(d);
  int h = 0;
  ASSERT_EQ(hipMemcpyAsync(gate_ + 8, d, sizeof(int), hipMemcpyDeviceToHost, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  h = gate_[8];
  EXPECT_EQ(h, 100);
  EXPECT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HipStreams, QueryReportsNotReadyWhileBusy) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  wait_then_store<<<1, 64, 0, s>>>(gate_, log_, 7);
  settle();
  EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
  EXPECT_EQ(hipGetLastError(), hipSuccess);  // "not ready" is not recorded as an error
  open_gate();
  EXPECT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(hipStreamQuery(s), hipSuccess);
  EXPECT_EQ(load(log_), 7);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HipStreams, WaitEventOrdersAcrossStreams) {
  hipStream_t a, b;
  ASSERT_EQ(hipStreamCreateWithFlags(&a, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(hipStreamCreateWithFlags(&b, hipStreamNonBlocking), hipSuccess);
  hipEvent_t e;
  ASSERT_EQ(hipEventCreate(&e), hipSuccess);
  wait_then_store<<<1, 64, 0, a>>>(gate_, log_ + 10, 1);
  append<<<1, 1, 0, a>>>(log_, 1);
  ASSERT_EQ(hipEventRecord(e, a), hipSuccess);
  ASSERT_EQ(hipStreamWaitEvent(b, e, 0), hipSuccess);
  append<<<1, 1, 0, b>>>(log_, 2);
  settle();
  EXPECT_EQ(load(log_), 0);  // b is held by the event
  EXPECT_EQ(hipEventQuery(e), hipErrorNotReady);
  open_gate();
  ASSERT_EQ(hipStreamSynchronize(b), hipSuccess);
  EXPECT_EQ(load(log_), 2);
  EXPECT_EQ(load(log_ + 1), 1);
  EXPECT_EQ(load(log_ + 2), 2);
  EXPECT_EQ(hipEventQuery(e), hipSuccess);
  EXPECT_EQ(hipStreamWaitEvent(b, e, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamWaitEvent(b, nullptr, 0), hipErrorInvalidHandle);
  EXPECT_EQ(hipEventDestroy(e), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(a), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(b), hipSuccess);
}

TEST_F(HipStreams, NullStreamWaitsForBlockingStreams) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);  // blocking
  wait_then_store<<<1, 64, 0, s>>>(gate_, log_ + 10, 1);
  append<<<1, 1, 0, s>>>(log_, 1);
  append<<<1, 1>>>(log_, 2);  // null stream: waits for s
  settle();
  EXPECT_EQ(load(log_), 0);
  open_gate();
  ASSERT_EQ(hipStreamSynchronize(0), hipSuccess);
  EXPECT_EQ(load(log_), 2);
  EXPECT_EQ(load(log_ + 1), 1);
  EXPECT_EQ(load(log_ + 2), 2);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// The non-blocking stream is held by a host function (not a running kernel, so the check does
// not need two kernels to run at once).
void hold_until_gate(void* gate) {
  while (__atomic_load_n(static_cast<int*>(gate), __ATOMIC_ACQUIRE) == 0) std::this_thread::yield();
}

TEST_F(HipStreams, NonBlockingStreamDoesNotSyncWithNullStream) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(hipLaunchHostFunc(s, hold_until_gate, gate_), hipSuccess);
  append<<<1, 1, 0, s>>>(log_ + 10, 1);
  append<<<1, 1>>>(log_, 2);
  ASSERT_EQ(hipStreamSynchronize(0), hipSuccess);  // returns while s is still held
  EXPECT_EQ(load(log_), 1);
  EXPECT_EQ(load(log_ + 10), 0);
  EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
  open_gate();
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(load(log_ + 10), 1);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HipStreams, BlockingStreamWaitsForNullStream) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  ASSERT_EQ(hipLaunchHostFunc(0, hold_until_gate, gate_), hipSuccess);  // holds the null stream
  append<<<1, 1, 0, s>>>(log_, 1);
  settle();
  EXPECT_EQ(load(log_), 0);
  open_gate();
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(load(log_), 1);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

std::atomic<int> g_seen{0};
void record_value(hipStream_t, hipError_t status, void* user) {
  g_seen = status == hipSuccess ? __atomic_load_n(static_cast<int*>(user), __ATOMIC_ACQUIRE) : -1;
}
void host_fn(void* user) { static_cast<std::atomic<int>*>(user)->fetch_add(1); }

TEST_F(HipStreams, CallbacksRunInStreamOrder) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  g_seen = 0;
  wait_then_store<<<1, 64, 0, s>>>(gate_, log_, 42);
  ASSERT_EQ(hipStreamAddCallback(s, record_value, log_, 0), hipSuccess);
  std::atomic<int> calls{0};
  ASSERT_EQ(hipLaunchHostFunc(s, host_fn, &calls), hipSuccess);
  append<<<1, 1, 0, s>>>(log_ + 20, 5);
  settle();
  EXPECT_EQ(g_seen.load(), 0);  // the callback waits for the kernel
  open_gate();
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(g_seen.load(), 42);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(load(log_ + 20), 1);
  EXPECT_EQ(hipStreamAddCallback(s, nullptr, nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamAddCallback(s, record_value, nullptr, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipLaunchHostFunc(s, nullptr, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HipStreams, EventsRecordSynchronizeAndTime) {
  hipEvent_t a, b;
  ASSERT_EQ(hipEventCreate(&a), hipSuccess);
  ASSERT_EQ(hipEventCreateWithFlags(&b, hipEventBlockingSync), hipSuccess);
  float ms = -1;
  EXPECT_EQ(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle);  // not recorded
  EXPECT_EQ(hipEventSynchronize(a), hipSuccess);                     // never recorded: done
  EXPECT_EQ(hipEventQuery(a), hipSuccess);
  ASSERT_EQ(hipEventRecord(a, 0), hipSuccess);
  wait_then_store<<<1, 64>>>(gate_, log_, 3);
  ASSERT_EQ(hipEventRecord(b, 0), hipSuccess);
  settle();
  EXPECT_EQ(hipEventQuery(b), hipErrorNotReady);
  EXPECT_EQ(hipEventElapsedTime(&ms, a, b), hipErrorNotReady);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  open_gate();
  EXPECT_EQ(hipEventSynchronize(b), hipSuccess);
  EXPECT_EQ(hipEventElapsedTime(&ms, a, b), hipSuccess);
  EXPECT_GE(ms, 20.0f);  // the kernel was held for at least 70 ms
  EXPECT_LT(ms, 60000.0f);
  EXPECT_EQ(hipEventElapsedTime(nullptr, a, b), hipErrorInvalidValue);
  EXPECT_EQ(hipEventDestroy(a), hipSuccess);
  EXPECT_EQ(hipEventDestroy(b), hipSuccess);
  EXPECT_EQ(hipEventDestroy(a), hipErrorInvalidHandle);
  EXPECT_EQ(hipEventRecord(a, 0), hipErrorInvalidHandle);
  hipEvent_t e;
  EXPECT_EQ(hipEventCreateWithFlags(&e, 0x100), hipErrorInvalidValue);
  EXPECT_EQ(hipEventCreateWithFlags(&e, hipEventReleaseToDevice | hipEventReleaseToSystem), hipErrorInvalidValue);
  EXPECT_EQ(hipEventCreate(nullptr), hipErrorInvalidValue);
  ASSERT_EQ(hipEventCreateWithFlags(&e, hipEventReleaseToSystem | hipEventDisableTiming), hipSuccess);
  ASSERT_EQ(hipEventRecord(e, 0), hipSuccess);
  EXPECT_EQ(hipEventSynchronize(e), hipSuccess);
  EXPECT_EQ(hipEventElapsedTime(&ms, e, e), hipErrorInvalidHandle);  // timing disabled
  EXPECT_EQ(hipEventDestroy(e), hipSuccess);
}

TEST_F(HipStreams, DeviceSynchronizeWaitsForEveryStream) {
  std::vector<hipStream_t> s(3);
  for (auto& x : s) ASSERT_EQ(hipStreamCreateWithFlags(&x, hipStreamNonBlocking), hipSuccess);
  for (size_t i = 0; i < s.size(); ++i) wait_then_store<<<1, 64, 0, s[i]>>>(gate_, log_ + i, int(i) + 1);
  std::thread opener([this] {
    settle();
    open_gate();
  });
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  opener.join();
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(load(log_ + i), int(i) + 1);
  for (auto& x : s) EXPECT_EQ(hipStreamDestroy(x), hipSuccess);
}

// ---- CU masks (hipExtStreamCreateWithCUMask) ----------------------------------------------------

// Workgroup b writes the compute unit it ran on (__smid: SE_ID << 5 | SH_ID << 4 | CU_ID).
__global__ void where_groups_ran(unsigned* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = __smid();
}

class HipCuMasks : public ::testing::Test {
 protected:
  static constexpr unsigned kGroups = 1024;
  void SetUp() override {
    ASSERT_EQ(hipMalloc(&out_, kGroups * sizeof(unsigned)), hipSuccess);
    hipDeviceProp_t p{};
    ASSERT_EQ(hipGetDeviceProperties(&p, 0), hipSuccess);
    cus_ = unsigned(p.multiProcessorCount);
    // The emulated gfx90a (8 shader engines of one array, 13 CUs each by default) places
    // workgroups exactly where amdkfd's numbering says; a GPU with harvested CUs renumbers them.
    emulated_ = dlsym(RTLD_DEFAULT, "kfdemu_get_config") != nullptr && std::string(p.gcnArchName).rfind("gfx90a", 0) == 0 &&
                cus_ % 8 == 0;
  }
  void TearDown() override { EXPECT_EQ(hipFree(out_), hipSuccess); }
  // The CUs the stream's kernel ran on.
  std::set<unsigned> run_on(hipStream_t s) {
    hipLaunchKernelGGL(where_groups_ran, dim3(kGroups), dim3(64), 0, s, out_);
    EXPECT_EQ(hipStreamSynchronize(s), hipSuccess);
    std::vector<unsigned> got(kGroups);
    EXPECT_EQ(hipMemcpy(got.data(), out_, kGroups * sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
    return std::set<unsigned>(got.begin(), got.end());
  }
  unsigned* out_ = nullptr;
  unsigned cus_ = 0;
  bool emulated_ = false;
};

// amdkfd numbers CUs for a mask engine by engine (kfd_mqd_manager.c mqd_symmetrically_map_cu_mask):
// bits 0..3 are the first CU of shader engines 0..3, bit 8 the second CU of engine 0 (8 engines).
TEST_F(HipCuMasks, KernelsRunOnlyOnTheCusTheMaskEnables) {
  const std::set<unsigned> all = run_on(nullptr);
  EXPECT_LE(all.size(), cus_);
  if (emulated_) EXPECT_EQ(all.size(), cus_) << "1024 workgroups are dealt out to every CU";
  hipStream_t s = nullptr;
  const uint32_t mask[1] = {0xF};
  ASSERT_EQ(hipExtStreamCreateWithCUMask(&s, 1, mask), hipSuccess);
  const std::set<unsigned> four = run_on(s);
  EXPECT_LE(four.size(), 4u);
  for (unsigned smid : four) EXPECT_LT(smid >> 5, 4u) << "ran on shader engine " << (smid >> 5);
  if (emulated_) EXPECT_EQ(four, (std::set<unsigned>{0u << 5, 1u << 5, 2u << 5, 3u << 5}));
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  // A queue given back serves the next masked stream, with its mask.
  const uint32_t second[1] = {1u << 8};
  ASSERT_EQ(hipExtStreamCreateWithCUMask(&s, 1, second), hipSuccess);
  const std::set<unsigned> one = run_on(s);
  EXPECT_EQ(one.size(), 1u);
  if (emulated_) EXPECT_EQ(one, std::set<unsigned>{1u}) << "engine 0's second CU";
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(run_on(nullptr), all) << "other streams keep every CU";
}

TEST_F(HipCuMasks, GetCuMaskGivesTheCusAStreamRunsOn) {
  const unsigned words = (cus_ + 31) / 32 + 1;
  std::vector<uint32_t> got(words, 0xdeadbeef);
  ASSERT_EQ(hipExtStreamGetCUMask(nullptr, words, got.data()), hipSuccess);  // the null stream: every CU
  for (unsigned i = 0; i < words * 32; ++i) EXPECT_EQ((got[i / 32] >> (i % 32)) & 1, i < cus_ ? 1u : 0u) << "bit " << i;
  std::vector<uint32_t> mask(words, 0xAAAAAAAAu);
  hipStream_t s = nullptr;
  ASSERT_EQ(hipExtStreamCreateWithCUMask(&s, words, mask.data()), hipSuccess);
  ASSERT_EQ(hipExtStreamGetCUMask(s, words, got.data()), hipSuccess);
  for (unsigned i = 0; i < words * 32; ++i)
    EXPECT_EQ((got[i / 32] >> (i % 32)) & 1, i < cus_ ? (i & 1) : 0u) << "bit " << i << " (bits past the CUs are dropped)";
  EXPECT_EQ(hipExtStreamGetCUMask(s, 0, got.data()), hipErrorInvalidValue);
  EXPECT_EQ(hipExtStreamGetCUMask(s, words, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HipCuMasks, RejectsMasksThatEnableNoCu) {
  hipStream_t s = nullptr;
  const uint32_t none[2] = {0, 0};
  EXPECT_EQ(hipExtStreamCreateWithCUMask(nullptr, 1, none), hipErrorInvalidHandle);
  EXPECT_EQ(hipExtStreamCreateWithCUMask(&s, 0, none), hipErrorInvalidValue);
  EXPECT_EQ(hipExtStreamCreateWithCUMask(&s, 1, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipExtStreamCreateWithCUMask(&s, 2, none), hipErrorInvalidValue) << "no bit set";
  std::vector<uint32_t> past((cus_ + 31) / 32 + 1, 0);
  past.back() = 0x80000000u;  // a CU the device does not have
  EXPECT_EQ(hipExtStreamCreateWithCUMask(&s, uint32_t(past.size()), past.data()), hipErrorInvalidValue);
  EXPECT_EQ(s, nullptr);
}

// A stream's queue of its own costs the device little memory: its context save area (every wave
// slot's state, tens of MiB) is in system memory, as libhsakmt puts it; only the EOP buffer is VRAM.
TEST_F(HipCuMasks, AQueueOfItsOwnTakesLittleDeviceMemory) {
  size_t free0 = 0, total = 0, free1 = 0;
  ASSERT_EQ(hipMemGetInfo(&free0, &total), hipSuccess);
  // Three at once: the tests before gave back one queue at most, so two are new.
  hipStream_t s[3] = {};
  const uint32_t mask[1] = {0xFFFFFFFFu};
  for (hipStream_t& x : s) {
    ASSERT_EQ(hipExtStreamCreateWithCUMask(&x, 1, mask), hipSuccess);
    EXPECT_FALSE(run_on(x).empty());
  }
  ASSERT_EQ(hipMemGetInfo(&free1, &total), hipSuccess);
  EXPECT_LT(free0 > free1 ? free0 - free1 : 0, size_t(1) << 20) << "bytes of VRAM two new queues took";
  for (hipStream_t x : s) EXPECT_EQ(hipStreamDestroy(x), hipSuccess);
}
