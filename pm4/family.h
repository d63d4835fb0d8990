// SPDX-License-Identifier: MIT
// One table of per-generation hardware facts (constexpr), chosen once per GPU from its gfx_target_version.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "pm4/regs.h"

namespace pm4 {

// Which COMPUTE_PGM_RSRC3 layout a family has (AMDGPUUsage "compute_pgm_rsrc3"): none before
// gfx90a, ACCUM_OFFSET/TG_SPLIT on gfx90a and gfx94x/gfx950, SHARED_VGPR_COUNT... on gfx10+.
enum class Rsrc3Layout : uint8_t { None, Gfx90a, Gfx10 };

// ACQUIRE_MEM form: 7 dwords with COHER_CNTL cache actions (gfx9), or 8 dwords ending in
// GCR_CNTL (gfx10+). source: Linux soc15d.h / nvd.h PACKET3_ACQUIRE_MEM.
enum class AcquireMemForm : uint8_t { Gfx9, Gfx10 };

// Everything kfdrt asks about a GPU generation. Rows are matched by gfx_target_version
// (major*10000 + minor*100 + stepping); a row lists the exact versions it covers.
struct Family {
  const char* name = "";            // row name, e.g. "gfx90a" or "gfx9" (gfx900..gfx90c)
  uint32_t versions[8] = {};             // gfx_target_version values this row covers (0-terminated)
  uint32_t major;                   // GFX IP major version

  // Register files, per SIMD lane (LLVM AMDGPUBaseInfo getTotalNumVGPRs / getVGPRAllocGranule /
  // getVGPREncodingGranule; AMDGPUUsage "compute_pgm_rsrc1" GRANULATED_WORKITEM_VGPR_COUNT).
  uint16_t vgprs_wave64;            // VGPRs a SIMD has for wave64 waves (gfx90a+: VGPRs + AGPRs)
  uint16_t vgprs_wave32;            // 0 when the family has no wave32
  uint8_t vgpr_alloc_granule_wave64, vgpr_alloc_granule_wave32;
  uint8_t vgpr_encode_granule_wave64, vgpr_encode_granule_wave32;
  bool unified_agprs;               // AGPRs share the VGPR file (RSRC3.ACCUM_OFFSET places them)
  uint16_t sgprs;                   // SGPRs per SIMD that limit occupancy; 0: not a limit (gfx10+)
  uint8_t sgpr_alloc_granule;
  uint8_t max_waves_per_simd;       // hardware wave slots per SIMD
  uint32_t lds_granule_bytes;       // COMPUTE_PGM_RSRC2.LDS_SIZE unit (AMDGPUUsage)
  uint32_t lds_bytes_per_group;     // LDS one workgroup can have (64 KiB; 160 KiB on gfx950)

  // Initial wave state (AMDGPUUsage "Initial Kernel Execution State").
  bool packed_work_item_ids;        // v0 = x | y << 10 | z << 20 (gfx90a, gfx94x, gfx11+)
  bool architected_flat_scratch;    // FLAT_SCRATCH set by the SPI (gfx94x, gfx12)

  // COMPUTE_TMPRING_SIZE (ROCr registers.h COMPUTE_TMPRING_SIZE[_GFX11|_GFX12]): WAVES at bit 0.
  uint8_t tmpring_waves_bits;
  uint8_t tmpring_wavesize_shift, tmpring_wavesize_bits;
  uint32_t tmpring_wavesize_unit;   // bytes per WAVESIZE unit

  // PM4 registers and packet forms.
  uint32_t compute_pgm_rsrc3_reg;   // dword address of COMPUTE_PGM_RSRC3; 0 when absent
  Rsrc3Layout rsrc3;
  AcquireMemForm acquire_mem;

