// SPDX-License-Identifier: MIT
// HIP memory allocation API: device, host (pinned, coherent or not), registered, managed; attributes.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "api/hip/alloc.h"
#include "api/hip/runtime.h"

namespace hip {
namespace {

constexpr unsigned kHostMallocFlags = hipHostMallocPortable | hipHostMallocMapped |
                                      hipHostMallocWriteCombined | hipHostMallocNumaUser |
                                      hipHostMallocCoherent | hipHostMallocNonCoherent;
constexpr unsigned kHostRegisterFlags = hipHostRegisterPortable | hipHostRegisterMapped |
                                        hipHostRegisterIoMemory | hipHostRegisterReadOnly;
constexpr size_t kPitchAlign = 256;

size_t page_size() {
  static const size_t p = size_t(sysconf(_SC_PAGESIZE));
  return p;
}

hipError_t alloc_error(const char* api, const base::Error& e) {
  debug_log(api, e.message);
  return from_error(e, hipErrorOutOfMemory);
}

// Device memory. hipMalloc's VRAM has no CPU mapping, as a GPU with a small BAR requires: only
// the copy engines and kernels reach it. `host_visible` (hipExtMallocWithFlags) asks for VRAM the
// host can also reach (PUBLIC), which amdkfd grants on a large-BAR GPU only. Coarse-grained
// memory then falls back to device-only VRAM (HIP's hipDeviceMallocDefault is hipMalloc; ROCr's
// coarse-grained VRAM pool is host-accessible only when the frame buffer is public), while
// fine-grained and uncached memory, whose point is coherence with the host, fail: ROCr offers no
// fine-grained VRAM pool a CPU may access on such a GPU (ROCclr's deviceLocalAlloc then fails).
hipError_t alloc_device(const char* api, size_t size, mem::Coherence c, mem::Heap heap, unsigned flags,
                        void** out, bool host_visible = false) {
  HIP_INIT_NAMED(rt, api);
  Device& dev = rt->current();
  mem::AllocRequest r;
  r.heap = heap;
  r.coherence = c;
  r.size = size;
  r.alignment = 256;
  r.host_access = heap != mem::Heap::Vram || host_visible;
  r.owner_gpu = dev.gpu_id();
  auto allocate = [&] {
    return (c == mem::Coherence::NonCoherent && heap == mem::Heap::Vram) ? rt->memory().allocate_small(r)
                                                                          : rt->memory().allocate(r);
  };
  auto p = allocate();
  if (!p && heap == mem::Heap::Vram && r.host_access) {
    if (c != mem::Coherence::NonCoherent) {
      debug_log(api, "fine-grained device memory must be host-visible VRAM, which GPU " + base::hex(dev.gpu_id()) +
                         " cannot give (" + p.message() + "; a small-BAR GPU has no host-visible VRAM)");
      return hipErrorOutOfMemory;
    }
    debug_log(api, p.message() + "; allocating VRAM without host access");
    r.host_access = false;
    p = allocate();
  }
  if (!p) return alloc_error(api, p.error());
  allocations().add(rt->memory(), {reinterpret_cast<uintptr_t>(*p), size, AllocKind::Device, flags, dev.index(),
                     c == mem::Coherence::Coherent});
  *out = *p;
  return hipSuccess;
}

// hipFree and friends wait for the GPUs first, so no queued kernel uses freed memory.
void sync_all_devices(Runtime* rt, const char* api) {
  for (int i = 0; i < rt->device_count(); ++i) (void)rt->device(i)->synchronize(api);
}

// The HIP programming guide, "Coherency Controls": flags decide; with neither flag,
// HIP_HOST_COHERENT=1 means coherent.
bool host_coherent(unsigned flags) {
  if (flags & hipHostMallocCoherent) return true;
  if (flags & hipHostMallocNonCoherent) return false;
  const char* env = std::getenv("HIP_HOST_COHERENT");
  return env && std::strcmp(env, "1") == 0;
}

}  // namespace

// ---- AllocTable ----

namespace {

constexpr int kMaxCountedDevices = 64;
std::atomic<size_t> g_device_bytes[kMaxCountedDevices];

// An entry as the allocator keeps it: a hipMalloc allocation counts toward its device's bytes
// for as long as the allocator holds the record.
struct CountedEntry : AllocEntry {
  explicit CountedEntry(const AllocEntry& e) : AllocEntry(e) {
    if (counted()) g_device_bytes[device].fetch_add(size, std::memory_order_relaxed);
  }
  ~CountedEntry() {
    if (counted()) g_device_bytes[device].fetch_sub(size, std::memory_order_relaxed);
  }
  bool counted() const { return kind == AllocKind::Device && device >= 0 && device < kMaxCountedDevices; }
};

mem::Context* allocator() {
  hipError_t err = hipSuccess;
  Runtime* rt = Runtime::get(&err);
  return rt ? &rt->memory() : nullptr;
}

}  // namespace

void AllocTable::add(mem::Context& m, const AllocEntry& e) {
  const uintptr_t at = e.map_base ? e.map_base : e.base;
  if (auto st = m.set_tag(reinterpret_cast<const void*>(at), std::make_shared<CountedEntry>(e)); !st)
    debug_log("allocation table", st.message());
}

std::shared_ptr<AllocEntry> AllocTable::tagged(const void* p) const {
  mem::Context* m = allocator();
  if (!m) return nullptr;
  auto info = m->lookup(p);
  if (!info || !info->tag) return nullptr;
  auto e = std::static_pointer_cast<AllocEntry>(info->tag);
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (a < e->base || a >= e->base + std::max<size_t>(e->size, 1)) return nullptr;
  return e;
}

std::optional<AllocEntry> AllocTable::find(const void* p) const {
  auto e = tagged(p);
  if (!e) return std::nullopt;
  std::lock_guard lk(mu_);
  return *e;
}

std::optional<bool> AllocTable::covers(const void* p, size_t n) const {
  auto e = find(p);
  if (!e) return std::nullopt;
  return reinterpret_cast<uintptr_t>(p) + n <= e->base + e->size;
}

size_t AllocTable::device_bytes(int device) const {
  if (device < 0 || device >= kMaxCountedDevices) return 0;
  return g_device_bytes[device].load(std::memory_order_relaxed);
}

AllocTable& allocations() {
  static AllocTable* t = new AllocTable();
  return *t;
}

hipError_t alloc_managed(size_t size, void** out) {
  HIP_INIT(rt);
  Device& dev = rt->current();
  mem::AllocRequest r;
  r.heap = mem::Heap::Gtt;
  r.coherence = mem::Coherence::Coherent;
  r.size = size;
  r.host_access = true;
  r.owner_gpu = dev.gpu_id();
  r.map_all = true;
  auto p = rt->memory().allocate(r);
  if (!p) return alloc_error("hipMallocManaged", p.error());
  allocations().add(rt->memory(), {reinterpret_cast<uintptr_t>(*p), size, AllocKind::Managed, hipMemAttachGlobal,
                     dev.index(), true});
  *out = *p;
  return hipSuccess;
}

}  // namespace hip

