// SPDX-License-Identifier: MIT
// Maps heaps and coherence kinds onto KFD allocation flags as ROCm does (ROCr amd_memory_region.cpp).
#include "memory/flags.h"

#include <linux/kfd_ioctl.h>

#include <utility>

#include "kfd/uapi_ext.h"

namespace mem {

const char* heap_name(Heap h) {
  switch (h) {
    case Heap::Vram: return "VRAM";
    case Heap::Gtt: return "GTT";
    case Heap::Userptr: return "USERPTR";
    case Heap::Doorbell: return "DOORBELL";
    case Heap::Mmio: return "MMIO";
  }
  return "?";
}

const char* coherence_name(Coherence c) {
  switch (c) {
    case Coherence::NonCoherent: return "non-coherent";
    case Coherence::Coherent: return "coherent";
    case Coherence::Uncached: return "uncached";
  }
  return "?";
}

base::Result<uint32_t> alloc_flags(const AllocRequest& r) {
  // Values outside the enums (a cast, a stale ABI) would otherwise become a silent default.
  if (r.heap > Heap::Mmio)
    return base::Error::msg("allocate: unknown heap " + std::to_string(unsigned(r.heap)), EINVAL);
  if (r.coherence > Coherence::Uncached)
    return base::Error::msg("allocate: unknown coherence kind " + std::to_string(unsigned(r.coherence)),
                           EINVAL);
  uint32_t f = 0;
  switch (r.heap) {
    case Heap::Vram:
      f = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
      if (r.host_access) f |= KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC;
      break;
    case Heap::Gtt: f = KFD_IOC_ALLOC_MEM_FLAGS_GTT; break;
    case Heap::Userptr: f = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR; break;
    case Heap::Doorbell:
    case Heap::Mmio:
      if (r.read_only || r.executable)
        return base::Error::msg(std::string(heap_name(r.heap)) +
                                   " memory must be writable and not executable", EINVAL);
      // Register apertures: always coherent, never substituted (the ROCm thunk does the same).
      return uint32_t((r.heap == Heap::Doorbell ? KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL
                                                : KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) |
                      KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE |
                      KFD_IOC_ALLOC_MEM_FLAGS_COHERENT);
  }
  if (!r.read_only) f |= KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  if (r.executable) f |= KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE;
  // One coherence flag at most. The kernel accepts two together and gives them a precedence
  // when it builds the page-table flags (UNCACHED first); a request names exactly one kind.
  if (r.coherence == Coherence::Coherent) f |= KFD_IOC_ALLOC_MEM_FLAGS_COHERENT;
  if (r.coherence == Coherence::Uncached) f |= KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED;
  return f;
}

std::string describe_flags(uint32_t flags) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {KFD_IOC_ALLOC_MEM_FLAGS_VRAM, "VRAM"},
      {KFD_IOC_ALLOC_MEM_FLAGS_GTT, "GTT"},
      {KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, "USERPTR"},
      {KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, "DOORBELL"},
      {KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP, "MMIO_REMAP"},
      {KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE, "WRITABLE"},
      {KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE, "EXECUTABLE"},
      {KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC, "PUBLIC"},
      {KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE, "NO_SUBSTITUTE"},
      {KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM, "AQL_QUEUE_MEM"},
      {KFD_IOC_ALLOC_MEM_FLAGS_COHERENT, "COHERENT"},
      {KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED, "UNCACHED"},
      {kfd::uapi::kAllocExtCoherent, "EXT_COHERENT"},
      {kfd::uapi::kAllocContiguous, "CONTIGUOUS"},
  };
  std::string s;
  for (auto& [bit, name] : kNames) {
    if (!(flags & bit)) continue;
    if (!s.empty()) s += '|';
    s += name;
  }
  return s.empty() ? "0" : s;
}

}  // namespace mem
