// SPDX-License-Identifier: MIT
// PM4 type-3 packet writers and decoders (field positions in pm4/type3.h).
#include "pm4/type3.h"

#include <cstdio>
#include <cstring>

#include "pm4/regs.h"

namespace pm4 {
namespace {

constexpr uint32_t lo32(uint64_t v) { return uint32_t(v); }
constexpr uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }
constexpr uint64_t join(uint32_t lo, uint32_t hi) { return uint64_t(hi) << 32 | lo; }
constexpr uint32_t field(uint32_t v, unsigned shift, unsigned bits) { return (v >> shift) & ((1u << bits) - 1); }
constexpr uint32_t put(uint32_t v, unsigned shift, unsigned bits) { return (v & ((1u << bits) - 1)) << shift; }

size_t write_set_reg(uint32_t* out, uint8_t opcode, uint32_t offset, std::span<const uint32_t> values) {
  const uint32_t n = uint32_t(values.size());
  out[0] = type3_header(opcode, 2 + n);
  out[1] = offset & 0xFFFF;
  if (n) std::memcpy(out + 2, values.data(), n * sizeof(uint32_t));
  return 2 + n;
}

}  // namespace

const char* opcode_name(uint8_t op) {
  switch (op) {
    case kOpNop: return "NOP";
    case kOpSetBase: return "SET_BASE";
    case kOpDispatchDirect: return "DISPATCH_DIRECT";
    case kOpDispatchIndirect: return "DISPATCH_INDIRECT";
    case kOpAtomicMem: return "ATOMIC_MEM";
    case kOpWriteData: return "WRITE_DATA";
    case kOpWaitRegMem: return "WAIT_REG_MEM";
    case kOpIndirectBuffer: return "INDIRECT_BUFFER";
    case kOpCopyData: return "COPY_DATA";
    case kOpPfpSyncMe: return "PFP_SYNC_ME";
    case kOpEventWrite: return "EVENT_WRITE";
    case kOpReleaseMem: return "RELEASE_MEM";
    case kOpDmaData: return "DMA_DATA";
    case kOpAcquireMem: return "ACQUIRE_MEM";
    case kOpSetShReg: return "SET_SH_REG";
    case kOpSetUconfigReg: return "SET_UCONFIG_REG";
    default: return nullptr;
  }
}

const char* atomic_op_name(uint32_t op) {
  static constexpr const char* kNames32[] = {
      "SWAP", "CMPSWAP", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, "ADD", "SUB",
      "SMIN", "UMIN", "SMAX", "UMAX", "AND", "OR", "XOR", "INC", "DEC"};
  const bool wide = op >= kAtomicSwapRtn64;
  const uint32_t base = (wide ? op - kAtomic64Offset : op);
  if (base < kAtomicSwapRtn32 || base > kAtomicDecRtn32 || op > kAtomicDecRtn64) return nullptr;
  const char* n = kNames32[base - kAtomicSwapRtn32];
  if (!n) return nullptr;
  static thread_local char buf[24];
  std::snprintf(buf, sizeof buf, "%s_RTN_%s", n, wide ? "64" : "32");
  return buf;
}

size_t write_nop(uint32_t* out, uint32_t dwords) {
  if (dwords == 0) return 0;
  if (dwords == 1) {
    out[0] = kNop1;
    return 1;
  }
  out[0] = type3_header(kOpNop, dwords);
  std::memset(out + 1, 0, (dwords - 1) * sizeof(uint32_t));
  return dwords;
}

size_t write_write_data(uint32_t* out, const WriteData& w, std::span<const uint32_t> data) {
  const uint32_t n = uint32_t(data.size());
  out[0] = type3_header(kOpWriteData, 4 + n);
  out[1] = put(w.dst_sel, 8, 4) | put(w.one_address, 16, 1) | put(w.wr_confirm, 20, 1) |
           put(w.cache_policy, 25, 2);
  out[2] = lo32(w.address);
  out[3] = hi32(w.address);
  if (n) std::memcpy(out + 4, data.data(), n * sizeof(uint32_t));
  return 4 + n;
}

WriteData decode_write_data(const uint32_t* p, uint32_t packet_dwords) {
  WriteData w;
  w.dst_sel = field(p[1], 8, 4);
  w.one_address = field(p[1], 16, 1);
  w.wr_confirm = field(p[1], 20, 1);
  w.cache_policy = field(p[1], 25, 2);
  w.address = join(p[2], p[3]);
  w.count = packet_dwords >= 4 ? packet_dwords - 4 : 0;
  return w;
}

