// SPDX-License-Identifier: MIT
// A copy that faults on the device: hipMemcpy returns hipErrorIllegalAddress, kfdrt names the faulting address, and the process goes on (later GPU work reports the fault, calls needing no GPU work answer).
//
// The fault is the emulator's (kfdemu_inject_fault on a page of a buffer the runtime believes
// mapped); on a real GPU the program skips (exit 77). meson runs it with the default routing
// (a 1 MiB host-to-device copy: SDMA) and with KFDRT_SDMA=0 (blit kernels).
#include <dlfcn.h>
#include <hip/hip_runtime.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "check.h"

namespace {

// The gpu_id of the first GPU node in the KFD topology (node 0 is the CPU).
uint32_t first_gpu_id() {
  for (int node = 0; node < 16; ++node) {
    std::ifstream f("/sys/devices/virtual/kfd/kfd/topology/nodes/" + std::to_string(node) + "/gpu_id");
    uint32_t id = 0;
    if (f >> id && id != 0) return id;
  }
  return 0;
}

}  // namespace

int main() {
  auto inject = reinterpret_cast<int (*)(uint32_t, uint64_t, uint64_t)>(dlsym(RTLD_DEFAULT, "kfdemu_inject_fault"));
  if (!inject) {
    std::printf("SKIP: needs the emulator's fault injection (kfdemu_inject_fault)\n");
    return 77;
  }
  char path[] = "/tmp/kfdrt-copy-fault-XXXXXX";
  const int fd = mkstemp(path);
  const int saved = dup(2);
  dup2(fd, 2);

  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  CHECK_HIP(hipSetDevice(0));
  const size_t n = size_t(1) << 20;
  unsigned char *src, *good, *bad;
  CHECK_HIP(hipHostMalloc(&src, n));
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7);
  CHECK_HIP(hipMalloc(&good, n));
  CHECK_HIP(hipMalloc(&bad, n));
  CHECK_HIP(hipMemcpy(good, src, n, hipMemcpyHostToDevice));
  const uint64_t hole = reinterpret_cast<uint64_t>(bad) + (64 << 10);
  const uint32_t gpu = first_gpu_id();
  CHECK(gpu != 0);
  CHECK(inject(gpu, hole, 4096) == 0);
  CHECK_ERR(hipMemcpy(bad, src, n, hipMemcpyHostToDevice), hipErrorIllegalAddress);
  CHECK_ERR(hipDeviceSynchronize(), hipErrorIllegalAddress);  // sticky, as a kernel's fault

  // The process goes on: a GPU fault ends its GPU work (every later copy, on any GPU, reports
  // it, none hangs, as CUDA's sticky errors), while calls that need no GPU work still answer.
  CHECK_HIP(hipGetDeviceCount(&count));
  hipDeviceProp_t prop{};
  CHECK_HIP(hipGetDeviceProperties(&prop, 0));
  unsigned char* pin;
  CHECK_HIP(hipHostMalloc(&pin, 4096));
  std::memset(pin, 3, 4096);  // host memory stays the host's
  CHECK(pin[4095] == 3);
  CHECK_ERR(hipMemcpy(good, src, n, hipMemcpyHostToDevice), hipErrorIllegalAddress);
  CHECK_ERR(hipMemcpyAsync(good, src, n, hipMemcpyHostToDevice, 0), hipErrorIllegalAddress);
  if (count > 1) {
    CHECK_HIP(hipSetDevice(1));
    unsigned char* other;
    CHECK_HIP(hipMalloc(&other, n));
    CHECK_ERR(hipMemcpy(other, src, n, hipMemcpyHostToDevice), hipErrorIllegalAddress);
    CHECK_HIP(hipFree(other));
    CHECK_HIP(hipSetDevice(0));
  }
  CHECK_HIP(hipHostFree(pin));
  CHECK_HIP(hipFree(good));
  CHECK_HIP(hipHostFree(src));

  std::fflush(stderr);
  dup2(saved, 2);
  std::string text;
  char buf[4096];
  lseek(fd, 0, SEEK_SET);
  for (ssize_t k; (k = read(fd, buf, sizeof buf)) > 0;) text.append(buf, size_t(k));
  close(fd);
  unlink(path);
  std::printf("stderr: %s", text.c_str());
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%" PRIx64, hole);
  // kfdrt's own report (not only the emulator's) names the faulting page.
  bool named = false;
  for (size_t at = 0; (at = text.find("kfdrt:", at)) != std::string::npos; ++at) {
    const size_t end = text.find('\n', at);
    if (text.substr(at, end - at).find(hex) != std::string::npos) named = true;
  }
  CHECK(named);
  return check::summary();
}
