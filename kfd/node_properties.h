// SPDX-License-Identifier: MIT
// Typed view of a KFD topology node's `properties` file (the keys runtimes use), dependency-free.
#pragma once

#include <cstdint>

namespace kfd {

// One field per key of /sys/devices/virtual/kfd/kfd/topology/nodes/N/properties that a runtime
// reads (libhsakmt topology.c, Linux kfd_topology.c). Missing keys stay 0, except num_xcc which defaults to 1 on a GPU node.
// Kept free of std::string/map so that emu/ can fill it too and share queue_sizes.h.
struct NodeProperties {
  uint32_t cpu_cores_count = 0;
  uint32_t simd_count = 0;
  uint32_t mem_banks_count = 0;
  uint32_t caches_count = 0;
  uint32_t io_links_count = 0;
  uint32_t cpu_core_id_base = 0;
  uint32_t simd_id_base = 0;
  uint32_t max_waves_per_simd = 0;
  uint32_t lds_size_in_kb = 0;
  uint32_t gds_size_in_kb = 0;
  uint32_t wave_front_size = 0;
  uint32_t array_count = 0;
  uint32_t simd_arrays_per_engine = 0;
  uint32_t cu_per_simd_array = 0;
  uint32_t simd_per_cu = 0;
  uint32_t max_slots_scratch_cu = 0;
  uint32_t gfx_target_version = 0;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t location_id = 0;
  uint32_t domain = 0;
  uint32_t drm_render_minor = 0;
  uint64_t hive_id = 0;
  uint64_t unique_id = 0;
  uint64_t capability = 0;
  uint64_t local_mem_size = 0;
  uint32_t fw_version = 0;
  uint32_t sdma_fw_version = 0;
  uint32_t max_engine_clk_fcompute = 0;
  uint32_t max_engine_clk_ccompute = 0;
  uint32_t num_cp_queues = 0;
  uint32_t num_sdma_engines = 0;
  uint32_t num_sdma_xgmi_engines = 0;
  uint32_t num_sdma_queues_per_engine = 0;
  uint32_t num_gws = 0;
  uint32_t num_xcc = 1;
  // Newer kernels also publish the queue buffer sizes they validate against (0 when absent).
  uint32_t cwsr_size = 0;
  uint32_t ctl_stack_size = 0;
};

}  // namespace kfd
