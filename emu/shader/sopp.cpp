// SPDX-License-Identifier: MIT
// SOPP execution: branches, barriers, waitcnt, messages, traps, sleep, and s_memtime (SMEM).
#include <chrono>
#include <thread>

#include "emu/shader/decode.h"

namespace emu::shader {

namespace {

// Branch target = address of this instruction + 4 + simm16*4; w.pc already points past it.
inline void branch(Wave& w, const Inst& in) { w.pc = w.pc + static_cast<int64_t>(in.offset) * 4; }

void s_nop(Wave&, const Inst&) {}
void s_endpgm(Wave& w, const Inst&) { w.state = WaveState::Done; }
void s_branch(Wave& w, const Inst& in) { branch(w, in); }
void s_cbranch_scc0(Wave& w, const Inst& in) { if (!w.scc) branch(w, in); }
void s_cbranch_scc1(Wave& w, const Inst& in) { if (w.scc) branch(w, in); }
void s_cbranch_vccz(Wave& w, const Inst& in) { if (w.vcc() == 0) branch(w, in); }
void s_cbranch_vccnz(Wave& w, const Inst& in) { if (w.vcc() != 0) branch(w, in); }
void s_cbranch_execz(Wave& w, const Inst& in) { if (w.exec() == 0) branch(w, in); }
void s_cbranch_execnz(Wave& w, const Inst& in) { if (w.exec() != 0) branch(w, in); }
// The workgroup scheduler (core.cpp) releases the wave when all live waves arrived.
void s_barrier(Wave& w, const Inst&) { if (w.group->nwaves > 1) w.state = WaveState::Barrier; }
// Delivers the results of the memory instructions the counts prove returned (waitcnt.cpp).
void s_waitcnt(Wave& w, const Inst& in) { wait_counters(w, static_cast<uint32_t>(in.offset) & 0xFFFF); }
void s_sleep(Wave& w, const Inst&) { w.yield = true; }
void s_setprio(Wave&, const Inst&) {}
void s_icache_inv(Wave&, const Inst&) {}

// s_sendmsg: simm16 msg id [3:0] (gfx9). MSG_INTERRUPT (1) passes M0 to the device.
void s_sendmsg(Wave& w, const Inst& in) {
  unsigned id = static_cast<uint32_t>(in.offset) & 15;
  if (id == 1) w.group->ctx->hooks->interrupt(w.s[124]);
}

// s_trap: 2 = abort (queue error), 3 = debug trap (no debugger: no-op); others unexpected.
void s_trap(Wave& w, const Inst& in) {
  unsigned id = static_cast<uint32_t>(in.offset) & 0xFF;
  if (id == 3) return;
  wave_fail(w, Outcome::Kind::Trap, w.pc - in.size,
            "s_trap " + std::to_string(id) + " at " + describe(in, w.pc - in.size));
}

uint64_t host_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch()).count());
}
// s_memrealtime: the 100 MHz reference clock (kShaderClockHz).
void s_memrealtime(Wave& w, const Inst& in) { swrite64(w, in.dst, host_ns() / (1'000'000'000 / kShaderClockHz)); }
// s_memtime: the shader clock, at the device's engine clock (DispatchCtx::engine_clock_mhz).
void s_memtime(Wave& w, const Inst& in) {
  const uint64_t ns = host_ns(), mhz = w.group->ctx->engine_clock_mhz;
  swrite64(w, in.dst, ns / 1000 * mhz + ns % 1000 * mhz / 1000);
}

const HandlerEntry kSopp[] = {
#define E(n) {#n, n},
    E(s_nop) E(s_endpgm) E(s_branch) E(s_cbranch_scc0) E(s_cbranch_scc1) E(s_cbranch_vccz)
    E(s_cbranch_vccnz) E(s_cbranch_execz) E(s_cbranch_execnz) E(s_barrier) E(s_waitcnt)
    E(s_sleep) E(s_setprio) E(s_icache_inv) E(s_sendmsg) E(s_trap) E(s_memtime)
#undef E
    {"s_memrealtime", s_memrealtime}, {"s_sendmsghalt", s_sendmsg}, {"s_incperflevel", s_nop},
    {"s_decperflevel", s_nop}, {"s_ttracedata", s_nop}, {"s_dcache_wb", s_nop},
    {"s_dcache_inv", s_nop}, {"s_dcache_wb_vol", s_nop}, {"s_dcache_inv_vol", s_nop},
    {"s_wakeup", s_nop},
};

}  // namespace

HandlerList sopp_handlers() { return {std::begin(kSopp), std::end(kSopp)}; }

}  // namespace emu::shader