bool compare_holds(uint32_t function, uint32_t v, uint32_t ref) {
  switch (function) {
    case kCompareAlways: return true;
    case kCompareLess: return v < ref;
    case kCompareLessEqual: return v <= ref;
    case kCompareEqual: return v == ref;
    case kCompareNotEqual: return v != ref;
    case kCompareGreaterEqual: return v >= ref;
    case kCompareGreater: return v > ref;
    default: return false;
  }
}

size_t write_wait_reg_mem(uint32_t* out, const WaitRegMem& w) {
  out[0] = type3_header(kOpWaitRegMem, kWaitRegMemDwords);
  out[1] = put(w.function, 0, 3) | put(w.mem_space, 4, 2) | put(w.operation, 6, 2) | put(w.engine, 8, 2);
  out[2] = lo32(w.address);
  out[3] = hi32(w.address);
  out[4] = w.reference;
  out[5] = w.mask;
  out[6] = put(w.poll_interval, 0, 16);
  return kWaitRegMemDwords;
}

WaitRegMem decode_wait_reg_mem(const uint32_t* p) {
  WaitRegMem w;
  w.function = field(p[1], 0, 3);
  w.mem_space = field(p[1], 4, 2);
  w.operation = field(p[1], 6, 2);
  w.engine = field(p[1], 8, 2);
  w.address = join(p[2], p[3]);
  w.reference = p[4];
  w.mask = p[5];
  w.poll_interval = field(p[6], 0, 16);
  return w;
}

size_t write_indirect_buffer(uint32_t* out, const IndirectBuffer& ib) {
  out[0] = type3_header(kOpIndirectBuffer, kIndirectBufferDwords);
  out[1] = lo32(ib.address) & ~3u;
  out[2] = hi32(ib.address) & 0xFFFFu;
  out[3] = put(ib.dwords, 0, 20) | put(ib.chain, 20, 1) | put(ib.valid, 23, 1) | put(ib.vmid, 24, 4) |
           put(ib.cache_policy, 28, 2);
  return kIndirectBufferDwords;
}

IndirectBuffer decode_indirect_buffer(const uint32_t* p) {
  IndirectBuffer ib;
  ib.address = join(p[1] & ~3u, p[2] & 0xFFFFu);
  ib.dwords = field(p[3], 0, 20);
  ib.chain = field(p[3], 20, 1);
  ib.valid = field(p[3], 23, 1);
  ib.vmid = field(p[3], 24, 4);
  ib.cache_policy = field(p[3], 28, 2);
  return ib;
}

size_t write_copy_data(uint32_t* out, const CopyData& c) {
  out[0] = type3_header(kOpCopyData, kCopyDataDwords);
  out[1] = put(c.src_sel, 0, 4) | put(c.dst_sel, 8, 4) | put(c.count64, 16, 1) | put(c.wr_confirm, 20, 1);
  out[2] = lo32(c.src);
  out[3] = hi32(c.src);
  out[4] = lo32(c.dst);
  out[5] = hi32(c.dst);
  return kCopyDataDwords;
}

CopyData decode_copy_data(const uint32_t* p) {
  CopyData c;
  c.src_sel = field(p[1], 0, 4);
  c.dst_sel = field(p[1], 8, 4);
  c.count64 = field(p[1], 16, 1);
  c.wr_confirm = field(p[1], 20, 1);
  c.src = join(p[2], p[3]);
  c.dst = join(p[4], p[5]);
  return c;
}

size_t write_event_write(uint32_t* out, uint32_t event_type, uint32_t event_index) {
  out[0] = type3_header(kOpEventWrite, kEventWriteDwords);
  out[1] = put(event_type, 0, 6) | put(event_index, 8, 4);
  return kEventWriteDwords;
}

size_t write_release_mem(uint32_t* out, const ReleaseMem& r) {
  out[0] = type3_header(kOpReleaseMem, kReleaseMemDwords);
  out[1] = put(r.event_type, 0, 6) | put(r.event_index, 8, 4) | (r.cache & 0x00FFF000u) |
           put(r.cache_policy, 25, 2);
  out[2] = put(r.dst_sel, 16, 2) | put(r.int_sel, 24, 3) | put(r.data_sel, 29, 3);
  out[3] = lo32(r.address);
  out[4] = hi32(r.address);
  out[5] = lo32(r.data);
  out[6] = hi32(r.data);
  out[7] = r.int_ctxid;
  return kReleaseMemDwords;
}

