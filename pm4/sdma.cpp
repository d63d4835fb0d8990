// SPDX-License-Identifier: MIT
// SDMA packet writers and decoders (field positions in pm4/sdma.h). The layouts are
// static_assert'ed at the end of this file against Linux vega10_sdma_pkt_open.h (SDMA v4).
#include "pm4/sdma.h"

#include <algorithm>
#include <array>

namespace pm4::sdma {
namespace {

constexpr uint32_t lo32(uint64_t v) { return uint32_t(v); }
constexpr uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }
constexpr uint64_t join(uint32_t lo, uint32_t hi) { return uint64_t(hi) << 32 | lo; }
constexpr uint32_t field(uint32_t v, unsigned shift, unsigned bits) { return (v >> shift) & ((1u << bits) - 1); }
constexpr uint32_t put(uint32_t v, unsigned shift, unsigned bits) { return (v & ((1u << bits) - 1)) << shift; }
constexpr uint32_t header(uint8_t op, uint8_t sub_op) { return uint32_t(op) | uint32_t(sub_op) << 8; }

// The packet bodies, constexpr so that the static_asserts at the end of this file check every
// fixed layout at compile time; the public writers and decoders below call them.

constexpr size_t encode_nop(uint32_t* out, uint32_t dwords) {
  if (dwords == 0) return 0;
  out[0] = header(kOpNop, 0) | put(dwords - 1, 16, 14);
  std::fill_n(out + 1, dwords - 1, 0u);
  return dwords;
}

constexpr size_t encode_copy_linear(uint32_t* out, const CopyLinear& c) {
  out[0] = header(kOpCopy, kSubCopyLinear);
  out[1] = count_field(c.bytes);
  out[2] = 0;
  out[3] = lo32(c.src);
  out[4] = hi32(c.src);
  out[5] = lo32(c.dst);
  out[6] = hi32(c.dst);
  return kCopyLinearDwords;
}

constexpr CopyLinear parse_copy_linear(const uint32_t* p, uint32_t count_mask) {
  CopyLinear c;
  c.bytes = (p[1] & count_mask) + 1;
  c.src = join(p[3], p[4]);
  c.dst = join(p[5], p[6]);
  return c;
}

constexpr size_t encode_copy_rect(uint32_t* out, const CopyRect& r) {
  out[0] = header(kOpCopy, kSubCopyLinearRect) | put(r.element_log2, 29, 3);
  out[1] = lo32(r.src);
  out[2] = hi32(r.src);
  out[3] = put(r.src_x, 0, kRectXyBits) | put(r.src_y, 16, kRectXyBits);
  out[4] = put(r.src_z, 0, kRectZBits) | put(r.src_pitch - 1, 13, kRectPitchBits);
  out[5] = put(r.src_slice ? r.src_slice - 1 : 0, 0, kRectSliceBits);
  out[6] = lo32(r.dst);
  out[7] = hi32(r.dst);
  out[8] = put(r.dst_x, 0, kRectXyBits) | put(r.dst_y, 16, kRectXyBits);
  out[9] = put(r.dst_z, 0, kRectZBits) | put(r.dst_pitch - 1, 13, kRectPitchBits);
  out[10] = put(r.dst_slice ? r.dst_slice - 1 : 0, 0, kRectSliceBits);
  out[11] = put(r.width - 1, 0, kRectXyBits) | put(r.height - 1, 16, kRectXyBits);
  out[12] = put(r.depth - 1, 0, kRectZBits);
  return kCopyLinearRectDwords;
}

constexpr CopyRect parse_copy_rect(const uint32_t* p) {
  CopyRect r;
  r.element_log2 = field(p[0], 29, 3);
  r.src = join(p[1], p[2]);
  r.src_x = field(p[3], 0, kRectXyBits);
  r.src_y = field(p[3], 16, kRectXyBits);
  r.src_z = field(p[4], 0, kRectZBits);
  r.src_pitch = field(p[4], 13, kRectPitchBits) + 1;
  r.src_slice = field(p[5], 0, kRectSliceBits) + 1;
  r.dst = join(p[6], p[7]);
  r.dst_x = field(p[8], 0, kRectXyBits);
  r.dst_y = field(p[8], 16, kRectXyBits);
  r.dst_z = field(p[9], 0, kRectZBits);
  r.dst_pitch = field(p[9], 13, kRectPitchBits) + 1;
  r.dst_slice = field(p[10], 0, kRectSliceBits) + 1;
  r.width = field(p[11], 0, kRectXyBits) + 1;
  r.height = field(p[11], 16, kRectXyBits) + 1;
  r.depth = field(p[12], 0, kRectZBits) + 1;
  return r;
}

constexpr size_t encode_write_untiled(uint32_t* out, uint64_t dst, std::span<const uint32_t> data) {
  const uint32_t n = uint32_t(data.size());
  out[0] = header(kOpWrite, kSubWriteUntiled);
  out[1] = lo32(dst);
  out[2] = hi32(dst);
  out[3] = put(n - 1, 0, 22);
  std::copy_n(data.data(), n, out + 4);
  return 4 + n;
}

constexpr size_t encode_indirect(uint32_t* out, const Indirect& ib) {
  out[0] = header(kOpIndirect, 0) | put(ib.vmid, 16, 4);
  out[1] = lo32(ib.address);
  out[2] = hi32(ib.address);
  out[3] = put(ib.dwords, 0, 20);
  out[4] = lo32(ib.csa);
  out[5] = hi32(ib.csa);
  return kIndirectDwords;
}

constexpr Indirect parse_indirect(const uint32_t* p) {
  Indirect ib;
  ib.vmid = field(p[0], 16, 4);
  ib.address = join(p[1], p[2]);
  ib.dwords = field(p[3], 0, 20);
  ib.csa = join(p[4], p[5]);
  return ib;
}

constexpr size_t encode_fence(uint32_t* out, uint64_t address, uint32_t value) {
  out[0] = header(kOpFence, 0);
  out[1] = lo32(address);
  out[2] = hi32(address);
  out[3] = value;
  return kFenceDwords;
}

constexpr size_t encode_trap(uint32_t* out, uint32_t event_id) {
  out[0] = header(kOpTrap, 0);
  out[1] = event_id & 0x0FFFFFFFu;
  return kTrapDwords;
}

constexpr size_t encode_poll_regmem(uint32_t* out, const PollRegMem& p) {
  out[0] = header(kOpPollRegMem, 0) | put(p.hdp_flush, 26, 1) | put(p.function, 28, 3) |
           put(p.mem_poll, 31, 1);
  out[1] = lo32(p.address);
  out[2] = hi32(p.address);
  out[3] = p.value;
  out[4] = p.mask;
  out[5] = put(p.interval, 0, 16) | put(p.retry, 16, 12);
  return kPollRegMemDwords;
}

constexpr PollRegMem parse_poll_regmem(const uint32_t* p) {
  PollRegMem r;
  r.hdp_flush = field(p[0], 26, 1);
  r.function = field(p[0], 28, 3);
  r.mem_poll = field(p[0], 31, 1);
  r.address = join(p[1], p[2]);
  r.value = p[3];
  r.mask = p[4];
  r.interval = field(p[5], 0, 16);
  r.retry = field(p[5], 16, 12);
  return r;
}

constexpr size_t encode_hdp_flush(uint32_t* out) {
  PollRegMem p;
  p.mem_poll = false;
  p.function = 0;  // always
  p.address = uint64_t(0x80000000u) << 32;
  p.mask = 0;
  p.interval = 0;
  p.retry = 0;
  return encode_poll_regmem(out, p);
}

constexpr size_t encode_atomic(uint32_t* out, const Atomic& a) {
  out[0] = header(kOpAtomic, 0) | put(a.loop, 16, 1) | put(a.op, 25, 7);
  out[1] = lo32(a.address);
  out[2] = hi32(a.address);
  out[3] = lo32(a.src);
  out[4] = hi32(a.src);
  out[5] = lo32(a.cmp);
  out[6] = hi32(a.cmp);
  out[7] = put(a.loop_interval, 0, 13);
  return kAtomicDwords;
}

constexpr Atomic parse_atomic(const uint32_t* p) {
  Atomic a;
  a.loop = field(p[0], 16, 1);
  a.op = field(p[0], 25, 7);
  a.address = join(p[1], p[2]);
  a.src = join(p[3], p[4]);
  a.cmp = join(p[5], p[6]);
  a.loop_interval = field(p[7], 0, 13);
  return a;
}

constexpr size_t encode_const_fill(uint32_t* out, const ConstFill& c) {
  out[0] = header(kOpConstFill, 0) | put(c.fill_size, 30, 2);
  out[1] = lo32(c.dst);
  out[2] = hi32(c.dst);
  out[3] = c.data;
  out[4] = count_field(c.bytes);
  return kConstFillDwords;
}

constexpr ConstFill parse_const_fill(const uint32_t* p, uint32_t count_mask) {
  ConstFill c;
  c.fill_size = field(p[0], 30, 2);
  c.dst = join(p[1], p[2]);
  c.data = p[3];
  c.bytes = (p[4] & count_mask) + 1;
  return c;
}

constexpr size_t encode_timestamp(uint32_t* out, uint8_t sub_op, uint64_t address) {
  out[0] = header(kOpTimestamp, sub_op);
  out[1] = lo32(address);
  out[2] = hi32(address);
  return kTimestampDwords;
}

}  // namespace

