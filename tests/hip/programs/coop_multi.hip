// SPDX-License-Identifier: MIT
// hipLaunchCooperativeKernelMultiDevice: grids on every device syncing with each other (multi_grid_group), and its argument checks.
//
// The grids share a buffer in host memory. Each round every work-item reads the element one
// grid's worth ahead of its multi-grid rank (an element of the next device's grid), all grids
// sync, it adds that value to its own, they sync again: without a working multi-grid barrier a
// grid reads values of the wrong round. The host computes the same rounds. With one device the
// launch list has one entry (the multi-grid info is still used) and the two-device part is skipped.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 64;
constexpr unsigned kBlocks = 3;
constexpr int kRounds = 3;

__global__ void rounds(unsigned* a, unsigned* info) {
  cg::multi_grid_group mg = cg::this_multi_grid();
  const unsigned all = unsigned(mg.size()), r = mg.thread_rank();
  const unsigned shift = gridDim.x * blockDim.x;  // one grid's work-items
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    unsigned* i = info + 4 * mg.grid_rank();
    i[0] = mg.is_valid() ? 1 : 2;
    i[1] = mg.num_grids();
    i[2] = all;
    i[3] = r;
  }
  for (int k = 0; k < kRounds; ++k) {
    const unsigned v = a[(r + shift) % all];
    mg.sync();
    a[r] += v;
    mg.sync();
  }
}

std::vector<unsigned> model(std::vector<unsigned> a, size_t shift) {
  for (int k = 0; k < kRounds; ++k) {
    std::vector<unsigned> next = a;
    for (size_t r = 0; r < a.size(); ++r) next[r] += a[(r + shift) % a.size()];
    a = next;
  }
  return a;
}

// One multi-device launch over devices 0..n-1, checked element by element.
void run(int n) {
  const size_t per_grid = kBlocks * kThreads, all = per_grid * size_t(n);
  unsigned *a = nullptr, *info = nullptr;
  CHECK_HIP(hipHostMalloc(&a, all * sizeof(unsigned), hipHostMallocCoherent));
  CHECK_HIP(hipHostMalloc(&info, 4 * sizeof(unsigned) * size_t(n), hipHostMallocCoherent));
  std::vector<unsigned> init(all);
  for (size_t i = 0; i < all; ++i) init[i] = a[i] = unsigned(i * 2654435761u + 7) % 1000;
  for (int i = 0; i < 4 * n; ++i) info[i] = 0;
  std::vector<hipStream_t> streams(n);
  std::vector<hipLaunchParams> params(n);
  void* args[] = {&a, &info};
  for (int d = 0; d < n; ++d) {
    CHECK_HIP(hipSetDevice(d));
    CHECK_HIP(hipStreamCreate(&streams[d]));
    params[d].func = reinterpret_cast<void*>(rounds);
    params[d].gridDim = dim3(kBlocks);
    params[d].blockDim = dim3(kThreads);
    params[d].args = args;
    params[d].sharedMem = 0;
    params[d].stream = streams[d];
  }
  CHECK_HIP(hipLaunchCooperativeKernelMultiDevice(params.data(), n, 0));
  for (int d = 0; d < n; ++d) CHECK_HIP(hipStreamSynchronize(streams[d]));
  const std::vector<unsigned> want = model(init, per_grid);
  size_t bad = 0;
  for (size_t i = 0; i < all; ++i)
    if (a[i] != want[i] && bad++ < 4) std::printf("  [%zu] = %u, want %u\n", i, a[i], want[i]);
  std::printf("  %d grids: %zu of %zu elements wrong\n", n, bad, all);
  CHECK(bad == 0);
  for (int d = 0; d < n; ++d) {
    std::printf("  grid %d: valid %u, grids %u, size %u, first rank %u\n", d, info[4 * d], info[4 * d + 1],
                info[4 * d + 2], info[4 * d + 3]);
    CHECK(info[4 * d] == 1);
    CHECK(info[4 * d + 1] == unsigned(n));
    CHECK(info[4 * d + 2] == unsigned(all));
    CHECK(info[4 * d + 3] == unsigned(d * per_grid));
  }
  // Refused before anything runs: unknown flags, two grids on one device, a grid too large.
  CHECK_ERR(hipLaunchCooperativeKernelMultiDevice(params.data(), n, 4), hipErrorInvalidValue);
  CHECK_ERR(hipLaunchCooperativeKernelMultiDevice(nullptr, n, 0), hipErrorInvalidValue);
  CHECK_ERR(hipLaunchCooperativeKernelMultiDevice(params.data(), 0, 0), hipErrorInvalidValue);
  std::vector<hipLaunchParams> twice = {params[0], params[0]};
  int devices = 0;
  CHECK_HIP(hipGetDeviceCount(&devices));
  // (more entries than devices is an invalid value)
  CHECK_ERR(hipLaunchCooperativeKernelMultiDevice(twice.data(), 2, 0),
            devices > 1 ? hipErrorInvalidDevice : hipErrorInvalidValue);
  hipLaunchParams big = params[0];
  big.gridDim = dim3(1u << 20);
  CHECK_ERR(hipLaunchCooperativeKernelMultiDevice(&big, 1, 0), hipErrorCooperativeLaunchTooLarge);
  for (int d = 0; d < n; ++d) CHECK_HIP(hipStreamDestroy(streams[d]));
  CHECK_HIP(hipHostFree(a));
  CHECK_HIP(hipHostFree(info));
  CHECK_HIP(hipSetDevice(0));
}

int main() {
  int devices = 0, multi = 0;
  CHECK_HIP(hipGetDeviceCount(&devices));
  CHECK_HIP(hipDeviceGetAttribute(&multi, hipDeviceAttributeCooperativeMultiDeviceLaunch, 0));
  CHECK(multi == 1);
  run(1);
  if (devices >= 2)
    run(2);
  else
    std::printf("SKIP two grids: one device (the emulator gives two with KFDEMU_GPUS=2)\n");
  return check::summary();
}
