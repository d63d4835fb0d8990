// SPDX-License-Identifier: MIT
// The queues layer's trace hooks: records packets and copies, gives them probes the device stamps.
#pragma once

// Each hook is one line at a submit point and costs one predictable branch while tracing is
// off. While it is on, a traced AQL packet's completion signal is replaced by a probe (a
// signal of its own, which the command processor stamps with start_ts/end_ts on a profiling
// queue) and a barrier-AND behind it, waiting for the probe, completes the original signal.
// Every packet keeps the barrier bit it had, so the order and the completion the caller sees
// are unchanged; the device runs one barrier more per packet. SDMA copies get TIMESTAMP
// (GET_GLOBAL) packets writing the probe's start_ts/end_ts.

#include <cstdint>
#include <span>
#include <vector>

#include "queues/packets.h"
#include "trace/trace.h"

namespace queues {

class AqlQueue;
}  // namespace queues
namespace mem {
class Context;
}  // namespace mem
namespace queues {

struct CopyPiece;
struct CopyOrder;

// The packets to write instead of `pkts` (a thread-local buffer while tracing, `pkts` itself
// otherwise); `dispatch` (the index of the packet whose kernel arguments go in a slot) follows
// its packet. Call before reserving ring slots, with the queue's submissions serialised.
std::span<Packet> trace_aql_slow(mem::Context& rt, AqlQueue& q, std::span<Packet> pkts, int& dispatch);
inline std::span<Packet> trace_aql(mem::Context& rt, AqlQueue& q, std::span<Packet> pkts, int& dispatch) {
  if (!trace::on()) return pkts;
  return trace_aql_slow(rt, q, pkts, dispatch);
}

// A copy engine operation about to be encoded on `path` ("sdma" or "blit"): recorded, and
// the probe whose start_ts/end_ts the engine should stamp (0: none).
// `blit_queue`: the AQL queue of the blit path (its profiling is switched on), null for SDMA.
uint64_t trace_copy(mem::Context& rt, uint32_t gpu_id, uint32_t queue_id, const char* path,
                    std::span<const CopyPiece> pieces, const CopyOrder& o, AqlQueue* blit_queue = nullptr);

// A raw PM4 submission (a caller's command stream): recorded with host time only.
void trace_pm4(uint32_t gpu_id, uint32_t queue_id, uint64_t dwords);

// A PM4 dispatch or barrier about to be written (`r` describes it: op, kernel, grid, fences,
// waits, completion, ring index): recorded with a probe, whose start_ts/end_ts the commands
// stamp with the GPU clock (COPY_DATA before, an end-of-pipe RELEASE_MEM after); returns the
// probe's address (0: none). Call only while tracing is on.
uint64_t trace_pm4_command(mem::Context& rt, trace::Record r);

// A memory context that traced is going away: fresh clock samples, pending probes read or
// forgotten, probe memory freed. Called by ~Runtime before its memory context goes.
void trace_memory_closing(mem::Context& rt);

}  // namespace queues
