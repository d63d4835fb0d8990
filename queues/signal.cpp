// SPDX-License-Identifier: MIT
// Signal operations and the spin / yield / block wait (Linux kfd_events.c; ROCr amd_hsa_signal.h).
#include "queues/signal.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "queues/spin.h"
#include "trace/trace.h"

namespace queues {
namespace {

using Clock = spin::Clock;
using spin::cpu_relax;
using spin::deadline_after;

}  // namespace

const char* cond_name(Cond c) {
  switch (c) {
    case Cond::Eq: return "==";
    case Cond::Ne: return "!=";
    case Cond::Lt: return "<";
    case Cond::Gte: return ">=";
  }
  return "?";
}

bool cond_holds(Cond c, int64_t v, int64_t x) {
  switch (c) {
    case Cond::Eq: return v == x;
    case Cond::Ne: return v != x;
    case Cond::Lt: return v < x;
    case Cond::Gte: return v >= x;
  }
  return false;
}

Signal::~Signal() {
  events_->destroy_signal_storage(sig_, ev_);
}

int64_t Signal::load() const { return __atomic_load_n(&sig_->value, __ATOMIC_ACQUIRE); }

void Signal::wake() {
  // Dekker pairing with the waiter: it bumps waiters_ before its last value check.
  if (ev_ && waiters_.load(std::memory_order_seq_cst) > 0) (void)events_->set(ev_);
}

void Signal::store(int64_t v) {
  __atomic_store_n(&sig_->value, v, __ATOMIC_SEQ_CST);
  wake();
}

int64_t Signal::add(int64_t d) {
  int64_t old = __atomic_fetch_add(&sig_->value, d, __ATOMIC_SEQ_CST);
  wake();
  return old;
}

int64_t Signal::exchange(int64_t v) {
  int64_t old = __atomic_exchange_n(&sig_->value, v, __ATOMIC_SEQ_CST);
  wake();
  return old;
}

bool Signal::compare_exchange(int64_t& expected, int64_t desired) {
  bool ok = __atomic_compare_exchange_n(&sig_->value, &expected, desired, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
  if (ok) wake();
  return ok;
}

base::Error Signal::timeout_error(Cond cond, int64_t operand, std::chrono::nanoseconds t) const {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(t).count();
  return base::Error::msg("signal wait timed out after " + std::to_string(us) + " us: signal " +
                         base::hex(handle()) + " value " + std::to_string(load()) +
                         ", waiting for value " + cond_name(cond) + " " + std::to_string(operand),
                         ETIMEDOUT);
}

base::Result<int64_t> Signal::wait(Cond cond, int64_t operand,
                                  std::chrono::nanoseconds timeout) const {
  return wait(cond, operand, timeout, events_->wait_policy());
}

base::Result<int64_t> Signal::wait(Cond cond, int64_t operand, std::chrono::nanoseconds timeout,
                                  const WaitPolicy& policy) const {
  int64_t v = load();
  if (cond_holds(cond, v, operand)) return v;
  trace::WaitScope traced(handle(), operand, policy.spin.count(), policy.yield.count());
  const auto start = Clock::now();
  const auto deadline = deadline_after(start, timeout);
  if (policy.block && policy.spin.count() <= 0 && policy.yield.count() <= 0)
    return block(cond, operand, deadline, policy);  // a pure blocking waiter does not spin
  const auto spin_end = deadline_after(start, policy.spin);
  const auto yield_end = deadline_after(spin_end, policy.yield);
  // Short waits never pay for the device check; longer ones check every millisecond.
  auto next_check = start + std::chrono::microseconds(200);
  bool yielding = false;  // past the spin: every look is followed by a yield
  for (uint32_t n = 1;; ++n) {
    v = load();
    if (cond_holds(cond, v, operand)) return v;
    if (!yielding && (n & 63) != 0) {
      cpu_relax();
      continue;
    }
    auto now = Clock::now();
    if (now >= next_check) {
      // Faults and queue errors end the wait; polling the kernel at most once a millisecond.
      KFD_TRY(events_->check_device(true));
      next_check = now + std::chrono::milliseconds(1);
    }
    if (now >= deadline) return timeout_error(cond, operand, timeout);
    if (now >= yield_end && policy.block) break;
    if (now >= spin_end) {
      yielding = true;
      std::this_thread::yield();
    }
  }
  return block(cond, operand, deadline, policy);
}

base::Result<int64_t> Signal::block(Cond cond, int64_t operand, Clock::time_point deadline,
                                   const WaitPolicy& policy) const {
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  struct Leave {
    std::atomic<int>& w;
    ~Leave() { w.fetch_sub(1, std::memory_order_seq_cst); }
  } leave{waiters_};
  const auto start = Clock::now();
  EventManager& events = *events_;
  for (;;) {
    // The event age is read before the value, so a completion in between wakes us at once.
    uint64_t age = ev_ ? ev_->age.load(std::memory_order_acquire) : 0;
    int64_t v = load();
    if (cond_holds(cond, v, operand)) return v;
    KFD_TRY(events_->check_device(false));
    auto now = Clock::now();
    if (now >= deadline) return timeout_error(cond, operand, now - start);
    auto left_ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    // Polling signals (no event) re-check every millisecond; interrupt ones sleep up to a slice
    // (shorter when the kernel lacks event ages and a wake-up could be missed).
    uint32_t slice = ev_ ? (events.uses_event_age() ? policy.block_slice_ms : 10u) : 1u;
    uint32_t ms = uint32_t(std::min<long long>(left_ms, slice));
    KFD_TRY(events.wait(ev_, age, std::max<uint32_t>(ms, 1)));
  }
}

}  // namespace queues
