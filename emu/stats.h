// SPDX-License-Identifier: MIT
// Lifetime statistics of the emulated GPU's engines (queues created, packets each engine ran), for tests that must know which engine did the work.
#pragma once

#include <atomic>
#include <cstdint>

namespace emu::stats {

// Counters since the process started; relaxed atomics, bumped by the engines and the driver.
struct Counters {
  std::atomic<uint64_t> queues_aql{0}, queues_pm4{0}, queues_sdma{0}, queues_sdma_xgmi{0};
  std::atomic<uint64_t> aql_packets{0}, aql_dispatches{0};      // command processor, AQL queues
  std::atomic<uint64_t> pm4_packets{0}, pm4_dispatches{0};      // command processor, PM4 queues
  std::atomic<uint64_t> sdma_packets{0}, sdma_copies{0}, sdma_copy_bytes{0}, sdma_fills{0};
  std::atomic<uint64_t> sdma_streamed_bytes{0};  // COPY_LINEAR bytes the engine streamed
};
Counters& counters();

inline void bump(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }

// Arms the exit-time report when KFDEMU_STATS names a file (called when /dev/kfd is opened).
void arm_report();

}  // namespace emu::stats
