// SPDX-License-Identifier: MIT
// ROCm's HIP on the device: printf in kernels (ROCm serves it over hostcall), its output captured
// from this process's stdout and checked line by line.
#include <hip/hip_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rocm_stack.h"

__global__ void say(int base, float f, const char* word) {
  printf("thread %d of block %d: %d %.2f %s\n", int(threadIdx.x), int(blockIdx.x),
         base + int(blockIdx.x * blockDim.x + threadIdx.x), f * threadIdx.x, word);
}

// Runs the kernel with stdout redirected to a temporary file and returns what was printed.
static std::string capture(int blocks, int threads, const char* dword) {
  std::fflush(stdout);
  char path[] = "/tmp/rocm-printf-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "";
  int saved = dup(1);
  dup2(fd, 1);
  hipLaunchKernelGGL(say, dim3(blocks), dim3(threads), 0, 0, 100, 0.5f, dword);
  hipError_t e = hipDeviceSynchronize();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  CHECK_HIP(e);
  std::string out;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0) out.append(buf, size_t(r));
  close(fd);
  unlink(path);
  return out;
}

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  if (!CHECK(count >= 1)) return check::summary();
  rocm_stack::expect_rocm_runtime();
  char* dword;
  CHECK_HIP(hipMalloc(&dword, 8));
  CHECK_HIP(hipMemcpy(dword, "device", 7, hipMemcpyHostToDevice));
  const int blocks = 2, threads = 40;
  std::string out = capture(blocks, threads, dword);
  std::vector<std::string> got, want;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    got.push_back(out.substr(pos, nl - pos));
    pos = nl + 1;
  }
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      char line[128];
      std::snprintf(line, sizeof line, "thread %d of block %d: %d %.2f device", t, b, 100 + b * threads + t, 0.5 * t);
      want.push_back(line);
    }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  std::printf("  %zu lines printed, %zu expected\n", got.size(), want.size());
  if (!CHECK(got == want)) std::printf("printed:\n%s", out.c_str());
  CHECK_HIP(hipFree(dword));
  return check::summary();
}
