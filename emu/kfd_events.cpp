// SPDX-License-Identifier: MIT
// Emulated amdkfd events: the events page, CREATE/DESTROY/SET/RESET/WAIT_EVENTS and device interrupts.
#include <cerrno>
#include <chrono>
#include <cstring>

#include "emu/kfd_process.h"
#include "emu/user_copy.h"
#include "kfd/uapi_ext.h"

namespace emu {

namespace {
constexpr uint64_t kUnsignaledSlot = ~0ull;  // kfd_events.c: UNSIGNALED_EVENT_SLOT
constexpr uint32_t kTimeoutInfinite = 0xffffffffu;
constexpr uint32_t kMaxWaitEvents = 4096;
}  // namespace

int Process::create_event(kfd_ioctl_create_event_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  std::lock_guard<std::mutex> ek(ev_mu_);
  if (a->event_page_offset) {
    // dGPU path: the runtime hands over its own buffer (by handle) as the events page.
    if (event_page_bo_ || internal_event_page_ != UINT64_MAX) return -EINVAL;  // already set
    auto it = bos_.find(a->event_page_offset);
    if (it == bos_.end()) return -EINVAL;
    if (it->second->size < kfd::uapi::kEventPageSize) return -EINVAL;
    event_page_bo_ = it->second;
    auto* slots = reinterpret_cast<uint64_t*>(event_page_bo_->host);
    for (uint32_t i = 0; i < kfd::uapi::kEventSlots; ++i) slots[i] = kUnsignaledSlot;
  }
  Event ev;
  ev.type = a->event_type;
  ev.auto_reset = a->auto_reset != 0;
  switch (a->event_type) {
    case KFD_IOC_EVENT_SIGNAL:
    case KFD_IOC_EVENT_DEBUG_EVENT: {
      if (!event_page_bo_ && internal_event_page_ == UINT64_MAX) {
        auto* slots = reinterpret_cast<uint64_t*>(event_slots());
        if (!slots) return -ENOMEM;
        for (uint32_t i = 0; i < kfd::uapi::kEventSlots; ++i) slots[i] = kUnsignaledSlot;
      }
      if (signal_events_ + 1 >= kfd::uapi::kEventSlots) return -ENOSPC;
      uint32_t id = 1;  // slot 0 is reserved
      while (events_.count(id)) ++id;
      ev.id = id;
      ++signal_events_;
      reinterpret_cast<uint64_t*>(event_slots())[id] = kUnsignaledSlot;
      a->event_slot_index = id;
      a->event_trigger_data = id;
      a->event_page_offset = event_page_bo_ ? a->event_page_offset : kfd::uapi::kMmapTypeEvents;
      break;
    }
    case KFD_IOC_EVENT_NODECHANGE:
    case KFD_IOC_EVENT_DEVICESTATECHANGE:
    case KFD_IOC_EVENT_HW_EXCEPTION:
    case KFD_IOC_EVENT_SYSTEM_EVENT:
    case KFD_IOC_EVENT_PROFILE_EVENT:
    case KFD_IOC_EVENT_QUEUE_EVENT:
    case KFD_IOC_EVENT_MEMORY:
      ev.id = next_nonsignal_id_++;
      a->event_trigger_data = 0;
      a->event_slot_index = 0;
      break;
    default:
      return -EINVAL;
  }
  a->event_id = ev.id;
  events_[ev.id] = ev;
  return 0;
}

int Process::destroy_event(kfd_ioctl_destroy_event_args* a) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end()) return -EINVAL;
  if (it->second.type == KFD_IOC_EVENT_SIGNAL || it->second.type == KFD_IOC_EVENT_DEBUG_EVENT)
    --signal_events_;
  events_.erase(it);
  ev_cv_.notify_all();  // waiters on a destroyed event fail
  return 0;
}

int Process::set_event(kfd_ioctl_set_event_args* a) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end()) return -EINVAL;
  if (it->second.type != KFD_IOC_EVENT_SIGNAL && it->second.type != KFD_IOC_EVENT_DEBUG_EVENT)
    return -EINVAL;  // only signal and debug events can be set from user space
  it->second.signaled = true;
  ++it->second.age;
  ev_cv_.notify_all();
  return 0;
}

int Process::reset_event(kfd_ioctl_reset_event_args* a) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  auto it = events_.find(a->event_id);
  if (it == events_.end()) return -EINVAL;
  if (it->second.type != KFD_IOC_EVENT_SIGNAL && it->second.type != KFD_IOC_EVENT_DEBUG_EVENT)
    return -EINVAL;
  it->second.signaled = false;
  return 0;
}

