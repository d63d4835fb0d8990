// SPDX-License-Identifier: MIT
// The command processor's PM4 queues (ring, read and write pointers) and the AQL vendor packet that runs a PM4 indirect buffer.
#include <cstring>

#include "emu/command_processor.h"
#include "emu/cp_pm4.h"
#include "emu/stats.h"
#include "pm4/queue_error.h"

namespace emu {

using namespace pm4::aql;

namespace {
constexpr unsigned kPacketsPerTurn = 64;  // fairness between queues
}  // namespace

// A PM4 compute queue (KFD_IOC_QUEUE_TYPE_COMPUTE on gfx9+, kfdtest PM4Queue.cpp): the doorbell
// holds the 64-bit write pointer in dwords; the CP writes its read pointer, in dwords and wrapping
// at the ring size, as 32 bits to read_pointer_address as it consumes. Packets may wrap around
// the ring's end.
bool CommandProcessor::service_pm4(Queue& q) {
  Pm4State& s = pm4_state(q);
  const uint64_t ndw = q.ring_size / 4;
  auto* ring = reinterpret_cast<const uint32_t*>(d_.translate(q.ring_va, q.ring_size, false));
  auto* rptr = reinterpret_cast<uint32_t*>(d_.translate(q.rptr_va, 4, true));
  if (!ring || !rptr) {
    fault(q, rptr ? "queue ring is not mapped to the GPU" : "queue read pointer is not mapped writable to the GPU",
          rptr ? q.ring_va : q.rptr_va, !rptr);
    return false;
  }
  const uint64_t wptr = doorbell(q);
  if (wptr - q.consumed > ndw) {
    pm4_error(q, "write pointer " + hex(wptr) + " (doorbell, dwords) is not within one ring (" +
                     std::to_string(ndw) + " dwords) ahead of the read pointer " + hex(q.consumed));
    return false;
  }
  Pm4Executor ex(*this, q);
  auto advance = [&](uint64_t dwords) {
    q.consumed += dwords;
    __atomic_store_n(rptr, uint32_t(q.consumed % ndw), __ATOMIC_RELEASE);
  };
  bool progressed = false;
  for (unsigned n = 0; n < kPacketsPerTurn; ++n) {
    if (s.in_ib) {  // an IB the ring called is not finished: its calling packet is not consumed
      const Step st = ex.run_ib();
      if (st == Step::Yield) return true;
      if (st != Step::Done) return progressed;
      advance(s.caller_dwords);
      progressed = true;
      continue;
    }
    if (q.consumed == wptr) break;
    const uint64_t pos = q.consumed % ndw;
    const uint64_t va = q.ring_va + pos * 4;
    const uint32_t len = ex.packet_dwords(__atomic_load_n(&ring[pos], __ATOMIC_ACQUIRE), va);
    if (!len) return progressed;
    if (len > ndw) {
      pm4_error(q, "packet at " + hex(va) + " (header " + hex(ring[pos]) + ") is " + std::to_string(len) +
                       " dwords long, more than the ring's " + std::to_string(ndw));
      return progressed;
    }
    if (len > wptr - q.consumed) break;  // the producer has not published all of it yet
    const uint32_t* pk = ring + pos;
    if (pos + len > ndw) {  // wraps around the ring's end: gather it
      s.wrapped.resize(len);
      const uint64_t first = ndw - pos;
      std::memcpy(s.wrapped.data(), ring + pos, first * 4);
      std::memcpy(s.wrapped.data() + first, ring, (len - first) * 4);
      pk = s.wrapped.data();
    }
    const Step st = ex.ring_packet(pk, len, va);
    if (st == Step::Yield) return true;  // an IB in progress: resumed above next turn
    if (st != Step::Done) return progressed;
    stats::bump(stats::counters().pm4_packets);
    advance(len);
    progressed = true;
  }
  return progressed;
}

// ROCr's ExecutePM4 (amd_aql_queue.cpp): a VENDOR packet of format PM4_IB whose dwords 1..4 are
// an INDIRECT_BUFFER packet and whose dw_cnt_remain is 0xA. The IB runs as one called from the
// ring; the packet completes like any AQL packet once the IB has ended.
Step CommandProcessor::pm4_ib(Queue& q, uint8_t* pkt, uint64_t index) {
  Pm4State& s = pm4_state(q);
  Pm4Executor ex(*this, q);
  if (s.in_ib && s.aql_index == index) return ex.run_ib();  // resumes after a wait
  auto* ib = reinterpret_cast<const Pm4IbPacket*>(pkt);
  const uint64_t va = q.ring_va + (index % (q.ring_size / kPacketSize)) * kPacketSize;
  if (ib->dw_cnt_remain != pm4::kPm4IbDwCntRemain) {
    fail(q, pm4::queue_error::kInvalidVendorPacket,
         "PM4 IB packet at " + hex(va) + ": dw_cnt_remain " + hex(ib->dw_cnt_remain) + ", expected " +
             hex(pm4::kPm4IbDwCntRemain));
    return Step::Failed;
  }
  const uint32_t h = ib->ib_jump_cmd[0];
  const pm4::Type3Header t = pm4::decode_type3(h);
  if (pm4::packet_type(h) != pm4::kPacketType3 || t.opcode != pm4::kOpIndirectBuffer ||
      t.dwords() != pm4::kIndirectBufferDwords) {
    fail(q, pm4::queue_error::kInvalidVendorPacket,
         "PM4 IB packet at " + hex(va) + ": dword 1 (" + hex(h) + ") is not an INDIRECT_BUFFER header");
    return Step::Failed;
  }
  s.aql_index = index;
  return ex.ring_packet(ib->ib_jump_cmd, pm4::kIndirectBufferDwords, va + offsetof(Pm4IbPacket, ib_jump_cmd));
}

void CommandProcessor::pm4_error(Queue& q, const std::string& why) {
  if (q.type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {
    fail(q, pm4::queue_error::kInvalidPacketFormat, why);
    return;
  }
  stop_queue(q, why, "PM4 error: HW_EXCEPTION events set");
  p_.raise_hw_exception_event();
}

}  // namespace emu
