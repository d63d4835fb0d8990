// SPDX-License-Identifier: MIT
// The PM4 packet executor: the compute subset of the gfx9 MEC's type-3 packets, every address checked against the GPU's mappings.
#include "emu/cp_pm4.h"
#include "emu/stats.h"
#include "emu/tsan_sync.h"

#include "emu/memory_model.h"

#include <atomic>
#include <cstring>

namespace emu {

using namespace pm4;

namespace {

// An IB runs this many packets, then the CP serves other queues and comes back (an IB chaining
// to itself must not hold the CP, nor a queue destroy waiting for it, forever).
constexpr unsigned kIbPacketsPerTurn = 1024;

std::string op_label(uint8_t op) {
  const char* n = opcode_name(op);
  return n ? n : "opcode " + hex(op);
}

// RELEASE_MEM's cache actions: gfx9 dw1 bits (TC_WB write back, TC invalidate, TC_NC only the
// non-coherent lines, TCL1 the L1s; Linux gfx_v9_0.c gfx_v9_0_ring_emit_fence uses TC_WB|TC_NC
// for a write-back and TCL1|TC|TC_MD|TC_WB for a full flush), gfx10+ GCR_CNTL.
CacheActions release_actions(const Family& f, uint32_t cache) {
  CacheActions a;
  if (f.major >= 10) {
    a.writeback = cache & release_gfx10::kGl2Wb;
    a.invalidate_l2 = cache & release_gfx10::kGl2Inv;
    a.invalidate_l1 = cache & (release_gfx10::kGlvInv | release_gfx10::kGl1Inv);
    return a;
  }
  namespace r = release_gfx9;
  a.writeback = cache & r::kTcWbActionEna;
  a.invalidate_l2 = cache & r::kTcActionEna;
  a.nc_only = cache & r::kTcNcActionEna;
  a.invalidate_l1 = cache & (r::kTcl1ActionEna | r::kTcl1VolActionEna);
  return a;
}

// ACQUIRE_MEM's: gfx9 COHER_CNTL (same meanings, Linux soc15d.h PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_*),
// gfx10+ GCR_CNTL, on COHER_BASE/COHER_SIZE.
CacheActions acquire_actions(const Family& f, const AcquireMem& m) {
  CacheActions a;
  if (f.acquire_mem == AcquireMemForm::Gfx9) {
    namespace c = coher_gfx9;
    a.writeback = m.coher_cntl & c::kTcWbActionEna;
    a.invalidate_l2 = m.coher_cntl & c::kTcActionEna;
    a.nc_only = m.coher_cntl & c::kTcNcActionEna;
    a.invalidate_l1 = m.coher_cntl & (c::kTcl1ActionEna | c::kTcl1VolActionEna);
  } else {
    a.writeback = m.gcr_cntl & gcr::kGl2Wb;
    a.invalidate_l2 = m.gcr_cntl & gcr::kGl2Inv;
    a.invalidate_l1 = m.gcr_cntl & (gcr::kGlvInv | gcr::kGl1Inv);
  }
  if (m.size != ~0ull) {
    a.va = m.base;
    a.size = m.size;
  }
  return a;
}

}  // namespace

Pm4State& pm4_state(Queue& q) {
  if (!q.pm4) q.pm4 = std::make_shared<Pm4State>();
  return *q.pm4;
}

Pm4Executor::Pm4Executor(CommandProcessor& cp, Queue& q)
    : cp_(cp), q_(q), s_(pm4_state(q)), f_(*cp.family_) {}

std::string Pm4Executor::where() const {
  return "PM4 " + op_label(decode_type3(where_header_).opcode) + " at " + hex(where_va_);
}

Step Pm4Executor::error(const std::string& why) {
  cp_.pm4_error(q_, where_set_ ? where() + ": " + why : why);
  return Step::Failed;
}

uint8_t* Pm4Executor::mem(uint64_t va, uint64_t size, bool write, const char* what) {
  if (uint8_t* h = cp_.d_.translate(va, size, write)) return h;
  const uint64_t bad = first_bad_byte(cp_.d_, va, size, write);
  const std::string range = std::string(what) + " [" + hex(va) + ", " + hex(va + size) + ")";
  if (bad == va + size) {  // every byte is mapped, but not by one mapping
    error(range + " spans two GPU mappings; the emulator needs one for this access");
    return nullptr;
  }
  cp_.fault(q_, (where_set_ ? where() + ": " : std::string()) + range + ": " + hex(bad) + " is not mapped" +
                    (write ? " writable" : "") + " to the GPU",
            bad, write);
  return nullptr;
}

bool Pm4Executor::range(uint64_t va, uint64_t size, bool write, const char* what,
                        std::vector<HostSpan>* out) {
  uint64_t bad = 0;
  if (gpu_range(cp_.d_, va, size, write, out, &bad)) return true;
  cp_.fault(q_, where() + ": " + what + " [" + hex(va) + ", " + hex(va + size) + "): " + hex(bad) +
                    " is not mapped" + (write ? " writable" : "") + " to the GPU",
            bad, write);
  return false;
}

bool Pm4Executor::store(uint64_t va, uint64_t value, unsigned bytes, const char* what, bool l2) {
  uint8_t* h = mem(va, bytes, true, what);
  if (!h) return false;
  tsan_release_gpu(va);  // a waiter may read it through the process's mapping (emu/tsan_sync.h)
  if (bytes == 8) cp_store<uint64_t>(cp_.d_, va, h, value, l2);
  else cp_store<uint32_t>(cp_.d_, va, h, uint32_t(value), l2);
  return true;
}

uint32_t Pm4Executor::packet_dwords(uint32_t h, uint64_t va) {
  switch (packet_type(h)) {
    case kPacketType3: return decode_type3(h).dwords();
    case kPacketType2: return 1;  // filler
    default:
      where_set_ = false;
      error("type-" + std::to_string(packet_type(h)) + " packet (header " + hex(h) + ") at " + hex(va) +
            ": the compute CP takes type-3 packets only (type-0 register writes are not accepted)");
      return 0;
  }
}

Step Pm4Executor::ring_packet(const uint32_t* p, uint32_t n, uint64_t va) {
  return packet(p, n, va, false);
}

Step Pm4Executor::call_ib(const IndirectBuffer& ib, uint32_t caller_dwords, uint64_t va) {
  (void)va;
  s_.in_ib = true;
  s_.ib_va = ib.address;
  s_.ib_dwords = ib.dwords;
  s_.ib_pos = 0;
  s_.caller_dwords = caller_dwords;
  return run_ib();
}

Step Pm4Executor::run_ib() {
  for (unsigned n = 0; n < kIbPacketsPerTurn; ++n) {
    if (!s_.in_ib) return Step::Done;
    if (s_.ib_pos >= s_.ib_dwords) {
      s_.in_ib = false;
      return Step::Done;
    }
    const uint64_t va = s_.ib_va + uint64_t(s_.ib_pos) * 4;
    where_set_ = false;
    const uint8_t* hb = mem(va, 4, false, "indirect buffer packet");
    if (!hb) return Step::Failed;
    const uint32_t h = __atomic_load_n(reinterpret_cast<const uint32_t*>(hb), __ATOMIC_ACQUIRE);
    const uint32_t len = packet_dwords(h, va);
    if (!len) return Step::Failed;
    if (len > s_.ib_dwords - s_.ib_pos)
      return error(op_label(decode_type3(h).opcode) + " at " + hex(va) + " (header " + hex(h) + ") is " +
                   std::to_string(len) + " dwords long and runs past the end of its IB [" + hex(s_.ib_va) +
                   ", " + std::to_string(s_.ib_dwords) + " dwords)");
    const uint8_t* pb = mem(va, uint64_t(len) * 4, false, "indirect buffer packet");
    if (!pb) return Step::Failed;
    chained_ = false;
    const Step st = packet(reinterpret_cast<const uint32_t*>(pb), len, va, true);
    if (st != Step::Done) return st;
    if (!chained_) s_.ib_pos += len;  // CHAIN restarted the IB elsewhere
  }
  return Step::Yield;
}

Step Pm4Executor::packet(const uint32_t* p, uint32_t n, uint64_t va, bool in_ib) {
  if (packet_type(p[0]) == kPacketType2) return Step::Done;
  const Type3Header h = decode_type3(p[0]);
  where_set_ = true;  // messages name the packet (built only when one is needed)
  where_header_ = p[0];
  where_va_ = va;
  if (h.predicate)
    return error("predicated packet (header " + hex(p[0]) + "): predication is not implemented by the emulator");
  auto sized = [&](uint32_t want) {
    if (n == want) return true;
    error("packet of " + std::to_string(n) + " dwords (header " + hex(p[0]) + "); this packet has " +
          std::to_string(want));
    return false;
  };
  switch (h.opcode) {
    case kOpNop: return Step::Done;
    case kOpWriteData: return write_data(p, n);
    case kOpWaitRegMem: return sized(kWaitRegMemDwords) ? wait_reg_mem(p) : Step::Failed;
    case kOpIndirectBuffer: return sized(kIndirectBufferDwords) ? indirect_buffer(p, va, in_ib) : Step::Failed;
    case kOpCopyData: return sized(kCopyDataDwords) ? copy_data(p) : Step::Failed;
    case kOpEventWrite: return sized(kEventWriteDwords) ? event_write(p) : Step::Failed;
    case kOpReleaseMem: return sized(kReleaseMemDwords) ? release_mem(p) : Step::Failed;
    case kOpAcquireMem: return acquire_mem(p, n);
    case kOpAtomicMem: return sized(kAtomicMemDwords) ? atomic_mem(p) : Step::Failed;
    case kOpDmaData: return sized(kDmaDataDwords) ? dma_data(p) : Step::Failed;
    case kOpSetShReg: return set_sh_reg(p, n);
    case kOpSetUconfigReg: return set_uconfig_reg(p, n);
    case kOpDispatchDirect: return sized(kDispatchDirectDwords) ? dispatch_direct(p) : Step::Failed;
    default:
      return error(std::string(opcode_name(h.opcode) ? "" : "unknown ") + "PM4 opcode " + hex(h.opcode) +
                   " (header " + hex(p[0]) + ") is not implemented by the emulator");
  }
}

Step Pm4Executor::indirect_buffer(const uint32_t* p, uint64_t va, bool in_ib) {
  const IndirectBuffer ib = decode_indirect_buffer(p);
  if (!ib.valid) return error("IB_VALID is 0 (dword 3 = " + hex(p[3]) + ")");
  if (ib.chain && !in_ib)
    return error("CHAIN from the ring: only an IB chains to the next IB");
  if (!ib.chain && in_ib)
    return error("an IB calling another IB (" + hex(ib.address) + "): compute queues have no IB2, " +
                 "an IB may only CHAIN to the next one");
  if (ib.chain) {
    s_.ib_va = ib.address;
    s_.ib_dwords = ib.dwords;
    s_.ib_pos = 0;
    chained_ = true;
    return Step::Done;
  }
  where_set_ = false;
  return call_ib(ib, kIndirectBufferDwords, va);
}

Step Pm4Executor::write_data(const uint32_t* p, uint32_t n) {
  if (n < 5) return error("no data dword (packet of " + std::to_string(n) + " dwords)");
  const WriteData w = decode_write_data(p, n);
  if (w.dst_sel == kWriteDstRegister)
    return error("DST_SEL 0 (register): register writes are not implemented by the emulator");
  if (w.dst_sel != kWriteDstMemory && w.dst_sel != kWriteDstTcL2)
    return error("DST_SEL " + std::to_string(w.dst_sel) + " is not implemented by the emulator");
  const uint64_t dst = w.address & ~3ull;  // DST_ADDR_LO [31:2]
  std::vector<HostSpan> spans;
  if (!range(dst, w.one_address ? 4 : uint64_t(w.count) * 4, true, "destination", &spans)) return Step::Failed;
  size_t piece = 0;
  uint64_t off = 0;  // dwords never straddle pieces: mappings are page aligned
  const bool l2 = w.dst_sel == kWriteDstTcL2;  // else the memory path, not the L2
  uint64_t va = dst;
  for (uint32_t i = 0; i < w.count; ++i) {
    tsan_release_gpu(va);
    cp_store<uint32_t>(cp_.d_, va, spans[piece].host + off, p[4 + i], l2);
    if (w.one_address) continue;
    va += 4;
    off += 4;
    if (off == spans[piece].len) { ++piece; off = 0; }
  }
  return Step::Done;
}

Step Pm4Executor::wait_reg_mem(const uint32_t* p) {
  const WaitRegMem w = decode_wait_reg_mem(p);
  if (w.mem_space != 1)
    return error("MEM_SPACE " + std::to_string(w.mem_space) + ": register polls are not implemented by the emulator");
  if (w.operation != 0)
    return error("OPERATION " + std::to_string(w.operation) + " (write and wait) is not implemented by the emulator");
  if (w.function > kCompareGreater) return error("FUNCTION 7 is reserved");
  const uint8_t* h = mem(w.address & ~3ull, 4, false, "poll address");  // POLL_ADDRESS_LO [31:2]
  if (!h) return Step::Failed;
  const uint32_t v = cp_load<uint32_t>(cp_.d_, w.address & ~3ull, h, false);  // MEM_SPACE memory
  if (!compare_holds(w.function, v & w.mask, w.reference)) return Step::Blocked;
  tsan_acquire_gpu(w.address & ~3ull);  // what the process released there (emu/tsan_sync.h)
  return Step::Done;
}

Step Pm4Executor::copy_data(const uint32_t* p) {
  const CopyData c = decode_copy_data(p);
  const unsigned bytes = c.count64 ? 8 : 4;
  if (c.dst_sel == kCopyDstRegister)
    return error("DST_SEL 0 (register): register writes are not implemented by the emulator");
  if (c.dst_sel != kCopyDstMemory && c.dst_sel != kCopyDstTcL2)
    return error("DST_SEL " + std::to_string(c.dst_sel) + " is not implemented by the emulator");
  uint64_t value = 0;
  switch (c.src_sel) {
    case kCopySrcMemory:
    case kCopySrcTcL2: {
      const uint64_t src = c.src & ~uint64_t(bytes - 1);
      const uint8_t* h = mem(src, bytes, false, "source");
      if (!h) return Step::Failed;
      const bool l2 = c.src_sel == kCopySrcTcL2;
      value = bytes == 8 ? cp_load<uint64_t>(cp_.d_, src, h, l2) : cp_load<uint32_t>(cp_.d_, src, h, l2);
      break;
    }
    case kCopySrcImmediate: value = c.count64 ? c.src : uint32_t(c.src); break;
    case kCopySrcGpuClock: value = cp_.p_.gpu_clock(); break;
    case kCopySrcRegister:
      return error("SRC_SEL 0 (register): register reads are not implemented by the emulator");
    default:
      return error("SRC_SEL " + std::to_string(c.src_sel) + " is not implemented by the emulator");
  }
  return store(c.dst & ~uint64_t(bytes - 1), value, bytes, "destination", c.dst_sel == kCopyDstTcL2) ? Step::Done
                                                                                                     : Step::Failed;
}

// Dispatches finish before the next packet starts, so a flush has nothing to wait for. These
// events flush the graphics caches (CB/DB) on gfx9, not the TC: no action on the L2 or L1s.
Step Pm4Executor::event_write(const uint32_t* p) {
  const EventWrite e = decode_event_write(p);
  const bool partial_flush = e.event_type == kEventCsPartialFlush && e.event_index == kEventIndexCsPartialFlush;
  const bool cache_flush = (e.event_type == kEventCacheFlush || e.event_type == kEventCacheFlushAndInv) &&
                           e.event_index == kEventIndexOther;
  if (!partial_flush && !cache_flush)
    return error("EVENT_TYPE " + hex(e.event_type) + " with EVENT_INDEX " + std::to_string(e.event_index) +
                 " is not implemented by the emulator (CS_PARTIAL_FLUSH, CACHE_FLUSH and " +
                 "CACHE_FLUSH_AND_INV_EVENT are)");
  if (tracing(cp_.d_)) trace(cp_.d_, where() + ": EVENT_TYPE " + hex(e.event_type) + ": no TC (L2/L1) action");
  return Step::Done;
}

Step Pm4Executor::release_mem(const uint32_t* p) {
  const ReleaseMem r = decode_release_mem(p);
  const bool ts_event = r.event_type == kEventCacheFlushAndInvTs || r.event_type == kEventBottomOfPipeTs ||
                        r.event_type == kEventCacheFlushTs;
  if (!ts_event || r.event_index != kEventIndexEndOfPipe)
    return error("EVENT_TYPE " + hex(r.event_type) + " with EVENT_INDEX " + std::to_string(r.event_index) +
                 " is not an end-of-pipe event the emulator implements");
  if (r.dst_sel > 1) return error("DST_SEL " + std::to_string(r.dst_sel) + " is not implemented by the emulator");
  if (r.int_sel > kIntDataAfterConfirmNoInt)
    return error("INT_SEL " + std::to_string(r.int_sel) + " (conditional interrupt) is not implemented by the emulator");
  if (r.data_sel > kDataSystemClock)
    return error("DATA_SEL " + std::to_string(r.data_sel) + " is not implemented by the emulator");
  // The end-of-pipe event's cache actions, then its data write (DST_SEL 0: the memory
  // controller, 1: through the L2).
  cp_cache_actions(cp_.d_, release_actions(f_, r.cache), where());
  const bool l2 = r.dst_sel == 1;
  bool ok = true;
  switch (r.data_sel) {
    case kDataNone: break;
    case kData32: ok = store(r.address & ~3ull, uint32_t(r.data), 4, "destination", l2); break;  // [31:2]
    case kData64: ok = store(r.address & ~7ull, r.data, 8, "destination", l2); break;            // [31:3]
    // One 100 MHz reference clock stands for both the GPU and the system counter.
    case kDataGpuClock:
    case kDataSystemClock: ok = store(r.address & ~7ull, cp_.p_.gpu_clock(), 8, "destination", l2); break;
  }
  if (!ok) return Step::Failed;
  // INT_SEL 1/2: an end-of-pipe interrupt with INT_CTXID, all 32 bits valid (kfd_int_process_v9.c).
  if (r.int_sel == kIntOnly || r.int_sel == kIntAfterWriteConfirm) cp_.p_.raise_signal_event(r.int_ctxid, 32);
  return Step::Done;
}

Step Pm4Executor::acquire_mem(const uint32_t* p, uint32_t n) {
  const uint32_t want = acquire_mem_dwords(f_.acquire_mem);
  if (n != want)
    return error("packet of " + std::to_string(n) + " dwords; " + f_.name + " takes the " +
                 std::to_string(want) + "-dword form");
  cp_cache_actions(cp_.d_, acquire_actions(f_, decode_acquire_mem(p, f_.acquire_mem)), where());
  return Step::Done;
}

Step Pm4Executor::atomic_mem(const uint32_t* p) {
  const AtomicMem a = decode_atomic_mem(p);
  const char* name = atomic_op_name(a.atomic);
  if (!name) return error("ATOMIC " + std::to_string(a.atomic) + " is not a TC atomic the emulator implements");
  const bool wide = a.atomic >= kAtomicSwapRtn64;
  const unsigned bytes = wide ? 8 : 4;
  const bool cmpswap = a.atomic == kAtomicCmpSwapRtn32 || a.atomic == kAtomicCmpSwapRtn64;
  if (a.command > kAtomicCommandLoopUntilCompare)
    return error("COMMAND " + std::to_string(a.command) + " is not implemented by the emulator");
  if (a.command == kAtomicCommandLoopUntilCompare && !cmpswap)
    return error(std::string("loop until compare with ") + name + ": only CMPSWAP compares");
  if (a.address % bytes) return error(std::string(name) + " at " + hex(a.address) + ": not naturally aligned");
  uint8_t* h = mem(a.address, bytes, true, "atomic address");
  if (!h) return Step::Failed;
  bool swapped = false;  // a TC atomic: performed in the L2 (RW/NC pages) or memory
  tsan_release_gpu(a.address);
  cp_atomic(cp_.d_, a.address, h, bytes, [&](uint8_t* at) { swapped = tc_atomic(at, a.atomic, a.src, a.cmp); });
  tsan_acquire_gpu(a.address);
  // Looping until the compare holds must not hold the CP: retry on the next turn.
  return (!swapped && a.command == kAtomicCommandLoopUntilCompare) ? Step::Blocked : Step::Done;
}

Step Pm4Executor::dma_data(const uint32_t* p) {
  const DmaData d = decode_dma_data(p);
  if (d.sas || d.das) return error("register address space (SAS/DAS) is not implemented by the emulator");
  if (d.saic || d.daic) return error("no-increment addressing (SAIC/DAIC) is not implemented by the emulator");
  if (d.dst_sel != kDmaSelAddress && d.dst_sel != kDmaSelAddressL2)
    return error("DST_SEL " + std::to_string(d.dst_sel) + " (GDS) is not implemented by the emulator");
  if (d.byte_count == 0) return error("BYTE_COUNT 0");
  std::vector<HostSpan> dst, src;
  const bool fill = d.src_sel == kDmaSelData;
  if (fill && (d.dst % 4 || d.byte_count % 4))
    return error("a fill needs a dword-aligned destination and byte count (" + hex(d.dst) + ", " +
                 std::to_string(d.byte_count) + " bytes)");
  if (!fill && d.src_sel != kDmaSelAddress && d.src_sel != kDmaSelAddressL2)
    return error("SRC_SEL " + std::to_string(d.src_sel) + " (GDS) is not implemented by the emulator");
  if (!range(d.dst, d.byte_count, true, "destination", &dst) ||
      (!fill && !range(d.src, d.byte_count, false, "source", &src)))
    return Step::Failed;
  // SEL 0 is the memory path; SEL 3 goes through the L2 (emu/memory_model.h).
  if (cp_.d_.l2 && (d.dst_sel == kDmaSelAddressL2 || (!fill && d.src_sel == kDmaSelAddressL2))) {
    dma_through_l2(d, fill);
    return Step::Done;
  }
  if (fill) dma_fill(dst, uint32_t(d.src), 4);
  else dma_copy(dst, src);
  return Step::Done;
}

// A DMA_DATA with an L2 side, in pieces that stay inside one page of each side (mappings are page
// aligned), ascending like the engine's copy.
void Pm4Executor::dma_through_l2(const DmaData& d, bool fill) {
  const bool src_l2 = d.src_sel == kDmaSelAddressL2, dst_l2 = d.dst_sel == kDmaSelAddressL2;
  uint8_t buf[4096];
  for (uint64_t done = 0; done < d.byte_count;) {
    const uint64_t s = d.src + done, t = d.dst + done;
    uint64_t n = std::min<uint64_t>(d.byte_count - done, 4096 - (t & 4095));
    if (!fill) n = std::min<uint64_t>(n, 4096 - (s & 4095));
    if (fill) {
      for (uint64_t i = 0; i < n; i += 4) std::memcpy(buf + i, &d.src, 4);
    } else {
      cp_read(cp_.d_, s, cp_.d_.translate(s, n, false), buf, unsigned(n), src_l2);
    }
    cp_write(cp_.d_, t, cp_.d_.translate(t, n, true), buf, unsigned(n), dst_l2);
    done += n;
  }
}

Step Pm4Executor::set_sh_reg(const uint32_t* p, uint32_t n) {
  if (n < 3) return error("no register value (packet of " + std::to_string(n) + " dwords)");
  const uint32_t off = p[1] & 0xFFFFu, count = n - 2;
  if (uint64_t(off) + count > s_.sh.size())
    return error("registers " + hex(reg::kShRegStart + off) + " .. " + hex(reg::kShRegStart + off + count - 1) +
                 " reach outside the SH register space [" + hex(reg::kShRegStart) + ", " + hex(reg::kShRegEnd) + ")");
  std::memcpy(&s_.sh[off], p + 2, count * sizeof(uint32_t));
  return Step::Done;
}

// UCONFIG writes change nothing the emulator models; only registers it can name are accepted.
Step Pm4Executor::set_uconfig_reg(const uint32_t* p, uint32_t n) {
  if (n < 3) return error("no register value (packet of " + std::to_string(n) + " dwords)");
  const uint32_t off = p[1] & 0xFFFFu, count = n - 2;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t r = uint64_t(reg::kUconfigRegStart) + off + i;
    if (r != reg::kGrbmGfxIndex)
      return error("register " + hex(r) + " is not one the emulator knows (it accepts GRBM_GFX_INDEX " +
                   hex(reg::kGrbmGfxIndex) + ")");
  }
  return Step::Done;
}

