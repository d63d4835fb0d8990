// SPDX-License-Identifier: MIT
// HostSegmentMemory: the loader's memory interface on ordinary host memory.
#include "loader/segment_memory.h"

#include <cstdlib>
#include <cstring>

namespace loader {

base::Result<Span> HostSegmentMemory::allocate(size_t size, size_t align, bool /*executable*/) {
  if (size == 0 || align == 0 || (align & (align - 1)))
    return base::Error::msg("host segment memory: bad request (size=" + base::hex(size) + ", align=" + base::hex(align) + ")");
  if (size > limit_)
    return base::Error::from_errno("host segment memory", ENOMEM, "size=" + base::hex(size) + " above limit " + base::hex(limit_));
  void* p = nullptr;
  // posix_memalign wants at least pointer alignment; free() then needs no alignment back.
  int e = posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, size);
  if (e) return base::Error::from_errno("host segment memory", e, "size=" + base::hex(size));
  std::memset(p, 0, size);
  ++live_;
  return Span{static_cast<uint8_t*>(p), size};
}

void HostSegmentMemory::free(Span span) {
  if (!span.host) return;
  std::free(span.host);
  --live_;
}

}  // namespace loader
