// SPDX-License-Identifier: MIT
// GpuCache: the L2's lines (fill, write-back, invalidate, capacity) and the mappings it caches; the L1s are in l1.cpp.
#include "emu/shader/cache.h"

#include "emu/shader/guest.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace emu::shader {

namespace {

// Anonymous memory committed only where touched: the model's state costs nothing for the
// lines a program never uses. Zero bytes are the initial state of every field kept there.
void* reserve(uint64_t bytes) {
  if (bytes == 0) bytes = 1;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// The system call itself, not munmap(): the emulator interposes munmap to see a program's SVM
// ranges go away and takes the process lock there, which the caller may already hold (a GPU
// unmap that drops the last reference to a mapping's state).
void release(void* p, uint64_t bytes) {
  if (p) syscall(SYS_munmap, p, bytes ? bytes : 1);
}

// Guest bytes (guest.h): what the GPU programs read and write, the memory of a mapping and the
// L2's copy of it; copied by the functions marked EMU_GUEST only.

// A line's piece as the L2 holds it: memory's bytes, the L2's copy where `dirty` (bit i: byte i).
EMU_GUEST void merge_line(uint8_t* out, const uint8_t* memory, const uint8_t* shadow, unsigned len, uint64_t dirty) {
  guest_copy(out, memory, len);
  for (unsigned i = 0; i < len;) {
    // An aligned 8 bytes all dirty move as one access (a 64-bit store another CU makes may be
    // landing in the copy: the GPU's aligned 8-byte accesses are single-copy atomic).
    if (((reinterpret_cast<uintptr_t>(shadow) + i) & 7) == 0 && i + 8 <= len && ((dirty >> i) & 0xff) == 0xff) {
      guest_copy(out + i, shadow + i, 8);  // one 8-byte load from the copy
      i += 8;
      continue;
    }
    if ((dirty >> i) & 1) out[i] = shadow[i];
    ++i;
  }
}

// Copies n (1..64) bytes with fixed-size moves, the last one overlapping the one before: only
// bytes of [dst, dst + n) are written (a write-back must not touch the bytes around a dirty run).
EMU_GUEST inline void copy_run(uint8_t* dst, const uint8_t* src, unsigned n) {
  auto two = [&](auto unit) EMU_GUEST {  // a lambda is a function of its own: marked too
    using U = decltype(unit);
    U a, b;
    std::memcpy(&a, src, sizeof(U));
    std::memcpy(&b, src + n - sizeof(U), sizeof(U));
    std::memcpy(dst, &a, sizeof(U));
    std::memcpy(dst + n - sizeof(U), &b, sizeof(U));
  };
  struct B16 { uint64_t x[2]; };
  struct B32 { uint64_t x[4]; };
  if (n >= 32) two(B32{});
  else if (n >= 16) two(B16{});
  else if (n >= 8) two(uint64_t{});
  else if (n >= 4) two(uint32_t{});
  else if (n >= 2) two(uint16_t{});
  else *dst = *src;
}

// Copies the bytes of `mask` (bit i = byte i) of a line from src to dst; `guest`: src is memory a
// host program may have mapped around a smaller object (guest_copy, out of AddressSanitizer's view).
EMU_GUEST void copy_masked(uint8_t* dst, const uint8_t* src, uint64_t mask, unsigned len, bool guest = false) {
  if (len < 64) mask &= (uint64_t{1} << len) - 1;
  if (mask == ~uint64_t{0}) {
    if (guest) guest_copy(dst, src, 64);
    else guest_move(dst, src, 64);
    return;
  }
  while (mask) {
    const unsigned b = static_cast<unsigned>(__builtin_ctzll(mask));
    const uint64_t rest = ~(mask >> b);
    const unsigned run = rest ? static_cast<unsigned>(__builtin_ctzll(rest)) : 64 - b;
    if (guest) guest_copy(dst + b, src + b, run);
    else copy_run(dst + b, src + b, run);
    mask &= run + b >= 64 ? (b ? (uint64_t{1} << b) - 1 : 0) : ~(((uint64_t{1} << run) - 1) << b);
  }
}

constexpr uint64_t kHeapState = 256 << 10;  // smaller state comes from the heap, larger is mapped

uint64_t npages(uint64_t size) { return (size + (uint64_t{1} << kPageShift) - 1) >> kPageShift; }

// The range's state in one block: line states, page states, the L2's copy (RW/NC).
uint64_t state_bytes(uint64_t size, bool cached) {
  const uint64_t nlines = (size + kLineBytes - 1) >> kLineShift;
  return (nlines * sizeof(LineState) + 63) / 64 * 64 + npages(size) * sizeof(PageState) + (cached ? nlines * kLineBytes : 0);
}

}  // namespace

const char* mtype_name(Mtype m) {
  switch (m) {
    case Mtype::UC: return "UC";
    case Mtype::CC: return "CC";
    case Mtype::RW: return "RW";
    case Mtype::NC: return "NC";
  }
  return "?";
}

CachedRange::CachedRange(uint64_t va, uint64_t sz, uint8_t* mem, Mtype m)
    : va_begin(va), size(sz), memory(mem), mtype(m) {
  const uint64_t bytes = state_bytes(sz, cached());
  void* block = bytes <= kHeapState ? std::calloc(1, bytes) : reserve(bytes);
  if (!block) return;
  auto* p = static_cast<uint8_t*>(block);
  lines = reinterpret_cast<LineState*>(p);
  p += (nlines() * sizeof(LineState) + 63) / 64 * 64;
  pages = reinterpret_cast<PageState*>(p);
  p += npages(sz) * sizeof(PageState);
  if (cached()) shadow = p;
}

CachedRange::~CachedRange() {
  const uint64_t bytes = state_bytes(size, cached());
  if (bytes <= kHeapState) std::free(lines);
  else release(lines, bytes);
}

GpuCache::GpuCache(CacheConfig c) : cfg_(std::move(c)), stripes_(new std::atomic_flag[kStripes]) {
  for (unsigned i = 0; i < kStripes; ++i) stripes_[i].clear();
  for (unsigned i = 0; i < kMaxCus; ++i) {
    l1s_[i].index = i;
    l1s_[i].bit = uint64_t{1} << i;
  }
}

GpuCache::~GpuCache() = default;

void GpuCache::trace(const char* fmt, ...) const {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "kfdemu: %s: %s\n", cfg_.label.c_str(), buf);
}