ReleaseMem decode_release_mem(const uint32_t* p) {
  ReleaseMem r;
  r.event_type = field(p[1], 0, 6);
  r.event_index = field(p[1], 8, 4);
  r.cache = p[1] & 0x00FFF000u;
  r.cache_policy = field(p[1], 25, 2);
  r.dst_sel = field(p[2], 16, 2);
  r.int_sel = field(p[2], 24, 3);
  r.data_sel = field(p[2], 29, 3);
  r.address = join(p[3], p[4]);
  r.data = join(p[5], p[6]);
  r.int_ctxid = p[7];
  return r;
}

uint32_t release_cache_writeback(const Family& f) {
  if (f.acquire_mem == AcquireMemForm::Gfx9) return release_gfx9::kTcWbActionEna | release_gfx9::kTcActionEna;
  // gfx10+: write back and invalidate GL2, invalidate GL1 and GLV, in order (SEQ 1).
  return release_gfx10::seq(1) | release_gfx10::kGl2Wb | release_gfx10::kGl2Inv |
         release_gfx10::kGl1Inv | release_gfx10::kGlvInv;
}

uint32_t release_for_scope(const Family& f, uint32_t scope) {
  if (scope < 2) return 0;
  if (f.acquire_mem == AcquireMemForm::Gfx9) return release_gfx9::kTcWbActionEna;
  return release_gfx10::seq(1) | release_gfx10::kGl2Wb;
}

size_t write_acquire_mem(uint32_t* out, const AcquireMem& a, AcquireMemForm form) {
  const uint32_t n = acquire_mem_dwords(form);
  out[0] = type3_header(kOpAcquireMem, n);
  out[1] = form == AcquireMemForm::Gfx9 ? (a.coher_cntl & 0x7FFFFFFFu) : 0;
  const uint64_t size = a.size == ~0ull ? ~0ull : (a.size + 255) >> 8;
  const uint64_t base = a.base >> 8;
  out[2] = lo32(size);
  out[3] = a.size == ~0ull ? 0xFFu : (hi32(size) & 0xFFu);
  out[4] = lo32(base);
  out[5] = hi32(base) & 0xFFFFFFu;
  out[6] = put(a.poll_interval, 0, 16);
  if (form == AcquireMemForm::Gfx10) out[7] = a.gcr_cntl & 0x7FFFFu;
  return n;
}

AcquireMem decode_acquire_mem(const uint32_t* p, AcquireMemForm form) {
  AcquireMem a;
  a.coher_cntl = form == AcquireMemForm::Gfx9 ? (p[1] & 0x7FFFFFFFu) : 0;
  const uint64_t size = join(p[2], p[3] & 0xFFu);
  a.size = (p[2] == 0xFFFFFFFFu && (p[3] & 0xFFu) == 0xFFu) ? ~0ull : size << 8;
  a.base = join(p[4], p[5] & 0xFFFFFFu) << 8;
  a.poll_interval = field(p[6], 0, 16);
  a.gcr_cntl = form == AcquireMemForm::Gfx10 ? (p[7] & 0x7FFFFu) : 0;
  return a;
}

AcquireMem acquire_invalidate_all(const Family& f) {
  AcquireMem a;
  if (f.acquire_mem == AcquireMemForm::Gfx9) {
    a.coher_cntl = coher_gfx9::kShIcacheActionEna | coher_gfx9::kShKcacheActionEna |
                   coher_gfx9::kTcActionEna | coher_gfx9::kTcWbActionEna | coher_gfx9::kTcl1ActionEna;
  } else {
    a.gcr_cntl = gcr::gli_inv(1) | gcr::kGlkInv | gcr::kGlvInv | gcr::kGl1Inv | gcr::kGl2Inv;
  }
  return a;
}

AcquireMem acquire_for_scope(const Family& f, uint32_t scope) {
  AcquireMem a;
  const bool system = scope >= 2;
  if (scope == 0) return a;
  if (f.acquire_mem == AcquireMemForm::Gfx9) {
    a.coher_cntl = coher_gfx9::kShIcacheActionEna | coher_gfx9::kShKcacheActionEna | coher_gfx9::kTcl1ActionEna;
    if (system) a.coher_cntl |= coher_gfx9::kTcActionEna | coher_gfx9::kTcNcActionEna;
  } else {
    a.gcr_cntl = gcr::gli_inv(1) | gcr::kGlkInv | gcr::kGlvInv | gcr::kGl1Inv;
    if (system) a.gcr_cntl |= gcr::kGl2Inv;
  }
  return a;
}

