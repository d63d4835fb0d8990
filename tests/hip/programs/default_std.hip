// SPDX-License-Identifier: MIT
// Checks that kfdcc compiles HIP as C++17 when no -std= is given (what HIP programs written for
// ROCm's clang expect): this file uses C++17 and is built without -std.
#include "check.h"

#include <type_traits>
#include <utility>

template <class T, std::enable_if_t<std::is_unsigned_v<T>, int> = 0>
__host__ __device__ constexpr T round_up(T v, T to) {
  if constexpr (sizeof(T) > 4) return (v + to - 1) / to * to;
  else return static_cast<T>((v + to - 1) / to * to);
}

inline constexpr unsigned kBlock = 64;

__global__ void fill_rounded(unsigned* out) {
  auto [a, b] = std::pair<unsigned, unsigned>(threadIdx.x, kBlock);
  out[a] = round_up(a + 1, b);
}

int main() {
  CHECK(__cplusplus >= 201703L);
  unsigned* out = nullptr;
  CHECK_HIP(hipMalloc(&out, kBlock * sizeof(unsigned)));
  hipLaunchKernelGGL(fill_rounded, dim3(1), dim3(kBlock), 0, 0, out);
  unsigned h[kBlock] = {};
  CHECK_HIP(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost));
  CHECK(h[0] == 64 && h[63] == 64);
  CHECK(round_up<unsigned long long>(65, 64) == 128);
  CHECK_HIP(hipFree(out));
  return check::summary();
}
