// SPDX-License-Identifier: MIT
// Emulated amdkfd events: the events page, CREATE/DESTROY/SET/RESET/WAIT_EVENTS and device interrupts.
#include <cerrno>
#include <chrono>
#include <cstring>

#include "emu/command_processor.h"
#include "emu/kfd_process.h"
#include "emu/sdma_engine.h"
#include "emu/user_copy.h"
#include "kfd/uapi_ext.h"

namespace emu {

namespace {
constexpr uint64_t kUnsignaledSlot = ~0ull;  // kfd_events.c: UNSIGNALED_EVENT_SLOT

// The driver's reads and acknowledgements of event slots, which waves and engines write at any
// time: by design the slot protocol tolerates that race (a wave signalling while the driver
// acknowledges only makes the next interrupt's search find the slot again; kfd_events.c
// set_event_from_interrupt). Kept out of ThreadSanitizer's view: it is the hardware's protocol,
// not a race in the program under test (the emulated GPU's own stores are instrumented).
__attribute__((no_sanitize("thread"))) uint64_t driver_slot_load(const uint64_t* slot) {
  return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}
__attribute__((no_sanitize("thread"))) void driver_slot_store(uint64_t* slot, uint64_t v) {
  __atomic_store_n(slot, v, __ATOMIC_RELEASE);
}
constexpr uint32_t kTimeoutInfinite = 0xffffffffu;
constexpr uint32_t kFirstMappedSlots = 256;  // kfd_events.c: "oldest user mode expects 256 slots"

bool is_signal_kind(uint32_t type) {
  return type == KFD_IOC_EVENT_SIGNAL || type == KFD_IOC_EVENT_DEBUG_EVENT;
}

void mark_all_unsignaled(uint8_t* page) {
  auto* slots = reinterpret_cast<uint64_t*>(page);
  for (uint32_t i = 0; i < kfd::uapi::kEventSlots; ++i) slots[i] = kUnsignaledSlot;
}

// One entry of a WAIT_EVENTS call (kfd_events.c: struct kfd_event_waiter).
struct Waiter {
  uint64_t serial = 0;       // the event's serial when the wait began
  uint64_t age_seen = 0;     // its age then: any later set activates the waiter
  bool activated = false;
  bool registered = false;   // counted in Event::waiters
  bool age_enabled = false;  // the caller passed a non-zero last_event_age
};
}  // namespace

// kfd_events.c set_event: an auto-reset event that wakes a waiter is consumed by it.
void Process::set_event_locked(Event& e) {
  e.signaled = !e.auto_reset || e.waiters == 0;
  if (++e.age == 0) e.age = 2;  // never wraps back to the reserved ages 0 and 1
}

// kfd_kmap_event_page + kfd_event_page_set: the runtime's buffer becomes the events page.
int Process::set_event_page_locked(uint64_t handle) {
  if (event_page_bo_ || internal_event_page_ != UINT64_MAX) return -EINVAL;  // already set
  DeviceState* d = device(uint32_t(handle >> 32));
  if (!d) return -EINVAL;
  if (!d->vm_acquired) return -ENODEV;  // kfd_bind_process_to_device
  auto it = bos_.find(handle);
  if (it == bos_.end()) return -EINVAL;
  if (it->second->kind == BoKind::Userptr) return -EINVAL;  // cannot be mapped to the kernel
  if (it->second->size < kfd::uapi::kEventPageSize) return -EINVAL;
  event_page_bo_ = it->second;
  mark_all_unsignaled(event_page_bo_->host);
  uint64_t slots = event_page_bo_->size / 8;
  signal_limit_ = uint32_t(slots < kfd::uapi::kEventSlots ? slots : kfd::uapi::kEventSlots);
  return 0;
}

// create_signal_event: ids are slots, the lowest free one from 1 (0 is reserved) below the limit.
int Process::create_signal_event_locked(Event& ev) {
  if (!event_page_bo_ && internal_event_page_ == UINT64_MAX) {
    uint8_t* page = event_slots();
    if (!page) return -ENOMEM;
    mark_all_unsignaled(page);
    signal_limit_ = kFirstMappedSlots;
  }
  if (signal_events_ + 1 >= signal_limit_) return -ENOSPC;  // slot 0 counts as used
  uint32_t id = 1;
  while (id < signal_limit_ && events_.count(id)) ++id;
  if (id >= signal_limit_) return -ENOSPC;
  ev.id = id;
  ++signal_events_;
  reinterpret_cast<uint64_t*>(event_slots())[id] = kUnsignaledSlot;
  return 0;
}

int Process::create_event(kfd_ioctl_create_event_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  std::lock_guard<std::mutex> ek(ev_mu_);
  if (a->event_page_offset) {  // dGPU path: the handle of the runtime's own events page
    if (int r = set_event_page_locked(a->event_page_offset)) return r;
  }
  a->event_page_offset = 0;
  Event ev;
  ev.type = a->event_type;
  ev.auto_reset = a->auto_reset != 0;
  ev.serial = next_event_serial_++;
  if (is_signal_kind(a->event_type)) {
    if (int r = create_signal_event_locked(ev)) return r;
    a->event_page_offset = kfd::uapi::kMmapTypeEvents;
    a->event_slot_index = ev.id;
  } else {
    // Any other type, known or not, is an event without a slot (kfd_events.c: create_other_event).
    ev.id = next_nonsignal_id_++;
  }
  a->event_id = ev.id;
  a->event_trigger_data = ev.id;
  events_[ev.id] = ev;
  return 0;
}

int Process::destroy_event(kfd_ioctl_destroy_event_args* a) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end()) return -EINVAL;
  if (is_signal_kind(it->second.type)) --signal_events_;
  events_.erase(it);
  ev_cv_.notify_all();  // waiters on a destroyed event fail
  return 0;
}

