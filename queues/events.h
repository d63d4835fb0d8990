// SPDX-License-Identifier: MIT
// KFD events for signals: the events page, shared interrupt events, signal memory, faults and queue errors.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/result.h"
#include "gpu/device.h"
#include "memory/context.h"
#include "pm4/aql.h"

namespace queues {

class AqlQueue;
class Signal;

enum class SignalKind { Interrupt, Polling };

// How a waiter waits: spin for `spin`, then sched_yield for `yield`, then (when `block`) sleep in
// WAIT_EVENTS (interrupt signals) or in short sleeps (polling signals) until the deadline.
// Default: a 1 us spin (work already running completes within it), then yields for 200 us: with
// more runnable threads than cores, whatever the wait is for (an engine of the emulated GPU, the
// runtime's hostcall thread) may be queued on this very core, and a longer pure spin keeps it off
// the core (a staged 4 KiB device-to-host copy waited 25 us behind a 20 us spin, 5 us after).
struct WaitPolicy {
  std::chrono::nanoseconds spin = std::chrono::microseconds(1);
  std::chrono::nanoseconds yield = std::chrono::microseconds(200);
  bool block = true;
  uint32_t block_slice_ms = 1000;  // longest single WAIT_EVENTS (recheck period)

  static WaitPolicy spinning() { return {std::chrono::hours(24), {}, false, 1000}; }
  static WaitPolicy blocking() { return {{}, {}, true, 1000}; }
};

constexpr std::chrono::nanoseconds kForever = std::chrono::nanoseconds::max();

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

// The way the device talks back to the process: the events page and the KFD events signals use,
// the memory of every amd_signal_t, the fault events, and the live AQL queues whose
// queue_inactive_signal raises the queue-error event. Signals and queues are given it at
// creation; it must outlive them. Thread-safe.
class EventManager {
 public:
  // `max_interrupt_events` bounds the SIGNAL events created; past it, signals share events.
  // `policy` is the default wait policy of Signal::wait.
  EventManager(const gpu::Platform& platform, mem::Context& ctx, uint32_t max_interrupt_events,
               const WaitPolicy& policy = {});
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

  // The device's error state, as every wait sees it: a GPU fault (sticky) or a live AQL queue in
  // error. poll_kernel also asks the kernel (zero-timeout WAIT_EVENTS on the fault events).
  base::Status check_device(bool poll_kernel);
  // AQL queues report their errors through the queue-error event: check_device asks the live ones.
  void register_queue(const AqlQueue* q);
  void unregister_queue(const AqlQueue* q);

  // A signal with `initial` value. Interrupt signals get a (possibly shared) KFD event and fall
  // back to polling when none can be had.
  base::Result<std::unique_ptr<Signal>> create_signal(int64_t initial = 0,
                                                     SignalKind kind = SignalKind::Interrupt);
  // amd_signal_t memory (uncached GTT every GPU maps) bound to `ev` (may be null: polled only).
  base::Result<pm4::aql::AmdSignal*> make_signal_storage(int64_t initial, InterruptEvent* ev);
  void destroy_signal_storage(pm4::aql::AmdSignal* sig, InterruptEvent* ev);

  const WaitPolicy& wait_policy() const { return policy_; }
  void set_wait_policy(const WaitPolicy& p) { policy_ = p; }

  size_t event_count() const;
  uint32_t max_events() const { return max_events_.load(std::memory_order_relaxed); }
  bool uses_event_age() const { return use_age_; }

 private:
  base::Status check_fault_data(const std::vector<kfd::EventData>& data);
  void record_fault(base::Error e);

  mem::Context& ctx_;
  const kfd::Kfd& kfd_;
  uint32_t node_id_ = 0;  // the fault events' node (the first GPU's)
  WaitPolicy policy_;
  std::mutex queues_mu_;
  std::vector<const AqlQueue*> queues_;
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
