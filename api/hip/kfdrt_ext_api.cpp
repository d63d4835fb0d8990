// SPDX-License-Identifier: MIT
// The kfdrt extension API hc builds on (api/include/hc/detail/kfdrt_ext.h): timestamps, signals, gpu ids, raw AQL dispatch.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "api/hip/alloc.h"
#include "api/hip/code.h"
#include "api/hip/stream.h"
#include "pm4/kernel_descriptor.h"
#include "queues/scratch.h"

using namespace hip;

namespace {

namespace aql = queues::aql;

// Largest kernel-argument block a raw dispatch may carry (kernels take a few KiB at most).
constexpr size_t kMaxKernargBytes = size_t(64) << 10;
// Largest per-work-item private segment the queue's scratch can hold.
constexpr uint32_t kMaxPrivateBytes = queues::scratch::kMaxLaneBytesGfx9;

// A GET_CLOCK_COUNTERS sample of `dev`: its GPU timestamp counter and the system clock.
hipError_t clock_sample(Device& dev, const char* api, gpu::ClockCounters* out) {
  auto c = dev.gpu().clock_counters();
  if (!c) {
    debug_log(api, c.message());
    return from_error(c.error(), hipErrorUnknown);
  }
  if (c->system_clock_freq == 0 || c->gpu_clock_counter == 0) {
    debug_log(api, "GET_CLOCK_COUNTERS gave no GPU counter or no system frequency (gpu_id=" +
                       std::to_string(dev.gpu_id()) + ")");
    return hipErrorNotSupported;
  }
  *out = *c;
  return hipSuccess;
}

// A GPU timestamp (the counter the command processor stamps signals with, `gpu_hz`) in system
// ticks, through a sample taken after it: the timestamps are recent, so the sample's rate error
// applies only to the short interval between them.
uint64_t to_system(const gpu::ClockCounters& c, uint64_t gpu_hz, uint64_t gpu_ts) {
  using u128 = unsigned __int128;
  if (gpu_ts <= c.gpu_clock_counter) {
    u128 back = u128(c.gpu_clock_counter - gpu_ts) * c.system_clock_freq / gpu_hz;
    return back >= c.system_clock_counter ? 0 : c.system_clock_counter - uint64_t(back);
  }
  return c.system_clock_counter + uint64_t(u128(gpu_ts - c.gpu_clock_counter) * c.system_clock_freq / gpu_hz);
}

// Checks a caller's kernel-dispatch packet and turns it into dispatch parameters for `dev`.
hipError_t parse_packet(const void* packet, Device& dev, queues::KernelLaunch* out, queues::Fence* fence) {
  aql::KernelDispatchPacket k;
  std::memcpy(&k, packet, sizeof k);
  if (aql::header_type(k.header) != aql::kTypeKernelDispatch) return hipErrorInvalidValue;
  aql::FenceScope acq = aql::header_acquire(k.header), rel = aql::header_release(k.header);
  if (acq > aql::kScopeSystem || rel > aql::kScopeSystem) return hipErrorInvalidValue;
  // The descriptor must be one the runtime loaded for this device (64-byte aligned, 64 bytes).
  auto code = allocations().find(reinterpret_cast<const void*>(uintptr_t(k.kernel_object)));
  if (k.kernel_object == 0 || k.kernel_object % 64 || !code || code->kind != AllocKind::Code ||
      code->device != dev.index() || k.kernel_object + 64 > code->base + code->size)
    return hipErrorInvalidValue;
  const hipDeviceProp_tR0600& pr = dev.limits();
  unsigned dims = k.setup & 3;
  uint16_t wg[3] = {k.workgroup_size_x, k.workgroup_size_y, k.workgroup_size_z};
  uint32_t grid[3] = {k.grid_size_x, k.grid_size_y, k.grid_size_z};
  if (dims == 0) return hipErrorInvalidConfiguration;
  for (unsigned i = 0; i < 3; ++i) {
    if (wg[i] == 0 || grid[i] == 0 || wg[i] > pr.maxThreadsDim[i]) return hipErrorInvalidConfiguration;
    if (i >= dims && (wg[i] != 1 || grid[i] != 1)) return hipErrorInvalidConfiguration;  // HSA: unused = 1
  }
  if (uint64_t(wg[0]) * wg[1] * wg[2] > uint64_t(pr.maxThreadsPerBlock) ||
      k.group_segment_size > pr.sharedMemPerBlock || k.private_segment_size > kMaxPrivateBytes)
    return hipErrorInvalidConfiguration;
  // The kernel's own private segment, as a HIP launch gives it: the queue's scratch is sized
  // from the packet, so a smaller packet value would leave the kernel short.
  pm4::KernelDescriptor kd;
  std::memcpy(&kd, reinterpret_cast<const void*>(uintptr_t(k.kernel_object)), sizeof kd);
  const uint64_t need = scratch_per_item(kd.private_segment_fixed_size,
                                         kd.kernel_code_properties & pm4::kUsesDynamicStack);
  if (need > kMaxPrivateBytes) return hipErrorInvalidConfiguration;
  queues::KernelLaunch& l = *out;
  *fence = queues::Fence{true, acq, rel};  // the barrier bit orders it after the stream's work
  l.dims = dims;
  for (int i = 0; i < 3; ++i) l.block[i] = wg[i], l.grid[i] = grid[i];
  l.private_segment_bytes = std::max(k.private_segment_size, uint32_t(need));
  l.group_segment_bytes = k.group_segment_size;
  l.kernel_object = k.kernel_object;
  return hipSuccess;
}

// A raw dispatch's arguments: the caller's bytes, zero up to the kernel's segment.
struct RawArgs {
  const uint8_t* bytes;
  size_t given, total;
  static void write(void* self, uint8_t* dst) {
    const auto* a = static_cast<const RawArgs*>(self);
    if (a->given) std::memcpy(dst, a->bytes, a->given);
    std::memset(dst + a->given, 0, a->total - a->given);
  }
};

// The completed record of a timed event, or the error kfdrtEventGetTimestamps returns.
hipError_t timed_record(hipEvent_t h, std::shared_ptr<EventRecord>* out) {
  Event* e = find_event(h);
  if (!e || (e->flags() & hipEventDisableTiming)) return hipErrorInvalidHandle;
  auto rec = e->record();
  if (!rec) return hipErrorInvalidHandle;
  if (!rec->done()) return hipErrorNotReady;
  *out = std::move(rec);
  return hipSuccess;
}

}  // namespace

