// SPDX-License-Identifier: MIT
// HIP stream and event API: creation, ordering, host callbacks, synchronisation, timing.
#include <algorithm>
#include <mutex>
#include <unordered_set>

#include <sched.h>

#include "api/hip/stream.h"

using namespace hip;

namespace {

// The answer to a query that finds work still pending. A caller may poll in a tight loop, and a
// thread that work waits for (the runtime's hostcall thread, a host-side part of the device) may
// share this core: from the second "not ready" in a row on, the polling thread yields once per
// answer, as a waiter past its spin does. A single check costs nothing extra.
thread_local unsigned t_not_ready_streak = 0;
hipError_t not_ready() {
  if (++t_not_ready_streak > 1) sched_yield();
  return hipErrorNotReady;
}
hipError_t ready() {
  t_not_ready_streak = 0;
  return hipSuccess;
}

constexpr unsigned kEventFlags = hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess |
                                 hipEventDisableSystemFence | hipEventReleaseToDevice |
                                 hipEventReleaseToSystem;

// Live events, so that a stale or bogus handle is an error rather than a crash.
struct EventSet {
  std::mutex mu;
  std::unordered_set<Event*> live;
};
EventSet& events() {
  static EventSet* s = new EventSet();
  return *s;
}

bool valid(hipEvent_t h) {
  std::lock_guard lk(events().mu);
  return h && events().live.count(reinterpret_cast<Event*>(h));
}

Event* ev(hipEvent_t h) { return reinterpret_cast<Event*>(h); }

hipError_t explicit_stream(Runtime* rt, hipStream_t h, std::shared_ptr<Stream>* out) {
  return rt->stream(h, out);
}

hipError_t create(hipStream_t* out, unsigned flags, int priority) {
  if (!out || (flags & ~unsigned(hipStreamNonBlocking))) return hipErrorInvalidValue;
  HIP_INIT_NAMED(rt, "hipStreamCreate");
  auto s = rt->current().create_stream(flags, std::clamp(priority, -1, 0));
  if (!s) {
    debug_log("hipStreamCreate", s.message());
    return from_error(s.error(), hipErrorOutOfMemory);
  }
  rt->add_stream_handle(*s);
  *out = reinterpret_cast<hipStream_t>(s->get());
  return hipSuccess;
}

hipError_t wait_record(const EventRecord& rec, bool blocking) {
  if (rec.done()) return hipSuccess;
  auto r = rec.sig->wait(queues::Cond::Eq, 0, queues::kForever, rec.dev->wait_policy(blocking));
  if (!r) {
    report_device_error("hipEventSynchronize", r.error());
    return from_error(r.error(), hipErrorLaunchFailure);
  }
  return hipSuccess;
}

hipError_t add_host_fn(hipStream_t h, std::function<void()> fn) {
  HIP_INIT_NAMED(rt, "hipStreamAddCallback");
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return e;
  return s->host_op(
      [fn = std::move(fn)] {
        fn();
        return hipSuccess;
      },
      Stream::Mode::Worker);
}

}  // namespace

Event* hip::find_event(hipEvent_t h) { return valid(h) ? ev(h) : nullptr; }

HIP_EXPORT hipError_t hipStreamCreate(hipStream_t* s) { return ret(create(s, hipStreamDefault, 0)); }
HIP_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned int flags) {
  return ret(create(s, flags, 0));
}
HIP_EXPORT hipError_t hipStreamCreateWithPriority(hipStream_t* s, unsigned int flags, int priority) {
  return ret(create(s, flags, priority));
}

HIP_EXPORT hipError_t hipStreamDestroy(hipStream_t h) {
  if (!h) return ret(hipErrorInvalidHandle);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = explicit_stream(rt, h, &s); e != hipSuccess) return ret(e);
  if (s->is_null()) return ret(hipErrorInvalidHandle);
  rt->remove_stream_handle(s.get());
  return ret(s->device().destroy_stream(s.get()));
}

HIP_EXPORT hipError_t hipStreamSynchronize(hipStream_t h) {
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return ret(e);
  return ret(s->synchronize("hipStreamSynchronize"));
}

