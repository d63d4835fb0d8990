// SPDX-License-Identifier: MIT
// The memory counters: a memory instruction's results reach its registers only once an s_waitcnt
// proves it returned, as on the hardware.
//
// AMD Vega ISA (and the MI100/MI200/MI300 ISA guides, which keep it), "Data Dependency
// Resolution" and S_WAITCNT: a wave issues a memory instruction and goes on; the instruction
// counts in VM_CNT (vector memory: buffer, image, global, scratch, flat) or LGKM_CNT (LDS, GDS,
// scalar memory, messages), FLAT in both; its data lands in the registers some time later.
// Vector memory returns in issue order, and so do LDS and GDS; scalar memory returns out of order.
// A program that reads a result before an s_waitcnt whose count proves its return reads whatever
// the register held before (or the result, if the memory was quick that time): LLVM inserts the
// waits (SIInsertWaitcnts), hand-written code must. Executing a load at issue and writing the
// registers at once hid every missing wait; here the results are held back and written when
// the wait proves them returned, so such a program computes with the old values on the emulator
// as it may on a GPU, every time.
//
// What is modelled: the counts (VM_CNT 6 bits, LGKM_CNT 4 bits on gfx9: issue stalls while a
// counter is full, so the oldest in-order instruction then completes), in-order return within
// VM_CNT and among LDS/GDS/message instructions, out-of-order return of scalar memory (its
// results are proved only by lgkmcnt(0); beyond the 15 the counter holds the oldest is taken as
// returned), and results withheld per register and lane (the lanes whose value the instruction
// changed). A result is written at once when a look-ahead over the next instructions finds the
// wait that proves it before any instruction that may touch its registers (proved_before_use):
// nothing can then tell the difference, and compiled code pays only that look-ahead, once per
// instruction. Left lenient: a FLAT instruction's results are delivered by its VM_CNT wait even
// when a lane reached LDS (the hardware then also needs LGKM_CNT); a lane the load left at the
// value it had is not written at the wait (an intervening write to it stays); EXP_CNT is not
// modelled (compute kernels export nothing). Stores and atomics without return count but hold
// nothing back.
#include <algorithm>
#include <atomic>
#include <bit>
#include <string_view>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "emu/shader/wave.h"

