// SPDX-License-Identifier: MIT
// Pure AQL packet builders: kernel dispatch, barrier-AND/OR and the AMD BARRIER_VALUE vendor packet.
#pragma once

#include <cstdint>
#include <span>

#include "base/result.h"
#include "pm4/aql.h"

namespace queues {

namespace aql = pm4::aql;  // the layouts live on the hardware floor

// One 64-byte AQL packet as 16 dwords. Dword 0 holds header (low 16 bits) and setup / vendor
// format (high 16 bits); the queue stores it last, atomically, with release order.
struct alignas(64) Packet {
  uint32_t dw[16] = {};
  uint16_t header() const { return uint16_t(dw[0]); }
};
static_assert(sizeof(Packet) == aql::kPacketSize);

// Header fields common to every packet.
struct Fence {
  bool barrier = false;
  aql::FenceScope acquire = aql::kScopeSystem;
  aql::FenceScope release = aql::kScopeSystem;
};

struct DispatchParams {
  Fence fence;
  uint32_t dims = 1;                      // 1..3
  uint16_t workgroup[3] = {1, 1, 1};
  uint32_t grid[3] = {1, 1, 1};           // in work-items
  uint32_t private_segment_size = 0;
  uint32_t group_segment_size = 0;
  uint64_t kernel_object = 0;             // address of the kernel descriptor
  uint64_t kernarg_address = 0;
  uint64_t completion_signal = 0;         // amd_signal_t address, 0 for none
};

// Kernel dispatch packet; EINVAL for dims outside 1..3 or a zero workgroup / grid size.
base::Result<Packet> make_dispatch(const DispatchParams& p);

// Barrier-AND (all dependencies reach 0) / barrier-OR (any does). At most 5 dependencies; 0
// handles are satisfied. EINVAL for more than 5.
base::Result<Packet> make_barrier_and(std::span<const uint64_t> deps, uint64_t completion_signal,
                                     Fence fence = {});
base::Result<Packet> make_barrier_or(std::span<const uint64_t> deps, uint64_t completion_signal,
                                    Fence fence = {});

// AMD BARRIER_VALUE: waits until (value(signal) & mask) <cond> value.
Packet make_barrier_value(uint64_t signal, aql::BarrierValueCond cond, int64_t value,
                          int64_t mask, uint64_t completion_signal, Fence fence = {});

// A barrier-AND with no dependencies: completes (and signals) once it reaches the head.
Packet make_marker(uint64_t completion_signal, Fence fence = {});

inline uint16_t make_fence_header(aql::PacketType type, const Fence& f) {
  return aql::make_header(type, f.barrier, f.acquire, f.release);
}

}  // namespace queues
