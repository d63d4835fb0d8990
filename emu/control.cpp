// SPDX-License-Identifier: MIT
// Fault injection of emu/control.h: faulting GPU pages and GPU resets (HW_EXCEPTION events).
#include <cstdio>
#include <mutex>
#include <string>

#include "emu/control.h"
#include "emu/kfd_process.h"

namespace emu {

namespace {

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

int Process::inject_fault(uint32_t gpu_id, uint64_t va, uint64_t size, std::string* why) {
  std::lock_guard<std::mutex> lk(mu);
  DeviceState* d = device(gpu_id);
  if (!d) {
    *why = "no GPU " + hex(gpu_id) + " in this process (open /dev/kfd first)";
    return -1;
  }
  if (size != 0 && va + size < va) {
    *why = "range " + hex(va) + " + " + hex(size) + " wraps around";
    return -1;
  }
  std::unique_lock<std::shared_mutex> mk(d->map_mu);  // DeviceState::lookup reads the list
  if (size == 0) d->injected_faults.clear();
  else d->injected_faults.emplace_back(va, size);
  d->maps_changed();
  return 0;
}

int Process::inject_hw_exception(uint32_t gpu_id, bool memory_lost, std::string* why) {
  {
    std::lock_guard<std::mutex> lk(mu);
    if (!device(gpu_id)) {
      *why = "no GPU " + hex(gpu_id) + " in this process (open /dev/kfd first)";
      return -1;
    }
  }
  raise_hw_exception(gpu_id, memory_lost);
  return 0;
}

}  // namespace emu

extern "C" {

int kfdemu_inject_fault(uint32_t gpu_id, uint64_t va, uint64_t size) {
  std::string why;
  if (emu::Process::get().inject_fault(gpu_id, va, size, &why) == 0) return 0;
  std::fprintf(stderr, "kfdemu_inject_fault: %s\n", why.c_str());
  return -1;
}

int kfdemu_inject_hw_exception(uint32_t gpu_id, int memory_lost) {
  std::string why;
  if (emu::Process::get().inject_hw_exception(gpu_id, memory_lost != 0, &why) == 0) return 0;
  std::fprintf(stderr, "kfdemu_inject_hw_exception: %s\n", why.c_str());
  return -1;
}

}  // extern "C"
