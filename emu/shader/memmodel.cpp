// SPDX-License-Identifier: MIT
// A wave's global memory accesses through the L1 and L2 of the memory model, and the cache instructions.
#include "emu/shader/memmodel.h"

#include "emu/shader/guest.h"
#include "emu/shader/valu.h"

#include <cstdio>

namespace emu::shader {

namespace {

bool is_gfx942(const Wave& w) { return w.group->ctx->target == Target::gfx942; }

// Loads that bypass the vector L1: glc on gfx90a (AMDGPUUsage: "buffer/global/flat_load glc=1"
// for agent and system scope); sc0 or sc1 on gfx942.
bool l1_bypass(const Wave& w, uint16_t flags) {
  return (flags & kGlc) || (is_gfx942(w) && (flags & kScc));
}
// gfx942 stores and atomics with sc1 (system scope) write through to memory.
bool write_through(const Wave& w, uint16_t flags) { return is_gfx942(w) && (flags & kScc); }

uint64_t bytes_mask(unsigned in, unsigned len) {
  return (len >= 64 ? ~uint64_t{0} : ((uint64_t{1} << len) - 1)) << in;
}

void note_stale(Wave& w, uint64_t va, uint8_t level) {
  DispatchCtx& ctx = *w.group->ctx;
  std::lock_guard lk(ctx.report_mu);
  ++ctx.report.stale_loads;
  if (ctx.report.first.size() >= 8) return;
  for (const auto& s : ctx.report.first)  // one address per line
    if ((s.va >> kLineShift) == (va >> kLineShift) && s.level == level) return;
  ctx.report.first.push_back({va, w.pc - 8, level});  // vector memory instructions are 8 bytes
}

// Whether bytes a load returned differ from memory's where the L2 holds no dirty byte (guest.h).
EMU_GUEST bool clean_differ(const uint8_t* got, const uint8_t* memory, unsigned n, uint64_t dirty) {
  for (unsigned i = 0; i < n; ++i)
    if (!((dirty >> i) & 1) && got[i] != memory[i]) return true;
  return false;
}

// One line's piece of a lane load [va, va+n) (n within the line).
void read_piece(Wave& w, GpuCache& c, CachedRange& cr, uint64_t va, uint8_t* dst, unsigned n, bool l1_ok) {
  const uint64_t off = va - cr.va_begin;
  const uint64_t line = off >> kLineShift;
  const unsigned in = static_cast<unsigned>(off & (kLineBytes - 1));
  const bool report = c.config().report_stale;
  L1* l1 = l1_ok ? w.group->l1 : nullptr;
  if (l1 && (c.l1_page(*l1, cr, line / kLinesPerPage) || !cr.cached()) && c.l1_copy(*l1, cr, line)) {
    c.l1_copy_read(*l1, cr, line, in, dst, n);
    if (report) {
      uint8_t now[kLineBytes];
      c.read(cr, va, now, n, true);
      if (std::memcmp(now, dst, n) != 0) note_stale(w, va, 1);
    }
    return;
  }
  c.read(cr, va, dst, n, true);
  // Clean bytes the L2 kept that memory has changed since.
  if (report && cr.mtype == Mtype::NC && clean_differ(dst, cr.memory + off, n, cr.dirty(line) >> in)) note_stale(w, va, 2);
}

void write_back_line(GpuCache& c, CachedRange& cr, uint64_t line) { (void)c.clean_line(cr, line); }

}  // namespace

const Range* mem_range(Wave& w, uint64_t va, uint64_t size, bool write, bool* spans) {
  *spans = false;
  for (const Range& r : w.cache)
    if (va >= r.begin && va + size <= r.end && va + size >= va && (!write || r.writable)) return &r;
  if (!mem_slow(w, va, size, write)) return nullptr;  // fault recorded
  for (const Range& r : w.cache)
    if (va >= r.begin && va + size <= r.end && va + size >= va && (!write || r.writable)) return &r;
  *spans = true;  // mapped, but by more than one mapping
  return nullptr;
}

bool model_read(Wave& w, const Range& r, uint64_t va, void* dst, unsigned n, uint16_t flags) {
  GpuCache& c = *w.group->ctx->cache;
  auto* out = static_cast<uint8_t*>(dst);
  const bool l1_ok = !l1_bypass(w, flags);
  while (n) {
    const unsigned len = std::min<unsigned>(n, static_cast<unsigned>(kLineBytes - ((va - r.begin) & (kLineBytes - 1))));
    read_piece(w, c, *r.cache, va, out, len, l1_ok);
    va += len;
    out += len;
    n -= len;
  }
  return true;
}

bool model_write(Wave& w, const Range& r, uint64_t va, const void* src, unsigned n, uint16_t flags) {
  GpuCache& c = *w.group->ctx->cache;
  CachedRange& cr = *r.cache;
  auto* in_bytes = static_cast<const uint8_t*>(src);
  while (n) {
    const uint64_t off = va - cr.va_begin;
    const uint64_t line = off >> kLineShift;
    const unsigned in = static_cast<unsigned>(off & (kLineBytes - 1));
    const unsigned len = std::min<unsigned>(n, static_cast<unsigned>(kLineBytes - in));
    const bool own = c.l1_store(w.group->l1, cr, line);
    c.write(cr, va, in_bytes, len);
    if (own) c.l1_copy_write(*w.group->l1, cr, line, in, in_bytes, len);
    if (write_through(w, flags) && cr.cached()) write_back_line(c, cr, line);
    va += len;
    in_bytes += len;
    n -= len;
  }
  return true;
}

void model_atomic(Wave& w, const Range& r, uint64_t va, unsigned bytes, AtomicOp op, uint64_t v,
                  uint64_t cmp, uint64_t* old, uint16_t flags) {
  GpuCache& c = *w.group->ctx->cache;
  CachedRange& cr = *r.cache;
  const uint64_t off = va - cr.va_begin;
  const uint64_t line = off >> kLineShift;
  const unsigned in = static_cast<unsigned>(off & (kLineBytes - 1));
  const bool own = c.l1_store(w.group->l1, cr, line);
  uint8_t now[8];
  if (in + bytes > kLineBytes) {  // misaligned across lines: not atomic (the ISA requires alignment)
    uint64_t cur = 0;
    c.read(cr, va, &cur, bytes, true);
    *old = bytes == 8 ? rmw64(op, &cur, v, cmp) : rmw32(op, reinterpret_cast<uint32_t*>(&cur), uint32_t(v), uint32_t(cmp));
    c.write(cr, va, &cur, bytes);
    std::memcpy(now, &cur, bytes);
  } else {
    c.update(cr, va, bytes, [&](uint8_t* p) EMU_GUEST {  // the L2's copy (or memory): guest bytes
      *old = bytes == 8 ? atomic64(op, reinterpret_cast<uint64_t*>(p), v, cmp)
                        : atomic32(op, reinterpret_cast<uint32_t*>(p), uint32_t(v), uint32_t(cmp));
      if (bytes == 8) std::memcpy(now, p, 8);
      else std::memcpy(now, p, 4);
    });
  }
  if (own) c.l1_copy_write(*w.group->l1, cr, line, in, now, std::min<unsigned>(bytes, kLineBytes - in));
  if (write_through(w, flags) && cr.cached()) write_back_line(c, cr, line);
}

bool model_atomic_wave(Wave& w, const Range& r, const uint64_t* addr, uint64_t ex, unsigned bytes, AtomicOp op,
                       const uint64_t* v, const uint64_t* cmp, uint64_t* old, uint16_t flags) {
  GpuCache& c = *w.group->ctx->cache;
  CachedRange& cr = *r.cache;
  for (uint64_t m = ex; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    if (((addr[l] - cr.va_begin) & (kLineBytes - 1)) + bytes > kLineBytes) return false;
  }
  const uint64_t lane_bytes = bytes == 8 ? 0xff : 0xf;
  const bool shadow = cr.cached();  // update_line gives the L2's copy, else memory
  L1* l1 = w.group->l1;
  for (uint64_t m = ex; m;) {
    const uint64_t line = (addr[std::countr_zero(m)] - cr.va_begin) >> kLineShift;
    uint64_t run = 0, mask = 0;  // the lanes from here on in this line, and their bytes
    for (uint64_t k = m; k; k &= k - 1) {
      const unsigned l = static_cast<unsigned>(std::countr_zero(k));
      const uint64_t off = addr[l] - cr.va_begin;
      if (off >> kLineShift != line) break;
      run |= uint64_t{1} << l;
      mask |= lane_bytes << (off & (kLineBytes - 1));
    }
    m &= ~run;
    const bool own = c.l1_store(l1, cr, line);
    uint64_t now[64];  // own: each lane's bytes after its operation, for this CU's L1 copy
    c.update_line(cr, line, mask, [&](uint8_t* base) EMU_GUEST {  // the L2's copy (or memory): guest bytes
      for (uint64_t k = run; k; k &= k - 1) {
        const unsigned l = static_cast<unsigned>(std::countr_zero(k));
        uint8_t* p = base + ((addr[l] - cr.va_begin) & (kLineBytes - 1));
        // The L2's copy changes only under the line's lock (no locked instruction needed);
        // memory (UC/CC) is shared with the host's and other agents' atomics.
        if (bytes == 8) {
          old[l] = shadow ? rmw64(op, reinterpret_cast<uint64_t*>(p), v[l], cmp[l])
                          : atomic64(op, reinterpret_cast<uint64_t*>(p), v[l], cmp[l]);
          if (own) std::memcpy(&now[l], p, 8);
        } else {
          old[l] = shadow ? rmw32(op, reinterpret_cast<uint32_t*>(p), uint32_t(v[l]), uint32_t(cmp[l]))
                          : atomic32(op, reinterpret_cast<uint32_t*>(p), uint32_t(v[l]), uint32_t(cmp[l]));
          if (own) std::memcpy(&now[l], p, 4);
        }
      }
    });
    if (own)  // (lanes of one address in turn: the last one's bytes stay)
      for (uint64_t k = run; k; k &= k - 1) {
        const unsigned l = static_cast<unsigned>(std::countr_zero(k));
        const unsigned in = static_cast<unsigned>((addr[l] - cr.va_begin) & (kLineBytes - 1));
        c.l1_copy_write(*l1, cr, line, in, &now[l], bytes);
      }
    if (write_through(w, flags) && cr.cached()) write_back_line(c, cr, line);
  }
  return true;
}

// ---- whole-wave fast paths ------------------------------------------------------------------

namespace {

// Where the lanes' loads read from, line by line, with the line's page looked at once.
class LoadSource {
 public:
  LoadSource(GpuCache& c, CachedRange& cr, L1* l1) : c_(c), cr_(cr), l1_(l1) {}
  // memory or the L2's copy; nullptr: the per-lane path (a private L1 copy, a partly dirty line).
  const uint8_t* base(uint64_t line) {
    const uint64_t page = line / kLinesPerPage;
    if (page != page_) {
      page_ = page;
      copies_ = l1_ && c_.l1_page(*l1_, cr_, page);
      dirty_ = cr_.mtype == Mtype::RW ? cr_.pages[page].dirty_lines.load(std::memory_order_acquire) |
                                            cr_.pages[page].full.load(std::memory_order_acquire)
                                      : 0;
    }
    if (l1_ && (copies_ || !cr_.cached()) && c_.l1_copy(*l1_, cr_, line)) return nullptr;
    switch (cr_.mtype) {
      case Mtype::UC:
      case Mtype::CC: return cr_.memory;
      case Mtype::RW: {
        if (!((dirty_ >> (line % kLinesPerPage)) & 1)) return cr_.memory;
        const uint64_t d = cr_.dirty(line);
        return d == 0 ? cr_.memory : d == ~uint64_t{0} ? cr_.shadow : nullptr;
      }
      case Mtype::NC: c_.fill(cr_, line); return cr_.shadow;
    }
    return nullptr;
  }

