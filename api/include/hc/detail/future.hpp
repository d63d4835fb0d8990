// SPDX-License-Identifier: MIT
// hc::completion_future (a HIP event pair per operation), then() continuations and system ticks.
#pragma once

#include "config.hpp"
#include "kfdrt_ext.h"

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hc {

enum hcWaitMode { hcWaitModeBlocked = 0, hcWaitModeActive = 1 };
enum memory_scope { no_scope = 0, accelerator_scope = 1, system_scope = 2 };
enum hcCommandKind {
  hcCommandInvalid = -1,
  hcMemcpyHostToHost = 0,
  hcMemcpyHostToDevice = 1,
  hcMemcpyDeviceToHost = 2,
  hcMemcpyDeviceToDevice = 3,
  hcCommandKernel = 4,
  hcCommandMarker = 5,
};

inline uint64_t get_system_ticks();
inline uint64_t get_tick_frequency();

namespace detail {

// Host nanoseconds, the tick domain when libkfdrt has no kfdrtGetSystemTicks.
inline uint64_t host_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Relates a device's event times to host ticks: an event recorded and waited for at one
// host instant. Event times are then anchor + hipEventElapsedTime(anchor, event).
struct tick_anchor {
  hipEvent_t event = nullptr;
  uint64_t host_ticks = 0;
};

inline tick_anchor& anchor_for(int device) {
  static std::mutex m;
  static tick_anchor anchors[64];
  std::lock_guard<std::mutex> lock(m);
  tick_anchor& a = anchors[device & 63];
  if (!a.event) {
    device_guard g(device);
    check(hipEventCreate(&a.event), "hipEventCreate");
    check(hipEventRecord(a.event, nullptr), "hipEventRecord");
    check(hipEventSynchronize(a.event), "hipEventSynchronize");
    a.host_ticks = hc::get_system_ticks();
  }
  return a;
}

struct view_state;

// One asynchronous operation: `end` completes with it; `begin` (kernels only) starts it.
struct op_state {
  hipEvent_t begin = nullptr;
  hipEvent_t end = nullptr;
  int device = 0;
  hcCommandKind kind = hcCommandInvalid;
  std::weak_ptr<view_state> view;  // the queue it ran on, while that view lives
  op_state() = default;
  op_state(const op_state&) = delete;
  op_state& operator=(const op_state&) = delete;
  ~op_state() {
    if (begin) (void)hipEventDestroy(begin);
    if (end) (void)hipEventDestroy(end);
  }
  bool ready() const {
    hipError_t e = hipEventQuery(end);
    if (e == hipErrorNotReady) return false;
    check(e, "hipEventQuery");
    return true;
  }
};

// Threads running then() continuations; joined at exit so none outlives the runtime.
class then_threads {
public:
  static then_threads& get() {
    static then_threads t;
    return t;
  }
  void add(std::thread t) {
    std::lock_guard<std::mutex> lock(m_);
    threads_.push_back(std::move(t));
  }
  ~then_threads() {
    for (;;) {
      std::thread t;
      {
        std::lock_guard<std::mutex> lock(m_);
        if (threads_.empty()) return;
        t = std::move(threads_.back());
        threads_.pop_back();
      }
      if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
      else if (t.joinable()) t.detach();
    }
  }

private:
  std::mutex m_;
  std::vector<std::thread> threads_;
};

} // namespace detail

// Frequency of the tick counter behind get_system_ticks and completion_future ticks.
inline uint64_t get_tick_frequency() {
  uint64_t t = 0, f = 0;
  if (kfdrtGetSystemTicks && kfdrtGetSystemTicks(&t, &f) == hipSuccess && f) return f;
  return 1000000000ull;
}

// The current system tick count (same domain as completion_future begin/end ticks).
inline uint64_t get_system_ticks() {
  uint64_t t = 0, f = 0;
  if (kfdrtGetSystemTicks && kfdrtGetSystemTicks(&t, &f) == hipSuccess && f) return t;
  return detail::host_ns();
}

// The completion of an asynchronous hc operation (kernel, copy, marker). An empty future
// (valid() == false) stands for work that needed nothing and is always ready.
class completion_future {
public:
  completion_future() = default;
  explicit completion_future(std::shared_ptr<detail::op_state> s) : st_(std::move(s)) {}

  bool valid() const { return st_ != nullptr; }
  void get() const { wait(); }
  bool is_ready() const { return !st_ || st_->ready(); }

  void wait(hcWaitMode mode = hcWaitModeBlocked) const {
    if (!st_) return;
    if (mode == hcWaitModeActive) {
      while (!st_->ready()) std::this_thread::yield();
      return;
    }
    detail::check(hipEventSynchronize(st_->end), "hipEventSynchronize");
  }

  template <class Rep, class Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& d) const {
    return wait_until(std::chrono::steady_clock::now() + d);
  }

  template <class Clock, class Duration>
  std::future_status wait_until(const std::chrono::time_point<Clock, Duration>& t) const {
    for (;;) {
      if (is_ready()) return std::future_status::ready;
      if (Clock::now() >= t) return std::future_status::timeout;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  // Runs `f` on a host thread once this future is ready (hcc allows one continuation each).
  template <class F> void then(const F& f) {
    auto st = st_;
    detail::then_threads::get().add(std::thread([st, f]() {
      completion_future(st).wait();
      f();
    }));
  }

  uint64_t get_begin_tick() const { return tick_of(true); }
  uint64_t get_end_tick() const { return tick_of(false); }
  uint64_t get_tick_frequency() const { return hc::get_tick_frequency(); }

  // The kfdrt signal (amd_signal_t*) completing this operation when libkfdrt exposes it,
  // otherwise the hipEvent_t; null for an empty future.
  void* get_native_handle() const {
    if (!st_) return nullptr;
    void* sig = nullptr;
    if (kfdrtEventGetSignal && kfdrtEventGetSignal(st_->end, &sig) == hipSuccess) return sig;
    return static_cast<void*>(st_->end);
  }

  // kfdrt additions: the events behind the future, for interoperation with HIP code.
  hipEvent_t get_hip_event() const { return st_ ? st_->end : nullptr; }
  hcCommandKind get_command_kind() const { return st_ ? st_->kind : hcCommandInvalid; }

  // Internal: the operation's state (used by hc's buffers).
  const std::shared_ptr<detail::op_state>& state() const { return st_; }

  bool operator==(const completion_future& o) const { return st_ == o.st_; }
  bool operator!=(const completion_future& o) const { return st_ != o.st_; }

private:
  uint64_t tick_of(bool begin) const;
  std::shared_ptr<detail::op_state> st_;
};

inline uint64_t completion_future::tick_of(bool begin) const {
  if (!st_) return 0;
  wait();
  hipEvent_t ev = (begin && st_->begin) ? st_->begin : st_->end;
  uint64_t s = 0, e = 0;
  if (kfdrtEventGetTimestamps && kfdrtEventGetTimestamps(ev, &s, &e) == hipSuccess)
    return begin ? s : e;
  detail::tick_anchor& a = detail::anchor_for(st_->device);
  float ms = 0;
  detail::check(hipEventElapsedTime(&ms, a.event, ev), "hipEventElapsedTime");
  const double ticks = static_cast<double>(ms) * 1e-3 * static_cast<double>(hc::get_tick_frequency());
  return a.host_ticks + static_cast<int64_t>(ticks);
}

} // namespace hc
