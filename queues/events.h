// SPDX-License-Identifier: MIT
// KFD events for signals: the events page, a bounded set of shared interrupt events, fault events.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/result.h"
#include "memory/context.h"

namespace queues {

// One KFD SIGNAL event, shared by many signals (the 4096-slot events page is a process budget).
struct InterruptEvent {
  uint32_t event_id = 0;
  uint32_t slot = 0;
  uint64_t mailbox = 0;              // address of the slot in the events page
  std::atomic<uint32_t> users{0};    // signals bound to it
  std::atomic<uint64_t> age{1};      // last event age seen (KFD >= 1.14), 1 = initial age
};

// What ended a blocking wait.
enum class WakeReason { Event, Timeout };

class EventManager {
 public:
  // `max_interrupt_events` bounds the SIGNAL events created; past it, signals share events.
  EventManager(mem::Context& ctx, uint32_t max_interrupt_events);
  ~EventManager();

  // Allocates the events page (32 KiB uncached GTT) and creates the MEMORY and HW_EXCEPTION
  // events; the first CREATE_EVENT passes the page's handle (Linux kfd_events.c kfd_event_page_set).
  base::Status init();

  // An event for a new interrupt signal: a fresh one while under budget, else the least used.
  // nullptr when no event can be had (the caller then makes a polling signal).
  InterruptEvent* acquire();
  void release(InterruptEvent* ev);
  base::Status set(InterruptEvent* ev);

  // Blocks in WAIT_EVENTS on `ev` (may be null: fault events only) together with the queue-error,
  // MEMORY and HW_EXCEPTION events, up to timeout_ms. `age` is ev->age read before the caller
  // last checked its signal (so an event raised since then returns at once). A fault is
  // recorded and returned as the error.
  base::Result<WakeReason> wait(InterruptEvent* ev, uint64_t age, uint32_t timeout_ms);
  // The event every queue's queue_inactive_signal raises (manual reset: it stays raised while
  // a queue is in error; reset_queue_error_event() once no errored queue remains).
  InterruptEvent* queue_error_event() { return &queue_error_; }
  base::Status reset_queue_error_event();
  // Zero-timeout check of the fault events (cheap enough to call every millisecond).
  base::Status poll_faults();
  // The first fault seen (sticky: a GPU fault ends the process's GPU work, as on real hardware).
  base::Status fault() const;
  bool faulted() const { return faulted_.load(std::memory_order_acquire); }

  size_t event_count() const;
  uint32_t max_events() const { return max_events_.load(std::memory_order_relaxed); }
  bool uses_event_age() const { return use_age_; }

 private:
  base::Status check_fault_data(const std::vector<kfd::EventData>& data);
  void record_fault(base::Error e);

  mem::Context& ctx_;
  const kfd::Kfd& kfd_;
  std::atomic<uint32_t> max_events_{0};
  bool use_age_ = false;
  void* page_ = nullptr;
  uint32_t memory_event_ = 0, hw_event_ = 0;
  InterruptEvent queue_error_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<InterruptEvent>> events_;
  size_t next_ = 0;
  std::atomic<bool> faulted_{false};
  std::optional<base::Error> fault_;
};

}  // namespace queues
