// SPDX-License-Identifier: MIT
// HIP copies and fills on the GPUs' copy engines (SDMA or blit kernels), in stream order kept on the device.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "api/hip/alloc.h"
#include "api/hip/code.h"
#include "api/hip/stream.h"
#include "api/hip/texture.h"

namespace hip {
namespace {

// One endpoint of a copy: memory the allocator knows (pinned: VRAM, GTT, registered host pages;
// its heap and the GPUs that map it), or pageable host memory it does not know. `fits`: an
// endpoint inside a HIP allocation lies within the size HIP was asked for.
struct Side {
  bool pinned = false, vram = false, fits = true;
  uint32_t owner = 0;
  std::vector<uint32_t> mapped;
  bool mapped_to(uint32_t gpu) const {
    return !pinned || std::find(mapped.begin(), mapped.end(), gpu) != mapped.end();
  }
};

// One allocator lookup: its record carries HIP's entry as its tag (AllocTable).
Side side(Runtime* rt, const void* p, size_t n) {
  Side s;
  mem::AllocationInfo found;
  if (!rt->memory().find(p, &found)) return s;  // pageable (no error built: an answer, not a failure)
  mem::AllocationInfo* info = &found;
  s.pinned = true;
  s.vram = info->heap == mem::Heap::Vram;
  s.owner = info->owner_gpu;
  s.mapped = std::move(info->mapped_gpus);
  if (info->tag) {
    const auto* e = static_cast<const AllocEntry*>(info->tag.get());
    const auto a = reinterpret_cast<uintptr_t>(p);
    // Registered host memory is the caller's bytes [base, base + size); its pages' other bytes
    // belong to other objects (malloc puts neighbours there). A copy that is not wholly inside
    // those bytes reaches plain pageable memory, and is staged as such (HIP's hipHostRegister
    // test copies into a malloc buffer whose first page another buffer registered).
    if (e->kind == AllocKind::Registered && !(a >= e->base && n <= e->size && a - e->base <= e->size - n)) return Side{};
    if (a >= e->base && a < e->base + std::max<size_t>(e->size, 1)) s.fits = a + n <= e->base + e->size;
  }
  return s;
}

// Pageable memory must be mapped in this process: a freed or bogus device address (no allocation
// holds it) is refused naming it, instead of faulting in the staging copy. The first and last
// pages are checked (mincore fails with ENOMEM on an unmapped page).
bool host_mapped(const void* p, size_t n, const char* api) {
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t ends[2] = {reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + n - 1};
  // First and last page the same or neighbours (every small copy): one system call for both.
  const uintptr_t first = ends[0] & ~(page - 1), last = ends[1] & ~(page - 1);
  unsigned char v[2];
  if (last - first <= page && mincore(reinterpret_cast<void*>(first), last - first + page, v) == 0) return true;
  for (uintptr_t a : ends) {  // each end on its own: the message names the one that is not mapped
    if (mincore(reinterpret_cast<void*>(a & ~(page - 1)), 1, v) != 0 && errno == ENOMEM) {
      debug_log(api, "address " + base::hex(a) + " is neither in an allocation of this process's GPUs nor mapped "
                     "host memory (a freed or invalid pointer)");
      return false;
    }
  }
  return true;
}

bool valid_kind(hipMemcpyKind k) {
  return (k >= hipMemcpyHostToHost && k <= hipMemcpyDefault) || k == hipMemcpyDeviceToDeviceNoCU;
}

uint64_t va(const void* p) { return reinterpret_cast<uint64_t>(p); }

// The copy engine of a GPU that maps every pinned endpoint: the stream's device's, else that of
// the GPU owning an endpoint's VRAM (a peer copy). nullptr when no GPU maps them all.
queues::CopyEngine* engine_for(Runtime* rt, Stream& s, const Side& a, const Side& b, std::string* why) {
  const uint32_t candidates[3] = {s.device().gpu_id(), a.vram ? a.owner : 0, b.vram ? b.owner : 0};
  for (uint32_t g : candidates) {
    if (!g || !a.mapped_to(g) || !b.mapped_to(g)) continue;
    auto e = rt->qrt().copy_engine(g);
    if (e) return *e;
    *why = e.message();
    return nullptr;
  }
  *why = "no GPU maps both endpoints";
  return nullptr;
}

// Fallback for copies an engine cannot address: both ends in host memory, one of them pageable
// (an engine reaches pageable memory only through staging, itself a CPU copy). No VRAM is
// touched. Ordered with the stream by a host round trip; synchronous unless both ends are pinned.
hipError_t host_copy(Stream& s, bool async, bool pageable, Stream::HostOp op) {
  return s.host_op(std::move(op), !async || pageable ? Stream::Mode::Sync : Stream::Mode::Async);
}

hipError_t no_engine(const char* api, const void* dst, const void* src, const std::string& why) {
  debug_log(api, "no copy engine reaches dst " + base::hex(va(dst)) + " and src " + base::hex(va(src)) + ": " + why);
  return hipErrorInvalidValue;
}

// Pinned bounce buffers of peer copies (GTT every GPU maps), kept for later copies: a fresh
// allocation per copy costs the kernel a page fault per page on first touch. Free ones are
// reused smallest-fit; at most kMaxCached bytes stay cached. Reachable for the process (never
// destroyed, as the HIP runtime).
class BouncePool {
 public:
  static BouncePool& get() {
    static BouncePool* pool = new BouncePool;
    return *pool;
  }
  base::Result<void*> acquire(mem::Context& m, size_t n, uint32_t owner, size_t* size) {
    {
      std::lock_guard lk(mu_);
      memory_ = &m;  // under the lock: copies on several threads acquire at once
      auto it = free_.lower_bound(n);
      if (it != free_.end() && it->first <= 2 * n + kGranule) {
        void* p = it->second;
        *size = it->first;
        cached_ -= it->first;
        free_.erase(it);
        return p;
      }
    }
    mem::AllocRequest r;
    r.heap = mem::Heap::Gtt;
    r.coherence = mem::Coherence::Coherent;
    r.size = (n + kGranule - 1) / kGranule * kGranule;
    r.map_all = true;
    r.owner_gpu = owner;
    *size = r.size;
    return m.allocate(r);
  }
  void release(void* p, size_t size) {
    std::lock_guard lk(mu_);
    free_.emplace(size, p);
    cached_ += size;
    while (cached_ > kMaxCached && !free_.empty()) {  // the largest go first
      auto last = std::prev(free_.end());
      cached_ -= last->first;
      (void)memory_->free(last->second);
      free_.erase(last);
    }
  }

