// SPDX-License-Identifier: MIT
// Faults through HIP, one per process (a fault is sticky, as HIP specifies): a storm of waves
// faulting at once on many streams, and a GPU reset with kernels and copies in flight. Each ends in an error naming the address or the reset, never a hang; the
// calls HIP keeps working after a sticky error (device queries, error strings, freeing) still do.
// (A fault during a copy is tested on the copy engine, tests/queues/copy_fault_test.cpp: HIP's
// copies are host copies today, which a GPU page fault cannot stop.)
#include <dlfcn.h>
#include <gtest/gtest.h>
#include "api/include/hc/detail/kfdrt_ext.h"
#include <hip/hip_runtime.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#define ASSERT_HIP(e) ASSERT_EQ((e), hipSuccess) << #e

namespace {

using namespace std::chrono_literals;

// Captures what the runtime writes on stderr while alive.
class StderrCapture {
 public:
  StderrCapture() {
    char path[] = "/tmp/kfdrt-rel-XXXXXX";
    fd_ = mkstemp(path);
    unlink(path);
    std::fflush(stderr);
    saved_ = dup(2);
    dup2(fd_, 2);
  }
  std::string text() {
    std::fflush(stderr);
    std::string t;
    char buf[4096];
    lseek(fd_, 0, SEEK_SET);
    for (ssize_t n; (n = read(fd_, buf, sizeof buf)) > 0;) t.append(buf, size_t(n));
    return t;
  }
  ~StderrCapture() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    close(fd_);
  }

 private:
  int fd_ = -1, saved_ = -1;
};

__global__ void write_all(int* p, int stride) {
  p[(blockIdx.x * blockDim.x + threadIdx.x) * stride] = int(threadIdx.x);
}

__global__ void spin_until(volatile int* flag, int* done) {
  while (*flag == 0) __builtin_amdgcn_s_sleep(10);
  done[threadIdx.x] = 1;
}

// Host calls HIP answers after a sticky device error.
void expect_host_calls_work() {
  int n = 0;
  EXPECT_EQ(hipGetDeviceCount(&n), hipSuccess);
  EXPECT_GE(n, 1);
  hipDeviceProp_t prop;
  EXPECT_EQ(hipGetDeviceProperties(&prop, 0), hipSuccess);
  EXPECT_STRNE(hipGetErrorString(hipErrorIllegalAddress), "");
}

// 8 streams, each with a 64-block kernel whose every lane writes into one unmapped hole: all the
// waves fault at once. Every stream's synchronize returns hipErrorIllegalAddress with the address.
TEST(FaultStorm, ManyWavesOnManyStreams) {
  void* hole = mmap(nullptr, 64 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  int* good = nullptr;
  ASSERT_HIP(hipMalloc(&good, 64 * 256 * sizeof(int)));
  StderrCapture cap;
  std::vector<hipStream_t> streams(8);
  for (auto& s : streams) ASSERT_HIP(hipStreamCreate(&s));
  for (size_t i = 0; i < streams.size(); ++i) {
    write_all<<<64, 256, 0, streams[i]>>>(static_cast<int*>(hole) + i * (1 << 20) / 4, 16);
    ASSERT_HIP(hipGetLastError());
  }
  auto t0 = std::chrono::steady_clock::now();
  for (auto& s : streams) EXPECT_EQ(hipStreamSynchronize(s), hipErrorIllegalAddress);
  EXPECT_EQ(hipDeviceSynchronize(), hipErrorIllegalAddress);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
  // Sticky: a later launch and copy fail the same way.
  write_all<<<1, 64>>>(good, 1);
  EXPECT_EQ(hipDeviceSynchronize(), hipErrorIllegalAddress);
  int h = 0;
  EXPECT_EQ(hipMemcpy(&h, good, sizeof h, hipMemcpyDeviceToHost), hipErrorIllegalAddress);
  expect_host_calls_work();
  // Destroying a stream after the sticky error returns (success or the sticky error, as CUDA
  // answers every call of a corrupted context), never hangs.
  for (auto& s : streams) {
    hipError_t e = hipStreamDestroy(s);
    EXPECT_TRUE(e == hipSuccess || e == hipErrorIllegalAddress) << hipGetErrorName(e);
  }
  EXPECT_EQ(hipFree(good), hipSuccess);
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(hole)) >> 28);
  const std::string err = cap.text();
  EXPECT_NE(err.find(prefix), std::string::npos) << "no address in the hole (" << prefix << "...): " << err;
  munmap(hole, 64 << 20);
}

// A GPU reset while kernels spin on several streams and a copy waits behind one: every
// synchronize returns an error instead of hanging, and the message names the reset.
TEST(GpuReset, KernelsAndCopiesInFlightEndWithTheReset) {
  auto inject = reinterpret_cast<int (*)(uint32_t, int)>(dlsym(RTLD_DEFAULT, "kfdemu_inject_hw_exception"));
  if (!inject) GTEST_SKIP() << "needs the emulator's kfdemu_inject_hw_exception";
  int* flag = nullptr;
  ASSERT_HIP(hipHostMalloc(&flag, sizeof(int), hipHostMallocCoherent));
  *flag = 0;
  int* done = nullptr;
  ASSERT_HIP(hipMalloc(&done, 4 * 64 * sizeof(int)));
  const size_t bytes = 1 << 20;
  char* host = nullptr;  // pinned: the copies queue behind the kernels (a pageable one would wait)
  ASSERT_HIP(hipHostMalloc(&host, bytes, hipHostMallocDefault));
  char* dev = nullptr;
  ASSERT_HIP(hipMalloc(&dev, bytes));
  StderrCapture cap;
  std::vector<hipStream_t> streams(4);
  for (size_t i = 0; i < streams.size(); ++i) {
    ASSERT_HIP(hipStreamCreate(&streams[i]));
    spin_until<<<1, 64, 0, streams[i]>>>(flag, done + i * 64);
    ASSERT_HIP(hipMemcpyAsync(host, dev, bytes, hipMemcpyDeviceToHost, streams[i]));
  }
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(hipStreamQuery(streams[0]), hipErrorNotReady);
  uint32_t gpu_id = 0;
  ASSERT_HIP(kfdrtDeviceGetGpuId(0, &gpu_id, nullptr));
  ASSERT_EQ(inject(gpu_id, 1), 0);
  auto t0 = std::chrono::steady_clock::now();
  for (auto& s : streams) EXPECT_NE(hipStreamSynchronize(s), hipSuccess);
  EXPECT_NE(hipDeviceSynchronize(), hipSuccess);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
  *flag = 1;  // let the emulated kernels end (a reset does not stop the queues)
  expect_host_calls_work();
  for (auto& s : streams) EXPECT_NE(hipStreamDestroy(s), hipErrorInvalidHandle);
  const std::string err = cap.text();
  EXPECT_NE(err.find("hardware exception"), std::string::npos) << err;
}

}  // namespace
