// SPDX-License-Identifier: MIT
// Internal state of the shader core: the pre-decoded instruction, the wave and its workgroup.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "emu/shader/shader.h"

namespace emu::shader {

struct Wave;
struct Inst;
struct L1;
using ExecFn = void (*)(Wave&, const Inst&);

enum class Enc : uint8_t {
  SOP2, SOPK, SOP1, SOPC, SOPP, SMEM, VOP2, VOP1, VOPC, VOP3, VOP3P, DS, FLAT, MUBUF, MTBUF,
  Invalid
};

// Inst::flags bits.
enum : uint16_t {
  kDpp = 1, kSdwa = 2, kLiteral = 4, kGlc = 8, kAcc = 16, kImm = 32, kOffen = 64,
  kIdxen = 128, kSdwaSgpr0 = 256, kSdwaSgpr1 = 512, kBoundCtrl = 1024, kVop3 = 2048,
  kSoe = 4096, kNoVcc = 8192,
  kSlc = 16384, kScc = 32768  // memory: slc (gfx942 nt), scc (gfx942 sc1); kGlc is glc (sc0)
};

// Flat segment field of FLAT/GLOBAL/SCRATCH.
enum : uint8_t { kSegFlat = 0, kSegScratch = 1, kSegGlobal = 2 };

// One decoded instruction: decoded once per code address, then executed through `exec`.
struct Inst {
  ExecFn exec = nullptr;
  ExecFn slow = nullptr;    // a handler specialised at decode (specialize): the general one
  const char* name = "";
  uint32_t raw[3] = {};     // the instruction's dwords (incl. literal / DPP / SDWA word)
  uint32_t literal = 0;
  int32_t offset = 0;       // SMEM / FLAT / MUBUF / DS offset0, SOPK/SOPP simm16 (sign-extended)
  uint16_t op = 0;          // opcode; VALU: the unified VOP3 opcode
  uint16_t src[3] = {};     // operand codes: 0..255 scalar/const, 256..511 VGPR, 512..767 AGPR
  uint16_t dst = 0;         // VALU: vector register row (AGPR = 256+); SALU/SMEM: sgpr code
  uint16_t sdst = 0;        // carry-out / compare destination sgpr code
  uint16_t flags = 0;
  uint16_t dpp_ctrl = 0;
  uint8_t size = 4;         // bytes
  Enc enc = Enc::Invalid;
  uint8_t abs = 0, neg = 0, opsel = 0, clamp = 0, omod = 0, neg_hi = 0, opsel_hi = 3;
  uint8_t row_mask = 15, bank_mask = 15;
  uint8_t offset1 = 0, seg = 0;
  // FLAT scratch: whether a lane's address adds its VGPR (vaddr). gfx9 before gfx940: when saddr
  // is off; gfx940 (SVE, bit 13): also with an SGPR base (SVS), and neither (ST mode, the offset
  // alone) when SVE is clear and saddr off.
  uint8_t scratch_vaddr = 0;
  uint8_t sdwa_dst_sel = 6, sdwa_dst_unused = 0, sdwa_src_sel[2] = {6, 6}, sdwa_sext = 0;
  uint8_t vaddr = 0, vdata = 0, srsrc = 0, saddr = 0;
  // VALU: bit i set when source i is read as it is (no DPP, SDWA, abs, neg or op_sel on it).
  uint8_t plain = 0;
  // Memory instructions (waitcnt.cpp): the counters they count in (kCnt*), the registers their
  // results go to (ret_count from ret_base: a VGPR row, AGPRs 256+, or an SGPR code with
  // kCntSgpr) and the handler exec_counted runs for them.
  uint8_t counters = 0, ret_count = 0;
  uint16_t ret_base = 0;
  // Whether the instructions after it reach the wait proving it before touching its results
  // (waitcnt.cpp kProof*), found on first execution; reset when a slot of its page changes.
  uint8_t proof = 0;
  ExecFn mem = nullptr;
};

// Inst::counters bits: VM_CNT, LGKM_CNT, results returned out of order among LGKM_CNT's
// (scalar memory, FLAT), results into SGPRs; kCntWait marks s_waitcnt itself; kCntOpaque an
// instruction whose registers waitcnt.cpp's look-ahead cannot tell, kCntSgprDst a VALU one
// whose destination is an SGPR (v_readlane, v_readfirstlane, VOP3 compares); kCntGds an LDS-
// encoded instruction of the GDS/GWS kind.
enum : uint8_t { kCntVm = 1, kCntLgkm = 2, kCntAnyOrder = 4, kCntSgpr = 8, kCntWait = 16, kCntOpaque = 32,
                 kCntSgprDst = 64, kCntGds = 128 };

static_assert(std::is_trivially_destructible_v<Inst>, "CodePage never destroys its slots");

// A decoded page of code: 1024 dword slots, filled lazily and published with `ready`.
struct CodePage {
  uint64_t base = 0;
  std::atomic<uint64_t> epoch{0};  // dispatch epoch in which the slots were last validated
  std::atomic<uint8_t> ready[1024];
  // A slot's Inst is constructed when it is decoded (DecodeCache::fetch_slow), not with the page:
  // a kernel decodes a few of the 1024, and writing all 88 KiB at once made every process's first
  // dispatch fault them in. Inst is trivially destructible.
  union {
    Inst inst[1024];
  };
  // The page's bytes as of the last validation, when the whole page was mapped and every decoded
  // slot lies inside it and matches them (`snap`): revalidation is then one comparison. Guarded
  // by the DecodeCache's mutex.
  bool snap = false;
  // The bytes the decoded slots span, [lo, hi) (8-byte aligned): with `snap`, revalidation
  // compares only those, since no other byte of the page affects what was decoded.
  uint32_t lo = 4096, hi = 0;
  uint8_t bytes[4096];
  CodePage() { for (auto& r : ready) r.store(0, std::memory_order_relaxed); }
};

class DecodeCache;
struct Group;

enum class WaveState : uint8_t { Running, Barrier, Done, Fault };

// The results of a memory instruction held back until a wait proves it returned (waitcnt.cpp):
// vector rows (lanes the instruction wrote) or SGPRs.
struct PendingOp {
  static constexpr unsigned kMaxRows = 6;  // vector results: 4 dwords, an image's 4 + TFE/LWE
  bool sgpr = false;
  uint8_t n = 0;
  uint16_t base = 0;     // VGPR row (AGPRs 256+) or SGPR code
  union {
    struct {
      uint16_t slot[kMaxRows];    // rows of Returns::rows holding the results
      uint64_t lanes[kMaxRows];   // the lanes the instruction wrote
    } v;
    struct {
      uint32_t value[16];
      uint16_t written;           // bit i: SGPR base + i written
    } s;
  };
  PendingOp() : v{} {}
};

// Outstanding instructions of one kind, in issue order: each the index of its held-back results
// in Returns::ops, or Returns::kNone.
struct PendingRing {
  std::array<uint16_t, 64> q{};
  uint32_t head = 0, count = 0;
  uint16_t front() const { return q[head]; }
  void pop() { head = (head + 1) % q.size(), --count; }
  void push(uint16_t i) { q[(head + count++) % q.size()] = i; }
};

// What a wave's memory instructions have not yet returned (AMD Vega ISA, "Data Dependency
// Resolution"): per counter, the instructions that return in order among themselves (one ring
// per kind), and those that may return in any order (a count, and their held-back results).
struct Returns {
  static constexpr uint16_t kNone = 0xFFFF;
  enum : unsigned { kLds, kGds, kMsg };  // LGKM_CNT's kinds: each in order, not with the others
  PendingRing vm;                  // VM_CNT: buffer, global, scratch and image instructions
  std::vector<uint16_t> vm_any;    // VM_CNT, any order: FLAT (memory or LDS) results held back
  uint32_t vm_any_count = 0;       // FLAT instructions outstanding
  PendingRing lgkm[3];             // LGKM_CNT: LDS, GDS/GWS, messages
  std::vector<uint16_t> lgkm_any;  // LGKM_CNT, any order: scalar memory results held back
  uint32_t lgkm_any_count = 0;     // scalar memory and FLAT instructions outstanding
  std::array<uint8_t, 512> vheld{};  // held-back results per VGPR/AGPR row
  std::array<uint8_t, 128> sheld{};  // and per SGPR
  std::vector<PendingOp> ops;
  std::vector<uint16_t> free_ops;
  std::vector<std::array<uint32_t, 64>> rows;
  std::vector<uint16_t> free_rows;
};
// Number of vector register rows: 256 VGPRs then 256 AGPRs (gfx90a unified file).
inline constexpr unsigned kVRows = 512;

struct Wave {
  // Scalar registers by operand code: s0..s101, flat_scratch 102/103, xnack 104/105,
  // vcc 106/107, ttmp 108..123, m0 124, null 125, exec 126/127.
  uint32_t s[128];
  uint32_t (*v)[64] = nullptr;     // v[row][lane]
  uint64_t pc = 0;
  bool scc = false;
  WaveState state = WaveState::Running;
  bool yield = false;              // s_sleep: give the other waves of the workgroup a turn
  uint32_t mode = 0;               // HW_REG_MODE
  uint32_t trapsts = 0;
  bool gpr_idx = false;            // s_set_gpr_idx_on: VGPR operands offset by M0[7:0]
  bool gws_wait = false;           // waiting at ds_gws_barrier for generation gws_gen to end
  uint64_t gws_gen = 0;
  uint32_t wave_id = 0;            // index in the workgroup
  uint64_t instructions = 0;
  uint64_t lane_ops = 0;
  Group* group = nullptr;
  // The wave's scratch slot: GPU VAs [scratch_lo, scratch_lo + scratch_size) of the queue's
  // backing store, and their host pointer when the whole slot is mapped (else nullptr: accesses
  // then go through mem_host one by one).
  uint64_t scratch_lo = 0, scratch_size = 0;
  uint8_t* scratch_host = nullptr;
  // Memory translation cache: the last mappings found (code, packet, kernel arguments and a
  // few buffers stay in it).
  static constexpr unsigned kCachedRanges = 8;
  Range cache[kCachedRanges];
  unsigned cache_next = 0;
  // Code lookup cache: the page being executed and the one before (kernels cross pages).
  CodePage* page = nullptr;
  CodePage* page2 = nullptr;
  // Memory instructions outstanding (waitcnt.cpp); allocated by the wave's first one.
  std::unique_ptr<Returns> returns;

