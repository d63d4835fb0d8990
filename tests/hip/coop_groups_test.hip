// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): cooperative groups within a block, on the device.
#include <gtest/gtest.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <vector>

namespace cg = cooperative_groups;

namespace {

// Sums through shared memory with the group's own rank, size and sync, whatever the group.
__device__ unsigned group_sum(cg::thread_group g, unsigned* scratch, unsigned v) {
  unsigned r = g.thread_rank();
  for (unsigned half = g.size() / 2; half > 0; half /= 2) {
    scratch[r] = v;
    g.sync();
    if (r < half) v += scratch[r + half];
    g.sync();
  }
  return v;
}

// out: [0] block sum, [1..16] sums of the 16-thread tiles, [17..20] sums of the 64-thread tiles
// made at run time, [21..36] shuffle sums of the 16-thread tiles.
__global__ void group_sums(unsigned* out) {
  __shared__ unsigned scratch[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned v = block.thread_rank() + 1;
  unsigned total = group_sum(block, scratch, v);
  if (block.thread_rank() == 0) out[0] = total;
  block.sync();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  unsigned base = block.thread_rank() - tile.thread_rank();
  unsigned t = group_sum(tile, scratch + base, v);
  if (tile.thread_rank() == 0) out[1 + tile.meta_group_rank()] = t;
  block.sync();
  cg::thread_group wide = cg::tiled_partition(block, 64);
  unsigned w = group_sum(wide, scratch + (block.thread_rank() - wide.thread_rank()), v);
  if (wide.thread_rank() == 0) out[17 + block.thread_rank() / 64] = w;
  unsigned s = v;
  for (unsigned d = tile.size() / 2; d > 0; d /= 2) s += tile.shfl_down(s, d);
  if (tile.thread_rank() == 0) out[21 + tile.meta_group_rank()] = s;
}

TEST(HipCooperativeGroups, ReduceOverBlocksAndTiles) {
  unsigned* out = nullptr;
  ASSERT_EQ(hipMalloc(&out, 37 * sizeof(unsigned)), hipSuccess);
  hipLaunchKernelGGL(group_sums, dim3(1), dim3(256), 0, 0, out);
  std::vector<unsigned> h(37);
  ASSERT_EQ(hipMemcpy(h.data(), out, h.size() * sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 256u * 257u / 2);
  for (unsigned t = 0; t < 16; ++t) {
    unsigned lo = 16 * t + 1, hi = 16 * t + 16;
    EXPECT_EQ(h[1 + t], (lo + hi) * 16 / 2) << t;
    EXPECT_EQ(h[21 + t], (lo + hi) * 16 / 2) << t;
  }
  for (unsigned t = 0; t < 4; ++t) {
    unsigned lo = 64 * t + 1, hi = 64 * t + 64;
    EXPECT_EQ(h[17 + t], (lo + hi) * 64 / 2) << t;
  }
  EXPECT_EQ(hipFree(out), hipSuccess);
}

// Per thread: [0] rank in the coalesced group of odd lanes (or 99), [1] its size, [2] the value
// the group's rank-0 thread holds, [3] tile-of-8 ballot / any / all packed, [4] grid rank.
__global__ void lanes_and_votes(unsigned* out) {
  unsigned* o = out + 5 * (blockIdx.x * blockDim.x + threadIdx.x);
  o[0] = 99, o[1] = 0, o[2] = 0;
  if (threadIdx.x & 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    o[0] = odd.thread_rank();
    o[1] = odd.size();
    o[2] = odd.shfl(threadIdx.x * 10, 0);
  }
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  unsigned long long b = tile.ballot(tile.thread_rank() < 3);
  o[3] = unsigned(b) | unsigned(tile.any(tile.thread_rank() == 7)) << 16 | unsigned(tile.all(tile.thread_rank() < 7)) << 17;
  // The free-function forms: a plain launch's grid is no cooperative grid; a block always is one.
  o[3] |= unsigned(cg::is_valid(cg::this_grid())) << 18 | unsigned(cg::is_valid(cg::this_thread_block())) << 19;
  o[4] = cg::this_grid().thread_rank() + 1000 * cg::group_size(cg::this_grid());
}

TEST(HipCooperativeGroups, CoalescedGroupsTileVotesAndGridRanks) {
  const int blocks = 2, threads = 64;
  unsigned* out = nullptr;
  ASSERT_EQ(hipMalloc(&out, 5 * blocks * threads * sizeof(unsigned)), hipSuccess);
  hipLaunchKernelGGL(lanes_and_votes, dim3(blocks), dim3(threads), 0, 0, out);
  std::vector<unsigned> h(5 * blocks * threads);
  ASSERT_EQ(hipMemcpy(h.data(), out, h.size() * sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
  for (int i = 0; i < blocks * threads; ++i) {
    const unsigned* o = &h[5 * i];
    int t = i % threads;
    if (t & 1) {
      EXPECT_EQ(o[0], unsigned(t / 2)) << i;
      EXPECT_EQ(o[1], 32u) << i;
      EXPECT_EQ(o[2], 10u) << i;  // lane 1 is the odd group's rank 0
    } else {
      EXPECT_EQ(o[0], 99u) << i;
    }
    EXPECT_EQ(o[3], 0x7u | 1u << 16 | 0u << 17 | 0u << 18 | 1u << 19) << i;
    EXPECT_EQ(o[4], unsigned(i) + 1000u * blocks * threads) << i;
  }
  EXPECT_EQ(hipFree(out), hipSuccess);
}

// Cooperative launches and grid barriers: coop_launch_test.hip.

}  // namespace
