// SPDX-License-Identifier: MIT
// The memory model on the device side: configuration from the environment, MTYPE per buffer, each GPU's caches, the CP's accesses and fences.
#include "emu/trace_emu.h"
#include "emu/memory_model.h"
#include "emu/host_watch.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "kfd/uapi_ext.h"
#include "pm4/aql.h"

namespace emu {

namespace {

uint64_t env_u64(const char* name, bool* bad) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const unsigned long long r = std::strtoull(v, &end, 0);
  if (!end || *end || r > UINT32_MAX) *bad = true;
  return r;
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

const char* scope_name(unsigned s) {
  switch (s) {
    case pm4::aql::kScopeAgent: return "agent";
    case pm4::aql::kScopeSystem: return "system";
    default: return "none";
  }
}

}  // namespace

void memory_model_from_env(kfdemu_config* c) {
  const char* m = std::getenv("KFDEMU_MEMORY_MODEL");
  const std::string model = m ? m : "";
  bool bad = false;
  c->memory_model = model.empty() || model == "strict" ? KFDEMU_MEMORY_MODEL_STRICT
                    : model == "sc"                     ? KFDEMU_MEMORY_MODEL_SC
                                                        : -1;  // refused by memory_model_valid
  c->l2_lines = uint32_t(env_u64("KFDEMU_L2_LINES", &bad));
  c->l1_lines = uint32_t(env_u64("KFDEMU_L1_LINES", &bad));
  c->trace_fences = env_u64("KFDEMU_TRACE_FENCES", &bad) != 0;
  c->report_stale = env_u64("KFDEMU_REPORT_STALE", &bad) != 0;
  if (bad) c->l2_lines = c->l1_lines = UINT32_MAX;  // refused: a number was expected
}

bool memory_model_valid(const kfdemu_config& c, std::string* why) {
  if (c.memory_model != KFDEMU_MEMORY_MODEL_STRICT && c.memory_model != KFDEMU_MEMORY_MODEL_SC) {
    *why = "memory model must be strict or sc (KFDEMU_MEMORY_MODEL), got " + std::to_string(c.memory_model);
    return false;
  }
  if (c.l2_lines == UINT32_MAX || c.l1_lines == UINT32_MAX) {
    *why = "KFDEMU_L2_LINES / KFDEMU_L1_LINES / KFDEMU_TRACE_FENCES / KFDEMU_REPORT_STALE take numbers";
    return false;
  }
  if ((c.l2_lines && c.l2_lines < 16) || (c.l1_lines && c.l1_lines < 4)) {
    *why = "cache capacities below 16 L2 lines or 4 L1 lines cannot hold one wave's access";
    return false;
  }
  return true;
}

shader::Mtype mtype_for(BoKind kind, uint32_t flags, bool local, uint32_t gfx_target_version) {
  using shader::Mtype;
  if (kind == BoKind::Doorbell || kind == BoKind::Mmio) return Mtype::UC;
  const bool uncached = flags & KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED;
  const bool ext_coherent = flags & kfd::uapi::kAllocExtCoherent;
  const bool coherent = (flags & KFD_IOC_ALLOC_MEM_FLAGS_COHERENT) || ext_coherent;
  const bool vram = kind == BoKind::Vram;
  switch (gfx_target_version) {
    case 90008:  // gfx908, GC 9.4.1
    case 90010:  // gfx90a, GC 9.4.2
      if (vram && local) return uncached ? Mtype::UC : coherent ? Mtype::CC : Mtype::RW;
      return uncached || coherent ? Mtype::UC : Mtype::NC;
    case 90402:  // gfx942, GC 9.4.3, a dGPU of rev_id 0 (EXT_COHERENT local memory is then UC too)
      if (uncached || ext_coherent) return Mtype::UC;
      if (vram) return local ? Mtype::RW : Mtype::NC;
      return Mtype::UC;  // system memory on a dGPU
    default:  // gfx906 and older: UC for coherent and uncached memory, else NC (local VRAM too)
      return uncached || coherent ? Mtype::UC : Mtype::NC;
  }
}

shader::CachedRange* cache_mapping(DeviceState& d, const Bo& bo) {
  const kfdemu_config& c = model().config;
  if (c.memory_model != KFDEMU_MEMORY_MODEL_STRICT) return nullptr;
  if (!d.l2) {
    shader::CacheConfig cc;
    cc.l2_lines = c.l2_lines;
    cc.l1_lines = c.l1_lines;
    cc.trace = c.trace_fences;
    cc.report_stale = c.report_stale;
    cc.label = "GPU " + hex(d.model->gpu_id);
    d.l2 = std::make_unique<shader::GpuCache>(std::move(cc));
    host_watch_gpu(d);
  }
  const bool local = bo.kind == BoKind::Vram && bo.gpu_id == d.model->gpu_id;
  const shader::Mtype m = mtype_for(bo.kind, bo.flags, local, d.model->target->gfx_target_version);
  return d.l2->add(bo.va, bo.size, bo.host, m);
}

void uncache_mapping(DeviceState& d, shader::CachedRange* r) {
  host_watch_uncache(d, r);  // the host's watches of its lines end first
}

// ---- the command processor's accesses --------------------------------------------------------

void cp_read(DeviceState& d, uint64_t va, const uint8_t* host, void* dst, unsigned n, bool l2) {
  Mapping m;
  if (l2 && d.l2 && d.lookup(va, &m) && m.cache && va - m.va + n <= m.end - m.va) {
    d.l2->read(*m.cache, va, dst, n, false);
    return;
  }
  if (n == 8) {
    const uint64_t v = __atomic_load_n(reinterpret_cast<const uint64_t*>(host), __ATOMIC_ACQUIRE);
    std::memcpy(dst, &v, 8);
  } else if (n == 4) {
    const uint32_t v = __atomic_load_n(reinterpret_cast<const uint32_t*>(host), __ATOMIC_ACQUIRE);
    std::memcpy(dst, &v, 4);
  } else {
    std::memcpy(dst, host, n);
  }
}

void cp_write(DeviceState& d, uint64_t va, uint8_t* host, const void* src, unsigned n, bool l2) {
  Mapping m;
  if (l2 && d.l2 && d.lookup(va, &m)) {
    cp_write_at(d, m, va, src, n, true);
    return;
  }
  m.va = va;
  m.end = va + n;
  m.host = host;
  cp_write_at(d, m, va, src, n, false);
}

void cp_write_at(DeviceState& d, const Mapping& m, uint64_t va, const void* src, unsigned n, bool l2) {
  uint8_t* host = m.host + (va - m.va);
  if (l2 && d.l2 && m.cache && va - m.va + n <= m.end - m.va) {
    d.l2->write(*m.cache, va, src, n);
    return;
  }
  if (n == 8) {
    uint64_t v;
    std::memcpy(&v, src, 8);
    __atomic_store_n(reinterpret_cast<uint64_t*>(host), v, __ATOMIC_RELEASE);
  } else if (n == 4) {
    uint32_t v;
    std::memcpy(&v, src, 4);
    __atomic_store_n(reinterpret_cast<uint32_t*>(host), v, __ATOMIC_RELEASE);
  } else {
    std::memcpy(host, src, n);
  }
}

// ---- fences ---------------------------------------------------------------------------------

bool tracing(const DeviceState&) { return model().config.trace_fences != 0 || trace_emu::on(); }

// On stderr with KFDEMU_TRACE_FENCES, in the trace file while a trace is recorded.
void trace(const DeviceState& d, const std::string& line) {
  if (trace_emu::on()) trace_emu::cache(d.model->gpu_id, line);
  if (model().config.trace_fences)
    std::fprintf(stderr, "kfdemu: GPU %s: %s\n", hex(d.model->gpu_id).c_str(), line.c_str());
}

void cp_acquire(DeviceState& d, unsigned scope, const char* what, uint64_t where) {
  if (scope == pm4::aql::kScopeNone) return;
  // The L1s: every dispatch starts with empty ones (the CP invalidates them), nothing to do here.
  if (scope == pm4::aql::kScopeSystem && d.l2) d.l2->invalidate();
  if (!tracing(d)) return;
  trace(d, std::string(what) + " " + hex(where) + ": acquire fence, " + scope_name(scope) + " scope: " +
               (scope == pm4::aql::kScopeSystem ? "L2 invalidate (non-coherent lines), L1 invalidate"
                                                : "L1 invalidate"));
}

void cp_release(DeviceState& d, unsigned scope, const char* what, uint64_t where) {
  if (scope == pm4::aql::kScopeNone) return;
  shader::CacheAction a;
  if (scope == pm4::aql::kScopeSystem && d.l2) a = d.l2->writeback();
  if (!tracing(d)) return;
  trace(d, std::string(what) + " " + hex(where) + ": release fence, " + scope_name(scope) + " scope: " +
               (scope == pm4::aql::kScopeSystem
                    ? "L2 write-back (" + std::to_string(a.lines) + " lines, " + std::to_string(a.bytes) + " bytes)"
                    : std::string("no cache action (the L1 writes through, the L2 is the agent's)")));
}

void cp_cache_actions(DeviceState& d, const CacheActions& a, const std::string& what) {
  shader::CacheAction wb;
  if (d.l2 && a.writeback) wb = d.l2->writeback(a.va, a.size, a.nc_only);
  if (d.l2 && a.invalidate_l2) d.l2->invalidate(a.va, a.size);
  if (!tracing(d)) return;
  std::string acts;
  if (a.writeback)
    acts += std::string("L2 write-back") + (a.nc_only ? " of non-coherent lines" : "") + " (" +
            std::to_string(wb.lines) + " lines, " + std::to_string(wb.bytes) + " bytes)";
  if (a.invalidate_l2) acts += std::string(acts.empty() ? "" : ", ") + "L2 invalidate (non-coherent lines)";
  if (a.invalidate_l1) acts += std::string(acts.empty() ? "" : ", ") + "L1 invalidate";
  if (acts.empty()) acts = "no cache action";
  if (a.size != ~uint64_t{0}) acts += " on [" + hex(a.va) + ", +" + hex(a.size) + ")";
  trace(d, what + ": " + acts);
}

}  // namespace emu
