// SPDX-License-Identifier: MIT
// Shared helpers of the queues suite: the process's Runtime and small packet shortcuts.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "queues/packets.h"
#include "queues/runtime.h"

namespace qtest {

using namespace std::chrono_literals;

// One runtime per process (KFD binds each GPU VM to one render-node fd per process).
inline queues::Runtime& rt() {
  static std::unique_ptr<queues::Runtime> r = [] {
    queues::RuntimeOptions o;
    o.max_interrupt_events = 64;
    auto x = queues::Runtime::open(o);
    if (!x) {
      ADD_FAILURE() << x.message();
      std::abort();
    }
    return std::move(x).value();
  }();
  return *r;
}

inline std::unique_ptr<queues::AqlQueue> make_queue(uint32_t packets = 256) {
  queues::QueueOptions o;
  o.packets = packets;
  auto q = rt().create_queue(o);
  EXPECT_TRUE(q.ok()) << q.message();
  return q.ok() ? std::move(q).value() : nullptr;
}

inline std::unique_ptr<queues::Signal> make_signal(int64_t v,
                                                   queues::SignalKind k = queues::SignalKind::Interrupt) {
  auto s = rt().create_signal(v, k);
  EXPECT_TRUE(s.ok()) << s.message();
  return s.ok() ? std::move(s).value() : nullptr;
}

inline queues::Packet barrier_and(std::initializer_list<uint64_t> deps, uint64_t completion,
                                  bool barrier_bit = false) {
  queues::Fence f;
  f.barrier = barrier_bit;
  auto p = queues::make_barrier_and(std::span<const uint64_t>(deps.begin(), deps.size()), completion, f);
  EXPECT_TRUE(p.ok());
  return *p;
}

inline queues::Packet barrier_or(std::initializer_list<uint64_t> deps, uint64_t completion) {
  auto p = queues::make_barrier_or(std::span<const uint64_t>(deps.begin(), deps.size()), completion);
  EXPECT_TRUE(p.ok());
  return *p;
}

// A function of the emulator's control API (emu/control.h) when the process runs on the emulated
// GPU, else null: tests that inject faults skip on a real device.
template <class F>
F control(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// Publishes `packets` behind one doorbell. Tests whose first packet stops the queue need this: with
// one submit each, the device may stop the queue before the next submit reserves its slot, and
// that submit then fails (a race, not the behaviour under test).
inline base::Status submit_together(queues::AqlQueue& q, std::initializer_list<queues::Packet> packets) {
  auto first = q.reserve(static_cast<uint32_t>(packets.size()));
  if (!first) return first.error();
  uint64_t i = *first;
  for (const auto& p : packets) q.write(i++, p);
  q.ring_doorbell(i - 1);
  return {};
}

// Waits for value == v with a generous timeout.
inline base::Status wait_eq(const queues::Signal& s, int64_t v, std::chrono::nanoseconds t = 10s) {
  auto r = s.wait(queues::Cond::Eq, v, t);
  if (!r) return r.error();
  return {};
}

}  // namespace qtest
