// SPDX-License-Identifier: MIT
// The memory model on the device side: its configuration, the MTYPE of each buffer, the command processor's memory accesses and fences.
#pragma once

#include <cstdint>
#include <string>

#include "emu/control.h"
#include "emu/kfd_process.h"
#include "emu/shader/cache.h"

namespace emu {

// KFDEMU_MEMORY_MODEL, KFDEMU_L2_LINES, KFDEMU_L1_LINES, KFDEMU_TRACE_FENCES, KFDEMU_REPORT_STALE
// into `c` (emu/control.h).
void memory_model_from_env(kfdemu_config* c);
// False with the reason when the memory-model fields of `c` are invalid.
bool memory_model_valid(const kfdemu_config& c, std::string* why);

// The MTYPE amdgpu programs into a GPU's page tables for a buffer: `local` when the buffer is
// that GPU's own VRAM. Rules of Linux gmc_v9_0.c gmc_v9_0_get_coherence_flags per GC IP version
// (gfx908 9.4.1 and gfx90a 9.4.2; gfx942 9.4.3; gfx906 the default), the KFD flags mapped as
// amdgpu_amdkfd_gpuvm.c maps them (COHERENT, EXT_COHERENT, UNCACHED); doorbells and MMIO are UC.
shader::Mtype mtype_for(BoKind kind, uint32_t flags, bool local, uint32_t gfx_target_version);

// Registers a new mapping of `bo` on GPU d with its caches (nullptr under the sc model), and
// forgets it when unmapped.
shader::CachedRange* cache_mapping(DeviceState& d, const Bo& bo);
void uncache_mapping(DeviceState& d, shader::CachedRange* r);

// The command processor's memory accesses at va (host: its translation, already checked).
// Through the L2 (`l2`: TC/L2 selections, TC atomics, AQL signals) the page's MTYPE decides; the
// memory-controller path (MEM selections) reads and writes memory, not the L2. Reads never
// allocate in the L2 (an NC line the L2 holds is read from there).
void cp_read(DeviceState& d, uint64_t va, const uint8_t* host, void* dst, unsigned n, bool l2);
void cp_write(DeviceState& d, uint64_t va, uint8_t* host, const void* src, unsigned n, bool l2);
template <class T>
T cp_load(DeviceState& d, uint64_t va, const uint8_t* host, bool l2) {
  T v;
  cp_read(d, va, host, &v, sizeof v, l2);
  return v;
}
template <class T>
void cp_store(DeviceState& d, uint64_t va, uint8_t* host, T v, bool l2) {
  cp_write(d, va, host, &v, sizeof v, l2);
}
// Runs f(p) on the bytes an atomic at va updates: the L2's copy (RW/NC) or memory.
template <class F>
void cp_atomic(DeviceState& d, uint64_t va, uint8_t* host, unsigned bytes, F&& f) {
  Mapping m;
  if (d.l2 && d.lookup(va, &m) && m.cache && va - m.va + bytes <= m.end - m.va) d.l2->update(*m.cache, va, bytes, f);
  else f(host);
}

// The same accesses when `m`, the mapping holding [va, va+n), was looked up already (several
// accesses to one object, such as a signal's timestamps and value, cost one lookup).
void cp_write_at(DeviceState& d, const Mapping& m, uint64_t va, const void* src, unsigned n, bool l2);
template <class T>
void cp_store_at(DeviceState& d, const Mapping& m, uint64_t va, T v, bool l2) {
  cp_write_at(d, m, va, &v, sizeof v, l2);
}
template <class F>
void cp_atomic_at(DeviceState& d, const Mapping& m, uint64_t va, unsigned bytes, F&& f) {
  if (d.l2 && m.cache && va - m.va + bytes <= m.end - m.va) d.l2->update(*m.cache, va, bytes, f);
  else f(m.host + (va - m.va));
}

// Fences at the CP: an AQL packet's acquire (before it runs) and release (after), with scopes
// pm4::aql::kScope*. Agent scope: the L1s invalidated (acquire); the L2 is the agent's. System
// scope: the L2's NC lines invalidated (acquire), its dirty lines written back (release).
void cp_acquire(DeviceState& d, unsigned scope, const char* what, uint64_t where);
void cp_release(DeviceState& d, unsigned scope, const char* what, uint64_t where);
// A PM4 cache action (RELEASE_MEM, ACQUIRE_MEM) on [va, va+size): write back (nc_only: only NC
// lines), invalidate the L2's NC lines, invalidate the L1s.
struct CacheActions {
  bool writeback = false, invalidate_l2 = false, invalidate_l1 = false, nc_only = false;
  uint64_t va = 0, size = ~uint64_t{0};
};
void cp_cache_actions(DeviceState& d, const CacheActions& a, const std::string& what);
// Whether fences and cache actions are traced (KFDEMU_TRACE_FENCES), and a trace line.
bool tracing(const DeviceState& d);
void trace(const DeviceState& d, const std::string& line);

}  // namespace emu