namespace emu::shader {
namespace {

constexpr uint32_t kMaxVm = 63;    // gfx9 VM_CNT: 6 bits (simm16 [3:0] and [15:14])
constexpr uint32_t kMaxLgkm = 15;  // gfx9 LGKM_CNT: 4 bits (simm16 [11:8])

bool has(std::string_view n, std::string_view part) { return n.find(part) != n.npos; }

// Dwords a vector memory load (or atomic with return) writes, from its mnemonic.
unsigned vector_dwords(std::string_view n) {
  if (has(n, "atomic")) return has(n, "_x2") || has(n, "f64") ? 2 : 1;
  if (has(n, "format")) {  // format_x .. format_xyzw; d16 packs two components per dword
    const unsigned comps = has(n, "xyzw") ? 4 : has(n, "xyz") ? 3 : has(n, "xy") ? 2 : 1;
    return has(n, "d16") ? (comps + 1) / 2 : comps;
  }
  if (has(n, "dwordx4")) return 4;
  if (has(n, "dwordx3")) return 3;
  if (has(n, "dwordx2")) return 2;
  return 1;  // dword, (s|u)byte, (s|u)short, their d16 forms
}

// Dwords an LDS/GDS instruction returns to its VGPRs (0: none), from its mnemonic.
unsigned ds_dwords(std::string_view n) {
  const bool reads = n.starts_with("ds_read") || has(n, "_rtn_") || n == "ds_swizzle_b32" ||
                     n == "ds_permute_b32" || n == "ds_bpermute_b32" || n == "ds_append" ||
                     n == "ds_consume" || n == "ds_ordered_count";
  if (!reads) return 0;
  const bool wide = has(n, "b64") || has(n, "u64") || has(n, "i64") || has(n, "f64");
  if (has(n, "read2") || has(n, "xchg2")) return wide ? 4 : 2;
  if (has(n, "b128")) return 4;
  if (has(n, "b96")) return 3;
  return wide ? 2 : 1;
}

// SGPRs a scalar memory instruction writes (0: none).
unsigned smem_dwords(std::string_view n, bool glc) {
  if (n == "s_memtime" || n == "s_memrealtime") return 2;
  const bool atomic = has(n, "atomic");
  if (atomic && !glc) return 0;  // returns the old value only with GLC
  if (atomic) return has(n, "_x2") ? 2 : 1;
  if (!has(n, "load")) return 0;  // stores, cache and probe operations
  if (has(n, "dwordx16")) return 16;
  if (has(n, "dwordx8")) return 8;
  if (has(n, "dwordx4")) return 4;
  if (has(n, "dwordx2")) return 2;
  return 1;
}

// Whether a vector memory instruction returns data: loads, and atomics with GLC (sc0 on gfx942).
bool vector_returns(std::string_view n, const Inst& in) {
  if (has(n, "atomic")) return in.flags & kGlc;
  return has(n, "load") || n.starts_with("image_sample") || n.starts_with("image_gather") ||
         n.starts_with("image_get");
}

uint16_t vector_row(const Inst& in, unsigned reg) { return static_cast<uint16_t>(((in.flags & kAcc) ? 256 : 0) + (reg & 255)); }

uint32_t* vgpr_row(Wave& w, uint16_t base, unsigned i) { return w.v[(base & 256) | ((base + i) & 255)]; }

Returns& returns_of(Wave& w) {
  if (!w.returns) w.returns = std::make_unique<Returns>();
  return *w.returns;
}

// Swaps rows a and b (64 lanes); returns the lanes where they differed.
uint64_t swap_rows(uint32_t* a, uint32_t* b) {
  uint64_t m = 0;
#if defined(__AVX2__)
  for (unsigned l = 0; l < 64; l += 8) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + l));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + l));
    const unsigned eq = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, y))));
    m |= uint64_t{~eq & 0xFFu} << l;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + l), y);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + l), x);
  }
#else
  for (unsigned l = 0; l < 64; ++l) {
    m |= uint64_t{a[l] != b[l]} << l;
    std::swap(a[l], b[l]);
  }
#endif
  return m;
}

void copy_row(uint32_t* dst, const uint32_t* src) {
#if defined(__AVX2__)
  for (unsigned l = 0; l < 64; l += 8)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + l), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + l)));
#else
  std::memcpy(dst, src, 256);
#endif
}

enum : uint8_t { kProofYes = 1, kProofNo = 2 };

// The registers an instruction's results go to: rows of the VGPR/AGPR file or SGPR codes.
struct Dest {
  bool sgpr;
  uint16_t base;
  unsigned n;
};

