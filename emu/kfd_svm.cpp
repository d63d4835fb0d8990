// SPDX-License-Identifier: MIT
// The emulated AMDKFD_IOC_SVM (shared virtual memory: ROCm's managed memory): ranges of the
// process's own memory with attributes, mapped into the GPUs that may access them (kfd_svm.c).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "emu/kfd_process.h"

namespace emu {

namespace {

constexpr uint64_t kPageShift = 12;
constexpr uint32_t kDefaultGranularity = 9;  // kfd_svm.c svm_default_granularity: 2 MiB
constexpr uint32_t kDefaultFlags = KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT;

// True when VMAs cover [start, end) without a gap, as kfd_svm.c svm_range_is_valid asks of the
// process's address space (mappings of any protection count; a hole does not).
bool vmas_cover(uint64_t start, uint64_t end) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string text;
  char buf[8192];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  close(fd);
  uint64_t cur = start;
  size_t pos = 0;
  while (pos < text.size() && cur < end) {
    uint64_t lo = 0, hi = 0;
    if (std::sscanf(text.c_str() + pos, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2 && lo <= cur && cur < hi)
      cur = hi;
    size_t nl = text.find('\n', pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  return cur >= end;
}

}  // namespace

// Splits the range holding `page` so that a range starts there (svm_range_split).
void Process::svm_split_locked(uint64_t page) {
  auto it = svm_.upper_bound(page);
  if (it == svm_.begin()) return;
  --it;
  SvmRange& r = it->second;
  if (r.start >= page || r.last < page) return;
  SvmRange tail = r;
  tail.start = page;
  r.last = page - 1;
  svm_[page] = tail;
}

// kfd_svm.c svm_range_check_attr: types known, locations and access naming this process's GPUs.
int Process::svm_check_attrs_locked(const kfd_ioctl_svm_attribute* attrs, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t v = attrs[i].value;
    bool gpu = false;
    switch (attrs[i].type) {
      case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
        gpu = v != KFD_IOCTL_SVM_LOCATION_SYSMEM && v != KFD_IOCTL_SVM_LOCATION_UNDEFINED;
        break;
      case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
        gpu = v != KFD_IOCTL_SVM_LOCATION_SYSMEM;
        break;
      case KFD_IOCTL_SVM_ATTR_ACCESS:
      case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
      case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
        gpu = true;
        break;
      case KFD_IOCTL_SVM_ATTR_SET_FLAGS:
      case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
      case KFD_IOCTL_SVM_ATTR_GRANULARITY:
        break;
      default:
        log("SVM: unknown attribute type 0x%x", attrs[i].type);
        return -EINVAL;
    }
    if (gpu && !device(v)) {
      log("SVM: attribute %u names no GPU of the process (0x%x)", attrs[i].type, v);
      return -EINVAL;
    }
  }
  return 0;
}

// kfd_svm.c svm_range_is_valid: the pages are the process's memory (EFAULT otherwise) and no BO is
// mapped there in a GPU's VM (svm_range_check_vm: EADDRINUSE).
int Process::svm_check_range_locked(uint64_t start, uint64_t last) {
  uint64_t lo = start << kPageShift, hi = (last + 1) << kPageShift;
  if (!vmas_cover(lo, hi)) return -EFAULT;
  for (auto& [h, bo] : bos_)
    if (!bo->mapped.empty() && bo->va < hi && lo < bo->va + bo->size) return -EADDRINUSE;
  return 0;
}

void Process::svm_apply(SvmRange& r, const kfd_ioctl_svm_attribute* attrs, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t v = attrs[i].value;
    switch (attrs[i].type) {
      case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC: r.preferred_loc = v; break;
      case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC: r.prefetch_loc = v; break;
      case KFD_IOCTL_SVM_ATTR_ACCESS: r.access.insert(v); r.in_place.erase(v); break;
      case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE: r.access.erase(v); r.in_place.insert(v); break;
      case KFD_IOCTL_SVM_ATTR_NO_ACCESS: r.access.erase(v); r.in_place.erase(v); break;
      case KFD_IOCTL_SVM_ATTR_SET_FLAGS: r.flags |= v; break;
      case KFD_IOCTL_SVM_ATTR_CLR_FLAGS: r.flags &= ~v; break;
      case KFD_IOCTL_SVM_ATTR_GRANULARITY: r.granularity = std::min<uint32_t>(v, 0x3f); break;
    }
  }
}

// A new range's attributes (svm_range_new): no locations, host access and coherence, and with
// XNACK on every GPU may access it (it faults the pages in).
Process::SvmRange Process::svm_default_locked(uint64_t start, uint64_t last) {
  SvmRange r;
  r.start = start;
  r.last = last;
  r.preferred_loc = r.prefetch_loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
  r.flags = kDefaultFlags;
  r.granularity = kDefaultGranularity;
  if (xnack_)
    for (auto& [gid, d] : devices_) r.access.insert(gid);
  return r;
}

// Each GPU maps exactly the ranges it may access (ACCESS or ACCESS_IN_PLACE), at the process's
// own addresses; GPU_RO ranges read-only. A range losing access is unmapped at once, which is
// stricter than kfd_svm.c (it leaves the old mapping until the range is next evicted).
void Process::svm_remap_locked() {
  for (auto& [gid, d] : devices_) {
    std::unique_lock<std::shared_mutex> lk(d->map_mu);
    for (auto it = d->maps.begin(); it != d->maps.end();) it = it->second.svm ? d->maps.erase(it) : std::next(it);
    for (auto& [start, r] : svm_) {
      if (!r.access.count(gid) && !r.in_place.count(gid)) continue;
      uint64_t va = r.start << kPageShift, end = (r.last + 1) << kPageShift;
      Mapping m{va, end, reinterpret_cast<uint8_t*>(va), !(r.flags & KFD_IOCTL_SVM_FLAG_GPU_RO)};
      m.svm = true;
      d->maps[va] = m;
    }
    d->maps_changed();
  }
  svm_any_.store(!svm_.empty(), std::memory_order_release);
}

int Process::svm_set_locked(uint64_t start, uint64_t last, const kfd_ioctl_svm_attribute* attrs,
                            uint32_t n) {
  if (int r = svm_check_attrs_locked(attrs, n)) return r;
  if (int r = svm_check_range_locked(start, last)) return r;
  svm_split_locked(start);
  svm_split_locked(last + 1);
  uint64_t cur = start;
  for (auto it = svm_.lower_bound(start); it != svm_.end() && it->first <= last; ++it) {
    if (cur < it->first) svm_[cur] = svm_default_locked(cur, it->first - 1);
    cur = it->second.last + 1;
  }
  if (cur <= last) svm_[cur] = svm_default_locked(cur, last);
  for (auto it = svm_.lower_bound(start); it != svm_.end() && it->first <= last; ++it)
    svm_apply(it->second, attrs, n);
  svm_remap_locked();
  return 0;
}

// kfd_svm.c svm_range_get_attr: locations common to every range (else UNDEFINED), access that
// every range grants, flags set in all (SET_FLAGS) or clear in all (CLR_FLAGS), the smallest
// granularity; a range without SVM ranges reads as their defaults.
int Process::svm_get_locked(uint64_t start, uint64_t last, kfd_ioctl_svm_attribute* attrs, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t t = attrs[i].type;
    if (t == KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE || t == KFD_IOCTL_SVM_ATTR_NO_ACCESS ||
        t > KFD_IOCTL_SVM_ATTR_GRANULARITY) {
      log("SVM get: attribute type 0x%x cannot be queried", t);
      return -EINVAL;
    }
  }
  if (int r = svm_check_range_locked(start, last)) return r;
  const uint32_t undef = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
  uint32_t loc = undef, prefetch = undef, flags_and = ~0u, flags_or = 0, gran = 0xff;
  bool first = true, loc_ok = true, prefetch_ok = true;
  std::set<uint32_t> access, in_place;
  for (auto& [gid, d] : devices_) access.insert(gid), in_place.insert(gid);
  auto it = svm_.upper_bound(start);
  if (it != svm_.begin() && std::prev(it)->second.last >= start) --it;
  for (; it != svm_.end() && it->first <= last; ++it, first = false) {
    const SvmRange& r = it->second;
    if (loc_ok && (r.preferred_loc == undef || (!first && loc != r.preferred_loc))) loc = undef, loc_ok = false;
    else if (loc_ok) loc = r.preferred_loc;
    if (prefetch_ok && (r.prefetch_loc == undef || (!first && prefetch != r.prefetch_loc)))
      prefetch = undef, prefetch_ok = false;
    else if (prefetch_ok) prefetch = r.prefetch_loc;
    std::erase_if(access, [&](uint32_t g) { return !r.access.count(g); });
    std::erase_if(in_place, [&](uint32_t g) { return !r.in_place.count(g); });
    flags_and &= r.flags;
    flags_or |= r.flags;
    gran = std::min(gran, r.granularity);
  }
  if (first) {  // no range: the defaults
    SvmRange d = svm_default_locked(start, last);
    loc = prefetch = undef;
    flags_and = flags_or = d.flags;
    gran = d.granularity;
    access = d.access;
    in_place.clear();
  }
  for (uint32_t i = 0; i < n; ++i) {
    kfd_ioctl_svm_attribute& a = attrs[i];
    switch (a.type) {
      case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC: a.value = loc; break;
      case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC: a.value = prefetch; break;
      case KFD_IOCTL_SVM_ATTR_ACCESS:
        if (!device(a.value)) return -EINVAL;
        a.type = access.count(a.value)     ? KFD_IOCTL_SVM_ATTR_ACCESS
                 : in_place.count(a.value) ? KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE
                                           : KFD_IOCTL_SVM_ATTR_NO_ACCESS;
        break;
      case KFD_IOCTL_SVM_ATTR_SET_FLAGS: a.value = flags_and; break;
      case KFD_IOCTL_SVM_ATTR_CLR_FLAGS: a.value = ~flags_or; break;
      case KFD_IOCTL_SVM_ATTR_GRANULARITY: a.value = gran; break;
    }
  }
  return 0;
}

