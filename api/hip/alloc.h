// SPDX-License-Identifier: MIT
// What the HIP runtime allocated or registered, by address: kinds and flags for attributes and copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>

#include "api/hip/common.h"

namespace hip {

// Code: loaded code object segments (device memory the runtime owns).
enum class AllocKind : uint8_t { Device, Host, Registered, Managed, Code };

struct AllocEntry {
  uintptr_t base = 0;
  size_t size = 0;
  AllocKind kind = AllocKind::Device;
  unsigned flags = 0;  // the flags the allocation was made or registered with
  int device = 0;
  bool coherent = false;
  uintptr_t map_base = 0;  // registered memory: the page-aligned range given to the driver
  size_t map_size = 0;
};

class AllocTable {
 public:
  void add(const AllocEntry& e);
  // Removes the allocation starting exactly at `base`.
  std::optional<AllocEntry> remove(const void* base);
  // The allocation containing `p` (interior pointers too).
  std::optional<AllocEntry> find(const void* p) const;
  // Whether [p, p+n) lies inside one allocation; nullopt when `p` is not in any.
  std::optional<bool> covers(const void* p, size_t n) const;
  size_t device_bytes(int device) const;

 private:
  mutable std::shared_mutex mu_;
  std::map<uintptr_t, AllocEntry> by_base_;
};

AllocTable& allocations();

// Managed memory (hipMallocManaged, __managed__ variables): host-coherent memory every GPU maps.
hipError_t alloc_managed(size_t size, void** out);

}  // namespace hip