// ---- mappings -------------------------------------------------------------------------------

CachedRange* GpuCache::add(uint64_t va, uint64_t size, uint8_t* memory, Mtype m) {
  auto r = std::make_shared<CachedRange>(va, size, memory, m);
  if (!r->ok()) {
    std::fprintf(stderr, "kfdemu: %s: no memory for the cache model of [0x%llx, +0x%llx): that "
                 "mapping is not cached\n", cfg_.label.c_str(), static_cast<unsigned long long>(va),
                 static_cast<unsigned long long>(size));
    return nullptr;
  }
  std::unique_lock lk(ranges_mu_);
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), va,
                             [](const std::shared_ptr<CachedRange>& a, uint64_t v) { return a->va_begin < v; });
  ranges_.insert(it, r);
  return r.get();
}

void GpuCache::remove(CachedRange* r) {
  if (!r) return;
  std::shared_ptr<CachedRange> keep;
  {
    std::unique_lock lk(ranges_mu_);
    for (auto it = ranges_.begin(); it != ranges_.end(); ++it)
      if (it->get() == r) {
        keep = *it;
        ranges_.erase(it);
        break;
      }
  }
  {
    std::lock_guard lk(dirty_mu_);
    std::erase_if(dirty_pages_, [r](const auto& p) { return p.first == r; });
  }
  {
    std::lock_guard lk(resident_mu_);
    std::erase_if(resident_, [r](const auto& p) { return p.first == r; });
  }
  {
    std::lock_guard lk(writers_mu_);  // note_writer may hold r from the dirty list: it checks `removed`
    r->removed = true;
    std::erase_if(writers_, [r](const auto& w) { return w.first.first == r; });
  }
  std::unique_lock lk(ranges_mu_);
  if (keep && active_dispatches_.load() > 0) {
    retired_.push_back(std::move(keep));
    retired_any_.store(true);
  }
}