using namespace hip;

HIP_EXPORT hipError_t hipMalloc(void** ptr, size_t size) {
  if (!ptr) return ret(hipErrorInvalidValue);
  *ptr = nullptr;
  if (size == 0) return hipSuccess;
  return ret(alloc_device("hipMalloc", size, mem::Coherence::NonCoherent, mem::Heap::Vram, 0, ptr));
}

HIP_EXPORT hipError_t hipExtMallocWithFlags(void** ptr, size_t size, unsigned int flags) {
  if (!ptr) return ret(hipErrorInvalidValue);
  *ptr = nullptr;
  mem::Coherence c;
  mem::Heap heap = mem::Heap::Vram;
  switch (flags) {
    case hipDeviceMallocDefault:
    case hipDeviceMallocContiguous: c = mem::Coherence::NonCoherent; break;
    case hipDeviceMallocFinegrained: c = mem::Coherence::Coherent; break;
    case hipDeviceMallocUncached: c = mem::Coherence::Uncached; break;
    case hipMallocSignalMemory:
      c = mem::Coherence::Uncached;
      heap = mem::Heap::Gtt;
      break;
    default: return ret(hipErrorInvalidValue);
  }
  if (size == 0) return hipSuccess;
  return ret(alloc_device("hipExtMallocWithFlags", size, c, heap, flags, ptr, true));
}

