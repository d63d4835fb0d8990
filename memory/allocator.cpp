// SPDX-License-Identifier: MIT
// Allocation, registration, free and address lookup of mem::Context (libhsakmt fmm.c same-address mapping).
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>

#include "kfd/uapi_ext.h"
#include "memory/context.h"
#include "memory/flags.h"

namespace mem {
namespace {

std::string size_text(uint64_t n) {
  std::string s = std::to_string(n) + " bytes";
  if (n >= (1ull << 20)) s += " (" + std::to_string(n >> 20) + " MiB)";
  return s;
}

base::Error oom(Heap heap, uint32_t gpu_id, uint64_t want, uint64_t heap_size) {
  return base::Error::msg("out of memory: " + std::string(heap_name(heap)) + " heap of GPU " +
                             base::hex(gpu_id) + " holds " + size_text(heap_size) +
                             ", requested " + size_text(want),
                         ENOMEM);
}

// The record of `records` (by base address) whose range holds `p`, or end(); const or not.
template <class Map>
auto find_containing(Map& records, uintptr_t p) -> decltype(records.begin()) {
  auto it = records.upper_bound(p);
  if (it == records.begin()) return records.end();
  --it;
  return p < it->second.info.base + it->second.info.size ? it : records.end();
}

}  // namespace

base::Status Context::check_request(const AllocRequest& req, const gpu::Device** owner,
                                   std::vector<uint32_t>* gpus, size_t* size) const {
  *owner = req.owner_gpu ? gpu(req.owner_gpu) : platform_.devices().front().get();
  if (!*owner) return base::Error::msg("allocate: unknown GPU " + base::hex(req.owner_gpu), ENODEV);
  uint32_t owner_id = (*owner)->gpu_id;
  if (req.map_all) {
    for (const auto& g : platform_.devices()) gpus->push_back(g->gpu_id);
  } else if (req.map_to.empty()) {
    gpus->push_back(owner_id);
  } else {
    for (uint32_t id : req.map_to) {
      if (!gpu(id)) return base::Error::msg("allocate: unknown GPU " + base::hex(id) + " in map list", ENODEV);
      if (std::find(gpus->begin(), gpus->end(), id) == gpus->end()) gpus->push_back(id);
    }
  }
  if (req.heap == Heap::Doorbell) {
    if (req.size != 0 && req.size != kfd::uapi::kDoorbellSliceSize)
      return base::Error::msg("allocate: a doorbell allocation is the 8 KiB process slice, not " +
                             size_text(req.size), EINVAL);
    *size = kfd::uapi::kDoorbellSliceSize;
    return {};
  }
  if (req.heap == Heap::Mmio) {
    // MMIO_REMAP is exactly one page: a larger request would hand out a mapping that faults.
    if (req.size != 0 && req.size != kPageSize)
      return base::Error::msg("allocate: an MMIO remap is the one 4 KiB page, not " +
                             size_text(req.size), EINVAL);
    *size = kPageSize;
    return {};
  }
  if (req.size == 0)
    return base::Error::msg(std::string("allocate: zero-size ") + heap_name(req.heap) + " allocation", EINVAL);
  *size = page_align(req.size);
  if (*size < req.size) return oom(req.heap, owner_id, req.size, 0);  // wrapped around
  uint64_t heap_size = req.heap == Heap::Vram ? (*owner)->vram_size : platform_.system_memory_size();
  if (*size > heap_size) return oom(req.heap, owner_id, req.size, heap_size);
  return {};
}

base::Status Context::map_cpu(const gpu::Device& owner, const AllocRequest& req, uint64_t mmap_offset,
                             const VaRange& va) {
  void* addr = reinterpret_cast<void*>(va.base);
  int prot = PROT_READ | PROT_WRITE;
  int flags = MAP_SHARED | MAP_FIXED;
  switch (req.heap) {
    case Heap::Vram:
      if (!req.host_access) return {};  // stays PROT_NONE
      [[fallthrough]];
    case Heap::Gtt: {
      KFD_ASSIGN(void* p, owner.render.mmap(addr, va.size, prot, flags, mmap_offset));
      (void)p;
      return {};
    }
    case Heap::Doorbell: {
      uint64_t off = kfd::uapi::mmap_offset(kfd::uapi::kMmapTypeDoorbell, owner.gpu_id);
      KFD_ASSIGN(void* p, kfd_.mmap(addr, va.size, prot, flags, off));
      (void)p;
      return {};
    }
    case Heap::Mmio: {
      KFD_ASSIGN(void* p, kfd_.mmap(addr, va.size, prot, flags, mmap_offset));
      (void)p;
      return {};
    }
    case Heap::Userptr: return {};
  }
  return {};
}

// The same-address scheme needs the CPU address to be a valid GPU VA on every GPU it maps to.
base::Status Context::check_aperture(uintptr_t base, size_t size,
                                    const std::vector<uint32_t>& gpus) const {
  for (uint32_t id : gpus) {
    const auto& ap = gpu(id)->apertures;
    if (ap.gpuvm_limit == 0) continue;  // not reported: let the kernel decide
    if (base < ap.gpuvm_base || base + size - 1 > ap.gpuvm_limit)
      return base::Error::msg("address range [" + base::hex(base) + ", +" + base::hex(size) +
                             ") is outside the GPUVM aperture [" + base::hex(ap.gpuvm_base) + ", " +
                             base::hex(ap.gpuvm_limit) + "] of GPU " + base::hex(id), ENOMEM);
  }
  return {};
}

base::Result<void*> Context::allocate(const AllocRequest& req) {
  if (req.heap == Heap::Userptr)
    return base::Error::msg("allocate: USERPTR memory is registered with register_host", EINVAL);
  return allocate_internal(req, nullptr);
}

// A fresh guarded reservation, or the caller's address inside its own reservation (fixed_va).
base::Result<VaRange> Context::place(const AllocRequest& req, size_t size) const {
  if (!req.fixed_va) return reserve_va(size, req.alignment);
  if (req.fixed_va & (kPageSize - 1))
    return base::Error::msg("allocate: fixed address " + base::hex(req.fixed_va) +
                           " is not page aligned", EINVAL);
  if (req.alignment && (req.fixed_va & (req.alignment - 1)))
    return base::Error::msg("allocate: fixed address " + base::hex(req.fixed_va) +
                           " is not aligned to " + base::hex(req.alignment), EINVAL);
  return VaRange{req.fixed_va, size};
}

base::Result<void*> Context::allocate_internal(const AllocRequest& req, Pool* pool) {
  const gpu::Device* owner = nullptr;
  std::vector<uint32_t> gpus;
  size_t size = 0;
  KFD_TRY(check_request(req, &owner, &gpus, &size));
  KFD_ASSIGN(uint32_t flags, alloc_flags(req));
  KFD_ASSIGN(VaRange va, place(req, size));
  const bool owns = req.fixed_va == 0;
  // On failure only our own reservation goes back to the kernel; a caller's stays reserved.
  if (auto in = check_aperture(va.base, size, gpus); !in) {
    if (owns) release_va(va);
    return in.error();
  }
  auto a = kfd_.alloc_memory(owner->gpu_id, va.base, size, flags, 0);
  if (!a) {
    if (owns) release_va(va);
    if (a.err() == ENOMEM) {
      uint64_t heap = req.heap == Heap::Vram ? owner->vram_size : platform_.system_memory_size();
      return base::Error::msg(oom(req.heap, owner->gpu_id, size, heap).message + " [" +
                             a.message() + "]", ENOMEM);
    }
    return a.error();
  }
  auto m = kfd_.map_memory(a->handle, gpus);
  if (!m) {
    (void)kfd_.unmap_memory(a->handle, gpus);
    (void)kfd_.free_memory(a->handle);
    if (owns) release_va(va);
    return m.error();
  }
  if (auto c = map_cpu(*owner, req, a->mmap_offset, va); !c) {
    (void)kfd_.unmap_memory(a->handle, gpus);
    (void)unmap_cpu(va);
    (void)kfd_.free_memory(a->handle);
    if (owns) release_va(va);
    return c.error();
  }
  Record rec;
  rec.info = AllocationInfo{va.base, size, req.heap, req.coherence,
                            req.heap != Heap::Vram || req.host_access, owner->gpu_id, gpus,
                            a->handle, false, va.base, size, nullptr};
  rec.va = va;
  rec.pool = pool;
  rec.owns_va = owns;
  std::unique_lock lk(map_mu_);
  allocations_.emplace(va.base, std::move(rec));
  return reinterpret_cast<void*>(va.base);
}

base::Result<void*> Context::register_host(void* ptr, size_t size, const AllocRequest& req) {
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  if (!ptr) return base::Error::msg("register_host: null pointer", EINVAL);
  if (size == 0) return base::Error::msg("register_host: zero size at " + base::hex(p), EINVAL);
  if (p & (kPageSize - 1))
    return base::Error::msg("register_host: userptr " + base::hex(p) + " is not page aligned", EINVAL);
  AllocRequest r = req;
  r.heap = Heap::Userptr;
  r.size = size;
  const gpu::Device* owner = nullptr;
  std::vector<uint32_t> gpus;
  size_t sz = 0;
  KFD_TRY(check_request(r, &owner, &gpus, &sz));
  {
    std::shared_lock lk(map_mu_);
    auto it = allocations_.lower_bound(p + sz);
    if (it != allocations_.begin() && std::prev(it)->second.info.base + std::prev(it)->second.info.size > p)
      return base::Error::msg("register_host: [" + base::hex(p) + ", +" + base::hex(sz) +
                             ") overlaps an existing allocation", EEXIST);
  }
  KFD_ASSIGN(uint32_t flags, alloc_flags(r));
  KFD_TRY(check_aperture(p, sz, gpus));
  KFD_ASSIGN(kfd::Allocation a, kfd_.alloc_memory(owner->gpu_id, p, sz, flags, p));
  if (auto m = kfd_.map_memory(a.handle, gpus); !m) {
    (void)kfd_.unmap_memory(a.handle, gpus);
    (void)kfd_.free_memory(a.handle);
    return m.error();
  }
  Record rec;
  rec.info = AllocationInfo{p, sz, Heap::Userptr, r.coherence, true, owner->gpu_id, gpus,
                            a.handle, false, p, sz, nullptr};
  std::unique_lock lk(map_mu_);
  allocations_.emplace(p, std::move(rec));
  return ptr;
}

// Unmap from the GPUs, drop the CPU mapping, free the buffer, then give the VA back. When the
// GPU unmap is refused (EBUSY: a live queue uses the buffer, Linux >= 6.12) nothing is undone
// and the allocation stays valid.
base::Status Context::release(Record& rec) {
  const AllocationInfo& i = rec.info;
  KFD_TRY(kfd_.unmap_memory(i.handle, i.mapped_gpus));
  if (rec.va.size) (void)unmap_cpu(rec.va);
  base::Status st = kfd_.free_memory(i.handle);
  if (rec.owns_va) release_va(rec.va);  // a fixed_va buffer's range stays the caller's
  return st;
}

base::Status Context::free(void* ptr) {
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  if (!ptr) return base::Error::msg("free: null pointer", EINVAL);
  Pool* pool = nullptr;
  {
    std::unique_lock lk(map_mu_);
    auto it = find_containing(allocations_, p);
    if (it == allocations_.end())
      return base::Error::msg("free: " + base::hex(p) +
                             " is not an allocation of this context (unknown pointer or double free)",
                             EINVAL);
    pool = it->second.pool;
    if (!pool) {
      if (it->first != p)
        return base::Error::msg("free: " + base::hex(p) + " points inside the allocation at " +
                               base::hex(it->first) + ", not at its start", EINVAL);
      // Released under the lock: a concurrent free of the same pointer must see it either
      // live or gone, and a refused unmap must leave the record in place.
      if (auto st = release(it->second); !st) return st;
      allocations_.erase(it);
      return {};
    }
  }
  // A pooled block: the pool reports a double free itself. Called without map_mu_ held
  // (the pool may call back into this context to allocate or free chunks).
  return pool->free(p);
}

bool Context::find_impl(const void* ptr, AllocationInfo* out, std::string* why) const {
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  AllocationInfo& info = *out;
  Pool* pool = nullptr;
  {
    std::shared_lock lk(map_mu_);
    auto it = find_containing(allocations_, p);
    if (it == allocations_.end()) {
      if (why) *why = "lookup: no allocation contains " + base::hex(p);
      return false;
    }
    info = it->second.info;
    pool = it->second.pool;
  }
  if (!pool) return true;
  Pool::Block b{};
  if (!pool->find(p, &b)) {
    if (why) *why = "lookup: " + base::hex(p) + " is in a " + pool->name() + " pool chunk but not in a live block";
    return false;
  }
  info.pooled = true;
  info.base = b.base;
  info.size = b.size;
  info.tag = std::move(b.tag);
  return true;
}

bool Context::find(const void* ptr, AllocationInfo* out) const { return find_impl(ptr, out, nullptr); }

base::Result<AllocationInfo> Context::lookup(const void* ptr) const {
  AllocationInfo info;
  std::string why;
  if (!find_impl(ptr, &info, &why)) return base::Error::msg(why, ENOENT);
  return info;
}

base::Result<Placement> Context::locate(const void* ptr, uint32_t gpu_id) const {
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  Placement r;
  Pool* pool = nullptr;
  {
    std::shared_lock lk(map_mu_);
    auto it = find_containing(allocations_, p);
    if (it == allocations_.end()) return base::Error::msg("locate: no allocation contains " + base::hex(p), ENOENT);
    const AllocationInfo& i = it->second.info;
    r.base = i.base;
    r.size = i.size;
    r.heap = i.heap;
    r.owner_gpu = i.owner_gpu;
    r.mapped = std::find(i.mapped_gpus.begin(), i.mapped_gpus.end(), gpu_id) != i.mapped_gpus.end();
    pool = it->second.pool;
  }
  if (!pool) return r;
  Pool::Block b{};
  if (!pool->find(p, &b))
    return base::Error::msg("locate: " + base::hex(p) + " is in a " + pool->name() + " pool chunk but not in a live block",
                            ENOENT);
  r.base = b.base;
  r.size = b.size;
  return r;
}

base::Status Context::set_tag(const void* ptr, std::shared_ptr<void> tag) {
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  Pool* pool = nullptr;
  {
    std::unique_lock lk(map_mu_);
    auto it = find_containing(allocations_, p);
    if (it == allocations_.end()) return base::Error::msg("set_tag: no allocation contains " + base::hex(p), ENOENT);
    pool = it->second.pool;
    if (!pool) {
      it->second.info.tag = std::move(tag);
      return {};
    }
  }
  if (!pool->set_tag(p, std::move(tag)))
    return base::Error::msg("set_tag: " + base::hex(p) + " is in a " + pool->name() +
                           " pool chunk but not in a live block", ENOENT);
  return {};
}

}  // namespace mem
