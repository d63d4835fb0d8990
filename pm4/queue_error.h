// SPDX-License-Identifier: MIT
// The error bits a gfx9+ command processor stores into an AQL queue's queue_inactive_signal.
#pragma once

#include <cstdint>
#include <string>

namespace pm4::queue_error {

// When an AQL queue stops, the CP stores a bit mask into amd_queue_t.queue_inactive_signal's
// value (and raises the signal's event). The meanings are the ones ROCr's queue error handler
// decodes (ROCr amd_aql_queue.cpp, AqlQueue::DynamicScratchHandler, rocm-5.2): bits 0x1 and 0x400
// ask the runtime for scratch (wave64 / wave32) and the queue resumes once the runtime stores 0
// back; every other bit is fatal for the queue. A GPU page fault is not reported here: the driver
// raises a MEMORY event with the faulting address (kfd_events.c) and evicts the queues.
constexpr uint64_t kScratchWave64 = 0x1;            // dispatch needs more scratch than the queue has
constexpr uint64_t kInvalidDim = 0x2;               // zero or oversized grid / workgroup dimension
constexpr uint64_t kInvalidGroupMemory = 0x4;       // group segment larger than the LDS
constexpr uint64_t kInvalidCode = 0x8;              // null or invalid kernel object
constexpr uint64_t kInvalidPacketFormat = 0x20;     // unknown AQL packet type
constexpr uint64_t kGroupTooLarge = 0x40;           // workgroup larger than the hardware allows
constexpr uint64_t kOutOfVgprs = 0x80;              // kernel needs more VGPRs than a SIMD has
constexpr uint64_t kInvalidVendorPacket = 0x100;    // unknown AMD vendor packet format
constexpr uint64_t kReclaimLargeScratch = 0x200;    // (512 alone) runtime may free a large scratch
constexpr uint64_t kScratchWave32 = 0x400;          // as kScratchWave64, for a wave32 dispatch
constexpr uint64_t kMemoryViolation = 0x20000000;   // access beyond the 48-bit address space
constexpr uint64_t kIllegalInstruction = 0x40000000;
constexpr uint64_t kDebugTrap = 0x80000000;         // s_trap (abort) reported by the trap handler

// Set by ROCr (not the CP) in bit 63 while it tears a queue down.
constexpr uint64_t kRuntimeTerminating = 0x8000000000000000ull;

// Whether a value asks the runtime for scratch and the queue will wait for it.
constexpr bool wants_scratch(uint64_t v) { return (v & (kScratchWave64 | kScratchWave32)) != 0; }

// "invalid packet format (0x20)"; several bits are joined with " | "; unknown bits are shown in hex.
std::string describe(uint64_t value);

}  // namespace pm4::queue_error