CachedRange* GpuCache::find(uint64_t va) {
  std::shared_lock lk(ranges_mu_);
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), va,
                             [](uint64_t v, const std::shared_ptr<CachedRange>& a) { return v < a->va_begin; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  return va - (*it)->va_begin < (*it)->size ? it->get() : nullptr;
}

void GpuCache::dispatch_begin() { active_dispatches_.fetch_add(1); }

// The last dispatch to end frees the ranges removed while dispatches ran. (A range retired just
// as the count reaches zero may wait for the next dispatch's end: kept longer, never too short.)
void GpuCache::dispatch_end() {
  if (active_dispatches_.fetch_sub(1) != 1 || !retired_any_.load()) return;
  std::unique_lock lk(ranges_mu_);
  if (active_dispatches_.load() == 0) {
    retired_.clear();
    retired_any_.store(false);
  }
}

// ---- lines ----------------------------------------------------------------------------------

static unsigned line_len(const CachedRange& r, uint64_t line) {
  const uint64_t off = line * kLineBytes;
  return static_cast<unsigned>(std::min<uint64_t>(kLineBytes, r.size - off));
}

void GpuCache::copy_clean(CachedRange& r, uint64_t line) {
  const uint64_t dirty = r.dirty(line);
  const uint64_t off = line * kLineBytes;
  copy_masked(r.shadow + off, r.memory + off, ~dirty, line_len(r, line), true);
}

uint32_t GpuCache::fill(CachedRange& r, uint64_t line) {
  LineState& s = r.lines[line];
  const uint32_t e = epoch();
  if (s.filled.load(std::memory_order_acquire) == e) return e;
  bool filled = false;
  lock(r, line);
  if (s.filled.load(std::memory_order_relaxed) != e) {
    copy_clean(r, line);
    s.filled.store(e, std::memory_order_release);
    filled = true;
  }
  unlock(r, line);
  if (filled && cfg_.l2_lines) resident_l2(r, line);
  return e;
}

void GpuCache::list_page(CachedRange& r, uint64_t page) {
  std::atomic<uint32_t>& listed = r.pages[page].listed;
  if (listed.load(std::memory_order_seq_cst) == 0 && listed.exchange(1, std::memory_order_seq_cst) == 0) {
    std::lock_guard lk(dirty_mu_);
    dirty_pages_.emplace_back(&r, page);
  }
}

// A line's dirty bytes, then its page's dirty-line bit, then the page on the dirty list, all under
// the page's lock, which a write-back holds while it copies a page's dirty lines and clears them;
// a page it unlisted is listed again here.
void GpuCache::mark_lines(CachedRange& r, const LineMask* lm, unsigned n) {
  for (unsigned i = 0; i < n;) {
    const uint64_t page = lm[i].line / kLinesPerPage;
    uint64_t fresh = 0;  // the page's lines that had no dirty bytes
    for (; i < n && lm[i].line / kLinesPerPage == page; ++i)
      if (mark_locked(r, lm[i].line, lm[i].mask)) fresh |= uint64_t{1} << (lm[i].line % kLinesPerPage);
    if (fresh) page_dirtied(r, page, fresh);
    if (fresh && cfg_.l2_lines) resident_lines(r, page, fresh);
  }
}

void GpuCache::lock_pages(const CachedRange& r, uint64_t first_page, uint64_t last_page, PageLocks& held) {
  held.n = 0;
  if (last_page < first_page || last_page - first_page >= kMaxLockedPages) {  // the callers' bound
    std::fprintf(stderr, "kfdemu: internal error: a store locks pages %llu..%llu (at most %u at once)\n",
                 static_cast<unsigned long long>(first_page), static_cast<unsigned long long>(last_page), kMaxLockedPages);
    std::abort();
  }
  for (uint64_t p = first_page; p <= last_page; ++p) {
    const unsigned s = stripe_of(r, p);
    unsigned at = held.n;  // ascending, each stripe once (two pages may share one)
    bool dup = false;
    for (unsigned i = 0; i < held.n; ++i) dup |= held.stripe[i] == s;
    if (dup) continue;
    while (at > 0 && held.stripe[at - 1] > s) {
      held.stripe[at] = held.stripe[at - 1];
      --at;
    }
    held.stripe[at] = s;
    ++held.n;
  }
  for (unsigned i = 0; i < held.n; ++i) lock_stripe(held.stripe[i]);
}

