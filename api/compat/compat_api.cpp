// SPDX-License-Identifier: MIT
// HIP 5.2 entry points only the compatibility library exports: per-thread-stream variants, half conversions, small helpers.
#include <cstdint>
#include <cstring>

#include "api/hip/launch.h"
#include "hip/hip_cooperative_groups.h"

using namespace hip;

namespace {

// The _spt entry points name the per-thread default stream by the null handle (HIP 5.2
// amd_hip_runtime_pt_api.h); kfdrt resolves hipStreamPerThread itself.
hipStream_t per_thread(hipStream_t s) { return s ? s : hipStreamPerThread; }

}  // namespace

// ---- Per-thread default stream variants (what -fgpu-default-stream=per-thread programs call) ----

HIP_EXPORT hipError_t hipMemcpy_spt(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  if (hipError_t e = hipMemcpyAsync(dst, src, bytes, kind, hipStreamPerThread); e != hipSuccess) return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipMemcpyAsync_spt(void* dst, const void* src, size_t bytes, hipMemcpyKind kind,
                                         hipStream_t stream) {
  return hipMemcpyAsync(dst, src, bytes, kind, per_thread(stream));
}

HIP_EXPORT hipError_t hipMemcpyToSymbol_spt(const void* symbol, const void* src, size_t bytes, size_t offset,
                                            hipMemcpyKind kind) {
  if (hipError_t e = hipMemcpyToSymbolAsync(symbol, src, bytes, offset, kind, hipStreamPerThread);
      e != hipSuccess)
    return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipMemcpyFromSymbol_spt(void* dst, const void* symbol, size_t bytes, size_t offset,
                                              hipMemcpyKind kind) {
  if (hipError_t e = hipMemcpyFromSymbolAsync(dst, symbol, bytes, offset, kind, hipStreamPerThread);
      e != hipSuccess)
    return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipMemcpy2D_spt(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                      size_t height, hipMemcpyKind kind) {
  if (hipError_t e = hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, hipStreamPerThread);
      e != hipSuccess)
    return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipMemcpy3D_spt(const hipMemcpy3DParms* p) {
  if (hipError_t e = hipMemcpy3DAsync(p, hipStreamPerThread); e != hipSuccess) return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipMemset_spt(void* dst, int value, size_t bytes) {
  if (hipError_t e = hipMemsetAsync(dst, value, bytes, hipStreamPerThread); e != hipSuccess) return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipMemset2D_spt(void* dst, size_t pitch, int value, size_t width, size_t height) {
  if (hipError_t e = hipMemset2DAsync(dst, pitch, value, width, height, hipStreamPerThread); e != hipSuccess)
    return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipMemset3D_spt(hipPitchedPtr p, int value, hipExtent extent) {
  if (hipError_t e = hipMemset3DAsync(p, value, extent, hipStreamPerThread); e != hipSuccess) return e;
  return hipStreamSynchronize(hipStreamPerThread);
}

HIP_EXPORT hipError_t hipStreamQuery_spt(hipStream_t stream) { return hipStreamQuery(per_thread(stream)); }

HIP_EXPORT hipError_t hipStreamSynchronize_spt(hipStream_t stream) {
  return hipStreamSynchronize(per_thread(stream));
}

HIP_EXPORT hipError_t hipStreamGetPriority_spt(hipStream_t stream, int* priority) {
  return hipStreamGetPriority(per_thread(stream), priority);
}

HIP_EXPORT hipError_t hipStreamWaitEvent_spt(hipStream_t stream, hipEvent_t event, unsigned int flags) {
  return hipStreamWaitEvent(per_thread(stream), event, flags);
}

HIP_EXPORT hipError_t hipStreamGetFlags_spt(hipStream_t stream, unsigned int* flags) {
  return hipStreamGetFlags(per_thread(stream), flags);
}

HIP_EXPORT hipError_t hipLaunchKernel_spt(const void* fn, dim3 grid, dim3 block, void** args, size_t shared,
                                          hipStream_t stream) {
  return hipLaunchKernel(fn, grid, block, args, shared, per_thread(stream));
}

HIP_EXPORT hipError_t hipLaunchCooperativeKernel_spt(const void* fn, dim3 grid, dim3 block, void** args,
                                                     uint32_t shared, hipStream_t stream) {
  return hipLaunchCooperativeKernel(fn, grid, block, args, shared, per_thread(stream));
}

// ---- Small helpers HIP 5.2 exports ----

// IEEE 754 binary32 <-> binary16 conversions (compiler-rt's names, which host code of
// hip_fp16.h calls), rounding to nearest even; NaNs stay quiet NaNs.
HIP_EXPORT unsigned short __gnu_f2h_ieee(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff) return uint16_t(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
  const int e = int(exp) - 127 + 15;  // the binary16 exponent field
  if (e >= 31) return uint16_t(sign | 0x7c00);
  uint32_t h, rest, half;
  if (e <= 0) {  // subnormal (or zero): the significand with its implicit bit, shifted down
    if (e < -10) return uint16_t(sign);
    const int shift = 14 - e;
    const uint32_t m = man | 0x800000;
    h = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  } else {
    h = (uint32_t(e) << 10) | (man >> 13), rest = man & 0x1fff, half = 0x1000;
  }
  if (rest > half || (rest == half && (h & 1))) ++h;  // a carry may reach the exponent: correct
  return uint16_t(sign | h);
}

HIP_EXPORT float __gnu_h2f_ieee(unsigned short h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000 | (man << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 127 - 15) << 23) | (man << 13);
  } else if (man == 0) {
    x = sign;
  } else {  // subnormal: normalise the significand
    uint32_t shifts = 0;
    while (!(man & 0x400)) man <<= 1, ++shifts;
    x = sign | ((127 - 14 - shifts) << 23) | ((man & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

// The device a stream belongs to, -1 for an invalid stream (HIP 5.2 hip_stream.cpp).
HIP_EXPORT int hipGetStreamDeviceId(hipStream_t stream) {
  hipDevice_t d = -1;
  return hipStreamGetDevice(stream, &d) == hipSuccess ? d : -1;
}

// What ROCm's debugger API asks the runtime for: this is kfdrt, not a ROCm build.
HIP_EXPORT size_t amd_dbgapi_get_build_id() { return 0; }
HIP_EXPORT const char* amd_dbgapi_get_build_name() { return "kfdrt"; }
HIP_EXPORT const char* amd_dbgapi_get_git_hash() { return ""; }

// hcc's launch path (HIP 5.2 amd_detail/functional_grid_launch.hpp): `kernarg` is an `extra`
// array, HIP_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END. The error is the thread's last error.
namespace hip_impl {
__attribute__((visibility("default"))) void hipLaunchKernelGGLImpl(uintptr_t fn, const dim3& grid,
                                                                  const dim3& block, uint32_t shared,
                                                                  hipStream_t stream, void** kernarg) {
  Function* f = fn ? Registry::get().function(reinterpret_cast<const void*>(fn)) : nullptr;
  if (!f) {
    (void)ret(hipErrorInvalidDeviceFunction, "hipLaunchKernelGGL");
    return;
  }
  ArgSource args;
  if (!kernarg) {
    (void)ret(hipErrorInvalidValue, "hipLaunchKernelGGL");
    return;
  }
  if (hipError_t e = parse_launch_extra(kernarg, &args); e != hipSuccess) {
    (void)ret(e, "hipLaunchKernelGGL");
    return;
  }
  (void)ret(launch(f, grid, block, shared, stream, args, "hipLaunchKernelGGL"), "hipLaunchKernelGGL");
}
}  // namespace hip_impl
