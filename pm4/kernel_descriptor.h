// SPDX-License-Identifier: MIT
// The 64-byte AMDGPU kernel descriptor and its bitfields: one header for the loader, the runtime and the emulator.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pm4 {

// layout: AMDGPUUsage "Kernel Descriptor" (code object v3 and later).
struct KernelDescriptor {
  uint32_t group_segment_fixed_size;
  uint32_t private_segment_fixed_size;
  uint32_t kernarg_size;
  uint8_t reserved0[4];
  int64_t kernel_code_entry_byte_offset;  // relative to the descriptor's own address
  uint8_t reserved1[20];
  uint32_t compute_pgm_rsrc3;
  uint32_t compute_pgm_rsrc1;
  uint32_t compute_pgm_rsrc2;
  uint16_t kernel_code_properties;
  uint16_t kernarg_preload;
  uint8_t reserved3[4];
};
static_assert(sizeof(KernelDescriptor) == 64);
static_assert(offsetof(KernelDescriptor, group_segment_fixed_size) == 0);
static_assert(offsetof(KernelDescriptor, private_segment_fixed_size) == 4);
static_assert(offsetof(KernelDescriptor, kernarg_size) == 8);
static_assert(offsetof(KernelDescriptor, kernel_code_entry_byte_offset) == 16);
static_assert(offsetof(KernelDescriptor, compute_pgm_rsrc3) == 44);
static_assert(offsetof(KernelDescriptor, compute_pgm_rsrc1) == 48);
static_assert(offsetof(KernelDescriptor, compute_pgm_rsrc2) == 52);
static_assert(offsetof(KernelDescriptor, kernel_code_properties) == 56);
static_assert(offsetof(KernelDescriptor, kernarg_preload) == 58);

// Extracts bits [lo, lo+width) of v.
constexpr uint32_t kd_bits(uint32_t v, unsigned lo, unsigned width) {
  return (v >> lo) & ((width >= 32) ? 0xFFFFFFFFu : ((1u << width) - 1u));
}

// COMPUTE_PGM_RSRC1 fields; bit positions from AMDGPUUsage "compute_pgm_rsrc1 for GFX6-GFX12".
struct Rsrc1 {
  uint32_t granulated_workitem_vgpr_count;   // [5:0]
  uint32_t granulated_wavefront_sgpr_count;  // [9:6]
  uint32_t priority;                         // [11:10]
  uint32_t float_round_mode_32;              // [13:12]
  uint32_t float_round_mode_16_64;           // [15:14]
  uint32_t float_denorm_mode_32;             // [17:16]
  uint32_t float_denorm_mode_16_64;          // [19:18]
  bool priv;                                 // 20
  bool enable_dx10_clamp;                    // 21
  bool debug_mode;                           // 22
  bool enable_ieee_mode;                     // 23
  bool bulky;                                // 24
  bool cdbg_user;                            // 25
  bool fp16_ovfl;                            // 26 (gfx9+)
  bool wgp_mode;                             // 29 (gfx10+)
  bool mem_ordered;                          // 30 (gfx10+)
  bool fwd_progress;                         // 31 (gfx10+)
};

constexpr Rsrc1 decode_rsrc1(uint32_t v) {
  return Rsrc1{kd_bits(v, 0, 6),   kd_bits(v, 6, 4),   kd_bits(v, 10, 2),  kd_bits(v, 12, 2),
               kd_bits(v, 14, 2),  kd_bits(v, 16, 2),  kd_bits(v, 18, 2),  kd_bits(v, 20, 1) != 0,
               kd_bits(v, 21, 1) != 0, kd_bits(v, 22, 1) != 0, kd_bits(v, 23, 1) != 0,
               kd_bits(v, 24, 1) != 0, kd_bits(v, 25, 1) != 0, kd_bits(v, 26, 1) != 0,
               kd_bits(v, 29, 1) != 0, kd_bits(v, 30, 1) != 0, kd_bits(v, 31, 1) != 0};
}

// COMPUTE_PGM_RSRC2 fields; AMDGPUUsage "compute_pgm_rsrc2 for GFX6-GFX12".
struct Rsrc2 {
  bool enable_private_segment;           // 0 (SCRATCH_EN)
  uint32_t user_sgpr_count;              // [5:1]
  bool enable_trap_handler;              // 6
  bool enable_sgpr_workgroup_id_x;       // 7
  bool enable_sgpr_workgroup_id_y;       // 8
  bool enable_sgpr_workgroup_id_z;       // 9
  bool enable_sgpr_workgroup_info;       // 10 (TG_SIZE_EN)
  uint32_t enable_vgpr_workitem_id;      // [12:11]: 0 x, 1 xy, 2 xyz
  bool enable_exception_address_watch;   // 13
  bool enable_exception_memory;          // 14
  uint32_t granulated_lds_size;          // [23:15]
  uint32_t enable_exceptions;            // [30:24]
};