 private:
  static constexpr size_t kGranule = size_t(1) << 20, kMaxCached = size_t(64) << 20;
  std::mutex mu_;
  mem::Context* memory_ = nullptr;
  std::multimap<size_t, void*> free_;  // by size
  size_t cached_ = 0;
};

// A copy between two GPUs' memory that no single GPU maps (hipMalloc maps VRAM to its owner
// alone): the source GPU's engine copies into a pinned bounce buffer every GPU maps, the
// destination GPU's engine copies on from it, piece by piece through a ring of kBounceSlots
// pieces, both engines at once and held back by two counting signals only the engines see:
// `filled` (piece i of the second half starts once the first half filled i + 1 pieces) and
// `drained` (piece i of the first half, i >= slots, starts once the second half drained the
// piece that used its slot before). The buffer lives until the stream passed the copy.
struct PeerBounce {
  void* buffer = nullptr;
  size_t size = 0;
  std::shared_ptr<EventRecord> filled, drained;  // pieces to go (drained: but the last)
  ~PeerBounce() {
    // Engines that may still use the buffer (a failed or cut-short copy) keep it.
    if (buffer && filled && drained && filled->sig->load() <= 0 && drained->sig->load() <= 1)
      BouncePool::get().release(buffer, size);
  }
};

constexpr size_t kBouncePiece = size_t(4) << 20;
constexpr size_t kBounceSlots = 4;

std::shared_ptr<EventRecord> engine_signal(Stream& st, int64_t value, std::string* why) {
  auto sig = st.device().signals().acquire(value);
  if (!sig) {
    *why = sig.message();
    return nullptr;
  }
  auto r = std::make_shared<EventRecord>();
  r->dev = &st.device();
  r->sig = std::move(*sig);
  return r;
}

hipError_t copy_peer_bounce(Runtime* rt, Stream& st, const Side& d, const Side& s, void* dst, const void* src,
                            size_t n, bool async, const char* api) {
  auto from = rt->qrt().copy_engine(s.owner);
  auto to = rt->qrt().copy_engine(d.owner);
  if (!from || !to) return no_engine(api, dst, src, !from ? from.message() : to.message());
  const size_t pieces = (n + kBouncePiece - 1) / kBouncePiece;
  const size_t piece = std::min(n, kBouncePiece);
  const size_t slots = std::min(pieces, kBounceSlots);
  auto b = std::make_shared<PeerBounce>();
  std::string why;
  if (!(b->filled = engine_signal(st, int64_t(pieces), &why)) || !(b->drained = engine_signal(st, int64_t(pieces), &why)))
    return no_engine(api, dst, src, why);
  auto p = BouncePool::get().acquire(rt->memory(), slots * piece, s.owner, &b->size);
  if (!p) {
    debug_log(api, "peer copy bounce buffer: " + p.message());
    return from_error(p.error(), hipErrorOutOfMemory);
  }
  b->buffer = *p;
  const uint64_t bounce = va(b->buffer);
  auto op = [&](const queues::CopyOrder& o) -> base::Status {
    for (size_t i = 0; i < pieces; ++i) {
      const size_t off = i * piece, len = std::min(piece, n - off);
      const uint64_t slot = bounce + (i % slots) * piece;
      const queues::CopyWait free_slot{b->drained->sig->handle(), queues::Cond::Lt, int64_t(pieces - (i - slots))};
      const std::span<const queues::CopyWait> first_waits =
          i == 0 ? o.waits : i >= slots ? std::span(&free_slot, 1) : std::span<const queues::CopyWait>{};
      if (auto st1 = (*from)->copy(slot, va(src) + off, len,
                                   queues::CopyOrder{first_waits, queues::signal_target(*b->filled->sig)});
          !st1) {
        b->filled->sig->store(0);  // the pieces already queued on the second engine may run
        return st1;
      }
      const queues::CopyWait ready{b->filled->sig->handle(), queues::Cond::Lt, int64_t(pieces - i)};
      const bool last = i + 1 == pieces;
      KFD_TRY((*to)->copy(va(dst) + off, slot, len,
                          queues::CopyOrder{std::span(&ready, 1),
                                            last ? o.done : queues::signal_target(*b->drained->sig)}));
    }
    return base::Status{};
  };
  return st.engine_op(1, !async, op, api, b);
}

}  // namespace

hipError_t copy(void* dst, const void* src, size_t n, hipMemcpyKind kind, hipStream_t stream, bool async) {
  if (!valid_kind(kind)) return hipErrorInvalidMemcpyDirection;
  if (n == 0) return hipSuccess;
  if (!dst || !src) return hipErrorInvalidValue;
  const char* api = async ? "hip copy/fill (async)" : "hip copy/fill";
  HIP_INIT_NAMED(rt, api);
  std::shared_ptr<Stream> st;
  if (hipError_t e = rt->stream(stream, &st); e != hipSuccess) return e;
  const Side d = side(rt, dst, n), s = side(rt, src, n);
  if (!d.fits || !s.fits) return hipErrorInvalidValue;
  if ((!d.pinned && !host_mapped(dst, n, api)) || (!s.pinned && !host_mapped(src, n, api))) return hipErrorInvalidValue;
  if (!d.vram && !s.vram && !(d.pinned && s.pinned))
    return host_copy(*st, async, true, [=] {
      std::memmove(dst, src, n);
      return hipSuccess;
    });
  std::string why;
  queues::CopyEngine* eng = engine_for(rt, *st, d, s, &why);
  if (!eng && d.vram && s.vram) return copy_peer_bounce(rt, *st, d, s, dst, src, n, async, api);
  if (!eng) return no_engine(api, dst, src, why);
  if (d.pinned && s.pinned)
    return st->engine_op(1, !async, [&](const queues::CopyOrder& o) { return eng->copy(va(dst), va(src), n, o); }, api);
  if (s.pinned)  // to pageable memory: returns once dst holds the bytes (HIP: synchronous)
    return st->engine_op(0, true, [&](const queues::CopyOrder& o) {
      return eng->copy_to_pageable(dst, va(src), n, o);
    }, api);
  // From pageable memory: returns once src may be reused (staged), as HIP documents.
  return st->engine_op(1, !async, [&](const queues::CopyOrder& o) {
    return eng->copy_from_pageable(va(dst), src, n, o);
  }, api);
}

// `rows` fills of `count` elements of `width` bytes, `pitch` bytes apart, on the engine that
// maps dst, in stream order.
hipError_t fill_rows(void* dst, uint32_t value, unsigned width, size_t count, size_t pitch, size_t rows,
                     hipStream_t stream, bool async) {
  const char* api = async ? "hip copy/fill (async)" : "hip copy/fill";
  HIP_INIT_NAMED(rt, api);
  std::shared_ptr<Stream> st;
  if (hipError_t e = rt->stream(stream, &st); e != hipSuccess) return e;
  const Side d = side(rt, dst, pitch * (rows - 1) + count * width);
  std::string why;
  queues::CopyEngine* eng = d.pinned ? engine_for(rt, *st, d, d, &why) : nullptr;
  if (!eng) return no_engine(api, dst, dst, d.pinned ? why : "not memory of this process's GPUs");
  return st->engine_op(uint32_t(rows), !async, [&](const queues::CopyOrder& o) -> base::Status {
    for (size_t r = 0; r < rows; ++r) KFD_TRY(eng->fill(va(dst) + r * pitch, value, width, count, o));
    return {};
  }, api);
}

template <class T>
hipError_t memset_n(void* dst, T v, size_t count, hipStream_t stream, bool async) {
  if (count == 0) return hipSuccess;
  if (!dst) return hipErrorInvalidValue;
  auto c = allocations().covers(dst, count * sizeof(T));
  if (!c || !*c) return hipErrorInvalidValue;
  return fill_rows(dst, uint32_t(v), sizeof(T), count, 0, 1, stream, async);
}

// A pitched copy: `d` slices of `h` rows of `w` bytes; rows `*pitch` bytes apart, slices
// `*slice` bytes apart (unused when d is 1).
struct Pitched {
  void* dst = nullptr;
  size_t dpitch = 0, dslice = 0;
  const void* src = nullptr;
  size_t spitch = 0, sslice = 0;
  size_t w = 0, h = 1, d = 1;
  // Bytes from the first to one past the last byte of a side, false when that overflows.
  static bool extent(size_t pitch, size_t slice, size_t w, size_t h, size_t d, size_t* out) {
    size_t rows, slices;
    if (__builtin_mul_overflow(pitch, h - 1, &rows) || __builtin_add_overflow(rows, w, &rows)) return false;
    if (__builtin_mul_overflow(d > 1 ? slice : 0, d - 1, &slices)) return false;
    return !__builtin_add_overflow(slices, rows, out);
  }
};

// A pitched copy with a pageable end: one staged copy per row, per slice when rows are
// contiguous on both sides, or one when the slices are too. Each is an engine operation
// completing the same signal; returns their count through *units (the caller's `ops`).
size_t pageable_units(const Pitched& c) {
  const bool rows = c.dpitch == c.w && c.spitch == c.w;
  const bool slices = rows && (c.d == 1 || (c.dslice == c.w * c.h && c.sslice == c.w * c.h));
  return slices ? 1 : rows ? c.d : c.h * c.d;
}

base::Status copy_pageable(queues::CopyEngine* eng, const Pitched& c, bool to_device, const queues::CopyOrder& o) {
  const size_t units = pageable_units(c);
  const size_t per_slice = units == c.h * c.d ? c.h : 1;  // rows copied one by one, or whole slices
  const size_t bytes = units == 1 ? c.w * c.h * c.d : units == c.d ? c.w * c.h : c.w;
  for (size_t z = 0; z < (units == 1 ? 1 : c.d); ++z)
    for (size_t r = 0; r < per_slice; ++r) {
      auto* d = static_cast<uint8_t*>(c.dst) + z * c.dslice + r * c.dpitch;
      const auto* s = static_cast<const uint8_t*>(c.src) + z * c.sslice + r * c.spitch;
      KFD_TRY(to_device ? eng->copy_from_pageable(va(d), s, bytes, o) : eng->copy_to_pageable(d, va(s), bytes, o));
    }
  return {};
}

hipError_t copy_pitched(const Pitched& c, hipMemcpyKind kind, hipStream_t stream, bool async) {
  if (!valid_kind(kind)) return hipErrorInvalidMemcpyDirection;
  if (c.w == 0 || c.h == 0 || c.d == 0) return hipSuccess;
  if (!c.dst || !c.src) return hipErrorInvalidValue;
  if (c.dpitch < c.w || c.spitch < c.w) return hipErrorInvalidPitchValue;
  if (c.h > UINT32_MAX || c.d > UINT32_MAX) return hipErrorInvalidValue;
  if (c.d > 1 && (c.dslice < c.dpitch * (c.h - 1) + c.w || c.sslice < c.spitch * (c.h - 1) + c.w))
    return hipErrorInvalidValue;  // slices overlap their neighbours
  size_t dext, sext;
  if (!Pitched::extent(c.dpitch, c.dslice, c.w, c.h, c.d, &dext) ||
      !Pitched::extent(c.spitch, c.sslice, c.w, c.h, c.d, &sext))
    return hipErrorInvalidValue;
  const char* api = async ? "hip copy/fill (async)" : "hip copy/fill";
  HIP_INIT_NAMED(rt, api);
  std::shared_ptr<Stream> st;
  if (hipError_t e = rt->stream(stream, &st); e != hipSuccess) return e;
  void* dst = c.dst;
  const void* src = c.src;
  const Side d = side(rt, dst, dext), s = side(rt, src, sext);
  if (!d.fits || !s.fits) return hipErrorInvalidValue;
  if ((!d.pinned && !host_mapped(dst, dext, api)) || (!s.pinned && !host_mapped(src, sext, api)))
    return hipErrorInvalidValue;
  if (!d.vram && !s.vram && !(d.pinned && s.pinned))
    return host_copy(*st, async, true, [c] {
      for (size_t z = 0; z < c.d; ++z)
        for (size_t r = 0; r < c.h; ++r)
          std::memmove(static_cast<uint8_t*>(c.dst) + z * c.dslice + r * c.dpitch,
                       static_cast<const uint8_t*>(c.src) + z * c.sslice + r * c.spitch, c.w);
      return hipSuccess;
    });
  std::string why;
  queues::CopyEngine* eng = engine_for(rt, *st, d, s, &why);
  if (!eng) return no_engine(api, dst, src, why);
  if (!d.pinned || !s.pinned) {
    // Into pageable memory each part is complete when its call returns (ops 0).
    const uint32_t ops = !d.pinned ? 0 : uint32_t(pageable_units(c));
    return st->engine_op(ops, !async || !d.pinned, [&](const queues::CopyOrder& o) {
      return copy_pageable(eng, c, s.pinned ? false : true, o);
    }, api);
  }
  // The rectangles' extents must not overlap (as for cudaMemcpy2D / cudaMemcpy3D).
  if (va(dst) < va(src) + sext && va(src) < va(dst) + dext) {
    debug_log(api, "the source and destination rectangles overlap");
    return hipErrorInvalidValue;
  }
  queues::CopyRect r;
  r.dst = va(dst);
  r.src = va(src);
  r.dst_pitch = c.dpitch;
  r.src_pitch = c.spitch;
  r.dst_slice = c.d > 1 ? c.dslice : 0;
  r.src_slice = c.d > 1 ? c.sslice : 0;
  r.width = c.w;
  r.height = uint32_t(c.h);
  r.depth = uint32_t(c.d);
  return st->engine_op(1, !async, [&](const queues::CopyOrder& o) { return eng->copy_rect(r, o); }, api);
}

hipError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w, size_t h,
                   hipMemcpyKind kind, hipStream_t stream, bool async) {
  Pitched c;
  c.dst = dst;
  c.dpitch = dpitch;
  c.src = src;
  c.spitch = spitch;
  c.w = w;
  c.h = h;
  return copy_pitched(c, kind, stream, async);
}

