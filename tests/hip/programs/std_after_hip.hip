// SPDX-License-Identifier: MIT
// Includes <memory>, <thread>, <future> and <filesystem> after hip/hip_runtime.h: libstdc++ 12
// writes __attribute__((__noinline__)) in them, which a __noinline__ macro would break. Also
// uses __noinline__ itself on a device function.
#include <hip/hip_runtime.h>

#include <filesystem>
#include <future>
#include <memory>
#include <thread>

#include "check.h"

__noinline__ __device__ int triple(int x) { return 3 * x; }

__global__ void fill_triple(int* out) { out[threadIdx.x] = triple(int(threadIdx.x)); }

int main() {
  int* raw = nullptr;
  CHECK_HIP(hipMalloc(&raw, 64 * sizeof(int)));
  std::shared_ptr<int> d(raw, [](int* p) { (void)hipFree(p); });
  // The launch and the copy run through std::async.
  auto done = std::async(std::launch::async, [&] {
    hipLaunchKernelGGL(fill_triple, dim3(1), dim3(64), 0, 0, d.get());
    return hipDeviceSynchronize();
  });
  CHECK_HIP(done.get());
  auto h = std::make_unique<int[]>(64);
  CHECK_HIP(hipMemcpy(h.get(), d.get(), 64 * sizeof(int), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < 64; ++i) bad += h[i] != 3 * i;
  CHECK(bad == 0);
  CHECK(std::filesystem::path("/a/b.hip").extension() == ".hip");
  return check::summary();
}
