// SPDX-License-Identifier: MIT
// SDMA packet writers and decoders (field positions in pm4/sdma.h).
#include "pm4/sdma.h"

#include <cstring>

namespace pm4::sdma {
namespace {

constexpr uint32_t lo32(uint64_t v) { return uint32_t(v); }
constexpr uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }
constexpr uint64_t join(uint32_t lo, uint32_t hi) { return uint64_t(hi) << 32 | lo; }
constexpr uint32_t field(uint32_t v, unsigned shift, unsigned bits) { return (v >> shift) & ((1u << bits) - 1); }
constexpr uint32_t put(uint32_t v, unsigned shift, unsigned bits) { return (v & ((1u << bits) - 1)) << shift; }
constexpr uint32_t header(uint8_t op, uint8_t sub_op) { return uint32_t(op) | uint32_t(sub_op) << 8; }

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
  if (dwords == 0) return 0;
  out[0] = header(kOpNop, 0) | put(dwords - 1, 16, 14);
  std::memset(out + 1, 0, (dwords - 1) * sizeof(uint32_t));
  return dwords;
}

size_t write_copy_linear(uint32_t* out, const CopyLinear& c) {
  out[0] = header(kOpCopy, kSubCopyLinear);
  out[1] = count_field(c.bytes);
  out[2] = 0;
  out[3] = lo32(c.src);
  out[4] = hi32(c.src);
  out[5] = lo32(c.dst);
  out[6] = hi32(c.dst);
  return kCopyLinearDwords;
}

CopyLinear decode_copy_linear(const uint32_t* p, const Family& f) {
  CopyLinear c;
  c.bytes = (p[1] & count_mask(f)) + 1;
  c.src = join(p[3], p[4]);
  c.dst = join(p[5], p[6]);
  return c;
}

size_t write_copy_rect(uint32_t* out, const CopyRect& r) {
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

CopyRect decode_copy_rect(const uint32_t* p) {
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

size_t write_write_untiled(uint32_t* out, uint64_t dst, std::span<const uint32_t> data) {
  const uint32_t n = uint32_t(data.size());
  out[0] = header(kOpWrite, kSubWriteUntiled);
  out[1] = lo32(dst);
  out[2] = hi32(dst);
  out[3] = put(n - 1, 0, 22);
  std::memcpy(out + 4, data.data(), n * sizeof(uint32_t));
  return 4 + n;
}

size_t write_indirect(uint32_t* out, const Indirect& ib) {
  out[0] = header(kOpIndirect, 0) | put(ib.vmid, 16, 4);
  out[1] = lo32(ib.address);
  out[2] = hi32(ib.address);
  out[3] = put(ib.dwords, 0, 20);
  out[4] = lo32(ib.csa);
  out[5] = hi32(ib.csa);
  return kIndirectDwords;
}

Indirect decode_indirect(const uint32_t* p) {
  Indirect ib;
  ib.vmid = field(p[0], 16, 4);
  ib.address = join(p[1], p[2]);
  ib.dwords = field(p[3], 0, 20);
  ib.csa = join(p[4], p[5]);
  return ib;
}

size_t write_fence(uint32_t* out, uint64_t address, uint32_t value) {
  out[0] = header(kOpFence, 0);
  out[1] = lo32(address);
  out[2] = hi32(address);
  out[3] = value;
  return kFenceDwords;
}

size_t write_trap(uint32_t* out, uint32_t event_id) {
  out[0] = header(kOpTrap, 0);
  out[1] = event_id & 0x0FFFFFFFu;
  return kTrapDwords;
}

size_t write_poll_regmem(uint32_t* out, const PollRegMem& p) {
  out[0] = header(kOpPollRegMem, 0) | put(p.hdp_flush, 26, 1) | put(p.function, 28, 3) |
           put(p.mem_poll, 31, 1);
  out[1] = lo32(p.address);
  out[2] = hi32(p.address);
  out[3] = p.value;
  out[4] = p.mask;
  out[5] = put(p.interval, 0, 16) | put(p.retry, 16, 12);
  return kPollRegMemDwords;
}

PollRegMem decode_poll_regmem(const uint32_t* p) {
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

size_t write_hdp_flush(uint32_t* out) {
  PollRegMem p;
  p.mem_poll = false;
  p.function = 0;  // always
  p.address = uint64_t(0x80000000u) << 32;
  p.mask = 0;
  p.interval = 0;
  p.retry = 0;
  return write_poll_regmem(out, p);
}

size_t write_atomic(uint32_t* out, const Atomic& a) {
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

Atomic decode_atomic(const uint32_t* p) {
  Atomic a;
  a.loop = field(p[0], 16, 1);
  a.op = field(p[0], 25, 7);
  a.address = join(p[1], p[2]);
  a.src = join(p[3], p[4]);
  a.cmp = join(p[5], p[6]);
  a.loop_interval = field(p[7], 0, 13);
  return a;
}

size_t write_const_fill(uint32_t* out, const ConstFill& c) {
  out[0] = header(kOpConstFill, 0) | put(c.fill_size, 30, 2);
  out[1] = lo32(c.dst);
  out[2] = hi32(c.dst);
  out[3] = c.data;
  out[4] = count_field(c.bytes);
  return kConstFillDwords;
}

ConstFill decode_const_fill(const uint32_t* p, const Family& f) {
  ConstFill c;
  c.fill_size = field(p[0], 30, 2);
  c.dst = join(p[1], p[2]);
  c.data = p[3];
  c.bytes = (p[4] & count_mask(f)) + 1;
  return c;
}

size_t write_timestamp(uint32_t* out, uint8_t sub_op, uint64_t address) {
  out[0] = header(kOpTimestamp, sub_op);
  out[1] = lo32(address);
  out[2] = hi32(address);
  return kTimestampDwords;
}

}  // namespace pm4::sdma
