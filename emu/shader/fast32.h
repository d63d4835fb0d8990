// SPDX-License-Identifier: MIT
// Handlers for 32-bit VALU operations specialised at decode (specialize, fast64.cpp): the
// sources' kinds (VGPR row or scalar) fixed per instruction, no modifier, DPP or SDWA; what only
// the wave's state can rule out (a partly active wave, GPR indexing, f32 denormal flushing) goes
// to the general handler (Inst::slow).
#pragma once

#include "emu/shader/valu.h"

namespace emu::shader {

// K::f(a, b, c) on one lane's 32-bit sources gives its result. Bc: sources read as one scalar
// (SGPR, constant, literal). FIn / FOut: the sources / the result are f32 (MODE.FP_DENORM
// flushes them unless bits 4 / 5 are set: then the general handler runs).
template <class K, unsigned N, unsigned Bc, bool FIn, bool FOut>
void fast32(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx || (FIn && !(w.mode & 0x10)) || (FOut && !(w.mode & 0x20)))
    return in.slow(w, in);
  const uint32_t* p[3] = {};
  uint32_t v[3] = {};
  for (unsigned i = 0; i < N; ++i) {
    if ((Bc >> i) & 1) v[i] = sread32(w, in, in.src[i]);
    else p[i] = w.v[in.src[i] - 256];
  }
  const uint32_t* const p0 = p[0];
  const uint32_t* const p1 = p[1];
  const uint32_t* const p2 = p[2];
  const uint32_t v0 = v[0], v1 = v[1], v2 = v[2];
  uint32_t* d = w.v[in.dst];
  VLOOP_INPLACE d[l] = K::f((Bc & 1) ? v0 : p0[l], N < 2 ? 0 : (Bc & 2) ? v1 : p1[l], N < 3 ? 0 : (Bc & 4) ? v2 : p2[l]);
  w.lane_ops += 64;
}

// One operation's specialised handlers, fn[Bc] for each set of scalar sources.
struct FastFamily {
  const char* name;
  unsigned nsrc;
  ExecFn fn[8];
};
template <class K, unsigned N, bool FIn, bool FOut>
constexpr FastFamily fast_family(const char* name) {
  return {name, N,
          {fast32<K, N, 0, FIn, FOut>, fast32<K, N, 1, FIn, FOut>, N > 1 ? fast32<K, N, 2, FIn, FOut> : nullptr,
           N > 1 ? fast32<K, N, 3, FIn, FOut> : nullptr, N > 2 ? fast32<K, N, 4, FIn, FOut> : nullptr,
           N > 2 ? fast32<K, N, 5, FIn, FOut> : nullptr, N > 2 ? fast32<K, N, 6, FIn, FOut> : nullptr,
           N > 2 ? fast32<K, N, 7, FIn, FOut> : nullptr}};
}
struct FastList { const FastFamily* begin; const FastFamily* end; };
FastList vop_fast_families();   // vop.cpp
FastList vopc_fast_families();  // vopc.cpp

}  // namespace emu::shader