// kfd_chardev.c kfd_ioctl_svm: page-aligned, non-empty ranges; `size` is how many bytes of the
// arguments the caller passed (libhsakmt adds the attribute array to the ioctl's size).
int Process::svm(kfd_ioctl_svm_args* a, size_t size) {
  if ((a->start_addr | a->size) & ((1u << kPageShift) - 1)) return -EINVAL;
  if (!a->start_addr || !a->size) return -EINVAL;
  if (a->nattr > (size - sizeof *a) / sizeof(kfd_ioctl_svm_attribute)) {
    // The kernel would read attributes past what was copied in; refuse rather than guess.
    log("SVM: %u attributes but the ioctl's size holds %zu", a->nattr,
        (size - sizeof *a) / sizeof(kfd_ioctl_svm_attribute));
    return -EINVAL;
  }
  uint64_t start = a->start_addr >> kPageShift, last = start + (a->size >> kPageShift) - 1;
  std::lock_guard<std::mutex> lk(mu);
  switch (a->op) {
    case KFD_IOCTL_SVM_OP_SET_ATTR: return svm_set_locked(start, last, a->attrs, a->nattr);
    case KFD_IOCTL_SVM_OP_GET_ATTR: return svm_get_locked(start, last, a->attrs, a->nattr);
    default: return -EINVAL;
  }
}

