// SPDX-License-Identifier: MIT
// The CUs' vector L1s: which lines each holds, the private copies that go stale when another CU writes, invalidation and capacity.
#include "emu/shader/cache.h"

namespace emu::shader {

// A worker owns an L1 for one dispatch; the CP invalidates the L1s at the start of each kernel
// dispatch (AMDGPUUsage, "Memory Model GFX90A": kernarg backing memory), so a fresh one is empty.
L1* GpuCache::acquire_l1() {
  std::lock_guard lk(l1_mu_);
  for (L1& l : l1s_)
    if (!l.in_use) {
      l.in_use = true;
      return &l;
    }
  return nullptr;
}

void GpuCache::release_l1(L1* l1) {
  if (!l1) return;
  l1_invalidate(*l1);
  std::lock_guard lk(l1_mu_);
  l1->in_use = false;
}

// buffer_wbinvl1 / buffer_wbinvl1_vol: the L1 forgets every line (it holds no dirty data: it is
// write-through). Under the L1's lock, so that no other CU's store gives it a copy meanwhile.
void GpuCache::l1_invalidate(L1& l1) {
  std::lock_guard lk(l1.mu);
  for (size_t i = l1.head; i < l1.resident.size(); ++i) {
    auto [r, line] = l1.resident[i];
    r->lines[line].readers.fetch_and(~l1.bit, std::memory_order_acq_rel);
    r->lines[line].copied.fetch_and(~l1.bit, std::memory_order_acq_rel);
  }
  l1.resident.clear();
  l1.head = 0;
  l1.copies.clear();
}

void GpuCache::evict_l1(L1& l1, CachedRange& r, uint64_t line) {
  std::lock_guard lk(l1.mu);
  r.lines[line].readers.fetch_and(~l1.bit, std::memory_order_acq_rel);
  r.lines[line].copied.fetch_and(~l1.bit, std::memory_order_acq_rel);
  l1.copies.erase(L1::Key{&r, line});
}

void GpuCache::view_line(CachedRange& r, uint64_t line, uint8_t* out) {
  const uint64_t off = line * kLineBytes;
  const uint64_t len = std::min<uint64_t>(kLineBytes, r.size - off);
  std::memset(out, 0, kLineBytes);
  read(r, r.va_begin + off, out, len, true);  // an L1 miss allocates in the L2
}

bool GpuCache::l1_load(L1& l1, CachedRange& r, uint64_t line) {
  LineState& s = r.lines[line];
  if (s.readers.load(std::memory_order_relaxed) & l1.bit)
    return (s.copied.load(std::memory_order_acquire) & l1.bit) != 0;
  s.readers.fetch_or(l1.bit, std::memory_order_acq_rel);
  l1.resident.emplace_back(&r, line);
  if (!r.cached()) {  // fine-grained memory: the L1 keeps what it read now
    std::array<uint8_t, kLineBytes> data;
    view_line(r, line, data.data());
    std::lock_guard lk(l1.mu);
    l1.copies[L1::Key{&r, line}] = data;
    s.copied.fetch_or(l1.bit, std::memory_order_acq_rel);
  }
  if (cfg_.l1_lines && l1.resident.size() - l1.head > cfg_.l1_lines) {
    auto [vr, vl] = l1.resident[l1.head++];
    evict_l1(l1, *vr, vl);
    if (l1.head > 4096 && l1.head * 2 > l1.resident.size()) {
      l1.resident.erase(l1.resident.begin(), l1.resident.begin() + static_cast<ptrdiff_t>(l1.head));
      l1.head = 0;
    }
  }
  return (s.copied.load(std::memory_order_acquire) & l1.bit) != 0;
}

bool GpuCache::l1_store(L1* l1, CachedRange& r, uint64_t line) {
  LineState& s = r.lines[line];
  const uint64_t mine = l1 ? l1->bit : 0;
  uint64_t others = s.readers.load(std::memory_order_acquire) & ~s.copied.load(std::memory_order_acquire) & ~mine;
  if (others) {
    std::array<uint8_t, kLineBytes> data;
    view_line(r, line, data.data());  // what they hold: the line before this store
    while (others) {
      L1& t = l1s_[__builtin_ctzll(others)];
      others &= others - 1;
      std::lock_guard lk(t.mu);
      if (!(s.readers.load(std::memory_order_acquire) & t.bit) || (s.copied.load(std::memory_order_acquire) & t.bit))
        continue;
      t.copies[L1::Key{&r, line}] = data;
      s.copied.fetch_or(t.bit, std::memory_order_acq_rel);
    }
  }
  return mine && (s.copied.load(std::memory_order_acquire) & mine);
}

void GpuCache::l1_copy_read(L1& l1, CachedRange& r, uint64_t line, unsigned off, void* dst, unsigned n) {
  {
    std::lock_guard lk(l1.mu);
    auto it = l1.copies.find(L1::Key{&r, line});
    if (it != l1.copies.end()) {
      std::memcpy(dst, it->second.data() + off, n);
      return;
    }
  }
  read(r, r.va_begin + line * kLineBytes + off, dst, n, true);  // dropped meanwhile
}

void GpuCache::l1_copy_write(L1& l1, CachedRange& r, uint64_t line, unsigned off, const void* src, unsigned n) {
  std::lock_guard lk(l1.mu);
  auto it = l1.copies.find(L1::Key{&r, line});
  if (it != l1.copies.end()) std::memcpy(it->second.data() + off, src, n);
}

}  // namespace emu::shader