const char* op_name(uint8_t op, uint8_t sub) {
  switch (op) {
    case kOpNop: return "NOP";
    case kOpCopy:
      return sub == kSubCopyLinear ? "COPY_LINEAR" : sub == kSubCopyLinearRect ? "COPY_LINEAR_RECT" : nullptr;
    case kOpWrite: return sub == kSubWriteUntiled ? "WRITE_UNTILED" : nullptr;
    case kOpIndirect: return "INDIRECT";
    case kOpFence: return "FENCE";
    case kOpTrap: return "TRAP";
    case kOpSemaphore: return "SEMAPHORE";
    case kOpPollRegMem: return "POLL_REGMEM";
    case kOpCondExe: return "COND_EXE";
    case kOpAtomic: return "ATOMIC";
    case kOpConstFill: return "CONSTANT_FILL";
    case kOpTimestamp:
      return sub == kSubTimestampSet ? "TIMESTAMP_SET"
             : sub == kSubTimestampGet ? "TIMESTAMP_GET"
             : sub == kSubTimestampGetGlobal ? "TIMESTAMP_GET_GLOBAL" : nullptr;
    case kOpSrbmWrite: return "SRBM_WRITE";
    case kOpGcr: return "GCR_REQ";
    default: return nullptr;
  }
}

