// SPDX-License-Identifier: MIT
// ThreadSanitizer builds: the process's doorbell mappings, so that engines acquire where the runtime released (emu/tsan_sync.h).
#include "emu/tsan_sync.h"

#ifdef KFDEMU_TSAN

#include <mutex>
#include <vector>

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace emu {
namespace {

struct DoorbellMap {
  uint32_t gpu_id;
  uintptr_t begin, end;
};

std::mutex& maps_mu() {
  static auto* mu = new std::mutex;  // never destroyed: engines may run during static destruction
  return *mu;
}
std::vector<DoorbellMap>& maps() {
  static auto* v = new std::vector<DoorbellMap>;
  return *v;
}

}  // namespace

void tsan_doorbells_mapped(uint32_t gpu_id, const void* addr, size_t len) {
  std::lock_guard<std::mutex> lk(maps_mu());
  const auto b = reinterpret_cast<uintptr_t>(addr);
  maps().push_back({gpu_id, b, b + len});
}

void tsan_unmapped(const void* addr, size_t len) {
  const auto b = reinterpret_cast<uintptr_t>(addr), e = b + len;
  std::lock_guard<std::mutex> lk(maps_mu());
  std::erase_if(maps(), [&](const DoorbellMap& m) { return m.begin < e && b < m.end; });
}

void tsan_doorbell_acquire(uint32_t gpu_id, uint32_t index) {
  std::lock_guard<std::mutex> lk(maps_mu());
  for (const DoorbellMap& m : maps()) {
    const uintptr_t slot = m.begin + uintptr_t(index) * 8;
    if (m.gpu_id == gpu_id && slot + 8 <= m.end) __tsan_acquire(reinterpret_cast<void*>(slot));
  }
}

void tsan_acquire_gpu(uint64_t va) { __tsan_acquire(reinterpret_cast<void*>(va)); }
void tsan_release_gpu(uint64_t va) { __tsan_release(reinterpret_cast<void*>(va)); }

}  // namespace emu

#endif  // KFDEMU_TSAN