// An array as one side of a copy: the address of byte `x` of row `y` of slice `z`, checked to
// leave room for `w` bytes, `h` rows and `d` slices.
hipError_t array_side(const hipArray* a, size_t x, size_t y, size_t z, size_t w, size_t h, size_t d,
                      uint8_t** at, size_t* pitch, size_t* slice, const char* api) {
  ArrayGeom g;
  if (!a || !array_geom(a, &g)) {
    debug_log(api, "not an array (never made, or freed)");
    return hipErrorInvalidValue;
  }
  if (x > g.row_bytes || w > g.row_bytes - x || y > g.rows || h > g.rows - y || z > g.slices || d > g.slices - z) {
    debug_log(api, "the region (" + std::to_string(x) + " + " + std::to_string(w) + " bytes, row " +
                       std::to_string(y) + " + " + std::to_string(h) + ", slice " + std::to_string(z) + " + " +
                       std::to_string(d) + ") leaves the array (" + std::to_string(g.row_bytes) + " bytes x " +
                       std::to_string(g.rows) + " rows x " + std::to_string(g.slices) + ")");
    return hipErrorInvalidValue;
  }
  *at = g.data + z * g.slice_bytes() + y * g.pitch + x;
  *pitch = g.pitch;
  *slice = g.slice_bytes();
  return hipSuccess;
}