HIP_EXPORT hipError_t hipStreamQuery(hipStream_t h) {
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return ret(e);
  hipError_t e = s->query();
  if (e == hipErrorNotReady) return not_ready();  // "not ready" is an answer, not an error
  return e == hipSuccess ? ready() : ret(e);
}

HIP_EXPORT hipError_t hipStreamWaitEvent(hipStream_t h, hipEvent_t e, unsigned int flags) {
  if (flags != 0) return ret(hipErrorInvalidValue);
  if (!valid(e)) return ret(hipErrorInvalidHandle);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t err = rt->stream(h, &s); err != hipSuccess) return ret(err);
  return ret(s->wait(ev(e)->record()));
}

HIP_EXPORT hipError_t hipStreamAddCallback(hipStream_t h, hipStreamCallback_t cb, void* user,
                                           unsigned int flags) {
  if (!cb || flags != 0) return ret(hipErrorInvalidValue);
  return ret(add_host_fn(h, [cb, h, user] { cb(h, hipSuccess, user); }));
}

HIP_EXPORT hipError_t hipLaunchHostFunc(hipStream_t h, hipHostFn_t fn, void* user) {
  if (!fn) return ret(hipErrorInvalidValue);
  return ret(add_host_fn(h, [fn, user] { fn(user); }));
}

HIP_EXPORT hipError_t hipStreamGetFlags(hipStream_t h, unsigned int* flags) {
  if (!flags) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return ret(e);
  *flags = s->flags();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipStreamGetPriority(hipStream_t h, int* priority) {
  if (!priority) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return ret(e);
  *priority = s->priority();
  return hipSuccess;
}

HIP_EXPORT hipError_t hipStreamGetDevice(hipStream_t h, hipDevice_t* device) {
  if (!device) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return ret(e);
  *device = s->device().index();
  return hipSuccess;
}

// ---- Events ----

HIP_EXPORT hipError_t hipEventCreateWithFlags(hipEvent_t* out, unsigned flags) {
  if (!out || (flags & ~kEventFlags)) return ret(hipErrorInvalidValue);
  if ((flags & hipEventReleaseToDevice) && (flags & hipEventReleaseToSystem)) return ret(hipErrorInvalidValue);
  if ((flags & hipEventInterprocess) && !(flags & hipEventDisableTiming)) return ret(hipErrorInvalidValue);
  auto* e = new Event(flags);
  {
    std::lock_guard lk(events().mu);
    events().live.insert(e);
  }
  *out = reinterpret_cast<hipEvent_t>(e);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipEventCreate(hipEvent_t* out) { return hipEventCreateWithFlags(out, hipEventDefault); }

HIP_EXPORT hipError_t hipEventDestroy(hipEvent_t h) {
  {
    std::lock_guard lk(events().mu);
    if (!h || !events().live.erase(ev(h))) return ret(hipErrorInvalidHandle);
  }
  delete ev(h);  // a pending record lives on in the streams that use it
  return hipSuccess;
}

HIP_EXPORT hipError_t hipEventRecord(hipEvent_t h, hipStream_t stream) {
  if (!valid(h)) return ret(hipErrorInvalidHandle);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(stream, &s); e != hipSuccess) return ret(e);
  return ret(s->record(*ev(h)));
}

HIP_EXPORT hipError_t hipEventSynchronize(hipEvent_t h) {
  if (!valid(h)) return ret(hipErrorInvalidHandle);
  auto rec = ev(h)->record();
  if (!rec) return hipSuccess;  // never recorded: nothing to wait for
  return ret(wait_record(*rec, (ev(h)->flags() & hipEventBlockingSync) != 0));
}

HIP_EXPORT hipError_t hipEventQuery(hipEvent_t h) {
  if (!valid(h)) return ret(hipErrorInvalidHandle);
  auto rec = ev(h)->record();
  if (!rec || rec->done()) return ready();
  if (auto st = rec->dev->qrt().check_device(false); !st) {
    report_device_error("hipEventQuery", st.error());
    return ret(from_error(st.error(), hipErrorLaunchFailure));
  }
  return not_ready();
}

HIP_EXPORT hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  if (!ms) return ret(hipErrorInvalidValue);
  if (!valid(start) || !valid(stop)) return ret(hipErrorInvalidHandle);
  if ((ev(start)->flags() | ev(stop)->flags()) & hipEventDisableTiming) return ret(hipErrorInvalidHandle);
  auto a = ev(start)->record(), b = ev(stop)->record();
  if (!a || !b) return ret(hipErrorInvalidHandle);
  if (!a->done() || !b->done()) return ret(hipErrorNotReady);
  // Both markers' end timestamps, in ticks of the GPU's constant-rate clock.
  int64_t ticks = int64_t(b->sig->amd()->end_ts) - int64_t(a->sig->amd()->end_ts);
  *ms = float(double(ticks) * 1000.0 / double(a->dev->timestamp_hz()));
  return hipSuccess;
}

