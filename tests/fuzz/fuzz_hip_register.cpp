// SPDX-License-Identifier: MIT
// libFuzzer target: a corrupt fat binary handed to __hipRegisterFatBinary, as a HIP program's module constructor does at start-up.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hip/hip_runtime_api.h"

extern "C" {
void** __hipRegisterFatBinary(const void* wrapper);
void __hipRegisterFunction(void** handle, const void* host_fn, char* device_fn, const char* device_name,
                           int thread_limit, void* tid, void* bid, dim3* block, dim3* grid, int* wave_size);
void __hipRegisterVar(void** handle, void* host_var, char* device_var, const char* device_name, int ext,
                      size_t size, int constant, int global);
void __hipUnregisterFatBinary(void** handle);
}

namespace {

constexpr size_t kMaxInput = 1 << 20;

// The fat binary ends where its mapping ends, and an inaccessible page follows, as a program's
// .hip_fatbin section may end with its segment: reading past the input is a crash, not a quiet
// read of the next heap block.
uint8_t* place(const uint8_t* data, size_t size) {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  static const size_t room = (kMaxInput + page - 1) / page * page;
  static uint8_t* base = [] {
    auto* p = static_cast<uint8_t*>(mmap(nullptr, room + page, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED || mprotect(p + room, page, PROT_NONE) != 0) {
      std::perror("fuzz_hip_register: guarded buffer");
      std::abort();
    }
    return p;
  }();
  uint8_t* at = base + room - size;
  std::memcpy(at, data, size);
  return at;
}

char g_kernel_stub, g_var[64];

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return 0;
  struct {  // clang CGCUDANV.cpp: {magic "HIPF", version 1, binary, unused}
    int32_t magic, version;
    const void* binary;
    void* unused;
  } wrapper{0x48495046, 1, place(data, size), nullptr};
  void** h = __hipRegisterFatBinary(&wrapper);
  char name[] = "_Z6kernelPf";
  __hipRegisterFunction(h, &g_kernel_stub, name, name, -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  char var[] = "global_var";
  __hipRegisterVar(h, g_var, var, var, 0, sizeof g_var, 0, 0);
  // With KFDRT_FUZZ_LAUNCH=1 (the suite's replay, on the device), the first use of the kernel and
  // the variable too: the bundle is parsed and loaded then, and must fail with an error.
  static const bool use = std::getenv("KFDRT_FUZZ_LAUNCH") && std::atoi(std::getenv("KFDRT_FUZZ_LAUNCH"));
  if (use) {
    hipFuncAttributes attr;
    (void)hipFuncGetAttributes(&attr, &g_kernel_stub);
    void* p = nullptr;
    size_t bytes = 0;
    (void)hipGetSymbolAddress(&p, static_cast<const void*>(g_var));
    (void)hipGetSymbolSize(&bytes, static_cast<const void*>(g_var));
  }
  __hipUnregisterFatBinary(h);
  return 0;
}
