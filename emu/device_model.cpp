// SPDX-License-Identifier: MIT
// The emulated GPUs' static description: target table, configuration from the environment, topology text.
#include "emu/device_model.h"

#include "emu/memory_model.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "pm4/family.h"

namespace emu {
namespace {

// Facts from the KFD topology and amdgpu.ids of real parts (MI210, MI100, MI50, MI300X). SDMA:
// aldebaran has 5 instances, arcturus 8, vega20 2, aqua_vanjaram 16 (one partition).
// GB_ADDR_CONFIG: Linux gfx_v9_0.c gfx_v9_0_gpu_early_init programs 0x22014042 into the fields
// of vega20, arcturus and aldebaran; gfx_v9_4_3.c uses GOLDEN_GB_ADDR_CONFIG 0x2a114042.
const TargetInfo kTargets[] = {
    {"gfx90a", "aldebaran", 90010, 0x740F, 0x02, 141, 64, 104, 8, 1, 1700, 2, 3, 0x22014042},
    {"gfx908", "arcturus", 90008, 0x738C, 0x01, 141, 64, 120, 8, 1, 1502, 2, 6, 0x22014042},
    {"gfx906", "vega20", 90006, 0x66A1, 0x02, 141, 64, 60, 4, 1, 1725, 2, 0, 0x22014042},
    {"gfx942", "aqua_vanjaram", 90402, 0x74A1, 0x00, 141, 64, 304, 32, 8, 2100, 2, 14, 0x2a114042},
};

std::mutex g_model_mu;
// Published with release once built; every engine reads it per packet, so without a lock. A model
// replaced before first use stays allocated (readers may hold it).
std::atomic<Model*> g_model{nullptr};
std::atomic<bool> g_frozen{false};

// The host's physical memory (0: unknown).
uint64_t host_physical_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

// The memory this process may use: the physical memory, or its cgroup (v2) limit when lower.
uint64_t host_memory_bytes() {
  uint64_t bytes = host_physical_bytes();
  if (FILE* f = std::fopen("/sys/fs/cgroup/memory.max", "re")) {
    char buf[32] = {};
    if (std::fgets(buf, sizeof buf, f)) {
      char* end = nullptr;
      const unsigned long long limit = std::strtoull(buf, &end, 10);
      if (end != buf && (*end == '\n' || *end == '\0') && limit > 0 && (bytes == 0 || limit < bytes)) bytes = limit;
    }
    std::fclose(f);
  }
  return bytes;
}

}  // namespace

// The emulated VRAM is host memory, taken as the GPU's allocations are touched. So by default a
// GPU has the modelled part's 64 GiB only where the host can back it: half the host's memory,
// shared by the GPUs, in whole GiB (at least 4 GiB). A program that sizes its allocations by the
// free VRAM (gpu-burn takes 90 % of hipMemGetInfo's free bytes and fills them) then gets them,
// instead of the host's OOM killer ending it part way. KFDEMU_VRAM_MB sets any size.
uint64_t default_vram_bytes(int gpus) {
  constexpr uint64_t kModel = 64ull << 30, kGiB = 1ull << 30;
  const uint64_t host = host_memory_bytes();
  if (host == 0) return kModel;
  const uint64_t share = host / 2 / uint64_t(std::max(gpus, 1)) / kGiB * kGiB;
  return std::clamp(share, 4 * kGiB, kModel);
}

namespace {

kfdemu_config config_from_env() {
  kfdemu_config c{};
  c.gpus = int(env_long("KFDEMU_GPUS", 1));
  const char* t = std::getenv("KFDEMU_TARGET");
  std::snprintf(c.target, sizeof c.target, "%s", (t && *t) ? t : "gfx90a");
  c.vram_bytes = uint64_t(env_long("KFDEMU_VRAM_MB", long(default_vram_bytes(c.gpus) >> 20))) << 20;
  const TargetInfo* ti = find_target(c.target);
  c.cus = int(env_long("KFDEMU_CUS", ti ? long(ti->default_cus) : 104));
  c.workers = int(env_long("KFDEMU_WORKERS", 0));
  c.kfd_minor = int(env_long("KFDEMU_KFD_MINOR", 16));
  memory_model_from_env(&c);
  return c;
}

// KFDEMU_VISIBLE_VRAM_MB: the host-visible VRAM per GPU in MiB ("all", or at least the VRAM
// size, for a large-BAR part). Default: 256 MiB, the PCIe BAR of a GPU without resizable BAR
// (amdgpu reports it as vram_cpu_accessible_size / AMDGPU_INFO_VIS_VRAM_USAGE's limit).
uint64_t visible_vram_from_env(uint64_t vram_bytes) {
  constexpr uint64_t kDefaultVisible = 256ull << 20;
  const char* v = std::getenv("KFDEMU_VISIBLE_VRAM_MB");
  if (!v || !*v) return std::min(kDefaultVisible, vram_bytes);
  if (std::strcmp(v, "all") == 0) return vram_bytes;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(v, &end, 0);
  if (!end || *end) {
    std::fprintf(stderr, "kfdemu: KFDEMU_VISIBLE_VRAM_MB=%s is not a number of MiB or \"all\"; using %llu\n", v,
                 (unsigned long long)(std::min(kDefaultVisible, vram_bytes) >> 20));
    return std::min(kDefaultVisible, vram_bytes);
  }
  return std::min<uint64_t>(uint64_t(mb) << 20, vram_bytes);
}

bool build(const kfdemu_config& c, Model* m, std::string* why) {
  const TargetInfo* ti = find_target(c.target);
  if (!ti) { *why = std::string("unknown target '") + c.target + "' (gfx90a, gfx908, gfx906, gfx942)"; return false; }
  if (c.gpus < 1 || c.gpus > 8) { *why = "GPU count must be 1..8, got " + std::to_string(c.gpus); return false; }
  if (c.cus < 1 || c.cus > 1024) { *why = "CU count must be 1..1024, got " + std::to_string(c.cus); return false; }
  if (c.vram_bytes < (64u << 20)) { *why = "VRAM must be at least 64 MiB"; return false; }
  if (c.kfd_minor < 1 || c.kfd_minor > 99) { *why = "KFD minor version out of range"; return false; }
  if (!memory_model_valid(c, why)) return false;
  m->config = c;
  m->log = int(env_long("KFDEMU_LOG", 0));
  const uint64_t host = host_physical_bytes();
  m->host_mem_bytes = host ? host : 16ull << 30;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  m->host_cores = cores > 0 ? uint32_t(cores) : 1;
  m->gpus.clear();
  for (int i = 0; i < c.gpus; ++i) {
    GpuModel g{};
    g.index = uint32_t(i);
    g.node_id = uint32_t(i + 1);
    g.location_id = uint32_t((0x03 + i) << 8);  // bus 3+i, device 0, function 0
    // gpu_id is a hash of the device's identity on real kernels; any stable non-zero value works.
    g.gpu_id = (0x3d2f + 0x1a1 * uint32_t(i) + ti->gfx_target_version) & 0xffff;
    if (g.gpu_id == 0) g.gpu_id = 1;
    g.render_minor = 128 + uint32_t(i);
    g.target = ti;
    g.vram_bytes = c.vram_bytes;
    g.visible_vram_bytes = visible_vram_from_env(c.vram_bytes);
    g.gtt_bytes = m->host_mem_bytes * 3 / 4;
    g.cus = uint32_t(c.cus);
    g.unique_id = 0x5a3c000000000000ull | uint64_t(i + 1) * 0x1234567ull;
    g.all_cus = enabled_cus(g, {});
    m->gpus.push_back(g);
  }
  return true;
}

}  // namespace

long env_long(const char* name, long dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  long r = std::strtol(v, &end, 0);
  return (end && *end == 0) ? r : dflt;
}

const TargetInfo* find_target(const std::string& name) {
  for (const auto& t : kTargets)
    if (name == t.name) return &t;
  return nullptr;
}

namespace {

// model()'s first call: builds the model from the environment (apart, so that the common call
// is a load and a return).
[[gnu::noinline]] const Model& build_model() {
  std::lock_guard<std::mutex> lk(g_model_mu);
  if (!g_model.load(std::memory_order_relaxed)) {
    auto* m = new Model;
    std::string why;
    if (!build(config_from_env(), m, &why)) {
      std::fprintf(stderr, "kfdemu: bad configuration from the environment: %s; using defaults\n",
                   why.c_str());
      kfdemu_config d{};
      d.gpus = 1;
      std::snprintf(d.target, sizeof d.target, "gfx90a");
      d.vram_bytes = default_vram_bytes(1);
      d.cus = 104;
      d.kfd_minor = 16;
      build(d, m, &why);
    }
    g_model.store(m, std::memory_order_release);
  }
  return *g_model.load(std::memory_order_relaxed);
}

}  // namespace

const Model& model() {
  if (const Model* m = g_model.load(std::memory_order_acquire)) [[likely]] return *m;
  return build_model();
}

bool set_config(const kfdemu_config& config, std::string* why) {
  if (g_frozen.load()) { *why = "the emulated device is already in use"; return false; }
  auto* m = new Model;
  if (!build(config, m, why)) { delete m; return false; }
  std::lock_guard<std::mutex> lk(g_model_mu);
  // The old model may still be referenced by readers: it is kept (reachable, for leak checkers)
  // for the life of the process. Configurations before first use are few.
  static auto* retired = new std::vector<const Model*>();
  if (Model* old = g_model.load(std::memory_order_relaxed)) retired->push_back(old);
  g_model.store(m, std::memory_order_release);
  return true;
}

bool model_frozen() { return g_frozen.load(); }
void freeze_model() { (void)model(); g_frozen.store(true); }

const GpuModel* gpu_by_id(uint32_t gpu_id) {
  for (const auto& g : model().gpus)
    if (g.gpu_id == gpu_id) return &g;
  return nullptr;
}

const GpuModel* gpu_by_minor(uint32_t minor) {
  for (const auto& g : model().gpus)
    if (g.render_minor == minor) return &g;
  return nullptr;
}

// The node capability of these Instinct parts (Linux kfd_topology.h HSA_CAP_*): watch points
// (0x80, 4 of them: 2 bits at 8), doorbell type 2 (2 << 12), trap debug support and its wave
// launch / precise memory features (0x8000, 0x10000, 0x20000, 0x40000), SVM (0x08000000), debug
// firmware (0x20000000), and RAS as datacenter parts ship with it enabled (kfd_topology.c:
// SRAM ECC 0x04000000 and HBM ECC 0x00100000 from ras_enabled, RAS event notify 0x00200000).
constexpr uint32_t kCapability = 0x2807a280u | 0x04000000u | 0x00100000u | 0x00200000u;

// The GPU's layout: shader_engines engines over num_xcc XCCs, one shader array (SH) each (the
// topology's simd_arrays_per_engine), the CUs spread over the XCCs and then their engines, the
// first ones taking one more where they do not divide. amdkfd numbers the CUs of one XCC for a
// mask as kfd_mqd_manager.c mqd_symmetrically_map_cu_mask does: CU index within its array
// slowest, then arrays, then engines fastest (bit 0 SE0 CU0, bit 1 SE1 CU0, ...), the count
// limited to the CUs there are; on parts with several XCCs each XCC applies the same mask to
// its own CUs (kfd_mqd_manager_v9.c, per XCC instance). The distributor deals consecutive
// workgroups to the XCCs in turn, and within one to its enabled CUs in that order.
std::vector<uint32_t> enabled_cus(const GpuModel& g, const std::vector<uint32_t>& mask) {
  const TargetInfo& t = *g.target;
  const uint32_t xccs = std::max(1u, t.num_xcc);
  const uint32_t ses = std::max(1u, t.shader_engines / xccs);
  const uint64_t bits = uint64_t{mask.size()} * 32;
  std::vector<std::vector<uint32_t>> per_xcc(xccs);
  size_t longest = 0;
  for (uint32_t x = 0; x < xccs; ++x) {
    const uint32_t xcus = g.cus / xccs + (x < g.cus % xccs ? 1 : 0);
    uint32_t most = 0;
    std::vector<uint32_t> per_se(ses);
    for (uint32_t s = 0; s < ses; ++s) most = std::max(most, per_se[s] = xcus / ses + (s < xcus % ses ? 1 : 0));
    uint64_t i = 0;
    for (uint32_t cu = 0; cu < most; ++cu)
      for (uint32_t se = 0; se < ses; ++se) {
        if (per_se[se] <= cu) continue;
        const bool on = mask.empty() || (i < bits && ((mask[i / 32] >> (i % 32)) & 1));
        if (on) per_xcc[x].push_back((cu & 15) << 8 | se << 13 | x << 16);
        ++i;
      }
    longest = std::max(longest, per_xcc[x].size());
  }
  std::vector<uint32_t> out;
  for (size_t k = 0; k < longest; ++k)
    for (uint32_t x = 0; x < xccs; ++x)
      if (k < per_xcc[x].size()) out.push_back(per_xcc[x][k]);
  return out;
}

std::string gpu_node_properties(const GpuModel& g) {
  const TargetInfo& t = *g.target;
  uint32_t arrays = t.shader_engines;
  uint32_t cu_per_array = (g.cus + arrays - 1) / arrays;
  // Wave slots per SIMD as the part's IP discovery table gives them to amdgpu (gc_info
  // gc_max_waves_per_simd): 10 on gfx906/gfx908, 8 on gfx90a and gfx94x.
  const pm4::Family* fam = pm4::family_for(t.gfx_target_version);
  const unsigned waves = fam ? fam->max_waves_per_simd : 10;
  char buf[2048];
  std::snprintf(buf, sizeof buf,
      "cpu_cores_count 0\nsimd_count %u\nmem_banks_count 1\ncaches_count 2\nio_links_count 1\n"
      "p2p_links_count %zu\ncpu_core_id_base 0\nsimd_id_base %u\nmax_waves_per_simd %u\n"
      "lds_size_in_kb %u\ngds_size_in_kb 0\nnum_gws %u\nwave_front_size 64\narray_count %u\n"
      "simd_arrays_per_engine 1\ncu_per_simd_array %u\nsimd_per_cu 4\nmax_slots_scratch_cu 32\n"
      "gfx_target_version %u\nvendor_id 4098\ndevice_id %u\nlocation_id %u\ndomain 0\n"
      "drm_render_minor %u\nhive_id 0\nnum_sdma_engines %u\nnum_sdma_xgmi_engines %u\n"
      "num_sdma_queues_per_engine 8\nnum_cp_queues 24\nmax_engine_clk_fcompute %u\n"
      "local_mem_size 0\nfw_version 78\ncapability %u\ndebug_prop 1495\n"
      "sdma_fw_version 8\nunique_id %llu\nnum_xcc %u\nmax_engine_clk_ccompute 3000\n",
      g.cus * 4, model().gpus.size() - 1, 0x80001000u + g.index * 0x1000u, waves, t.lds_kb, kNumGws,
      arrays, cu_per_array,
      t.gfx_target_version, t.device_id, g.location_id, g.render_minor, t.sdma_engines,
      t.sdma_xgmi_engines, t.max_engine_clk_mhz, kCapability,
      (unsigned long long)g.unique_id, t.num_xcc);
  return buf;
}

std::string cpu_node_properties() {
  const Model& m = model();
  char buf[1024];
  std::snprintf(buf, sizeof buf,
      "cpu_cores_count %u\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\nio_links_count %zu\n"
      "p2p_links_count 0\ncpu_core_id_base 0\nsimd_id_base 0\nmax_waves_per_simd 0\n"
      "lds_size_in_kb 0\ngds_size_in_kb 0\nnum_gws 0\nwave_front_size 0\narray_count 0\n"
      "simd_arrays_per_engine 0\ncu_per_simd_array 0\nsimd_per_cu 0\nmax_slots_scratch_cu 0\n"
      "gfx_target_version 0\nvendor_id 0\ndevice_id 0\nlocation_id 0\ndomain 0\n"
      "drm_render_minor 0\nhive_id 0\nnum_sdma_engines 0\nnum_sdma_xgmi_engines 0\n"
      "num_sdma_queues_per_engine 0\nnum_cp_queues 0\nmax_engine_clk_ccompute 3000\n",
      m.host_cores, m.gpus.size());
  return buf;
}

namespace {
void vlog(const char* fmt, va_list ap) {
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  std::fprintf(stderr, "kfdemu: %s\n", buf);
}
}  // namespace

void log(const char* fmt, ...) {
  if (model().log < 1) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void trace(const char* fmt, ...) {
  if (model().log < 2) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

}  // namespace emu

extern "C" {

int kfdemu_present(void) { return 1; }

int kfdemu_configure(const struct kfdemu_config* config) {
  if (!config) return -1;
  std::string why;
  if (!emu::set_config(*config, &why)) {
    std::fprintf(stderr, "kfdemu_configure: %s\n", why.c_str());
    return -1;
  }
  return 0;
}

void kfdemu_get_config(struct kfdemu_config* config) {
  if (config) *config = emu::model().config;
}

}  // extern "C"