// A copy of `count` bytes to or from an array, starting at byte `x` of row `y` and running on
// through the following rows as if the array's rows were contiguous (hipMemcpyToArray,
// hipMemcpyFromArray, hipMemcpyHtoA, hipMemcpyAtoH): the head of a row, whole rows, a tail.
hipError_t copy_array_linear(hipArray* to, const hipArray* from, void* dst, const void* src, size_t x, size_t y,
                             size_t count, hipMemcpyKind kind, hipStream_t stream, bool async, const char* api) {
  const hipArray* a = to ? to : from;
  ArrayGeom g;
  if (!a || !array_geom(a, &g)) {
    debug_log(api, "not an array (never made, or freed)");
    return hipErrorInvalidValue;
  }
  if (count == 0) return hipSuccess;
  if (!(to ? src : dst)) return hipErrorInvalidValue;
  const size_t total = g.row_bytes * g.rows * g.slices;
  if (x >= g.row_bytes || y >= g.rows * g.slices) return hipErrorInvalidValue;
  const size_t start = y * g.row_bytes + x;
  if (count > total - start) {
    debug_log(api, std::to_string(count) + " bytes from byte " + std::to_string(start) + " leave the array's " +
                       std::to_string(total));
    return hipErrorInvalidValue;
  }
  size_t done = 0;
  while (done < count) {
    const size_t at = start + done;
    const size_t row = at / g.row_bytes, col = at % g.row_bytes;
    uint8_t* arr = g.data + row * g.pitch + col;  // slices follow rows: pitch * rows each
    Pitched c;
    const size_t left = count - done;
    if (col != 0 || left < g.row_bytes) {
      c.w = std::min(left, g.row_bytes - col);
      c.h = 1;
    } else {
      c.w = g.row_bytes;
      c.h = left / g.row_bytes;
    }
    auto* host = const_cast<uint8_t*>(static_cast<const uint8_t*>(to ? src : dst)) + done;
    c.dst = to ? static_cast<void*>(arr) : host;
    c.src = to ? static_cast<const void*>(host) : arr;
    c.dpitch = to ? g.pitch : g.row_bytes;
    c.spitch = to ? g.row_bytes : g.pitch;
    if (hipError_t e = copy_pitched(c, kind, stream, async); e != hipSuccess) return e;
    done += c.w * c.h;
  }
  return hipSuccess;
}