HIP_EXPORT hipError_t kfdrtEventGetTimestamps(hipEvent_t event, uint64_t* start, uint64_t* end) {
  if (!start || !end) return ret(hipErrorInvalidValue);
  std::shared_ptr<EventRecord> rec;
  if (hipError_t e = timed_record(event, &rec); e != hipSuccess) return e == hipErrorNotReady ? e : ret(e);
  const aql::AmdSignal* s = rec->sig->amd();
  if (s->end_ts == 0) {  // the command processor did not stamp it (profiling off)
    debug_log("kfdrtEventGetTimestamps", "the completion signal carries no timestamps");
    return ret(hipErrorNotSupported);
  }
  gpu::ClockCounters c;
  if (hipError_t e = clock_sample(*rec->dev, "kfdrtEventGetTimestamps", &c); e != hipSuccess) return ret(e);
  uint64_t hz = rec->dev->timestamp_hz();
  *start = to_system(c, hz, s->start_ts);
  *end = to_system(c, hz, s->end_ts);
  return hipSuccess;
}

HIP_EXPORT hipError_t kfdrtGetSystemTicks(uint64_t* ticks, uint64_t* frequency_hz) {
  if (!ticks || !frequency_hz) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  gpu::ClockCounters c;
  if (hipError_t e = clock_sample(rt->current(), "kfdrtGetSystemTicks", &c); e != hipSuccess) return ret(e);
  *ticks = c.system_clock_counter;
  *frequency_hz = c.system_clock_freq;
  return hipSuccess;
}