// kfd_chardev.c kfd_ioctl_alloc_memory_of_gpu refuses a BO over an SVM range (EADDRINUSE).
bool Process::svm_overlaps_locked(uint64_t va, uint64_t size) const {
  uint64_t start = va >> kPageShift, last = (va + size - 1) >> kPageShift;
  auto it = svm_.upper_bound(last);
  return it != svm_.begin() && std::prev(it)->second.last >= start;
}

// The CPU mapping of [addr, addr+len) went away (munmap, or a MAP_FIXED mapping over it): the
// SVM ranges there go too (kfd_svm.c svm_range_unmap_from_cpu, from the MMU notifier).
void Process::svm_unmapped(uint64_t addr, uint64_t len) {
  if (!svm_any_.load(std::memory_order_acquire) || len == 0) return;
  // A forked child has no KFD process of its own (and must not wait for a lock a parent's
  // thread held at the fork).
  if (getpid() != owner_) return;
  std::lock_guard<std::mutex> lk(mu);
  uint64_t start = addr >> kPageShift, end = (addr + len + (1u << kPageShift) - 1) >> kPageShift;
  svm_split_locked(start);
  svm_split_locked(end);
  bool changed = false;
  for (auto it = svm_.lower_bound(start); it != svm_.end() && it->first < end;) {
    it = svm_.erase(it);
    changed = true;
  }
  if (changed) svm_remap_locked();
}

}  // namespace emu
