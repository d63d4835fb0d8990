// SPDX-License-Identifier: MIT
// What the loader needs from a memory layer: one allocation whose host pointer is its GPU address.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/result.h"

namespace loader {

// A block the loader writes through `host` and the GPU reads at `gpu_address()`. In kfdrt the
// CPU and GPU share one address space, so the two are equal; the runtime adapts memory/ to this.
struct Span {
  uint8_t* host = nullptr;
  size_t size = 0;
  uint64_t gpu_address() const { return reinterpret_cast<uintptr_t>(host); }
};

struct SegmentMemory {
  virtual ~SegmentMemory() = default;
  // Zero-filled memory of `size` bytes aligned to `align` (a power of two); `executable` asks for
  // memory the GPU may fetch instructions from.
  virtual base::Result<Span> allocate(size_t size, size_t align, bool executable) = 0;
  virtual void free(Span span) = 0;
};

// Plain host memory (aligned operator new), for tests, tools and the emulator-free benchmark.
class HostSegmentMemory : public SegmentMemory {
 public:
  // Requests above `limit` bytes fail (tests and fuzzers bound what hostile input may ask for).
  explicit HostSegmentMemory(size_t limit = SIZE_MAX) : limit_(limit) {}
  base::Result<Span> allocate(size_t size, size_t align, bool executable) override;
  void free(Span span) override;
  size_t live_allocations() const { return live_; }

 private:
  size_t limit_;
  size_t live_ = 0;
};

}  // namespace loader