void GpuCache::unlock_pages(const PageLocks& held) {
  for (unsigned i = held.n; i-- > 0;) stripes_[held.stripe[i]].clear(std::memory_order_release);
}

void GpuCache::mark_run(CachedRange& r, uint64_t line, uint64_t n, uint64_t first, uint64_t mid, uint64_t last) {
  const uint64_t begin = line, end = line + n;
  auto mark = [](LineState& s, uint64_t m) {
    const uint64_t old = s.dirty.load(std::memory_order_relaxed);
    if ((old | m) != old) s.dirty.store(old | m, std::memory_order_release);
    return old == 0 && m != 0;
  };
  while (line < end) {
    const uint64_t page = line / kLinesPerPage, stop = std::min(end, (page + 1) * kLinesPerPage);
    uint64_t fresh = 0;
    uint64_t at = line;
    if (at == begin) fresh |= uint64_t{mark(r.lines[at], first)} << (at % kLinesPerPage), ++at;
    const uint64_t to = stop == end && end - begin > 1 ? stop - 1 : stop;  // the last line apart
    for (; at < to; ++at) fresh |= uint64_t{mark(r.lines[at], mid)} << (at % kLinesPerPage);
    if (at < stop) fresh |= uint64_t{mark(r.lines[at], last)} << (at % kLinesPerPage);
    if (fresh) page_dirtied(r, page, fresh);
    if (fresh && cfg_.l2_lines) resident_lines(r, page, fresh);
    line = stop;
  }
}

void GpuCache::page_dirtied(CachedRange& r, uint64_t page, uint64_t fresh) {
  r.pages[page].dirty_lines.fetch_or(fresh, std::memory_order_seq_cst);
  list_page(r, page);
}

void GpuCache::resident_lines(CachedRange& r, uint64_t page, uint64_t fresh) {
  std::lock_guard lk(resident_mu_);  // evicted by settle(): callers may hold a line lock
  for (; fresh; fresh &= fresh - 1)
    resident_.emplace_back(&r, page * kLinesPerPage + static_cast<unsigned>(__builtin_ctzll(fresh)));
}

// Whole lines: the page's `full` bits, then (for lines not full before) the dirty list, as
// mark_lines does for one line's bytes with the page's dirty_lines.
void GpuCache::mark_full(CachedRange& r, uint64_t line, uint64_t n) {
  if (cfg_.l2_lines) {  // capacity bookkeeping is per line
    for (uint64_t i = 0; i < n; ++i) mark_dirty(r, line + i, ~uint64_t{0});
    return;
  }
  while (n) {
    const uint64_t page = line / kLinesPerPage;
    const unsigned at = static_cast<unsigned>(line % kLinesPerPage);
    const uint64_t k = std::min<uint64_t>(n, kLinesPerPage - at);
    const uint64_t bits = (k == 64 ? ~uint64_t{0} : ((uint64_t{1} << k) - 1)) << at;
    PageState& ps = r.pages[page];
    const uint64_t added = bits & ~ps.full.fetch_or(bits, std::memory_order_seq_cst);
    if (added) list_page(r, page);
    line += k;
    n -= k;
  }
}

