// SPDX-License-Identifier: MIT
// Create/destroy loops over the HIP API (streams, events, modules, every kind of allocation,
// hipDeviceReset): the emulated amdkfd's counts and RSS return to their baseline; VRAM exhaustion
// ends in hipErrorOutOfMemory and the process goes on.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <cstdlib>
#include <vector>

#include "leak_check.h"

#define ASSERT_HIP(e) ASSERT_EQ((e), hipSuccess) << #e
#define EXPECT_HIP(e) EXPECT_EQ((e), hipSuccess) << #e

namespace {

__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

// Iterations per loop: KFDRT_LEAK_ITERS overrides (a longer run), default keeps the suite quick.
int iters(int dflt) {
  const char* e = std::getenv("KFDRT_LEAK_ITERS");
  return e && std::atoi(e) > 0 ? std::atoi(e) : dflt;
}

class HipLeak : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_HIP(hipSetDevice(0));
    ASSERT_HIP(hipMalloc(&buf_, 256 * sizeof(int)));
    ASSERT_HIP(hipMemset(buf_, 0, 256 * sizeof(int)));
    ASSERT_HIP(hipDeviceSynchronize());
    // Every stream has an interrupt signal; the runtime keeps the KFD events of released ones
    // for reuse, creating fresh ones up to its budget (256). Fill that cache first, so that a
    // loop's growth is a leak and not the cache filling.
    static bool warm = false;
    if (!warm) {
      std::vector<hipStream_t> ss(300);
      for (auto& s : ss) ASSERT_HIP(hipStreamCreate(&s));
      for (auto& s : ss) ASSERT_HIP(hipStreamDestroy(s));
      warm = true;
    }
    auto present = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "kfdemu_present"));
    if (present && present()) ASSERT_TRUE(leak::snapshot().have_counts) << "kfdemu_get_counts failed";
  }
  void TearDown() override { EXPECT_HIP(hipFree(buf_)); }
  int* buf_ = nullptr;
};

TEST_F(HipLeak, StreamsWithWork) {
  EXPECT_NO_LEAK(iters(2000), {
    hipStream_t s;
    ASSERT_HIP(hipStreamCreateWithFlags(&s, leak_i_ % 2 ? hipStreamNonBlocking : hipStreamDefault));
    if (leak_i_ % 8 == 0) {
      add_one<<<1, 256, 0, s>>>(buf_, 256);
      ASSERT_HIP(hipStreamSynchronize(s));
    }
    ASSERT_HIP(hipStreamDestroy(s));
  });
  int h[256];
  ASSERT_HIP(hipMemcpy(h, buf_, sizeof h, hipMemcpyDeviceToHost));
  const int n = iters(2000) + 128;  // the warm-up's iterations and the loop's
  EXPECT_EQ(h[0], (n + 7) / 8);     // one launch per eighth iteration
}

TEST_F(HipLeak, EventsOfEveryKind) {
  const unsigned flags[] = {hipEventDefault, hipEventDisableTiming, hipEventBlockingSync,
                            hipEventDisableTiming | hipEventBlockingSync};
  EXPECT_NO_LEAK(iters(4000), {
    hipEvent_t e;
    ASSERT_HIP(hipEventCreateWithFlags(&e, flags[leak_i_ % 4]));
    ASSERT_HIP(hipEventRecord(e, nullptr));
    ASSERT_HIP(hipEventSynchronize(e));
    ASSERT_HIP(hipEventDestroy(e));
  });
}

// Events recorded and never waited for, destroyed while their stream may still run.
TEST_F(HipLeak, EventsDestroyedPending) {
  hipStream_t s;
  ASSERT_HIP(hipStreamCreate(&s));
  EXPECT_NO_LEAK(iters(2000), {
    hipEvent_t e;
    ASSERT_HIP(hipEventCreate(&e));
    add_one<<<1, 64, 0, s>>>(buf_, 64);
    ASSERT_HIP(hipEventRecord(e, s));
    ASSERT_HIP(hipEventDestroy(e));
    if (leak_i_ % 64 == 0) ASSERT_HIP(hipStreamSynchronize(s));
  });
  ASSERT_HIP(hipStreamSynchronize(s));
  ASSERT_HIP(hipStreamDestroy(s));
}

TEST_F(HipLeak, Modules) {
  EXPECT_NO_LEAK(iters(2000), {
    hipModule_t m;
    ASSERT_HIP(hipModuleLoad(&m, KFDRT_TEST_CO));
    hipFunction_t f;
    ASSERT_HIP(hipModuleGetFunction(&f, m, "fill"));
    if (leak_i_ % 16 == 0) {
      struct {
        int* out;
        int value;
        int n;
      } args{buf_, leak_i_, 16};
      size_t size = sizeof args;
      void* cfg[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
      ASSERT_HIP(hipModuleLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, nullptr, nullptr, cfg));
      ASSERT_HIP(hipDeviceSynchronize());
      int h = -1;
      ASSERT_HIP(hipMemcpy(&h, buf_ + 15, sizeof h, hipMemcpyDeviceToHost));
      ASSERT_EQ(h, leak_i_ + 15);  // fill writes value + index
    }
    ASSERT_HIP(hipModuleUnload(m));
  });
}

