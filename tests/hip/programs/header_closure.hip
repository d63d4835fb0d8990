// SPDX-License-Identifier: MIT
// Uses, after including hip/hip_runtime.h alone, what ROCm's hip_runtime.h brings in on its way
// (std::array, std::thread, std::numeric_limits, <type_traits>, <algorithm>, <iosfwd>, printf,
// assert, memcpy, INT_MAX): programs written for ROCm rely on it. No other header on purpose.
#include <hip/hip_runtime.h>

static int failures = 0;
#define EXPECT(cond)                                                      \
  do {                                                                    \
    bool ok_ = (cond);                                                    \
    printf("%s %s\n", ok_ ? "PASS" : "FAIL", #cond);                      \
    if (!ok_) ++failures;                                                 \
  } while (0)

// <iosfwd>: a declaration naming std::ostream needs no definition.
std::ostream& print_to(std::ostream& os, const std::array<float, 4>& v);

static_assert(std::is_same<std::remove_cv<const int>::type, int>::value, "<type_traits>");
static_assert(std::numeric_limits<int>::max() == INT_MAX, "<limits> and <limits.h>");

__global__ void scale(std::array<float, 4> factors, float* out) {
  int i = threadIdx.x;
  out[i] = factors[i % 4] * float(i);
}

int main() {
  std::array<float, 4> factors = {1.0f, 2.0f, 3.0f, 4.0f};
  float* d = nullptr;
  EXPECT(hipMalloc(&d, 64 * sizeof(float)) == hipSuccess);
  hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, 0, factors, d);
  std::array<float, 64> h{};
  // The copy runs on a std::thread, as programs written for ROCm do without including <thread>.
  hipError_t copied = hipErrorUnknown;
  std::thread t([&] { copied = hipMemcpy(h.data(), d, sizeof(h), hipMemcpyDeviceToHost); });
  t.join();
  EXPECT(copied == hipSuccess);
  int bad = 0;
  for (int i = 0; i < 64; ++i) bad += h[i] != factors[i % 4] * float(i);
  EXPECT(bad == 0);
  EXPECT(*std::max_element(h.begin(), h.end()) == 4.0f * 63.0f);
  float first[4];
  memcpy(first, h.data(), sizeof first);
  assert(first[1] == 2.0f);
  EXPECT(std::abs(first[3] - 12.0f) < 1e-6f);
  EXPECT(hipFree(d) == hipSuccess);
  printf("%d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
