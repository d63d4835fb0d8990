// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): cooperative launches, grid_group::sync() and their limits.
#include <gtest/gtest.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <vector>

namespace cg = cooperative_groups;

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kRounds = 5;

// Round r: every block sums (i + 1) * (r + 1) over its slice into partial[block]; after a grid
// barrier block 0 adds the partials into out[r] and the next round overwrites them after a second
// barrier. Without a working barrier block 0 reads partials of the wrong round (or none).
__global__ void grid_rounds(const unsigned* in, unsigned* partial, unsigned long long* out, unsigned n,
                            unsigned* valid) {
  __shared__ unsigned long long sum[kThreads];
  cg::grid_group grid = cg::this_grid();
  if (grid.thread_rank() == 0) *valid = grid.is_valid() ? 1 : 2;
  for (unsigned r = 0; r < kRounds; ++r) {
    unsigned long long v = 0;
    for (unsigned i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads)
      v += (unsigned long long)in[i] * (r + 1);
    sum[threadIdx.x] = v;
    __syncthreads();
    for (unsigned half = kThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) sum[threadIdx.x] += sum[threadIdx.x + half];
      __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = unsigned(sum[0]) ^ (r << 28);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      unsigned long long t = 0;
      for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b] ^ (r << 28);
      out[r] = t;
    }
    grid.sync();
  }
}

__global__ void validity(unsigned* valid) { *valid = cg::this_grid().is_valid() ? 1 : 2; }

// Blocks of kThreads threads of grid_rounds the device holds at once.
int max_coresident_blocks() {
  int per_cu = 0, cus = 0;
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, grid_rounds, kThreads, 0), hipSuccess);
  EXPECT_EQ(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0), hipSuccess);
  return per_cu * cus;
}

TEST(HipCooperativeLaunch, AttributeSaysSupported) {
  int coop = -1;
  ASSERT_EQ(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0), hipSuccess);
  EXPECT_EQ(coop, 1);
  hipDeviceProp_t p{};
  ASSERT_EQ(hipGetDeviceProperties(&p, 0), hipSuccess);
  EXPECT_EQ(p.cooperativeLaunch, 1);
}

// Many more blocks than the emulator has worker threads, several barrier rounds.
void run_rounds(unsigned blocks) {
  const unsigned n = blocks * kThreads * 2 + 77;
  std::vector<unsigned> h(n);
  unsigned long long expect = 0;
  for (unsigned i = 0; i < n; ++i) h[i] = (i * 2654435761u) >> 20, expect += h[i];
  unsigned *in = nullptr, *partial = nullptr, *valid = nullptr;
  unsigned long long* out = nullptr;
  ASSERT_EQ(hipMalloc(&in, n * sizeof(unsigned)), hipSuccess);
  ASSERT_EQ(hipMalloc(&partial, blocks * sizeof(unsigned)), hipSuccess);
  ASSERT_EQ(hipMalloc(&out, kRounds * sizeof(unsigned long long)), hipSuccess);
  ASSERT_EQ(hipMalloc(&valid, sizeof(unsigned)), hipSuccess);
  ASSERT_EQ(hipMemcpy(in, h.data(), n * sizeof(unsigned), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemset(out, 0, kRounds * sizeof(unsigned long long)), hipSuccess);
  void* params[] = {&in, &partial, &out, const_cast<unsigned*>(&n), &valid};
  ASSERT_EQ(hipLaunchCooperativeKernel(grid_rounds, dim3(blocks), dim3(kThreads), params, 0, 0), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  unsigned long long got[kRounds];
  unsigned v = 0;
  ASSERT_EQ(hipMemcpy(got, out, sizeof got, hipMemcpyDeviceToHost), hipSuccess);
  ASSERT_EQ(hipMemcpy(&v, valid, sizeof v, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(v, 1u) << "grid_group::is_valid() in a cooperative launch";
  for (unsigned r = 0; r < kRounds; ++r) EXPECT_EQ(got[r], expect * (r + 1)) << "round " << r;
  for (void* p : {(void*)in, (void*)partial, (void*)out, (void*)valid}) EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST(HipCooperativeLaunch, GridSyncReductionOverManyBlocks) {
  const int fit = max_coresident_blocks();
  ASSERT_GT(fit, 1);
  run_rounds(unsigned(std::min(fit, 40)));
}

TEST(HipCooperativeLaunch, GridSyncWithEveryBlockTheDeviceHolds) { run_rounds(unsigned(max_coresident_blocks())); }

TEST(HipCooperativeLaunch, OneBlock) { run_rounds(1); }

TEST(HipCooperativeLaunch, GridTooLargeIsRefused) {
  const int fit = max_coresident_blocks();
  unsigned *in = nullptr, *valid = nullptr;
  unsigned long long* out = nullptr;
  unsigned n = 0;
  void* params[] = {&in, &in, &out, &n, &valid};
  EXPECT_EQ(hipLaunchCooperativeKernel(grid_rounds, dim3(fit + 1), dim3(kThreads), params, 0, 0),
            hipErrorCooperativeLaunchTooLarge);
  EXPECT_EQ(hipGetLastError(), hipErrorCooperativeLaunchTooLarge);
  EXPECT_EQ(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&n), dim3(1), dim3(1), params, 0, 0),
            hipErrorInvalidDeviceFunction);
  (void)hipGetLastError();
}

TEST(HipCooperativeLaunch, GridIsValidOnlyInCooperativeLaunches) {
  unsigned* valid = nullptr;
  ASSERT_EQ(hipMalloc(&valid, sizeof(unsigned)), hipSuccess);
  unsigned v = 0;
  validity<<<1, 64>>>(valid);
  ASSERT_EQ(hipMemcpy(&v, valid, sizeof v, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(v, 2u);
  void* params[] = {&valid};
  ASSERT_EQ(hipLaunchCooperativeKernel(validity, dim3(2), dim3(64), params, 0, 0), hipSuccess);
  ASSERT_EQ(hipMemcpy(&v, valid, sizeof v, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(v, 1u);
  EXPECT_EQ(hipFree(valid), hipSuccess);
}

}  // namespace