// The kernel the COMPUTE_* registers describe, as the SPI launches it (shader::RegisterDispatch).
// It runs to completion before the next packet (a later RELEASE_MEM finds it done).
Step Pm4Executor::dispatch_direct(const uint32_t* p) {
  namespace r = reg;
  const DispatchDirect dd = decode_dispatch_direct(p);
  if (!(dd.initiator & r::initiator::kComputeShaderEn))
    return error("DISPATCH_INITIATOR " + hex(dd.initiator) + " without COMPUTE_SHADER_EN");
  shader::RegisterDispatch rd;
  rd.gfx_target_version = cp_.d_.model->target->gfx_target_version;
  rd.code = r::pgm_address(s_.sh_reg(r::kComputePgmLo), s_.sh_reg(r::kComputePgmHi));
  rd.rsrc1 = s_.sh_reg(r::kComputePgmRsrc1);
  rd.rsrc2 = s_.sh_reg(r::kComputePgmRsrc2);
  rd.rsrc3 = f_.compute_pgm_rsrc3_reg ? s_.sh_reg(f_.compute_pgm_rsrc3_reg) : 0;
  for (uint32_t i = 0; i < r::kComputeUserDataCount; ++i) rd.user_data[i] = s_.sh_reg(r::kComputeUserData0 + i);
  for (uint32_t i = 0; i < 3; ++i) {
    rd.num_thread[i] = r::num_thread_full(s_.sh_reg(r::kComputeNumThreadX + i));
    rd.start[i] = s_.sh_reg(r::kComputeStartX + i);
    rd.dim[i] = dd.dim[i];
  }
  rd.thread_dims = dd.initiator & r::initiator::kUseThreadDimensions;
  rd.wave32 = f_.major >= 10 && (dd.initiator & r::initiator::kCsW32En);
  rd.tmpring = s_.sh_reg(r::kComputeTmpringSize);
  rd.resource_limits = s_.sh_reg(r::kComputeResourceLimits);
  // COMPUTE_DISPATCH_SCRATCH_BASE_LO/HI hold the address >> 8 and >> 40 (kfdtest Dispatch.cpp).
  rd.scratch_base = uint64_t(s_.sh_reg(r::kComputeDispatchScratchBaseHi)) << 40 |
                    uint64_t(s_.sh_reg(r::kComputeDispatchScratchBaseLo)) << 8;
  rd.preempt = &q_.dead;
  // AMDKFD_IOC_ALLOC_QUEUE_GWS gives any compute queue the GWS (MAP_QUEUES gws_control_queue).
  rd.gws = cp_.d_.gws_queue.load(std::memory_order_acquire) == &q_;
  const std::shared_ptr<const std::vector<uint32_t>> cus = queue_cus(q_);  // (SET_CU_MASK)
  rd.cus = cus ? cus.get() : &cp_.d_.model->all_cus;
  const DispatchResult res = run_register_dispatch(cp_.p_, cp_.d_, rd);
  if (res.preempted) return Step::Blocked;  // the queue is being destroyed
  stats::bump(stats::counters().pm4_dispatches);
  if (res.memory_fault) {
    cp_.fault(q_, where() + ": " + res.message, res.fault_va, res.fault_write);
    return Step::Failed;
  }
  if (res.error && q_.type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) {  // an AQL queue's PM4 IB: its bits
    cp_.fail(q_, res.error, where() + ": " + res.message);
    return Step::Failed;
  }
  if (res.error) return error(res.message);
  return Step::Done;
}

}  // namespace emu