// 2-D copies naming arrays: `to` (at byte x, row y) from `src` rows `spitch` apart, or to `dst`
// (rows `dpitch` apart) from `from` (at byte fx, row fy); both arrays for array-to-array.
hipError_t copy_2d_array(hipArray* to, size_t x, size_t y, const void* src, size_t spitch, void* dst, size_t dpitch,
                         const hipArray* from, size_t fx, size_t fy, size_t w, size_t h, hipMemcpyKind kind,
                         hipStream_t stream, bool async) {
  const char* api = to && from ? "hipMemcpy2DArrayToArray" : to ? "hipMemcpy2DToArray" : "hipMemcpy2DFromArray";
  if (!to && !from) return hipErrorInvalidValue;
  if (w == 0 || h == 0) return hipSuccess;
  Pitched c;
  c.w = w;
  c.h = h;
  size_t slice;
  uint8_t* at;
  if (to) {
    if (hipError_t r = array_side(to, x, y, 0, w, h, 1, &at, &c.dpitch, &slice, api); r != hipSuccess) return r;
    c.dst = at;
  } else {
    c.dst = dst;
    c.dpitch = dpitch;
  }
  if (from) {
    if (hipError_t r = array_side(from, fx, fy, 0, w, h, 1, &at, &c.spitch, &slice, api); r != hipSuccess) return r;
    c.src = at;
  } else {
    c.src = src;
    c.spitch = spitch;
  }
  return copy_pitched(c, kind, stream, async);
}

// hipMemcpy3D's parameters (cudaMemcpy3D's rules for linear memory): positions and the width in
// bytes, a slice is pitch * ysize bytes, and a copy of several slices needs ysize to hold the
// rows it spans.
hipError_t copy_3d(const hipMemcpy3DParms* p, hipStream_t stream, bool async) {
  const char* api = async ? "hipMemcpy3DAsync" : "hipMemcpy3D";
  if (!p) return hipErrorInvalidValue;
  if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr)) return hipErrorInvalidValue;
  if (p->srcArray || p->dstArray) {
    // With an array on either side, positions and the width are in elements (cudaMemcpy3D).
    ArrayGeom g;
    if (!array_geom(p->srcArray ? p->srcArray : p->dstArray, &g)) return hipErrorInvalidValue;
    if (p->srcArray && p->dstArray) {
      ArrayGeom g2;
      if (!array_geom(p->dstArray, &g2) || g2.elem != g.elem) return hipErrorInvalidValue;
    }
    const hipExtent& e = p->extent;
    if (e.width == 0 || e.height == 0 || e.depth == 0) return hipSuccess;
    Pitched c;
    c.w = e.width * g.elem;
    c.h = e.height;
    c.d = e.depth;
    uint8_t* at;
    if (p->srcArray) {
      if (hipError_t r = array_side(p->srcArray, p->srcPos.x * g.elem, p->srcPos.y, p->srcPos.z, c.w, c.h, c.d, &at,
                                    &c.spitch, &c.sslice, api);
          r != hipSuccess)
        return r;
      c.src = at;
    } else {
      const hipPitchedPtr& s = p->srcPtr;
      if (!s.ptr || p->srcPos.x * g.elem + c.w > s.pitch) return hipErrorInvalidValue;
      c.spitch = s.pitch;
      c.sslice = s.pitch * (s.ysize ? s.ysize : e.height);
      c.src = static_cast<const uint8_t*>(s.ptr) + p->srcPos.z * c.sslice + p->srcPos.y * s.pitch + p->srcPos.x * g.elem;
    }
    if (p->dstArray) {
      if (hipError_t r = array_side(p->dstArray, p->dstPos.x * g.elem, p->dstPos.y, p->dstPos.z, c.w, c.h, c.d, &at,
                                    &c.dpitch, &c.dslice, api);
          r != hipSuccess)
        return r;
      c.dst = at;
    } else {
      const hipPitchedPtr& d = p->dstPtr;
      if (!d.ptr || p->dstPos.x * g.elem + c.w > d.pitch) return hipErrorInvalidValue;
      c.dpitch = d.pitch;
      c.dslice = d.pitch * (d.ysize ? d.ysize : e.height);
      c.dst = static_cast<uint8_t*>(d.ptr) + p->dstPos.z * c.dslice + p->dstPos.y * d.pitch + p->dstPos.x * g.elem;
    }
    return copy_pitched(c, p->kind, stream, async);
  }
  const hipExtent& e = p->extent;
  if (e.width == 0 || e.height == 0 || e.depth == 0) return hipSuccess;
  if (!p->srcPtr.ptr || !p->dstPtr.ptr) return hipErrorInvalidValue;
  auto side_of = [&](const hipPitchedPtr& ptr, const hipPos& pos, size_t* slice, size_t* offset) -> hipError_t {
    if (pos.x > ptr.pitch || e.width > ptr.pitch - pos.x) return hipErrorInvalidPitchValue;
    if (e.depth > 1 && (pos.y > ptr.ysize || e.height > ptr.ysize - pos.y)) {
      debug_log(api, "a slice of " + std::to_string(ptr.ysize) + " rows cannot hold rows " + std::to_string(pos.y) +
                         ".." + std::to_string(pos.y + e.height));
      return hipErrorInvalidValue;
    }
    size_t sl, z, y;
    if (__builtin_mul_overflow(ptr.pitch, ptr.ysize, &sl) || __builtin_mul_overflow(pos.z, sl, &z) ||
        __builtin_mul_overflow(pos.y, ptr.pitch, &y) || __builtin_add_overflow(z, y, offset) ||
        __builtin_add_overflow(*offset, pos.x, offset))
      return hipErrorInvalidValue;
    *slice = sl;
    return hipSuccess;
  };
  Pitched c;
  size_t soff = 0, doff = 0;
  if (hipError_t r = side_of(p->srcPtr, p->srcPos, &c.sslice, &soff); r != hipSuccess) return r;
  if (hipError_t r = side_of(p->dstPtr, p->dstPos, &c.dslice, &doff); r != hipSuccess) return r;
  c.src = static_cast<const uint8_t*>(p->srcPtr.ptr) + soff;
  c.dst = static_cast<uint8_t*>(p->dstPtr.ptr) + doff;
  c.spitch = p->srcPtr.pitch;
  c.dpitch = p->dstPtr.pitch;
  c.w = e.width;
  c.h = e.height;
  c.d = e.depth;
  return copy_pitched(c, p->kind, stream, async);
}

