// SPDX-License-Identifier: MIT
// HIP copies and fills on the GPUs' copy engines (SDMA or blit kernels), in stream order kept on the device.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "api/hip/alloc.h"
#include "api/hip/code.h"
#include "api/hip/stream.h"

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
  auto info = rt->memory().lookup(p);
  if (!info) return s;
  s.pinned = true;
  s.vram = info->heap == mem::Heap::Vram;
  s.owner = info->owner_gpu;
  s.mapped = std::move(info->mapped_gpus);
  if (info->tag) {
    const auto* e = static_cast<const AllocEntry*>(info->tag.get());
    const auto a = reinterpret_cast<uintptr_t>(p);
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
  for (uintptr_t a : ends) {
    unsigned char v;
    if (mincore(reinterpret_cast<void*>(a & ~(page - 1)), 1, &v) != 0 && errno == ENOMEM) {
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

// A copy between two GPUs' memory that no single GPU maps (hipMalloc maps VRAM to its owner
// alone): the source GPU's engine copies into a pinned bounce buffer every GPU maps, the
// destination GPU's engine waits for that (device-side) and copies on. The buffer lives until
// the stream passed the copy.
struct PeerBounce {
  mem::Context* memory = nullptr;
  void* buffer = nullptr;
  std::shared_ptr<EventRecord> mid;  // 1 until the first half completed
  ~PeerBounce() {
    // An engine that may still write the buffer (a failed second half) keeps it.
    if (buffer && (!mid || mid->sig->load() <= 0)) (void)memory->free(buffer);
  }
};

hipError_t copy_peer_bounce(Runtime* rt, Stream& st, const Side& d, const Side& s, void* dst, const void* src,
                            size_t n, bool async, const char* api) {
  auto from = rt->qrt().copy_engine(s.owner);
  auto to = rt->qrt().copy_engine(d.owner);
  if (!from || !to) return no_engine(api, dst, src, !from ? from.message() : to.message());
  auto b = std::make_shared<PeerBounce>();
  b->memory = &rt->memory();
  mem::AllocRequest r;
  r.heap = mem::Heap::Gtt;
  r.coherence = mem::Coherence::Coherent;
  r.size = n;
  r.map_all = true;
  r.owner_gpu = s.owner;
  auto p = rt->memory().allocate(r);
  if (!p) {
    debug_log(api, "peer copy bounce buffer: " + p.message());
    return from_error(p.error(), hipErrorOutOfMemory);
  }
  b->buffer = *p;
  auto sig = st.device().signals().acquire(1);
  if (!sig) return no_engine(api, dst, src, sig.message());
  b->mid = std::make_shared<EventRecord>();
  b->mid->dev = &st.device();
  b->mid->sig = std::move(*sig);
  const uint64_t bounce = va(b->buffer);
  const queues::CopyWait half{b->mid->sig->handle(), queues::Cond::Lt, 1};
  auto op = [&](const queues::CopyOrder& o) -> base::Status {
    if (auto st1 = (*from)->copy(bounce, va(src), n, queues::CopyOrder{o.waits, queues::signal_target(*b->mid->sig)});
        !st1) {
      b->mid->sig->store(0);  // never submitted
      return st1;
    }
    return (*to)->copy(va(dst), bounce, n, queues::CopyOrder{std::span(&half, 1), o.done});
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

// A 2-D copy with a pageable end: one staged copy per row (or one when rows are contiguous on
// both sides). Each row is an engine operation completing the same signal.
base::Status copy_rows_pageable(queues::CopyEngine* eng, void* dst, size_t dpitch, const void* src, size_t spitch,
                                size_t w, size_t h, bool to_device, const queues::CopyOrder& o) {
  const bool contiguous = dpitch == w && spitch == w;
  const size_t rows = contiguous ? 1 : h, bytes = contiguous ? w * h : w;
  for (size_t r = 0; r < rows; ++r) {
    auto* d = static_cast<uint8_t*>(dst) + r * dpitch;
    const auto* s = static_cast<const uint8_t*>(src) + r * spitch;
    KFD_TRY(to_device ? eng->copy_from_pageable(va(d), s, bytes, o) : eng->copy_to_pageable(d, va(s), bytes, o));
  }
  return {};
}

hipError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w, size_t h,
                   hipMemcpyKind kind, hipStream_t stream, bool async) {
  if (!valid_kind(kind)) return hipErrorInvalidMemcpyDirection;
  if (w == 0 || h == 0) return hipSuccess;
  if (!dst || !src) return hipErrorInvalidValue;
  if (dpitch < w || spitch < w) return hipErrorInvalidPitchValue;
  if (h > UINT32_MAX) return hipErrorInvalidValue;
  const char* api = async ? "hip copy/fill (async)" : "hip copy/fill";
  HIP_INIT_NAMED(rt, api);
  std::shared_ptr<Stream> st;
  if (hipError_t e = rt->stream(stream, &st); e != hipSuccess) return e;
  const size_t dext = dpitch * (h - 1) + w, sext = spitch * (h - 1) + w;
  const Side d = side(rt, dst, dext), s = side(rt, src, sext);
  if (!d.fits || !s.fits) return hipErrorInvalidValue;
  if ((!d.pinned && !host_mapped(dst, dext, api)) || (!s.pinned && !host_mapped(src, sext, api)))
    return hipErrorInvalidValue;
  if (!d.vram && !s.vram && !(d.pinned && s.pinned))
    return host_copy(*st, async, true, [=] {
      for (size_t r = 0; r < h; ++r)
        std::memmove(static_cast<uint8_t*>(dst) + r * dpitch, static_cast<const uint8_t*>(src) + r * spitch, w);
      return hipSuccess;
    });
  std::string why;
  queues::CopyEngine* eng = engine_for(rt, *st, d, s, &why);
  if (!eng) return no_engine(api, dst, src, why);
  if (!d.pinned || !s.pinned) {
    const bool contiguous = dpitch == w && spitch == w;
    // Into pageable memory each row is complete when its call returns (ops 0).
    return st->engine_op(!d.pinned ? 0 : contiguous ? 1 : uint32_t(h), !async || !d.pinned, [&](const queues::CopyOrder& o) {
      return copy_rows_pageable(eng, dst, dpitch, src, spitch, w, h, s.pinned ? false : true, o);
    }, api);
  }
  // The rectangles' extents must not overlap (as for cudaMemcpy2D).
  if (va(dst) < va(src) + sext && va(src) < va(dst) + dext) {
    debug_log(api, "the source and destination rectangles overlap");
    return hipErrorInvalidValue;
  }
  queues::CopyRect r;
  r.dst = va(dst);
  r.src = va(src);
  r.dst_pitch = dpitch;
  r.src_pitch = spitch;
  r.width = w;
  r.height = uint32_t(h);
  return st->engine_op(1, !async, [&](const queues::CopyOrder& o) { return eng->copy_rect(r, o); }, api);
}

hipError_t memset_2d(void* dst, size_t pitch, int value, size_t w, size_t h, hipStream_t stream, bool async) {
  if (w == 0 || h == 0) return hipSuccess;
  if (!dst || pitch < w) return hipErrorInvalidValue;
  auto c = allocations().covers(dst, pitch * (h - 1) + w);
  if (!c || !*c) return hipErrorInvalidValue;
  if (pitch == w) return fill_rows(dst, uint8_t(value), 1, w * h, 0, 1, stream, async);
  return fill_rows(dst, uint8_t(value), 1, w, pitch, h, stream, async);
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