// SET/RESET from user space: only SIGNAL events (kfd_events.c: event_can_be_cpu_signaled).
int Process::set_event(kfd_ioctl_set_event_args* a) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end() || it->second.type != KFD_IOC_EVENT_SIGNAL) return -EINVAL;
  set_event_locked(it->second);
  ev_cv_.notify_all();
  return 0;
}

int Process::reset_event(kfd_ioctl_reset_event_args* a) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end() || it->second.type != KFD_IOC_EVENT_SIGNAL) return -EINVAL;
  it->second.signaled = false;
  return 0;
}

namespace {

// init_event_waiter: a signaled auto-reset event is consumed by the wait that sees it, whether
// or not the whole wait completes; an age differing from the caller's counts as signaled.
void init_waiter(Event& e, const kfd_event_data& d, Waiter& w) {
  w.serial = e.serial;
  w.activated = e.signaled;
  e.signaled = e.signaled && !e.auto_reset;
  uint64_t last_age = 0;
  std::memcpy(&last_age, &d, sizeof last_age);  // signal_event_data.last_event_age
  if (e.type == KFD_IOC_EVENT_SIGNAL && last_age != 0) {
    w.age_enabled = true;
    if (e.age != last_age) w.activated = true;
  }
  w.age_seen = e.age;
  if (!w.activated) {
    w.registered = true;
    ++e.waiters;
  }
}

// test_event_condition: FAIL if an event is gone, COMPLETE when one (or all) activated.
uint32_t test_condition(std::map<uint32_t, Event>& events, const std::vector<kfd_event_data>& data,
                        std::vector<Waiter>& ws, bool all) {
  size_t activated = 0;
  for (size_t i = 0; i < ws.size(); ++i) {
    auto it = events.find(data[i].event_id);
    if (it == events.end() || it->second.serial != ws[i].serial) return KFD_IOC_WAIT_RESULT_FAIL;
    if (ws[i].registered && it->second.age != ws[i].age_seen) ws[i].activated = true;
    if (ws[i].activated) {
      if (!all) return KFD_IOC_WAIT_RESULT_COMPLETE;
      ++activated;
    }
  }
  return activated == ws.size() ? KFD_IOC_WAIT_RESULT_COMPLETE : KFD_IOC_WAIT_RESULT_TIMEOUT;
}

// copy_signaled_event_data: memory-fault data, hardware-exception data (since Linux 6.8) and
// (when asked for) signal ages go back.
void copy_signaled_data(std::map<uint32_t, Event>& events, std::vector<kfd_event_data>& data,
                        const std::vector<Waiter>& ws) {
  for (size_t i = 0; i < ws.size(); ++i) {
    if (!ws[i].activated) continue;
    const Event& e = events[data[i].event_id];
    if (e.type == KFD_IOC_EVENT_MEMORY) data[i].memory_exception_data = e.mem;
    else if (e.type == KFD_IOC_EVENT_HW_EXCEPTION) data[i].hw_exception_data = e.hw;
    else if (e.type == KFD_IOC_EVENT_SIGNAL && ws[i].age_enabled)
      std::memcpy(&data[i], &e.age, sizeof e.age);
  }
}

void release_waiters(std::map<uint32_t, Event>& events, const std::vector<kfd_event_data>& data,
                     const std::vector<Waiter>& ws) {
  for (size_t i = 0; i < ws.size(); ++i) {
    auto it = events.find(data[i].event_id);
    if (ws[i].registered && it != events.end() && it->second.serial == ws[i].serial)
      --it->second.waiters;
  }
}

}  // namespace

