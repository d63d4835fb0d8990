// SPDX-License-Identifier: MIT
// PM4 command sequences for compute queues: kernel dispatch from a descriptor, signals, waits, timestamps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/result.h"
#include "pm4/aql.h"
#include "pm4/family.h"
#include "pm4/kernel_descriptor.h"
#include "pm4/regs.h"
#include "pm4/type3.h"
#include "queues/packets.h"
#include "queues/signal.h"

namespace queues {

// Where a command completes a signal: the amd_signal_t value and, for an interrupt signal, the
// event mailbox and id that wake host waiters.
struct SignalTarget {
  uint64_t value_address = 0;  // &amd_signal_t.value (8-byte aligned); 0: no signal
  uint64_t mailbox = 0;        // event_mailbox_ptr; 0: no interrupt
  uint32_t event_id = 0;
};
SignalTarget signal_target(const aql::AmdSignal& s);
SignalTarget signal_target(const Signal& s);

// ---- signals and waits (pure writers; each returns the dwords written) ----------------------

// Completion of a signal at the end of the pipe (after every earlier dispatch finished): a
// RELEASE_MEM writing `value` (64-bit, after write confirm) with the caches written back when
// `writeback` (system-scope release), then, for an interrupt signal, a second RELEASE_MEM writing
// the event id into the mailbox with INT_SEL 2 and INT_CTXID = the event id: the interrupt the
// driver turns into the event (kfd_signal_event_interrupt looks the id up and wants its mailbox
// slot written; kfdtest PM4EventInterrupt does the same).
constexpr uint32_t kPm4SignalMaxDwords = 2 * pm4::kReleaseMemDwords;
uint32_t pm4_signal_dwords(const SignalTarget& s);
size_t write_pm4_signal(uint32_t* out, const pm4::Family& f, const SignalTarget& s, int64_t value,
                        bool writeback = true);

// Waits in the CP until a 64-bit signal value satisfies `cond operand`. WAIT_REG_MEM compares 32
// bits, so a 64-bit condition becomes two waits, high dword first (as ROCr's SDMA path waits for
// 0): Eq waits for hi == hi(operand), then lo == lo(operand); Lt (0 < operand <= 2^32) waits for
// hi == 0, then lo < operand (unsigned). Both are exact for signals that move monotonically
// toward the operand (completion signals counting down): once the high dword matches it cannot
// change again. Other conditions (Ne, Gte, negative operands) cannot be split this way: EINVAL.
constexpr uint32_t kPm4WaitSignalDwords = 2 * pm4::kWaitRegMemDwords;
base::Result<size_t> write_pm4_wait_signal(uint32_t* out, uint64_t value_address, Cond cond,
                                           int64_t operand);

// The 64-bit GPU clock now (COPY_DATA from the GPU clock counter: when the CP reaches it).
constexpr uint32_t kPm4TimestampDwords = pm4::kCopyDataDwords;
size_t write_pm4_timestamp(uint32_t* out, uint64_t address);
// The 64-bit GPU clock at the end of the pipe (RELEASE_MEM DATA_SEL 3: after earlier dispatches).
constexpr uint32_t kPm4EndTimestampDwords = pm4::kReleaseMemDwords;
size_t write_pm4_end_timestamp(uint32_t* out, uint64_t address);

// WRITE_DATA of `data` to memory with write confirm, bypassing the L2 (kfdtest's WRITE_DATA:
// dst_sel memory, cache policy BYPASS) so the host sees it without a release.
constexpr uint32_t pm4_write_memory_dwords(size_t n) { return 4 + uint32_t(n); }
size_t write_pm4_write_memory(uint32_t* out, uint64_t address, std::span<const uint32_t> data);

// A 32-bit fence value written at the end of the pipe, no interrupt (retires earlier work), with
// `cache` actions (pm4::release_cache_writeback for a system-scope release, or 0).
size_t write_pm4_fence(uint32_t* out, uint64_t address, uint32_t value, uint32_t cache = 0);
// WAIT_REG_MEM until the dword at `address` equals `value`.
size_t write_pm4_wait_equal(uint32_t* out, uint64_t address, uint32_t value);

// ---- kernel dispatch ---------------------------------------------------------------------------

// What a PM4 dispatch needs of a kernel, decoded once from its descriptor (keep one per kernel).
struct Pm4Kernel {
  uint64_t kernel_object = 0;  // GPU address of the descriptor
  uint64_t entry = 0;          // kernel_object + kernel_code_entry_byte_offset
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint16_t properties = 0;          // kernel_code_properties
  uint32_t user_sgpr_count = 0;     // COMPUTE_PGM_RSRC2.USER_SGPR_COUNT
  uint32_t preload_offset = 0, preload_length = 0;  // kernarg dwords preloaded into user SGPRs
  uint32_t group_segment_fixed_size = 0, private_segment_fixed_size = 0, kernarg_size = 0;
  bool wave32 = false;
};
// EINVAL when the descriptor asks for more user SGPRs than USER_SGPR_COUNT or COMPUTE_USER_DATA_*
// hold, for wave32 on a family without it, or for a misaligned entry point.
base::Result<Pm4Kernel> make_pm4_kernel(const pm4::KernelDescriptor& kd, uint64_t kernel_object,
                                        const pm4::Family& f);

// One dispatch, described once (grid and workgroup in work-items, as an AQL packet).
struct Pm4Launch {
  const Pm4Kernel* kernel = nullptr;
  uint32_t dims = 1;                    // 1..3 (the dispatch packet's setup)
  uint32_t grid[3] = {1, 1, 1};
  uint16_t workgroup[3] = {1, 1, 1};
  uint32_t dynamic_group_bytes = 0;     // LDS beyond group_segment_fixed_size
  uint32_t private_segment_bytes = 0;   // per work-item, when more than the descriptor's fixed size
  uint64_t kernarg_address = 0;
  // Host view of the kernel arguments: needed only by kernels that preload kernargs into SGPRs.
  std::span<const uint8_t> kernarg;
  // barrier: start after every earlier dispatch of the queue finished; acquire (not None):
  // invalidate the caches before; release System: write back the L2 at completion.
  Fence fence;
  SignalTarget completion;              // value_address 0: none
  int64_t completion_value = 0;
};

// What the queue supplies to a dispatch.
struct Pm4QueueContext {
  const pm4::Family* family = nullptr;
  uint32_t lds_bytes = 65536;          // the node's LDS per workgroup
  bool trap_present = false;           // the queue runs with a trap handler (CWSR)
  uint32_t tmpring_size = 0;           // COMPUTE_TMPRING_SIZE of the queue's scratch
  uint32_t scratch_srd[4] = {};        // private segment buffer V#
  uint64_t scratch_base = 0;           // GPU VA of the queue's backing store (flat scratch init)
  uint32_t scratch_lane_bytes = 0;     // per work-item the store holds
  uint64_t amd_queue = 0;              // queue ptr
  uint64_t dispatch_packet = 0;        // dispatch ptr (the runtime writes the packet there)
  uint64_t dispatch_id = 0;
};

// The register values of one dispatch. COMPUTE_START_X (0x2E04) .. COMPUTE_PGM_RSRC2 (0x2E13) are
// consecutive and go out in one SET_SH_REG; COMPUTE_VMID (0x2E14) and the CU masks
// (STATIC_THREAD_MGMT_SE*, the queue's, set by the driver) are never written.
struct Pm4DispatchRegs {
  static constexpr uint32_t kBlockFirst = pm4::reg::kComputeStartX;
  static constexpr uint32_t kBlockCount = pm4::reg::kComputePgmRsrc2 - kBlockFirst + 1;
  uint32_t block[kBlockCount] = {};
  uint32_t& at(uint32_t reg) { return block[reg - kBlockFirst]; }
  uint32_t get(uint32_t reg) const { return block[reg - kBlockFirst]; }
  uint32_t rsrc3 = 0;
  uint32_t rsrc3_reg = 0;       // 0: the family has no RSRC3
  uint32_t resource_limits = 0;
  uint32_t tmpring_size = 0;
  uint32_t user_data[pm4::reg::kComputeUserDataCount] = {};
  uint32_t user_count = 0;
  pm4::DispatchDirect dispatch;
  bool acquire = false;         // ACQUIRE_MEM first
  pm4::AcquireMemForm acquire_form = pm4::AcquireMemForm::Gfx9;
  pm4::AcquireMem acquire_mem;
};

// Checks the launch against the kernel and the queue and computes every register (AMDGPUUsage
// "Initial Kernel Execution State" for the user SGPR order). EINVAL, naming the value, for a bad
// grid or workgroup, LDS over the node's, scratch the queue does not have, missing kernargs.
base::Result<Pm4DispatchRegs> plan_pm4_dispatch(const Pm4Launch& l, const Pm4QueueContext& q);
// ACQUIRE_MEM (when asked), SET_SH_REGs, DISPATCH_DIRECT.
uint32_t pm4_dispatch_dwords(const Pm4DispatchRegs& r);
size_t write_pm4_dispatch(uint32_t* out, const Pm4DispatchRegs& r);
// The AQL dispatch packet a kernel reading its dispatch ptr sees (the CP's packet on AQL queues).
base::Result<Packet> pm4_dispatch_packet(const Pm4Launch& l);

}  // namespace queues
