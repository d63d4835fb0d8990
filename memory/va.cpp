// SPDX-License-Identifier: MIT
// Virtual address reservations with guard pages (libhsakmt fmm.c).
#include "memory/va.h"

#include <sys/mman.h>

#include <bit>
#include <cerrno>
#include <cstdint>

namespace mem {

size_t default_alignment(size_t size) {
  size_t a = std::bit_ceil(page_align(size == 0 ? 1 : size));
  if (a < kPageSize) a = kPageSize;
  if (a > kMaxVaAlignment) a = kMaxVaAlignment;
  return a;
}

base::Result<VaRange> reserve_va(size_t size, size_t alignment) {
  if (size == 0) return base::Error::msg("reserve_va: zero size", EINVAL);
  if (alignment == 0) alignment = default_alignment(size);
  if (!is_pow2(alignment) || alignment > kMaxVaAlignment)
    return base::Error::msg("reserve_va: alignment " + base::hex(alignment) +
                               " is not a power of two up to 2 MiB", EINVAL);
  if (alignment < kPageSize) alignment = kPageSize;
  // Sizes near SIZE_MAX would wrap in the rounding or the span below and "succeed" with a tiny range.
  if (size > SIZE_MAX - alignment - 3 * kPageSize)
    return base::Error::msg("reserve_va: size " + base::hex(size) + " is too large to reserve", ENOMEM);
  size = page_align(size);
  // Over-reserve, then trim so that exactly one guard page stays on each side.
  size_t span = size + alignment + 2 * kPageSize;
  void* p = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return base::Error::from_errno("mmap(PROT_NONE)", errno, "size=" + base::hex(span));
  uintptr_t raw = reinterpret_cast<uintptr_t>(p);
  uintptr_t base = (raw + kPageSize + alignment - 1) & ~(uintptr_t(alignment) - 1);
  uintptr_t lo = base - kPageSize, hi = base + size + kPageSize;
  if (lo > raw) munmap(p, lo - raw);
  if (raw + span > hi) munmap(reinterpret_cast<void*>(hi), raw + span - hi);
  return VaRange{base, size};
}

base::Status unmap_cpu(const VaRange& r) {
  void* p = mmap(reinterpret_cast<void*>(r.base), r.size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED)
    return base::Error::from_errno("mmap(PROT_NONE, MAP_FIXED)", errno,
                                  "addr=" + base::hex(r.base) + ", size=" + base::hex(r.size));
  return {};
}

void release_va(const VaRange& r) {
  if (r.size == 0) return;
  munmap(reinterpret_cast<void*>(r.base - kPageSize), r.size + 2 * kPageSize);
}

}  // namespace mem