HIP_EXPORT hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (!ptr || !pitch) return ret(hipErrorInvalidValue);
  *ptr = nullptr;
  *pitch = (width + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
  if (width == 0 || height == 0) return hipSuccess;
  return ret(alloc_device("hipMallocPitch", *pitch * height, mem::Coherence::NonCoherent,
                          mem::Heap::Vram, 0, ptr));
}

// The driver API's pitched allocation. CUDA allows element sizes of 4, 8 and 16 bytes only; HIP
// 5.2 takes any and pitches as hipMallocPitch does, which kfdrt follows (programs written for
// ROCm pass other sizes).
HIP_EXPORT hipError_t hipMemAllocPitch(hipDeviceptr_t* dptr, size_t* pitch, size_t widthInBytes, size_t height,
                                       unsigned int elementSizeBytes) {
  (void)elementSizeBytes;
  return hipMallocPitch(dptr, pitch, widthInBytes, height);
}

// hipMalloc3D: rows of `width` bytes padded to the pitch hipMallocPitch uses, `height` rows a
// slice, `depth` slices; the pitched pointer carries the logical width and rows per slice.
HIP_EXPORT hipError_t hipMalloc3D(hipPitchedPtr* p, hipExtent e) {
  if (!p) return ret(hipErrorInvalidValue);
  const size_t pitch = (e.width + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
  *p = make_hipPitchedPtr(nullptr, pitch, e.width, e.height);
  if (e.width == 0 || e.height == 0 || e.depth == 0) return hipSuccess;
  size_t bytes;
  if (pitch < e.width || __builtin_mul_overflow(pitch, e.height, &bytes) || __builtin_mul_overflow(bytes, e.depth, &bytes))
    return ret(hipErrorInvalidValue);
  return ret(alloc_device("hipMalloc3D", bytes, mem::Coherence::NonCoherent, mem::Heap::Vram, 0, &p->ptr));
}

HIP_EXPORT hipError_t hipMallocManaged(void** ptr, size_t size, unsigned int flags) {
  if (!ptr || size == 0) return ret(hipErrorInvalidValue);
  if (flags != hipMemAttachGlobal && flags != hipMemAttachHost) return ret(hipErrorInvalidValue);
  *ptr = nullptr;
  return ret(alloc_managed(size, ptr));
}

HIP_EXPORT hipError_t hipFree(void* ptr) {
  if (!ptr) return hipSuccess;
  HIP_INIT(rt);
  auto e = allocations().find(ptr);
  // hipHostMalloc memory too, as HIP 5.2 frees it (hipamd hip_memory.cpp ihipFree frees any
  // memory object the runtime allocated; HIP's own tests free pinned buffers so); registered
  // memory is the caller's (hipHostUnregister).
  if (e && e->base == reinterpret_cast<uintptr_t>(ptr) && e->kind == AllocKind::Host) return hipHostFree(ptr);
  if (!e || e->base != reinterpret_cast<uintptr_t>(ptr) ||
      (e->kind != AllocKind::Device && e->kind != AllocKind::Managed))
    return ret(hipErrorInvalidValue);
  sync_all_devices(rt, "hipFree");
  if (auto st = rt->memory().free(ptr); !st) return ret(alloc_error("hipFree", st.error()));
  return hipSuccess;
}

HIP_EXPORT hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  if (!ptr) return ret(hipErrorInvalidValue);
  *ptr = nullptr;
  if ((flags & ~kHostMallocFlags) ||
      ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent)))
    return ret(hipErrorInvalidValue);
  if (size == 0) return hipSuccess;
  HIP_INIT(rt);
  bool coherent = host_coherent(flags);
  size_t len = (size + page_size() - 1) / page_size() * page_size();
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return ret(hipErrorOutOfMemory);
  mem::AllocRequest r;
  r.coherence = coherent ? mem::Coherence::Coherent : mem::Coherence::NonCoherent;
  r.owner_gpu = rt->current().gpu_id();
  r.map_all = true;  // portable: every GPU maps it
  auto reg = rt->memory().register_host(p, len, r);
  if (!reg) {
    munmap(p, len);
    return ret(alloc_error("hipHostMalloc", reg.error()));
  }
  // The memory is portable and mapped whatever the flags say (every GPU maps it); hipHostGetFlags
  // gives back the flags as the caller passed them, as HIP 5.2 does for Portable, Mapped and
  // WriteCombined (HIP's own hipHostGetFlags test compares them so).
  allocations().add(rt->memory(), {reinterpret_cast<uintptr_t>(p), size, AllocKind::Host,
                     flags, rt->current_index(),
                     coherent, reinterpret_cast<uintptr_t>(p), len});
  *ptr = p;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipMallocHost(void** ptr, size_t size) { return hipHostMalloc(ptr, size, 0); }
