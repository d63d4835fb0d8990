// SPDX-License-Identifier: MIT
// HIP's deprecated context API: one primary context per device and a per-thread context stack.
#include <mutex>
#include <vector>

#include "api/hip/code.h"

// A context is its device: HIP has no per-context state beyond the device a context selects.
struct ihipCtx_t {
  int device = -1;
};

using namespace hip;

namespace {

ihipCtx_t g_contexts[kMaxDevices];

// The contexts this thread pushed (hipCtxCreate / hipCtxPushCurrent); the top is current.
thread_local std::vector<ihipCtx_t*> t_stack;

hipCtx_t context_of(int device) {
  g_contexts[device].device = device;  // the same value from every thread
  return &g_contexts[device];
}

// The device a context handle stands for, or -1 when the handle is not one of ours.
int device_of(Runtime* rt, hipCtx_t ctx) {
  for (int i = 0; i < rt->device_count() && i < kMaxDevices; ++i)
    if (ctx == &g_contexts[i]) return i;
  return -1;
}

}  // namespace

HIP_EXPORT hipError_t hipCtxCreate(hipCtx_t* ctx, unsigned int flags, hipDevice_t device) {
  if (!ctx) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  if (!rt->device(device) || device >= kMaxDevices) return ret(hipErrorInvalidDevice);
  int previous = rt->current_index();
  rt->set_current(device);
  if (hipError_t e = hipSetDeviceFlags(flags); e != hipSuccess) {  // the flags are the device's
    rt->set_current(previous);
    return e;
  }
  *ctx = context_of(device);
  t_stack.push_back(*ctx);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipCtxDestroy(hipCtx_t ctx) {
  HIP_INIT(rt);
  if (device_of(rt, ctx) < 0) return ret(hipErrorInvalidContext);
  if (!t_stack.empty() && t_stack.back() == ctx) t_stack.pop_back();
  if (!t_stack.empty()) rt->set_current(t_stack.back()->device);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipCtxPushCurrent(hipCtx_t ctx) {
  HIP_INIT(rt);
  int dev = device_of(rt, ctx);
  if (dev < 0) return ret(hipErrorInvalidContext);
  t_stack.push_back(ctx);
  rt->set_current(dev);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipCtxPopCurrent(hipCtx_t* ctx) {
  HIP_INIT(rt);
  if (t_stack.empty()) return ret(hipErrorInvalidContext);
  if (ctx) *ctx = t_stack.back();
  t_stack.pop_back();
  if (!t_stack.empty()) rt->set_current(t_stack.back()->device);
  return hipSuccess;
}

// Replaces the top of the stack; a null context pops it.
HIP_EXPORT hipError_t hipCtxSetCurrent(hipCtx_t ctx) {
  HIP_INIT(rt);
  if (!ctx) {
    if (!t_stack.empty()) t_stack.pop_back();
    return hipSuccess;
  }
  int dev = device_of(rt, ctx);
  if (dev < 0) return ret(hipErrorInvalidContext);
  if (t_stack.empty())
    t_stack.push_back(ctx);
  else
    t_stack.back() = ctx;
  rt->set_current(dev);
  return hipSuccess;
}

// The current device's context: HIP makes the primary context current implicitly.
HIP_EXPORT hipError_t hipCtxGetCurrent(hipCtx_t* ctx) {
  if (!ctx) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  *ctx = rt->current_index() < kMaxDevices ? context_of(rt->current_index()) : nullptr;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipCtxGetDevice(hipDevice_t* device) {
  if (!device) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  *device = rt->current_index();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipCtxGetFlags(unsigned int* flags) { return hipGetDeviceFlags(flags); }
HIP_EXPORT hipError_t hipCtxSynchronize(void) { return hipDeviceSynchronize(); }
HIP_EXPORT hipError_t hipCtxGetCacheConfig(hipFuncCache_t* c) { return hipDeviceGetCacheConfig(c); }
HIP_EXPORT hipError_t hipCtxSetCacheConfig(hipFuncCache_t c) { return hipDeviceSetCacheConfig(c); }
HIP_EXPORT hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig* c) { return hipDeviceGetSharedMemConfig(c); }
HIP_EXPORT hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig c) { return hipDeviceSetSharedMemConfig(c); }

HIP_EXPORT hipError_t hipCtxEnablePeerAccess(hipCtx_t peer, unsigned int flags) {
  HIP_INIT(rt);
  int dev = device_of(rt, peer);
  if (dev < 0) return ret(hipErrorInvalidContext);
  return hipDeviceEnablePeerAccess(dev, flags);
}

HIP_EXPORT hipError_t hipCtxDisablePeerAccess(hipCtx_t peer) {
  HIP_INIT(rt);
  int dev = device_of(rt, peer);
  if (dev < 0) return ret(hipErrorInvalidContext);
  return hipDeviceDisablePeerAccess(dev);
}

// ---- Primary contexts: they exist, and are active, for as long as the runtime is open ----
HIP_EXPORT hipError_t hipDevicePrimaryCtxRetain(hipCtx_t* ctx, hipDevice_t device) {
  if (!ctx) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  if (!rt->device(device) || device >= kMaxDevices) return ret(hipErrorInvalidDevice);
  *ctx = context_of(device);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDevicePrimaryCtxRelease(hipDevice_t device) {
  HIP_INIT(rt);
  return rt->device(device) ? hipSuccess : ret(hipErrorInvalidDevice);
}

HIP_EXPORT hipError_t hipDevicePrimaryCtxGetState(hipDevice_t device, unsigned int* flags, int* active) {
  if (!flags || !active) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* d = rt->device(device);
  if (!d) return ret(hipErrorInvalidDevice);
  *flags = d->flags();
  *active = 1;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipDevicePrimaryCtxReset(hipDevice_t device) {
  HIP_INIT(rt);
  Device* d = rt->device(device);
  if (!d) return ret(hipErrorInvalidDevice);
  return ret(d->reset());
}

// An active primary context's flags cannot change (hipSetDeviceFlags can).
HIP_EXPORT hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t device, unsigned int) {
  HIP_INIT(rt);
  if (!rt->device(device)) return ret(hipErrorInvalidDevice);
  return ret(hipErrorContextAlreadyInUse);
}
