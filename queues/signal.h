// SPDX-License-Identifier: MIT
// Signals: amd_signal_t in signal memory, interrupt-backed or polling, and waits with a policy.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/result.h"
#include "pm4/aql.h"
#include "queues/events.h"

namespace queues {

namespace aql = pm4::aql;

enum class Cond { Eq, Ne, Lt, Gte };
const char* cond_name(Cond c);
bool cond_holds(Cond c, int64_t value, int64_t operand);

// A signal whose memory and event come from an EventManager (which must outlive it). handle()
// goes into packets.
class Signal {
 public:
  ~Signal();
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

  uint64_t handle() const { return reinterpret_cast<uint64_t>(sig_); }
  aql::AmdSignal* amd() const { return sig_; }
  bool is_interrupt() const { return ev_ != nullptr; }
  const InterruptEvent* event() const { return ev_; }

  int64_t load() const;
  // Host-side updates, release order; they wake blocked host waiters of interrupt signals.
  void store(int64_t v);
  int64_t add(int64_t d);
  int64_t sub(int64_t d) { return add(-d); }
  int64_t exchange(int64_t v);
  bool compare_exchange(int64_t& expected, int64_t desired);

  // Waits until `value <cond> operand` and returns the value seen. Fails with ETIMEDOUT after
  // `timeout`, or with the device's error (GPU fault, queue error) as soon as one is known.
  base::Result<int64_t> wait(Cond cond, int64_t operand, std::chrono::nanoseconds timeout,
                            const WaitPolicy& policy) const;
  // Same, with the EventManager's default policy.
  base::Result<int64_t> wait(Cond cond, int64_t operand,
                            std::chrono::nanoseconds timeout = kForever) const;

 private:
  friend class EventManager;
  Signal(EventManager* events, aql::AmdSignal* sig, InterruptEvent* ev)
      : events_(events), sig_(sig), ev_(ev) {}
  void wake();
  base::Result<int64_t> block(Cond cond, int64_t operand,
                             std::chrono::steady_clock::time_point deadline,
                             const WaitPolicy& policy) const;
  base::Error timeout_error(Cond cond, int64_t operand, std::chrono::nanoseconds t) const;

  EventManager* events_;
  aql::AmdSignal* sig_;
  InterruptEvent* ev_;
  mutable std::atomic<int> waiters_{0};
};

}  // namespace queues
