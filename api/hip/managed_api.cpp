// SPDX-License-Identifier: MIT
// Managed-memory hints: hipMemAdvise, hipMemPrefetchAsync and hipMemRangeGetAttribute.
#include <cstring>

#include "api/hip/alloc.h"
#include "api/hip/stream.h"

using namespace hip;

namespace {

// [p, p+count) must lie inside one managed allocation; `entry` gets it (one lookup, so a
// concurrent hipFree cannot slip between the check and the use).
hipError_t managed_range(const void* p, size_t count, AllocEntry* entry = nullptr) {
  if (!p || count == 0) return hipErrorInvalidValue;
  auto e = allocations().find(p);
  if (!e || e->kind != AllocKind::Managed) return hipErrorInvalidValue;
  if (count > e->base + e->size - reinterpret_cast<uintptr_t>(p)) return hipErrorInvalidValue;
  if (entry) *entry = *e;
  return hipSuccess;
}

// A location a hint may name: a device or the CPU.
bool valid_location(Runtime* rt, int device) {
  return device == hipCpuDeviceId || (rt->device(device) != nullptr && device < 64);
}

hipError_t advise(Runtime* rt, ManagedAdvice& a, hipMemoryAdvise advice, int device) {
  switch (advice) {
    case hipMemAdviseSetReadMostly: a.read_mostly = true; return hipSuccess;
    case hipMemAdviseUnsetReadMostly: a.read_mostly = false; return hipSuccess;
    case hipMemAdviseSetCoarseGrain: a.coarse_grain = true; return hipSuccess;
    case hipMemAdviseUnsetCoarseGrain: a.coarse_grain = false; return hipSuccess;
    case hipMemAdviseUnsetPreferredLocation: a.preferred = hipInvalidDeviceId; return hipSuccess;
    case hipMemAdviseSetPreferredLocation:
    case hipMemAdviseSetAccessedBy:
    case hipMemAdviseUnsetAccessedBy: break;
    default: return hipErrorInvalidValue;
  }
  if (!valid_location(rt, device)) return hipErrorInvalidDevice;
  if (advice == hipMemAdviseSetPreferredLocation) {
    a.preferred = device;
    return hipSuccess;
  }
  bool set = advice == hipMemAdviseSetAccessedBy;
  if (device == hipCpuDeviceId)
    a.accessed_by_cpu = set;
  else if (set)
    a.accessed_by_gpus |= uint64_t(1) << device;
  else
    a.accessed_by_gpus &= ~(uint64_t(1) << device);
  return hipSuccess;
}

// AccessedBy: the devices advised, the CPU first, then hipInvalidDeviceId in what is left.
void accessed_by(const ManagedAdvice& a, int* out, size_t n) {
  size_t i = 0;
  if (a.accessed_by_cpu && i < n) out[i++] = hipCpuDeviceId;
  for (int d = 0; d < 64 && i < n; ++d)
    if (a.accessed_by_gpus >> d & 1) out[i++] = d;
  while (i < n) out[i++] = hipInvalidDeviceId;
}

}  // namespace

HIP_EXPORT hipError_t hipMemAdvise(const void* p, size_t count, hipMemoryAdvise advice, int device) {
  if (hipError_t e = managed_range(p, count); e != hipSuccess) return ret(e);
  HIP_INIT(rt);
  hipError_t result = hipSuccess;
  allocations().update(p, [&](AllocEntry& e) { result = advise(rt, e.advice, advice, device); });
  return ret(result);
}

// Managed memory is host memory every GPU maps: there is nothing to migrate, so a prefetch only
// records where the range was last sent.
HIP_EXPORT hipError_t hipMemPrefetchAsync(const void* p, size_t count, int device, hipStream_t stream) {
  if (hipError_t e = managed_range(p, count); e != hipSuccess) return ret(e);
  HIP_INIT(rt);
  if (!valid_location(rt, device)) return ret(hipErrorInvalidDevice);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(stream, &s); e != hipSuccess) return ret(e);
  allocations().update(p, [&](AllocEntry& e) { e.advice.last_prefetch = device; });
  return hipSuccess;
}

HIP_EXPORT hipError_t hipMemRangeGetAttribute(void* data, size_t data_size, hipMemRangeAttribute attribute,
                                              const void* p, size_t count) {
  if (!data || data_size < sizeof(int) || data_size % sizeof(int)) return ret(hipErrorInvalidValue);
  AllocEntry entry;
  if (hipError_t e = managed_range(p, count, &entry); e != hipSuccess) return ret(e);
  const ManagedAdvice& a = entry.advice;
  auto* out = static_cast<int*>(data);
  if (attribute == hipMemRangeAttributeAccessedBy) {
    accessed_by(a, out, data_size / sizeof(int));
    return hipSuccess;
  }
  if (data_size != sizeof(int)) return ret(hipErrorInvalidValue);
  switch (attribute) {
    case hipMemRangeAttributeReadMostly: *out = a.read_mostly ? 1 : 0; break;
    case hipMemRangeAttributePreferredLocation: *out = a.preferred; break;
    case hipMemRangeAttributeLastPrefetchLocation: *out = a.last_prefetch; break;
    case hipMemRangeAttributeCoherencyMode: *out = hipMemRangeCoherencyModeFineGrain; break;
    default: return ret(hipErrorInvalidValue);
  }
  return hipSuccess;
}