// The line's dirty bytes go to memory before they are clean: a load that finds them clean
// (without the lock) reads them from memory, which must not be older than what it read before.
uint64_t GpuCache::writeback_line(CachedRange& r, uint64_t line) {
  const uint64_t bit = uint64_t{1} << (line % kLinesPerPage);
  PageState& ps = r.page_of(line);
  const bool full = ps.full.load(std::memory_order_relaxed) & bit;
  const uint64_t x = r.lines[line].dirty.load(std::memory_order_relaxed) | (full ? ~uint64_t{0} : 0);
  if (!x) return 0;
  const uint64_t off = line * kLineBytes;
  copy_masked(r.memory + off, r.shadow + off, x, line_len(r, line));
  if (full) ps.full.fetch_and(~bit, std::memory_order_release);
  take_dirty(r, line);
  return static_cast<uint64_t>(__builtin_popcountll(x));
}

uint64_t GpuCache::clean_line(CachedRange& r, uint64_t line) {
  lock(r, line);
  const uint64_t n = writeback_line(r, line);
  unlock(r, line);
  return n;
}

void GpuCache::resident_l2(CachedRange& r, uint64_t line) {
  {
    std::lock_guard lk(resident_mu_);
    resident_.emplace_back(&r, line);
  }
  settle();
}

void GpuCache::settle() {
  if (!cfg_.l2_lines) return;
  std::vector<std::pair<CachedRange*, uint64_t>> victims;
  {
    std::lock_guard lk(resident_mu_);
    while (resident_.size() > cfg_.l2_lines) {
      victims.push_back(resident_.front());
      resident_.pop_front();
    }
  }
  for (auto [vr, vl] : victims) {  // the line leaves the L2: dirty bytes to memory, copy dropped
    lock(*vr, vl);
    const uint64_t n = writeback_line(*vr, vl);
    vr->lines[vl].filled.store(0, std::memory_order_release);
    unlock(*vr, vl);
    if (cfg_.trace && n)
      trace("L2 evicts line 0x%llx (%llu dirty bytes to memory)",
            static_cast<unsigned long long>(vr->va_begin + vl * kLineBytes), static_cast<unsigned long long>(n));
  }
}

// ---- the L2 view for engines inside the GPU --------------------------------------------------

void GpuCache::read(CachedRange& r, uint64_t va, void* dst, uint64_t n, bool allocate) {
  auto* out = static_cast<uint8_t*>(dst);
  uint64_t off = va - r.va_begin;
  if (!r.cached()) {
    guest_copy(out, r.memory + off, n);
    return;
  }
  while (n) {
    const uint64_t line = off >> kLineShift;
    const unsigned in = static_cast<unsigned>(off & (kLineBytes - 1));
    const unsigned len = static_cast<unsigned>(std::min<uint64_t>(n, kLineBytes - in));
    LineState& s = r.lines[line];
    if (r.mtype == Mtype::NC && allocate) fill(r, line);
    if (r.mtype == Mtype::NC && s.filled.load(std::memory_order_acquire) == epoch()) {
      guest_move(out, r.shadow + off, len);
    } else {  // dirty bytes from the L2, the others from memory
      const uint64_t piece = len >= 64 ? ~uint64_t{0} : ((uint64_t{1} << len) - 1);
      const uint64_t d = (r.dirty(line) >> in) & piece;
      if (d == 0 || d == piece) {  // one source: a racing store's bytes whole from either
        merge_line(out, r.memory + off, r.shadow + off, len, d);
      } else {  // some of a word may be dirty, the rest newer in a store under way: under the lock
        lock(r, line);
        merge_line(out, r.memory + off, r.shadow + off, len, r.dirty(line) >> in);
        unlock(r, line);
      }
    }
    out += len;
    off += len;
    n -= len;
  }
}

void GpuCache::write(CachedRange& r, uint64_t va, const void* src, uint64_t n) {
  auto* in_bytes = static_cast<const uint8_t*>(src);
  uint64_t off = va - r.va_begin;
  if (!r.cached()) {
    guest_move(r.memory + off, in_bytes, n);  // UC bypasses the L2, CC writes through
    return;
  }
  while (n) {
    const uint64_t line = off >> kLineShift;
    const unsigned in = static_cast<unsigned>(off & (kLineBytes - 1));
    const unsigned len = static_cast<unsigned>(std::min<uint64_t>(n, kLineBytes - in));
    const uint64_t mask = (len == 64 ? ~uint64_t{0} : ((uint64_t{1} << len) - 1)) << in;
    if (r.mtype == Mtype::NC) fill(r, line);  // write-allocate
    lock(r, line);  // written and marked at once (lock_pages)
    guest_move(r.shadow + off, in_bytes, len);
    mark_dirty(r, line, mask);
    unlock(r, line);
    in_bytes += len;
    off += len;
    n -= len;
  }
  settle();
}

