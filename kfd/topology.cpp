// SPDX-License-Identifier: MIT
// Reads and parses the KFD sysfs topology with the generation_id retry the thunk uses.
#include "kfd/topology.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace kfd {

namespace {

uint32_t get32(const PropertyMap& m, std::string_view key, uint32_t def = 0) {
  auto it = m.find(key);
  return it == m.end() ? def : uint32_t(it->second);
}
uint64_t get64(const PropertyMap& m, std::string_view key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

base::Result<PropertyMap> read_properties(const std::string& path) {
  KFD_ASSIGN(std::string text, read_text_file(path));
  auto map = parse_properties(text);
  if (!map) return map.error().context(path);
  return map;
}

MemBank mem_bank_from(PropertyMap m) {
  MemBank b;
  b.heap_type = get32(m, "heap_type");
  b.size_in_bytes = get64(m, "size_in_bytes");
  b.flags = get32(m, "flags");
  b.width = get32(m, "width");
  b.mem_clk_max = get32(m, "mem_clk_max");
  b.raw = std::move(m);
  return b;
}

Cache cache_from(PropertyMap m) {
  Cache c;
  c.processor_id_low = get32(m, "processor_id_low");
  c.level = get32(m, "level");
  c.size_kb = get32(m, "size");
  c.cache_line_size = get32(m, "cache_line_size");
  c.cache_lines_per_tag = get32(m, "cache_lines_per_tag");
  c.association = get32(m, "association");
  c.latency = get32(m, "latency");
  c.type = get32(m, "type");
  c.raw = std::move(m);
  return c;
}

IoLink io_link_from(PropertyMap m) {
  IoLink l;
  l.type = get32(m, "type");
  l.node_from = get32(m, "node_from");
  l.node_to = get32(m, "node_to");
  l.weight = get32(m, "weight");
  l.min_latency = get32(m, "min_latency");
  l.max_latency = get32(m, "max_latency");
  l.min_bandwidth = get32(m, "min_bandwidth");
  l.max_bandwidth = get32(m, "max_bandwidth");
  l.flags = get32(m, "flags");
  l.raw = std::move(m);
  return l;
}

// Reads dir/0/properties, dir/1/properties, ... until one does not exist.
template <class T, class Make>
base::Result<std::vector<T>> read_numbered(const std::string& dir, Make make) {
  std::vector<T> out;
  for (uint32_t i = 0;; ++i) {
    auto props = read_properties(dir + "/" + std::to_string(i) + "/properties");
    if (!props) {
      if (props.err() == ENOENT) break;
      return props.error();
    }
    out.push_back(make(std::move(*props)));
  }
  return out;
}

base::Result<uint64_t> read_number(const std::string& path) {
  KFD_ASSIGN(std::string text, read_text_file(path));
  char* end = nullptr;
  errno = 0;
  uint64_t v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || errno != 0)
    return base::Error::msg(path + ": not a number: '" + trim(text) + "'", EINVAL);
  return v;
}

base::Result<Node> read_node(const std::string& dir, uint32_t index, PropertyMap props) {
  Node n;
  n.index = index;
  KFD_ASSIGN(uint64_t gpu_id, read_number(dir + "/gpu_id"));
  n.gpu_id = uint32_t(gpu_id);
  auto name = read_text_file(dir + "/name");
  if (name) n.name = trim(*name);
  n.props = node_properties_from(props);
  if (!n.is_gpu()) n.props.num_xcc = get32(props, "num_xcc", 0);
  n.raw = std::move(props);
  KFD_ASSIGN(n.mem_banks, read_numbered<MemBank>(dir + "/mem_banks", mem_bank_from));
  KFD_ASSIGN(n.caches, read_numbered<Cache>(dir + "/caches", cache_from));
  KFD_ASSIGN(n.io_links, read_numbered<IoLink>(dir + "/io_links", io_link_from));
  return n;
}

base::Result<Topology> read_once(const std::string& root) {
  Topology t;
  KFD_ASSIGN(t.generation_id, read_number(root + "/generation_id"));
  KFD_ASSIGN(t.system.raw, read_properties(root + "/system_properties"));
  t.system.platform_oem = get64(t.system.raw, "platform_oem");
  t.system.platform_id = get64(t.system.raw, "platform_id");
  t.system.platform_rev = get64(t.system.raw, "platform_rev");
  for (uint32_t i = 0;; ++i) {
    const std::string dir = root + "/nodes/" + std::to_string(i);
    auto props = read_properties(dir + "/properties");
    if (!props) {
      if (props.err() == ENOENT) break;
      // A node this process may not use (device cgroup) reads as EPERM: skip it, as the thunk.
      if (props.err() == EPERM || props.err() == EACCES) continue;
      return props.error();
    }
    KFD_ASSIGN(Node node, read_node(dir, i, std::move(*props)));
    t.nodes.push_back(std::move(node));
  }
  return t;
}

}  // namespace

base::Result<std::string> read_text_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::Error::from_errno("open " + path, errno);
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return base::Error::from_errno("read " + path, e);
    }
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return out;
}

