// SPDX-License-Identifier: MIT
// Scalar operand access (registers, inline constants, literals, apertures) and wave failures.
#include <bit>
#include <cstdio>

#include "emu/shader/valu.h"

namespace emu::shader {

const uint32_t kInlineF32[9] = {0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000,
                                0xC0000000, 0x40800000, 0xC0800000, 0x3E22F983};

namespace {

// Inline float constants 240..248 (AMD Vega ISA "Scalar Operands") as f64 bit patterns.
constexpr uint64_t kF64Const[9] = {0x3FE0000000000000, 0xBFE0000000000000, 0x3FF0000000000000,
                                   0xBFF0000000000000, 0x4000000000000000, 0xC000000000000000,
                                   0x4010000000000000, 0xC010000000000000, 0x3FC45F306DC9C882};

}  // namespace

uint32_t sread32_any(const Wave& w, const Inst& in, unsigned code) {
  if (code < 128) return code == 125 ? 0 : w.s[code];
  if (code <= 192) return code - 128;
  if (code <= 208) return static_cast<uint32_t>(192 - static_cast<int>(code));
  if (code >= 240 && code <= 248) return kInlineF32[code - 240];
  switch (code) {
    case 235: return static_cast<uint32_t>(kLdsAperture >> 32);      // src_shared_base
    case 236: return static_cast<uint32_t>((kLdsAperture + kApertureSize - 1) >> 32);
    case 237: return static_cast<uint32_t>(kPrivateAperture >> 32);  // src_private_base
    case 238: return static_cast<uint32_t>((kPrivateAperture + kApertureSize - 1) >> 32);
    case 239: return 0;                                               // src_pops_exiting_wave_id
    case 251: return w.vcc() == 0;
    case 252: return w.exec() == 0;
    case 253: return w.scc;
    case 255: return in.literal;
    default: return 0;
  }
}

uint64_t sread64_any(const Wave& w, const Inst& in, unsigned code, bool fp64) {
  if (code < 128) return code == 125 ? 0 : w.s64(code);
  if (code <= 192) return code - 128;
  if (code <= 208) return static_cast<uint64_t>(192 - static_cast<int64_t>(code));
  // A 64-bit operand's inline float constants are f64 values whatever the opcode's type
  // (s_mov_b64 s[0:1], 1.0 gives 0x3ff0000000000000); a literal is the high half of an f64.
  if (code >= 240 && code <= 248) return kF64Const[code - 240];
  if (code == 255) return fp64 ? uint64_t{in.literal} << 32 : in.literal;
  if (code >= 235 && code <= 238) return uint64_t{sread32(w, in, code)} << 32;
  return sread32(w, in, code);
}

void wave_fail(Wave& w, Outcome::Kind kind, uint64_t va, std::string msg) {
  w.state = WaveState::Fault;
  DispatchCtx* ctx = w.group->ctx;
  bool expected = false;
  if (ctx->have_error.compare_exchange_strong(expected, true)) {
    ctx->error.kind = kind;
    ctx->error.fault_va = va;
    ctx->error.message = std::move(msg);
  }
  ctx->stop.store(true, std::memory_order_relaxed);
}

uint8_t* mem_slow(Wave& w, uint64_t va, uint64_t size, bool write) {
  Memory* m = w.group->ctx->mem;
  Range r = m->lookup(va);
  if (r.host && va >= r.begin && va + size <= r.end && (!write || r.writable)) {
    w.cache[w.cache_next] = r;
    w.cache_next = (w.cache_next + 1) % Wave::kCachedRanges;
    return r.host + (va - r.begin);
  }
  if (uint8_t* h = m->translate(va, size, write)) return h;  // spans mappings: uncached
  char buf[128];
  std::snprintf(buf, sizeof buf, "memory fault: %s of %llu bytes at 0x%llx (pc=0x%llx)",
                write ? "write" : "read", static_cast<unsigned long long>(size),
                static_cast<unsigned long long>(va), static_cast<unsigned long long>(w.pc));
  // Report the first byte that is not mapped.
  uint64_t bad = va;
  for (uint64_t i = 0; i < size; ++i)
    if (!m->translate(va + i, 1, write)) { bad = va + i; break; }
  wave_fail(w, Outcome::Kind::MemoryFault, bad, buf);
  return nullptr;
}

uint8_t* mem_try(Wave& w, uint64_t va, uint64_t size) {
  for (const Range& r : w.cache)
    if (va >= r.begin && va + size <= r.end) return r.host + (va - r.begin);
  return w.group->ctx->mem->translate(va, size, false);
}

Range Memory::lookup(uint64_t va) {
  uint64_t page = va & ~uint64_t{4095};
  Range r;
  r.host = translate(page, 4096, false);
  if (!r.host) return r;
  r.begin = page;
  r.end = page + 4096;
  r.writable = translate(page, 4096, true) != nullptr;
  return r;
}

void exec_unimplemented(Wave& w, const Inst& in) {
  wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size,
            "unimplemented instruction: " + describe(in, w.pc - in.size));
}

bool fail_unimplemented(Wave& w, const Inst& in, const std::string& what) {
  wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size, what + ": " + describe(in, w.pc - in.size));
  return false;
}

void exec_lds_dma(Wave& w, const Inst& in) {
  fail_unimplemented(w, in, "unimplemented instruction: a load into LDS (the lds bit, LDS DMA) is not emulated");
}

void exec_tfe(Wave& w, const Inst& in) {
  fail_unimplemented(w, in, "unimplemented instruction: TFE (a buffer instruction's texture-fail status dword) is not emulated");
}

void exec_invalid(Wave& w, const Inst& in) {
  wave_fail(w, Outcome::Kind::IllegalInstruction, w.pc - in.size,
            "illegal instruction: " + describe(in, w.pc - in.size));
}

}  // namespace emu::shader
