// SPDX-License-Identifier: MIT
// Static description of the emulated GPUs: targets, topology properties and configuration.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emu/control.h"

namespace emu {

// What distinguishes one emulated gfx target from another (facts: KFD topology of real parts).
struct TargetInfo {
  const char* name;             // "gfx90a"
  const char* asic;             // KFD node name
  uint32_t gfx_target_version;  // major*10000 + minor*100 + stepping
  uint32_t device_id;           // PCI device id (amdgpu.ids gives the marketing name)
  uint32_t pci_rev;
  uint32_t drm_family;          // AMDGPU_FAMILY_*
  uint32_t lds_kb;
  uint32_t default_cus;
  uint32_t shader_engines;
  uint32_t num_xcc;
  uint32_t max_engine_clk_mhz;
  // SDMA engines amdkfd reports (kfd_device.c kfd_get_num_sdma_engines: at most 2 PCIe engines
  // when the part supports XGMI; the other instances are XGMI engines).
  uint32_t sdma_engines;
  uint32_t sdma_xgmi_engines;
  uint32_t gb_addr_config;      // GB_ADDR_CONFIG as the driver programs it (golden value)
};

const TargetInfo* find_target(const std::string& name);

// Global wave sync entries the topology reports (num_gws) and ALLOC_QUEUE_GWS hands out: the
// gfx9 GDS block's 64 (Linux gfx_v9_0.c gfx_v9_0_set_gds_init: gds.gws_size = 64).
constexpr uint32_t kNumGws = 64;

// One emulated GPU as the topology and the DRM node describe it.
struct GpuModel {
  uint32_t index;         // 0-based GPU index
  uint32_t node_id;       // KFD topology node (CPU is node 0)
  uint32_t gpu_id;        // KFD gpu_id
  uint32_t render_minor;  // 128 + index
  const TargetInfo* target;
  uint64_t vram_bytes;
  // The host-visible part of VRAM (the PCIe BAR): all of it on a large-BAR part, else smaller
  // (KFDEMU_VISIBLE_VRAM_MB). amdkfd calls a part large-BAR when no VRAM is private.
  uint64_t visible_vram_bytes;
  uint64_t gtt_bytes;
  uint32_t cus;
  uint32_t location_id;   // PCI bus/dev/fn
  uint64_t unique_id;
  std::vector<uint32_t> all_cus;  // enabled_cus without a mask: where a queue's dispatches run

  bool large_bar() const { return visible_vram_bytes >= vram_bytes; }
};

struct Model {
  kfdemu_config config;
  int log = 0;  // KFDEMU_LOG: 1 logs failures and unknown requests, 2 also traces every request
  std::vector<GpuModel> gpus;
  uint64_t host_mem_bytes = 0;
  uint32_t host_cores = 1;
};

// A KFDEMU_* integer setting: its value, or `dflt` when unset or not a number.
long env_long(const char* name, long dflt);

// The VRAM per GPU without KFDEMU_VRAM_MB: 64 GiB, but at most half the host's memory (its
// physical memory, or its cgroup's limit) shared by `gpus`, in whole GiB, at least 4 GiB.
uint64_t default_vram_bytes(int gpus);

// The process-wide model, built from the environment on first use (or kfdemu_configure).
const Model& model();
// Rebuilds the model from a configuration; false with a message when invalid.
bool set_config(const kfdemu_config& config, std::string* why);
// True once /dev/kfd or a render node has been opened (the model is frozen).
bool model_frozen();
void freeze_model();

const GpuModel* gpu_by_id(uint32_t gpu_id);
const GpuModel* gpu_by_minor(uint32_t minor);

// Topology "properties" text of a GPU node and of the CPU node.
std::string gpu_node_properties(const GpuModel& g);

// The compute units a queue's CU mask enables (AMDKFD_IOC_SET_CU_MASK's dwords; empty: every CU),
// in the order the workgroup distributor deals workgroups out to them, in the form of
// shader::Dispatch::cus (HW_ID's CU_ID [11:8], SH_ID [12], SE_ID [15:13], the XCC in [19:16]).
std::vector<uint32_t> enabled_cus(const GpuModel& g, const std::vector<uint32_t>& mask);
std::string cpu_node_properties();

void log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Like log, at KFDEMU_LOG=2 only: a trace of every ioctl and its result.
void trace(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace emu
