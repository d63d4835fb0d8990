// SPDX-License-Identifier: MIT
// The memory counters: a memory instruction's results reach its registers only once an s_waitcnt
// proves it returned, as on the hardware.
//
// AMD Vega ISA (and the MI100/MI200/MI300 ISA guides, which keep it), "Data Dependency
// Resolution" and S_WAITCNT: a wave issues a memory instruction and goes on; the instruction
// counts in VM_CNT (vector memory: buffer, image, global, scratch, flat) or LGKM_CNT (LDS, GDS,
// scalar memory, messages), FLAT in both; its data lands in the registers some time later.
// Instructions of one kind return in issue order: buffer/global/scratch/image ones among
// themselves, LDS ones, GDS/GWS ones, messages; kinds sharing a counter return in any order with
// each other, scalar memory in any order at all, and FLAT (whose data may come from LDS or
// memory) so that only a count of 0 is meaningful after it (ISA "FLAT Memory Instructions"; LLVM
// SIInsertWaitcnts waits with 0 when a FLAT instruction or mixed kinds are pending). A program
// that reads a result before an s_waitcnt whose count proves its return reads whatever the
// register held before (or the result, if the memory was quick that time): LLVM inserts the
// waits, hand-written code must. Executing a load at issue and writing the registers at once
// hid every missing wait; here the results are held back and written when the wait proves them
// returned, so such a program computes with the old values on the emulator as it may on a GPU,
// every time.
//
// What is modelled: the counts (VM_CNT 6 bits, LGKM_CNT 4 bits on gfx9), the kinds above, and
// results withheld per register and lane (the lanes whose value the instruction changed). Two
// loads of one kind into one register with no wait between them land in issue order (LLVM emits
// that), whichever is held back. A result is written at once when a look-ahead over the next
// instructions finds the wait that proves it before any instruction that may touch its registers
// (proved_before_use) and no older instruction holds results for them: nothing can then tell
// the difference, and compiled code pays only that look-ahead, once per instruction. The
// emulator's own rules: a counter never holds more than it can count (at 63 / 15 outstanding the
// oldest in-order instruction is taken as returned; the ISA documents no overflow, LLVM never
// relies on it), and scalar memory beyond 15 results held back the same. Left lenient: a FLAT
// instruction's results are delivered by vmcnt(0) even when a lane reached LDS (the hardware then
// also needs lgkmcnt(0)); a lane the load left at the value it had is not written at the wait;
// EXP_CNT is not modelled (compute kernels export nothing). Stores and atomics without return
// count but hold nothing back.
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

// The kind of an in-order LGKM_CNT instruction: messages (SOPP), GDS/GWS, LDS.
unsigned lgkm_kind(uint8_t counters, Enc e) {
  return e == Enc::SOPP ? Returns::kMsg : (counters & kCntGds) ? Returns::kGds : Returns::kLds;
}

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

// Row i of a result starting at `base`: VGPR and AGPR numbers wrap within their own file.
unsigned vrow_index(uint16_t base, unsigned i) { return (base & 256) | ((base + i) & 255); }
uint32_t* vgpr_row(Wave& w, uint16_t base, unsigned i) { return w.v[vrow_index(base, i)]; }

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
  // The newer instructions that return in order with this one (same counter, same kind).
  const unsigned kind = lgkm_kind(in.counters, in.enc);
  const bool any_order = in.counters & kCntAnyOrder;
  unsigned newer_same = 0;
  for (unsigned k = 0; k < kLookahead; ++k) {
    if ((pc & ~uint64_t{4095}) != p->base) return kProofNo;  // the rest is on another page
    const unsigned slot = (pc & 4095) >> 2;
    if (!p->ready[slot].load(std::memory_order_acquire)) return 0;
    const Inst& next = p->inst[slot];
    if (next.counters & kCntWait) {
      // vmcnt(N) / lgkmcnt(N) prove an in-order instruction with at least N newer ones of its
      // kind, an out-of-order one (FLAT, scalar memory) only with N = 0.
      const uint32_t simm16 = static_cast<uint32_t>(next.offset) & 0xFFFF;
      const uint32_t count = (in.counters & kCntVm) ? (simm16 & 15) | ((simm16 >> 14) & 3) << 4 : (simm16 >> 8) & 15;
      if (any_order ? count == 0 : newer_same >= count) return kProofYes;
    } else if (next.enc == Enc::SOPP) {
      if (next.op != 0) return kProofNo;  // only s_nop (SOPP opcode 0) goes on in line
    } else if (touches(next, d)) {
      return kProofNo;
    } else if (!any_order && !(next.counters & kCntAnyOrder)) {
      if ((in.counters & kCntVm) ? (next.counters & kCntVm) != 0
                                 : (next.counters & kCntLgkm) && lgkm_kind(next.counters, next.enc) == kind)
        ++newer_same;
    }
    pc += next.size;
  }
  return kProofNo;
}