// The address a driver-API copy names for one side (hipMemoryTypeHost: the host pointer;
// Device and Unified: the device pointer), nullptr for an array or an unknown type.
const void* driver_side(hipMemoryType t, const void* host, hipDeviceptr_t device) {
  switch (t) {
    case hipMemoryTypeHost: return host;
    case hipMemoryTypeDevice:
    case hipMemoryTypeUnified: return device;
    default: return nullptr;
  }
}

// One side of a driver-API copy (hipMemcpyParam2D, hipDrvMemcpy3D): an array (x in bytes), or
// host or device memory with its pitch and rows per slice. Gives the address of the side's first
// byte, its pitch and its slice, checked to hold the copy's w bytes, h rows and d slices.
struct DrvSide {
  hipMemoryType type;
  const void* host;
  hipDeviceptr_t device;
  const hipArray* array;
  size_t x, y, z, pitch, height;
};

hipError_t drv_side(const DrvSide& s, const Pitched& c, const char* api, uint8_t** at, size_t* pitch, size_t* slice) {
  if (s.type == hipMemoryTypeArray) return array_side(s.array, s.x, s.y, s.z, c.w, c.h, c.d, at, pitch, slice, api);
  auto* base = static_cast<uint8_t*>(const_cast<void*>(driver_side(s.type, s.host, s.device)));
  if (!base) return hipErrorInvalidValue;
  if (s.x > s.pitch || c.w > s.pitch - s.x) return hipErrorInvalidPitchValue;
  if (c.d > 1 && (s.y > s.height || c.h > s.height - s.y)) return hipErrorInvalidValue;
  *pitch = s.pitch;
  *slice = s.pitch * s.height;
  *at = base + s.z * *slice + s.y * s.pitch + s.x;
  return hipSuccess;
}

hipError_t copy_drv(const DrvSide& src, const DrvSide& dst, size_t w, size_t h, size_t d, hipStream_t stream,
                    bool async, const char* api) {
  if (w == 0 || h == 0 || d == 0) return hipSuccess;
  Pitched c;
  c.w = w;
  c.h = h;
  c.d = d;
  uint8_t *s, *t;
  if (hipError_t r = drv_side(src, c, api, &s, &c.spitch, &c.sslice); r != hipSuccess) return r;
  if (hipError_t r = drv_side(dst, c, api, &t, &c.dpitch, &c.dslice); r != hipSuccess) return r;
  c.src = s;
  c.dst = t;
  return copy_pitched(c, hipMemcpyDefault, stream, async);
}

hipError_t copy_param_2d(const hip_Memcpy2D* p, hipStream_t stream, bool async) {
  if (!p) return hipErrorInvalidValue;
  return copy_drv({p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY, 0, p->srcPitch, 0},
                  {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY, 0, p->dstPitch, 0},
                  p->WidthInBytes, p->Height, 1, stream, async, async ? "hipMemcpyParam2DAsync" : "hipMemcpyParam2D");
}

hipError_t copy_drv_3d(const HIP_MEMCPY3D* p, hipStream_t stream, bool async) {
  if (!p) return hipErrorInvalidValue;
  if (p->srcLOD || p->dstLOD) return hipErrorInvalidValue;  // mipmap levels: arrays only
  return copy_drv({p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY, p->srcZ,
                   p->srcPitch, p->srcHeight},
                  {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY, p->dstZ,
                   p->dstPitch, p->dstHeight},
                  p->WidthInBytes, p->Height, p->Depth, stream, async, async ? "hipDrvMemcpy3DAsync" : "hipDrvMemcpy3D");
}

hipError_t memset_2d(void* dst, size_t pitch, int value, size_t w, size_t h, hipStream_t stream, bool async) {
  if (w == 0 || h == 0) return hipSuccess;
  if (!dst || pitch < w) return hipErrorInvalidValue;
  auto c = allocations().covers(dst, pitch * (h - 1) + w);
  if (!c || !*c) return hipErrorInvalidValue;
  if (pitch == w) return fill_rows(dst, uint8_t(value), 1, w * h, 0, 1, stream, async);
  return fill_rows(dst, uint8_t(value), 1, w, pitch, h, stream, async);
}

// hipMemset3D: `depth` slices (pitch * ysize bytes apart) of `height` rows (pitch apart) of
// `width` bytes. Rows evenly spaced across slices (ysize == height) are one fill of rows.
hipError_t memset_3d(const hipPitchedPtr& p, int value, const hipExtent& e, hipStream_t stream, bool async) {
  if (e.width == 0 || e.height == 0 || e.depth == 0) return hipSuccess;
  if (!p.ptr || p.pitch < e.width) return hipErrorInvalidValue;
  if (e.depth == 1 || p.ysize == e.height) return memset_2d(p.ptr, p.pitch, value, e.width, e.height * e.depth, stream, async);
  if (p.ysize < e.height) return hipErrorInvalidValue;  // slices would overlap
  for (size_t z = 0; z < e.depth; ++z)
    if (hipError_t r = memset_2d(static_cast<uint8_t*>(p.ptr) + z * p.pitch * p.ysize, p.pitch, value, e.width,
                                 e.height, stream, async);
        r != hipSuccess)
      return r;
  return hipSuccess;
}

// The device address and size of a registered __device__ / __constant__ variable on the current
// device (loading its code object there on first use).
hipError_t symbol(const void* sym, uint8_t** addr, size_t* size) {
  Var* v = sym ? Registry::get().var(sym) : nullptr;
  if (!v) return hipErrorInvalidSymbol;
  HIP_INIT(rt);
  auto a = v->address(rt->current());
  if (!a) {
    debug_log("symbol", a.message());
    return a.err() == ENOEXEC ? hipErrorNoBinaryForGpu : hipErrorInvalidSymbol;
  }
  *addr = static_cast<uint8_t*>(*a);
  *size = v->size;
  return hipSuccess;
}

