// SPDX-License-Identifier: MIT
// The global wave sync instructions: ds_gws_init and ds_gws_barrier on the device's GWS resources.
#include <string>

#include "emu/shader/decode.h"
#include "emu/shader/gws.h"

namespace emu::shader {

namespace {

// The resource an instruction names: (M0[21:16] + the 16-bit offset) % 64 (LLVM
// AMDGPUISelDAGToDAG.cpp SelectDS_GWS: "(<isa opaque base> + M0[21:16] + offset field) % 64",
// the opaque base being 0 for the queue's allocation of all 64).
unsigned resource_of(const Wave& w, const Inst& in) {
  const uint32_t offset = static_cast<uint32_t>(in.offset) | uint32_t{in.offset1} << 8;
  return (((w.s[124] >> 16) & 0x3F) + offset) % Gws::kResources;
}

// DATA0 of the first active lane (the value is uniform in what LLVM emits).
uint32_t data0(const Wave& w, const Inst& in) {
  const uint64_t ex = w.exec();
  const unsigned lane = ex ? static_cast<unsigned>(__builtin_ctzll(ex)) : 0;
  return w.v[in.vdata][lane];
}

Gws* gws_of(Wave& w, const Inst& in) {
  Gws* g = w.group->ctx->gws;
  if (!g)
    wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size,
              std::string(in.name) + ": the dispatch's queue holds no global wave sync (the runtime must "
              "give it one with AMDKFD_IOC_ALLOC_QUEUE_GWS, as ROCr does for cooperative queues)");
  return g;
}

void ds_gws_init(Wave& w, const Inst& in) {
  Gws* g = gws_of(w, in);
  if (!g) return;
  std::lock_guard lock(g->mu);
  Gws::Resource& r = g->r[resource_of(w, in)];
  r.initialised = true;
  r.value = data0(w, in);
  r.arrived = 0;
  ++r.generation;
}

// A wave arrives once; until the resource's generation ends it stays at the instruction and
// yields, so the other resident workgroups run (the worker switches to them).
void ds_gws_barrier(Wave& w, const Inst& in) {
  Gws* g = gws_of(w, in);
  if (!g) return;
  const unsigned id = resource_of(w, in);
  std::lock_guard lock(g->mu);
  Gws::Resource& r = g->r[id];
  if (w.gws_wait) {
    if (r.generation != w.gws_gen) { w.gws_wait = false; return; }
  } else if (!r.initialised) {
    wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size,
              "ds_gws_barrier on GWS resource " + std::to_string(id) +
              " that no ds_gws_init initialised (the hardware would wait forever)");
    return;
  } else if (r.arrived++ >= r.value) {  // the last one: release the generation
    r.arrived = 0;
    ++r.generation;
    return;
  } else {
    w.gws_wait = true;
    w.gws_gen = r.generation;
  }
  w.pc -= in.size;
  w.yield = true;
}

const HandlerEntry kGwsOps[] = {{"ds_gws_init", ds_gws_init}, {"ds_gws_barrier", ds_gws_barrier}};

}  // namespace

HandlerList gws_handlers() { return {std::begin(kGwsOps), std::end(kGwsOps)}; }

}  // namespace emu::shader