// A free slot of `pool` (one of its freed ones, or a new one).
template <class T>
uint16_t take(std::vector<T>& pool, std::vector<uint16_t>& free) {
  if (free.empty()) {
    pool.emplace_back();
    return static_cast<uint16_t>(pool.size() - 1);
  }
  const uint16_t i = free.back();
  free.pop_back();
  return i;
}
uint16_t take_op(Returns& r) { return take(r.ops, r.free_ops); }
uint16_t take_row(Returns& r) { return take(r.rows, r.free_rows); }

// Writes what op `idx` holds back to the wave's registers (the lanes and SGPRs it wrote).
void apply(Wave& w, const Returns& r, uint16_t idx) {
  const PendingOp& op = r.ops[idx];
  if (op.sgpr) {
    for (unsigned i = 0; i < op.n; ++i)
      if ((op.s.written >> i) & 1) w.s[op.base + i] = op.s.value[i];
    return;
  }
  for (unsigned i = 0; i < op.n; ++i) {
    const auto& src = r.rows[op.v.slot[i]];
    uint32_t* dst = vgpr_row(w, op.base, i);
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
}

// Frees held-back results; with `w`, writes them to their registers first.
void release(Wave* w, Returns& r, uint16_t idx) {
  if (idx == Returns::kNone) return;
  if (w) apply(*w, r, idx);
  PendingOp& op = r.ops[idx];
  for (unsigned i = 0; i < op.n; ++i) {
    if (op.sgpr) {
      --r.sheld[op.base + i];
    } else {
      --r.vheld[vrow_index(op.base, i)];
      r.free_rows.push_back(op.v.slot[i]);
    }
  }
  r.free_ops.push_back(idx);
}

void pop_to(Wave& w, Returns& r, PendingRing& q, uint32_t keep) {
  while (q.count > keep) {
    release(&w, r, q.front());
    q.pop();
  }
}

void release_all(Wave& w, Returns& r, std::vector<uint16_t>& v) {
  for (uint16_t i : v) release(&w, r, i);
  v.clear();
}

// vmcnt(keep): at most `keep` instructions outstanding. Buffer, global, scratch and image ones
// return in issue order, so all but their `keep` newest completed; FLAT ones in any order
// (their data may come from LDS or memory: ISA "FLAT Memory Instructions", LLVM waits with 0
// after them), proved only at 0.
void wait_vm(Wave& w, Returns& r, uint32_t keep) {
  pop_to(w, r, r.vm, keep);
  if (keep == 0) release_all(w, r, r.vm_any);
  r.vm_any_count = std::min(r.vm_any_count, keep);
}

// lgkmcnt(keep): LDS, GDS/GWS and messages each return in order but not with each other, scalar
// memory (and FLAT) in any order (ISA "Data Dependency Resolution"). An in-order one with k newer
// ones of its kind outstanding is proved once keep <= k (it and they would exceed the count);
// an out-of-order one only at 0.
void wait_lgkm(Wave& w, Returns& r, uint32_t keep) {
  for (PendingRing& q : r.lgkm) pop_to(w, r, q, keep);
  if (keep == 0) release_all(w, r, r.lgkm_any);
  r.lgkm_any_count = std::min(r.lgkm_any_count, keep);
}

// Writes into the registers of `d` what older held-back instructions will write there, in issue
// order: the value a newer instruction's results are compared with (two loads into one register
// of one kind land in order, with no wait between them: LLVM SIInsertWaitcnts).
void apply_older(Wave& w, const Returns& r, const Dest& d) {
  auto hits = [&](uint16_t idx) {
    if (idx == Returns::kNone) return false;
    const PendingOp& op = r.ops[idx];
    if (op.sgpr != d.sgpr) return false;
    for (unsigned i = 0; i < op.n; ++i)
      for (unsigned k = 0; k < d.n; ++k)
        if (d.sgpr ? op.base + i == d.base + k : vrow_index(op.base, i) == vrow_index(d.base, k)) return true;
    return false;
  };
  auto ring = [&](const PendingRing& q) {
    for (uint32_t j = 0; j < q.count; ++j) {
      const uint16_t idx = q.q[(q.head + j) % q.q.size()];
      if (hits(idx)) apply(w, r, idx);
    }
  };
  ring(r.vm);
  for (uint16_t idx : r.vm_any) if (hits(idx)) apply(w, r, idx);
  for (const PendingRing& q : r.lgkm) ring(q);
  for (uint16_t idx : r.lgkm_any) if (hits(idx)) apply(w, r, idx);
}

}  // namespace

