// SPDX-License-Identifier: MIT
// PM4 type-3 packets for compute queues: pure writers and the decoders the emulated CP uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "pm4/aql.h"
#include "pm4/family.h"

namespace pm4 {

// Packet header. source: Linux soc15d.h (PACKET3, CP_PACKET_GET_*): type [31:30], count
// [29:16] = dwords after the header - 1, opcode [15:8], shader type bit 1 (1 = compute; ROCr
// leaves it 0 on gfx8+ and the MEC accepts both), predicate bit 0.
enum Opcode : uint8_t {
  kOpNop = 0x10,
  kOpSetBase = 0x11,
  kOpDispatchDirect = 0x15,
  kOpDispatchIndirect = 0x16,
  kOpAtomicMem = 0x1E,
  kOpWriteData = 0x37,
  kOpWaitRegMem = 0x3C,
  kOpIndirectBuffer = 0x3F,
  kOpCopyData = 0x40,
  kOpPfpSyncMe = 0x42,
  kOpEventWrite = 0x46,
  kOpReleaseMem = 0x49,
  kOpDmaData = 0x50,
  kOpAcquireMem = 0x58,
  kOpSetShReg = 0x76,
  kOpSetUconfigReg = 0x79,
};
const char* opcode_name(uint8_t opcode);  // "RELEASE_MEM", or nullptr when unknown

constexpr uint32_t kPacketType0 = 0, kPacketType2 = 2, kPacketType3 = 3;
constexpr uint32_t packet_type(uint32_t header) { return header >> 30; }
// A type-2 packet is a one-dword filler (gfx9 still accepts it).
constexpr uint32_t kType2Filler = 0x80000000u;
// The one-dword NOP: a type-3 NOP whose count field is all ones (0x3FFF).
constexpr uint32_t kNop1 = 0xFFFF1000u;

struct Type3Header {
  uint8_t opcode = 0;
  uint32_t count = 0;  // body dwords - 1 (0x3FFF: one-dword NOP)
  bool compute = false;
  bool predicate = false;
  // Whole packet in dwords, header included.
  uint32_t dwords() const { return count == 0x3FFF && opcode == kOpNop ? 1 : count + 2; }
};
constexpr uint32_t type3_header(uint8_t opcode, uint32_t total_dwords, bool compute = true) {
  return (kPacketType3 << 30) | ((total_dwords - 2) & 0x3FFFu) << 16 | uint32_t(opcode) << 8 |
         (compute ? 1u << 1 : 0u);
}
constexpr Type3Header decode_type3(uint32_t h) {
  return Type3Header{uint8_t((h >> 8) & 0xFF), (h >> 16) & 0x3FFF, ((h >> 1) & 1) != 0, (h & 1) != 0};
}

// Sizes in dwords, header included (Linux soc15d.h comments, kfdtest PM4Packet.cpp).
constexpr uint32_t kDispatchDirectDwords = 5;
constexpr uint32_t kWaitRegMemDwords = 7;
constexpr uint32_t kIndirectBufferDwords = 4;
constexpr uint32_t kCopyDataDwords = 6;
constexpr uint32_t kReleaseMemDwords = 8;
constexpr uint32_t kAcquireMemDwordsGfx9 = 7;
constexpr uint32_t kAcquireMemDwordsGfx10 = 8;
constexpr uint32_t kAtomicMemDwords = 9;
constexpr uint32_t kDmaDataDwords = 7;
constexpr uint32_t kEventWriteDwords = 2;
constexpr uint32_t kWriteDataMaxBody = 0x3FFF - 2;  // data dwords one WRITE_DATA may carry

// ---- NOP ------------------------------------------------------------------------------------
// A NOP of exactly `dwords` (>= 1) dwords: kNop1 for one, else a header and zeros.
size_t write_nop(uint32_t* out, uint32_t dwords);

// ---- WRITE_DATA (4 + n dwords) --------------------------------------------------------------
// dw1: DST_SEL [11:8], ADDR_INCR 16 (1 = keep the address), WR_CONFIRM 20, CACHE_POLICY
// [26:25], ENGINE_SEL [31:30]; dw2/3 destination; data follows.
enum WriteDst : uint32_t { kWriteDstRegister = 0, kWriteDstTcL2 = 2, kWriteDstMemory = 5 };
struct WriteData {
  uint32_t dst_sel = kWriteDstMemory;
  bool one_address = false;  // every dword to the same address
  bool wr_confirm = true;
  uint32_t cache_policy = 0;
  uint64_t address = 0;  // dword aligned
  uint32_t count = 0;    // data dwords (decoded)
};
size_t write_write_data(uint32_t* out, const WriteData& w, std::span<const uint32_t> data);
WriteData decode_write_data(const uint32_t* p, uint32_t packet_dwords);

// ---- WAIT_REG_MEM (7 dwords) ----------------------------------------------------------------
// dw1: FUNCTION [2:0], MEM_SPACE [5:4] (0 register, 1 memory), OPERATION [7:6] (0 wait,
// 1 write-wait-write), ENGINE_SEL [9:8]; dw2 address lo (dword aligned) or register; dw3 address
// hi; dw4 reference; dw5 mask; dw6 POLL_INTERVAL [15:0].
enum Compare : uint32_t {
  kCompareAlways = 0, kCompareLess = 1, kCompareLessEqual = 2, kCompareEqual = 3,
  kCompareNotEqual = 4, kCompareGreaterEqual = 5, kCompareGreater = 6,
};
bool compare_holds(uint32_t function, uint32_t value, uint32_t reference);
struct WaitRegMem {
  uint32_t function = kCompareEqual;
  uint32_t mem_space = 1;  // memory
  uint32_t operation = 0;
  uint32_t engine = 0;
  uint64_t address = 0;
  uint32_t reference = 0;
  uint32_t mask = 0xFFFFFFFFu;
  uint32_t poll_interval = 4;
};
size_t write_wait_reg_mem(uint32_t* out, const WaitRegMem& w);
WaitRegMem decode_wait_reg_mem(const uint32_t* p);

// ---- INDIRECT_BUFFER (4 dwords) -------------------------------------------------------------
// dw1 IB_BASE_LO [31:2]; dw2 IB_BASE_HI [15:0]; dw3 IB_SIZE [19:0] dwords, CHAIN 20, VALID 23,
// VMID [27:24], CACHE_POLICY [29:28].
struct IndirectBuffer {
  uint64_t address = 0;  // dword aligned
  uint32_t dwords = 0;   // < 2^20
  bool chain = false;
  bool valid = true;
  uint32_t vmid = 0;
  uint32_t cache_policy = 0;
};
constexpr uint32_t kIbMaxDwords = (1u << 20) - 1;
size_t write_indirect_buffer(uint32_t* out, const IndirectBuffer& ib);
IndirectBuffer decode_indirect_buffer(const uint32_t* p);

// ---- COPY_DATA (6 dwords) -------------------------------------------------------------------
// dw1: SRC_SEL [3:0], DST_SEL [11:8], SRC_CACHE_POLICY [14:13], COUNT_SEL 16 (64-bit), WR_CONFIRM
// 20, DST_CACHE_POLICY [26:25]; dw2/3 source address or immediate; dw4/5 destination.
enum CopySrc : uint32_t {
  kCopySrcRegister = 0, kCopySrcMemory = 1, kCopySrcTcL2 = 2, kCopySrcImmediate = 5,
  kCopySrcGpuClock = 9,
};
enum CopyDst : uint32_t { kCopyDstRegister = 0, kCopyDstTcL2 = 2, kCopyDstMemory = 5 };
struct CopyData {
  uint32_t src_sel = kCopySrcMemory;
  uint32_t dst_sel = kCopyDstMemory;
  bool count64 = false;
  bool wr_confirm = true;
  uint64_t src = 0;  // address, register or immediate
  uint64_t dst = 0;
};
size_t write_copy_data(uint32_t* out, const CopyData& c);
CopyData decode_copy_data(const uint32_t* p);

// ---- EVENT_WRITE (2 dwords, no address) ------------------------------------------------------
// dw1: EVENT_TYPE [5:0], EVENT_INDEX [11:8]. CS_PARTIAL_FLUSH: type 7, index 4. Event types:
// VGT_EVENT_TYPE (Linux vega10_enum.h; Mesa sid.h V_028A90_*); EVENT_INDEX 0 is "other".
constexpr uint32_t kEventCacheFlushTs = 0x4;
constexpr uint32_t kEventCacheFlush = 0x6;
constexpr uint32_t kEventCsPartialFlush = 0x7;
constexpr uint32_t kEventCacheFlushAndInv = 0x16;
constexpr uint32_t kEventIndexOther = 0;
constexpr uint32_t kEventIndexCsPartialFlush = 4;
size_t write_event_write(uint32_t* out, uint32_t event_type, uint32_t event_index);
struct EventWrite {
  uint32_t event_type = 0;
  uint32_t event_index = 0;
};
constexpr EventWrite decode_event_write(const uint32_t* p) {
  return EventWrite{p[1] & 0x3Fu, (p[1] >> 8) & 0xFu};
}

// ---- RELEASE_MEM (8 dwords) -----------------------------------------------------------------
// dw1: EVENT_TYPE [5:0], EVENT_INDEX [11:8], cache actions [23:12] (gfx9: TCL1_VOL 12, TC_VOL 13,
// TC_WB 15, TCL1 16, TC 17, TC_NC 19, TC_WC 20, TC_MD 21; gfx10+: GCR_CNTL), CACHE_POLICY [26:25],
// EXEC 28; dw2: DST_SEL [17:16], INT_SEL [26:24], DATA_SEL [31:29]; dw3/4 address; dw5/6 data;
// dw7 INT_CTXID (the KFD event id an interrupt names). source: Linux soc15d.h, kfd_pm4_headers_ai.h.
constexpr uint32_t kEventCacheFlushAndInvTs = 0x14;
constexpr uint32_t kEventBottomOfPipeTs = 0x28;
constexpr uint32_t kEventIndexEndOfPipe = 5;
namespace release_gfx9 {  // dw1 cache action bits, gfx9
constexpr uint32_t kTcl1VolActionEna = 1u << 12;
constexpr uint32_t kTcVolActionEna = 1u << 13;
constexpr uint32_t kTcWbActionEna = 1u << 15;
constexpr uint32_t kTcl1ActionEna = 1u << 16;
constexpr uint32_t kTcActionEna = 1u << 17;
constexpr uint32_t kTcNcActionEna = 1u << 19;
constexpr uint32_t kTcWcActionEna = 1u << 20;
constexpr uint32_t kTcMdActionEna = 1u << 21;
}  // namespace release_gfx9
namespace release_gfx10 {  // dw1 [23:12] is RELEASE_MEM's GCR_CNTL on gfx10+ (not ACQUIRE_MEM's layout)
constexpr uint32_t kGlmWb = 1u << (12 + 0);
constexpr uint32_t kGlmInv = 1u << (12 + 1);
constexpr uint32_t kGlvInv = 1u << (12 + 2);
constexpr uint32_t kGl1Inv = 1u << (12 + 3);
constexpr uint32_t kGl2Us = 1u << (12 + 4);
constexpr uint32_t kGl2Discard = 1u << (12 + 7);
constexpr uint32_t kGl2Inv = 1u << (12 + 8);
constexpr uint32_t kGl2Wb = 1u << (12 + 9);
constexpr uint32_t seq(uint32_t v) { return (v & 3u) << (12 + 10); }
}  // namespace release_gfx10
enum IntSel : uint32_t {
  kIntNone = 0, kIntOnly = 1, kIntAfterWriteConfirm = 2, kIntDataAfterConfirmNoInt = 3,
};
enum DataSel : uint32_t {
  kDataNone = 0, kData32 = 1, kData64 = 2, kDataGpuClock = 3, kDataSystemClock = 4,
};
struct ReleaseMem {
  uint32_t event_type = kEventCacheFlushAndInvTs;
  uint32_t event_index = kEventIndexEndOfPipe;
  uint32_t cache = 0;  // dw1 bits [23:12], in place (release_gfx9::* or release_gfx10::*)
  uint32_t cache_policy = 0;
  uint32_t dst_sel = 0;  // 0 memory controller, 1 TC/L2
  uint32_t int_sel = kIntNone;
  uint32_t data_sel = kDataNone;
  uint64_t address = 0;
  uint64_t data = 0;
  uint32_t int_ctxid = 0;
};
size_t write_release_mem(uint32_t* out, const ReleaseMem& r);
ReleaseMem decode_release_mem(const uint32_t* p);
// The cache actions of an end-of-kernel release that makes results visible to the host: write
// back and invalidate the L2 (gfx9 TC_WB|TC) or the gfx10+ GCR equivalent (kfdtest PM4Packet.cpp).
uint32_t release_cache_writeback(const Family& f);
// The cache actions of an AQL packet's release fence done by a PM4 queue: a system-scope release
// writes every dirty L2 line back and keeps the lines (gfx9 TC_WB_ACTION_ENA without
// TC_ACTION_ENA, Linux soc15d.h; gfx10+ GL2_WB without GL2_INV), as the packet processor does
// for an AQL packet (AMDGPUUsage memory model: a system-scope release writes back the L2); an
// agent-scope one needs no cache action (the L2 is the agent's). `scope` is
// pm4::aql::FenceScope's value.
uint32_t release_for_scope(const Family& f, uint32_t scope);

// ---- ACQUIRE_MEM (7 dwords gfx9, 8 dwords gfx10+) --------------------------------------------
// dw1 COHER_CNTL [30:0] (gfx9 cache actions; reserved on gfx10+), dw2 COHER_SIZE, dw3
// COHER_SIZE_HI [7:0], dw4 COHER_BASE_LO, dw5 COHER_BASE_HI [23:0], dw6 POLL_INTERVAL [15:0];
// gfx10+ dw7 GCR_CNTL [18:0]. Size and base are in 256-byte units; size 0xFFFFFFFF/0xFF with
// base 0 means everything.
namespace coher_gfx9 {
constexpr uint32_t kTcNcActionEna = 1u << 3;
constexpr uint32_t kTcWcActionEna = 1u << 4;
constexpr uint32_t kTcInvMetadataActionEna = 1u << 5;
constexpr uint32_t kTcl1VolActionEna = 1u << 15;
constexpr uint32_t kTcWbActionEna = 1u << 18;
constexpr uint32_t kTcl1ActionEna = 1u << 22;
constexpr uint32_t kTcActionEna = 1u << 23;
constexpr uint32_t kShKcacheActionEna = 1u << 27;
constexpr uint32_t kShKcacheVolActionEna = 1u << 28;
constexpr uint32_t kShIcacheActionEna = 1u << 29;
constexpr uint32_t kShKcacheWbActionEna = 1u << 30;
}  // namespace coher_gfx9
namespace gcr {  // GCR_CNTL (gfx10+), also RELEASE_MEM's cache field
constexpr uint32_t gli_inv(uint32_t v) { return v & 3u; }
constexpr uint32_t kGlmWb = 1u << 4;
constexpr uint32_t kGlmInv = 1u << 5;
constexpr uint32_t kGlkWb = 1u << 6;
constexpr uint32_t kGlkInv = 1u << 7;
constexpr uint32_t kGlvInv = 1u << 8;
constexpr uint32_t kGl1Inv = 1u << 9;
constexpr uint32_t kGl2Us = 1u << 10;
constexpr uint32_t kGl2Discard = 1u << 13;
constexpr uint32_t kGl2Inv = 1u << 14;
constexpr uint32_t kGl2Wb = 1u << 15;
}  // namespace gcr
struct AcquireMem {
  uint32_t coher_cntl = 0;  // gfx9
  uint32_t gcr_cntl = 0;    // gfx10+
  uint64_t base = 0;        // bytes (256-byte aligned)
  uint64_t size = ~0ull;    // bytes; ~0: the whole address space
  uint32_t poll_interval = 4;
};
size_t write_acquire_mem(uint32_t* out, const AcquireMem& a, AcquireMemForm form);
AcquireMem decode_acquire_mem(const uint32_t* p, AcquireMemForm form);
constexpr uint32_t acquire_mem_dwords(AcquireMemForm f) {
  return f == AcquireMemForm::Gfx9 ? kAcquireMemDwordsGfx9 : kAcquireMemDwordsGfx10;
}
// An acquire that invalidates the instruction, scalar and vector caches and the L2 (what ROCr
// issues after loading code, and what a kernel needs before it reads host-written data).
AcquireMem acquire_invalidate_all(const Family& f);
// The cache actions of an AQL packet's acquire fence done by a PM4 queue (AMDGPUUsage, memory
// model, gfx90a: an agent-scope acquire invalidates the L1s and the scalar and instruction
// caches; a system-scope one also invalidates the L2's non-coherent lines, with no write-back,
// as the packet processor does for an AQL packet). `scope` is pm4::aql::FenceScope's value
// (1 agent, 2 system); none gives no action.
AcquireMem acquire_for_scope(const Family& f, uint32_t scope);

// ---- ATOMIC_MEM (9 dwords) -------------------------------------------------------------------
// dw1 ATOMIC [6:0] (TC atomic op), COMMAND [11:8] (0 single pass, 1 loop until compare), CACHE
// POLICY [26:25]; dw2/3 address; dw4/5 source; dw6/7 compare; dw8 LOOP_INTERVAL [12:0].
// Opcodes: TC_OP_ATOMIC_* (kfdtest asic_reg gfx_7_2_enum.h; unchanged through gfx9).
// The 64-bit form of each integer op is its 32-bit code + 32 (TC_OP_ATOMIC_*_RTN_64).
enum AtomicOp : uint32_t {
  kAtomicSwapRtn32 = 7, kAtomicCmpSwapRtn32 = 8, kAtomicAddRtn32 = 15, kAtomicSubRtn32 = 16,
  kAtomicSminRtn32 = 17, kAtomicUminRtn32 = 18, kAtomicSmaxRtn32 = 19, kAtomicUmaxRtn32 = 20,
  kAtomicAndRtn32 = 21, kAtomicOrRtn32 = 22, kAtomicXorRtn32 = 23, kAtomicIncRtn32 = 24,
  kAtomicDecRtn32 = 25,
  kAtomicSwapRtn64 = 39, kAtomicCmpSwapRtn64 = 40, kAtomicAddRtn64 = 47, kAtomicSubRtn64 = 48,
  kAtomicSminRtn64 = 49, kAtomicUminRtn64 = 50, kAtomicSmaxRtn64 = 51, kAtomicUmaxRtn64 = 52,
  kAtomicAndRtn64 = 53, kAtomicOrRtn64 = 54, kAtomicXorRtn64 = 55, kAtomicIncRtn64 = 56,
  kAtomicDecRtn64 = 57,
};
constexpr uint32_t kAtomic64Offset = 32;
constexpr uint32_t kAtomicCommandSinglePass = 0, kAtomicCommandLoopUntilCompare = 1;
// Name of a TC atomic op ("ADD_RTN_64"), nullptr when not one of the above.
const char* atomic_op_name(uint32_t op);
struct AtomicMem {
  uint32_t atomic = kAtomicAddRtn64;
  uint32_t command = 0;
  uint32_t cache_policy = 0;
  uint64_t address = 0;
  uint64_t src = 0;
  uint64_t cmp = 0;
  uint32_t loop_interval = 128;
};
size_t write_atomic_mem(uint32_t* out, const AtomicMem& a);
AtomicMem decode_atomic_mem(const uint32_t* p);

// ---- DMA_DATA (7 dwords) ---------------------------------------------------------------------
// dw1 CONTROL: ENGINE_SEL 0, SRC_CACHE_POLICY [14:13], DST_SEL [21:20] (0 address, 3 address via
// L2), DST_CACHE_POLICY [26:25], SRC_SEL [30:29] (0 address, 2 data, 3 address via L2), CP_SYNC
// 31; dw2/3 source (or data); dw4/5 destination; dw6 COMMAND: BYTE_COUNT [25:0] on gfx9+ ([20:0]
// before), SAS 26 / DAS 27 (address space: 1 register), SAIC 28 / DAIC 29 (1: no address
// increment), RAW_WAIT 30. source: Linux soc15d.h PACKET3_DMA_DATA; Mesa sid.h
// S_415_BYTE_COUNT_GFX9.
enum DmaSel : uint32_t { kDmaSelAddress = 0, kDmaSelGds = 1, kDmaSelData = 2, kDmaSelAddressL2 = 3 };
struct DmaData {
  uint32_t src_sel = 0;  // 0 memory, 2 data (fill), 3 memory via L2
  uint32_t dst_sel = 0;  // 0 memory, 3 memory via L2
  bool cp_sync = true;
  uint64_t src = 0;      // address, or the fill value when src_sel == 2
  uint64_t dst = 0;
  uint32_t byte_count = 0;  // < 2^26
  bool sas = false, das = false;    // register address space
  bool saic = false, daic = false;  // no address increment
  bool raw_wait = false;
};
constexpr uint32_t kDmaDataMaxBytes = (1u << 26) - 1;
size_t write_dma_data(uint32_t* out, const DmaData& d);
DmaData decode_dma_data(const uint32_t* p);

// ---- SET_SH_REG / SET_UCONFIG_REG (2 + n dwords) ---------------------------------------------
// dw1 REG_OFFSET [15:0] = dword address - space start; values for consecutive registers follow.
size_t write_set_sh_reg(uint32_t* out, uint32_t reg, std::span<const uint32_t> values);
size_t write_set_uconfig_reg(uint32_t* out, uint32_t reg, std::span<const uint32_t> values);

// ---- DISPATCH_DIRECT (5 dwords) --------------------------------------------------------------
// dw1..3 DIM_X/Y/Z (thread groups, or threads with USE_THREAD_DIMENSIONS), dw4 initiator.
struct DispatchDirect {
  uint32_t dim[3] = {1, 1, 1};
  uint32_t initiator = 0;
};
size_t write_dispatch_direct(uint32_t* out, const DispatchDirect& d);
DispatchDirect decode_dispatch_direct(const uint32_t* p);

// ---- The AQL vendor packet that runs a PM4 indirect buffer ------------------------------------
// ROCr amd_aql_queue.cpp (ExecutePM4): header type VENDOR, format 1 (PM4_IB), an INDIRECT_BUFFER
// packet in dwords 1..4, dw_cnt_remain = 0xA, completion signal in the last 8 bytes. Written
// whole; the caller publishes dword 0 last (queues::AqlQueue::write does).
constexpr uint32_t kPm4IbDwCntRemain = 0xA;
aql::Pm4IbPacket make_aql_pm4_ib(uint64_t ib_address, uint32_t ib_dwords, uint64_t completion_signal,
                                 uint16_t header);

}  // namespace pm4