// Every allocation kind HIP has, with sizes from one page to a few MiB.
TEST_F(HipLeak, AllocationsOfEveryKind) {
  std::vector<char> host(4 << 20);
  EXPECT_NO_LEAK(iters(1000), {
    const size_t size = size_t(4096) << (leak_i_ % 10);
    void* p = nullptr;
    switch (leak_i_ % 9) {
      case 0: ASSERT_HIP(hipMalloc(&p, size)); ASSERT_HIP(hipMemset(p, 1, size)); ASSERT_HIP(hipFree(p)); break;
      case 1: ASSERT_HIP(hipHostMalloc(&p, size, hipHostMallocDefault)); static_cast<char*>(p)[size - 1] = 1;
              ASSERT_HIP(hipHostFree(p)); break;
      case 2: ASSERT_HIP(hipHostMalloc(&p, size, hipHostMallocNonCoherent | hipHostMallocMapped));
              ASSERT_HIP(hipHostFree(p)); break;
      case 3: ASSERT_HIP(hipHostMalloc(&p, size, hipHostMallocCoherent | hipHostMallocPortable));
              ASSERT_HIP(hipHostFree(p)); break;
      case 4: ASSERT_HIP(hipMallocManaged(&p, size, hipMemAttachGlobal)); static_cast<char*>(p)[0] = 1;
              ASSERT_HIP(hipMemset(p, 2, size)); ASSERT_HIP(hipDeviceSynchronize()); ASSERT_HIP(hipFree(p)); break;
      case 5: ASSERT_HIP(hipHostRegister(host.data(), size, hipHostRegisterDefault));
              ASSERT_HIP(hipMemcpy(buf_, host.data(), 64, hipMemcpyHostToDevice));
              ASSERT_HIP(hipHostUnregister(host.data())); break;
      case 6: ASSERT_HIP(hipExtMallocWithFlags(&p, size, hipDeviceMallocDefault)); ASSERT_HIP(hipFree(p));
              if (hipExtMallocWithFlags(&p, size, hipDeviceMallocFinegrained) == hipSuccess) ASSERT_HIP(hipFree(p));
              break;  // fine-grained VRAM fails on a small-BAR GPU (and must leak nothing then)
      case 7: { size_t pitch = 0; ASSERT_HIP(hipMallocPitch(&p, &pitch, 1000, 1 + size / 4096));
                ASSERT_HIP(hipFree(p)); break; }
      case 8: if (hipExtMallocWithFlags(&p, size, hipDeviceMallocUncached) == hipSuccess) ASSERT_HIP(hipFree(p));
              ASSERT_HIP(hipHostMalloc(&p, size, hipHostMallocWriteCombined)); ASSERT_HIP(hipHostFree(p)); break;
    }
  });
}

// hipDeviceReset destroys the device's streams and gives its queues' scratch back; the next use
// brings them back. The buffer of the fixture survives (allocations do in kfdrt's reset).
TEST_F(HipLeak, DeviceReset) {
  EXPECT_NO_LEAK(iters(2000), {
    hipStream_t s;
    ASSERT_HIP(hipStreamCreate(&s));
    add_one<<<1, 64, 0, s>>>(buf_, 64);
    ASSERT_HIP(hipStreamSynchronize(s));
    ASSERT_HIP(hipDeviceReset());
  });
}

// VRAM exhaustion: hipMalloc fails with hipErrorOutOfMemory, the blocks already had stay usable,
// and after freeing them the same allocation succeeds and kernels run.
TEST(HipLimits, VramExhaustionIsAnErrorAndTheProcessGoesOn) {
  size_t free_b = 0, total = 0;
  ASSERT_HIP(hipMemGetInfo(&free_b, &total));
  if (total > (size_t(8) << 30)) GTEST_SKIP() << "needs a small VRAM (KFDEMU_VRAM_MB), have " << total;
  const size_t chunk = 64 << 20;
  std::vector<void*> blocks;
  hipError_t e = hipSuccess;
  for (size_t i = 0; i < 2 * total / chunk + 4; ++i) {
    void* p = nullptr;
    e = hipMalloc(&p, chunk);
    if (e != hipSuccess) break;
    blocks.push_back(p);
  }
  EXPECT_EQ(e, hipErrorOutOfMemory) << hipGetErrorName(e);
  EXPECT_EQ(hipGetLastError(), hipErrorOutOfMemory);  // reported once, not sticky
  EXPECT_EQ(hipGetLastError(), hipSuccess);
  ASSERT_FALSE(blocks.empty());
  EXPECT_LE(blocks.size() * chunk, total);
  int* first = static_cast<int*>(blocks.front());
  ASSERT_HIP(hipMemset(first, 0, 64 * sizeof(int)));
  add_one<<<1, 64>>>(first, 64);
  ASSERT_HIP(hipDeviceSynchronize());
  for (void* p : blocks) ASSERT_HIP(hipFree(p));
  void* again = nullptr;
  ASSERT_HIP(hipMalloc(&again, chunk));
  ASSERT_HIP(hipFree(again));
}

}  // namespace