void count_memory(Inst& in) {
  const std::string_view n = in.name;
  // What proved_before_use cannot see through: matrix instructions (operands of up to 16
  // registers), SGPRs addressed through M0 or the PC, calls and other control flow.
  const bool valu = in.enc == Enc::VOP1 || in.enc == Enc::VOP2 || in.enc == Enc::VOPC || in.enc == Enc::VOP3 ||
                    in.enc == Enc::VOP3P;
  const bool salu = in.enc == Enc::SOP1 || in.enc == Enc::SOP2 || in.enc == Enc::SOPK || in.enc == Enc::SOPC;
  if ((valu && (has(n, "mfma") || has(n, "qsad"))) ||
      (salu && (has(n, "movrel") || has(n, "pc") || has(n, "call") || has(n, "fork") || has(n, "join") ||
                has(n, "rfe") || has(n, "gpr_idx") || has(n, "cbranch"))))
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
    case Enc::DS:  // LDS, or GDS/GWS (the gds bit, 16; ds_gws_*): LGKM_CNT kinds of their own
      c = kCntLgkm | (((in.raw[0] >> 16) & 1) || n.starts_with("ds_gws") ? kCntGds : 0);
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
  const bool any_order = c & kCntAnyOrder;
  // A full counter: issue waits until the oldest in-order instructions returned (the counter
  // cannot count more; the emulator's rule, which no correct program can tell).
  if ((c & kCntVm) && r.vm.count + r.vm_any_count >= kMaxVm) {
    pop_to(w, r, r.vm, kMaxVm - 1);
    r.vm_any_count = std::min(r.vm_any_count, kMaxVm - 1);
  }
  if ((c & kCntLgkm) && !(c & kCntVm)) {
    uint32_t total = r.lgkm_any_count;
    for (const PendingRing& q : r.lgkm) total += q.count;
    if (total >= kMaxLgkm) {
      for (PendingRing& q : r.lgkm) pop_to(w, r, q, kMaxLgkm - 1);
      r.lgkm_any_count = std::min(r.lgkm_any_count, kMaxLgkm - 1);
    }
  }
  uint16_t held = Returns::kNone;
  const unsigned n = in.ret_count;
  const Dest d{(c & kCntSgpr) != 0, in.ret_base, n};
  bool older = false;  // an older instruction still holds results for one of these registers
  for (unsigned i = 0; i < n && !older; ++i) older = d.sgpr ? r.sheld[d.base + i] != 0 : r.vheld[vrow_index(d.base, i)] != 0;
  bool proved = false;
  if (n && !older && !w.gpr_idx) {  // (under GPR indexing VALU operands move: no look-ahead)
    std::atomic_ref<uint8_t> cached(const_cast<uint8_t&>(in.proof));
    uint8_t p = cached.load(std::memory_order_relaxed);
    if (!p && (p = proved_before_use(w, in, d))) cached.store(p, std::memory_order_relaxed);
    proved = p == kProofYes;
  }
  if (n == 0 || proved) {
    in.mem(w, in);
  } else if (d.sgpr) {
    uint32_t now[16], before[16];
    std::memcpy(now, &w.s[d.base], n * 4);
    if (older) apply_older(w, r, d);
    std::memcpy(before, &w.s[d.base], n * 4);
    in.mem(w, in);
    uint16_t written = 0;
    for (unsigned i = 0; i < n; ++i)
      if (w.s[d.base + i] != before[i]) written = static_cast<uint16_t>(written | (1u << i));
    if (written) {
      held = take_op(r);
      PendingOp& op = r.ops[held];
      op.sgpr = true;
      op.n = static_cast<uint8_t>(n);
      op.base = d.base;
      op.s.written = written;
      std::memcpy(op.s.value, &w.s[d.base], n * 4);
      for (unsigned i = 0; i < n; ++i) ++r.sheld[d.base + i];
    }
    std::memcpy(&w.s[d.base], now, n * 4);
  } else {
    // The rows as they will be when older results landed go to result slots; after the
    // instruction the two swap: the slots hold its results, the lanes it changed marked.
    uint32_t now[PendingOp::kMaxRows][64];
    if (older) {
      for (unsigned i = 0; i < n; ++i) copy_row(now[i], vgpr_row(w, d.base, i));
      apply_older(w, r, d);
    }
    held = take_op(r);
    PendingOp& op = r.ops[held];
    op.sgpr = false;
    op.n = static_cast<uint8_t>(n);
    op.base = d.base;
    for (unsigned i = 0; i < n; ++i) {
      op.v.slot[i] = take_row(r);
      copy_row(r.rows[op.v.slot[i]].data(), vgpr_row(w, d.base, i));
    }
    in.mem(w, in);
    uint64_t any = 0;
    for (unsigned i = 0; i < n; ++i) {
      PendingOp& o = r.ops[held];
      any |= o.v.lanes[i] = swap_rows(vgpr_row(w, d.base, i), r.rows[o.v.slot[i]].data());
    }
    if (older)
      for (unsigned i = 0; i < n; ++i) copy_row(vgpr_row(w, d.base, i), now[i]);
    if (any) {
      for (unsigned i = 0; i < n; ++i) ++r.vheld[vrow_index(d.base, i)];
    } else {  // nothing written (no lane active): nothing to hold back
      PendingOp& o = r.ops[held];
      for (unsigned i = 0; i < n; ++i) r.free_rows.push_back(o.v.slot[i]);
      r.free_ops.push_back(held);
      held = Returns::kNone;
    }
  }
  if (w.state == WaveState::Fault) {  // it never completes: nothing to hold back
    release(&w, r, held);
    return;
  }
  if (c & kCntVm) {
    if (any_order) {  // FLAT: in any order in both counters
      ++r.vm_any_count;
      ++r.lgkm_any_count;
      if (held != Returns::kNone) r.vm_any.push_back(held);
      if (r.vm_any.size() > kMaxVm) {  // never more outstanding than the counter holds
        release(&w, r, r.vm_any.front());
        r.vm_any.erase(r.vm_any.begin());
      }
    } else {
      r.vm.push(held);
    }
  } else if (any_order) {  // scalar memory
    ++r.lgkm_any_count;
    if (held != Returns::kNone) r.lgkm_any.push_back(held);
    if (r.lgkm_any.size() > kMaxLgkm) {
      release(&w, r, r.lgkm_any.front());
      r.lgkm_any.erase(r.lgkm_any.begin());
    }
  } else {
    r.lgkm[lgkm_kind(c, in.enc)].push(held);
  }
}

void wait_counters(Wave& w, uint32_t simm16) {
  if (!w.returns) return;
  Returns& r = *w.returns;
  wait_vm(w, r, (simm16 & 15) | ((simm16 >> 14) & 3) << 4);
  wait_lgkm(w, r, (simm16 >> 8) & 15);
}

void clear_returns(Wave& w) {
  if (!w.returns) return;
  Returns& r = *w.returns;
  auto drop = [&](PendingRing& q) {
    for (; q.count; q.pop()) release(nullptr, r, q.front());
    q.head = 0;
  };
  drop(r.vm);
  for (PendingRing& q : r.lgkm) drop(q);
  for (uint16_t i : r.vm_any) release(nullptr, r, i);
  for (uint16_t i : r.lgkm_any) release(nullptr, r, i);
  r.vm_any.clear();
  r.lgkm_any.clear();
  r.vm_any_count = r.lgkm_any_count = 0;
}

}  // namespace emu::shader
