// SPDX-License-Identifier: MIT
// HIP device management API: counting and selecting devices, properties, attributes, versions, limits.
#include <cstdio>
#include <cstring>

#include <mutex>

#include "api/hip/code.h"
#include "api/hip/props.h"
#include "api/hip/runtime.h"

using namespace hip;

namespace {

Device* device_at(Runtime* rt, int id) { return rt->device(id); }

// Which device enabled access to which peer (hipDeviceEnablePeerAccess). Every allocation is
// mappable by every GPU anyway; the table gives the calls HIP's answers for repeats.
struct PeerTable {
  std::mutex mu;
  bool enabled[kMaxDevices][kMaxDevices] = {};
};
PeerTable& peers() {
  static PeerTable* t = new PeerTable();
  return *t;
}

}  // namespace

void hip::forget_peer_access(int device) {
  if (device < 0 || device >= kMaxDevices) return;
  std::lock_guard lk(peers().mu);
  for (int other = 0; other < kMaxDevices; ++other)
    peers().enabled[device][other] = peers().enabled[other][device] = false;
}

HIP_EXPORT hipError_t hipInit(unsigned int flags) {
  if (flags != 0) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDriverGetVersion(int* v) {
  if (!v) return ret(hipErrorInvalidValue);
  *v = HIP_VERSION;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipRuntimeGetVersion(int* v) {
  if (!v) return ret(hipErrorInvalidValue);
  *v = HIP_VERSION;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipGetDeviceCount(int* count) {
  if (!count) return ret(hipErrorInvalidValue);
  *count = 0;
  HIP_INIT(rt);
  *count = rt->device_count();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipSetDevice(int id) {
  ::trace::ApiScope trace_scope("hipSetDevice");
  hipError_t err = hipSuccess;
  Runtime* rt = Runtime::get(&err);
  // With no device at all (every GPU hidden), any index is an invalid device, as in HIP 5.2
  // (HIP's hipSetGetDevice test); hipGetDevice and hipGetDeviceCount say hipErrorNoDevice.
  if (!rt) return ret(err == hipErrorNoDevice ? hipErrorInvalidDevice : err);
  if (!device_at(rt, id)) return ret(hipErrorInvalidDevice);
  rt->set_current(id);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipGetDevice(int* id) {
  if (!id) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  *id = rt->current_index();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  if (!device) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  if (!device_at(rt, ordinal)) return ret(hipErrorInvalidDevice);
  *device = ordinal;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int id) {
  if (!prop) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  *prop = d->props_hip52();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* prop, int id) {
  if (!prop) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  *prop = d->props();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int id) {
  if (!value) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  return ret(device_attribute(*d, attr, value));
}

HIP_EXPORT hipError_t hipDeviceGetName(char* name, int len, hipDevice_t id) {
  if (!name || len <= 0) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  std::snprintf(name, size_t(len), "%s", d->props().name);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t id) {
  if (!bytes) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  *bytes = d->props().totalGlobalMem;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t id) {
  if (!major || !minor) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  *major = d->props().major;
  *minor = d->props().minor;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceGetPCIBusId(char* bus_id, int len, int id) {
  if (!bus_id || len <= 0) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  const hipDeviceProp_tR0600& p = d->props();
  std::snprintf(bus_id, size_t(len), "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  return hipSuccess;
}

// The device at a PCI address as hipDeviceGetPCIBusId writes it ("dddd:bb:dd.f"; the domain may be
// left out): domain, bus and device must match. Unparsable: hipErrorInvalidValue; no such device:
// hipErrorInvalidDevice (CUDA's cudaDeviceGetByPCIBusId; HIP 5.2 returned success and left *device
// as it was).
HIP_EXPORT hipError_t hipDeviceGetByPCIBusId(int* device, const char* pci_bus_id) {
  if (!device || !pci_bus_id) return ret(hipErrorInvalidValue);
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::sscanf(pci_bus_id, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &tail) != 4) {
    domain = 0;
    if (std::sscanf(pci_bus_id, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3) return ret(hipErrorInvalidValue);
  }
  HIP_INIT(rt);
  for (int i = 0; i < rt->device_count(); ++i) {
    const hipDeviceProp_tR0600& p = rt->device(i)->props();
    if (unsigned(p.pciDomainID) == domain && unsigned(p.pciBusID) == bus && unsigned(p.pciDeviceID) == dev) {
      *device = i;
      return hipSuccess;
    }
  }
  return ret(hipErrorInvalidDevice);
}

// The device's UUID: its KFD unique_id, little-endian in the first eight bytes (as
// hipGetDeviceProperties' uuid).
HIP_EXPORT hipError_t hipDeviceGetUuid(hipUUID* uuid, hipDevice_t id) {
  if (!uuid) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = device_at(rt, id);
  if (!d) return ret(hipErrorInvalidDevice);
  *uuid = d->props().uuid;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceSynchronize(void) {
  HIP_INIT(rt);
  return ret(rt->current().synchronize("hipDeviceSynchronize"));
}

HIP_EXPORT hipError_t hipDeviceReset(void) {
  HIP_INIT(rt);
  return ret(rt->current().reset());
}

HIP_EXPORT hipError_t hipSetDeviceFlags(unsigned flags) {
  constexpr unsigned kKnown = hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax;
  if (flags & ~kKnown) return ret(hipErrorInvalidValue);
  unsigned sched = flags & hipDeviceScheduleMask;
  if (sched != 0 && sched != hipDeviceScheduleSpin && sched != hipDeviceScheduleYield &&
      sched != hipDeviceScheduleBlockingSync)
    return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  rt->current().set_flags(flags);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipGetDeviceFlags(unsigned int* flags) {
  if (!flags) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  *flags = rt->current().flags();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceGetLimit(size_t* value, hipLimit_t limit) {
  if (!value) return ret(hipErrorInvalidValue);
  switch (limit) {
    case hipLimitStackSize: *value = 1024; return hipSuccess;
    case hipLimitPrintfFifoSize: *value = 0; return hipSuccess;
    case hipLimitMallocHeapSize: *value = 0; return hipSuccess;
    default: return ret(hipErrorUnsupportedLimit);
  }
}

HIP_EXPORT hipError_t hipDeviceSetLimit(hipLimit_t limit, size_t value) {
  (void)value;
  return limit == hipLimitStackSize ? hipSuccess : ret(hipErrorUnsupportedLimit);
}

HIP_EXPORT hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* c) {
  if (!c) return ret(hipErrorInvalidValue);
  *c = hipFuncCachePreferNone;
  return hipSuccess;
}
HIP_EXPORT hipError_t hipDeviceSetCacheConfig(hipFuncCache_t c) {
  return c <= hipFuncCachePreferEqual ? hipSuccess : ret(hipErrorInvalidValue);
}
HIP_EXPORT hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig* c) {
  if (!c) return ret(hipErrorInvalidValue);
  *c = hipSharedMemBankSizeFourByte;
  return hipSuccess;
}
HIP_EXPORT hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig c) {
  return c <= hipSharedMemBankSizeEightByte ? hipSuccess : ret(hipErrorInvalidValue);
}

HIP_EXPORT hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -1;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceCanAccessPeer(int* can, int id, int peer) {
  if (!can) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  if (!device_at(rt, id) || !device_at(rt, peer)) return ret(hipErrorInvalidDevice);
  *can = id != peer ? 1 : 0;  // every allocation can be mapped to every GPU
  return hipSuccess;
}

// Every pair of emulated or real GPUs kfdrt drives reaches the other's memory through the same
// mapping (hipDeviceCanAccessPeer); arrays are linear device memory, so a peer reads them too.
HIP_EXPORT hipError_t hipDeviceGetP2PAttribute(int* value, hipDeviceP2PAttr attr, int src, int dst) {
  if (!value) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  if (!device_at(rt, src) || !device_at(rt, dst) || src == dst) return ret(hipErrorInvalidDevice);
  switch (attr) {
    case hipDevP2PAttrPerformanceRank: *value = 0; break;  // one kind of link
    case hipDevP2PAttrAccessSupported:
    case hipDevP2PAttrNativeAtomicSupported:
    case hipDevP2PAttrHipArrayAccessSupported: *value = 1; break;
    default: return ret(hipErrorInvalidValue);
  }
  return hipSuccess;
}

HIP_EXPORT hipError_t hipChooseDevice(int* device, const hipDeviceProp_t* prop) {
  if (!device || !prop) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  int best = 0;
  long best_score = -1;
  for (int i = 0; i < rt->device_count(); ++i) {
    hipDeviceProp_t p;
    if (hipGetDeviceProperties(&p, i) != hipSuccess) continue;
    long score = 0;
    if (prop->major && p.major == prop->major) score += 8;
    if (prop->major && p.major > prop->major) score += 4;
    if (prop->minor && p.minor >= prop->minor) score += 2;
    if (prop->multiProcessorCount && p.multiProcessorCount >= prop->multiProcessorCount) score += 1;
    if (prop->totalGlobalMem && p.totalGlobalMem >= prop->totalGlobalMem) score += 1;
    if (prop->sharedMemPerBlock && p.sharedMemPerBlock >= prop->sharedMemPerBlock) score += 1;
    if (prop->maxThreadsPerBlock && p.maxThreadsPerBlock >= prop->maxThreadsPerBlock) score += 1;
    if (score > best_score) best = i, best_score = score;
  }
  *device = best;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags) {
  if (flags != 0) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  int self = rt->current_index();
  if (!device_at(rt, peer) || peer == self || peer >= kMaxDevices || self >= kMaxDevices)
    return ret(hipErrorInvalidDevice);
  std::lock_guard lk(peers().mu);
  bool& e = peers().enabled[self][peer];
  if (e) return ret(hipErrorPeerAccessAlreadyEnabled);
  e = true;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDeviceDisablePeerAccess(int peer) {
  HIP_INIT(rt);
  int self = rt->current_index();
  if (!device_at(rt, peer) || peer == self || peer >= kMaxDevices || self >= kMaxDevices)
    return ret(hipErrorInvalidDevice);
  std::lock_guard lk(peers().mu);
  bool& e = peers().enabled[self][peer];
  if (!e) return ret(hipErrorPeerAccessNotEnabled);
  e = false;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipProfilerStart(void) { return hipSuccess; }
HIP_EXPORT hipError_t hipProfilerStop(void) { return hipSuccess; }