// Whether instruction `i` may read or write a register of `d`, over-approximated: a VALU
// operand taken as 2 registers wide, a memory instruction's as up to 4 (and a VGPR and an AGPR
// of one index as the same); what is not known (image instructions, matrix instructions, SGPRs
// addressed through M0) as yes.
bool touches(const Inst& i, const Dest& d) {
  if (i.counters & kCntOpaque) return true;
  auto v = [&](unsigned reg, unsigned width) {  // VGPR/AGPR index reg .. reg + width - 1
    if (d.sgpr) return false;
    for (unsigned k = 0; k < d.n; ++k)
      if (((d.base + k - reg) & 255) < width) return true;
    return false;
  };
  auto s = [&](unsigned code, unsigned width) {  // SGPR code .. code + width - 1
    return d.sgpr && code < 128 && code < d.base + d.n && d.base < code + width;
  };
  switch (i.enc) {
    case Enc::VOP1: case Enc::VOP2: case Enc::VOPC: case Enc::VOP3: case Enc::VOP3P:
      // Operands of at most 2 registers (64-bit and packed ones; wider ones are opaque). The
      // short VOPC form has no third source and no VGPR destination (its src[2] and dst are 0).
      for (unsigned k = 0; k < (i.enc == Enc::VOPC ? 2u : 3u); ++k) {
        if (i.src[k] >= 256 && v(i.src[k] & 255, 2)) return true;
        if (i.src[k] < 128 && s(i.src[k], 2)) return true;
      }
      if (i.counters & kCntSgprDst) return s(i.dst, 2) || s(i.sdst, 2);
      return (i.enc != Enc::VOPC && v(i.dst & 255, 2)) || s(i.sdst, 2);
    case Enc::SOP1: case Enc::SOP2: case Enc::SOPK: case Enc::SOPC:
      return s(i.src[0], 2) || s(i.src[1], 2) || s(i.dst, 2);
    case Enc::SMEM:
      return s(i.src[0], 4) || ((i.flags & kSoe) && s(i.src[1], 1)) || s(i.dst, 16);
    case Enc::DS:
      return v(i.vaddr, 1) || v(i.vdata, 4) || v(i.src[1] & 255, 4) || v(i.dst, 4);
    case Enc::FLAT:
      return v(i.vaddr, 2) || v(i.vdata, 4) || v(i.dst, 4) || (i.saddr != 0x7F && s(i.saddr, 2));
    case Enc::MUBUF: case Enc::MTBUF:
      return v(i.vaddr, 2) || v(i.vdata, 4) || s(i.srsrc, 4) || s(i.src[1], 1);
    default:
      return true;  // image instructions (address and data sizes vary), invalid ones
  }
}

// Whether the wait that proves this instruction (at w.pc - its size) returned comes before any
// instruction that may touch its result registers, within the next few instructions of its
// code page (decoded already; no branch, barrier or other control between). Its results may then
// go to the registers at once: nothing can tell the difference. A correct program always
// qualifies (LLVM's SIInsertWaitcnts waits before every use of a result, and before writing the
// register again), so results are held back only when something might read or overwrite them early.
// kProofYes or kProofNo, or 0 when an instruction it needs is not decoded yet (not cached then).
uint8_t proved_before_use(const Wave& w, const Inst& in, const Dest& d) {
  constexpr unsigned kLookahead = 16;
  const CodePage* p = w.page;
  uint64_t pc = w.pc;
  if (!p) return 0;
  if (d.sgpr && d.base + d.n > 102) return kProofNo;  // VCC, EXEC, M0, trap registers: implicit operands
  unsigned newer_vm = 0, newer_in_order = 0;
  for (unsigned k = 0; k < kLookahead; ++k) {
    if ((pc & ~uint64_t{4095}) != p->base) return kProofNo;  // the rest is on another page
    const unsigned slot = (pc & 4095) >> 2;
    if (!p->ready[slot].load(std::memory_order_acquire)) return 0;
    const Inst& next = p->inst[slot];
    if (next.counters & kCntWait) {
      // vmcnt(N) leaves the N newest outstanding (they return in order); lgkmcnt(N) proves an
      // in-order one with N newer in-order ones, an out-of-order one only at 0.
      const uint32_t simm16 = static_cast<uint32_t>(next.offset) & 0xFFFF;
      const uint32_t vm = (simm16 & 15) | ((simm16 >> 14) & 3) << 4, lgkm = (simm16 >> 8) & 15;
      if (in.counters & kCntVm) {
        if (newer_vm >= vm) return kProofYes;
      } else if (in.counters & kCntAnyOrder) {
        if (lgkm == 0) return kProofYes;
      } else if (newer_in_order >= lgkm) {
        return kProofYes;
      }
    } else if (next.enc == Enc::SOPP) {
      if (next.op != 0) return kProofNo;  // only s_nop (SOPP opcode 0) goes on in line
    } else if (touches(next, d)) {
      return kProofNo;
    } else {
      if (next.counters & kCntVm) ++newer_vm;
      if ((next.counters & kCntLgkm) && !(next.counters & kCntAnyOrder)) ++newer_in_order;
    }
    pc += next.size;
  }
  return kProofNo;
}

