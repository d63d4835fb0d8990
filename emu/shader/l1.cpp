// SPDX-License-Identifier: MIT
// The CUs' vector L1s: which pages each holds lines of, the private copies that go stale when another CU writes, invalidation and capacity.
#include "emu/shader/cache.h"

#include "emu/shader/guest.h"

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

// Drops the L1's copies of the page's lines and its readers bit (caller holds l1.mu).
void GpuCache::l1_forget(L1& l1, CachedRange& r, uint64_t page) {
  PageState& p = r.pages[page];
  p.readers.fetch_and(~l1.bit, std::memory_order_acq_rel);
  if (!(p.copies.load(std::memory_order_acquire) & l1.bit)) return;
  p.copies.fetch_and(~l1.bit, std::memory_order_acq_rel);
  const uint64_t first = page * kLinesPerPage, last = std::min<uint64_t>(first + kLinesPerPage, r.nlines());
  for (uint64_t line = first; line < last; ++line)
    if (r.lines[line].copied.load(std::memory_order_relaxed) & l1.bit) {
      r.lines[line].copied.fetch_and(~l1.bit, std::memory_order_acq_rel);
      l1.copies.erase(L1::Key{&r, line});
    }
}

// buffer_wbinvl1 / buffer_wbinvl1_vol: the L1 forgets every line (it holds no dirty data: it is
// write-through). Under the L1's lock, so that no other CU's store gives it a copy meanwhile.
void GpuCache::l1_invalidate(L1& l1) {
  std::lock_guard lk(l1.mu);
  for (const auto& [k, data] : l1.copies) k.r->lines[k.line].copied.fetch_and(~l1.bit, std::memory_order_acq_rel);
  for (size_t i = l1.head; i < l1.resident.size(); ++i) {
    auto [r, page] = l1.resident[i];
    r->pages[page].readers.fetch_and(~l1.bit, std::memory_order_acq_rel);
    r->pages[page].copies.fetch_and(~l1.bit, std::memory_order_acq_rel);
  }
  l1.resident.clear();
  l1.head = 0;
  if (!l1.copies.empty()) l1.copies.clear();  // (clear() zeroes every bucket, even of an empty map)
}

void GpuCache::l1_enter(L1& l1, CachedRange& r, uint64_t page) {
  r.pages[page].readers.fetch_or(l1.bit, std::memory_order_acq_rel);
  l1.resident.emplace_back(&r, page);
  if (!cfg_.l1_lines) return;
  const size_t cap = std::max<size_t>(1, (cfg_.l1_lines + kLinesPerPage - 1) / kLinesPerPage);
  if (l1.resident.size() - l1.head <= cap) return;
  auto [vr, vp] = l1.resident[l1.head++];  // the oldest page leaves the L1
  {
    std::lock_guard lk(l1.mu);
    l1_forget(l1, *vr, vp);
  }
  if (l1.head > 4096 && l1.head * 2 > l1.resident.size()) {
    l1.resident.erase(l1.resident.begin(), l1.resident.begin() + static_cast<ptrdiff_t>(l1.head));
    l1.head = 0;
  }
}

void GpuCache::view_line(CachedRange& r, uint64_t line, uint8_t* out) {
  const uint64_t off = line * kLineBytes;
  const uint64_t len = std::min<uint64_t>(kLineBytes, r.size - off);
  std::memset(out, 0, kLineBytes);
  read(r, r.va_begin + off, out, len, true);  // an L1 miss allocates in the L2
}

bool GpuCache::l1_copy(L1& l1, CachedRange& r, uint64_t line) {
  LineState& s = r.lines[line];
  if (s.copied.load(std::memory_order_acquire) & l1.bit) return true;
  if (r.cached()) return false;
  // Fine-grained memory: the L1 keeps what it reads first (the L2 does not hold it, so nothing
  // else would make a later host write invisible to this CU).
  std::array<uint8_t, kLineBytes> data;
  view_line(r, line, data.data());
  std::lock_guard lk(l1.mu);
  l1.copies[L1::Key{&r, line}] = data;
  s.copied.fetch_or(l1.bit, std::memory_order_acq_rel);
  r.page_of(line).copies.fetch_or(l1.bit, std::memory_order_acq_rel);
  return true;
}

void GpuCache::give_copies(CachedRange& r, uint64_t line, uint64_t l1s) {
  LineState& s = r.lines[line];
  PageState& p = r.page_of(line);
  std::array<uint8_t, kLineBytes> data;
  view_line(r, line, data.data());  // what they hold: the line before this store
  while (l1s) {
    L1& t = l1s_[__builtin_ctzll(l1s)];
    l1s &= l1s - 1;
    std::lock_guard lk(t.mu);
    if (!(p.readers.load(std::memory_order_acquire) & t.bit) || (s.copied.load(std::memory_order_acquire) & t.bit))
      continue;
    t.copies[L1::Key{&r, line}] = data;
    s.copied.fetch_or(t.bit, std::memory_order_acq_rel);
    p.copies.fetch_or(t.bit, std::memory_order_acq_rel);
  }
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
  if (it != l1.copies.end()) guest_move(it->second.data() + off, src, n);  // src: maybe the L2's copy
}

}  // namespace emu::shader
