// SPDX-License-Identifier: MIT
// Busy-wait helpers shared by the producer and signal waits (internal to queues/).
#pragma once

#include <chrono>

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

}  // namespace queues::spin