  // Context save/restore sizes the driver validates (Linux kfd_queue.c).
  uint32_t cwsr_vgpr_bytes_per_cu;  // kfd_get_vgpr_size_per_cu
  uint8_t ctl_stack_bytes_per_wave; // 8 on gfx9, 12 on gfx10+
  uint32_t ctl_stack_max;           // upper bound of the control stack (0x7000 on gfx10), 0 none
  uint32_t cwsr_waves_per_cu;       // waves the control stack holds per CU (40 gfx9, 32 gfx10+)
  uint32_t cwsr_waves_per_se;       // cap per shader engine (512 on gfx9), 0 none
  bool cwsr_lds_from_node;          // the save area holds the node's LDS size, not 64 KiB (gfx950)

  // SDMA engine (Linux vega10/navi10/sdma_v6/v7 packet headers).
  uint8_t sdma_version;             // 4 on gfx9, 5 on gfx10, 6 on gfx11, 7 on gfx12
  uint8_t sdma_count_bits;          // width of COPY_LINEAR / CONSTANT_FILL count (22 on v4, 30 v5+)
  uint32_t sdma_max_copy_bytes;     // bytes one COPY_LINEAR should carry (kept a multiple of 32)

  constexpr bool covers(uint32_t v) const {
    for (uint32_t x : versions) {
      if (x == 0) break;
      if (x == v) return true;
    }
    return false;
  }
  // VGPRs the RSRC1 granulated count stands for.
  uint32_t vgprs_from_rsrc1_blocks(uint32_t blocks, bool wave32) const {
    return (blocks + 1) * (wave32 ? vgpr_encode_granule_wave32 : vgpr_encode_granule_wave64);
  }
};

namespace family_detail {

// Facts, row by row:
// - VGPR totals and granules: LLVM AMDGPUBaseInfo.cpp (getTotalNumVGPRs, getVGPRAllocGranule,
//   getVGPREncodingGranule: 8 on gfx90a-class parts, 1.5x VGPRs on gfx1100/1101/1151/12xx).
// - wave slots: LLVM getMaxWavesPerEU (10 on gfx9, 8 on gfx90a/94x, 20 on gfx10.1, 16 after).
// - LDS_SIZE granule: AMDGPUUsage compute_pgm_rsrc2 (128 dwords; 320 dwords on gfx950).
// - TMPRING: ROCr registers.h (13-bit WAVESIZE in KiB before gfx11; 15 bits of 256 B on gfx11;
//   18 bits of 256 B on gfx12).
// - CWSR: Linux kfd_queue.c (kfd_get_vgpr_size_per_cu, kfd_queue_ctx_save_restore_size).
// - SDMA: Linux vega10_sdma_pkt_open.h (v4, 22-bit counts), navi10_sdma_pkt_open.h and later
//   (30-bit counts); ROCr keeps one COPY_LINEAR at or under 0x3fffe0 bytes on v4.
constexpr uint32_t kSdma4MaxCopy = 0x3fffe0;
constexpr uint32_t kSdma5MaxCopy = 0x3fffffe0;

// The gfx9 baseline (gfx900 .. gfx90c); later rows start from it or from gfx10.1 and change
// what differs.
constexpr Family gfx9() {
  Family f;
  f.name = "gfx9";
  uint32_t v[] = {90000, 90002, 90004, 90006, 90009, 90012};
  for (unsigned i = 0; i < sizeof v / sizeof v[0]; ++i) f.versions[i] = v[i];
  f.major = 9;
  f.vgprs_wave64 = 256, f.vgprs_wave32 = 0;
  f.vgpr_alloc_granule_wave64 = 4, f.vgpr_alloc_granule_wave32 = 0;
  f.vgpr_encode_granule_wave64 = 4, f.vgpr_encode_granule_wave32 = 0;
  f.unified_agprs = false;
  f.sgprs = 800, f.sgpr_alloc_granule = 16;
  f.max_waves_per_simd = 10;
  f.lds_granule_bytes = 128 * 4, f.lds_bytes_per_group = 64 * 1024;
  f.packed_work_item_ids = false, f.architected_flat_scratch = false;
  f.tmpring_waves_bits = 12, f.tmpring_wavesize_shift = 12, f.tmpring_wavesize_bits = 13;
  f.tmpring_wavesize_unit = 1024;
  f.compute_pgm_rsrc3_reg = 0, f.rsrc3 = Rsrc3Layout::None, f.acquire_mem = AcquireMemForm::Gfx9;
  f.cwsr_vgpr_bytes_per_cu = 0x40000, f.ctl_stack_bytes_per_wave = 8, f.ctl_stack_max = 0;
  f.cwsr_waves_per_cu = 40, f.cwsr_waves_per_se = 512, f.cwsr_lds_from_node = false;
  f.sdma_version = 4, f.sdma_count_bits = 22, f.sdma_max_copy_bytes = kSdma4MaxCopy;
  return f;
}

constexpr Family with_versions(Family f, const char* name, std::initializer_list<uint32_t> v) {
  f.name = name;
  unsigned i = 0;
  for (uint32_t x : v) f.versions[i++] = x;
  for (; i < sizeof f.versions / sizeof f.versions[0]; ++i) f.versions[i] = 0;
  return f;
}

constexpr Family gfx908() {
  Family f = with_versions(gfx9(), "gfx908", {90008});
  f.cwsr_vgpr_bytes_per_cu = 0x80000;  // ArchVGPRs and AccVGPRs are saved
  return f;
}

constexpr Family gfx90a() {
  Family f = with_versions(gfx9(), "gfx90a", {90010});
  f.vgprs_wave64 = 512, f.vgpr_alloc_granule_wave64 = 8, f.vgpr_encode_granule_wave64 = 8;
  f.unified_agprs = true;
  f.max_waves_per_simd = 8;
  f.packed_work_item_ids = true;
  f.compute_pgm_rsrc3_reg = reg::kComputePgmRsrc3Gfx90a, f.rsrc3 = Rsrc3Layout::Gfx90a;
  f.cwsr_vgpr_bytes_per_cu = 0x80000;
  return f;
}

constexpr Family gfx94x() {
  Family f = with_versions(gfx90a(), "gfx94x", {90400, 90401, 90402});
  f.architected_flat_scratch = true;
  return f;
}

constexpr Family gfx950() {
  Family f = with_versions(gfx94x(), "gfx950", {90500});
  f.lds_granule_bytes = 320 * 4, f.lds_bytes_per_group = 160 * 1024;
  f.cwsr_lds_from_node = true;
  return f;
}

constexpr Family gfx10_1() {
  Family f = with_versions(gfx9(), "gfx10.1", {100100, 100101, 100102, 100103});
  f.major = 10;
  f.vgprs_wave64 = 512, f.vgprs_wave32 = 1024;
  f.vgpr_alloc_granule_wave64 = 4, f.vgpr_alloc_granule_wave32 = 8;
  f.vgpr_encode_granule_wave64 = 4, f.vgpr_encode_granule_wave32 = 8;
  f.sgprs = 0, f.sgpr_alloc_granule = 0;
  f.max_waves_per_simd = 20;
  f.compute_pgm_rsrc3_reg = reg::kComputePgmRsrc3Gfx10, f.rsrc3 = Rsrc3Layout::Gfx10;
  f.acquire_mem = AcquireMemForm::Gfx10;
  f.ctl_stack_bytes_per_wave = 12, f.ctl_stack_max = 0x7000;
  f.cwsr_waves_per_cu = 32, f.cwsr_waves_per_se = 0;
  f.sdma_version = 5, f.sdma_count_bits = 30, f.sdma_max_copy_bytes = kSdma5MaxCopy;
  return f;
}

constexpr Family gfx10_3() {
  Family f = with_versions(gfx10_1(), "gfx10.3",
                           {100300, 100301, 100302, 100303, 100304, 100305, 100306});
  f.vgpr_alloc_granule_wave64 = 8, f.vgpr_alloc_granule_wave32 = 16;
  f.max_waves_per_simd = 16;
  return f;
}

// gfx11 without the larger register file (gfx1102, gfx1103, gfx1150, gfx1152, gfx1153).
constexpr Family gfx11() {
  Family f = with_versions(gfx10_3(), "gfx11", {110002, 110003, 110500, 110502, 110503});
  f.major = 11;
  f.packed_work_item_ids = true;
  f.tmpring_wavesize_bits = 15, f.tmpring_wavesize_unit = 256;
  f.ctl_stack_max = 0;
  f.sdma_version = 6;
  return f;
}

// gfx1151 has 1.5x VGPRs (LLVM) but the default CWSR VGPR area (kfd_queue.c).
constexpr Family gfx1151() {
  Family f = with_versions(gfx11(), "gfx1151", {110501});
  f.vgprs_wave64 = 768, f.vgprs_wave32 = 1536;
  f.vgpr_alloc_granule_wave64 = 12, f.vgpr_alloc_granule_wave32 = 24;
  return f;
}

constexpr Family gfx1100() {
  Family f = with_versions(gfx1151(), "gfx1100", {110000, 110001});
  f.cwsr_vgpr_bytes_per_cu = 0x60000;
  return f;
}

constexpr Family gfx12() {
  Family f = with_versions(gfx1100(), "gfx12", {120000, 120001});
  f.major = 12;
  f.architected_flat_scratch = true;
  f.tmpring_wavesize_bits = 18;
  f.sdma_version = 7;
  return f;
}

constexpr Family kFamilies[] = {gfx9(),  gfx908(),  gfx90a(), gfx94x(),  gfx950(), gfx10_1(),
                                gfx10_3(), gfx11(), gfx1151(), gfx1100(), gfx12()};

}  // namespace family_detail

// The row for a gfx_target_version, nullptr when kfdrt knows nothing of it.
constexpr const Family* family_for(uint32_t gfx_target_version) {
  if (gfx_target_version == 0) return nullptr;
  for (const Family& f : family_detail::kFamilies)
    if (f.covers(gfx_target_version)) return &f;
  return nullptr;
}

// Which target features (target-id "sramecc" and "xnack" settings) a processor has.
// source: LLVM AMDGPUUsage "AMDGPU Processors" table (the Target Features column).
struct TargetFeatures {
  bool sramecc = false;
  bool xnack = false;
};
constexpr TargetFeatures target_features(uint32_t gfx_target_version) {
  TargetFeatures t;
  const uint32_t v = gfx_target_version;
  t.sramecc = v == 90006 || v == 90008 || v == 90010 || (v >= 90400 && v <= 90402) || v == 90500;
  t.xnack = (v >= 90000 && v < 100000) || (v >= 100100 && v <= 100103);
  return t;
}

// gfx_target_version of a processor name: "gfx90a" -> 90010, "gfx1100" -> 110000; 0 if malformed.
// "gfx" + major (decimal) + minor (one hex digit) + stepping (one hex digit).
constexpr uint32_t gfx_target_version_of(std::string_view p) {
  if (p.size() < 6 || p.substr(0, 3) != "gfx") return 0;
  auto hexdigit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int stepping = hexdigit(p[p.size() - 1]), minor = hexdigit(p[p.size() - 2]);
  if (stepping < 0 || minor < 0) return 0;
  uint32_t major = 0;
  for (char c : p.substr(3, p.size() - 5)) {
    if (c < '0' || c > '9') return 0;
    major = major * 10 + uint32_t(c - '0');
  }
  if (major == 0 || major > 99) return 0;
  return major * 10000 + uint32_t(minor) * 100 + uint32_t(stepping);
}

// The row for a processor name ("gfx90a", "gfx1100"), nullptr when unknown.
constexpr const Family* family_for_processor(std::string_view processor) {
  return family_for(gfx_target_version_of(processor));
}

}  // namespace pm4
