// SPDX-License-Identifier: MIT
// What the HIP runtime allocated or registered, by address: kinds and flags for attributes and copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>

#include "api/hip/common.h"

namespace hip {

// Code: loaded code object segments (device memory the runtime owns).
enum class AllocKind : uint8_t { Device, Host, Registered, Managed, Code };

// hipMemAdvise's advice and hipMemPrefetchAsync's last target, kept for hipMemRangeGetAttribute
// (per managed allocation: advice given for part of one applies to all of it).
struct ManagedAdvice {
  bool read_mostly = false;
  bool coarse_grain = false;        // advised only: the memory itself stays fine-grained
  int preferred = -2;               // hipInvalidDeviceId, hipCpuDeviceId or a device
  int last_prefetch = -2;
  bool accessed_by_cpu = false;
  uint64_t accessed_by_gpus = 0;    // bit i: device i
};

struct AllocEntry {
  uintptr_t base = 0;
  size_t size = 0;
  AllocKind kind = AllocKind::Device;
  unsigned flags = 0;  // the flags the allocation was made or registered with
  int device = 0;
  bool coherent = false;
  uintptr_t map_base = 0;  // registered memory: the page-aligned range given to the driver
  size_t map_size = 0;
  ManagedAdvice advice;
};

class AllocTable {
 public:
  void add(const AllocEntry& e);
  // Removes the allocation starting exactly at `base`.
  std::optional<AllocEntry> remove(const void* base);
  // The allocation containing `p` (interior pointers too).
  std::optional<AllocEntry> find(const void* p) const;
  // Runs `fn` on the allocation containing `p`, under the table's lock; false when there is none.
  template <class Fn>
  bool update(const void* p, Fn fn) {
    std::unique_lock lk(mu_);
    AllocEntry* e = locate(reinterpret_cast<uintptr_t>(p));
    if (e) fn(*e);
    return e != nullptr;
  }
  // Whether [p, p+n) lies inside one allocation; nullopt when `p` is not in any.
  std::optional<bool> covers(const void* p, size_t n) const;
  size_t device_bytes(int device) const;

 private:
  AllocEntry* locate(uintptr_t a);  // the caller holds mu_
  mutable std::shared_mutex mu_;
  std::map<uintptr_t, AllocEntry> by_base_;
};

AllocTable& allocations();

// Managed memory (hipMallocManaged, __managed__ variables): host-coherent memory every GPU maps.
hipError_t alloc_managed(size_t size, void** out);

}  // namespace hip