// kfdrt extension (declared in hc's detail/kfdrt_ext.h): the AQL queue (hsa_queue_t*, the
// amd_queue_t at its start) that `h`'s packets go to, for hc's accelerator_view::get_hsa_queue.
HIP_EXPORT hipError_t kfdrtStreamGetAqlQueue(hipStream_t h, void** queue) {
  if (!queue) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return ret(e);
  *queue = reinterpret_cast<void*>(s->queue().queue_address());
  return hipSuccess;
}

// ---- CU masks (hipExtStreamCreateWithCUMask, hipExtStreamGetCUMask) --------------------------
// Bit i of the mask's dwords is the device's i-th compute unit as amdkfd numbers them for a
// queue (AMDKFD_IOC_SET_CU_MASK: the first CU of every shader engine, then the second, ...); bits
// past the device's CUs are ignored (HIP's documentation). A mask that enables none of them is
// refused here: a GPU queue with no CU enabled never runs a kernel.

HIP_EXPORT hipError_t hipExtStreamCreateWithCUMask(hipStream_t* stream, uint32_t cuMaskSize, const uint32_t* cuMask) {
  if (!stream) return ret(hipErrorInvalidHandle);
  if (cuMaskSize == 0 || !cuMask) return ret(hipErrorInvalidValue);
  HIP_INIT_NAMED(rt, "hipExtStreamCreateWithCUMask");
  Device& dev = rt->current();
  const uint32_t cus = static_cast<uint32_t>(std::max(0, dev.limits().multiProcessorCount));
  bool any = false;
  for (uint32_t i = 0; i < cus && i / 32 < cuMaskSize; ++i) any |= (cuMask[i / 32] >> (i % 32)) & 1;
  if (!any) {
    warn_once("hipExtStreamCreateWithCUMask",
              "the CU mask enables none of the device's " + std::to_string(cus) + " compute units");
    return ret(hipErrorInvalidValue);
  }
  auto s = dev.create_stream_with_cu_mask(std::span(cuMask, cuMaskSize));
  if (!s) {
    debug_log("hipExtStreamCreateWithCUMask", s.message());
    return ret(from_error(s.error(), hipErrorOutOfMemory));
  }
  rt->add_stream_handle(*s);
  *stream = reinterpret_cast<hipStream_t>(s->get());
  return hipSuccess;
}

HIP_EXPORT hipError_t hipExtStreamGetCUMask(hipStream_t h, uint32_t cuMaskSize, uint32_t* cuMask) {
  if (cuMaskSize == 0 || !cuMask) return ret(hipErrorInvalidValue);
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(h, &s); e != hipSuccess) return ret(e);
  Device& dev = s->device();
  const uint32_t cus = static_cast<uint32_t>(std::max(0, dev.limits().multiProcessorCount));
  const std::vector<uint32_t> mask = dev.stream_cu_mask(s.get());
  for (uint32_t w = 0; w < cuMaskSize; ++w) {  // the CUs the stream runs on, as many dwords as fit
    uint32_t bits = 0;
    for (uint32_t b = 0; b < 32; ++b) {
      const uint32_t i = w * 32 + b;
      if (i < cus && (mask.empty() || (w < mask.size() && ((mask[w] >> b) & 1)))) bits |= 1u << b;
    }
    cuMask[w] = bits;
  }
  return hipSuccess;
}