// ---- fences ---------------------------------------------------------------------------------

CacheAction GpuCache::writeback(uint64_t va, uint64_t size, bool nc_only) {
  // A write-back ends when every line dirty at its start is in memory. Two at once (the ends of
  // two dispatches, a CP release during a dispatch's end) must not split the dirty list between
  // them: the one that found the list empty would return while the other still copies lines its
  // caller needs in memory (seen as lines of zeros a host read after the kernel's completion).
  std::lock_guard serial(writeback_mu_);
  std::vector<std::pair<CachedRange*, uint64_t>> pages, keep;
  {
    std::lock_guard lk(dirty_mu_);
    if (dirty_pages_.empty()) return {};  // (most CP releases: no write-back in flight, nothing dirty)
    pages.swap(dirty_pages_);
  }
  const uint64_t end = size > ~va ? ~uint64_t{0} : va + size;
  CacheAction a;
  for (auto [r, page] : pages) {
    const uint64_t first = page * kLinesPerPage;
    const uint64_t last = std::min<uint64_t>(first + kLinesPerPage, r->nlines());
    if ((nc_only && r->mtype != Mtype::NC) || r->va_begin + first * kLineBytes >= end ||
        r->va_begin + last * kLineBytes <= va) {
      keep.emplace_back(r, page);
      continue;
    }
    PageState& ps = r->pages[page];
    lock(*r, first);  // (stores mark lines under it)
    ps.listed.store(0, std::memory_order_seq_cst);
    const uint64_t partial = ps.dirty_lines.load(std::memory_order_relaxed);
    const uint64_t full = ps.full.load(std::memory_order_relaxed);
    uint64_t take = ~uint64_t{0};  // lines inside [va, end)
    if (r->va_begin + first * kLineBytes < va || r->va_begin + last * kLineBytes > end) {
      take = 0;
      for (uint64_t b = partial | full; b; b &= b - 1) {
        const uint64_t lva = r->va_begin + (first + static_cast<unsigned>(__builtin_ctzll(b))) * kLineBytes;
        if (lva < end && lva + kLineBytes > va) take |= b & -b;  // else outside the range: stays dirty
      }
    }
    const CacheAction p = writeback_page(*r, page, partial & take, full & take);
    a.lines += p.lines;
    a.bytes += p.bytes;
    if (((partial | full) & ~take) && ps.listed.exchange(1, std::memory_order_seq_cst) == 0) keep.emplace_back(r, page);
    unlock(*r, first);
  }
  if (!keep.empty()) {
    std::lock_guard lk(dirty_mu_);
    dirty_pages_.insert(dirty_pages_.end(), keep.begin(), keep.end());
  }
  return a;
}

