// SPDX-License-Identifier: MIT
// SDMA command sequences: chunked copies and fills, signal completion with interrupt, waits, timestamps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/result.h"
#include "pm4/family.h"
#include "pm4/sdma.h"
#include "queues/pm4_commands.h"
#include "queues/signal.h"

namespace queues {

// COPY_LINEAR packets of at most the family's sdma_max_copy_bytes each (22-bit counts on SDMA
// v4). 0 bytes: no packet.
constexpr uint32_t sdma_copy_dwords(uint64_t bytes, const pm4::Family& f) {
  return uint32_t(pm4::sdma::copy_packets(bytes, f)) * pm4::sdma::kCopyLinearDwords;
}
size_t write_sdma_copy(uint32_t* out, const pm4::Family& f, uint64_t dst, uint64_t src, uint64_t bytes);

// CONSTANT_FILL of a dword pattern, chunked like copies. EINVAL unless dst and bytes are
// multiples of 4 (the packet fills whole dwords).
constexpr uint32_t sdma_fill_dwords(uint64_t bytes, const pm4::Family& f) {
  return uint32_t(pm4::sdma::copy_packets(bytes, f)) * pm4::sdma::kConstFillDwords;
}
base::Result<size_t> write_sdma_fill(uint32_t* out, const pm4::Family& f, uint64_t dst, uint32_t value,
                                     uint64_t bytes);

// How an SDMA command completes a signal (ROCr BlitSdma::SubmitBlockingCommand): write the value
// (two FENCEs, high dword first, so a waiter for a count-down to 0 never sees a torn 0), or
// decrement it with a 64-bit ATOMIC add of -1 (needs PCIe atomics for signals in host memory).
// Either way an interrupt signal then gets its event id written into its mailbox (FENCE) and a
// TRAP whose INT_CONTEXT is the event id: the driver turns the trap into that event.
struct SdmaCompletion {
  SignalTarget signal;
  int64_t value = 0;
  bool decrement = false;
};
uint32_t sdma_signal_dwords(const SdmaCompletion& c);
size_t write_sdma_signal(uint32_t* out, const SdmaCompletion& c);

// POLL_REGMEM waits on a 64-bit signal value, split as write_pm4_wait_signal does (Eq; Lt with
// 0 < operand <= 2^32), retrying forever.
constexpr uint32_t kSdmaWaitSignalDwords = 2 * pm4::sdma::kPollRegMemDwords;
base::Result<size_t> write_sdma_wait_signal(uint32_t* out, uint64_t value_address, Cond cond,
                                            int64_t operand);

// TIMESTAMP GET_GLOBAL: the 64-bit global GPU timestamp when the engine reaches it (ROCr's
// profiling stamps); the address must be 32-byte aligned, as ROCr asserts for its stamps.
base::Result<size_t> write_sdma_timestamp(uint32_t* out, uint64_t address);

}  // namespace queues
