// SPDX-License-Identifier: MIT
// EventManager: events page, shared interrupt events within a budget, MEMORY / HW_EXCEPTION faults.
#include "queues/events.h"

#include "trace/trace.h"

#include <cerrno>
#include <cstring>

#include <algorithm>

#include "kfd/uapi_ext.h"
#include "queues/aql_queue.h"
#include "queues/signal.h"

namespace queues {
namespace {

// KFD_IOC_EVENT_* types (kfd_ioctl.h).
constexpr uint32_t kEventSignal = KFD_IOC_EVENT_SIGNAL;
constexpr uint32_t kEventHwException = KFD_IOC_EVENT_HW_EXCEPTION;
constexpr uint32_t kEventMemory = KFD_IOC_EVENT_MEMORY;

// hw_exception_data.gpu_id before WAIT_EVENTS: no GPU has this id.
constexpr uint32_t kNoHwData = 0xFFFFFFFFu;

kfd::EventData event_data(uint32_t id, uint64_t age) {
  kfd::EventData d{};
  d.event_id = id;
  kfd::uapi::SignalEventData s{age};
  std::memcpy(&d.memory_exception_data, &s, sizeof s);
  return d;
}

}  // namespace

EventManager::EventManager(const gpu::Platform& platform, mem::Context& ctx,
                           uint32_t max_interrupt_events, const WaitPolicy& policy)
    : ctx_(ctx), kfd_(platform.kfd()), node_id_(platform.devices().front()->node_id), policy_(policy) {
  // Slot 0 is reserved and two events watch for faults; keep the rest of the page as headroom
  // for other users of /dev/kfd in this process.
  uint32_t cap = kfd::uapi::kEventSlots - 3;
  max_events_ = max_interrupt_events == 0 ? 1u : (max_interrupt_events > cap ? cap : max_interrupt_events);
  use_age_ = kfd_.has_minor(kfd::minor::kLastEventAge);
}

EventManager::~EventManager() {
  for (auto& e : events_) (void)kfd_.destroy_event(e->event_id);
  if (hw_event_) (void)kfd_.destroy_event(hw_event_);
  if (queue_error_.event_id) (void)kfd_.destroy_event(queue_error_.event_id);
  if (memory_event_) (void)kfd_.destroy_event(memory_event_);
  if (page_) (void)ctx_.free(page_);
}

base::Status EventManager::init() {
  mem::AllocRequest r;
  r.heap = mem::Heap::Gtt;
  r.coherence = mem::Coherence::Uncached;
  r.size = kfd::uapi::kEventPageSize;
  r.map_all = true;
  KFD_ASSIGN(page_, ctx_.allocate(r));
  KFD_ASSIGN(mem::AllocationInfo info, ctx_.lookup(page_));
  const uint32_t node = node_id_;
  // Manual reset: once a fault is raised every waiter, present and future, sees it.
  KFD_ASSIGN(kfd::EventInfo mem_ev, kfd_.create_event(kEventMemory, false, node, info.handle));
  memory_event_ = mem_ev.event_id;
  KFD_ASSIGN(kfd::EventInfo hw_ev, kfd_.create_event(kEventHwException, false, node));
  hw_event_ = hw_ev.event_id;
  KFD_ASSIGN(kfd::EventInfo q_ev, kfd_.create_event(kEventSignal, false, 0));
  queue_error_.event_id = q_ev.event_id;
  queue_error_.slot = q_ev.event_slot_index;
  queue_error_.mailbox = reinterpret_cast<uint64_t>(page_) + uint64_t(q_ev.event_slot_index) * 8;
  return {};
}

base::Status EventManager::reset_queue_error_event() {
  return kfd_.reset_event(queue_error_.event_id);
}

InterruptEvent* EventManager::acquire() {
  std::lock_guard lk(mu_);
  if (events_.size() < max_events_) {
    auto r = kfd_.create_event(kEventSignal, true, 0);
    if (r) {
      auto e = std::make_unique<InterruptEvent>();
      e->event_id = r->event_id;
      e->slot = r->event_slot_index;
      e->mailbox = reinterpret_cast<uint64_t>(page_) + uint64_t(r->event_slot_index) * 8;
      e->users = 1;
      events_.push_back(std::move(e));
      return events_.back().get();
    }
    // Out of events (another user took the slots): share what we have, or poll.
    max_events_.store(uint32_t(events_.size()), std::memory_order_relaxed);
  }
  if (events_.empty()) return nullptr;
  // Least used of a few candidates, round robin, so sharing stays even without a full scan.
  InterruptEvent* best = nullptr;
  for (size_t i = 0; i < 4 && i < events_.size(); ++i) {
    InterruptEvent* e = events_[(next_ + i) % events_.size()].get();
    if (!best || e->users < best->users) best = e;
  }
  next_ = (next_ + 1) % events_.size();
  best->users++;
  return best;
}

void EventManager::release(InterruptEvent* ev) {
  if (ev) ev->users--;
}

base::Status EventManager::set(InterruptEvent* ev) { return kfd_.set_event(ev->event_id); }

size_t EventManager::event_count() const {
  std::lock_guard lk(mu_);
  return events_.size();
}

void EventManager::record_fault(base::Error e) {
  std::lock_guard lk(mu_);
  if (!fault_) fault_ = std::move(e);
  faulted_.store(true, std::memory_order_release);
}

base::Status EventManager::fault() const {
  if (!faulted()) return {};
  std::lock_guard lk(mu_);
  return *fault_;
}

base::Status EventManager::check_fault_data(const std::vector<kfd::EventData>& data) {
  for (const auto& d : data) {
    if (d.event_id == memory_event_) {
      const auto& m = d.memory_exception_data;
      if (m.gpu_id == 0 && m.va == 0) continue;
      std::string why = m.failure.NotPresent ? "page not present"
                        : m.failure.ReadOnly ? "write to a read-only page"
                        : m.failure.NoExecute ? "execute of a no-execute page"
                                              : "access fault";
      record_fault(base::Error::of_kind(base::ErrorKind::DeviceFault, "GPU memory fault at " + base::hex(m.va) + " on GPU " +
                                   base::hex(m.gpu_id) + " (" + why +
                                   (m.failure.imprecise ? ", imprecise" : "") + ")", EFAULT));
    } else if (d.event_id == hw_event_) {
      const auto& h = d.hw_exception_data;
      if (h.gpu_id == kNoHwData) continue;  // not signaled: the kernel copied nothing back
      if (h.gpu_id == 0) {
        // Signaled without details (kfd_signal_hw_exception_event: e.g. a PM4 or SDMA queue
        // stopped on a packet the engine refused).
        record_fault(base::Error::of_kind(base::ErrorKind::DeviceFault,
                                          "GPU hardware exception (the driver gave no details: "
                                          "a queue without an error signal stopped, e.g. on a bad packet)",
                                          EIO));
        continue;
      }
      record_fault(base::Error::of_kind(base::ErrorKind::DeviceFault, "GPU hardware exception on GPU " + base::hex(h.gpu_id) +
                                   " (reset_type=" + std::to_string(h.reset_type) +
                                   ", reset_cause=" + std::to_string(h.reset_cause) +
                                   ", memory_lost=" + std::to_string(h.memory_lost) + ")", EIO));
    }
  }
  return fault();
}

base::Result<WakeReason> EventManager::wait(InterruptEvent* ev, uint64_t age, uint32_t timeout_ms) {
  KFD_TRY(fault());
  std::vector<kfd::EventData> data;
  data.reserve(4);
  if (ev) data.push_back(event_data(ev->event_id, use_age_ ? age : 0));
  data.push_back(event_data(queue_error_.event_id, 0));
  data.push_back(event_data(memory_event_, 0));
  data.push_back(event_data(hw_event_, 0));
  // WAIT_EVENTS copies a signaled HW_EXCEPTION event's data back (Linux 6.8+), all zero when the
  // driver raised it without details: a marker tells "signaled, no data" from "not signaled".
  data.back().hw_exception_data.gpu_id = kNoHwData;
  trace::WaitEventsScope traced(ev ? ev->event_id : 0, timeout_ms != 0);
  KFD_ASSIGN(kfd::WaitResult res, kfd_.wait_events(data, false, timeout_ms));
  if (res == kfd::WaitResult::Complete) traced.set_woken(ev ? ev->event_id : queue_error_.event_id);
  if (ev && use_age_) {
    kfd::uapi::SignalEventData s{};
    std::memcpy(&s, &data[0].memory_exception_data, sizeof s);
    // The kernel returns the event's current age; a racing waiter may store an older one,
    // which only costs it one early return.
    if (s.last_event_age) ev->age.store(s.last_event_age, std::memory_order_release);
  }
  if (ev) data.erase(data.begin());
  KFD_TRY(check_fault_data(data));
  if (res == kfd::WaitResult::Fail)
    return base::Error::msg("AMDKFD_IOC_WAIT_EVENTS: wait_result FAIL", EIO);
  return res == kfd::WaitResult::Timeout ? WakeReason::Timeout : WakeReason::Event;
}

base::Status EventManager::poll_faults() {
  auto r = wait(nullptr, 0, 0);
  if (!r) return r.error();
  return {};
}

}  // namespace queues