// kfd_wait_on_events. Errors leave wait_result FAIL (the ioctl copies the arguments back even
// then); an event destroyed during the wait is EIO.
void Process::kick_engines() {
  std::lock_guard<std::mutex> lk(mu);
  for (auto& [id, d] : devices_) {
    if (d->cp) d->cp->kick();
    for (auto& e : d->sdma)
      if (e) e->kick();
  }
}

int Process::wait_events(kfd_ioctl_wait_events_args* a) {
  event_waits.fetch_add(1, std::memory_order_relaxed);
  a->wait_result = KFD_IOC_WAIT_RESULT_FAIL;
  // A waiter that may block waits for work it gave the device: an engine dozing in its idle
  // back-off looks at its queues now rather than after its sleep (a doorbell is a store to
  // memory the engine polls; it cannot wake it).
  if (a->timeout != 0) kick_engines();
  std::vector<kfd_event_data> data(a->num_events);
  void* user = reinterpret_cast<void*>(a->events_ptr);
  if (!data.empty() && !copy_from_user(data.data(), user, data.size() * sizeof(data[0])))
    return -EFAULT;
  std::vector<Waiter> ws(data.size());
  std::unique_lock<std::mutex> ek(ev_mu_);
  for (size_t i = 0; i < data.size(); ++i) {
    auto it = events_.find(data[i].event_id);
    if (it == events_.end()) {
      ws.resize(i);
      release_waiters(events_, data, ws);
      return -EINVAL;
    }
    init_waiter(it->second, data[i], ws[i]);
  }
  // Finite timeouts above 2^31-1 ms are clamped (kfd_events.c: user_timeout_to_jiffies).
  uint32_t ms = a->timeout > 0x7fffffffu && a->timeout != kTimeoutInfinite ? 0x7fffffffu : a->timeout;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  uint32_t result;
  while ((result = test_condition(events_, data, ws, a->wait_for_all != 0)) ==
         KFD_IOC_WAIT_RESULT_TIMEOUT) {
    if (ms == 0) break;
    ++ev_sleepers_;
    if (ms == kTimeoutInfinite) ev_cv_.wait(ek);
    else if (ev_cv_.wait_until(ek, deadline) == std::cv_status::timeout) ms = 0;  // test once more
    --ev_sleepers_;
  }
  if (result == KFD_IOC_WAIT_RESULT_COMPLETE) copy_signaled_data(events_, data, ws);
  release_waiters(events_, data, ws);
  ek.unlock();
  if (result == KFD_IOC_WAIT_RESULT_FAIL) return -EIO;
  if (result == KFD_IOC_WAIT_RESULT_COMPLETE && !data.empty() &&
      !copy_to_user(user, data.data(), data.size() * sizeof(data[0])))
    return -EFAULT;
  a->wait_result = result;
  return 0;
}

