// SPDX-License-Identifier: MIT
// fork(): a child of a process using HIP has no GPU context (amdkfd binds a process's queues and
// memory to the process that opened /dev/kfd), so its HIP calls return errors, quickly, even when
// the parent was submitting from another thread at the fork; the parent keeps working.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#define ASSERT_HIP(e) ASSERT_EQ((e), hipSuccess) << #e

namespace {

__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

// What the child found, one bit per call that wrongly succeeded (0: every call failed).
int child_body(int* dev) {
  alarm(30);  // a hang in the child kills it with SIGALRM: the parent sees it
  int bad = 0;
  void* p = nullptr;
  if (hipMalloc(&p, 4096) == hipSuccess) bad |= 1;
  add_one<<<1, 64>>>(dev, 64);
  hipError_t launch = hipGetLastError();
  if (launch == hipSuccess && hipDeviceSynchronize() == hipSuccess) bad |= 2;
  int h = 0;
  if (hipMemcpy(&h, dev, sizeof h, hipMemcpyDeviceToHost) == hipSuccess) bad |= 4;
  hipStream_t s;
  if (hipStreamCreate(&s) == hipSuccess) bad |= 8;
  hipEvent_t e;
  if (hipEventCreate(&e) == hipSuccess && hipEventRecord(e, nullptr) == hipSuccess) bad |= 16;
  return bad;
}

// Forks, runs child_body in the child, and returns its exit status (or -signal).
int fork_and_check(int* dev) {
  pid_t pid = fork();
  if (pid == 0) _exit(child_body(dev));
  int st = 0;
  pid_t r = 0;
  for (int i = 0; i < 400 && (r = waitpid(pid, &st, WNOHANG)) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (r == 0) {  // still running after 40 s: a hang (its own alarm did not end it)
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1000;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

void parent_still_works(int* dev, int expect) {
  add_one<<<1, 64>>>(dev, 64);
  ASSERT_HIP(hipDeviceSynchronize());
  int h[64];
  ASSERT_HIP(hipMemcpy(h, dev, sizeof h, hipMemcpyDeviceToHost));
  for (int v : h) ASSERT_EQ(v, expect);
}

TEST(Fork, ChildGetsErrorsParentGoesOn) {
  int* dev = nullptr;
  ASSERT_HIP(hipMalloc(&dev, 64 * sizeof(int)));
  ASSERT_HIP(hipMemset(dev, 0, 64 * sizeof(int)));
  parent_still_works(dev, 1);
  EXPECT_EQ(fork_and_check(dev), 0) << "bits: calls that succeeded in the child; negative: its signal";
  parent_still_works(dev, 2);
  ASSERT_HIP(hipFree(dev));
}

// The parent submits from another thread while forking (runtime locks may be held at the fork).
TEST(Fork, WhileAnotherThreadSubmits) {
  int* dev = nullptr;
  ASSERT_HIP(hipMalloc(&dev, 64 * sizeof(int)));
  ASSERT_HIP(hipMemset(dev, 0, 64 * sizeof(int)));
  int* other = nullptr;
  ASSERT_HIP(hipMalloc(&other, 64 * sizeof(int)));
  std::atomic<bool> stop{false};
  std::atomic<int> launched{0};
  std::thread t([&] {
    hipStream_t s;
    if (hipStreamCreate(&s) != hipSuccess) return;
    while (!stop.load()) {
      add_one<<<1, 64, 0, s>>>(other, 64);
      if (hipStreamSynchronize(s) != hipSuccess) break;
      launched.fetch_add(1);
    }
    (void)hipStreamDestroy(s);  // the thread ends either way
  });
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(fork_and_check(dev), 0) << "fork " << i;
  }
  stop = true;
  t.join();
  EXPECT_GT(launched.load(), 0);
  parent_still_works(dev, 1);
  ASSERT_HIP(hipFree(dev));
  ASSERT_HIP(hipFree(other));
}

}  // namespace
