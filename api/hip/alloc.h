// SPDX-License-Identifier: MIT
// What the HIP runtime allocated or registered: kinds and flags for attributes and copies, kept on the allocator's records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "api/hip/common.h"
#include "memory/context.h"

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
  ManagedAdvice advice{};
};

// The HIP attributes of allocations, attached to the allocator's own records (mem::Context::set_tag):
// the allocator's by-address map is the only one, and an entry lives exactly as long as its
// allocation (a failed free keeps it). Looking up needs the runtime; before it opened, nothing is found.
class AllocTable {
 public:
  // Attaches `e` to the allocation containing e.base (for registered memory, e.map_base's).
  // `memory` is the runtime's allocator (passed, as the runtime may be opening).
  void add(mem::Context& memory, const AllocEntry& e);
  // The allocation containing `p` (interior pointers too, within the size HIP was asked for).
  std::optional<AllocEntry> find(const void* p) const;
  // Runs `fn` on the allocation containing `p`, under the table's lock; false when there is none.
  template <class Fn>
  bool update(const void* p, Fn fn) {
    auto t = tagged(p);
    if (!t) return false;
    std::lock_guard lk(mu_);
    fn(*t);
    return true;
  }
  // Whether [p, p+n) lies inside one allocation; nullopt when `p` is not in any.
  std::optional<bool> covers(const void* p, size_t n) const;
  // Bytes of live hipMalloc allocations of a device.
  size_t device_bytes(int device) const;

 private:
  std::shared_ptr<AllocEntry> tagged(const void* p) const;
  mutable std::mutex mu_;  // the entries' mutable fields (advice)
};

AllocTable& allocations();

// Managed memory (hipMallocManaged, __managed__ variables): host-coherent memory every GPU maps.
hipError_t alloc_managed(size_t size, void** out);

}  // namespace hip
