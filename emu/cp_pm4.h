// SPDX-License-Identifier: MIT
// The command processor's PM4 front end: a queue's PM4 state and the executor of PM4 packet streams (rings and indirect buffers).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "emu/command_processor.h"
#include "pm4/regs.h"
#include "pm4/type3.h"

namespace emu {

// What the CP keeps per queue for PM4: the SH register file SET_SH_REG writes and DISPATCH_DIRECT
// reads, and the indirect buffer in progress (a WAIT_REG_MEM in it resumes where it stopped).
struct Pm4State {
  std::array<uint32_t, pm4::reg::kShRegEnd - pm4::reg::kShRegStart> sh{};
  bool in_ib = false;
  uint64_t ib_va = 0;
  uint32_t ib_dwords = 0;
  uint32_t ib_pos = 0;            // dwords of the IB already executed
  uint32_t caller_dwords = 0;     // size of the ring-level packet that called the IB
  uint64_t aql_index = ~0ull;     // AQL queues: the PM4-IB packet the IB belongs to
  std::vector<uint32_t> wrapped;  // a ring packet gathered across the ring's end
  uint32_t sh_reg(uint32_t reg) const { return sh[reg - pm4::reg::kShRegStart]; }
};

Pm4State& pm4_state(Queue& q);

// Executes PM4 type-3 packets for one queue on behalf of its command processor. Nesting is the
// MEC's: the ring (or an AQL PM4-IB packet) may call an IB, an IB may CHAIN to another IB but
// not call one (no IB2 on compute queues: Mesa radv_amdgpu_cs.c uses IB2 only on the GFX ring
// and inlines secondary command buffers on compute queues).
class Pm4Executor {
 public:
  Pm4Executor(CommandProcessor& cp, Queue& q);

  // Dwords of the packet whose header dword is `h` (type-3, or the one-dword type-2 filler); 0
  // after stopping the queue when the CP does not take that packet type.
  uint32_t packet_dwords(uint32_t h, uint64_t va);
  // One ring-level packet: `p` holds its `n` dwords, fetched from GPU address `va`.
  Step ring_packet(const uint32_t* p, uint32_t n, uint64_t va);
  // Calls an IB from the ring level (`caller_dwords`: the size of the calling packet).
  Step call_ib(const pm4::IndirectBuffer& ib, uint32_t caller_dwords, uint64_t va);
  // Continues the IB in progress: Done once it ended, Blocked on a wait, Yield after a long run.
  Step run_ib();

 private:
  Step packet(const uint32_t* p, uint32_t n, uint64_t va, bool in_ib);
  Step indirect_buffer(const uint32_t* p, uint64_t va, bool in_ib);
  Step write_data(const uint32_t* p, uint32_t n);
  Step wait_reg_mem(const uint32_t* p);
  Step copy_data(const uint32_t* p);
  Step event_write(const uint32_t* p);
  Step release_mem(const uint32_t* p);
  Step acquire_mem(const uint32_t* p, uint32_t n);
  Step atomic_mem(const uint32_t* p);
  Step dma_data(const uint32_t* p);
  void dma_through_l2(const pm4::DmaData& d, bool fill);
  Step set_sh_reg(const uint32_t* p, uint32_t n);
  Step set_uconfig_reg(const uint32_t* p, uint32_t n);
  Step dispatch_direct(const uint32_t* p);

  // Host pointer for [va, va+size), or nullptr after stopping the queue on a page fault that
  // names the first bad byte and `what`.
  uint8_t* mem(uint64_t va, uint64_t size, bool write, const char* what);
  bool range(uint64_t va, uint64_t size, bool write, const char* what, std::vector<HostSpan>* out);
  // A CP write: through the L2 (`l2`) or the memory path (emu/memory_model.h).
  bool store(uint64_t va, uint64_t value, unsigned bytes, const char* what, bool l2 = false);
  Step error(const std::string& why);  // stops the queue (CommandProcessor::pm4_error)

  CommandProcessor& cp_;
  Queue& q_;
  Pm4State& s_;
  const pm4::Family& f_;
  std::string where() const;  // "PM4 RELEASE_MEM at 0x...": the packet being executed
  bool where_set_ = false;
  uint32_t where_header_ = 0;
  uint64_t where_va_ = 0;
  bool chained_ = false;  // the last packet was a CHAIN  // "RELEASE_MEM at 0x...": the packet being executed, for messages
};

}  // namespace emu
