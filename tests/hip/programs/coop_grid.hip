// SPDX-License-Identifier: MIT
// A cooperative launch with grid_group::sync() between rounds over several blocks, built by kfdcc and by ROCm's hipcc.
//
// Each round every work-item reads its neighbour block's element, the grid syncs, it adds that
// value to its own, the grid syncs again: without a working grid barrier blocks read values of the
// wrong round. The host computes the same rounds and compares every element.
// hip_runtime.h first: ROCm 5.2's cooperative groups header needs it included before.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#include <thread>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 64;
constexpr int kRounds = 4;

__global__ void rounds(unsigned* a, unsigned* info) {
  cg::grid_group grid = cg::this_grid();
  const unsigned blocks = gridDim.x, b = blockIdx.x, t = threadIdx.x;
  if (grid.thread_rank() == 0) {
    info[0] = grid.is_valid() ? 1 : 2;
    info[1] = unsigned(grid.size());
  }
  for (int r = 0; r < kRounds; ++r) {
    const unsigned v = a[((b + 1) % blocks) * kThreads + t];
    grid.sync();
    a[b * kThreads + t] += v;
    grid.sync();
  }
}

// The expected result of `rounds` over `blocks` blocks from `init`.
std::vector<unsigned> model(std::vector<unsigned> a, unsigned blocks) {
  for (int r = 0; r < kRounds; ++r) {
    std::vector<unsigned> next = a;
    for (unsigned b = 0; b < blocks; ++b)
      for (int t = 0; t < kThreads; ++t) next[b * kThreads + t] += a[((b + 1) % blocks) * kThreads + t];
    a = next;
  }
  return a;
}

// One cooperative launch of `blocks` blocks on `stream`, checked element by element.
void run(unsigned blocks, hipStream_t stream, unsigned seed) {
  std::vector<unsigned> init(blocks * kThreads);
  for (size_t i = 0; i < init.size(); ++i) init[i] = unsigned(i * 2654435761u + seed) % 1000;
  unsigned *a = nullptr, *info = nullptr;
  CHECK_HIP(hipMalloc(&a, init.size() * sizeof(unsigned)));
  CHECK_HIP(hipMalloc(&info, 2 * sizeof(unsigned)));
  CHECK_HIP(hipMemcpy(a, init.data(), init.size() * sizeof(unsigned), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemset(info, 0, 2 * sizeof(unsigned)));
  void* args[] = {&a, &info};
  CHECK_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(rounds), dim3(blocks), dim3(kThreads),
                                       args, 0, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  std::vector<unsigned> got(init.size());
  unsigned hinfo[2] = {};
  CHECK_HIP(hipMemcpy(got.data(), a, got.size() * sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK_HIP(hipMemcpy(hinfo, info, sizeof hinfo, hipMemcpyDeviceToHost));
  const std::vector<unsigned> want = model(init, blocks);
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ < 4) std::printf("  [%zu] = %u, want %u\n", i, got[i], want[i]);
  std::printf("  %u blocks: %zu of %zu elements wrong\n", blocks, bad, got.size());
  CHECK(bad == 0);
  CHECK(hinfo[0] == 1);  // grid_group::is_valid() in a cooperative launch
  CHECK(hinfo[1] == blocks * kThreads);
  CHECK_HIP(hipFree(a));
  CHECK_HIP(hipFree(info));
}

// The same without the check harness (for other threads): `rounds` over `blocks` blocks on a
// stream of its own, `times` times; false on any error or wrong element.
bool race(unsigned blocks, unsigned seed, int times) {
  std::vector<unsigned> init(blocks * kThreads), got(init.size());
  for (size_t i = 0; i < init.size(); ++i) init[i] = unsigned(i * 40503u + seed) % 1000;
  const std::vector<unsigned> want = model(init, blocks);
  hipStream_t s = nullptr;
  unsigned *a = nullptr, *info = nullptr;
  bool ok = hipStreamCreate(&s) == hipSuccess && hipMalloc(&a, init.size() * sizeof(unsigned)) == hipSuccess &&
            hipMalloc(&info, 2 * sizeof(unsigned)) == hipSuccess;
  void* args[] = {&a, &info};
  for (int t = 0; ok && t < times; ++t) {
    ok = hipMemcpyAsync(a, init.data(), init.size() * sizeof(unsigned), hipMemcpyHostToDevice, s) == hipSuccess &&
         hipLaunchCooperativeKernel(reinterpret_cast<const void*>(rounds), dim3(blocks), dim3(kThreads), args, 0,
                                    s) == hipSuccess &&
         hipMemcpyAsync(got.data(), a, got.size() * sizeof(unsigned), hipMemcpyDeviceToHost, s) == hipSuccess &&
         hipStreamSynchronize(s) == hipSuccess && got == want;
    if (!ok) std::printf("  thread with %u blocks: launch %d failed or wrong\n", blocks, t);
  }
  (void)hipFree(a);
  (void)hipFree(info);
  if (s) (void)hipStreamDestroy(s);
  return ok;
}

int main() {
  int coop = 0;
  CHECK_HIP(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
  CHECK(coop == 1);
  int per_cu = 0, cus = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, rounds, kThreads, 0));
  CHECK_HIP(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  const unsigned fit = unsigned(per_cu) * unsigned(cus);
  CHECK(fit >= 3);
  if (fit < 3) return check::summary();
  // Several block counts, so each launch's GWS init must replace the last one's count.
  run(fit < 8 ? fit : 8, nullptr, 1);
  run(3, nullptr, 2);
  hipStream_t s = nullptr;
  CHECK_HIP(hipStreamCreate(&s));
  run(fit < 5 ? fit : 5, s, 3);
  CHECK_HIP(hipStreamDestroy(s));
  // Launches with different block counts from two threads at once: each launch's GWS init must
  // stay right before its own kernel.
  bool ok[2] = {false, false};
  std::thread t0([&] { ok[0] = race(fit < 4 ? fit : 4, 11, 4); });
  std::thread t1([&] { ok[1] = race(fit < 7 ? fit : 7, 12, 4); });
  t0.join();
  t1.join();
  CHECK(ok[0]);
  CHECK(ok[1]);
  // One block more than fits at once: refused, nothing runs.
  unsigned* a = nullptr;
  unsigned* info = nullptr;
  void* args[] = {&a, &info};
  CHECK_ERR(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(rounds), dim3(fit + 1), dim3(kThreads), args,
                                       0, nullptr),
            hipErrorCooperativeLaunchTooLarge);
  return check::summary();
}