// The dirty bytes of the page's lines in `lines` (bit per line) to memory, whole-line runs in one
// copy; then (a load that finds a line clean reads memory) they are clean.
CacheAction GpuCache::writeback_page(CachedRange& r, uint64_t page, uint64_t partial, uint64_t full) {
  CacheAction a;
  if (!(partial | full)) return a;
  const uint64_t first = page * kLinesPerPage;
  uint64_t run_from = 0, run_n = 0;  // a run of whole dirty lines, copied at once
  auto flush = [&] {
    if (run_n) guest_move(r.memory + run_from * kLineBytes, r.shadow + run_from * kLineBytes,
                           std::min<uint64_t>(run_n * kLineBytes, r.size - run_from * kLineBytes));
    run_n = 0;
  };
  for (uint64_t b = partial | full; b; b &= b - 1) {
    const unsigned i = static_cast<unsigned>(__builtin_ctzll(b));
    const uint64_t line = first + i;
    uint64_t x = ((partial >> i) & 1) ? r.lines[line].dirty.load(std::memory_order_relaxed) : 0;
    if ((full >> i) & 1) x = ~uint64_t{0};
    if (!x) continue;
    const unsigned len = line_len(r, line);
    a.lines += 1;
    a.bytes += static_cast<uint64_t>(__builtin_popcountll(len < 64 ? x & ((uint64_t{1} << len) - 1) : x));
    if (x == ~uint64_t{0}) {
      if (run_n && run_from + run_n != line) flush();
      if (!run_n) run_from = line;
      ++run_n;
      continue;
    }
    flush();
    const uint64_t off = line * kLineBytes;
    copy_masked(r.memory + off, r.shadow + off, x, len);
  }
  flush();
  PageState& ps = r.pages[page];
  if (full) ps.full.fetch_and(~full, std::memory_order_release);
  if (partial) ps.dirty_lines.fetch_and(~partial, std::memory_order_release);
  // (a full line's LineState may hold bytes too, from a partial store before it)
  for (uint64_t b = partial | full; b; b &= b - 1) take_dirty(r, first + static_cast<unsigned>(__builtin_ctzll(b)));
  return a;
}

void GpuCache::invalidate(uint64_t va, uint64_t size) {
  if (va == 0 && size == ~uint64_t{0}) {  // every NC line: a new epoch (0 is never one)
    if (epoch_.fetch_add(1, std::memory_order_acq_rel) + 1 == 0) epoch_.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  const uint64_t end = size > ~va ? ~uint64_t{0} : va + size;
  std::shared_lock lk(ranges_mu_);
  for (auto& r : ranges_) {
    if (r->mtype != Mtype::NC || r->va_begin >= end || r->va_begin + r->size <= va) continue;
    const uint64_t lo = va > r->va_begin ? (va - r->va_begin) >> kLineShift : 0;
    const uint64_t hi = std::min(r->nlines(),
                                 end - r->va_begin > r->size ? ~uint64_t{0} : ((end - r->va_begin + kLineBytes - 1) >> kLineShift));
    for (uint64_t line = lo; line < hi; ++line)
      if (r->lines[line].filled.load(std::memory_order_relaxed)) r->lines[line].filled.store(0, std::memory_order_release);
  }
}

// ---- who wrote the dirty lines (KFDEMU_REPORT_STALE) ----------------------------------------

template <class F>
void GpuCache::for_each_dirty(F&& f) {
  std::lock_guard lk(dirty_mu_);
  for (auto [r, page] : dirty_pages_) {
    const PageState& ps = r->pages[page];
    for (uint64_t b = ps.dirty_lines.load(std::memory_order_acquire) | ps.full.load(std::memory_order_acquire); b;
         b &= b - 1) {
      const uint64_t line = page * kLinesPerPage + static_cast<unsigned>(__builtin_ctzll(b));
      if (line < r->nlines() && r->dirty(line)) f(*r, line);
    }
  }
}

void GpuCache::note_writer(const std::string& kernel) {
  auto name = std::make_shared<const std::string>(kernel);
  std::vector<std::pair<CachedRange*, uint64_t>> now;
  for_each_dirty([&](CachedRange& r, uint64_t line) { now.emplace_back(&r, line); });
  std::lock_guard lk(writers_mu_);
  // Lines written back since they were noted lose their writer (remove() drops a range's first).
  std::erase_if(writers_, [](const auto& w) { return w.first.first->dirty(w.first.second) == 0; });
  for (const auto& key : now)
    if (!key.first->removed) writers_.try_emplace(key, name);  // (a removed range is alive until dispatch_end)
}

std::vector<GpuCache::DirtyLine> GpuCache::dirty_now(size_t max) {
  std::vector<DirtyLine> out;
  for_each_dirty([&](CachedRange& r, uint64_t line) {
    if (out.size() < max) out.push_back({&r, line, nullptr});
  });
  std::lock_guard lk(writers_mu_);
  for (DirtyLine& d : out)
    if (auto it = writers_.find({d.range, d.line}); it != writers_.end()) d.writer = it->second;
  return out;
}

}  // namespace emu::shader
