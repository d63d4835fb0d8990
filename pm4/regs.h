// SPDX-License-Identifier: MIT
// COMPUTE_* shader registers a PM4 dispatch programs: dword addresses and field layouts per family.
#pragma once

#include <cstdint>

namespace pm4::reg {

// SH register space written by SET_SH_REG: dword addresses [0x2C00, 0x3000); the packet carries
// address - 0x2C00. source: Linux soc15d.h PACKET3_SET_SH_REG_START/END.
constexpr uint32_t kShRegStart = 0x2C00;
constexpr uint32_t kShRegEnd = 0x3000;
// UCONFIG space written by SET_UCONFIG_REG: [0xC000, 0xC400).
constexpr uint32_t kUconfigRegStart = 0xC000;
constexpr uint32_t kUconfigRegEnd = 0xC400;

// Dword addresses (GC register offset + the GC base 0x2000). source: Linux
// asic_reg/gc/gc_9_0_offset.h (mmCOMPUTE_*), gc_9_4_2_offset.h (gfx90a RSRC3),
// gc_10_1_0_offset.h (gfx10 RSRC3).
constexpr uint32_t kComputeDispatchInitiator = 0x2E00;
constexpr uint32_t kComputeDimX = 0x2E01;
constexpr uint32_t kComputeDimY = 0x2E02;
constexpr uint32_t kComputeDimZ = 0x2E03;
constexpr uint32_t kComputeStartX = 0x2E04;
constexpr uint32_t kComputeStartY = 0x2E05;
constexpr uint32_t kComputeStartZ = 0x2E06;
constexpr uint32_t kComputeNumThreadX = 0x2E07;
constexpr uint32_t kComputeNumThreadY = 0x2E08;
constexpr uint32_t kComputeNumThreadZ = 0x2E09;
constexpr uint32_t kComputePipelinestatEnable = 0x2E0A;
constexpr uint32_t kComputePerfcountEnable = 0x2E0B;
constexpr uint32_t kComputePgmLo = 0x2E0C;  // kernel code address >> 8
constexpr uint32_t kComputePgmHi = 0x2E0D;  // address >> 40
constexpr uint32_t kComputeDispatchPktAddrLo = 0x2E0E;
constexpr uint32_t kComputeDispatchPktAddrHi = 0x2E0F;
constexpr uint32_t kComputeDispatchScratchBaseLo = 0x2E10;
constexpr uint32_t kComputeDispatchScratchBaseHi = 0x2E11;
constexpr uint32_t kComputePgmRsrc1 = 0x2E12;
constexpr uint32_t kComputePgmRsrc2 = 0x2E13;
constexpr uint32_t kComputeVmid = 0x2E14;
constexpr uint32_t kComputeResourceLimits = 0x2E15;
constexpr uint32_t kComputeStaticThreadMgmtSe0 = 0x2E16;
constexpr uint32_t kComputeStaticThreadMgmtSe1 = 0x2E17;
constexpr uint32_t kComputeTmpringSize = 0x2E18;
constexpr uint32_t kComputeStaticThreadMgmtSe2 = 0x2E19;
constexpr uint32_t kComputeStaticThreadMgmtSe3 = 0x2E1A;
constexpr uint32_t kComputeRestartX = 0x2E1B;
constexpr uint32_t kComputeRestartY = 0x2E1C;
constexpr uint32_t kComputeRestartZ = 0x2E1D;
constexpr uint32_t kComputeThreadTraceEnable = 0x2E1E;
constexpr uint32_t kComputeMiscReserved = 0x2E1F;
constexpr uint32_t kComputeDispatchId = 0x2E20;
constexpr uint32_t kComputeThreadgroupId = 0x2E21;
constexpr uint32_t kComputeRelaunch = 0x2E22;
constexpr uint32_t kComputeWaveRestoreAddrLo = 0x2E23;
constexpr uint32_t kComputeWaveRestoreAddrHi = 0x2E24;
// COMPUTE_PGM_RSRC3 exists on gfx90a/gfx94x at 0x2E2D; gfx10+ put it at 0x2E28, which on gfx9
// parts with 8 shader engines is COMPUTE_STATIC_THREAD_MGMT_SE7.
constexpr uint32_t kComputePgmRsrc3Gfx90a = 0x2E2D;
constexpr uint32_t kComputePgmRsrc3Gfx10 = 0x2E28;
constexpr uint32_t kComputeUserData0 = 0x2E40;  // COMPUTE_USER_DATA_0 .. _15
constexpr uint32_t kComputeUserDataCount = 16;

// UCONFIG registers a compute queue may write: GRBM_GFX_INDEX selects the shader engine / array
// / instance later register accesses go to. source: Linux gc_9_0_offset.h (mmGRBM_GFX_INDEX).
constexpr uint32_t kGrbmGfxIndex = 0xC200;

// COMPUTE_DISPATCH_INITIATOR bits. source: gc_9_0_sh_mask.h COMPUTE_DISPATCH_INITIATOR__*.
namespace initiator {
constexpr uint32_t kComputeShaderEn = 1u << 0;
constexpr uint32_t kPartialTgEn = 1u << 1;
constexpr uint32_t kForceStartAt000 = 1u << 2;
constexpr uint32_t kOrderedAppendEnbl = 1u << 3;
constexpr uint32_t kOrderedAppendMode = 1u << 4;
// DIM_X/Y/Z count threads (1) rather than thread groups (0).
constexpr uint32_t kUseThreadDimensions = 1u << 5;
constexpr uint32_t kOrderMode = 1u << 6;
constexpr uint32_t kScalarL1InvVol = 1u << 10;
constexpr uint32_t kVectorL1InvVol = 1u << 11;
constexpr uint32_t kRestore = 1u << 14;
constexpr uint32_t kCsW32En = 1u << 15;  // gfx10+: wave32 dispatch
}  // namespace initiator

// COMPUTE_NUM_THREAD_X/Y/Z: NUM_THREAD_FULL [15:0], NUM_THREAD_PARTIAL [31:16].
constexpr uint32_t num_thread(uint32_t full) { return full & 0xFFFFu; }
constexpr uint32_t num_thread_full(uint32_t v) { return v & 0xFFFFu; }
// With DISPATCH_INITIATOR.PARTIAL_TG_EN, the size of the last workgroup along the axis
// (gc_9_0_sh_mask.h COMPUTE_NUM_THREAD_X__NUM_THREAD_PARTIAL).
constexpr uint32_t num_thread(uint32_t full, uint32_t partial) {
  return (full & 0xFFFFu) | (partial & 0xFFFFu) << 16;
}
constexpr uint32_t num_thread_partial(uint32_t v) { return v >> 16; }

// COMPUTE_PGM_LO/HI: the 256-byte aligned code address, split as address >> 8 and >> 40.
constexpr uint32_t pgm_lo(uint64_t code) { return uint32_t(code >> 8); }
constexpr uint32_t pgm_hi(uint64_t code) { return uint32_t(code >> 40) & 0xFFu; }
constexpr uint64_t pgm_address(uint32_t lo, uint32_t hi) {
  return (uint64_t(hi & 0xFFu) << 40) | (uint64_t(lo) << 8);
}

// COMPUTE_RESOURCE_LIMITS: WAVES_PER_SH [9:0], TG_PER_CU [15:12], LOCK_THRESHOLD [21:16],
// SIMD_DEST_CNTL 22, FORCE_SIMD_DIST 23, CU_GROUP_COUNT [26:24]. 0 means "no limit".
namespace resource_limits {
constexpr uint32_t waves_per_sh(uint32_t v) { return v & 0x3FFu; }
constexpr uint32_t tg_per_cu(uint32_t v) { return (v >> 12) & 0xFu; }
}  // namespace resource_limits

// COMPUTE_PGM_RSRC2.LDS_SIZE [23:15]: the dispatch's LDS in the family's granule (the CP fills
// it from the AQL packet; a PM4 dispatch writes it itself).
// TRAP_PRESENT (bit 6): waves start with the trap handler the driver installed (kfdtest sets it
// for PM4 dispatches before gfx12; gc_9_0_sh_mask.h COMPUTE_PGM_RSRC2__TRAP_PRESENT_MASK).
constexpr uint32_t kRsrc2TrapPresent = 1u << 6;
constexpr uint32_t kRsrc2LdsSizeShift = 15;
constexpr uint32_t kRsrc2LdsSizeMask = 0x1FFu << kRsrc2LdsSizeShift;

}  // namespace pm4::reg