constexpr Rsrc2 decode_rsrc2(uint32_t v) {
  return Rsrc2{kd_bits(v, 0, 1) != 0,  kd_bits(v, 1, 5),       kd_bits(v, 6, 1) != 0,
               kd_bits(v, 7, 1) != 0,  kd_bits(v, 8, 1) != 0,  kd_bits(v, 9, 1) != 0,
               kd_bits(v, 10, 1) != 0, kd_bits(v, 11, 2),      kd_bits(v, 13, 1) != 0,
               kd_bits(v, 14, 1) != 0, kd_bits(v, 15, 9),      kd_bits(v, 24, 7)};
}

// COMPUTE_PGM_RSRC3 on gfx90a/gfx94x; AMDGPUUsage "compute_pgm_rsrc3 for GFX90A, GFX942".
struct Rsrc3Gfx90a {
  uint32_t accum_offset;  // [5:0]; first AGPR-backed VGPR = (accum_offset + 1) * 4
  bool tg_split;          // 16
};

constexpr Rsrc3Gfx90a decode_rsrc3_gfx90a(uint32_t v) {
  return Rsrc3Gfx90a{kd_bits(v, 0, 6), kd_bits(v, 16, 1) != 0};
}

// COMPUTE_PGM_RSRC3 on gfx10/gfx11; AMDGPUUsage "compute_pgm_rsrc3 for GFX10-GFX11".
struct Rsrc3Gfx10 {
  uint32_t shared_vgpr_count;  // [3:0]
  uint32_t inst_pref_size;     // [9:4] (gfx11)
  bool trap_on_start;          // 10 (gfx11)
  bool trap_on_end;            // 11 (gfx11)
  bool image_op;               // 31 (gfx11)
};

constexpr Rsrc3Gfx10 decode_rsrc3_gfx10(uint32_t v) {
  return Rsrc3Gfx10{kd_bits(v, 0, 4), kd_bits(v, 4, 6), kd_bits(v, 10, 1) != 0,
                    kd_bits(v, 11, 1) != 0, kd_bits(v, 31, 1) != 0};
}

// kernel_code_properties bits; AMDGPUUsage "Kernel Descriptor for GFX6-GFX12".
enum KernelCodeProperty : uint16_t {
  kEnableSgprPrivateSegmentBuffer = 1u << 0,
  kEnableSgprDispatchPtr = 1u << 1,
  kEnableSgprQueuePtr = 1u << 2,
  kEnableSgprKernargSegmentPtr = 1u << 3,
  kEnableSgprDispatchId = 1u << 4,
  kEnableSgprFlatScratchInit = 1u << 5,
  kEnableSgprPrivateSegmentSize = 1u << 6,
  kEnableWavefrontSize32 = 1u << 10,
  kUsesDynamicStack = 1u << 11,
};

struct CodeProperties {
  bool private_segment_buffer, dispatch_ptr, queue_ptr, kernarg_segment_ptr, dispatch_id,
      flat_scratch_init, private_segment_size, wavefront_size32, uses_dynamic_stack;
};

constexpr CodeProperties decode_code_properties(uint16_t v) {
  return CodeProperties{(v & kEnableSgprPrivateSegmentBuffer) != 0, (v & kEnableSgprDispatchPtr) != 0,
                        (v & kEnableSgprQueuePtr) != 0,          (v & kEnableSgprKernargSegmentPtr) != 0,
                        (v & kEnableSgprDispatchId) != 0,        (v & kEnableSgprFlatScratchInit) != 0,
                        (v & kEnableSgprPrivateSegmentSize) != 0, (v & kEnableWavefrontSize32) != 0,
                        (v & kUsesDynamicStack) != 0};
}

// User SGPRs the enabled properties occupy, in the order AMDGPUUsage "Initial Kernel Execution
// State" lists them (private segment buffer 4, dispatch ptr 2, queue ptr 2, kernarg ptr 2,
// dispatch id 2, flat scratch init 2, private segment size 1), before preloaded kernargs.
constexpr uint32_t user_sgprs_from_properties(uint16_t v) {
  CodeProperties p = decode_code_properties(v);
  return (p.private_segment_buffer ? 4u : 0u) + (p.dispatch_ptr ? 2u : 0u) + (p.queue_ptr ? 2u : 0u) +
         (p.kernarg_segment_ptr ? 2u : 0u) + (p.dispatch_id ? 2u : 0u) +
         (p.flat_scratch_init ? 2u : 0u) + (p.private_segment_size ? 1u : 0u);
}

// kernarg_preload: length in dwords [6:0], offset in dwords [15:7] (gfx90a/gfx94x).
constexpr uint32_t kernarg_preload_length(uint16_t v) { return v & 0x7Fu; }
constexpr uint32_t kernarg_preload_offset(uint16_t v) { return (v >> 7) & 0x1FFu; }
// A kernel that preloads kernargs starts with a 256-byte prologue for firmware that cannot
// preload; a launcher that fills the SGPRs itself starts 256 bytes after the entry
// (AMDGPUUsage "Preloaded Kernel Arguments").
constexpr uint64_t kKernargPreloadPrologueBytes = 256;

}  // namespace pm4
