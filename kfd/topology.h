// SPDX-License-Identifier: MIT
// KFD topology read from sysfs (/sys/devices/virtual/kfd/kfd/topology): nodes, memory, caches, links.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kfd/node_properties.h"
#include "base/result.h"

namespace kfd {

// `key value` lines of a sysfs properties file; values are unsigned decimal numbers.
using PropertyMap = std::map<std::string, uint64_t, std::less<>>;

constexpr const char* kTopologyRoot = "/sys/devices/virtual/kfd/kfd/topology";

// HSA heap types in mem_banks/M/properties (heap_type).
enum class HeapType : uint32_t {
  System = 0,
  FrameBufferPublic = 1,
  FrameBufferPrivate = 2,
  Gpu_Gds = 3,
  Gpu_Lds = 4,
  Gpu_Scratch = 5,
};

struct MemBank {
  uint32_t heap_type = 0;
  uint64_t size_in_bytes = 0;
  uint32_t flags = 0;
  uint32_t width = 0;
  uint32_t mem_clk_max = 0;
  PropertyMap raw;
};

// Cache type bits in caches/C/properties (type): data 1, instruction 2, CPU 4, HSA CU 8.
struct Cache {
  uint32_t processor_id_low = 0;
  uint32_t level = 0;
  uint32_t size_kb = 0;  // key "size"
  uint32_t cache_line_size = 0;
  uint32_t cache_lines_per_tag = 0;
  uint32_t association = 0;
  uint32_t latency = 0;
  uint32_t type = 0;
  PropertyMap raw;  // numeric keys; "sibling_map" is a list and is not kept
};

// io_link type: 2 PCIe, 11 XGMI (HSA_IOLINKTYPE_*).
struct IoLink {
  uint32_t type = 0;
  uint32_t node_from = 0;
  uint32_t node_to = 0;
  uint32_t weight = 0;
  uint32_t min_latency = 0;
  uint32_t max_latency = 0;
  uint32_t min_bandwidth = 0;
  uint32_t max_bandwidth = 0;
  uint32_t flags = 0;
  PropertyMap raw;
};

struct Node {
  uint32_t index = 0;   // N in nodes/N
  uint32_t gpu_id = 0;  // 0 for a CPU node
  std::string name;     // nodes/N/name, e.g. "ip discovery" or "" for CPUs
  NodeProperties props;
  PropertyMap raw;      // every numeric key of nodes/N/properties
  std::vector<MemBank> mem_banks;
  std::vector<Cache> caches;
  std::vector<IoLink> io_links;

  bool is_gpu() const { return gpu_id != 0; }
  // Compute units: simd_count / simd_per_cu (CPU nodes: cpu_cores_count).
  uint32_t cu_count() const;
  // "gfx90a" for gfx_target_version 90010; "" for a CPU node.
  std::string gfx_name() const;
  // Sum of the sizes of the node's frame-buffer banks (public and private).
  uint64_t vram_size() const;
};

struct SystemProperties {
  uint64_t platform_oem = 0;
  uint64_t platform_id = 0;
  uint64_t platform_rev = 0;
  PropertyMap raw;
};

struct Topology {
  uint64_t generation_id = 0;
  SystemProperties system;
  std::vector<Node> nodes;

  std::vector<const Node*> gpus() const;
  const Node* find_gpu(uint32_t gpu_id) const;
};

// Parses `key value` lines. Lines whose value is not a number (sibling_map) are skipped; a
// line without a value is an error.
base::Result<PropertyMap> parse_properties(std::string_view text);

// Typed fields from a node's property map (unknown keys ignored, missing ones 0; num_xcc 1).
NodeProperties node_properties_from(const PropertyMap& map);

// gfx name from gfx_target_version: major = v/10000, minor = (v/100)%100, stepping = v%100,
// minor and stepping as hex digits: 90010 -> "gfx90a", 110000 -> "gfx1100", 90402 -> "gfx942".
std::string gfx_name(uint32_t gfx_target_version);

// How many times read_topology reads the tree before giving up on a changing generation_id.
constexpr int kTopologyAttempts = 10;

// Reads the whole topology, retrying while generation_id changes under us (kTopologyAttempts).
base::Result<Topology> read_topology();
// Same, under another root directory. For unit tests with a canned tree only.
base::Result<Topology> read_topology_at(const std::string& root);

// Reads a small sysfs/procfs text file with open/read (so an LD_PRELOADed emulator sees it).
base::Result<std::string> read_text_file(const std::string& path);

}  // namespace kfd
