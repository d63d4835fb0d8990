// SPDX-License-Identifier: MIT
// Emulated amdkfd memory ioctls (ALLOC/FREE/MAP/UNMAP) and the mmaps of BOs, doorbells and events.
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "emu/arena.h"
#include "emu/fd_table.h"
#include "emu/interpose.h"
#include "emu/kfd_process.h"
#include "emu/host_watch.h"
#include "emu/memory_model.h"
#include "emu/tsan_sync.h"
#include "emu/user_copy.h"
#include "kfd/uapi_ext.h"

namespace emu {

namespace {
constexpr uint64_t kPage = 4096;
constexpr uint64_t kGpuvmBase = 1ull << 21;
constexpr uint64_t kGpuvmLimit = (1ull << 47) - 1;
constexpr uint32_t kTypeMask = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |
                               KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL |
                               KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;
constexpr unsigned kMmapIdShift = 40;  // render-node mmap offsets: BO id << 40
constexpr uint32_t kMaxMapDevices = 1u << 16;

int popcount(uint32_t v) { return __builtin_popcount(v); }
}  // namespace

uint8_t* DeviceState::translate(uint64_t va, uint64_t size, bool write, LookupCache* cache) const {
  Mapping m;
  if (!lookup(va, &m, cache)) return nullptr;
  if (size > m.end - va) return nullptr;
  if (write && !m.writable) return nullptr;
  return m.host + (va - m.va);
}

uint64_t DeviceState::next_map_gen() {
  static std::atomic<uint64_t> gens{0};
  return gens.fetch_add(1, std::memory_order_relaxed) + 1;
}

// The map walk under the lock (DeviceState::lookup when its cache has no entry for va).
bool DeviceState::lookup_locked(uint64_t va, Mapping* out, LookupCache* cache) const {
  std::shared_lock<std::shared_mutex> lk(map_mu);
  auto it = maps.upper_bound(va);
  if (it == maps.begin()) return false;
  --it;
  if (va >= it->second.end) return false;
  for (const auto& [fva, fsize] : injected_faults)
    if (va >= fva && va < fva + fsize) return false;
  *out = it->second;
  // A mapping with an injected fault inside is never cached: a hit checks only the range.
  if (cache && injected_faults.empty()) {
    const uint64_t gen = map_gen.load(std::memory_order_relaxed);
    if (cache->gen != gen) cache->gen = gen, cache->n = cache->next = 0;
    const unsigned i = cache->next;
    cache->lo[i] = it->second.va;
    cache->size[i] = it->second.end - it->second.va;
    cache->m[i] = it->second;
    cache->next = (i + 1) % LookupCache::kEntries;
    cache->n = std::max(cache->n, i + 1);
  }
  return true;
}

// The BO mapped at `va` in this GPU's VM (amdgpu_vm_bo_lookup_mapping: mapped BOs only).
std::shared_ptr<Bo> Process::bo_at_locked(DeviceState& d, uint64_t va) {
  for (auto& [h, bo] : bos_) {
    if (bo->mapped.count(d.model->gpu_id) && va >= bo->va && va < bo->va + bo->size) return bo;
  }
  return nullptr;
}

void Process::map_locked(DeviceState& d, Bo& bo) {
  if (!bo.mapped.insert(d.model->gpu_id).second) return;
  shader::CachedRange* cache = cache_mapping(d, bo);  // the GPU's caches, by the page's MTYPE
  std::unique_lock<std::shared_mutex> lk(d.map_mu);
  Mapping m{bo.va, bo.va + bo.size, bo.host, bo.writable()};
  m.cache = cache;
  d.maps[bo.va] = m;
  d.maps_changed();
}

void Process::unmap_locked(DeviceState& d, Bo& bo) {
  if (!bo.mapped.erase(d.model->gpu_id)) return;
  shader::CachedRange* cache = nullptr;
  {
    std::unique_lock<std::shared_mutex> lk(d.map_mu);
    auto it = d.maps.find(bo.va);
    if (it != d.maps.end()) cache = it->second.cache;
    d.maps.erase(bo.va);
    d.maps_changed();
  }
  uncache_mapping(d, cache);  // its dirty lines go with it
}

void Process::free_bo_locked(Bo& bo) {
  host_watch_freed(bo.va, bo.size);
  for (auto& [gid, d] : devices_)
    if (bo.mapped.count(gid)) unmap_locked(*d, bo);
  if (bo.kind == BoKind::Vram) {
    if (DeviceState* d = device(bo.gpu_id)) {
      d->vram_used -= bo.size;
    }
  }
  if (bo.arena_offset != UINT64_MAX && (bo.kind == BoKind::Vram || bo.kind == BoKind::Gtt))
    Arena::get().release(bo.arena_offset, bo.size);
  bo.arena_offset = UINT64_MAX;
}

static uint8_t* device_page(uint64_t* slot, uint64_t size) {
  if (*slot == UINT64_MAX) *slot = Arena::get().allocate(size);
  return *slot == UINT64_MAX ? nullptr : Arena::get().host(*slot);
}

int Process::alloc_memory(kfd_ioctl_alloc_memory_of_gpu_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  int r = alloc_memory_locked(a);
  if (r) log("ALLOC_MEMORY_OF_GPU(gpu_id=0x%x, va=0x%llx, size=0x%llx, flags=0x%x, offset=0x%llx) -> %d",
             a->gpu_id, (unsigned long long)a->va_addr, (unsigned long long)a->size, a->flags,
             (unsigned long long)a->mmap_offset, r);
  return r;
}

int Process::alloc_memory_locked(kfd_ioctl_alloc_memory_of_gpu_args* a) {
  if (a->size == 0) return -EINVAL;  // checked before anything else
  DeviceState* d = device(a->gpu_id);
  if (!d) return -EINVAL;
  uint32_t f = a->flags;
  // kfd_chardev.c kfd_ioctl_alloc_memory_of_gpu: "Alloc host visible vram on small bar is not
  // allowed" -- every PUBLIC VRAM request on a part with private VRAM, before the VM binding.
  if ((f & KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC) && (f & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) && !d->model->large_bar()) {
    log("ALLOC_MEMORY_OF_GPU: host-visible (PUBLIC) VRAM on a small-BAR GPU (%llu of %llu MiB visible, "
        "KFDEMU_VISIBLE_VRAM_MB) is refused, as amdkfd refuses it",
        (unsigned long long)(d->model->visible_vram_bytes >> 20), (unsigned long long)(d->model->vram_bytes >> 20));
    return -EINVAL;
  }
  if (!d->vm_acquired) return -ENODEV;  // kfd_bind_process_to_device: no ACQUIRE_VM yet
  // COHERENT, UNCACHED and EXT_COHERENT may be combined: amdgpu_amdkfd_gpuvm.c get_pte_flags
  // gives them a precedence (UNCACHED first), it does not refuse the mix.
  if (popcount(f & kTypeMask) != 1) return -EINVAL;
  if ((a->size & (kPage - 1)) || (a->va_addr & (kPage - 1))) return -EINVAL;
  if (a->va_addr < kGpuvmBase || a->va_addr + a->size - 1 > kGpuvmLimit) return -EINVAL;
  if (svm_overlaps_locked(a->va_addr, a->size)) return -EADDRINUSE;  // already an SVM range
  for (auto& [h, bo] : bos_) {
    bool in_vm = bo->gpu_id == a->gpu_id || bo->mapped.count(a->gpu_id);
    if (in_vm && a->va_addr < bo->va + bo->size && bo->va < a->va_addr + a->size) return -EINVAL;
  }
  auto bo = std::make_shared<Bo>();
  bo->gpu_id = a->gpu_id;
  bo->flags = f;
  bo->va = a->va_addr;
  bo->size = a->size;
  uint32_t id = next_bo_id_++;
  if (f & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) {
    if (a->size != kfd::uapi::kDoorbellSliceSize) return -EINVAL;
    bo->kind = BoKind::Doorbell;
    bo->host = device_page(&d->doorbell_arena, kfd::uapi::kDoorbellSliceSize);
    bo->mmap_offset = kfd::uapi::mmap_offset(kfd::uapi::kMmapTypeDoorbell, a->gpu_id);
  } else if (f & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) {
    if (a->size != kPage) return -EINVAL;
    bo->kind = BoKind::Mmio;
    bo->host = device_page(&d->mmio_arena, kPage);
    bo->mmap_offset = kfd::uapi::mmap_offset(kfd::uapi::kMmapTypeMmio, a->gpu_id);
  } else if (f & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
    uint64_t addr = a->mmap_offset;
    if (addr == 0 || (addr & (kPage - 1))) return -EINVAL;
    if (!user_range_ok(reinterpret_cast<void*>(addr), a->size)) return -EFAULT;
    bo->kind = BoKind::Userptr;
    bo->host = reinterpret_cast<uint8_t*>(addr);
    bo->mmap_offset = addr;
    // KFDEMU_REPORT_STALE: the program's own pages (readable and writable: hipHostMalloc's, a
    // registered buffer's).
    host_watch_view(bo->va, bo->host, bo->size, PROT_READ | PROT_WRITE);
  } else {
    bool vram = f & KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
    if (vram && d->vram_used + a->size > d->model->vram_bytes) return -ENOMEM;
    if (!vram && a->size > d->model->gtt_bytes) return -ENOMEM;
    bo->kind = vram ? BoKind::Vram : BoKind::Gtt;
    bo->arena_offset = Arena::get().allocate(a->size);
    if (bo->arena_offset == UINT64_MAX) return -ENOMEM;
    bo->host = Arena::get().host(bo->arena_offset);
    bo->mmap_offset = uint64_t(id) << kMmapIdShift;
    if (vram) d->vram_used += a->size;
  }
  if (!bo->host) return -ENOMEM;
  bo->handle = uint64_t(a->gpu_id) << 32 | id;
  a->handle = bo->handle;
  a->mmap_offset = bo->mmap_offset;
  bos_[bo->handle] = bo;
  return 0;
}

int Process::free_memory(kfd_ioctl_free_memory_of_gpu_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  auto it = bos_.find(a->handle);
  if (it == bos_.end()) return -EINVAL;
  if (it->second->queue_refs > 0) return -EBUSY;  // Linux 6.12: queue buffers stay while the queue lives
  if (event_page_bo_ == it->second) return -EPERM;  // the events page lives until process exit
  free_bo_locked(*it->second);
  bos_.erase(it);
  return 0;
}

// The argument checks MAP and UNMAP share, in the kernel's order: counts, the id array, the
// handle's GPU (EINVAL), then the handle itself (ENOMEM: kfd_process_device_translate_handle).
int Process::map_args_locked(uint64_t handle, uint32_t n_devices, uint32_t n_success,
                             uint64_t ids_ptr, std::vector<uint32_t>* ids, Bo** bo) {
  if (n_devices == 0 || n_success > n_devices) return -EINVAL;
  if (n_devices > kMaxMapDevices) return -ENOMEM;  // the kernel's kmalloc_array would fail
  ids->resize(n_devices);
  if (!copy_from_user(ids->data(), reinterpret_cast<void*>(ids_ptr), n_devices * sizeof(uint32_t)))
    return -EFAULT;
  if (!device(uint32_t(handle >> 32))) return -EINVAL;
  auto it = bos_.find(handle);
  if (it == bos_.end()) return -ENOMEM;
  *bo = it->second.get();
  return 0;
}

int Process::map_memory(kfd_ioctl_map_memory_to_gpu_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  std::vector<uint32_t> ids;
  Bo* bo = nullptr;
  if (int r = map_args_locked(a->handle, a->n_devices, a->n_success, a->device_ids_array_ptr,
                              &ids, &bo))
    return r;
  if (!device(uint32_t(a->handle >> 32))->vm_acquired) return -ENODEV;
  // One device at a time: n_success tells the caller where a failure stopped.
  for (uint32_t i = a->n_success; i < a->n_devices; ++i) {
    DeviceState* d = device(ids[i]);
    if (!d) return -EINVAL;
    if (!d->vm_acquired) return -ENODEV;
    map_locked(*d, *bo);
    a->n_success = i + 1;
  }
  return 0;
}

int Process::unmap_memory(kfd_ioctl_unmap_memory_from_gpu_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  std::vector<uint32_t> ids;
  Bo* bo = nullptr;
  if (int r = map_args_locked(a->handle, a->n_devices, a->n_success, a->device_ids_array_ptr,
                              &ids, &bo))
    return r;
  for (uint32_t i = a->n_success; i < a->n_devices; ++i) {
    DeviceState* d = device(ids[i]);
    if (!d || !bo->mapped.count(ids[i])) return -EINVAL;
    if (bo->queue_refs > 0) return -EBUSY;
    unmap_locked(*d, *bo);
    a->n_success = i + 1;
  }
  return 0;
}

void* Process::mmap_render(uint32_t minor, void* addr, size_t len, int prot, int flags,
                           uint64_t offset) {
  std::lock_guard<std::mutex> lk(mu);
  (void)minor;
  if ((offset & (kPage - 1)) || len == 0) {  // mmap(2): unaligned offset or empty mapping
    errno = EINVAL;
    return MAP_FAILED;
  }
  // drm_gem_mmap: the offset must be a BO's own (drm_vma_offset_exact_lookup_locked) and the
  // length at most the BO's size.
  for (auto& [h, bo] : bos_) {
    if (bo->kind != BoKind::Vram && bo->kind != BoKind::Gtt) continue;
    if (offset != bo->mmap_offset || len > bo->size) continue;
    if (bo->kind == BoKind::Vram && !(bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC))
      return mmap_private_vram_locked(*bo, addr, len, prot, flags);
    void* p = real_mmap(addr, len, prot, flags, Arena::get().fd(), off_t(bo->arena_offset));
    if (p != MAP_FAILED) host_watch_view(bo->va, p, len, prot);  // KFDEMU_REPORT_STALE
    return p;
  }
  errno = EINVAL;
  return MAP_FAILED;
}

// VRAM allocated without PUBLIC on the CPU. amdgpu_gem_object_mmap refuses a BO created with
// AMDGPU_GEM_CREATE_NO_CPU_ACCESS with EPERM, and amdgpu_amdkfd_gpuvm_alloc_memory_of_gpu
// created every VRAM BO without KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC that way until Linux 5.14
// ("drm/amdkfd: Allow CPU access for all VRAM BOs"); since then the mmap succeeds (ROCm's thunk
// maps such BOs PROT_NONE, MAP_PRIVATE for the debugger and fails the allocation otherwise) and
// a CPU access moves the BO into the BAR window or GTT (amdgpu_bo_fault_reserve_notify), evicting
// the process's queues. The emulator keeps the older, stricter answer for accessible mappings
// (EPERM) and grants PROT_NONE ones (no memory behind them), so a runtime that touches device-only
// VRAM from the CPU fails here instead of passing where hardware would crawl or fault.
void* Process::mmap_private_vram_locked(Bo& bo, void* addr, size_t len, int prot, int flags) {
  if (prot == PROT_NONE)
    return real_mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (flags & MAP_FIXED), -1, 0);
  log("mmap of VRAM BO at 0x%llx (%llu KiB, prot %d): allocated without PUBLIC (no CPU access): EPERM",
      (unsigned long long)bo.va, (unsigned long long)(bo.size >> 10), prot);
  errno = EPERM;
  return MAP_FAILED;
}

