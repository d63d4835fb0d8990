// SPDX-License-Identifier: MIT
// HIP copies and fills: host threads copy through the CPU mappings, ordered with the stream's packets.
#include <cstring>

#include "api/hip/alloc.h"
#include "api/hip/code.h"
#include "api/hip/stream.h"

namespace hip {
namespace {

// An endpoint inside a known allocation must fit in it; unknown memory is pageable host memory.
struct Endpoint {
  bool known = false, fits = true;
};
Endpoint endpoint(const void* p, size_t n) {
  Endpoint e;
  if (auto a = allocations().find(p)) {
    e.known = true;
    e.fits = reinterpret_cast<uintptr_t>(p) + n <= a->base + a->size;
  }
  return e;
}

bool valid_kind(hipMemcpyKind k) {
  return (k >= hipMemcpyHostToHost && k <= hipMemcpyDefault) || k == hipMemcpyDeviceToDeviceNoCU;
}

// Runs `op` in stream order. Synchronous calls, and async calls touching pageable memory (which
// the caller may reuse as soon as the call returns), complete before returning.
hipError_t run(hipStream_t stream, bool async, bool pageable, Stream::HostOp op) {
  HIP_INIT_NAMED(rt, async ? "hip copy/fill (async)" : "hip copy/fill");
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(stream, &s); e != hipSuccess) return e;
  return s->host_op(std::move(op), !async || pageable ? Stream::Mode::Sync : Stream::Mode::Async);
}

template <class T>
void fill(void* dst, T v, size_t count) {
  if (sizeof(T) == 1) {
    std::memset(dst, int(v), count);
    return;
  }
  T* p = static_cast<T*>(dst);
  for (size_t i = 0; i < count; ++i) p[i] = v;
}

}  // namespace

hipError_t copy(void* dst, const void* src, size_t n, hipMemcpyKind kind, hipStream_t stream, bool async) {
  if (!valid_kind(kind)) return hipErrorInvalidMemcpyDirection;
  if (n == 0) return hipSuccess;
  if (!dst || !src) return hipErrorInvalidValue;
  Endpoint d = endpoint(dst, n), s = endpoint(src, n);
  if (!d.fits || !s.fits) return hipErrorInvalidValue;
  bool pageable = !d.known || !s.known;
  return run(stream, async, pageable, [=] {
    std::memmove(dst, src, n);
    return hipSuccess;
  });
}

template <class T>
hipError_t memset_n(void* dst, T v, size_t count, hipStream_t stream, bool async) {
  if (count == 0) return hipSuccess;
  if (!dst) return hipErrorInvalidValue;
  auto c = allocations().covers(dst, count * sizeof(T));
  if (!c || !*c) return hipErrorInvalidValue;
  return run(stream, async, false, [=] {
    fill<T>(dst, v, count);
    return hipSuccess;
  });
}

hipError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t w, size_t h,
                   hipMemcpyKind kind, hipStream_t stream, bool async) {
  if (!valid_kind(kind)) return hipErrorInvalidMemcpyDirection;
  if (w == 0 || h == 0) return hipSuccess;
  if (!dst || !src) return hipErrorInvalidValue;
  if (dpitch < w || spitch < w) return hipErrorInvalidPitchValue;
  Endpoint d = endpoint(dst, dpitch * (h - 1) + w), s = endpoint(src, spitch * (h - 1) + w);
  if (!d.fits || !s.fits) return hipErrorInvalidValue;
  bool pageable = !d.known || !s.known;
  return run(stream, async, pageable, [=] {
    for (size_t r = 0; r < h; ++r)
      std::memmove(static_cast<uint8_t*>(dst) + r * dpitch, static_cast<const uint8_t*>(src) + r * spitch, w);
    return hipSuccess;
  });
}

hipError_t memset_2d(void* dst, size_t pitch, int value, size_t w, size_t h, hipStream_t stream, bool async) {
  if (w == 0 || h == 0) return hipSuccess;
  if (!dst || pitch < w) return hipErrorInvalidValue;
  auto c = allocations().covers(dst, pitch * (h - 1) + w);
  if (!c || !*c) return hipErrorInvalidValue;
  return run(stream, async, false, [=] {
    for (size_t r = 0; r < h; ++r) std::memset(static_cast<uint8_t*>(dst) + r * pitch, value, w);
    return hipSuccess;
  });
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
