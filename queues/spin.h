// SPDX-License-Identifier: MIT
// Busy-wait helpers shared by the producers and waits of every queue kind (internal to queues/).
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#include "base/result.h"

namespace queues::spin {

using Clock = std::chrono::steady_clock;

// A pause hint inside spin loops: frees the core's pipeline for the sibling hyperthread.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// `now + t`, saturating instead of overflowing for very long (kForever) durations.
inline Clock::time_point deadline_after(Clock::time_point now, std::chrono::nanoseconds t) {
  if (t >= Clock::time_point::max() - now) return Clock::time_point::max();
  return now + t;
}

inline long long ms_since(Clock::time_point start, Clock::time_point now) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count();
}

// Spins `spins` rounds, then yields, until done(); runs check() (queue and device errors, a
// syscall) at most once a millisecond and returns on_timeout(now) at the deadline.
template <class Done, class Check, class OnTimeout>
base::Status poll(uint32_t spins, Clock::time_point deadline, Done done, Check check,
                  OnTimeout on_timeout) {
  using namespace std::chrono_literals;
  auto next_check = Clock::now();
  for (uint32_t n = 1; !done(); ++n) {
    if (n < spins) {
      cpu_relax();
      continue;
    }
    auto now = Clock::now();
    if (now >= next_check) {
      KFD_TRY(check());
      next_check = now + 1ms;
    }
    if (now >= deadline) return on_timeout(now);
    std::this_thread::yield();
  }
  return {};
}

// Store fence, then a 64-bit doorbell write: the ring's contents and the write pointer reach
// memory before the engine is told (the doorbell page may be write-combined).
inline void ring_doorbell64(volatile uint64_t* doorbell, uint64_t value) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
  __atomic_store_n(doorbell, value, __ATOMIC_RELEASE);
}

// Asks for the cache line at `p` in a state this core may write (PREFETCHW; a no-op where the
// CPU lacks it). A ring slot the packet processor consumed last (its header set back to INVALID)
// is no longer in this core's cache; fetched now, the line arrives while the producer does other
// things, not when it writes the next packet (and its next locked instruction waits for that
// store to drain).
inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

}  // namespace queues::spin