  // VGPR row of operand slot `which` (0..2 sources, 3 destination) under gpr index mode:
  // M0[15:12] selects the slots, M0[7:0] is the offset (AMD Vega ISA "GPR indexing").
  unsigned vrow(unsigned row, unsigned which) const {
    if (!gpr_idx || !((s[124] >> (12 + which)) & 1)) return row;
    return (row & 256) | ((row + (s[124] & 0xFF)) & 255);
  }
  uint64_t exec() const { uint64_t e; std::memcpy(&e, &s[126], 8); return e; }
  void set_exec(uint64_t e) { std::memcpy(&s[126], &e, 8); }
  uint64_t vcc() const { uint64_t e; std::memcpy(&e, &s[106], 8); return e; }
  void set_vcc(uint64_t e) { std::memcpy(&s[106], &e, 8); }
  uint64_t s64(unsigned code) const { uint64_t e; std::memcpy(&e, &s[code], 8); return e; }
  // Whether the wave goes on: running and not yielding (state and yield read at once).
  bool runs() const {
    uint16_t v;
    std::memcpy(&v, &state, 2);
    return v == 0;
  }
};
static_assert(static_cast<int>(WaveState::Running) == 0 && offsetof(Wave, yield) == offsetof(Wave, state) + 1,
              "Wave::runs reads state and yield as one 16-bit word");

// Per-dispatch state shared by all waves of all workgroups.
struct DispatchCtx {
  Memory* mem = nullptr;
  Hooks* hooks = nullptr;
  DecodeCache* code = nullptr;
  Target target = Target::gfx90a;
  uint32_t engine_clock_mhz = kDefaultEngineClockMhz;  // s_memtime's rate
  uint32_t gb_addr_config = kDefaultGbAddrConfig;      // swizzled images' layouts
  std::atomic<bool> stop{false};
  const std::atomic<bool>* preempt = nullptr;  // Dispatch::preempt
  std::atomic<bool> have_error{false};
  Outcome error;               // written once by the thread that wins have_error
  uint64_t epoch = 0;          // distinct per run(): decoded pages are revalidated once per epoch
  GpuCache* cache = nullptr;   // the memory model (nullptr: sequentially consistent)
  uint64_t entry = 0;          // the kernel's first instruction (reports name it)
  uint64_t kernel_object = 0;  // its descriptor (AQL), for the kernel's name
  std::mutex report_mu;        // guards `report`
  MemoryReport report;
  std::atomic<uint64_t> traced{0};  // cache instructions traced one by one so far
  struct Gws* gws = nullptr;   // the device's global wave sync, when the queue holds it
};

// One workgroup being executed by a worker thread.
struct Group {
  DispatchCtx* ctx = nullptr;
  uint8_t* lds = nullptr;
  uint32_t lds_size = 0;
  std::vector<Wave>* waves = nullptr;
  unsigned nwaves = 0;
  L1* l1 = nullptr;             // the CU's vector L1 (memory model), nullptr: none
  uint32_t id[3] = {};
  uint32_t cu = 0;              // the CU it runs on (Dispatch::cus' form: HW_ID bits, XCC in [19:16])
};

inline constexpr uint64_t kLdsAperture = 1ull << 48;
inline constexpr uint64_t kPrivateAperture = 2ull << 48;
inline constexpr uint64_t kApertureSize = 1ull << 32;

// Stops the dispatch with an error (first error wins) and ends the wave.
void wave_fail(Wave& w, Outcome::Kind kind, uint64_t va, std::string msg);
// Memory: host pointer for [va, va+size) or nullptr after recording a MemoryFault.
uint8_t* mem_slow(Wave& w, uint64_t va, uint64_t size, bool write);
// Like mem_host but never records a fault (nullptr when unmapped).
uint8_t* mem_try(Wave& w, uint64_t va, uint64_t size);
inline uint8_t* mem_host(Wave& w, uint64_t va, uint64_t size, bool write) {
  for (const Range& r : w.cache)
    if (va >= r.begin && va + size <= r.end && va + size >= va && (!write || r.writable))
      return r.host + (va - r.begin);
  return mem_slow(w, va, size, write);
}
std::string describe(const Inst& in, uint64_t pc);

// Scalar operand read (32-bit and 64-bit) for codes 0..255 incl. constants and literal: SGPRs,
// integer constants and literals inline, the rest in sread32_any / sread64_any.
uint32_t sread32_any(const Wave& w, const Inst& in, unsigned code);
uint64_t sread64_any(const Wave& w, const Inst& in, unsigned code, bool fp64);
inline uint32_t sread32(const Wave& w, const Inst& in, unsigned code) {
  if (code < 125) return w.s[code];
  if (code == 126 || code == 127) return w.s[code];
  if (code >= 128 && code <= 192) return code - 128;
  if (code == 255) return in.literal;
  return sread32_any(w, in, code);
}
inline uint64_t sread64(const Wave& w, const Inst& in, unsigned code, bool fp64) {
  if (code < 124 || code == 126) return w.s64(code);
  if (code >= 128 && code <= 192) return code - 128;
  return sread64_any(w, in, code, fp64);
}
// Writes to null (125) are dropped; a 64-bit write to M0 (124) or beyond exec_lo is too.
inline void swrite32(Wave& w, unsigned code, uint32_t x) {
  if (code < 128 && code != 125) w.s[code] = x;
}
inline void swrite64(Wave& w, unsigned code, uint64_t x) {
  if (code < 127 && code != 125 && code != 124) std::memcpy(&w.s[code], &x, 8);
}

void exec_unimplemented(Wave& w, const Inst& in);
void exec_lds_dma(Wave& w, const Inst& in);  // a buffer/global/scratch load with the lds bit
void exec_tfe(Wave& w, const Inst& in);      // a buffer instruction with TFE (gfx906, gfx908)
// Stops the dispatch with Unimplemented: `what`, then the instruction (PC, dwords, mnemonic).
// Returns false, for handlers that refuse one form of an instruction they otherwise run.
bool fail_unimplemented(Wave& w, const Inst& in, const std::string& what);
void exec_invalid(Wave& w, const Inst& in);

// The memory counters (waitcnt.cpp). A decoded memory instruction gets its counters and result
// registers (count_memory, which routes it through exec_counted); s_waitcnt delivers what its
// counts prove returned (wait_counters, simm16 as the instruction encodes it); a wave starting
// again drops what its last run left outstanding (clear_returns).
void count_memory(Inst& in);
void exec_counted(Wave& w, const Inst& in);
void wait_counters(Wave& w, uint32_t simm16);
void clear_returns(Wave& w);

// Handler registry: every execution file exports its (name, handler) pairs.
struct HandlerEntry { const char* name; ExecFn fn; };
struct HandlerList { const HandlerEntry* begin; const HandlerEntry* end; };
HandlerList sop2_handlers();
HandlerList sop1_handlers();
HandlerList sopp_handlers();
HandlerList vop16_handlers();
HandlerList vop_media_handlers();
HandlerList smem_handlers();
HandlerList vop_handlers();
HandlerList vop3_handlers();
HandlerList vopc_handlers();
HandlerList ds_handlers();
HandlerList gws_handlers();
HandlerList flat_handlers();
HandlerList mubuf_handlers();
HandlerList mimg_handlers();
HandlerList mfma_handlers();
ExecFn find_handler(const char* name);

}  // namespace emu::shader