 private:
  GpuCache& c_;
  CachedRange& cr_;
  L1* l1_;
  uint64_t page_ = ~uint64_t{0};
  bool copies_ = false;
  uint64_t dirty_ = 0;
};

}  // namespace

namespace {

constexpr uint64_t kSpanLines = 16;  // a wider lane spread resolves lane by lane

// Whether the 64 lanes (all active) access consecutive `bytes`-sized pieces from addr[0].
bool consecutive(const WaveAccess& a) {
  if (a.ex != ~uint64_t{0}) return false;
  bool ok = true;
  VLOOP ok &= a.addr[l] == a.addr[0] + uint64_t{l} * a.bytes;
  return ok;
}

}  // namespace

bool model_load_ptrs(Wave& w, const Range& r, const WaveAccess& a, uint16_t flags, uint8_t** ptrs) {
  GpuCache& c = *w.group->ctx->cache;
  if (c.config().report_stale) return false;  // checked lane by lane
  CachedRange& cr = *r.cache;
  LoadSource src(c, cr, l1_bypass(w, flags) ? nullptr : w.group->l1);
  const uint64_t first = (a.lo - cr.va_begin) >> kLineShift, last = (a.hi + a.bytes - 1 - cr.va_begin) >> kLineShift;
  if (last - first < kSpanLines) {  // the usual case: every line from the same place
    const uint8_t* base = src.base(first);
    for (uint64_t line = first + 1; base && line <= last; ++line)
      if (src.base(line) != base) base = nullptr;
    if (base) {
      const uintptr_t b = reinterpret_cast<uintptr_t>(base) - cr.va_begin;  // inactive lanes: unused
      VLOOP ptrs[l] = reinterpret_cast<uint8_t*>(b + a.addr[l]);
      return true;
    }
  }
  uint64_t at = ~uint64_t{0};
  const uint8_t* base = nullptr;
  for (unsigned l = 0; l < 64; ++l) {
    if (!((a.ex >> l) & 1)) continue;
    const uint64_t off = a.addr[l] - cr.va_begin;
    const uint64_t line = off >> kLineShift, end_line = (off + a.bytes - 1) >> kLineShift;
    if (line != at) {
      base = src.base(line);
      if (!base) return false;
      at = line;
    }
    if (end_line != line) {
      if (src.base(end_line) != base) return false;
      at = end_line;
    }
    ptrs[l] = const_cast<uint8_t*>(base) + off;
  }
  return true;
}

const uint8_t* model_load_block(Wave& w, const Range& r, uint64_t va, unsigned n, uint16_t flags, uint8_t* staging) {
  GpuCache& c = *w.group->ctx->cache;
  if (c.config().report_stale) return nullptr;  // checked lane by lane
  CachedRange& cr = *r.cache;
  const bool l1_ok = !l1_bypass(w, flags);
  LoadSource src(c, cr, l1_ok ? w.group->l1 : nullptr);
  const uint64_t off = va - cr.va_begin, first = off >> kLineShift, last = (off + n - 1) >> kLineShift;
  const uint8_t* base = src.base(first);
  for (uint64_t line = first + 1; base && line <= last; ++line)
    if (src.base(line) != base) base = nullptr;
  if (base) return base + off;
  if (!staging) return nullptr;
  for (uint64_t at = off, end = off + n; at < end;) {  // line by line: mixed sources
    const uint64_t line = at >> kLineShift;
    const unsigned len = static_cast<unsigned>(std::min<uint64_t>(end, (line + 1) << kLineShift) - at);
    if (const uint8_t* b = src.base(line)) guest_move(staging + (at - off), b + at, len);
    else read_piece(w, c, cr, cr.va_begin + at, staging + (at - off), len, l1_ok);
    at += len;
  }
  return staging;
}

uint8_t* model_store_begin(Wave& w, const Range& r, uint64_t va, unsigned n, BlockStore& b) {
  CachedRange& cr = *r.cache;
  if (cr.mtype != Mtype::RW) return nullptr;  // NC lines are filled and checked for racing invalidates one by one
  GpuCache& c = *w.group->ctx->cache;
  b.off = va - cr.va_begin;
  b.n = n;
  b.own = 0;  // lines our L1 holds a copy of (updated after the store: write-through)
  const uint64_t first = b.off >> kLineShift, last = (b.off + n - 1) >> kLineShift;
  for (uint64_t line = first; line <= last; ++line)
    if (c.l1_store(w.group->l1, cr, line)) b.own |= 1u << (line - first);
  c.lock_pages(cr, first / kLinesPerPage, last / kLinesPerPage, b.held);  // until model_store_end
  return cr.shadow + b.off;
}

void model_store_end(Wave& w, const Range& r, const BlockStore& b, uint16_t flags) {
  CachedRange& cr = *r.cache;
  GpuCache& c = *w.group->ctx->cache;
  const uint64_t off = b.off, end = off + b.n, first = off >> kLineShift, last = (end - 1) >> kLineShift;
  const uint64_t full_from = (off + kLineBytes - 1) >> kLineShift, full_to = end >> kLineShift;
  if (full_from > full_to) {  // inside one line
    c.mark_dirty(cr, first, bytes_mask(unsigned(off & (kLineBytes - 1)), b.n));
  } else {
    if (off & (kLineBytes - 1))
      c.mark_dirty(cr, first, bytes_mask(unsigned(off & (kLineBytes - 1)), unsigned(kLineBytes - (off & (kLineBytes - 1)))));
    if (full_to > full_from) c.mark_full(cr, full_from, full_to - full_from);
    if (end & (kLineBytes - 1)) c.mark_dirty(cr, last, bytes_mask(0, unsigned(end & (kLineBytes - 1))));
  }
  c.unlock_pages(b.held);
  c.settle();
  if (write_through(w, flags))
    for (uint64_t line = first; line <= last; ++line) write_back_line(c, cr, line);
  for (uint32_t m = b.own; m; m &= m - 1) {
    const uint64_t line = first + static_cast<unsigned>(std::countr_zero(m));
    const uint64_t from = std::max(off, line << kLineShift), to = std::min(end, (line + 1) << kLineShift);
    c.l1_copy_write(*w.group->l1, cr, line, unsigned(from & (kLineBytes - 1)), cr.shadow + from, unsigned(to - from));
  }
}

void model_store_block(Wave& w, const Range& r, uint64_t va, const uint8_t* src, unsigned n, uint16_t flags) {
  BlockStore b;
  uint8_t* dst = model_store_begin(w, r, va, n, b);
  if (!dst) {
    model_write(w, r, va, src, n, flags);
    return;
  }
  guest_move(dst, src, n);
  model_store_end(w, r, b, flags);
}

namespace {

// dst + stride * l <- lane l's `bytes` at src + bytes * l (fixed-size copies for the usual sizes).
template <unsigned B>
EMU_GUEST void scatter_fixed(uint8_t* dst, unsigned stride, const uint8_t* src) {
#pragma GCC unroll 8
  for (unsigned l = 0; l < 64; ++l) std::memcpy(dst + uint64_t{stride} * l, src + B * l, B);
}
EMU_GUEST void scatter_lanes(uint8_t* dst, unsigned stride, const uint8_t* src, unsigned bytes) {
  switch (bytes) {
    case 4: return scatter_fixed<4>(dst, stride, src);
    case 8: return scatter_fixed<8>(dst, stride, src);
    case 16: return scatter_fixed<16>(dst, stride, src);
    default:
      for (unsigned l = 0; l < 64; ++l) guest_copy(dst + uint64_t{stride} * l, src + bytes * l, bytes);
  }
}

}  // namespace

namespace {

// The bytes each of the n lines from `first` gets from a strided store (lane l's `bytes` at `off`
// + stride * l; stride > bytes, so no line is whole): when the stride divides a line and no lane
// crosses one, every line gets the same pattern (the first and last only from the first lane
// and up to the last); else lane by lane.
// Returns whether the pattern applies (first / mid / last then hold the first line's, the middle
// lines' and the last line's bytes); else lm holds every line's.
bool strided_masks(uint64_t off, unsigned stride, unsigned bytes, uint64_t first, uint64_t n, GpuCache::LineMask* lm,
                   uint64_t m[3]) {
  const uint64_t rel = off - (first << kLineShift);  // the first lane's byte in the first line
  if (kLineBytes % stride == 0 && rel % stride + bytes <= stride) {
    uint64_t pattern = 0;
    for (unsigned at = static_cast<unsigned>(rel % stride); at < kLineBytes; at += stride) pattern |= bytes_mask(at, bytes);
    const uint64_t end = rel + uint64_t{63} * stride + bytes - ((n - 1) << kLineShift);  // in the last line: 1..64
    const uint64_t tail = end < kLineBytes ? (uint64_t{1} << end) - 1 : ~uint64_t{0};
    m[0] = pattern & (~uint64_t{0} << rel);  // lanes before the first one start below rel and end by it
    if (n == 1) m[0] &= tail;
    m[1] = pattern;
    m[2] = pattern & tail;
    return true;
  }
  m[0] = m[1] = m[2] = 0;
  for (uint64_t i = 0; i < n; ++i) lm[i] = {first + i, 0};
  for (unsigned l = 0; l < 64; ++l) {
    const uint64_t at = rel + uint64_t{stride} * l;
    const unsigned in = static_cast<unsigned>(at & (kLineBytes - 1)), head = std::min<unsigned>(bytes, unsigned(kLineBytes) - in);
    lm[at >> kLineShift].mask |= bytes_mask(in, head);
    if (head < bytes) lm[(at >> kLineShift) + 1].mask |= bytes_mask(0, bytes - head);
  }
  return false;
}

// Other L1s holding the lines' pages take their copies before the store; the lines whose copy
// our L1 holds (write-through: updated after it) are set in `own`. Pages nobody else reads and
// our L1 holds no copy in are passed over whole.
bool store_copies(GpuCache& c, L1* l1, CachedRange& cr, uint64_t first, uint64_t n, const GpuCache::LineMask* lm,
                  uint64_t* own) {  // lm nullptr: every line gets bytes
  bool any = false;
  const uint64_t mine = l1 ? l1->bit : 0;
  for (uint64_t i = 0; i < n;) {
    const uint64_t page = (first + i) / kLinesPerPage;
    const uint64_t stop = std::min(n, (page + 1) * kLinesPerPage - first);
    const PageState& p = cr.pages[page];
    if (!(p.readers.load(std::memory_order_acquire) & ~mine) && !(p.copies.load(std::memory_order_acquire) & mine)) {
      i = stop;
      continue;
    }
    for (; i < stop; ++i)
      if ((!lm || lm[i].mask) && c.l1_store(l1, cr, first + i)) {
        own[i / 64] |= uint64_t{1} << (i % 64);
        any = true;
      }
  }
  return any;
}

}  // namespace

void model_store_strided(Wave& w, const Range& r, uint64_t va, unsigned stride, const uint8_t* src, unsigned bytes,
                         uint16_t flags) {
  CachedRange& cr = *r.cache;
  if (cr.mtype != Mtype::RW) {  // lane by lane as model_write does
    for (unsigned l = 0; l < 64; ++l) model_write(w, r, va + uint64_t{stride} * l, src + bytes * l, bytes, flags);
    return;
  }
  GpuCache& c = *w.group->ctx->cache;
  L1* l1 = w.group->l1;
  const uint64_t off = va - cr.va_begin, first = off >> kLineShift;
  const uint64_t n = (off + uint64_t{63} * stride + bytes - 1 - (first << kLineShift)) / kLineBytes + 1;
  GpuCache::LineMask lm[kMaxStridedLines];
  uint64_t m[3];
  const bool uniform = strided_masks(off, stride, bytes, first, n, lm, m);
  uint64_t own[(kMaxStridedLines + 63) / 64] = {};  // lines our L1 holds a copy of (write-through)
  const bool any = store_copies(c, l1, cr, first, n, uniform ? nullptr : lm, own);
  GpuCache::PageLocks held;  // (kMaxStridedLines lines: at most three pages)
  c.lock_pages(cr, first / kLinesPerPage, (first + n - 1) / kLinesPerPage, held);
  scatter_lanes(cr.shadow + off, stride, src, bytes);
  if (uniform) c.mark_run(cr, first, n, m[0], m[1], m[2]);
  else c.mark_lines(cr, lm, static_cast<unsigned>(n));
  c.unlock_pages(held);
  c.settle();
  if (write_through(w, flags))
    for (uint64_t i = 0; i < n; ++i)
      if (uniform || lm[i].mask) write_back_line(c, cr, first + i);
  for (unsigned l = 0; any && l < 64; ++l) {  // lane by lane: the copies take contiguous pieces
    const uint64_t at = off + uint64_t{stride} * l;
    for (unsigned done = 0; done < bytes;) {
      const uint64_t line = (at + done) >> kLineShift, i = line - first;
      const unsigned in = static_cast<unsigned>((at + done) & (kLineBytes - 1));
      const unsigned len = std::min<unsigned>(bytes - done, unsigned(kLineBytes) - in);
      if ((own[i / 64] >> (i % 64)) & 1) c.l1_copy_write(*l1, cr, line, in, src + bytes * l + done, len);
      done += len;
    }
  }
}

bool model_store_ptrs(Wave& w, const Range& r, const WaveAccess& a, uint16_t /*flags*/, uint8_t** ptrs,
                      StoreLines& sl) {
  GpuCache& c = *w.group->ctx->cache;
  CachedRange& cr = *r.cache;
  L1* l1 = w.group->l1;
  uint8_t* base = cr.cached() ? cr.shadow : cr.memory;
  sl.n = 0;
  sl.runs = 0;
  auto add = [&](uint64_t line, uint64_t mask) {
    if (sl.n > sl.run[sl.runs - 1].from && sl.e[sl.n - 1].line == line) {  // (within the run)
      sl.e[sl.n - 1].mask |= mask;
      return true;
    }
    if (c.l1_store(l1, cr, line)) return false;  // our L1 holds a copy: the per-lane path updates it
    if (sl.n == std::size(sl.e)) return false;
    if (cr.mtype == Mtype::NC) c.fill(cr, line);  // write-allocate: the line's other bytes, maybe stale
    sl.e[sl.n++] = {line, mask};
    return true;
  };
  // A run of lanes: those from lane l on whose bytes lie in the pages [p0, p1].
  auto start_run = [&](uint64_t p0, uint64_t p1) {
    sl.run[sl.runs++] = {0, p0, p1, sl.n, sl.n};
  };
  auto page_of = [](uint64_t off) { return off >> (kLineShift + 6); };
  static_assert(kLinesPerPage == 64);
  if (consecutive(a)) {  // the bytes [lo, hi + bytes) exactly (at most 1 KiB: two pages)
    const uint64_t off = a.lo - cr.va_begin, end = a.hi + a.bytes - cr.va_begin;
    start_run(page_of(off), page_of(end - 1));
    sl.run[0].lanes = a.ex;
    for (uint64_t line = off >> kLineShift; line << kLineShift < end; ++line) {
      const uint64_t from = std::max(off, line << kLineShift), to = std::min(end, (line + 1) << kLineShift);
      if (!add(line, bytes_mask(unsigned(from & (kLineBytes - 1)), unsigned(to - from)))) return false;
    }
    sl.run[0].to = sl.n;
    const uintptr_t b = reinterpret_cast<uintptr_t>(base) - cr.va_begin;
    VLOOP ptrs[l] = reinterpret_cast<uint8_t*>(b + a.addr[l]);
    return true;
  }
  for (unsigned l = 0; l < 64; ++l) {
    if (!((a.ex >> l) & 1)) continue;
    const uint64_t off = a.addr[l] - cr.va_begin;
    const uint64_t p0 = page_of(off), p1 = page_of(off + a.bytes - 1);
    if (!sl.runs || p0 < sl.run[sl.runs - 1].first_page || p1 > sl.run[sl.runs - 1].last_page) {
      if (sl.runs) sl.run[sl.runs - 1].to = sl.n;
      start_run(p0, p1);
    }
    sl.run[sl.runs - 1].lanes |= uint64_t{1} << l;
    const uint64_t line = off >> kLineShift;
    const unsigned in = static_cast<unsigned>(off & (kLineBytes - 1));
    const unsigned first = std::min<unsigned>(a.bytes, static_cast<unsigned>(kLineBytes - in));
    if (!add(line, bytes_mask(in, first))) return false;
    if (first < a.bytes && !add(line + 1, bytes_mask(0, a.bytes - first))) return false;
    ptrs[l] = base + off;
  }
  if (sl.runs) sl.run[sl.runs - 1].to = sl.n;
  return true;
}

void model_store_commit(Wave& w, const Range& r, StoreLines& sl, uint16_t flags) {
  CachedRange& cr = *r.cache;
  GpuCache& c = *w.group->ctx->cache;
  c.settle();
  if (write_through(w, flags) && cr.cached())
    for (unsigned i = 0; i < sl.n; ++i) write_back_line(c, cr, sl.e[i].line);
}

// ---- cache instructions ---------------------------------------------------------------------

namespace {

void note_op(Wave& w, const char* what, uint64_t MemoryReport::*count, const CacheAction* a) {
  DispatchCtx& ctx = *w.group->ctx;
  {
    std::lock_guard lk(ctx.report_mu);
    ++(ctx.report.*count);
  }
  if (!ctx.cache->config().trace || ctx.traced.fetch_add(1) >= 16) return;
  const Group& g = *w.group;
  if (a)
    ctx.cache->trace("%s at pc 0x%llx (workgroup %u,%u,%u wave %u): %llu lines, %llu bytes written back",
                     what, static_cast<unsigned long long>(w.pc - 8), g.id[0], g.id[1], g.id[2], w.wave_id,
                     static_cast<unsigned long long>(a->lines), static_cast<unsigned long long>(a->bytes));
  else
    ctx.cache->trace("%s at pc 0x%llx (workgroup %u,%u,%u wave %u)", what,
                     static_cast<unsigned long long>(w.pc - 8), g.id[0], g.id[1], g.id[2], w.wave_id);
}

}  // namespace

// gfx90a buffer_wbl2: writes back the L2's dirty RW and NC lines (system-scope release).
// gfx942: with sc1 (system scope) it does; without, the agent's single L2 needs nothing.
void exec_buffer_wbl2(Wave& w, const Inst& in) {
  GpuCache* c = w.group->ctx->cache;
  if (!c) return;
  if (is_gfx942(w) && !(in.flags & kScc)) return note_op(w, "buffer_wbl2 (agent scope: no action)", &MemoryReport::wbl2, nullptr);
  const CacheAction a = c->writeback();
  note_op(w, "buffer_wbl2: L2 write-back", &MemoryReport::wbl2, &a);
}

// buffer_invl2 (gfx90a): drops the L2's NC lines (system-scope acquire).
void exec_buffer_invl2(Wave& w, const Inst&) {
  GpuCache* c = w.group->ctx->cache;
  if (!c) return;
  c->invalidate();
  note_op(w, "buffer_invl2: L2 invalidate (non-coherent lines)", &MemoryReport::invl2, nullptr);
}

// buffer_wbinvl1 and buffer_wbinvl1_vol: empty this CU's L1 (agent-scope acquire).
void exec_buffer_wbinvl1(Wave& w, const Inst&) {
  GpuCache* c = w.group->ctx->cache;
  if (!c) return;
  if (w.group->l1) c->l1_invalidate(*w.group->l1);
  note_op(w, "buffer_wbinvl1: L1 invalidate", &MemoryReport::wbinvl1, nullptr);
}

// gfx942 buffer_inv: sc0 or sc1 invalidate the L1; sc0 sc1 (system scope) also the L2's
// non-local lines (AMDGPUUsage "Memory Model GFX942").
void exec_buffer_inv(Wave& w, const Inst& in) {
  GpuCache* c = w.group->ctx->cache;
  if (!c) return;
  if (w.group->l1) c->l1_invalidate(*w.group->l1);
  const bool system = (in.flags & kGlc) && (in.flags & kScc);
  if (system) c->invalidate();
  note_op(w, system ? "buffer_inv sc0 sc1: L1 and L2 invalidate" : "buffer_inv: L1 invalidate",
          system ? &MemoryReport::invl2 : &MemoryReport::wbinvl1, nullptr);
}

}  // namespace emu::shader
