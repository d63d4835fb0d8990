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

// Host nanoseconds: get_system_ticks only when libkfdrt has no GPU to read the system clock from.
inline uint64_t host_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

struct view_state;

// One asynchronous operation: `end` completes with it; `begin` (kernels only) starts it.
struct op_state {
  hipEvent_t begin = nullptr;
  hipEvent_t end = nullptr;
  int device = 0;
  hcCommandKind kind = hcCommandInvalid;
  std::weak_ptr<view_state> view;  // the queue it ran on, while that view lives
  // get_native_handle's hsa_signal_t (handle = the end event's amd_signal_t), made on first use.
  std::once_flag native_once;
  hsa_signal_t native{0};
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

// Frequency of the tick counter behind get_system_ticks and completion_future ticks: the HSA
// system timestamp's (kfdrtGetSystemTicks; 1 GHz on Linux).
inline uint64_t get_tick_frequency() {
  uint64_t t = 0, f = 0;
  if (kfdrtGetSystemTicks(&t, &f) == hipSuccess && f) return f;
  return 1000000000ull;  // no GPU: host nanoseconds
}

// The current system tick count, in the domain of completion_future begin/end ticks (the
// device's packet timestamps converted to the system clock).
inline uint64_t get_system_ticks() {
  uint64_t t = 0, f = 0;
  if (kfdrtGetSystemTicks(&t, &f) == hipSuccess && f) return t;
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

  // As with hcc, a pointer to the hsa_signal_t that completes this operation (its handle is the
  // amd_signal_t address; the value goes from 1 to 0 when the operation is done), so that
  // `*(hsa_signal_t*)f.get_native_handle()` works. The pointer is valid while a copy of this
  // future lives. Null for an empty future.
  void* get_native_handle() const {
    if (!st_) return nullptr;
    detail::op_state& s = *st_;
    std::call_once(s.native_once, [&s] {
      void* sig = nullptr;
      detail::check(kfdrtEventGetSignal(s.end, &sig), "kfdrtEventGetSignal");
      s.native.handle = reinterpret_cast<uintptr_t>(sig);
    });
    return &s.native;
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

// Begin: the begin marker's start (kernels), else the operation's own start; end: the end
// event's end. Both in system ticks (kfdrtEventGetTimestamps). Waits for the operation.
inline uint64_t completion_future::tick_of(bool begin) const {
  if (!st_) return 0;
  wait();
  hipEvent_t ev = (begin && st_->begin) ? st_->begin : st_->end;
  uint64_t s = 0, e = 0;
  detail::check(kfdrtEventGetTimestamps(ev, &s, &e), "kfdrtEventGetTimestamps");
  return begin ? s : e;
}

} // namespace hc
