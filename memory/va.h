// SPDX-License-Identifier: MIT
// Virtual address reservations: the same address serves the CPU mapping and the GPU VA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/result.h"

namespace mem {

constexpr size_t kPageSize = 4096;
constexpr size_t kMaxVaAlignment = size_t(2) << 20;  // 2 MiB: the largest GPU page fragment

constexpr size_t page_align(size_t n) { return (n + kPageSize - 1) & ~(kPageSize - 1); }
constexpr bool is_pow2(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// Alignment used when the caller does not ask for one: the size rounded up to a power of two,
// between one page and 2 MiB, so large buffers can use big GPU pages.
size_t default_alignment(size_t size);

// A reserved range [base, base+size) with one PROT_NONE guard page on each side.
struct VaRange {
  uintptr_t base = 0;
  size_t size = 0;
};

// Reserves `size` bytes (page-rounded) aligned to `alignment` (a power of two up to 2 MiB; 0 picks
// default_alignment) with mmap(PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE).
base::Result<VaRange> reserve_va(size_t size, size_t alignment);

// Replaces whatever is mapped in the range by an inaccessible reservation again (drops a CPU
// mapping of a buffer without letting another mmap take the address while the GPU VA is live).
base::Status unmap_cpu(const VaRange& r);

// Returns the range and its guard pages to the kernel.
void release_va(const VaRange& r);

}  // namespace mem
