// SPDX-License-Identifier: MIT
// Global wave sync (GWS): the device-wide barrier resources ds_gws_init / ds_gws_barrier use.
#pragma once

#include <cstdint>
#include <mutex>

namespace emu::shader {

// The gfx9 GDS block's 64 GWS resources (Linux gfx_v9_0.c: gds.gws_size = 64). A barrier
// resource holds the number of waves that must arrive minus one (LLVM IntrinsicsAMDGPU.td
// llvm.amdgcn.ds.gws.init "bar_val"); when that many plus one have arrived, all are released and
// the count starts again. The state outlives dispatches: ROCm initialises the barrier in one
// dispatch (ROCclr's gwsInit blit kernel) and the cooperative kernel uses it in the next.
struct Gws {
  static constexpr unsigned kResources = 64;
  struct Resource {
    bool initialised = false;
    uint32_t value = 0;    // waves to arrive, minus one
    uint32_t arrived = 0;  // in the current generation
    uint64_t generation = 0;
  };
  std::mutex mu;
  Resource r[kResources];
};

}  // namespace emu::shader
