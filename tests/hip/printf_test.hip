// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): printf from kernels, through hostcall, on the device.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

__global__ void print_values(int i, double d, const char* s, long long l, int* ret) {
  int n = printf("i=%d d=%.3f s=%s l=%lld c=%c x=%#x\n", i, d, s, l, 'Z', 255);
  if (ret) *ret = n;
}

__global__ void print_per_thread() { printf("thread %u of block %u\n", threadIdx.x, blockIdx.x); }

// A literal: clang finds the %s conversions (whose arguments travel as strings) by reading it.
#define LONG_FORMAT "a format string longer than one hostcall packet carries (56 bytes), to be sent in parts: %d %s\n"

__global__ void print_long(const char* s) { printf(LONG_FORMAT, 12345, s); }

__global__ void print_many_arguments() {
  printf("%d %d %d %d %d %d %d %d %d %d %.1f\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11.0);
}

__global__ void print_some_lanes() {
  if (threadIdx.x % 16 == 3) printf("lane %u\n", threadIdx.x);
}

std::string captured(void (*body)()) {
  testing::internal::CaptureStdout();
  body();
  return testing::internal::GetCapturedStdout();
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(HipDevicePrintf, PrintsEveryConversionAndReturnsTheCount) {
  static int* ret;
  static char* str;
  ASSERT_EQ(hipMallocManaged(&ret, sizeof *ret), hipSuccess);
  ASSERT_EQ(hipMallocManaged(&str, 16), hipSuccess);
  std::snprintf(str, 16, "device");
  *ret = -7;
  std::string out = captured([] {
    hipLaunchKernelGGL(print_values, dim3(1), dim3(1), 0, 0, -42, 2.5, (const char*)str, 1ll << 40, ret);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  });
  const char* want = "i=-42 d=2.500 s=device l=1099511627776 c=Z x=0xff\n";
  EXPECT_EQ(out, want);
  EXPECT_EQ(*ret, int(std::strlen(want)));
  EXPECT_EQ(hipFree(ret), hipSuccess);
  EXPECT_EQ(hipFree(str), hipSuccess);
}

TEST(HipDevicePrintf, PrintsOneLinePerThreadOfEveryWave) {
  std::string out = captured([] {
    hipLaunchKernelGGL(print_per_thread, dim3(2), dim3(96), 0, 0);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  });
  std::vector<std::string> want;
  for (unsigned b = 0; b < 2; ++b)
    for (unsigned t = 0; t < 96; ++t) want.push_back("thread " + std::to_string(t) + " of block " + std::to_string(b));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(lines(out), want);
}

TEST(HipDevicePrintf, PrintsLongFormatsStringsAndManyArguments) {
  static char* str;
  ASSERT_EQ(hipMallocManaged(&str, 200), hipSuccess);
  std::string arg(150, 'q');
  std::snprintf(str, 200, "%s", arg.c_str());
  std::string out = captured([] {
    hipLaunchKernelGGL(print_long, dim3(1), dim3(1), 0, 0, (const char*)str);
    hipLaunchKernelGGL(print_many_arguments, dim3(1), dim3(1), 0, 0);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  });
  EXPECT_EQ(out,
            "a format string longer than one hostcall packet carries (56 bytes), to be sent in parts: 12345 " +
                arg + "\n1 2 3 4 5 6 7 8 9 10 11.0\n");
  EXPECT_EQ(hipFree(str), hipSuccess);
}

TEST(HipDevicePrintf, PrintsFromDivergentLanesOnly) {
  std::string out = captured([] {
    hipLaunchKernelGGL(print_some_lanes, dim3(1), dim3(64), 0, 0);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  });
  EXPECT_EQ(lines(out), (std::vector<std::string>{"lane 19", "lane 3", "lane 35", "lane 51"}));
}

}  // namespace