HIP_EXPORT hipError_t kfdrtEventGetSignal(hipEvent_t event, void** amd_signal) {
  if (!amd_signal) return ret(hipErrorInvalidValue);
  Event* e = find_event(event);
  if (!e) return ret(hipErrorInvalidHandle);
  auto rec = e->record();
  if (!rec) return ret(hipErrorInvalidHandle);  // never recorded: no signal yet
  *amd_signal = rec->sig->amd();
  return hipSuccess;
}

HIP_EXPORT hipError_t kfdrtDeviceGetGpuId(int device, uint32_t* gpu_id, uint32_t* node) {
  if (!gpu_id) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  Device* dev = rt->device(device);
  if (!dev) return ret(hipErrorInvalidDevice);
  *gpu_id = dev->gpu_id();
  if (node) *node = dev->gpu().node_id;
  return hipSuccess;
}

HIP_EXPORT hipError_t kfdrtFuncGetKernelObject(const void* function, int device, uint64_t* kernel_object,
                                               uint32_t* kernarg_size, uint32_t* group_segment_size,
                                               uint32_t* private_segment_size) {
  if (!kernel_object) return ret(hipErrorInvalidValue);
  Function* f = function ? Registry::get().function(function) : nullptr;
  if (!f) return ret(hipErrorInvalidDeviceFunction);
  HIP_INIT(rt);
  Device* dev = rt->device(device);
  if (!dev) return ret(hipErrorInvalidDevice);
  auto ki = f->info(*dev);
  if (!ki) {
    debug_log("kfdrtFuncGetKernelObject", ki.message());
    return ret(ki.err() == ENOEXEC ? hipErrorNoBinaryForGpu : hipErrorInvalidDeviceFunction);
  }
  *kernel_object = (*ki)->kernel_object;
  if (kernarg_size) *kernarg_size = (*ki)->kernarg_size;
  if (group_segment_size) *group_segment_size = (*ki)->group_segment;
  if (private_segment_size)
    *private_segment_size = scratch_per_item((*ki)->private_segment, (*ki)->dynamic_stack);
  return hipSuccess;
}

HIP_EXPORT hipError_t kfdrtStreamDispatchAql(hipStream_t stream, const void* packet, const void* kernargs,
                                             size_t kernarg_size, hipEvent_t completion) {
  if (!packet || (kernarg_size && !kernargs) || kernarg_size > kMaxKernargBytes) return ret(hipErrorInvalidValue);
  Event* done = nullptr;
  if (completion && !(done = find_event(completion))) return ret(hipErrorInvalidHandle);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(stream, &s); e != hipSuccess) return ret(e);
  queues::KernelLaunch l;
  queues::Fence fence;
  if (hipError_t e = parse_packet(packet, s->device(), &l, &fence); e != hipSuccess) return ret(e);
  // Kernel-argument memory is reused: bytes the caller does not give, up to the kernel's own
  // kernarg segment (hidden arguments included), are zero rather than an earlier dispatch's.
  pm4::KernelDescriptor kd;
  std::memcpy(&kd, reinterpret_cast<const void*>(uintptr_t(l.kernel_object)), sizeof kd);
  RawArgs args{static_cast<const uint8_t*>(kernargs), kernarg_size,
               std::max<size_t>(kernarg_size, std::min<size_t>(kd.kernarg_size, kMaxKernargBytes))};
  l.kernarg_size = uint32_t(args.total);
  l.kernarg_align = 64;
  l.write_kernarg = &RawArgs::write;
  l.write_ctx = &args;
  return ret(s->launch(l, fence, done, "kfdrtStreamDispatchAql"));
}
