// SPDX-License-Identifier: MIT
// SDMA (system DMA) engine packets: pure writers and the decoders the emulated engine uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "pm4/family.h"

namespace pm4::sdma {

// Packets are dword streams; dword 0 holds OP [7:0] and SUB_OP [15:8] and packet-specific bits
// above. Facts: Linux vega10_sdma_pkt_open.h (SDMA v4: gfx9, MI100, MI200, MI300),
// navi10_sdma_pkt_open.h (v5), sdma_v6_0_0_pkt_open.h (v6); ROCr sdma_registers.h; kfdtest
// sdma_pkt_struct.h. v4 counts are "bytes - 1" in 22 bits; v5+ widen them to 30 bits; v5.2+
// add GCR_REQ (op 17) for cache control. A zero dword is a one-dword NOP.
enum Op : uint8_t {
  kOpNop = 0,
  kOpCopy = 1,
  kOpWrite = 2,
  kOpIndirect = 4,
  kOpFence = 5,
  kOpTrap = 6,
  kOpSemaphore = 7,
  kOpPollRegMem = 8,
  kOpCondExe = 9,
  kOpAtomic = 10,
  kOpConstFill = 11,
  kOpTimestamp = 13,
  kOpSrbmWrite = 14,
  kOpGcr = 17,
};
constexpr uint8_t kSubCopyLinear = 0;
constexpr uint8_t kSubCopyLinearRect = 4;
constexpr uint8_t kSubWriteUntiled = 0;
constexpr uint8_t kSubTimestampSet = 0;
constexpr uint8_t kSubTimestampGet = 1;
constexpr uint8_t kSubTimestampGetGlobal = 2;
constexpr uint8_t kSubGcrUser = 1;

constexpr uint8_t op_of(uint32_t dw0) { return uint8_t(dw0 & 0xFF); }
constexpr uint8_t sub_op_of(uint32_t dw0) { return uint8_t((dw0 >> 8) & 0xFF); }
const char* op_name(uint8_t op, uint8_t sub_op);  // "COPY_LINEAR", or nullptr when unknown

// Packet sizes in dwords.
constexpr uint32_t kCopyLinearDwords = 7;
constexpr uint32_t kCopyLinearRectDwords = 13;
constexpr uint32_t kIndirectDwords = 6;
constexpr uint32_t kFenceDwords = 4;
constexpr uint32_t kTrapDwords = 2;
constexpr uint32_t kPollRegMemDwords = 6;
constexpr uint32_t kAtomicDwords = 8;
constexpr uint32_t kConstFillDwords = 5;
constexpr uint32_t kTimestampDwords = 3;

// Some gfx9 SDMA engines (gfx900, gfx902, gfx904, gfx90c) need at least 64 dwords per ring
// submission: a shorter one is padded with a NOP (ROCr amd_blit_sdma.cpp min_submission_size_).
constexpr uint32_t min_submission_dwords(uint32_t gfx_target_version) {
  return (gfx_target_version >= 90000 && gfx_target_version <= 90004) || gfx_target_version == 90012
             ? 64
             : 0;
}

// "bytes - 1" on v4 and later (v2/v3 counted bytes).
constexpr uint32_t count_field(uint32_t n) { return n - 1; }
constexpr uint32_t count_mask(const Family& f) { return (1u << f.sdma_count_bits) - 1; }

// ---- NOP: COUNT [29:16] = extra dwords; the packet spans COUNT + 1 dwords ------------------------
size_t write_nop(uint32_t* out, uint32_t dwords);
constexpr uint32_t nop_dwords(uint32_t dw0) { return ((dw0 >> 16) & 0x3FFF) + 1; }

// ---- COPY_LINEAR (7 dwords) ---------------------------------------------------------------------
// dw1 COUNT = bytes - 1; dw2 DST_SWAP [17:16], SRC_SWAP [25:24]; dw3/4 source; dw5/6 destination.
struct CopyLinear {
  uint64_t src = 0, dst = 0;
  uint32_t bytes = 0;  // 1 .. family's sdma_max_copy_bytes
};
size_t write_copy_linear(uint32_t* out, const CopyLinear& c);
CopyLinear decode_copy_linear(const uint32_t* p, const Family& f);
// COPY_LINEAR packets a copy of `bytes` needs on this family.
constexpr uint64_t copy_packets(uint64_t bytes, const Family& f) {
  return (bytes + f.sdma_max_copy_bytes - 1) / f.sdma_max_copy_bytes;
}

// ---- COPY_LINEAR_RECT (13 dwords) ----------------------------------------------------------------
// dw0 ELEMENT [31:29] (log2 of 1..16 bytes); src/dst addresses (dword aligned) with OFFSET_X/Y
// [13:0]/[29:16], OFFSET_Z [10:0], PITCH [31:13] (elements - 1), SLICE_PITCH [27:0] (elements - 1);
// dw11 RECT_X [13:0], RECT_Y [29:16] (- 1); dw12 RECT_Z [10:0] (- 1). source: ROCr sdma_registers.h.
struct CopyRect {
  uint32_t element_log2 = 0;
  uint64_t src = 0, dst = 0;
  uint32_t src_x = 0, src_y = 0, src_z = 0, dst_x = 0, dst_y = 0, dst_z = 0;  // in elements / rows / slices
  uint32_t src_pitch = 0, dst_pitch = 0;      // elements per row
  uint32_t src_slice = 0, dst_slice = 0;      // elements per slice
  uint32_t width = 0, height = 0, depth = 0;  // elements, rows, slices
};
constexpr unsigned kRectPitchBits = 19, kRectSliceBits = 28, kRectXyBits = 14, kRectZBits = 11;
size_t write_copy_rect(uint32_t* out, const CopyRect& r);
CopyRect decode_copy_rect(const uint32_t* p);

// ---- WRITE_UNTILED (4 + n dwords) ----------------------------------------------------------------
// dw1/2 destination; dw3 COUNT [21:0] = dwords - 1; data follows.
size_t write_write_untiled(uint32_t* out, uint64_t dst, std::span<const uint32_t> data);
constexpr uint32_t write_untiled_dwords(const uint32_t* p) { return 4 + (p[3] & 0x3FFFFF) + 1; }

// ---- INDIRECT (6 dwords) -------------------------------------------------------------------------
// dw0 VMID [19:16]; dw1/2 IB base (32-byte aligned); dw3 IB_SIZE [19:0] dwords; dw4/5 CSA address.
struct Indirect {
  uint64_t address = 0;
  uint32_t dwords = 0;
  uint32_t vmid = 0;
  uint64_t csa = 0;
};
size_t write_indirect(uint32_t* out, const Indirect& ib);
Indirect decode_indirect(const uint32_t* p);

// ---- FENCE (4 dwords): dw0 MTYPE [18:16] (v5+); dw1/2 address (dword aligned); dw3 data ----------
size_t write_fence(uint32_t* out, uint64_t address, uint32_t value);

// ---- TRAP (2 dwords): dw1 INT_CONTEXT [27:0], the KFD event id the interrupt names -----------------
size_t write_trap(uint32_t* out, uint32_t event_id);
constexpr uint32_t trap_context(const uint32_t* p) { return p[1] & 0x0FFFFFFFu; }

// ---- POLL_REGMEM (6 dwords) ----------------------------------------------------------------------
// dw0 HDP_FLUSH 26, FUNC [30:28] (PM4's compare functions), MEM_POLL 31; dw1/2 address (memory)
// or register; dw3 VALUE; dw4 MASK; dw5 INTERVAL [15:0], RETRY_COUNT [27:16] (0xFFF: forever).
struct PollRegMem {
  bool mem_poll = true;
  bool hdp_flush = false;
  uint32_t function = 3;  // equal
  uint64_t address = 0;
  uint32_t value = 0;
  uint32_t mask = 0xFFFFFFFFu;
  uint32_t interval = 4;
  uint32_t retry = 0xFFF;
};
size_t write_poll_regmem(uint32_t* out, const PollRegMem& p);
PollRegMem decode_poll_regmem(const uint32_t* p);
// ROCr's HDP flush: a register POLL_REGMEM that always passes (sdma_registers.h hdp_flush_cmd).
size_t write_hdp_flush(uint32_t* out);

// ---- ATOMIC (8 dwords) ---------------------------------------------------------------------------
// dw0 LOOP 16, ATOMIC_OP [31:25] (TC_OP_*, as PM4 ATOMIC_MEM); dw1/2 address; dw3/4 source;
// dw5/6 compare; dw7 LOOP_INTERVAL [12:0].
struct Atomic {
  uint32_t op = 47;  // TC_OP_ATOMIC_ADD_RTN_64
  bool loop = false;
  uint64_t address = 0, src = 0, cmp = 0;
  uint32_t loop_interval = 0;
};
size_t write_atomic(uint32_t* out, const Atomic& a);
Atomic decode_atomic(const uint32_t* p);

// ---- CONSTANT_FILL (5 dwords) --------------------------------------------------------------------
// dw0 SW [17:16], FILLSIZE [31:30] (0 byte, 1 word, 2 dword); dw1/2 destination; dw3 data;
// dw4 COUNT = bytes - 1.
struct ConstFill {
  uint64_t dst = 0;
  uint32_t data = 0;
  uint32_t bytes = 0;
  uint32_t fill_size = 2;  // dword
};
size_t write_const_fill(uint32_t* out, const ConstFill& c);
ConstFill decode_const_fill(const uint32_t* p, const Family& f);

// ---- TIMESTAMP (3 dwords): sub-op SET / GET / GET_GLOBAL; dw1/2 address (8-byte aligned) ---------
size_t write_timestamp(uint32_t* out, uint8_t sub_op, uint64_t address);

}  // namespace pm4::sdma
