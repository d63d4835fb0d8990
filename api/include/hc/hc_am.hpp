// SPDX-License-Identifier: MIT
// hc accelerator memory (AM): am_alloc/am_free/am_copy on HIP allocations and a pointer tracker that resolves interior pointers.
#pragma once

#include "hc.hpp"

#include <cstdio>
#include <iterator>
#include <map>

typedef int am_status_t;
#define AM_SUCCESS 0
#define AM_ERROR_MISC -1

// am_alloc flags. 0 is device memory (coarse-grained VRAM).
#define amHostPinned 0x1        // pinned host memory mapped for the GPUs (non-coherent)
#define amHostNonCoherent 0x1   // the same as amHostPinned
#define amHostCoherent 0x2      // pinned host memory, fine-grained (coherent)
#define amDeviceFinegrained 0x4 // fine-grained device memory (hipExtMallocWithFlags)
#define amHostUnmapped 0x8      // with a host flag: map only for the allocating accelerator

// The names of later hcc releases. am_host_coherent (3) has the coherent bit; am_host_noncoherent
// (2) is the amHostCoherent bit, so it gets coherent memory too (a superset: it only costs speed).
enum am_memory_t { am_device = 0, am_host_pinned = 1, am_host_noncoherent = 2, am_host_coherent = 3 };

namespace hc {

// What the tracker knows about one allocation (field names as in hcc).
struct AmPointerInfo {
  void* _hostPointer = nullptr;    // host address, null when the host cannot access it
  void* _devicePointer = nullptr;  // device address (same as the host one for host memory)
  void* _unalignedDevicePointer = nullptr;
  size_t _sizeBytes = 0;
  hc::accelerator _acc;
  bool _isInDeviceMem = false;
  bool _isAmManaged = false;       // allocated by am_alloc (freed by am_free / reset)
  uint64_t _allocSeqNum = 0;
  int _appId = -1;
  unsigned _appAllocationFlags = 0;
  void* _appPtr = nullptr;

  AmPointerInfo(void* host, void* device, size_t bytes, hc::accelerator& acc, bool in_device = false,
                bool am_managed = false)
      : AmPointerInfo(host, device, device, bytes, acc, in_device, am_managed) {}
  AmPointerInfo(void* host, void* device, void* unaligned, size_t bytes, hc::accelerator& acc,
                bool in_device, bool am_managed)
      : _hostPointer(host), _devicePointer(device), _unalignedDevicePointer(unaligned),
        _sizeBytes(bytes), _acc(acc), _isInDeviceMem(in_device), _isAmManaged(am_managed) {}
  // Copyable (the tracker hands out copies).
  AmPointerInfo(const AmPointerInfo&) = default;
  AmPointerInfo& operator=(const AmPointerInfo&) = default;
};

namespace detail {

// Tracked allocations by base address. Entries are plain data (the accelerator as its HIP
// device number): clang 15 in HIP mode crashes instantiating std::map over AmPointerInfo.
struct am_entry {
  void* host = nullptr;
  void* device_ptr = nullptr;
  void* unaligned = nullptr;
  size_t bytes = 0;
  int device = 0;
  bool in_device = false;
  bool am_managed = false;
  uint64_t seq = 0;
  int app_id = -1;
  unsigned app_flags = 0;
  void* app_ptr = nullptr;
  unsigned am_flags = 0;
  bool host_locked = false;
};

struct am_tracker {
  std::mutex m;
  std::map<const char*, am_entry> blocks;
  uint64_t seq = 0;

