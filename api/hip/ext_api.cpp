// SPDX-License-Identifier: MIT
// AMD's launch extensions (hip_ext.h): grids in work-items, and events recorded around the kernel.
#include "api/hip/launch.h"
#include "hip/hip_ext.h"
#include "api/hip/stream.h"

using namespace hip;

namespace {

// Validates the events, records `start`, runs `launch_fn`, records `stop`: the events bracket the
// kernel in stream order, so their elapsed time covers it.
template <class Launch>
hipError_t bracketed(hipStream_t stream, hipEvent_t start, hipEvent_t stop, Launch launch_fn) {
  if ((start && !find_event(start)) || (stop && !find_event(stop))) return hipErrorInvalidHandle;
  if (start)
    if (hipError_t e = hipEventRecord(start, stream); e != hipSuccess) return e;
  if (hipError_t e = launch_fn(); e != hipSuccess) return e;
  return stop ? hipEventRecord(stop, stream) : hipSuccess;
}

}  // namespace

// The global sizes count work-items; one that is not a multiple of the block size ends in a
// partial block. `flags` (hipExtAnyOrderLaunch) only relaxes ordering, so it is accepted as 0 or 1.
// This and hipHccModuleLaunchKernel are C++ functions, as in HIP 5.2's hip_ext.h.
HIP_EXPORT_CXX hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                               uint32_t bx, uint32_t by, uint32_t bz, size_t shared,
                                               hipStream_t stream, void** params, void** extra,
                                               hipEvent_t start, hipEvent_t stop, uint32_t flags) {
  if (!f) return ret(hipErrorInvalidHandle);
  if ((params && extra) || flags > 1) return ret(hipErrorInvalidValue);
  ArgSource args;
  args.params = params;
  if (extra)
    if (hipError_t e = parse_launch_extra(extra, &args); e != hipSuccess) return ret(e);
  const uint32_t items[3] = {gx, gy, gz};
  return ret(bracketed(stream, start, stop, [&] {
    return launch_items(reinterpret_cast<Function*>(f), items, dim3(bx, by, bz), shared, stream, args,
                        "hipExtModuleLaunchKernel");
  }));
}

HIP_EXPORT_CXX hipError_t hipHccModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                               uint32_t bx, uint32_t by, uint32_t bz, size_t shared,
                                               hipStream_t stream, void** params, void** extra,
                                               hipEvent_t start, hipEvent_t stop) {
  return hipExtModuleLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra, start, stop, 0);
}

// hipLaunchKernel with events; the grid is in blocks.
HIP_EXPORT hipError_t hipExtLaunchKernel(const void* fn, dim3 grid, dim3 block, void** args, size_t shared,
                                         hipStream_t stream, hipEvent_t start, hipEvent_t stop, int flags) {
  Function* f = fn ? Registry::get().function(fn) : nullptr;
  if (!f) return ret(hipErrorInvalidDeviceFunction);
  if (flags != 0 && flags != 1) return ret(hipErrorInvalidValue);
  return ret(bracketed(stream, start, stop, [&] {
    return launch(f, grid, block, shared, stream, ArgSource{args, nullptr, 0}, "hipExtLaunchKernel");
  }));
}
