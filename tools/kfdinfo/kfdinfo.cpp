// SPDX-License-Identifier: MIT
// kfdinfo: lists the KFD agents (CPUs and GPUs) with their properties, like rocminfo; --json for JSON.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "kfd/kfd.h"
#include "pm4/queue_sizes.h"
#include "kfd/render_node.h"
#include "kfd/topology.h"
#include "tools/kfdinfo/report.h"

namespace {

using kfdinfo::Value;

std::string self_path() {
  char exe[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  return n > 0 ? std::string(exe, size_t(n)) : std::string("kfdinfo");
}

// Where libkfdemu.so would be if this binary runs from a build tree (<build>/tools/kfdinfo/).
std::string emulator_path() {
  std::string dir = self_path();
  if (dir.find('/') != std::string::npos) {
    for (int up = 0; up < 3 && dir.rfind('/') != std::string::npos; ++up)
      dir.resize(dir.rfind('/'));
    std::string lib = dir + "/emu/libkfdemu.so";
    if (access(lib.c_str(), R_OK) == 0) return lib;
  }
  return "<build>/emu/libkfdemu.so";
}

int fail(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "kfdinfo: %s\n", what.c_str());
  if (!detail.empty()) std::fprintf(stderr, "  (%s)\n", detail.c_str());
  std::fprintf(stderr,
               "To run on the emulated GPU instead:\n  LD_PRELOAD=%s %s\n",
               emulator_path().c_str(), self_path().c_str());
  return 1;
}

std::string cpu_model_name() {
  auto text = kfd::read_text_file("/proc/cpuinfo");
  if (!text) return {};
  size_t at = text->find("model name");
  if (at == std::string::npos) return {};
  size_t colon = text->find(':', at), eol = text->find('\n', at);
  if (colon == std::string::npos || colon > eol) return {};
  size_t start = text->find_first_not_of(' ', colon + 1);
  return start < eol ? text->substr(start, eol - start) : std::string();
}

const char* heap_name(uint32_t t) {
  switch (t) {
    case 0: return "system";
    case 1: return "frame buffer (public)";
    case 2: return "frame buffer (private)";
    case 3: return "GDS";
    case 4: return "LDS";
    case 5: return "scratch";
    default: return "unknown";
  }
}

Value memory_banks(const kfd::Node& n) {
  Value banks = Value::array();
  for (const auto& b : n.mem_banks) {
    Value m;
    m.add("heap", heap_name(b.heap_type));
    m.add("size_bytes", b.size_in_bytes);
    m.add("width_bits", b.width);
    m.add("max_clock_mhz", b.mem_clk_max);
    banks.push(std::move(m));
  }
  return banks;
}

Value caches(const kfd::Node& n) {
  Value out = Value::array();
  for (const auto& c : n.caches) {
    Value v;
    v.add("level", c.level);
    v.add("size_kb", c.size_kb);
    v.add("line_size", c.cache_line_size);
    v.add("associativity", c.association);
    v.add("type", c.type, true);
    out.push(std::move(v));
  }
  return out;
}

Value io_links(const kfd::Node& n) {
  Value out = Value::array();
  for (const auto& l : n.io_links) {
    Value v;
    v.add("type", l.type == 11 ? "XGMI" : l.type == 2 ? "PCIe" : std::to_string(l.type));
    v.add("from_node", l.node_from);
    v.add("to_node", l.node_to);
    v.add("weight", l.weight);
    out.push(std::move(v));
  }
  return out;
}

Value queue_info(const kfd::Node& n) {
  const auto& p = n.props;
  auto s = pm4::queue_buffer_sizes(p);
  Value q;
  q.add("hardware_compute_queues", p.num_cp_queues);
  q.add("sdma_engines", p.num_sdma_engines);
  q.add("sdma_xgmi_engines", p.num_sdma_xgmi_engines);
  q.add("sdma_queues_per_engine", p.num_sdma_queues_per_engine);
  q.add("max_queues_per_process", uint64_t(1024));
  q.add("min_ring_bytes", uint64_t(KFD_MIN_QUEUE_RING_SIZE), true);
  q.add("max_ring_bytes", uint64_t(1) << 32, true);
  q.add("eop_buffer_bytes", s.eop_size, true);
  q.add("ctl_stack_bytes", s.ctl_stack_size, true);
  q.add("cwsr_bytes_per_xcc", s.ctx_save_restore_size, true);
  q.add("debug_area_bytes_per_xcc", s.debug_memory_size, true);
  q.add("cwsr_buffer_bytes", s.cwsr_total, true);
  return q;
}

void add_render_info(Value& a, const kfd::Node& n) {
  auto rn = kfd::RenderNode::open(n.props.drm_render_minor);
  auto info = rn ? rn->query() : base::Result<kfd::GpuInfo>(rn.error());
  if (!info) {
    a.add("marketing_name", "");
    a.add("render_node_error", info.message());
    return;
  }
  a.add("marketing_name", info->marketing_name);
  Value d;
  d.add("render_node", rn->path());
  d.add("amdgpu_drm_version", std::to_string(info->drm_major) + "." + std::to_string(info->drm_minor));
  d.add("asic_id", info->asic_id, true);
  d.add("family_id", info->family_id);
  d.add("chip_rev", info->chip_rev);
  d.add("vram_bytes", info->vram_size);
  d.add("visible_vram_bytes", info->visible_vram_size);
  d.add("gtt_bytes", info->gtt_size);
  d.add("max_engine_clock_mhz", info->max_engine_clk_khz / 1000);
  d.add("max_memory_clock_mhz", info->max_memory_clk_khz / 1000);
  a.add("drm", std::move(d));
}

Value gpu_agent(const kfd::Node& n, const kfd::Kfd& kfd) {
  const auto& p = n.props;
  Value a;
  a.add("node", n.index);
  a.add("type", "GPU");
  a.add("name", n.gfx_name());
  add_render_info(a, n);
  a.add("asic_name", n.name);
  a.add("gpu_id", n.gpu_id, true);
  a.add("gfx_target_version", p.gfx_target_version);
  a.add("vendor_id", p.vendor_id, true);
  a.add("device_id", p.device_id, true);
  a.add("location_id", p.location_id, true);
  a.add("domain", p.domain);
  a.add("unique_id", p.unique_id, true);
  a.add("drm_render_minor", p.drm_render_minor);
  a.add("compute_units", n.cu_count());
  a.add("simd_count", p.simd_count);
  a.add("simds_per_cu", p.simd_per_cu);
  a.add("shader_engines", p.simd_arrays_per_engine ? p.array_count / p.simd_arrays_per_engine : 0);
  a.add("shader_arrays_per_engine", p.simd_arrays_per_engine);
  a.add("num_xcc", p.num_xcc);
  a.add("wavefront_size", p.wave_front_size);
  a.add("max_waves_per_simd", p.max_waves_per_simd);
  a.add("max_waves_per_cu", uint64_t(p.max_waves_per_simd) * p.simd_per_cu);
  a.add("lds_size_kb", p.lds_size_in_kb);
  a.add("gds_size_kb", p.gds_size_in_kb);
  a.add("max_scratch_slots_per_cu", p.max_slots_scratch_cu);
  a.add("max_clock_mhz", p.max_engine_clk_fcompute);
  a.add("firmware_version", p.fw_version);
  a.add("sdma_firmware_version", p.sdma_fw_version);
  a.add("capability", p.capability, true);
  a.add("vram_bytes", n.vram_size());
  if (kfd.has_minor(kfd::minor::kAvailableMemory))
    if (auto avail = kfd.available_memory(n.gpu_id)) a.add("available_vram_bytes", *avail);
  a.add("queues", queue_info(n));
  a.add("memory_banks", memory_banks(n));
  a.add("caches", caches(n));
  a.add("io_links", io_links(n));
  return a;
}

Value cpu_agent(const kfd::Node& n) {
  Value a;
  a.add("node", n.index);
  a.add("type", "CPU");
  std::string model = cpu_model_name();
  a.add("name", model.empty() ? "CPU" : model);
  a.add("marketing_name", model);
  a.add("gpu_id", uint64_t(0), true);
  a.add("compute_units", n.cu_count());
  a.add("simd_count", n.props.simd_count);
  a.add("max_clock_mhz", n.props.max_engine_clk_ccompute);
  a.add("memory_banks", memory_banks(n));
  a.add("caches", caches(n));
  a.add("io_links", io_links(n));
  return a;
}

Value apertures(const kfd::Kfd& kfd) {
  Value out = Value::array();
  auto aps = kfd.get_process_apertures();
  if (!aps) return out;
  for (const auto& ap : *aps) {
    Value v;
    v.add("gpu_id", ap.gpu_id, true);
    v.add("lds_base", ap.lds_base, true);
    v.add("scratch_base", ap.scratch_base, true);
    v.add("gpuvm_base", ap.gpuvm_base, true);
    v.add("gpuvm_limit", ap.gpuvm_limit, true);
    out.push(std::move(v));
  }
  return out;
}

int usage(FILE* f) {
  std::fprintf(f, "usage: kfdinfo [--json]\n"
                  "Lists the CPU and GPU agents amdkfd exposes (/dev/kfd and its sysfs topology).\n");
  return f == stdout ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) json = true;
    else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return usage(stdout);
    else return usage(stderr);
  }
  auto kfd = kfd::Kfd::open();
  if (!kfd) {
    if (kfd.err() == ENOENT)
      return fail("no /dev/kfd: the amdgpu driver is not loaded (or has no KFD support)", kfd.message());
    if (kfd.err() == EACCES || kfd.err() == EPERM)
      return fail("no permission on /dev/kfd: add your user to the 'render' group", kfd.message());
    return fail("cannot open /dev/kfd", kfd.message());
  }
  auto topo = kfd::read_topology();
  if (!topo) return fail("cannot read the KFD topology", topo.message());
  if (topo->gpus().empty())
    return fail("no GPU node in the KFD topology (" + std::string(kfd::kTopologyRoot) + "/nodes)", "");

  Value root;
  Value& k = root.add("kfd", Value::object());
  k.add("version", kfd->version().str());
  k.add("generation_id", topo->generation_id);
  if (auto x = kfd->get_xnack_mode()) k.add("xnack_enabled", Value::boolean(*x));
  k.add("apertures", apertures(*kfd));
  Value& agents = root.add("agents", Value::array());
  for (const kfd::Node& n : topo->nodes) agents.push(n.is_gpu() ? gpu_agent(n, *kfd) : cpu_agent(n));
  std::fputs((json ? kfdinfo::to_json(root) : kfdinfo::to_text(root)).c_str(), stdout);
  return 0;
}
