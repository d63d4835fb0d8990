// SPDX-License-Identifier: MIT
// PM4 type-3 packet writers and decoders (field positions in pm4/type3.h). The layouts are
// static_assert'ed at the end of this file against Linux soc15d.h / nvd.h.
#include "pm4/type3.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "pm4/regs.h"

namespace pm4 {
namespace {

constexpr uint32_t lo32(uint64_t v) { return uint32_t(v); }
constexpr uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }
constexpr uint64_t join(uint32_t lo, uint32_t hi) { return uint64_t(hi) << 32 | lo; }
constexpr uint32_t field(uint32_t v, unsigned shift, unsigned bits) { return (v >> shift) & ((1u << bits) - 1); }
constexpr uint32_t put(uint32_t v, unsigned shift, unsigned bits) { return (v & ((1u << bits) - 1)) << shift; }

// The packet bodies, constexpr so that the static_asserts at the end of this file check every
// fixed layout at compile time; the public writers and decoders below call them.

constexpr size_t encode_nop(uint32_t* out, uint32_t dwords) {
  if (dwords == 0) return 0;
  if (dwords == 1) {
    out[0] = kNop1;
    return 1;
  }
  out[0] = type3_header(kOpNop, dwords);
  std::fill_n(out + 1, dwords - 1, 0u);
  return dwords;
}

constexpr size_t encode_set_reg(uint32_t* out, uint8_t opcode, uint32_t offset, std::span<const uint32_t> values) {
  const uint32_t n = uint32_t(values.size());
  out[0] = type3_header(opcode, 2 + n);
  out[1] = offset & 0xFFFF;
  std::copy_n(values.data(), n, out + 2);
  return 2 + n;
}

constexpr size_t encode_write_data(uint32_t* out, const WriteData& w, std::span<const uint32_t> data) {
  const uint32_t n = uint32_t(data.size());
  out[0] = type3_header(kOpWriteData, 4 + n);
  out[1] = put(w.dst_sel, 8, 4) | put(w.one_address, 16, 1) | put(w.wr_confirm, 20, 1) |
           put(w.cache_policy, 25, 2);
  out[2] = lo32(w.address);
  out[3] = hi32(w.address);
  std::copy_n(data.data(), n, out + 4);
  return 4 + n;
}

constexpr WriteData parse_write_data(const uint32_t* p, uint32_t packet_dwords) {
  WriteData w;
  w.dst_sel = field(p[1], 8, 4);
  w.one_address = field(p[1], 16, 1);
  w.wr_confirm = field(p[1], 20, 1);
  w.cache_policy = field(p[1], 25, 2);
  w.address = join(p[2], p[3]);
  w.count = packet_dwords >= 4 ? packet_dwords - 4 : 0;
  return w;
}

constexpr size_t encode_wait_reg_mem(uint32_t* out, const WaitRegMem& w) {
  out[0] = type3_header(kOpWaitRegMem, kWaitRegMemDwords);
  out[1] = put(w.function, 0, 3) | put(w.mem_space, 4, 2) | put(w.operation, 6, 2) | put(w.engine, 8, 2);
  out[2] = lo32(w.address);
  out[3] = hi32(w.address);
  out[4] = w.reference;
  out[5] = w.mask;
  out[6] = put(w.poll_interval, 0, 16);
  return kWaitRegMemDwords;
}

constexpr WaitRegMem parse_wait_reg_mem(const uint32_t* p) {
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

constexpr size_t encode_indirect_buffer(uint32_t* out, const IndirectBuffer& ib) {
  out[0] = type3_header(kOpIndirectBuffer, kIndirectBufferDwords);
  out[1] = lo32(ib.address) & ~3u;
  out[2] = hi32(ib.address) & 0xFFFFu;
  out[3] = put(ib.dwords, 0, 20) | put(ib.chain, 20, 1) | put(ib.valid, 23, 1) | put(ib.vmid, 24, 4) |
           put(ib.cache_policy, 28, 2);
  return kIndirectBufferDwords;
}

constexpr IndirectBuffer parse_indirect_buffer(const uint32_t* p) {
  IndirectBuffer ib;
  ib.address = join(p[1] & ~3u, p[2] & 0xFFFFu);
  ib.dwords = field(p[3], 0, 20);
  ib.chain = field(p[3], 20, 1);
  ib.valid = field(p[3], 23, 1);
  ib.vmid = field(p[3], 24, 4);
  ib.cache_policy = field(p[3], 28, 2);
  return ib;
}

constexpr size_t encode_copy_data(uint32_t* out, const CopyData& c) {
  out[0] = type3_header(kOpCopyData, kCopyDataDwords);
  out[1] = put(c.src_sel, 0, 4) | put(c.dst_sel, 8, 4) | put(c.count64, 16, 1) | put(c.wr_confirm, 20, 1);
  out[2] = lo32(c.src);
  out[3] = hi32(c.src);
  out[4] = lo32(c.dst);
  out[5] = hi32(c.dst);
  return kCopyDataDwords;
}

constexpr CopyData parse_copy_data(const uint32_t* p) {
  CopyData c;
  c.src_sel = field(p[1], 0, 4);
  c.dst_sel = field(p[1], 8, 4);
  c.count64 = field(p[1], 16, 1);
  c.wr_confirm = field(p[1], 20, 1);
  c.src = join(p[2], p[3]);
  c.dst = join(p[4], p[5]);
  return c;
}

constexpr size_t encode_event_write(uint32_t* out, uint32_t event_type, uint32_t event_index) {
  out[0] = type3_header(kOpEventWrite, kEventWriteDwords);
  out[1] = put(event_type, 0, 6) | put(event_index, 8, 4);
  return kEventWriteDwords;
}

constexpr size_t encode_release_mem(uint32_t* out, const ReleaseMem& r) {
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

constexpr ReleaseMem parse_release_mem(const uint32_t* p) {
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

constexpr size_t encode_acquire_mem(uint32_t* out, const AcquireMem& a, AcquireMemForm form) {
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

constexpr AcquireMem parse_acquire_mem(const uint32_t* p, AcquireMemForm form) {
  AcquireMem a;
  a.coher_cntl = form == AcquireMemForm::Gfx9 ? (p[1] & 0x7FFFFFFFu) : 0;
  const uint64_t size = join(p[2], p[3] & 0xFFu);
  a.size = (p[2] == 0xFFFFFFFFu && (p[3] & 0xFFu) == 0xFFu) ? ~0ull : size << 8;
  a.base = join(p[4], p[5] & 0xFFFFFFu) << 8;
  a.poll_interval = field(p[6], 0, 16);
  a.gcr_cntl = form == AcquireMemForm::Gfx10 ? (p[7] & 0x7FFFFu) : 0;
  return a;
}

constexpr size_t encode_atomic_mem(uint32_t* out, const AtomicMem& a) {
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

constexpr AtomicMem parse_atomic_mem(const uint32_t* p) {
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

constexpr size_t encode_dma_data(uint32_t* out, const DmaData& d) {
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

constexpr DmaData parse_dma_data(const uint32_t* p) {
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

constexpr size_t encode_dispatch_direct(uint32_t* out, const DispatchDirect& d) {
  out[0] = type3_header(kOpDispatchDirect, kDispatchDirectDwords);
  out[1] = d.dim[0];
  out[2] = d.dim[1];
  out[3] = d.dim[2];
  out[4] = d.initiator;
  return kDispatchDirectDwords;
}

constexpr DispatchDirect parse_dispatch_direct(const uint32_t* p) {
  DispatchDirect d;
  d.dim[0] = p[1];
  d.dim[1] = p[2];
  d.dim[2] = p[3];
  d.initiator = p[4];
  return d;
}

constexpr aql::Pm4IbPacket encode_aql_pm4_ib(uint64_t ib_address, uint32_t ib_dwords, uint64_t completion_signal,
                                             uint16_t header) {
  aql::Pm4IbPacket p{};
  p.header = header;
  p.format = aql::kVendorPm4Ib;
  IndirectBuffer ib;
  ib.address = ib_address;
  ib.dwords = ib_dwords;
  encode_indirect_buffer(p.ib_jump_cmd, ib);
  p.dw_cnt_remain = kPm4IbDwCntRemain;
  p.completion_signal = completion_signal;
  return p;
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
  return encode_nop(out, dwords);
}

size_t write_write_data(uint32_t* out, const WriteData& w, std::span<const uint32_t> data) {
  return encode_write_data(out, w, data);
}

WriteData decode_write_data(const uint32_t* p, uint32_t packet_dwords) {
  return parse_write_data(p, packet_dwords);
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
  return encode_wait_reg_mem(out, w);
}

WaitRegMem decode_wait_reg_mem(const uint32_t* p) {
  return parse_wait_reg_mem(p);
}

size_t write_indirect_buffer(uint32_t* out, const IndirectBuffer& ib) {
  return encode_indirect_buffer(out, ib);
}

IndirectBuffer decode_indirect_buffer(const uint32_t* p) {
  return parse_indirect_buffer(p);
}

size_t write_copy_data(uint32_t* out, const CopyData& c) {
  return encode_copy_data(out, c);
}

CopyData decode_copy_data(const uint32_t* p) {
  return parse_copy_data(p);
}

size_t write_event_write(uint32_t* out, uint32_t event_type, uint32_t event_index) {
  return encode_event_write(out, event_type, event_index);
}

size_t write_release_mem(uint32_t* out, const ReleaseMem& r) {
  return encode_release_mem(out, r);
}

ReleaseMem decode_release_mem(const uint32_t* p) {
  return parse_release_mem(p);
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
  return encode_acquire_mem(out, a, form);
}

AcquireMem decode_acquire_mem(const uint32_t* p, AcquireMemForm form) {
  return parse_acquire_mem(p, form);
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
  return encode_atomic_mem(out, a);
}

AtomicMem decode_atomic_mem(const uint32_t* p) {
  return parse_atomic_mem(p);
}

size_t write_dma_data(uint32_t* out, const DmaData& d) {
  return encode_dma_data(out, d);
}

DmaData decode_dma_data(const uint32_t* p) {
  return parse_dma_data(p);
}

size_t write_set_sh_reg(uint32_t* out, uint32_t reg, std::span<const uint32_t> values) {
  return encode_set_reg(out, kOpSetShReg, reg - reg::kShRegStart, values);
}

size_t write_set_uconfig_reg(uint32_t* out, uint32_t reg, std::span<const uint32_t> values) {
  return encode_set_reg(out, kOpSetUconfigReg, reg - reg::kUconfigRegStart, values);
}

size_t write_dispatch_direct(uint32_t* out, const DispatchDirect& d) {
  return encode_dispatch_direct(out, d);
}

DispatchDirect decode_dispatch_direct(const uint32_t* p) {
  return parse_dispatch_direct(p);
}

aql::Pm4IbPacket make_aql_pm4_ib(uint64_t ib_address, uint32_t ib_dwords, uint64_t completion_signal,
                                 uint16_t header) {
  return encode_aql_pm4_ib(ib_address, ib_dwords, completion_signal, header);
}


// ---- Compile-time layout checks ---------------------------------------------------------------
// Each expected dword is written as the documented fields shifted into place, from Linux
// drivers/gpu/drm/amd/amdgpu/soc15d.h (gfx9 PM4) and nvd.h (gfx10+ RELEASE_MEM GCR bits,
// ACQUIRE_MEM GCR_CNTL, DMA_DATA's 26-bit BYTE_COUNT); packet lengths are "header + the body
// dwords the packet's field list numbers" there, or the PACKET3(op, n) count the kernel's
// gfx_v9_0.c / gfx_v10_0.c emit for it (n = dwords - 2). Every packet is also decoded back.
namespace {

// Header: PACKET3(op, n) = 3 << 30 | n << 16 | op << 8; PACKET3_COMPUTE adds 1 << 1.
constexpr uint32_t pkt3c(uint32_t op, uint32_t dwords) { return 3u << 30 | (dwords - 2) << 16 | op << 8 | 1u << 1; }

constexpr bool same(const WriteData& a, const WriteData& b) {
  return a.dst_sel == b.dst_sel && a.one_address == b.one_address && a.wr_confirm == b.wr_confirm &&
         a.cache_policy == b.cache_policy && a.address == b.address && a.count == b.count;
}
constexpr bool same(const WaitRegMem& a, const WaitRegMem& b) {
  return a.function == b.function && a.mem_space == b.mem_space && a.operation == b.operation &&
         a.engine == b.engine && a.address == b.address && a.reference == b.reference && a.mask == b.mask &&
         a.poll_interval == b.poll_interval;
}
constexpr bool same(const IndirectBuffer& a, const IndirectBuffer& b) {
  return a.address == b.address && a.dwords == b.dwords && a.chain == b.chain && a.valid == b.valid &&
         a.vmid == b.vmid && a.cache_policy == b.cache_policy;
}
constexpr bool same(const CopyData& a, const CopyData& b) {
  return a.src_sel == b.src_sel && a.dst_sel == b.dst_sel && a.count64 == b.count64 &&
         a.wr_confirm == b.wr_confirm && a.src == b.src && a.dst == b.dst;
}
constexpr bool same(const ReleaseMem& a, const ReleaseMem& b) {
  return a.event_type == b.event_type && a.event_index == b.event_index && a.cache == b.cache &&
         a.cache_policy == b.cache_policy && a.dst_sel == b.dst_sel && a.int_sel == b.int_sel &&
         a.data_sel == b.data_sel && a.address == b.address && a.data == b.data && a.int_ctxid == b.int_ctxid;
}
constexpr bool same(const AcquireMem& a, const AcquireMem& b) {
  return a.coher_cntl == b.coher_cntl && a.gcr_cntl == b.gcr_cntl && a.base == b.base && a.size == b.size &&
         a.poll_interval == b.poll_interval;
}
constexpr bool same(const AtomicMem& a, const AtomicMem& b) {
  return a.atomic == b.atomic && a.command == b.command && a.cache_policy == b.cache_policy &&
         a.address == b.address && a.src == b.src && a.cmp == b.cmp && a.loop_interval == b.loop_interval;
}
constexpr bool same(const DmaData& a, const DmaData& b) {
  return a.src_sel == b.src_sel && a.dst_sel == b.dst_sel && a.cp_sync == b.cp_sync && a.src == b.src &&
         a.dst == b.dst && a.byte_count == b.byte_count && a.sas == b.sas && a.das == b.das &&
         a.saic == b.saic && a.daic == b.daic && a.raw_wait == b.raw_wait;
}
constexpr bool same(const DispatchDirect& a, const DispatchDirect& b) {
  return a.dim[0] == b.dim[0] && a.dim[1] == b.dim[1] && a.dim[2] == b.dim[2] && a.initiator == b.initiator;
}
template <size_t N, class F>
constexpr std::array<uint32_t, N> encoded(F encode) {
  std::array<uint32_t, N> a{};
  if (encode(a.data()) != N) a.fill(0xBADBAD);  // a wrong length fails every dword check
  return a;
}

// Opcodes (soc15d.h PACKET3_*) and the header helpers (PACKET3, CP_PACKET_GET_*, CP_PACKET2).
static_assert(kOpNop == 0x10 && kOpSetBase == 0x11 && kOpDispatchDirect == 0x15 && kOpDispatchIndirect == 0x16);
static_assert(kOpAtomicMem == 0x1E && kOpWriteData == 0x37 && kOpWaitRegMem == 0x3C && kOpIndirectBuffer == 0x3F);
static_assert(kOpCopyData == 0x40 && kOpPfpSyncMe == 0x42 && kOpEventWrite == 0x46 && kOpReleaseMem == 0x49);
static_assert(kOpDmaData == 0x50 && kOpAcquireMem == 0x58 && kOpSetShReg == 0x76 && kOpSetUconfigReg == 0x79);
static_assert(type3_header(kOpReleaseMem, 8) == (3u << 30 | (8u - 2) << 16 | 0x49u << 8 | 1u << 1));
static_assert(type3_header(kOpIndirectBuffer, 4, false) == (3u << 30 | (4u - 2) << 16 | 0x3Fu << 8));
static_assert(type3_header(kOpNop, 0x3FFF + 2) == (3u << 30 | 0x3FFFu << 16 | 0x10u << 8 | 1u << 1));
static_assert(kType2Filler == 0x80000000u && packet_type(kType2Filler) == kPacketType2);
static_assert(kNop1 == (3u << 30 | 0x3FFFu << 16 | 0x10u << 8) && packet_type(kNop1) == kPacketType3);
static_assert(decode_type3(3u << 30 | 7u << 16 | 0x1Eu << 8 | 1u << 1 | 1u).opcode == 0x1E);
static_assert(decode_type3(3u << 30 | 7u << 16 | 0x1Eu << 8 | 1u << 1).count == 7);
static_assert(decode_type3(3u << 30 | 7u << 16 | 0x1Eu << 8 | 1u << 1).compute);
static_assert(decode_type3(3u << 30 | 7u << 16 | 0x1Eu << 8 | 1u).predicate);
static_assert(!decode_type3(3u << 30 | 7u << 16 | 0x1Eu << 8 | 1u).compute);
// SET_SH_REG / SET_UCONFIG_REG register spaces (soc15d.h PACKET3_SET_*_REG_START / _END).
static_assert(reg::kShRegStart == 0x2C00 && reg::kShRegEnd == 0x3000);
static_assert(reg::kUconfigRegStart == 0xC000 && reg::kUconfigRegEnd == 0xC400);

// Lengths: header + body dwords.
static_assert(kWaitRegMemDwords == 1 + 6);      // dw1 control, addr lo, addr hi, reference, mask, poll
static_assert(kIndirectBufferDwords == 1 + 3);  // base lo, base hi, size/control
static_assert(kCopyDataDwords == 1 + 5);        // control, src lo/hi, dst lo/hi
static_assert(kEventWriteDwords == 1 + 1);      // event type/index (no address for these events)
static_assert(kReleaseMemDwords == 1 + 7);      // gfx_v9_0.c PACKET3(RELEASE_MEM, 6)
static_assert(kAcquireMemDwordsGfx9 == 1 + 6);  // soc15d.h ACQUIRE_MEM ordinals 2..7
static_assert(kAcquireMemDwordsGfx10 == 1 + 7); // gfx_v10_0.c PACKET3(ACQUIRE_MEM, 6): + GCR_CNTL
static_assert(kAtomicMemDwords == 1 + 8);       // control, addr, src, cmp (lo/hi each), loop interval
static_assert(kDmaDataDwords == 1 + 6);         // soc15d.h DMA_DATA ordinals 2..7
static_assert(kDispatchDirectDwords == 1 + 4);  // DIM_X/Y/Z, DISPATCH_INITIATOR
static_assert(kWriteDataMaxBody == 0x3FFF - 2);

// NOP: the one-dword form, and a header followed by zeros.
constexpr auto kNop1Buf = encoded<1>([](uint32_t* o) { return encode_nop(o, 1); });
static_assert(kNop1Buf[0] == kNop1);
constexpr auto kNop5 = encoded<5>([](uint32_t* o) { return encode_nop(o, 5); });
static_assert(kNop5[0] == (3u << 30 | (5u - 2) << 16 | 0x10u << 8 | 1u << 1));
static_assert(kNop5[1] == 0 && kNop5[2] == 0 && kNop5[3] == 0 && kNop5[4] == 0);

// WRITE_DATA (soc15d.h: DST_SEL [11:8], ADDR_INCR 16, WR_CONFIRM 20, CACHE_POLICY [26:25]).
constexpr WriteData kWd{kWriteDstMemory, true, true, 2, 0x7F12'3456'7890ull, 2};
constexpr uint32_t kWdData[] = {0xAAAA5555u, 0x12345678u};
constexpr auto kWdBuf = encoded<6>([](uint32_t* o) { return encode_write_data(o, kWd, kWdData); });
static_assert(kWdBuf[0] == pkt3c(0x37, 6));
static_assert(kWdBuf[1] == (5u << 8 | 1u << 16 | 1u << 20 | 2u << 25));
static_assert(kWdBuf[2] == 0x34567890u && kWdBuf[3] == 0x7F12u);
static_assert(kWdBuf[4] == 0xAAAA5555u && kWdBuf[5] == 0x12345678u);
static_assert(same(parse_write_data(kWdBuf.data(), 6), kWd));

// WAIT_REG_MEM (soc15d.h: FUNCTION [2:0], MEM_SPACE [5:4], OPERATION [7:6], ENGINE [9:8];
// POLL_INTERVAL [15:0]).
constexpr WaitRegMem kWrm{kCompareGreaterEqual, 1, 1, 1, 0x7FAB'CDEF'0124ull, 0x12345678u, 0x0F0F0F0Fu, 0xA};
constexpr auto kWrmBuf = encoded<7>([](uint32_t* o) { return encode_wait_reg_mem(o, kWrm); });
static_assert(kWrmBuf[0] == pkt3c(0x3C, 7));
static_assert(kWrmBuf[1] == (5u << 0 | 1u << 4 | 1u << 6 | 1u << 8));
static_assert(kWrmBuf[2] == 0xCDEF0124u && kWrmBuf[3] == 0x7FABu);
static_assert(kWrmBuf[4] == 0x12345678u && kWrmBuf[5] == 0x0F0F0F0Fu && kWrmBuf[6] == 0xAu);
static_assert(same(parse_wait_reg_mem(kWrmBuf.data()), kWrm));

// INDIRECT_BUFFER (soc15d.h: IB_BASE_LO [31:2]; IB_SIZE [19:0], CHAIN 20, VALID 23, VMID [27:24],
// CACHE_POLICY [29:28]).
constexpr IndirectBuffer kIb{0x7FFF'0000'1004ull, 0x12345, true, true, 3, 1};
constexpr auto kIbBuf = encoded<4>([](uint32_t* o) { return encode_indirect_buffer(o, kIb); });
static_assert(kIbBuf[0] == pkt3c(0x3F, 4));
static_assert(kIbBuf[1] == 0x1004u && kIbBuf[2] == 0x7FFFu);
static_assert(kIbBuf[3] == (0x12345u << 0 | 1u << 20 | 1u << 23 | 3u << 24 | 1u << 28));
static_assert(same(parse_indirect_buffer(kIbBuf.data()), kIb));

// COPY_DATA (soc15d.h: SRC_SEL [3:0], DST_SEL [11:8], COUNT_SEL 16, WR_CONFIRM 20).
constexpr CopyData kCd{kCopySrcGpuClock, kCopyDstMemory, true, true, 0x1122'3344'5566'7788ull, 0x7F00'0000'0040ull};
constexpr auto kCdBuf = encoded<6>([](uint32_t* o) { return encode_copy_data(o, kCd); });
static_assert(kCdBuf[0] == pkt3c(0x40, 6));
static_assert(kCdBuf[1] == (9u << 0 | 5u << 8 | 1u << 16 | 1u << 20));
static_assert(kCdBuf[2] == 0x55667788u && kCdBuf[3] == 0x11223344u && kCdBuf[4] == 0x40u && kCdBuf[5] == 0x7F00u);
static_assert(same(parse_copy_data(kCdBuf.data()), kCd));

// EVENT_WRITE (soc15d.h: EVENT_TYPE [5:0], EVENT_INDEX [11:8]; CS_PARTIAL_FLUSH is type 7,
// vega10_enum.h, with EVENT_INDEX__CS_PARTIAL_FLUSH 4).
static_assert(kEventCsPartialFlush == 7 && kEventIndexCsPartialFlush == 4 && kEventIndexOther == 0);
constexpr auto kEwBuf = encoded<2>([](uint32_t* o) { return encode_event_write(o, 7, 4); });
static_assert(kEwBuf[0] == pkt3c(0x46, 2) && kEwBuf[1] == (7u << 0 | 4u << 8));
static_assert(decode_event_write(kEwBuf.data()).event_type == 7 && decode_event_write(kEwBuf.data()).event_index == 4);

// RELEASE_MEM dw1 cache actions: gfx9 EOP_*_ACTION_EN (soc15d.h) and gfx10+
// PACKET3_RELEASE_MEM_GCR_* (nvd.h; SEQ's low bit is 22).
static_assert(release_gfx9::kTcl1VolActionEna == 1u << 12 && release_gfx9::kTcVolActionEna == 1u << 13);
static_assert(release_gfx9::kTcWbActionEna == 1u << 15 && release_gfx9::kTcl1ActionEna == 1u << 16);
static_assert(release_gfx9::kTcActionEna == 1u << 17 && release_gfx9::kTcNcActionEna == 1u << 19);
static_assert(release_gfx9::kTcMdActionEna == 1u << 21);
static_assert(release_gfx10::kGlmWb == 1u << 12 && release_gfx10::kGlmInv == 1u << 13);
static_assert(release_gfx10::kGlvInv == 1u << 14 && release_gfx10::kGl1Inv == 1u << 15);
static_assert(release_gfx10::kGl2Us == 1u << 16 && release_gfx10::kGl2Discard == 1u << 19);
static_assert(release_gfx10::kGl2Inv == 1u << 20 && release_gfx10::kGl2Wb == 1u << 21);
static_assert(release_gfx10::seq(1) == 1u << 22);
// RELEASE_MEM (soc15d.h / nvd.h: EVENT_TYPE [5:0], EVENT_INDEX [11:8], CACHE_POLICY [26:25];
// DST_SEL 16, INT_SEL 24, DATA_SEL 29). CACHE_FLUSH_AND_INV_TS_EVENT is 0x14, end of pipe 5.
static_assert(kEventCacheFlushAndInvTs == 0x14 && kEventIndexEndOfPipe == 5);
constexpr ReleaseMem kRm{0x14, 5, 1u << 15 | 1u << 17, 3, 1, kIntAfterWriteConfirm, kData64,
                         0x7F00'1234'5678ull, 0x1122'3344'5566'7788ull, 0x00ABCDEF};
constexpr auto kRmBuf = encoded<8>([](uint32_t* o) { return encode_release_mem(o, kRm); });
static_assert(kRmBuf[0] == pkt3c(0x49, 8));
static_assert(kRmBuf[1] == (0x14u << 0 | 5u << 8 | 1u << 15 | 1u << 17 | 3u << 25));
static_assert(kRmBuf[2] == (1u << 16 | 2u << 24 | 2u << 29));
static_assert(kRmBuf[3] == 0x12345678u && kRmBuf[4] == 0x7F00u);
static_assert(kRmBuf[5] == 0x55667788u && kRmBuf[6] == 0x11223344u && kRmBuf[7] == 0x00ABCDEFu);
static_assert(same(parse_release_mem(kRmBuf.data()), kRm));
constexpr ReleaseMem kRm10{0x14, 5, 1u << 22 | 1u << 21 | 1u << 20 | 1u << 15 | 1u << 14, 0, 0, kIntNone, kData32,
                           0x40, 7, 0};
constexpr auto kRm10Buf = encoded<8>([](uint32_t* o) { return encode_release_mem(o, kRm10); });
static_assert(kRm10Buf[1] == (0x14u | 5u << 8 | 1u << 22 | 1u << 21 | 1u << 20 | 1u << 15 | 1u << 14));
static_assert(kRm10Buf[2] == 1u << 29);
static_assert(same(parse_release_mem(kRm10Buf.data()), kRm10));

// ACQUIRE_MEM COHER_CNTL bits (soc15d.h PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_*) and GCR_CNTL bits
// (nvd.h PACKET3_ACQUIRE_MEM_GCR_CNTL_*).
static_assert(coher_gfx9::kTcNcActionEna == 1u << 3 && coher_gfx9::kTcWcActionEna == 1u << 4);
static_assert(coher_gfx9::kTcInvMetadataActionEna == 1u << 5 && coher_gfx9::kTcl1VolActionEna == 1u << 15);
static_assert(coher_gfx9::kTcWbActionEna == 1u << 18 && coher_gfx9::kTcl1ActionEna == 1u << 22);
static_assert(coher_gfx9::kTcActionEna == 1u << 23 && coher_gfx9::kShKcacheActionEna == 1u << 27);
static_assert(coher_gfx9::kShKcacheVolActionEna == 1u << 28 && coher_gfx9::kShIcacheActionEna == 1u << 29);
static_assert(coher_gfx9::kShKcacheWbActionEna == 1u << 30);
static_assert(gcr::gli_inv(1) == 1u << 0 && gcr::kGlmWb == 1u << 4 && gcr::kGlmInv == 1u << 5);
static_assert(gcr::kGlkWb == 1u << 6 && gcr::kGlkInv == 1u << 7 && gcr::kGlvInv == 1u << 8);
static_assert(gcr::kGl1Inv == 1u << 9 && gcr::kGl2Us == 1u << 10 && gcr::kGl2Discard == 1u << 13);
static_assert(gcr::kGl2Inv == 1u << 14 && gcr::kGl2Wb == 1u << 15);
// ACQUIRE_MEM gfx9 (soc15d.h: COHER_CNTL [30:0], COHER_SIZE, COHER_SIZE_HI [7:0], COHER_BASE_LO,
// COHER_BASE_HI [23:0], POLL_INTERVAL [15:0]; size and base in 256-byte units).
constexpr AcquireMem kAm9{1u << 29 | 1u << 27 | 1u << 23 | 1u << 22 | 1u << 18, 0, 0x7F00'0001'0000ull,
                          0xAB00'0000'0100ull, 0xA};
constexpr auto kAm9Buf = encoded<7>([](uint32_t* o) { return encode_acquire_mem(o, kAm9, AcquireMemForm::Gfx9); });
static_assert(kAm9Buf[0] == pkt3c(0x58, 7));
static_assert(kAm9Buf[1] == (1u << 29 | 1u << 27 | 1u << 23 | 1u << 22 | 1u << 18));
static_assert(kAm9Buf[2] == 0x00000001u && kAm9Buf[3] == 0xABu);  // 0xAB'0000'0001 units
static_assert(kAm9Buf[4] == 0x00000100u && kAm9Buf[5] == 0x7Fu);  // 0x7F'0000'0100 units
static_assert(kAm9Buf[6] == 0xAu);
static_assert(same(parse_acquire_mem(kAm9Buf.data(), AcquireMemForm::Gfx9), kAm9));
// The whole address space: COHER_SIZE 0xFFFFFFFF, COHER_SIZE_HI 0xFF, base 0.
constexpr AcquireMem kAmAll{};
constexpr auto kAmAllBuf = encoded<7>([](uint32_t* o) { return encode_acquire_mem(o, kAmAll, AcquireMemForm::Gfx9); });
static_assert(kAmAllBuf[2] == 0xFFFFFFFFu && kAmAllBuf[3] == 0xFFu && kAmAllBuf[4] == 0 && kAmAllBuf[5] == 0);
static_assert(same(parse_acquire_mem(kAmAllBuf.data(), AcquireMemForm::Gfx9), kAmAll));
// ACQUIRE_MEM gfx10+: COHER_CNTL unused, GCR_CNTL [18:0] in the eighth dword (nvd.h).
constexpr AcquireMem kAm10{0, 1u << 0 | 1u << 4 | 1u << 5 | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 14 | 1u << 15, 0,
                           ~0ull, 0xA};
constexpr auto kAm10Buf = encoded<8>([](uint32_t* o) { return encode_acquire_mem(o, kAm10, AcquireMemForm::Gfx10); });
static_assert(kAm10Buf[0] == pkt3c(0x58, 8) && kAm10Buf[1] == 0);
static_assert(kAm10Buf[7] == (1u << 0 | 1u << 4 | 1u << 5 | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 14 | 1u << 15));
static_assert(same(parse_acquire_mem(kAm10Buf.data(), AcquireMemForm::Gfx10), kAm10));

// ATOMIC_MEM (soc15d.h: ATOMIC [5:0], COMMAND [11:8], CACHE_POLICY [26:25]; LOOP_INTERVAL
// [12:0]). Every TC op kfdrt names fits the 6-bit field.
static_assert(kAtomicDecRtn64 < 1u << 6 && kAtomicCommandLoopUntilCompare == 1);
constexpr AtomicMem kAtm{kAtomicAddRtn64, 1, 2, 0x7F00'0000'1008ull, 0x0102'0304'0506'0708ull,
                         0x1112'1314'1516'1718ull, 0x1ABC};
constexpr auto kAtmBuf = encoded<9>([](uint32_t* o) { return encode_atomic_mem(o, kAtm); });
static_assert(kAtmBuf[0] == pkt3c(0x1E, 9));
static_assert(kAtmBuf[1] == (47u << 0 | 1u << 8 | 2u << 25));
static_assert(kAtmBuf[2] == 0x1008u && kAtmBuf[3] == 0x7F00u && kAtmBuf[4] == 0x05060708u && kAtmBuf[5] == 0x01020304u);
static_assert(kAtmBuf[6] == 0x15161718u && kAtmBuf[7] == 0x11121314u && kAtmBuf[8] == 0x1ABCu);
static_assert(same(parse_atomic_mem(kAtmBuf.data()), kAtm));

// DMA_DATA (soc15d.h CONTROL: DST_SEL [21:20], SRC_SEL [30:29], CP_SYNC 31; COMMAND: SAS 26,
// DAS 27, SAIC 28, DAIC 29, RAW_WAIT 30; nvd.h: BYTE_COUNT [25:0]).
constexpr DmaData kDma{kDmaSelData, kDmaSelAddressL2, true, 0xA5A5A5A5ull, 0x7F00'0000'1000ull, 0x2ABCDEF,
                       true, false, true, false, true};
constexpr auto kDmaBuf = encoded<7>([](uint32_t* o) { return encode_dma_data(o, kDma); });
static_assert(kDmaBuf[0] == pkt3c(0x50, 7));
static_assert(kDmaBuf[1] == (3u << 20 | 2u << 29 | 1u << 31));
static_assert(kDmaBuf[2] == 0xA5A5A5A5u && kDmaBuf[3] == 0 && kDmaBuf[4] == 0x1000u && kDmaBuf[5] == 0x7F00u);
static_assert(kDmaBuf[6] == (0x2ABCDEFu | 1u << 26 | 1u << 28 | 1u << 30));
static_assert(kDmaDataMaxBytes == 0x3FFFFFFu);
static_assert(same(parse_dma_data(kDmaBuf.data()), kDma));

// SET_SH_REG (soc15d.h: REG_OFFSET [15:0] from PACKET3_SET_SH_REG_START), values follow.
constexpr uint32_t kShVals[] = {0x1234, 0x5};
constexpr auto kShBuf = encoded<4>([](uint32_t* o) {
  return encode_set_reg(o, kOpSetShReg, reg::kComputePgmLo - reg::kShRegStart, kShVals);
});
static_assert(kShBuf[0] == pkt3c(0x76, 4) && kShBuf[1] == 0x2E0Cu - 0x2C00u);
static_assert(kShBuf[2] == 0x1234u && kShBuf[3] == 0x5u);

// DISPATCH_DIRECT: DIM_X, DIM_Y, DIM_Z, DISPATCH_INITIATOR.
constexpr DispatchDirect kDd{{0x100, 2, 3}, 0x21};
constexpr auto kDdBuf = encoded<5>([](uint32_t* o) { return encode_dispatch_direct(o, kDd); });
static_assert(kDdBuf[0] == pkt3c(0x15, 5));
static_assert(kDdBuf[1] == 0x100u && kDdBuf[2] == 2 && kDdBuf[3] == 3 && kDdBuf[4] == 0x21u);
static_assert(same(parse_dispatch_direct(kDdBuf.data()), kDd));

// The AQL vendor packet (ROCr amd_aql_queue.cpp ExecutePM4): format PM4_IB, an INDIRECT_BUFFER in
// dwords 1..4, dw_cnt_remain 0xA, the completion signal last.
constexpr aql::Pm4IbPacket kAqlIb = encode_aql_pm4_ib(0x7F00'0000'2000ull, 7, 0xAB00, 0x1234);
static_assert(kAqlIb.header == 0x1234 && kAqlIb.format == 1 && kAqlIb.dw_cnt_remain == 0xA);
static_assert(kAqlIb.ib_jump_cmd[0] == pkt3c(0x3F, 4) && kAqlIb.ib_jump_cmd[1] == 0x2000u);
static_assert(kAqlIb.ib_jump_cmd[2] == 0x7F00u && kAqlIb.ib_jump_cmd[3] == (7u | 1u << 23));
static_assert(kAqlIb.completion_signal == 0xAB00u);

}  // namespace

}  // namespace pm4
