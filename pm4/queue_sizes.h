// SPDX-License-Identifier: MIT
// The AQL queue buffer sizes amdkfd validates (EOP, CWSR, control stack, debug area), per node.
#pragma once

#include <cstdint>

#include "kfd/node_properties.h"
#include "pm4/family.h"

namespace pm4 {

// Sizes a compute queue's buffers must have on a node. Linux >= 6.12 rejects CREATE_QUEUE with
// EINVAL unless eop_buffer_size == eop_size, ctl_stack_size == ctl_stack_size and
// ctx_save_restore_size == ctx_save_restore_size, and the CWSR buffer is one GPU mapping of at
// least cwsr_total bytes. The emulator validates with this same function.
struct QueueBufferSizes {
  uint32_t eop_size = 0;               // kfd_ioctl_create_queue_args.eop_buffer_size
  uint32_t ctl_stack_size = 0;         // .ctl_stack_size
  uint32_t ctx_save_restore_size = 0;  // .ctx_save_restore_size (per XCC: ctl stack + wg data)
  uint32_t debug_memory_size = 0;      // per XCC, after each XCC's save area
  uint32_t num_xcc = 1;
  uint32_t cwsr_total = 0;             // bytes to allocate at ctx_save_restore_address
  uint32_t waves = 0;                  // waves the control stack is sized for
  bool cwsr = false;                   // false: the node has no CWSR (CPU node, pre-gfx8.0.1)
};

namespace queue_sizes_detail {

constexpr uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// VGPRs + SGPRs (0x4000) + LDS (0x10000, or the node's LDS where the family says so) + HW
// registers (0x1000) per CU (kfd_queue.c). A version the table does not know gets the default
// VGPR area (kfd_get_vgpr_size_per_cu's fallback).
constexpr uint32_t wg_data_per_cu(const kfd::NodeProperties& p, const Family* f) {
  const uint32_t vgpr = f ? f->cwsr_vgpr_bytes_per_cu : 0x40000;
  const uint32_t lds = f && f->cwsr_lds_from_node ? (p.lds_size_in_kb << 10) : 0x10000;
  return vgpr + 0x4000 + lds + 0x1000;
}

}  // namespace queue_sizes_detail

// Formula of Linux kfd_queue.c (kfd_queue_ctx_save_restore_size) and the thunk, with the per-family
// facts from the family table.
// When the kernel publishes cwsr_size / ctl_stack_size in the node properties, those win: they are
// exactly what it compares against.
constexpr QueueBufferSizes queue_buffer_sizes(const kfd::NodeProperties& p, uint32_t page_size = 4096) {
  using namespace queue_sizes_detail;
  QueueBufferSizes s;
  const uint32_t gfxv = p.gfx_target_version;
  if (gfxv == 0 || p.simd_per_cu == 0) return s;  // CPU node
  s.eop_size = gfxv == 80002 ? 0x8000 : (gfxv >= 80000 ? 4096 : 0);
  if (gfxv < 80001 || p.simd_arrays_per_engine == 0) return s;
  s.num_xcc = p.num_xcc ? p.num_xcc : 1;
  const uint32_t cu = p.simd_count / p.simd_per_cu / s.num_xcc;
  const uint32_t engines = p.array_count / p.simd_arrays_per_engine;
  const Family* f = family_for(gfxv);
  const bool gfx10plus = gfxv >= 100100;
  const uint32_t per_cu = f ? f->cwsr_waves_per_cu : (gfx10plus ? 32 : 40);
  const uint32_t per_se = f ? f->cwsr_waves_per_se : (gfx10plus ? 0 : 512);
  s.waves = cu * per_cu;
  if (per_se && engines * per_se < s.waves) s.waves = engines * per_se;
  const uint32_t bytes_per_wave = f ? f->ctl_stack_bytes_per_wave : (gfx10plus ? 12 : 8);
  uint32_t ctl = align_up(40 + s.waves * bytes_per_wave + 8, page_size);
  const uint32_t ctl_max = f ? f->ctl_stack_max : (gfxv / 10000 == 10 ? 0x7000 : 0);
  if (ctl_max && ctl > ctl_max) ctl = ctl_max;
  const uint32_t wg = align_up(cu * wg_data_per_cu(p, f), page_size);
  s.ctl_stack_size = p.ctl_stack_size ? p.ctl_stack_size : ctl;
  s.ctx_save_restore_size = p.cwsr_size ? p.cwsr_size : align_up(ctl + wg, page_size);
  s.debug_memory_size = align_up(s.waves * 32, 64);
  s.cwsr_total = align_up((s.ctx_save_restore_size + s.debug_memory_size) * s.num_xcc, page_size);
  s.cwsr = true;
  return s;
}

}  // namespace pm4