hipError_t to_symbol(const void* sym, const void* src, size_t n, size_t off, hipMemcpyKind kind,
                     hipStream_t stream, bool async) {
  if (kind != hipMemcpyHostToDevice && kind != hipMemcpyDeviceToDevice && kind != hipMemcpyDefault)
    return hipErrorInvalidMemcpyDirection;
  uint8_t* a;
  size_t size;
  if (hipError_t e = symbol(sym, &a, &size); e != hipSuccess) return e;
  if (!src || off > size || n > size - off) return hipErrorInvalidValue;
  return copy(a + off, src, n, hipMemcpyDefault, stream, async);
}

hipError_t from_symbol(void* dst, const void* sym, size_t n, size_t off, hipMemcpyKind kind,
                       hipStream_t stream, bool async) {
  if (kind != hipMemcpyDeviceToHost && kind != hipMemcpyDeviceToDevice && kind != hipMemcpyDefault)
    return hipErrorInvalidMemcpyDirection;
  uint8_t* a;
  size_t size;
  if (hipError_t e = symbol(sym, &a, &size); e != hipSuccess) return e;
  if (!dst || off > size || n > size - off) return hipErrorInvalidValue;
  return copy(dst, a + off, n, hipMemcpyDefault, stream, async);
}

}  // namespace hip

using namespace hip;

