// SPDX-License-Identifier: MIT
// A GPU memory fault: the next synchronising call returns hipErrorIllegalAddress (and so do later
// ones), with the faulting address reported on stderr.
#include <hip/hip_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "check.h"

__global__ void write_to(int* p) { p[threadIdx.x] = 1; }

int main() {
  // Capture stderr in a file to check the message.
  char path[] = "/tmp/kfdrt-fault-XXXXXX";
  int fd = mkstemp(path);
  int saved = dup(2);
  dup2(fd, 2);

  int* ok_buf;
  CHECK_HIP(hipMalloc(&ok_buf, 64 * sizeof(int)));
  write_to<<<1, 64>>>(ok_buf);
  CHECK_HIP(hipDeviceSynchronize());

  int* bad = reinterpret_cast<int*>(uintptr_t(0x7ffff0000000ull));  // never mapped to the GPU
  write_to<<<1, 64>>>(bad);
  CHECK_HIP(hipGetLastError());  // the launch itself is fine
  CHECK_ERR(hipDeviceSynchronize(), hipErrorIllegalAddress);
  CHECK_ERR(hipStreamSynchronize(0), hipErrorIllegalAddress);  // sticky
  int h = 0;
  CHECK_ERR(hipMemcpy(&h, ok_buf, sizeof h, hipMemcpyDeviceToHost), hipErrorIllegalAddress);

  fflush(stderr);
  dup2(saved, 2);
  std::string text;
  char buf[4096];
  lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  close(fd);
  unlink(path);
  std::printf("stderr: %s", text.c_str());
  CHECK(text.find("kfdrt:") != std::string::npos);
  CHECK(text.find("0x7ffff0000000") != std::string::npos);
  return check::summary();
}