// The device wrote event_id to a mailbox and raised an interrupt with it as context id.
// kfd_signal_event_interrupt: the event the (partial) id names when its slot is signaled; when
// there is none (an id with too few valid bits, stale, or whose slot the producer did not write),
// every signal event whose slot is signaled.
void Process::raise_signal_event(uint32_t context_id, unsigned valid_bits) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  uint8_t* page = event_page_bo_ ? event_page_bo_->host
                : internal_event_page_ != UINT64_MAX ? Arena::get().host(internal_event_page_)
                                                     : nullptr;
  if (!page) return;
  auto* slots = reinterpret_cast<uint64_t*>(page);
  auto signaled = [&](uint32_t id) { return driver_slot_load(&slots[id]) != kUnsignaledSlot; };
  auto fire = [&](Event& e) {  // set_event_from_interrupt: acknowledge the slot, then set
    if (!is_signal_kind(e.type)) return;
    driver_slot_store(&slots[e.id], kUnsignaledSlot);
    set_event_locked(e);
  };
  Event* hit = nullptr;  // lookup_signaled_event_by_partial_id
  const uint32_t step = valid_bits > 31 ? 0 : 1u << valid_bits;
  for (uint32_t id = context_id; valid_bits && id < kfd::uapi::kEventSlots && !hit; id += step) {
    if (signaled(id)) {
      auto it = events_.find(id);
      if (it != events_.end()) hit = &it->second;
    }
    if (step == 0 || step >= kfd::uapi::kEventSlots) break;  // a whole id: one lookup
  }
  if (hit) {
    fire(*hit);
  } else {  // exhaustive search of signaled events
    for (auto& [id, e] : events_)
      if (id < kfd::uapi::kEventSlots && signaled(id)) fire(e);
  }
  if (ev_sleepers_) ev_cv_.notify_all();  // (a broadcast nobody waits for still costs a call)
}

void Process::raise_hw_exception_event() {
  std::lock_guard<std::mutex> ek(ev_mu_);
  for (auto& [id, e] : events_)
    if (e.type == KFD_IOC_EVENT_HW_EXCEPTION) set_event_locked(e);
  ev_cv_.notify_all();
}

void Process::raise_memory_fault(uint32_t gpu_id, uint64_t va, bool /*write*/) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  for (auto& [id, e] : events_) {
    if (e.type != KFD_IOC_EVENT_MEMORY) continue;
    set_event_locked(e);
    e.mem = kfd_hsa_memory_exception_data{};
    e.mem.va = va & ~0xfffull;
    e.mem.gpu_id = gpu_id;
    e.mem.failure.NotPresent = 1;
    e.mem.failure.ReadOnly = 0;  // unmapped and read-only pages both look not-present here
    e.mem.ErrorType = 0;
  }
  ev_cv_.notify_all();
}

// kfd_signal_reset_event: a GPU reset sets every HW_EXCEPTION event with the reset's data.
void Process::raise_hw_exception(uint32_t gpu_id, bool memory_lost) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  for (auto& [id, e] : events_) {
    if (e.type != KFD_IOC_EVENT_HW_EXCEPTION) continue;
    set_event_locked(e);
    e.hw = kfd_hsa_hw_exception_data{};
    e.hw.gpu_id = gpu_id;
    e.hw.memory_lost = memory_lost ? 1 : 0;
    e.hw.reset_type = 0;   // kfd_events.h: KFD_HW_EXCEPTION_WHOLE_GPU_RESET
    e.hw.reset_cause = 0;  // KFD_HW_EXCEPTION_GPU_HANG (1 would be ECC)
  }
  ev_cv_.notify_all();
}

}  // namespace emu