size_t write_nop(uint32_t* out, uint32_t dwords) {
  return encode_nop(out, dwords);
}

size_t write_copy_linear(uint32_t* out, const CopyLinear& c) {
  return encode_copy_linear(out, c);
}

CopyLinear decode_copy_linear(const uint32_t* p, const Family& f) {
  return parse_copy_linear(p, count_mask(f));
}

size_t write_copy_rect(uint32_t* out, const CopyRect& r) {
  return encode_copy_rect(out, r);
}

CopyRect decode_copy_rect(const uint32_t* p) {
  return parse_copy_rect(p);
}

size_t write_write_untiled(uint32_t* out, uint64_t dst, std::span<const uint32_t> data) {
  return encode_write_untiled(out, dst, data);
}

size_t write_indirect(uint32_t* out, const Indirect& ib) {
  return encode_indirect(out, ib);
}

Indirect decode_indirect(const uint32_t* p) {
  return parse_indirect(p);
}

size_t write_fence(uint32_t* out, uint64_t address, uint32_t value) {
  return encode_fence(out, address, value);
}

size_t write_trap(uint32_t* out, uint32_t event_id) {
  return encode_trap(out, event_id);
}

size_t write_poll_regmem(uint32_t* out, const PollRegMem& p) {
  return encode_poll_regmem(out, p);
}