base::Result<PropertyMap> parse_properties(std::string_view text) {
  PropertyMap map;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_no;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0)
      return base::Error::msg("properties line " + std::to_string(line_no) + ": expected 'key value': '" +
                            std::string(line) + "'", EINVAL);
    std::string key(line.substr(0, sp));
    std::string value(line.substr(line.find_first_not_of(' ', sp)));
    char* end = nullptr;
    errno = 0;
    uint64_t v = std::strtoull(value.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || value[0] == '-') continue;  // e.g. sibling_map lists
    map[key] = v;
  }
  return map;
}

NodeProperties node_properties_from(const PropertyMap& m) {
  NodeProperties p;
  p.cpu_cores_count = get32(m, "cpu_cores_count");
  p.simd_count = get32(m, "simd_count");
  p.mem_banks_count = get32(m, "mem_banks_count");
  p.caches_count = get32(m, "caches_count");
  p.io_links_count = get32(m, "io_links_count");
  p.cpu_core_id_base = get32(m, "cpu_core_id_base");
  p.simd_id_base = get32(m, "simd_id_base");
  p.max_waves_per_simd = get32(m, "max_waves_per_simd");
  p.lds_size_in_kb = get32(m, "lds_size_in_kb");
  p.gds_size_in_kb = get32(m, "gds_size_in_kb");
  p.wave_front_size = get32(m, "wave_front_size");
  p.array_count = get32(m, "array_count");
  p.simd_arrays_per_engine = get32(m, "simd_arrays_per_engine");
  p.cu_per_simd_array = get32(m, "cu_per_simd_array");
  p.simd_per_cu = get32(m, "simd_per_cu");
  p.max_slots_scratch_cu = get32(m, "max_slots_scratch_cu");
  p.gfx_target_version = get32(m, "gfx_target_version");
  p.vendor_id = get32(m, "vendor_id");
  p.device_id = get32(m, "device_id");
  p.location_id = get32(m, "location_id");
  p.domain = get32(m, "domain");
  p.drm_render_minor = get32(m, "drm_render_minor");
  p.hive_id = get64(m, "hive_id");
  p.unique_id = get64(m, "unique_id");
  p.capability = get64(m, "capability");
  p.local_mem_size = get64(m, "local_mem_size");
  p.fw_version = get32(m, "fw_version");
  p.sdma_fw_version = get32(m, "sdma_fw_version");
  p.max_engine_clk_fcompute = get32(m, "max_engine_clk_fcompute");
  p.max_engine_clk_ccompute = get32(m, "max_engine_clk_ccompute");
  p.num_cp_queues = get32(m, "num_cp_queues");
  p.num_sdma_engines = get32(m, "num_sdma_engines");
  p.num_sdma_xgmi_engines = get32(m, "num_sdma_xgmi_engines");
  p.num_sdma_queues_per_engine = get32(m, "num_sdma_queues_per_engine");
  p.num_gws = get32(m, "num_gws");
  p.num_xcc = get32(m, "num_xcc", 1);
  p.cwsr_size = get32(m, "cwsr_size");
  p.ctl_stack_size = get32(m, "ctl_stack_size");
  return p;
}

std::string gfx_name(uint32_t v) {
  if (v == 0) return {};
  static const char digits[] = "0123456789abcdef";
  uint32_t major = v / 10000, minor = (v / 100) % 100, stepping = v % 100;
  std::string s = "gfx" + std::to_string(major);
  // Minor and stepping are single hex digits in target names; larger values cannot be named.
  if (minor > 15 || stepping > 15) return s + "?" + std::to_string(v);
  s += digits[minor];
  s += digits[stepping];
  return s;
}

uint32_t Node::cu_count() const {
  if (!is_gpu()) return props.cpu_cores_count;
  return props.simd_per_cu ? props.simd_count / props.simd_per_cu : 0;
}

std::string Node::gfx_name() const { return is_gpu() ? kfd::gfx_name(props.gfx_target_version) : ""; }

uint64_t Node::vram_size() const {
  uint64_t total = 0;
  for (const MemBank& b : mem_banks)
    if (b.heap_type == uint32_t(HeapType::FrameBufferPublic) ||
        b.heap_type == uint32_t(HeapType::FrameBufferPrivate))
      total += b.size_in_bytes;
  return total;
}

std::vector<const Node*> Topology::gpus() const {
  std::vector<const Node*> out;
  for (const Node& n : nodes)
    if (n.is_gpu()) out.push_back(&n);
  return out;
}

const Node* Topology::find_gpu(uint32_t gpu_id) const {
  for (const Node& n : nodes)
    if (gpu_id != 0 && n.gpu_id == gpu_id) return &n;
  return nullptr;
}

base::Result<Topology> read_topology_at(const std::string& root) {
  for (int attempt = 0; attempt < kTopologyAttempts; ++attempt) {
    KFD_ASSIGN(Topology t, read_once(root));
    KFD_ASSIGN(uint64_t gen, read_number(root + "/generation_id"));
    if (gen == t.generation_id) return t;
  }
  return base::Error::msg("KFD topology at " + root + " kept changing (generation_id) while being read",
                    EAGAIN);
}

base::Result<Topology> read_topology() { return read_topology_at(kTopologyRoot); }

}  // namespace kfd