uint16_t take_op(Returns& r) {
  if (!r.free_ops.empty()) {
    const uint16_t i = r.free_ops.back();
    r.free_ops.pop_back();
    return i;
  }
  r.ops.emplace_back();
  return static_cast<uint16_t>(r.ops.size() - 1);
}

uint16_t take_row(Returns& r) {
  if (!r.free_rows.empty()) {
    const uint16_t i = r.free_rows.back();
    r.free_rows.pop_back();
    return i;
  }
  r.rows.emplace_back();
  return static_cast<uint16_t>(r.rows.size() - 1);
}

// Frees held-back results; with `w`, writes them to their registers first.
void release(Wave* w, Returns& r, uint16_t idx) {
  if (idx == Returns::kNone) return;
  PendingOp& op = r.ops[idx];
  if (op.sgpr) {
    if (w)
      for (unsigned i = 0; i < op.n; ++i)
        if ((op.s.written >> i) & 1) w->s[op.base + i] = op.s.value[i];
  } else {
    for (unsigned i = 0; i < op.n; ++i) {
      const auto& src = r.rows[op.v.slot[i]];
      if (w) {
        uint32_t* dst = vgpr_row(*w, op.base, i);
        const uint64_t lanes = op.v.lanes[i];
        if (lanes == ~uint64_t{0}) {
          copy_row(dst, src.data());
        } else {
          for (uint64_t m = lanes; m; m &= m - 1) {
            const unsigned l = static_cast<unsigned>(std::countr_zero(m));
            dst[l] = src[l];
          }
        }
      }
      r.free_rows.push_back(op.v.slot[i]);
    }
  }
  r.free_ops.push_back(idx);
}

// vmcnt(keep): vector memory returns in issue order, so all but the `keep` newest completed.
void wait_vm(Wave& w, Returns& r, uint32_t keep) {
  while (r.vm_count > keep) {
    release(&w, r, r.vm[r.vm_head]);
    r.vm_head = (r.vm_head + 1) % r.vm.size();
    --r.vm_count;
  }
}

// lgkmcnt(keep): at least (in-order + out-of-order outstanding) - keep completed. LDS, GDS and
// messages return in order, scalar memory (and FLAT) in any: an in-order instruction with k
// older in-order ones is proved complete when that exceeds k plus every out-of-order one (those
// may be the ones that completed), i.e. when in-order outstanding - keep > k; an out-of-order
// one only when the count reaches 0.
void wait_lgkm(Wave& w, Returns& r, uint32_t keep) {
  while (r.lgkm_count > keep) {
    release(&w, r, r.lgkm[r.lgkm_head]);
    r.lgkm_head = (r.lgkm_head + 1) % r.lgkm.size();
    --r.lgkm_count;
  }
  if (keep == 0) {
    for (uint16_t i : r.any) release(&w, r, i);
    r.any.clear();
    r.lgkm_any = 0;
  }
}

}  // namespace