PollRegMem decode_poll_regmem(const uint32_t* p) {
  return parse_poll_regmem(p);
}

size_t write_hdp_flush(uint32_t* out) {
  return encode_hdp_flush(out);
}

size_t write_atomic(uint32_t* out, const Atomic& a) {
  return encode_atomic(out, a);
}

Atomic decode_atomic(const uint32_t* p) {
  return parse_atomic(p);
}

size_t write_const_fill(uint32_t* out, const ConstFill& c) {
  return encode_const_fill(out, c);
}

ConstFill decode_const_fill(const uint32_t* p, const Family& f) {
  return parse_const_fill(p, count_mask(f));
}

size_t write_timestamp(uint32_t* out, uint8_t sub_op, uint64_t address) {
  return encode_timestamp(out, sub_op, address);
}


// ---- Compile-time layout checks ---------------------------------------------------------------
// Each expected dword is written as the documented fields shifted into place, from Linux
// drivers/gpu/drm/amd/amdgpu/vega10_sdma_pkt_open.h (SDMA v4: gfx9, MI100, MI200, MI300);
// packet lengths are one more than the last dword offset (*_offset) the header gives a packet.
// Every packet with a decoder is also decoded back.
namespace {

constexpr bool same(const CopyLinear& a, const CopyLinear& b) {
  return a.src == b.src && a.dst == b.dst && a.bytes == b.bytes;
}
constexpr bool same(const CopyRect& a, const CopyRect& b) {
  return a.element_log2 == b.element_log2 && a.src == b.src && a.dst == b.dst && a.src_x == b.src_x &&
         a.src_y == b.src_y && a.src_z == b.src_z && a.dst_x == b.dst_x && a.dst_y == b.dst_y &&
         a.dst_z == b.dst_z && a.src_pitch == b.src_pitch && a.dst_pitch == b.dst_pitch &&
         a.src_slice == b.src_slice && a.dst_slice == b.dst_slice && a.width == b.width &&
         a.height == b.height && a.depth == b.depth;
}
constexpr bool same(const Indirect& a, const Indirect& b) {
  return a.address == b.address && a.dwords == b.dwords && a.vmid == b.vmid && a.csa == b.csa;
}
constexpr bool same(const PollRegMem& a, const PollRegMem& b) {
  return a.mem_poll == b.mem_poll && a.hdp_flush == b.hdp_flush && a.function == b.function &&
         a.address == b.address && a.value == b.value && a.mask == b.mask && a.interval == b.interval &&
         a.retry == b.retry;
}
constexpr bool same(const Atomic& a, const Atomic& b) {
  return a.op == b.op && a.loop == b.loop && a.address == b.address && a.src == b.src && a.cmp == b.cmp &&
         a.loop_interval == b.loop_interval;
}
constexpr bool same(const ConstFill& a, const ConstFill& b) {
  return a.dst == b.dst && a.data == b.data && a.bytes == b.bytes && a.fill_size == b.fill_size;
}
template <size_t N, class F>
constexpr std::array<uint32_t, N> encoded(F encode) {
  std::array<uint32_t, N> a{};
  if (encode(a.data()) != N) a.fill(0xBADBAD);  // a wrong length fails every dword check
  return a;
}
constexpr uint32_t kV4CountMask = count_mask(*family_for(90010));  // gfx90a: SDMA v4

// Opcodes and sub-opcodes (SDMA_OP_*, SDMA_SUBOP_*), and the header word: OP [7:0], SUB_OP [15:8]
// (SDMA_PKT_HEADER_op / sub_op).
static_assert(kOpNop == 0 && kOpCopy == 1 && kOpWrite == 2 && kOpIndirect == 4 && kOpFence == 5);
static_assert(kOpTrap == 6 && kOpSemaphore == 7 && kOpPollRegMem == 8 && kOpCondExe == 9);
static_assert(kOpAtomic == 10 && kOpConstFill == 11 && kOpTimestamp == 13 && kOpSrbmWrite == 14);
static_assert(kSubCopyLinear == 0 && kSubCopyLinearRect == 4 && kSubWriteUntiled == 0);
static_assert(kSubTimestampSet == 0 && kSubTimestampGet == 1 && kSubTimestampGetGlobal == 2);
static_assert(header(0xAB, 0xCD) == (0xABu << 0 | 0xCDu << 8));
static_assert(op_of(0xFFFF'CDABu) == 0xAB && sub_op_of(0xFFFF'CDABu) == 0xCD);

// Lengths and count fields.
static_assert(kCopyLinearDwords == 6 + 1);      // last: DST_ADDR_HI at 6
static_assert(kCopyLinearRectDwords == 12 + 1); // COPY_LINEAR_SUBWIN, last: DW_12
static_assert(kIndirectDwords == 5 + 1);        // last: CSA_ADDR_HI at 5
static_assert(kFenceDwords == 3 + 1);           // last: DATA at 3
static_assert(kTrapDwords == 1 + 1);            // last: INT_CONTEXT at 1
static_assert(kPollRegMemDwords == 5 + 1);      // last: DW5 at 5
static_assert(kAtomicDwords == 7 + 1);          // last: LOOP_INTERVAL at 7
static_assert(kConstFillDwords == 4 + 1);       // last: COUNT at 4
static_assert(kTimestampDwords == 2 + 1);       // TIMESTAMP_GET[_GLOBAL], last: WRITE_ADDR_HI at 2
static_assert(kV4CountMask == 0x003FFFFFu);     // COPY_LINEAR_COUNT / CONSTANT_FILL_COUNT count_mask
static_assert(count_field(4096) == 4095);       // v4 counts are bytes - 1
static_assert(kRectXyBits == 14 && kRectZBits == 11);           // src_x/y 0x3FFF, src_z 0x7FF
static_assert(kRectPitchBits == 19 && kRectSliceBits == 28);    // pitch 0x7FFFF, slice 0x0FFFFFFF

// NOP: COUNT [29:16] (NOP_HEADER_count); a zero dword is a one-dword NOP.
constexpr auto kNop3 = encoded<3>([](uint32_t* o) { return encode_nop(o, 3); });
static_assert(kNop3[0] == (0u << 0 | 0u << 8 | (3u - 1) << 16) && kNop3[1] == 0 && kNop3[2] == 0);
static_assert(nop_dwords(kNop3[0]) == 3 && nop_dwords(0) == 1 && nop_dwords(0x3FFFu << 16) == 0x4000);

// COPY_LINEAR: COUNT [21:0] in dw1, PARAMETER (swaps) dw2, src dw3/4, dst dw5/6.
constexpr CopyLinear kCl{0x7F00'1234'5678ull, 0x7E00'8765'4320ull, 0x3FFFE0};
constexpr auto kClBuf = encoded<7>([](uint32_t* o) { return encode_copy_linear(o, kCl); });
static_assert(kClBuf[0] == (1u << 0 | 0u << 8) && kClBuf[1] == 0x3FFFE0u - 1 && kClBuf[2] == 0);
static_assert(kClBuf[3] == 0x12345678u && kClBuf[4] == 0x7F00u && kClBuf[5] == 0x87654320u && kClBuf[6] == 0x7E00u);
static_assert(same(parse_copy_linear(kClBuf.data(), kV4CountMask), kCl));

// COPY_LINEAR_SUBWIN: elementsize [31:29]; DW_3 src_x [13:0], src_y [29:16]; DW_4 src_z [10:0],
// src_pitch [31:13]; DW_5 src_slice_pitch [27:0]; DW_8..10 the same for dst; DW_11 rect_x
// [13:0], rect_y [29:16]; DW_12 rect_z [10:0]. Pitches and rect sizes are stored minus one.
constexpr CopyRect kCr{2, 0x7F00'0001'0000ull, 0x7E00'0002'0000ull, 3, 4, 1, 5, 6, 2, 256, 128,
                       256 * 64, 128 * 32, 100, 20, 2};
constexpr auto kCrBuf = encoded<13>([](uint32_t* o) { return encode_copy_rect(o, kCr); });
static_assert(kCrBuf[0] == (1u << 0 | 4u << 8 | 2u << 29));
static_assert(kCrBuf[1] == 0x00010000u && kCrBuf[2] == 0x7F00u);
static_assert(kCrBuf[3] == (3u << 0 | 4u << 16) && kCrBuf[4] == (1u << 0 | (256u - 1) << 13));
static_assert(kCrBuf[5] == 256u * 64 - 1);
static_assert(kCrBuf[6] == 0x00020000u && kCrBuf[7] == 0x7E00u);
static_assert(kCrBuf[8] == (5u << 0 | 6u << 16) && kCrBuf[9] == (2u << 0 | (128u - 1) << 13));
static_assert(kCrBuf[10] == 128u * 32 - 1);
static_assert(kCrBuf[11] == ((100u - 1) << 0 | (20u - 1) << 16) && kCrBuf[12] == (2u - 1) << 0);
static_assert(same(parse_copy_rect(kCrBuf.data()), kCr));

// WRITE_UNTILED: dst dw1/2, DW_3 count = dwords - 1, data from dw4 (DATA0 at 4).
constexpr uint32_t kWuData[] = {0xDEADBEEFu, 0x01234567u};
constexpr auto kWuBuf = encoded<6>([](uint32_t* o) { return encode_write_untiled(o, 0x7F00'0000'1000ull, kWuData); });
static_assert(kWuBuf[0] == (2u << 0 | 0u << 8) && kWuBuf[1] == 0x1000u && kWuBuf[2] == 0x7F00u);
static_assert(kWuBuf[3] == 2u - 1 && kWuBuf[4] == 0xDEADBEEFu && kWuBuf[5] == 0x01234567u);
static_assert(write_untiled_dwords(kWuBuf.data()) == 6);

// INDIRECT: HEADER vmid [19:16]; BASE_LO/HI; IB_SIZE [19:0]; CSA_ADDR_LO/HI.
constexpr Indirect kInd{0x7F00'0000'1020ull, 0x12345, 5, 0x7E00'0000'2000ull};
constexpr auto kIndBuf = encoded<6>([](uint32_t* o) { return encode_indirect(o, kInd); });
static_assert(kIndBuf[0] == (4u << 0 | 5u << 16) && kIndBuf[1] == 0x1020u && kIndBuf[2] == 0x7F00u);
static_assert(kIndBuf[3] == 0x12345u && kIndBuf[4] == 0x2000u && kIndBuf[5] == 0x7E00u);
static_assert(same(parse_indirect(kIndBuf.data()), kInd));

// FENCE: ADDR_LO/HI, DATA.
constexpr auto kFenceBuf = encoded<4>([](uint32_t* o) { return encode_fence(o, 0x7F00'0000'0040ull, 0xCAFE0001u); });
static_assert(kFenceBuf[0] == 5u && kFenceBuf[1] == 0x40u && kFenceBuf[2] == 0x7F00u && kFenceBuf[3] == 0xCAFE0001u);

// TRAP: INT_CONTEXT [27:0].
constexpr auto kTrapBuf = encoded<2>([](uint32_t* o) { return encode_trap(o, 0xF1234567u); });
static_assert(kTrapBuf[0] == 6u && kTrapBuf[1] == (0xF1234567u & 0x0FFFFFFFu));
static_assert(trap_context(kTrapBuf.data()) == 0x01234567u);

// POLL_REGMEM: HEADER hdp_flush 26, func [30:28], mem_poll 31; ADDR_LO/HI, VALUE, MASK; DW5
// interval [15:0], retry_count [27:16].
constexpr PollRegMem kPoll{true, true, 5, 0x7F00'0000'3000ull, 0x11u, 0xFFu, 0xA, 0xFFF};
constexpr auto kPollBuf = encoded<6>([](uint32_t* o) { return encode_poll_regmem(o, kPoll); });
static_assert(kPollBuf[0] == (8u << 0 | 1u << 26 | 5u << 28 | 1u << 31));
static_assert(kPollBuf[1] == 0x3000u && kPollBuf[2] == 0x7F00u && kPollBuf[3] == 0x11u && kPollBuf[4] == 0xFFu);
static_assert(kPollBuf[5] == (0xAu << 0 | 0xFFFu << 16));
static_assert(same(parse_poll_regmem(kPollBuf.data()), kPoll));
// ROCr's HDP flush (sdma_registers.h): a register poll, function always, nothing else set.
constexpr auto kHdpBuf = encoded<6>([](uint32_t* o) { return encode_hdp_flush(o); });
static_assert(kHdpBuf[0] == 8u && kHdpBuf[1] == 0 && kHdpBuf[2] == 0x80000000u);
static_assert(kHdpBuf[3] == 0 && kHdpBuf[4] == 0 && kHdpBuf[5] == 0);

// ATOMIC: HEADER loop 16, atomic_op [31:25]; ADDR, SRC_DATA, CMP_DATA (lo/hi); LOOP_INTERVAL
// [12:0].
constexpr Atomic kAt{47, true, 0x7F00'0000'4008ull, 0x0102'0304'0506'0708ull, 0x1112'1314'1516'1718ull, 0x1ABC};
constexpr auto kAtBuf = encoded<8>([](uint32_t* o) { return encode_atomic(o, kAt); });
static_assert(kAtBuf[0] == (10u << 0 | 1u << 16 | 47u << 25));
static_assert(kAtBuf[1] == 0x4008u && kAtBuf[2] == 0x7F00u && kAtBuf[3] == 0x05060708u && kAtBuf[4] == 0x01020304u);
static_assert(kAtBuf[5] == 0x15161718u && kAtBuf[6] == 0x11121314u && kAtBuf[7] == 0x1ABCu);
static_assert(same(parse_atomic(kAtBuf.data()), kAt));

// CONSTANT_FILL: HEADER fillsize [31:30]; DST_ADDR_LO/HI, DATA, COUNT [21:0] = bytes - 1.
constexpr ConstFill kFill{0x7F00'0000'5000ull, 0xA5A5A5A5u, 64, 2};
constexpr auto kFillBuf = encoded<5>([](uint32_t* o) { return encode_const_fill(o, kFill); });
static_assert(kFillBuf[0] == (11u << 0 | 2u << 30));
static_assert(kFillBuf[1] == 0x5000u && kFillBuf[2] == 0x7F00u && kFillBuf[3] == 0xA5A5A5A5u && kFillBuf[4] == 63u);
static_assert(same(parse_const_fill(kFillBuf.data(), kV4CountMask), kFill));

// TIMESTAMP_GET_GLOBAL: sub-op 2; WRITE_ADDR_LO holds address bits [31:3] in place, then HI.
constexpr auto kTsBuf = encoded<3>([](uint32_t* o) {
  return encode_timestamp(o, kSubTimestampGetGlobal, 0x7F00'0000'0048ull);
});
static_assert(kTsBuf[0] == (13u << 0 | 2u << 8) && kTsBuf[1] == 0x48u && kTsBuf[2] == 0x7F00u);

}  // namespace

}  // namespace pm4::sdma