int Process::wait_events(kfd_ioctl_wait_events_args* a) {
  if (a->num_events == 0 || a->num_events > kMaxWaitEvents) return -EINVAL;
  std::vector<kfd_event_data> data(a->num_events);
  void* user = reinterpret_cast<void*>(a->events_ptr);
  if (!copy_from_user(data.data(), user, data.size() * sizeof(data[0]))) return -EFAULT;
  bool ages = model().config.kfd_minor >= 14;
  std::unique_lock<std::mutex> ek(ev_mu_);
  auto ready = [&](bool* missing) {
    size_t n = 0;
    for (auto& d : data) {
      auto it = events_.find(d.event_id);
      if (it == events_.end()) { *missing = true; return false; }
      const Event& e = it->second;
      uint64_t seen = 0;
      std::memcpy(&seen, &d, sizeof seen);  // signal_event_data.last_event_age
      bool fired = e.signaled ||
                   (ages && e.type == KFD_IOC_EVENT_SIGNAL && seen != 0 && seen != e.age);
      n += fired;
    }
    return a->wait_for_all ? n == data.size() : n > 0;
  };
  bool missing = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(a->timeout);
  while (!ready(&missing)) {
    if (missing) return -EINVAL;
    if (a->timeout == 0) { a->wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT; return 0; }
    if (a->timeout == kTimeoutInfinite) ev_cv_.wait(ek);
    else if (ev_cv_.wait_until(ek, deadline) == std::cv_status::timeout && !ready(&missing)) {
      if (missing) return -EINVAL;
      a->wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT;
      return 0;
    }
  }
  for (auto& d : data) {
    Event& e = events_[d.event_id];
    if (e.type == KFD_IOC_EVENT_MEMORY && e.signaled) d.memory_exception_data = e.mem;
    if (e.type == KFD_IOC_EVENT_HW_EXCEPTION && e.signaled) d.hw_exception_data = e.hw;
    if (ages && e.type == KFD_IOC_EVENT_SIGNAL) std::memcpy(&d, &e.age, sizeof e.age);
    if (e.signaled && e.auto_reset) e.signaled = false;
  }
  ek.unlock();
  if (!copy_to_user(user, data.data(), data.size() * sizeof(data[0]))) return -EFAULT;
  a->wait_result = KFD_IOC_WAIT_RESULT_COMPLETE;
  return 0;
}

// The device wrote event_id to a mailbox and raised an interrupt with it as context id.
void Process::raise_signal_event(uint32_t event_id) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  uint8_t* page = event_page_bo_ ? event_page_bo_->host
                : internal_event_page_ != UINT64_MAX ? Arena::get().host(internal_event_page_)
                                                     : nullptr;
  if (!page) return;
  auto* slots = reinterpret_cast<uint64_t*>(page);
  auto fire = [&](Event& e) {
    if (__atomic_load_n(&slots[e.id], __ATOMIC_ACQUIRE) == kUnsignaledSlot) return;
    __atomic_store_n(&slots[e.id], kUnsignaledSlot, __ATOMIC_RELEASE);
    e.signaled = true;
    ++e.age;
  };
  auto it = events_.find(event_id);
  if (it != events_.end() && it->second.type == KFD_IOC_EVENT_SIGNAL) {
    fire(it->second);
  } else {  // an unknown context id: scan every slot, as the kernel does
    for (auto& [id, e] : events_)
      if (e.type == KFD_IOC_EVENT_SIGNAL) fire(e);
  }
  ev_cv_.notify_all();
}

void Process::raise_memory_fault(uint32_t gpu_id, uint64_t va, bool /*write*/) {
  std::lock_guard<std::mutex> ek(ev_mu_);
  for (auto& [id, e] : events_) {
    if (e.type != KFD_IOC_EVENT_MEMORY) continue;
    e.mem = kfd_hsa_memory_exception_data{};
    e.mem.va = va & ~0xfffull;
    e.mem.gpu_id = gpu_id;
    e.mem.failure.NotPresent = 1;
    e.mem.failure.ReadOnly = 0;  // unmapped and read-only pages both look not-present here
    e.mem.ErrorType = 0;
    e.signaled = true;
    ++e.age;
  }
  ev_cv_.notify_all();
}

}  // namespace emu