  static am_tracker& get() {
    static am_tracker t;
    return t;
  }
  // The block containing p (interior pointers included), or end().
  std::map<const char*, am_entry>::iterator find_locked(const void* p) {
    const char* c = static_cast<const char*>(p);
    auto it = blocks.upper_bound(c);
    if (it == blocks.begin()) return blocks.end();
    --it;
    const size_t n = it->second.bytes;
    return (c >= it->first && c < it->first + (n ? n : 1)) ? it : blocks.end();
  }
  void add(const void* base, const AmPointerInfo& info, unsigned flags, bool locked) {
    am_entry e;
    e.host = info._hostPointer, e.device_ptr = info._devicePointer;
    e.unaligned = info._unalignedDevicePointer, e.bytes = info._sizeBytes;
    e.device = info._acc.get_hip_device(), e.in_device = info._isInDeviceMem;
    e.am_managed = info._isAmManaged, e.app_id = info._appId;
    e.app_flags = info._appAllocationFlags, e.app_ptr = info._appPtr;
    e.am_flags = flags, e.host_locked = locked;
    std::lock_guard<std::mutex> lock(m);
    e.seq = ++seq;
    blocks.insert_or_assign(static_cast<const char*>(base), e);
  }
};

inline void to_info(const am_entry& e, AmPointerInfo* info) {
  hc::accelerator acc(e.device);
  *info = AmPointerInfo(e.host, e.device_ptr, e.unaligned, e.bytes, acc, e.in_device, e.am_managed);
  info->_allocSeqNum = e.seq, info->_appId = e.app_id;
  info->_appAllocationFlags = e.app_flags, info->_appPtr = e.app_ptr;
}

inline void* am_allocate(size_t size, int device, unsigned flags) {
  device_guard g(device);
  void* p = nullptr;
  const bool host = flags & (amHostPinned | amHostCoherent);
  hipError_t e;
  if (host) {
    unsigned hf = (flags & amHostCoherent) ? hipHostMallocCoherent : hipHostMallocNonCoherent;
    if (!(flags & amHostUnmapped)) hf |= hipHostMallocPortable;
    e = hipHostMalloc(&p, size, hf | hipHostMallocMapped);
  } else if (flags & amDeviceFinegrained) {
    e = hipExtMallocWithFlags(&p, size, hipDeviceMallocFinegrained);
  } else {
    e = hipMalloc(&p, size);
  }
  return e == hipSuccess ? p : nullptr;
}

} // namespace detail

// Converts to any object pointer type, as hcc's am_alloc result did.
class auto_voidp {
public:
  auto_voidp(void* p) : p_(p) {}
  template <class T> operator T*() const { return static_cast<T*>(p_); }

private:
  void* p_;
};

// Allocates `size` bytes for `acc` (flags above); null on failure or size 0.
inline auto_voidp am_alloc(size_t size, hc::accelerator& acc, unsigned flags) {
  if (size == 0) return nullptr;
  void* p = detail::am_allocate(size, acc.get_hip_device(), flags);
  if (!p) return nullptr;
  const bool host = flags & (amHostPinned | amHostCoherent);
  AmPointerInfo info(host ? p : nullptr, p, size, acc, !host, true);
  detail::am_tracker::get().add(p, info, flags, false);
  return p;
}

// Frees an am_alloc block; AM_ERROR_MISC for a pointer that is not one (e.g. a second free).
inline am_status_t am_free(void* ptr) {
  if (!ptr) return AM_SUCCESS;
  auto& t = detail::am_tracker::get();
  unsigned flags = 0;
  int device = 0;
  {
    std::lock_guard<std::mutex> lock(t.m);
    auto it = t.blocks.find(static_cast<const char*>(ptr));
    if (it == t.blocks.end() || !it->second.am_managed) return AM_ERROR_MISC;
    flags = it->second.am_flags;
    device = it->second.device;
    t.blocks.erase(it);
  }
  detail::device_guard g(device);
  hipError_t e = (flags & (amHostPinned | amHostCoherent)) ? hipHostFree(ptr) : hipFree(ptr);
  return e == hipSuccess ? AM_SUCCESS : AM_ERROR_MISC;
}

// Copies `size` bytes between any host or device memory (synchronous).
inline am_status_t am_copy(void* dst, const void* src, size_t size) {
  return hipMemcpy(dst, src, size, hipMemcpyDefault) == hipSuccess ? AM_SUCCESS : AM_ERROR_MISC;
}

namespace detail {
// Memory hc did not allocate but the HIP runtime knows (hipMalloc, hipHostMalloc, registered
// host memory): described from hipPointerGetAttributes and hipMemGetAddressRange.
inline bool hip_pointer_info(const void* ptr, AmPointerInfo* info) {
  hipPointerAttribute_t a{};
  if (!ptr || !pointer_attributes(ptr, &a)) return false;
  if (a.memoryType != hipMemoryTypeDevice && a.memoryType != hipMemoryTypeHost) return false;
  hipDeviceptr_t base = nullptr;
  size_t bytes = 0;
  if (hipMemGetAddressRange(&base, &bytes, const_cast<void*>(ptr)) != hipSuccess) base = nullptr, bytes = 0;
  if (!info) return true;
  hc::accelerator acc(a.device >= 0 ? a.device : 0);
  const bool in_device = a.memoryType == hipMemoryTypeDevice;
  void* dev = base ? base : a.devicePointer;
  *info = AmPointerInfo(in_device ? nullptr : (base ? base : a.hostPointer), dev, bytes, acc, in_device, false);
  return true;
}
} // namespace detail

// Info about the tracked block containing ptr (anywhere inside it); memory that only the HIP
// runtime knows is described from its pointer attributes (not am-managed).
inline am_status_t am_memtracker_getinfo(hc::AmPointerInfo* info, const void* ptr) {
  {
    auto& t = detail::am_tracker::get();
    std::lock_guard<std::mutex> lock(t.m);
    auto it = t.find_locked(ptr);
    if (it != t.blocks.end()) {
      if (info) detail::to_info(it->second, info);
      return AM_SUCCESS;
    }
  }
  return detail::hip_pointer_info(ptr, info) ? AM_SUCCESS : AM_ERROR_MISC;
}

// Tracks memory hc did not allocate (AM_ERROR_MISC for null or empty).
inline am_status_t am_memtracker_add(void* ptr, hc::AmPointerInfo& info) {
  if (!ptr || info._sizeBytes == 0) return AM_ERROR_MISC;
  detail::am_tracker::get().add(ptr, info, 0, false);
  return AM_SUCCESS;
}

inline am_status_t am_memtracker_update(const void* ptr, int appId, unsigned allocationFlags,
                                        void* appPtr = nullptr) {
  auto& t = detail::am_tracker::get();
  std::lock_guard<std::mutex> lock(t.m);
  auto it = t.find_locked(ptr);
  if (it == t.blocks.end()) return AM_ERROR_MISC;
  it->second.app_id = appId;
  it->second.app_flags = allocationFlags;
  it->second.app_ptr = appPtr;
  return AM_SUCCESS;
}

// Stops tracking the block containing ptr (does not free it).
inline am_status_t am_memtracker_remove(void* ptr) {
  auto& t = detail::am_tracker::get();
  std::lock_guard<std::mutex> lock(t.m);
  auto it = t.find_locked(ptr);
  if (it == t.blocks.end()) return AM_ERROR_MISC;
  t.blocks.erase(it);
  return AM_SUCCESS;
}

// Frees the am_alloc blocks of `acc` and forgets all its entries; returns how many.
inline size_t am_memtracker_reset(const hc::accelerator& acc) {
  std::vector<void*> managed;
  size_t n = 0;
  {
    auto& t = detail::am_tracker::get();
    std::lock_guard<std::mutex> lock(t.m);
    for (auto it = t.blocks.begin(); it != t.blocks.end();) {
      if (it->second.device != acc.get_hip_device()) { ++it; continue; }
      if (it->second.am_managed) { managed.push_back(const_cast<char*>(it->first)); ++it; continue; }
      it = t.blocks.erase(it);
      ++n;
    }
  }
  for (void* p : managed) n += am_free(p) == AM_SUCCESS;
  return n;
}

inline void am_memtracker_print(void* target = nullptr) {
  auto& t = detail::am_tracker::get();
  std::lock_guard<std::mutex> lock(t.m);
  for (auto& [base, e] : t.blocks) {
    if (target && t.find_locked(target) != t.blocks.find(base)) continue;
    std::fprintf(stderr, "%p-%p #%llu host=%p dev=%p bytes=%zu %s%s appId=%d\n", (const void*)base,
                 (const void*)(base + e.bytes), (unsigned long long)e.seq, e.host, e.device_ptr,
                 e.bytes, e.in_device ? "device" : "host", e.am_managed ? " am" : "", e.app_id);
  }
}

// Bytes of device, host (am_alloc) and user (added or locked) memory tracked for `acc`.
inline void am_memtracker_sizeinfo(const hc::accelerator& acc, size_t* device_bytes,
                                   size_t* host_bytes, size_t* user_bytes) {
  *device_bytes = *host_bytes = *user_bytes = 0;
  auto& t = detail::am_tracker::get();
  std::lock_guard<std::mutex> lock(t.m);
  for (auto& [base, e] : t.blocks) {
    if (e.device != acc.get_hip_device()) continue;
    size_t* into = !e.am_managed ? user_bytes : e.in_device ? device_bytes : host_bytes;
    *into += e.bytes;
  }
}

// Page-locks host memory for the GPUs (hipHostRegister) and tracks it.
inline am_status_t am_memory_host_lock(hc::accelerator& ac, void* host, size_t size,
                                       hc::accelerator* visible = nullptr, size_t num_visible = 0) {
  (void)visible, (void)num_visible;  // HIP maps registered memory for every device
  if (!host || size == 0) return AM_ERROR_MISC;
  detail::device_guard g(ac.get_hip_device());
  if (hipHostRegister(host, size, hipHostRegisterMapped) != hipSuccess) return AM_ERROR_MISC;
  AmPointerInfo info(host, host, size, ac, false, false);
  detail::am_tracker::get().add(host, info, 0, true);
  return AM_SUCCESS;
}

inline am_status_t am_memory_host_unlock(hc::accelerator& ac, void* host) {
  auto& t = detail::am_tracker::get();
  {
    std::lock_guard<std::mutex> lock(t.m);
    auto it = t.blocks.find(static_cast<const char*>(host));
    if (it == t.blocks.end() || !it->second.host_locked) return AM_ERROR_MISC;
    t.blocks.erase(it);
  }
  detail::device_guard g(ac.get_hip_device());
  return hipHostUnregister(host) == hipSuccess ? AM_SUCCESS : AM_ERROR_MISC;
}

// Lets `peers` access the am_alloc block at ptr (enables peer access to its accelerator).
inline am_status_t am_map_to_peers(void* ptr, size_t num_peer, const hc::accelerator* peers) {
  if (!ptr || num_peer == 0 || !peers) return AM_ERROR_MISC;
  AmPointerInfo info(nullptr, nullptr, 0, *const_cast<hc::accelerator*>(peers), false, false);
  if (am_memtracker_getinfo(&info, ptr) != AM_SUCCESS || !info._isAmManaged) return AM_ERROR_MISC;
  const int owner = info._acc.get_hip_device();
  for (size_t i = 0; i < num_peer; ++i) {
    if (peers[i] == info._acc) continue;
    if (!info._acc.get_is_peer(peers[i])) return AM_ERROR_MISC;
    detail::device_guard g(peers[i].get_hip_device());
    hipError_t e = hipDeviceEnablePeerAccess(owner, 0);
    if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) return AM_ERROR_MISC;
  }
  return AM_SUCCESS;
}

} // namespace hc