uint8_t* Process::event_slots() {
  if (event_page_bo_) return event_page_bo_->host;
  return device_page(&internal_event_page_, kfd::uapi::kEventPageSize);
}

// kfd_mmap: the offset's type picks the handler; a GPU the type needs but the offset does not
// name is ENODEV, a wrong length EINVAL.
uint64_t Process::kfd_mmap_arena_locked(size_t len, uint64_t offset, int* err) {
  uint64_t type = offset & kfd::uapi::kMmapTypeMask;
  DeviceState* d = device(kfd::uapi::mmap_gpu_id(offset));
  *err = EINVAL;
  if (type == kfd::uapi::kMmapTypeEvents) {
    // kfd_event_mmap: at most the page's size, and only once a signal event made the page.
    if (len > kfd::uapi::kEventPageSize) return UINT64_MAX;
    std::lock_guard<std::mutex> ek(ev_mu_);
    if (internal_event_page_ == UINT64_MAX) return UINT64_MAX;
    signal_limit_ = uint32_t(((len + kPage - 1) & ~(kPage - 1)) / 8);
    return internal_event_page_;
  }
  if (!d) {
    *err = ENODEV;
    return UINT64_MAX;
  }
  if (type == kfd::uapi::kMmapTypeDoorbell && len == kfd::uapi::kDoorbellSliceSize) {
    device_page(&d->doorbell_arena, kfd::uapi::kDoorbellSliceSize);
    return d->doorbell_arena;
  }
  if (type == kfd::uapi::kMmapTypeMmio && len == kPage) {
    device_page(&d->mmio_arena, kPage);
    return d->mmio_arena;
  }
  return UINT64_MAX;
}

void* Process::mmap_kfd(void* addr, size_t len, int prot, int flags, uint64_t offset) {
  std::lock_guard<std::mutex> lk(mu);
  int err = EINVAL;
  // mmap(2) itself refuses an offset that is not page aligned, before any driver sees it.
  uint64_t arena = (offset & (kPage - 1)) || len == 0 ? UINT64_MAX : kfd_mmap_arena_locked(len, offset, &err);
  if (arena == UINT64_MAX) {
    log("mmap on /dev/kfd: offset 0x%llx, length 0x%zx: %s", (unsigned long long)offset, len,
        std::strerror(err));
    errno = err;
    return MAP_FAILED;
  }
  void* p = real_mmap(addr, len, prot, flags, Arena::get().fd(), off_t(arena));
  if (p != MAP_FAILED && (offset & kfd::uapi::kMmapTypeMask) == kfd::uapi::kMmapTypeDoorbell)
    tsan_doorbells_mapped(kfd::uapi::mmap_gpu_id(offset), p, len);
  return p;
}

}  // namespace emu