void count_memory(Inst& in) {
  const std::string_view n = in.name;
  // What proved_before_use cannot see through: matrix instructions (operands of up to 16
  // registers), SGPRs addressed through M0 or the PC, control flow.
  const bool valu = in.enc == Enc::VOP1 || in.enc == Enc::VOP2 || in.enc == Enc::VOPC || in.enc == Enc::VOP3 ||
                    in.enc == Enc::VOP3P;
  const bool salu = in.enc == Enc::SOP1 || in.enc == Enc::SOP2 || in.enc == Enc::SOPK || in.enc == Enc::SOPC;
  if ((valu && (n.starts_with("v_mfma") || has(n, "qsad"))) ||
      (salu && (has(n, "movrel") || has(n, "pc") || has(n, "fork") || has(n, "join") || has(n, "rfe") ||
                has(n, "gpr_idx") || has(n, "cbranch"))))
    in.counters |= kCntOpaque;
  if (valu && (has(n, "readlane") || has(n, "readfirstlane") || (in.enc == Enc::VOP3 && n.starts_with("v_cmp"))))
    in.counters |= kCntSgprDst;
  uint8_t c = 0;
  unsigned dwords = 0;
  uint16_t base = 0;
  switch (in.enc) {
    case Enc::SMEM:
      c = kCntLgkm | kCntAnyOrder | kCntSgpr;
      dwords = smem_dwords(n, in.flags & kGlc);
      base = in.dst;
      if (base + dwords > 128) dwords = base < 128 ? 128 - base : 0;
      break;
    case Enc::DS:
      c = kCntLgkm;
      dwords = ds_dwords(n);
      base = vector_row(in, in.dst);
      break;
    case Enc::FLAT:
      c = in.seg == kSegFlat ? kCntVm | kCntLgkm | kCntAnyOrder : kCntVm;
      dwords = vector_returns(n, in) ? vector_dwords(n) : 0;
      base = vector_row(in, in.dst);
      break;
    case Enc::MUBUF: case Enc::MTBUF:
      c = kCntVm;
      dwords = vector_returns(n, in) ? vector_dwords(n) : 0;
      base = vector_row(in, in.vdata);
      break;
    case Enc::SOPP:
      if (n == "s_waitcnt") {  // keeps its handler; marked for proved_before_use
        in.counters |= kCntWait;
        return;
      }
      if (n != "s_sendmsg" && n != "s_sendmsghalt") return;
      c = kCntLgkm;  // messages count in LGKM_CNT and return in order
      break;
    default:
      if (n.starts_with("image_")) {  // MIMG: one dword per DMASK component, and one for TFE/LWE
        c = kCntVm;
        if (vector_returns(n, in)) {
          const unsigned dmask = (in.raw[0] >> 8) & 15;
          const unsigned comps = n.starts_with("image_gather") ? 4 : std::max(1, std::popcount(dmask));
          const bool d16 = (in.raw[1] >> 31) & 1;
          dwords = (d16 ? (comps + 1) / 2 : comps) + (((in.raw[0] >> 16) & 1) && !(in.flags & kAcc) ? 1 : 0) +
                   ((in.raw[0] >> 17) & 1);
          dwords = std::min<unsigned>(dwords, PendingOp::kMaxRows);
        }
        base = vector_row(in, in.vdata);
        break;
      }
      return;
  }
  in.counters |= c;
  in.ret_count = static_cast<uint8_t>(dwords);
  in.ret_base = base;
  in.mem = in.exec;
  in.exec = exec_counted;
}