size_t write_atomic_mem(uint32_t* out, const AtomicMem& a) {
  out[0] = type3_header(kOpAtomicMem, kAtomicMemDwords);
  out[1] = put(a.atomic, 0, 7) | put(a.command, 8, 4) | put(a.cache_policy, 25, 2);
  out[2] = lo32(a.address);
  out[3] = hi32(a.address);
  out[4] = lo32(a.src);
  out[5] = hi32(a.src);
  out[6] = lo32(a.cmp);
  out[7] = hi32(a.cmp);
  out[8] = put(a.loop_interval, 0, 13);
  return kAtomicMemDwords;
}

AtomicMem decode_atomic_mem(const uint32_t* p) {
  AtomicMem a;
  a.atomic = field(p[1], 0, 7);
  a.command = field(p[1], 8, 4);
  a.cache_policy = field(p[1], 25, 2);
  a.address = join(p[2], p[3]);
  a.src = join(p[4], p[5]);
  a.cmp = join(p[6], p[7]);
  a.loop_interval = field(p[8], 0, 13);
  return a;
}

size_t write_dma_data(uint32_t* out, const DmaData& d) {
  out[0] = type3_header(kOpDmaData, kDmaDataDwords);
  out[1] = put(d.dst_sel, 20, 2) | put(d.src_sel, 29, 2) | put(d.cp_sync, 31, 1);
  out[2] = lo32(d.src);
  out[3] = hi32(d.src);
  out[4] = lo32(d.dst);
  out[5] = hi32(d.dst);
  out[6] = put(d.byte_count, 0, 26) | put(d.sas, 26, 1) | put(d.das, 27, 1) | put(d.saic, 28, 1) |
           put(d.daic, 29, 1) | put(d.raw_wait, 30, 1);
  return kDmaDataDwords;
}

DmaData decode_dma_data(const uint32_t* p) {
  DmaData d;
  d.dst_sel = field(p[1], 20, 2);
  d.src_sel = field(p[1], 29, 2);
  d.cp_sync = field(p[1], 31, 1);
  d.src = join(p[2], p[3]);
  d.dst = join(p[4], p[5]);
  d.byte_count = field(p[6], 0, 26);
  d.sas = field(p[6], 26, 1);
  d.das = field(p[6], 27, 1);
  d.saic = field(p[6], 28, 1);
  d.daic = field(p[6], 29, 1);
  d.raw_wait = field(p[6], 30, 1);
  return d;
}

size_t write_set_sh_reg(uint32_t* out, uint32_t reg, std::span<const uint32_t> values) {
  return write_set_reg(out, kOpSetShReg, reg - reg::kShRegStart, values);
}

size_t write_set_uconfig_reg(uint32_t* out, uint32_t reg, std::span<const uint32_t> values) {
  return write_set_reg(out, kOpSetUconfigReg, reg - reg::kUconfigRegStart, values);
}

size_t write_dispatch_direct(uint32_t* out, const DispatchDirect& d) {
  out[0] = type3_header(kOpDispatchDirect, kDispatchDirectDwords);
  out[1] = d.dim[0];
  out[2] = d.dim[1];
  out[3] = d.dim[2];
  out[4] = d.initiator;
  return kDispatchDirectDwords;
}

DispatchDirect decode_dispatch_direct(const uint32_t* p) {
  DispatchDirect d;
  d.dim[0] = p[1];
  d.dim[1] = p[2];
  d.dim[2] = p[3];
  d.initiator = p[4];
  return d;
}

aql::Pm4IbPacket make_aql_pm4_ib(uint64_t ib_address, uint32_t ib_dwords, uint64_t completion_signal,
                                 uint16_t header) {
  aql::Pm4IbPacket p{};
  p.header = header;
  p.format = aql::kVendorPm4Ib;
  IndirectBuffer ib;
  ib.address = ib_address;
  ib.dwords = ib_dwords;
  write_indirect_buffer(p.ib_jump_cmd, ib);
  p.dw_cnt_remain = kPm4IbDwCntRemain;
  p.completion_signal = completion_signal;
  return p;
}

}  // namespace pm4