namespace queues {

base::Result<aql::AmdSignal*> EventManager::make_signal_storage(int64_t initial, InterruptEvent* ev) {
  KFD_ASSIGN(void* mem, ctx_.allocate_signal_memory(sizeof(aql::AmdSignal)));
  auto* s = static_cast<aql::AmdSignal*>(mem);
  std::memset(static_cast<void*>(s), 0, sizeof *s);
  s->kind = aql::kSignalKindUser;
  s->value = initial;
  if (ev) {
    s->event_mailbox_ptr = ev->mailbox;
    s->event_id = ev->event_id;
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  return s;
}

void EventManager::destroy_signal_storage(aql::AmdSignal* sig, InterruptEvent* ev) {
  if (ev) release(ev);
  (void)ctx_.free(sig);
}

base::Result<std::unique_ptr<Signal>> EventManager::create_signal(int64_t initial, SignalKind kind) {
  InterruptEvent* ev = kind == SignalKind::Interrupt ? acquire() : nullptr;
  auto s = make_signal_storage(initial, ev);
  if (!s) {
    release(ev);
    return s.error();
  }
  return std::unique_ptr<Signal>(new Signal(this, *s, ev));
}

void EventManager::register_queue(const AqlQueue* q) {
  std::lock_guard lk(queues_mu_);
  queues_.push_back(q);
}

void EventManager::unregister_queue(const AqlQueue* q) {
  std::lock_guard lk(queues_mu_);
  queues_.erase(std::remove(queues_.begin(), queues_.end(), q), queues_.end());
  // The queue-error event is manual reset: lower it once no live queue is in error.
  const bool q_err = q->error_code() != 0;
  const bool any = std::any_of(queues_.begin(), queues_.end(),
                               [](const AqlQueue* o) { return o->error_code() != 0; });
  if (q_err && !any) (void)reset_queue_error_event();
}

base::Status EventManager::check_device(bool poll_kernel) {
  KFD_TRY(fault());
  if (poll_kernel) KFD_TRY(poll_faults());
  base::Status queue_error;
  {
    std::lock_guard lk(queues_mu_);
    for (const AqlQueue* q : queues_)
      if (auto e = q->error(); !e) {
        queue_error = e;
        break;
      }
  }
  if (queue_error.ok()) return {};
  // A queue stopped by a memory fault: prefer the kernel's fault report, which names the address.
  if (!poll_kernel) KFD_TRY(poll_faults());
  return queue_error;
}

}  // namespace queues