void exec_counted(Wave& w, const Inst& in) {
  Returns& r = returns_of(w);
  const uint8_t c = in.counters;
  // Issue waits while a counter is full; the oldest in-order instruction then completes.
  if ((c & kCntVm) && r.vm_count >= kMaxVm) wait_vm(w, r, kMaxVm - 1);
  if ((c & kCntLgkm) && !(c & kCntAnyOrder) && r.lgkm_count + r.lgkm_any >= kMaxLgkm) wait_lgkm(w, r, kMaxLgkm - 1);
  uint16_t held = Returns::kNone;
  const unsigned n = in.ret_count;
  const uint16_t base = in.ret_base;
  bool proved = false;
  if (n && !w.gpr_idx) {  // (under GPR indexing VALU operands move: no look-ahead)
    std::atomic_ref<uint8_t> cached(const_cast<uint8_t&>(in.proof));
    uint8_t p = cached.load(std::memory_order_relaxed);
    if (!p && (p = proved_before_use(w, in, Dest{(c & kCntSgpr) != 0, base, n}))) cached.store(p, std::memory_order_relaxed);
    proved = p == kProofYes;
  }
  if (n == 0 || proved) {
    in.mem(w, in);
  } else if (c & kCntSgpr) {
    uint32_t before[16];
    std::memcpy(before, &w.s[base], n * 4);
    in.mem(w, in);
    uint16_t written = 0;
    for (unsigned i = 0; i < n; ++i)
      if (w.s[base + i] != before[i]) written = static_cast<uint16_t>(written | (1u << i));
    if (written) {
      held = take_op(r);
      PendingOp& op = r.ops[held];
      op.sgpr = true;
      op.n = static_cast<uint8_t>(n);
      op.base = base;
      op.s.written = written;
      std::memcpy(op.s.value, &w.s[base], n * 4);
      std::memcpy(&w.s[base], before, n * 4);
    }
  } else {
    // The rows as they were go to result slots; after the instruction the two swap: the
    // registers hold their old values again, the slots the results.
    held = take_op(r);
    PendingOp& op = r.ops[held];
    op.sgpr = false;
    op.n = static_cast<uint8_t>(n);
    op.base = base;
    for (unsigned i = 0; i < n; ++i) {
      op.v.slot[i] = take_row(r);
      copy_row(r.rows[op.v.slot[i]].data(), vgpr_row(w, base, i));
    }
    in.mem(w, in);
    uint64_t any = 0;
    for (unsigned i = 0; i < n; ++i) {
      PendingOp& o = r.ops[held];
      any |= o.v.lanes[i] = swap_rows(vgpr_row(w, base, i), r.rows[o.v.slot[i]].data());
    }
    if (!any) {  // nothing written (no lane active): nothing to hold back
      release(nullptr, r, held);
      held = Returns::kNone;
    }
  }
  if (w.state == WaveState::Fault) {  // it never completes: nothing to hold back
    release(&w, r, held);
    return;
  }
  if (c & kCntVm) {  // vector memory (FLAT's results too: see the top of the file)
    r.vm[(r.vm_head + r.vm_count) % r.vm.size()] = held;
    ++r.vm_count;
    if (c & kCntLgkm) ++r.lgkm_any;
  } else if (c & kCntAnyOrder) {  // scalar memory
    ++r.lgkm_any;
    if (held != Returns::kNone) {
      r.any.push_back(held);
      // Never more outstanding than the counter holds: beyond that the oldest has returned.
      if (r.any.size() > kMaxLgkm) {
        release(&w, r, r.any.front());
        r.any.erase(r.any.begin());
      }
    }
  } else {
    r.lgkm[(r.lgkm_head + r.lgkm_count) % r.lgkm.size()] = held;
    ++r.lgkm_count;
  }
}

void wait_counters(Wave& w, uint32_t simm16) {
  if (!w.returns) return;
  Returns& r = *w.returns;
  if (r.vm_count) wait_vm(w, r, (simm16 & 15) | ((simm16 >> 14) & 3) << 4);
  if (r.lgkm_count || r.lgkm_any) wait_lgkm(w, r, (simm16 >> 8) & 15);
}

void clear_returns(Wave& w) {
  if (!w.returns) return;
  Returns& r = *w.returns;
  for (; r.vm_count; --r.vm_count, r.vm_head = (r.vm_head + 1) % r.vm.size()) release(nullptr, r, r.vm[r.vm_head]);
  for (; r.lgkm_count; --r.lgkm_count, r.lgkm_head = (r.lgkm_head + 1) % r.lgkm.size())
    release(nullptr, r, r.lgkm[r.lgkm_head]);
  for (uint16_t i : r.any) release(nullptr, r, i);
  r.any.clear();
  r.lgkm_any = 0;
  r.vm_head = r.lgkm_head = 0;
}

}  // namespace emu::shader
