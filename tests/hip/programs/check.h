// SPDX-License-Identifier: MIT
// A tiny check harness for HIP test programs: PASS/FAIL per check, "N passed, N failed", exit code.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace check {

inline int& passed() {
  static int n = 0;
  return n;
}
inline int& failed() {
  static int n = 0;
  return n;
}

inline bool expect(bool ok, const char* what, const char* file, int line) {
  if (ok) {
    ++passed();
    std::printf("PASS %s\n", what);
  } else {
    ++failed();
    std::printf("FAIL %s (%s:%d)\n", what, file, line);
  }
  std::fflush(stdout);
  return ok;
}

inline bool expect_err(hipError_t got, hipError_t want, const char* what, const char* file, int line) {
  bool ok = got == want;
  if (!ok)
    std::printf("  got %s (%d), want %s (%d)\n", hipGetErrorName(got), int(got), hipGetErrorName(want),
                int(want));
  return expect(ok, what, file, line);
}

// Prints the summary line the test runners read and returns the process exit code.
inline int summary() {
  std::printf("%d passed, %d failed\n", passed(), failed());
  return failed() == 0 && passed() > 0 ? 0 : 1;
}

}  // namespace check

#define CHECK(cond) ::check::expect((cond), #cond, __FILE__, __LINE__)
#define CHECK_HIP(expr) ::check::expect_err((expr), hipSuccess, #expr, __FILE__, __LINE__)
#define CHECK_ERR(expr, want) ::check::expect_err((expr), (want), #expr " == " #want, __FILE__, __LINE__)