// The driver API's spelling, deprecated in HIP 5.2 and still in its API.
HIP_EXPORT hipError_t hipMemAllocHost(void** ptr, size_t size) { return hipHostMalloc(ptr, size, 0); }
HIP_EXPORT hipError_t hipHostAlloc(void** ptr, size_t size, unsigned int flags) {
  return hipHostMalloc(ptr, size, flags);
}

HIP_EXPORT hipError_t hipHostFree(void* ptr) {
  if (!ptr) return hipSuccess;
  HIP_INIT(rt);
  auto e = allocations().find(ptr);
  if (!e || e->base != reinterpret_cast<uintptr_t>(ptr) || e->kind != AllocKind::Host)
    return ret(hipErrorInvalidValue);
  sync_all_devices(rt, "hipHostFree");
  // The pages go back to the system only once the GPUs no longer map them.
  if (auto st = rt->memory().free(ptr); !st) return ret(alloc_error("hipHostFree", st.error()));
  munmap(ptr, e->map_size);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipFreeHost(void* ptr) { return hipHostFree(ptr); }

HIP_EXPORT hipError_t hipHostRegister(void* host, size_t size, unsigned int flags) {
  if (!host || size == 0 || (flags & ~kHostRegisterFlags)) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  if (allocations().find(host)) return ret(hipErrorHostMemoryAlreadyRegistered);
  uintptr_t p = reinterpret_cast<uintptr_t>(host);
  uintptr_t lo = p & ~(page_size() - 1);
  uintptr_t hi = (p + size + page_size() - 1) & ~(page_size() - 1);
  mem::AllocRequest r;
  r.coherence = mem::Coherence::Coherent;
  r.owner_gpu = rt->current().gpu_id();
  r.map_all = true;
  r.read_only = (flags & hipHostRegisterReadOnly) != 0;
  auto reg = rt->memory().register_host(reinterpret_cast<void*>(lo), hi - lo, r);
  if (!reg) {
    debug_log("hipHostRegister", reg.message());
    return ret(reg.err() == EEXIST ? hipErrorHostMemoryAlreadyRegistered : hipErrorInvalidValue);
  }
  allocations().add(rt->memory(), {p, size, AllocKind::Registered, flags, rt->current_index(), true, lo, hi - lo});
  return hipSuccess;
}

HIP_EXPORT hipError_t hipHostUnregister(void* host) {
  if (!host) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  auto e = allocations().find(host);
  if (!e || e->kind != AllocKind::Registered || e->base != reinterpret_cast<uintptr_t>(host))
    return ret(hipErrorHostMemoryNotRegistered);
  sync_all_devices(rt, "hipHostUnregister");
  if (auto st = rt->memory().free(reinterpret_cast<void*>(e->map_base)); !st)
    return ret(alloc_error("hipHostUnregister", st.error()));
  return hipSuccess;
}

HIP_EXPORT hipError_t hipHostGetDevicePointer(void** dev_ptr, void* host, unsigned int flags) {
  if (!dev_ptr || !host || flags != 0) return ret(hipErrorInvalidValue);
  auto e = allocations().find(host);
  if (!e || e->kind == AllocKind::Device) return ret(hipErrorInvalidValue);
  *dev_ptr = host;  // same address on the CPU and the GPUs
  return hipSuccess;
}

HIP_EXPORT hipError_t hipHostGetFlags(unsigned int* flags, void* host) {
  if (!flags || !host) return ret(hipErrorInvalidValue);
  auto e = allocations().find(host);
  if (!e || (e->kind != AllocKind::Host && e->kind != AllocKind::Registered))
    return ret(hipErrorInvalidValue);
  *flags = e->flags;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipMemGetInfo(size_t* free, size_t* total) {
  if (!free || !total) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device& dev = rt->current();
  *total = dev.limits().totalGlobalMem;
  size_t used = allocations().device_bytes(dev.index());
  *free = *total > used ? *total - used : 0;
  if (auto avail = dev.gpu().available_vram(); avail && *avail < *free)
    *free = *avail;
  return hipSuccess;
}

// HIP 5.2's answers (hipamd hip_memory.cpp of ROCm 5.2): memory no HIP call allocated or
// registered is an invalid value; managed memory is host memory with isManaged set.
HIP_EXPORT hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attr, const void* ptr) {
  if (!attr || !ptr) return ret(hipErrorInvalidValue);
  std::memset(attr, 0, sizeof *attr);
  auto e = allocations().find(ptr);
  if (!e) return ret(hipErrorInvalidValue);
  void* p = const_cast<void*>(ptr);
  attr->device = e->device;
  attr->allocationFlags = e->flags;
  attr->devicePointer = p;
  switch (e->kind) {
    case AllocKind::Device:
    case AllocKind::Code: attr->type = hipMemoryTypeDevice; break;
    case AllocKind::Host:
    case AllocKind::Registered:
      attr->type = hipMemoryTypeHost;
      attr->hostPointer = p;
      break;
    case AllocKind::Managed:
      attr->type = hipMemoryTypeHost;
      attr->hostPointer = p;
      attr->isManaged = 1;
      break;
  }
  return hipSuccess;
}

HIP_EXPORT hipError_t hipMemPtrGetInfo(void* ptr, size_t* size) {
  if (!ptr || !size) return ret(hipErrorInvalidValue);
  auto e = allocations().find(ptr);
  if (!e) return ret(hipErrorInvalidValue);
  *size = e->size;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipMemGetAddressRange(hipDeviceptr_t* base, size_t* size, hipDeviceptr_t p) {
  auto e = allocations().find(p);
  if (!e) return ret(hipErrorNotFound);
  if (base) *base = reinterpret_cast<void*>(e->base);
  if (size) *size = e->size;
  return hipSuccess;
}

HIP_EXPORT hipError_t kfdrtPointerGetCoherence(const void* ptr, int* coherence) {
  if (!ptr || !coherence) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  auto info = rt->memory().lookup(ptr);
  if (!info) return ret(hipErrorInvalidValue);
  *coherence = info->coherence == mem::Coherence::Coherent ? 1 : info->coherence == mem::Coherence::Uncached ? 2 : 0;
  return hipSuccess;
}