HIP_EXPORT hipError_t hipMemcpy(void* dst, const void* src, size_t n, hipMemcpyKind kind) {
  return ret(copy(dst, src, n, kind, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, hipMemcpyKind kind, hipStream_t s) {
  return ret(copy(dst, src, n, kind, s, true));
}
HIP_EXPORT hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t n, hipMemcpyKind kind,
                                          hipStream_t s) {
  return ret(copy(dst, src, n, kind, s, false));
}
HIP_EXPORT hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t n) {
  return ret(copy(dst, src, n, hipMemcpyHostToDevice, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t n) {
  return ret(copy(dst, src, n, hipMemcpyDeviceToHost, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n) {
  return ret(copy(dst, src, n, hipMemcpyDeviceToDevice, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t n, hipStream_t s) {
  return ret(copy(dst, src, n, hipMemcpyHostToDevice, s, true));
}
HIP_EXPORT hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t n, hipStream_t s) {
  return ret(copy(dst, src, n, hipMemcpyDeviceToHost, s, true));
}
HIP_EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n, hipStream_t s) {
  return ret(copy(dst, src, n, hipMemcpyDeviceToDevice, s, true));
}

HIP_EXPORT hipError_t hipMemcpyPeer(void* dst, int dst_dev, const void* src, int src_dev, size_t n) {
  HIP_INIT(rt);
  if (!rt->device(dst_dev) || !rt->device(src_dev)) return ret(hipErrorInvalidDevice);
  return ret(copy(dst, src, n, hipMemcpyDeviceToDevice, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyPeerAsync(void* dst, int dst_dev, const void* src, int src_dev, size_t n,
                                         hipStream_t s) {
  HIP_INIT(rt);
  if (!rt->device(dst_dev) || !rt->device(src_dev)) return ret(hipErrorInvalidDevice);
  return ret(copy(dst, src, n, hipMemcpyDeviceToDevice, s, true));
}

HIP_EXPORT hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w,
                                  size_t h, hipMemcpyKind kind) {
  return ret(copy_2d(dst, dpitch, src, spitch, w, h, kind, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                       size_t w, size_t h, hipMemcpyKind kind, hipStream_t s) {
  return ret(copy_2d(dst, dpitch, src, spitch, w, h, kind, s, true));
}

HIP_EXPORT hipError_t hipMemcpy3D(const hipMemcpy3DParms* p) { return ret(copy_3d(p, nullptr, false)); }
HIP_EXPORT hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms* p, hipStream_t s) { return ret(copy_3d(p, s, true)); }
HIP_EXPORT hipError_t hipMemcpyParam2D(const hip_Memcpy2D* p) { return ret(copy_param_2d(p, nullptr, false)); }
HIP_EXPORT hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D* p, hipStream_t s) {
  return ret(copy_param_2d(p, s, true));
}
HIP_EXPORT hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D* p) { return ret(copy_drv_3d(p, nullptr, false)); }
HIP_EXPORT hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D* p, hipStream_t s) { return ret(copy_drv_3d(p, s, true)); }

// ---- arrays ----

HIP_EXPORT hipError_t hipMemcpy2DToArray(hipArray* dst, size_t x, size_t y, const void* src, size_t spitch,
                                         size_t w, size_t h, hipMemcpyKind kind) {
  return ret(copy_2d_array(dst, x, y, src, spitch, nullptr, 0, nullptr, 0, 0, w, h, kind, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpy2DToArrayAsync(hipArray* dst, size_t x, size_t y, const void* src, size_t spitch,
                                              size_t w, size_t h, hipMemcpyKind kind, hipStream_t s) {
  return ret(copy_2d_array(dst, x, y, src, spitch, nullptr, 0, nullptr, 0, 0, w, h, kind, s, true));
}
HIP_EXPORT hipError_t hipMemcpy2DFromArray(void* dst, size_t dpitch, hipArray_const_t src, size_t x, size_t y,
                                           size_t w, size_t h, hipMemcpyKind kind) {
  return ret(copy_2d_array(nullptr, 0, 0, nullptr, 0, dst, dpitch, src, x, y, w, h, kind, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpy2DFromArrayAsync(void* dst, size_t dpitch, hipArray_const_t src, size_t x, size_t y,
                                                size_t w, size_t h, hipMemcpyKind kind, hipStream_t s) {
  return ret(copy_2d_array(nullptr, 0, 0, nullptr, 0, dst, dpitch, src, x, y, w, h, kind, s, true));
}
HIP_EXPORT hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t dx, size_t dy, hipArray_const_t src, size_t sx,
                                              size_t sy, size_t w, size_t h, hipMemcpyKind kind) {
  return ret(copy_2d_array(dst, dx, dy, nullptr, 0, nullptr, 0, src, sx, sy, w, h, kind, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyToArray(hipArray* dst, size_t x, size_t y, const void* src, size_t count,
                                       hipMemcpyKind kind) {
  return ret(copy_array_linear(dst, nullptr, nullptr, src, x, y, count, kind, nullptr, false, "hipMemcpyToArray"));
}
HIP_EXPORT hipError_t hipMemcpyFromArray(void* dst, hipArray_const_t src, size_t x, size_t y, size_t count,
                                         hipMemcpyKind kind) {
  return ret(copy_array_linear(nullptr, src, dst, nullptr, x, y, count, kind, nullptr, false, "hipMemcpyFromArray"));
}
HIP_EXPORT hipError_t hipMemcpyHtoA(hipArray* dst, size_t offset, const void* src, size_t count) {
  ArrayGeom g;
  if (!dst || !array_geom(dst, &g)) return ret(hipErrorInvalidValue);
  return ret(copy_array_linear(dst, nullptr, nullptr, src, offset % g.row_bytes, offset / g.row_bytes, count,
                               hipMemcpyHostToDevice, nullptr, false, "hipMemcpyHtoA"));
}
HIP_EXPORT hipError_t hipMemcpyAtoH(void* dst, hipArray* src, size_t offset, size_t count) {
  ArrayGeom g;
  if (!src || !array_geom(src, &g)) return ret(hipErrorInvalidValue);
  return ret(copy_array_linear(nullptr, src, dst, nullptr, offset % g.row_bytes, offset / g.row_bytes, count,
                               hipMemcpyDeviceToHost, nullptr, false, "hipMemcpyAtoH"));
}

HIP_EXPORT hipError_t hipMemset(void* dst, int value, size_t n) {
  return ret(memset_n<uint8_t>(dst, uint8_t(value), n, nullptr, false));
}
HIP_EXPORT hipError_t hipMemsetAsync(void* dst, int value, size_t n, hipStream_t s) {
  return ret(memset_n<uint8_t>(dst, uint8_t(value), n, s, true));
}
HIP_EXPORT hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char v, size_t count) {
  return ret(memset_n<uint8_t>(dst, v, count, nullptr, false));
}
HIP_EXPORT hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short v, size_t count) {
  return ret(memset_n<uint16_t>(dst, v, count, nullptr, false));
}
HIP_EXPORT hipError_t hipMemsetD32(hipDeviceptr_t dst, int v, size_t count) {
  return ret(memset_n<uint32_t>(dst, uint32_t(v), count, nullptr, false));
}
HIP_EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char v, size_t count, hipStream_t s) {
  return ret(memset_n<uint8_t>(dst, v, count, s, true));
}
HIP_EXPORT hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short v, size_t count, hipStream_t s) {
  return ret(memset_n<uint16_t>(dst, v, count, s, true));
}
HIP_EXPORT hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int v, size_t count, hipStream_t s) {
  return ret(memset_n<uint32_t>(dst, uint32_t(v), count, s, true));
}
HIP_EXPORT hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t w, size_t h) {
  return ret(memset_2d(dst, pitch, value, w, h, nullptr, false));
}
HIP_EXPORT hipError_t hipMemset2DAsync(void* dst, size_t pitch, int value, size_t w, size_t h, hipStream_t s) {
  return ret(memset_2d(dst, pitch, value, w, h, s, true));
}

HIP_EXPORT hipError_t hipMemset3D(hipPitchedPtr p, int value, hipExtent e) {
  return ret(memset_3d(p, value, e, nullptr, false));
}
HIP_EXPORT hipError_t hipMemset3DAsync(hipPitchedPtr p, int value, hipExtent e, hipStream_t s) {
  return ret(memset_3d(p, value, e, s, true));
}

HIP_EXPORT hipError_t hipMemcpyToSymbol(const void* sym, const void* src, size_t n, size_t off,
                                        hipMemcpyKind kind) {
  return ret(to_symbol(sym, src, n, off, kind, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyToSymbolAsync(const void* sym, const void* src, size_t n, size_t off,
                                             hipMemcpyKind kind, hipStream_t s) {
  return ret(to_symbol(sym, src, n, off, kind, s, true));
}
HIP_EXPORT hipError_t hipMemcpyFromSymbol(void* dst, const void* sym, size_t n, size_t off,
                                          hipMemcpyKind kind) {
  return ret(from_symbol(dst, sym, n, off, kind, nullptr, false));
}
HIP_EXPORT hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* sym, size_t n, size_t off,
                                               hipMemcpyKind kind, hipStream_t s) {
  return ret(from_symbol(dst, sym, n, off, kind, s, true));
}
HIP_EXPORT hipError_t hipGetSymbolAddress(void** dev_ptr, const void* sym) {
  if (!dev_ptr) return ret(hipErrorInvalidValue);
  uint8_t* a;
  size_t size;
  if (hipError_t e = symbol(sym, &a, &size); e != hipSuccess) return ret(e);
  *dev_ptr = a;
  return hipSuccess;
}
// kfdrt extension (declared in hc's detail/kfdrt_ext.h): a __device__ variable's address and
// size on `device` by its device symbol name, for hc's accelerator::get_symbol_address and
// memcpy_symbol(const char*). hipErrorNotFound when no registered variable has that name.
HIP_EXPORT hipError_t kfdrtModuleGetGlobalByName(int device, const char* name, void** address, size_t* bytes) {
  if (!name || !address) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* dev = rt->device(device);
  if (!dev) return ret(hipErrorInvalidDevice);
  Var* v = Registry::get().var_by_name(name);
  if (!v) return hipErrorNotFound;  // an answer to a lookup, not a failure to record
  auto a = v->address(*dev);
  if (!a) {
    debug_log("kfdrtModuleGetGlobalByName", a.message());
    return ret(a.err() == ENOEXEC ? hipErrorNoBinaryForGpu : hipErrorInvalidSymbol);
  }
  *address = *a;
  if (bytes) *bytes = v->size;
  return hipSuccess;
}
HIP_EXPORT hipError_t hipGetSymbolSize(size_t* size, const void* sym) {
  if (!size) return ret(hipErrorInvalidValue);
  uint8_t* a;
  if (hipError_t e = symbol(sym, &a, size); e != hipSuccess) return ret(e);
  return hipSuccess;
}
