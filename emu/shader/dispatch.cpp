// SPDX-License-Identifier: MIT
// Dispatch setup: reads an AQL packet and kernel descriptor, or PM4 COMPUTE_* registers, and builds the initial wave state.
#include "emu/shader/dispatch.h"

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "pm4/aql.h"
#include "pm4/kernel_descriptor.h"
#include "pm4/queue_error.h"
#include "pm4/scratch_regs.h"

namespace emu::shader {

namespace {

using pm4::KernelCodeProperty;

template <class T>
T load(const uint8_t* p, unsigned off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}

Outcome fail(std::string msg, uint64_t va = 0) {
  Outcome o;
  o.kind = Outcome::Kind::MemoryFault;
  o.fault_va = va;
  o.message = std::move(msg);
  return o;
}

Outcome unimplemented(std::string msg) {
  Outcome o;
  o.kind = Outcome::Kind::Unimplemented;
  o.message = std::move(msg);
  return o;
}

// A dispatch packet the AQL packet processor refuses before any wave starts: the queue stops with
// `bits` in its queue_inactive_signal (pm4/queue_error.h; ROCr rocm-5.2 amd_aql_queue.cpp decodes
// 0x2 as incompatible arguments, 0x4 as an invalid allocation, 0x8 as an invalid code object,
// 0x40 as an invalid argument).
Outcome invalid_packet(uint64_t bits, std::string msg) {
  Outcome o;
  o.kind = Outcome::Kind::InvalidPacket;
  o.error = bits;
  o.message = std::move(msg);
  return o;
}

Outcome too_small(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
Outcome too_small(const char* fmt, ...) {
  char buf[320];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  Outcome o;
  o.kind = Outcome::Kind::ScratchTooSmall;
  o.message = buf;
  return o;
}

constexpr uint32_t gfx_target_version(Target t) {
  switch (t) {
    case Target::gfx906: return pm4::gfx_target_version_of("gfx906");
    case Target::gfx908: return pm4::gfx_target_version_of("gfx908");
    case Target::gfx942: return pm4::gfx_target_version_of("gfx942");
    default: return pm4::gfx_target_version_of("gfx90a");
  }
}

// Each target's family row, found at compile time (not parsed on every dispatch); by Target.
constexpr const pm4::Family* kFamilyOf[] = {
    pm4::family_for(gfx_target_version(Target::gfx906)), pm4::family_for(gfx_target_version(Target::gfx908)),
    pm4::family_for(gfx_target_version(Target::gfx90a)), pm4::family_for(gfx_target_version(Target::gfx942))};
static_assert(static_cast<int>(Target::gfx906) == 0 && static_cast<int>(Target::gfx942) == 3);

// MODE at wave start: RSRC1's float round/denorm modes, DX10_CLAMP and IEEE (AMDGPUUsage
// "compute_pgm_rsrc1"; MODE layout: AMD Vega ISA "MODE").
uint32_t initial_mode(uint32_t rsrc1) {
  const pm4::Rsrc1 r = pm4::decode_rsrc1(rsrc1);
  return r.float_round_mode_32 | r.float_round_mode_16_64 << 2 | r.float_denorm_mode_32 << 4 |
         r.float_denorm_mode_16_64 << 6 | uint32_t(r.enable_dx10_clamp) << 8 |
         uint32_t(r.enable_ieee_mode) << 9;
}

// What both front ends share once the workgroup shape and the registers are known.
Outcome finish_launch(Launch& l) {
  if (uint64_t{l.wg[0]} * l.wg[1] * l.wg[2] > 1024)  // the hardware limit (16 wave64s)
    return unimplemented("workgroup of more than 1024 work-items");
  l.mode = initial_mode(l.rsrc1);
  l.group_waves = static_cast<unsigned>((uint64_t{l.wg[0]} * l.wg[1] * l.wg[2] + 63) / 64);
  l.total_groups = uint64_t{l.groups[0]} * l.groups[1] * l.groups[2];
  return Outcome{};
}

// The queue's scratch fields (pm4/aql.h amd_queue_t), and whether they hold what the kernel
// needs: a gfx9 CP gives a dispatch only the scratch its queue has.
Outcome read_queue_scratch(const Dispatch& d, Memory& mem, uint32_t kd_private,
                           uint32_t pkt_private, bool dynamic_stack, Launch& l) {
  using pm4::aql::AmdQueue;
  namespace tr = pm4::tmpring_gfx9;
  const uint8_t* q = mem.translate(d.queue_va, sizeof(AmdQueue), false);
  QueueScratch& s = l.scratch;
  if (q) {
    const uint32_t tmpring = load<uint32_t>(q, offsetof(AmdQueue, compute_tmpring_size));
    std::memcpy(s.vsharp, q + offsetof(AmdQueue, scratch_resource_descriptor), sizeof s.vsharp);
    s.base = pm4::vsharp_gfx9::base(s.vsharp);
    // gfx9+ CPs take scratch_backing_memory_location as the store's GPU address (ROCr
    // amd_gpu_agent.cpp need_queue_scratch_base); gfx8's was relative to SH_HIDDEN_PRIVATE_BASE.
    const uint64_t location = load<uint64_t>(q, offsetof(AmdQueue, scratch_backing_memory_location));
    s.flat_base = l.family && l.family->major > 8 ? location : d.private_base + location;
    s.waves = tr::waves(tmpring);
    s.wave_bytes = uint64_t{tr::wave_units(tmpring)} * tr::kWaveSizeUnit;
  }
  if (!l.needs_scratch) return Outcome{};
  if (!q) return fail("amd_queue_t not mapped: the queue's scratch of a kernel needing it is unknown", d.queue_va);
  const char* dyn = dynamic_stack ? ", dynamic stack" : "";
  const unsigned need = l.private_per_lane;
  if (s.waves == 0 || s.wave_bytes == 0)
    return too_small("kernel needs %u bytes of scratch per work-item (private_segment_fixed_size %u, "
                     "packet private_segment_size %u%s) but the queue has no scratch "
                     "(compute_tmpring_size 0): available 0 bytes", need, kd_private, pkt_private, dyn);
  if (uint64_t{need} * 64 > s.wave_bytes)
    return too_small("kernel needs %u bytes of scratch per work-item (private_segment_fixed_size %u, "
                     "packet private_segment_size %u%s) but the queue provides %llu bytes per "
                     "work-item (WAVESIZE %llu KiB per wave)", need, kd_private, pkt_private, dyn,
                     static_cast<unsigned long long>(s.wave_bytes / 64),
                     static_cast<unsigned long long>(s.wave_bytes / tr::kWaveSizeUnit));
  if (s.waves < l.group_waves)
    return too_small("a workgroup of %u waves needs as many scratch slots but the queue has %u "
                     "(COMPUTE_TMPRING_SIZE.WAVES)", l.group_waves, s.waves);
  l.max_workers = s.waves / l.group_waves;
  return Outcome{};
}

// The user SGPRs an AQL CP loads, in AMDGPUUsage order as kernel_code_properties enables them.
void aql_user_sgprs(const pm4::CodeProperties& c, uint64_t kernarg, Launch& l) {
  unsigned& n = l.user_sgprs;
  auto put64 = [&](uint64_t v) {
    l.user_sgpr[n++] = static_cast<uint32_t>(v);
    l.user_sgpr[n++] = static_cast<uint32_t>(v >> 32);
  };
  if (c.private_segment_buffer)  // the queue's V#, as the CP loads it
    for (uint32_t word : l.scratch.vsharp) l.user_sgpr[n++] = word;
  if (c.dispatch_ptr) put64(l.d.packet_va);
  if (c.queue_ptr) put64(l.d.queue_va);
  if (c.kernarg_segment_ptr) put64(kernarg);
  if (c.dispatch_id) put64(l.d.dispatch_id);
  if (c.flat_scratch_init) put64(l.scratch.flat_base);  // the queue's backing base
  if (c.private_segment_size) l.user_sgpr[n++] = l.private_per_lane;
}

}  // namespace

Outcome read_launch(const Dispatch& d, Target t, Memory& mem, Launch& l) {
  using pm4::aql::KernelDispatchPacket;
  l.d = d;
  l.target = t;
  l.family = kFamilyOf[static_cast<int>(t)];
  const uint8_t* pk_host = mem.translate(d.packet_va, sizeof(KernelDispatchPacket), false);
  if (!pk_host) return fail("dispatch packet not mapped", d.packet_va);
  KernelDispatchPacket pk;
  std::memcpy(&pk, pk_host, sizeof pk);
  const uint16_t wg[3] = {pk.workgroup_size_x, pk.workgroup_size_y, pk.workgroup_size_z};
  const uint32_t grid[3] = {pk.grid_size_x, pk.grid_size_y, pk.grid_size_z};
  namespace qe = pm4::queue_error;
  if (wg[0] == 0 || wg[1] == 0 || wg[2] == 0)
    return invalid_packet(qe::kInvalidDim, "workgroup size " + std::to_string(wg[0]) + "x" + std::to_string(wg[1]) +
                                               "x" + std::to_string(wg[2]) + " has a zero dimension");
  if (uint64_t{wg[0]} * wg[1] * wg[2] > 1024)
    return invalid_packet(qe::kGroupTooLarge, "workgroup of " + std::to_string(uint64_t{wg[0]} * wg[1] * wg[2]) +
                                                  " work-items, more than the hardware's 1024");
  if (pk.kernel_object == 0) return invalid_packet(qe::kInvalidCode, "kernel_object is 0");
  for (int i = 0; i < 3; ++i) {
    l.wg[i] = wg[i];
    l.grid[i] = grid[i];
    l.groups[i] = static_cast<uint32_t>((uint64_t{l.grid[i]} + l.wg[i] - 1) / l.wg[i]);
  }
  const uint8_t* kd_host = mem.translate(pk.kernel_object, sizeof(pm4::KernelDescriptor), false);
  if (!kd_host) return fail("kernel descriptor not mapped", pk.kernel_object);
  pm4::KernelDescriptor kd;
  std::memcpy(&kd, kd_host, sizeof kd);
  const pm4::CodeProperties props = pm4::decode_code_properties(kd.kernel_code_properties);
  l.entry = pk.kernel_object + kd.kernel_code_entry_byte_offset;
  l.kernel_object = pk.kernel_object;
  l.rsrc1 = kd.compute_pgm_rsrc1;
  l.rsrc2 = kd.compute_pgm_rsrc2;
  l.rsrc3 = kd.compute_pgm_rsrc3;
  if (props.wavefront_size32) return unimplemented("wave32 kernels are not supported by the gfx9 shader core");
  const uint64_t lds = uint64_t{kd.group_segment_fixed_size} + pk.group_segment_size;
  const uint32_t lds_max = l.family ? l.family->lds_bytes_per_group : 64 * 1024;
  if (lds > lds_max)
    return invalid_packet(qe::kInvalidGroupMemory,
                          "group segment of " + std::to_string(lds) + " bytes (kernel " +
                              std::to_string(kd.group_segment_fixed_size) + " + packet " +
                              std::to_string(pk.group_segment_size) + "), more than the " +
                              std::to_string(lds_max) + " bytes of LDS a workgroup can have");
  l.lds_bytes = static_cast<uint32_t>(lds);
  const uint32_t priv = std::max(kd.private_segment_fixed_size, pk.private_segment_size);
  l.private_per_lane = priv > UINT32_MAX - 3 ? UINT32_MAX & ~3u : (priv + 3) & ~3u;  // CP: dwords
  l.needs_scratch = priv > 0 || props.uses_dynamic_stack;
  if (Outcome o = finish_launch(l); !o.ok()) return o;
  if (l.grid[0] == 0 || l.grid[1] == 0 || l.grid[2] == 0) l.total_groups = 0;
  if (Outcome o = read_queue_scratch(d, mem, kd.private_segment_fixed_size, pk.private_segment_size,
                                     props.uses_dynamic_stack, l);
      !o.ok())
    return o;
  aql_user_sgprs(props, pk.kernarg_address, l);
  return Outcome{};
}

Outcome read_launch(const RegisterDispatch& r, Target t, Launch& l) {
  l.target = t;
  l.family = pm4::family_for(r.gfx_target_version ? r.gfx_target_version : gfx_target_version(t));
  if (!l.family) return unimplemented("no hardware facts for gfx_target_version " + std::to_string(r.gfx_target_version));
  if (r.wave32) return unimplemented("wave32 dispatches (CS_W32_EN) are not supported by the gfx9 shader core");
  l.entry = r.code;
  l.rsrc1 = r.rsrc1;
  l.rsrc2 = r.rsrc2;
  l.rsrc3 = l.family->rsrc3 == pm4::Rsrc3Layout::None ? 0 : r.rsrc3;
  const pm4::Rsrc2 rsrc2 = pm4::decode_rsrc2(r.rsrc2);
  if (rsrc2.user_sgpr_count > 16)
    return unimplemented("USER_SGPR_COUNT " + std::to_string(rsrc2.user_sgpr_count) + " is more than the 16 USER_DATA registers");
  l.user_sgprs = rsrc2.user_sgpr_count;
  std::memcpy(l.user_sgpr, r.user_data, sizeof l.user_sgpr);
  for (int i = 0; i < 3; ++i) {
    l.wg[i] = static_cast<uint16_t>(std::clamp<uint32_t>(r.num_thread[i], 1, 1024));
    // DIM is where the dispatch ends: in workgroups, or in threads with USE_THREAD_DIMENSIONS.
    const uint64_t end_items = r.thread_dims ? r.dim[i] : uint64_t{r.dim[i]} * l.wg[i];
    l.grid[i] = static_cast<uint32_t>(std::min<uint64_t>(end_items, UINT32_MAX));
    const uint32_t end_groups = static_cast<uint32_t>((uint64_t{l.grid[i]} + l.wg[i] - 1) / l.wg[i]);
    l.start[i] = r.start[i];
    l.groups[i] = end_groups > r.start[i] ? end_groups - r.start[i] : 0;
  }
  if (r.num_thread[0] > 1024 || r.num_thread[1] > 1024 || r.num_thread[2] > 1024)
    return unimplemented("workgroup of more than 1024 work-items");
  l.lds_bytes = rsrc2.granulated_lds_size * l.family->lds_granule_bytes;
  if (l.lds_bytes > l.family->lds_bytes_per_group)
    return unimplemented("RSRC2.LDS_SIZE " + std::to_string(rsrc2.granulated_lds_size) + " asks for " +
                         std::to_string(l.lds_bytes) + " bytes of LDS, more than a workgroup's " +
                         std::to_string(l.family->lds_bytes_per_group));
  Outcome o = finish_launch(l);
  if (!o.ok()) return o;
  // Scratch: COMPUTE_TMPRING_SIZE's slots; the wave's window is the V# in USER_DATA_0..3, or with
  // architected flat scratch the dispatch's scratch base.
  l.needs_scratch = rsrc2.enable_private_segment;
  QueueScratch& s = l.scratch;
  const pm4::Family& f = *l.family;
  s.waves = (r.tmpring >> 0) & ((1u << f.tmpring_waves_bits) - 1);
  s.wave_bytes = uint64_t{(r.tmpring >> f.tmpring_wavesize_shift) & ((1u << f.tmpring_wavesize_bits) - 1)} *
                 f.tmpring_wavesize_unit;
  if (!l.needs_scratch) return Outcome{};
  if (f.architected_flat_scratch) {
    s.base = s.flat_base = r.scratch_base;
  } else {
    if (l.user_sgprs < 4)
      return unimplemented("SCRATCH_EN with USER_SGPR_COUNT " + std::to_string(l.user_sgprs) +
                           ": the private segment V# must be in USER_DATA_0..3");
    std::memcpy(s.vsharp, r.user_data, sizeof s.vsharp);
    s.base = pm4::vsharp_gfx9::base(s.vsharp);
  }
  if (s.waves == 0 || s.wave_bytes == 0)
    return too_small("SCRATCH_EN but COMPUTE_TMPRING_SIZE %#x gives no scratch (WAVES %u, %llu bytes per "
                     "wave)", r.tmpring, s.waves, static_cast<unsigned long long>(s.wave_bytes));
  if (s.waves < l.group_waves)
    return too_small("a workgroup of %u waves needs as many scratch slots but COMPUTE_TMPRING_SIZE.WAVES "
                     "is %u", l.group_waves, s.waves);
  l.private_per_lane = static_cast<uint32_t>(s.wave_bytes / 64);
  l.max_workers = s.waves / l.group_waves;
  return Outcome{};
}

namespace {

void init_system_sgprs(const Launch& l, const Group& g, uint32_t wave_offset, Wave& w) {
  const pm4::Rsrc2 r = pm4::decode_rsrc2(l.rsrc2);
  unsigned s = r.user_sgpr_count;
  if (r.enable_sgpr_workgroup_id_x) w.s[s++] = g.id[0];
  if (r.enable_sgpr_workgroup_id_y) w.s[s++] = g.id[1];
  if (r.enable_sgpr_workgroup_id_z) w.s[s++] = g.id[2];
  if (r.enable_sgpr_workgroup_info) w.s[s++] = g.nwaves;  // workgroup info: wave count
  if (r.enable_private_segment) w.s[s++] = wave_offset;   // private segment wave offset
}

// Wave `i` of a workgroup on worker `worker` gets slot worker*group_waves + i of the queue's
// scratch (when the queue has that many): its window, the wave offset and FLAT_SCRATCH.
void bind_slot(const Launch& l, unsigned worker, unsigned i, const WorkerStorage& st, Wave& w) {
  const QueueScratch& q = l.scratch;
  const uint64_t slot = uint64_t{worker} * l.group_waves + i;
  uint64_t offset = 0;
  if (q.wave_bytes && slot < q.waves) {
    offset = slot * q.wave_bytes;
    w.scratch_lo = q.base + offset;
    w.scratch_size = q.wave_bytes;
    w.scratch_host = i < st.slot_host.size() ? st.slot_host[i] : nullptr;
  }
  // Architected flat scratch (gfx942): the SPI loads FLAT_SCRATCH with the wave's base; gfx9
  // before it leaves that to the kernel prologue (flat scratch init + wave offset).
  const uint64_t fs = l.family->architected_flat_scratch && w.scratch_size ? q.flat_base + offset : 0;
  w.s[102] = static_cast<uint32_t>(fs);
  w.s[103] = static_cast<uint32_t>(fs >> 32);
  init_system_sgprs(l, *w.group, static_cast<uint32_t>(offset), w);
}

void init_vgprs(const Launch& l, const uint32_t size[3], unsigned wave, Wave& w) {
  uint64_t items = uint64_t{size[0]} * size[1] * size[2];
  uint64_t first = uint64_t{wave} * 64;
  uint64_t n = items > first ? std::min<uint64_t>(64, items - first) : 0;
  const bool packed = l.family->packed_work_item_ids;
  w.set_exec(n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1));
  if (size[1] == 1 && size[2] == 1) {  // 1-D: x counts up from the wave's first item
    const uint32_t x0 = static_cast<uint32_t>(first), live = static_cast<uint32_t>(n);
    uint32_t* v0 = w.v[0];
    for (uint32_t lane = 0; lane < 64; ++lane) v0[lane] = lane < live ? x0 + lane : 0;
    if (!packed) {
      std::memset(w.v[1], 0, 256);
      std::memset(w.v[2], 0, 256);
    }
    return;
  }
  // Work-item ids of the wave's first lane, then counted up (no division per lane).
  uint32_t x = static_cast<uint32_t>(first % size[0]);
  uint32_t y = static_cast<uint32_t>((first / size[0]) % size[1]);
  uint32_t z = static_cast<uint32_t>(first / (uint64_t{size[0]} * size[1]));
  for (unsigned lane = 0; lane < 64; ++lane) {
    bool live = lane < n;
    uint32_t lx = live ? x : 0, ly = live ? y : 0, lz = live ? z : 0;
    if (packed) {
      w.v[0][lane] = lx | (ly << 10) | (lz << 20);
    } else {
      w.v[0][lane] = lx; w.v[1][lane] = ly; w.v[2][lane] = lz;
    }
    if (++x == size[0]) { x = 0; if (++y == size[1]) { y = 0; ++z; } }
  }
}

// A wave's state at its start, keeping what a worker's storage holds for the whole dispatch:
// the translation cache and the code page (DispatchCtx::epoch).
void reset_wave(Wave& w) {
#if defined(__AVX2__)
  // 512 bytes in 16 stores: GCC's memset here is `rep stosq`, whose start-up cost was a third
  // of a workgroup's set-up.
  const __m256i z = _mm256_setzero_si256();
  for (size_t i = 0; i < sizeof w.s; i += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(reinterpret_cast<char*>(w.s) + i), z);
#else
  std::memset(w.s, 0, sizeof w.s);
#endif
  w.pc = 0;
  w.scc = false;
  w.state = WaveState::Running;
  w.mode = 0;
  w.trapsts = 0;
  w.gpr_idx = false;
  w.yield = false;
  w.gws_wait = false;
  w.gws_gen = 0;
  w.instructions = 0;
  w.lane_ops = 0;
  w.scratch_lo = w.scratch_size = 0;
  w.scratch_host = nullptr;
  clear_returns(w);
}

}  // namespace

uint64_t resident_groups(const Launch& l, unsigned cus) {
  if (cus == 0 || !l.family) return ~0ull;
  const pm4::Family& f = *l.family;
  constexpr unsigned kSimds = 4;  // per gfx9 CU (AMD Vega ISA "Compute Unit")
  const pm4::Rsrc1 r1 = pm4::decode_rsrc1(l.rsrc1);
  unsigned waves_per_simd = f.max_waves_per_simd;
  const uint32_t vgprs = f.vgprs_from_rsrc1_blocks(r1.granulated_workitem_vgpr_count, false);
  const uint32_t g = f.vgpr_alloc_granule_wave64 ? f.vgpr_alloc_granule_wave64 : 4;
  waves_per_simd = std::min<unsigned>(waves_per_simd, f.vgprs_wave64 / ((vgprs + g - 1) / g * g));
  if (f.sgprs) {  // gfx9 RSRC1: 2 * (ceil(sgprs / 16) - 1) (AMDGPUUsage "compute_pgm_rsrc1")
    const uint32_t sg = f.sgpr_alloc_granule ? f.sgpr_alloc_granule : 16;
    const uint32_t sgprs = (r1.granulated_wavefront_sgpr_count / 2 + 1) * 16;
    waves_per_simd = std::min<unsigned>(waves_per_simd, f.sgprs / ((sgprs + sg - 1) / sg * sg));
  }
  uint64_t per_cu = uint64_t{waves_per_simd} * kSimds / std::max(1u, l.group_waves);
  if (l.lds_bytes) per_cu = std::min<uint64_t>(per_cu, uint64_t{l.family ? l.family->lds_bytes_per_group : 64u * 1024} / l.lds_bytes);
  per_cu = std::min<uint64_t>(per_cu, kMaxGroupsPerCu);
  return std::max<uint64_t>(1, per_cu * cus);  // a dispatch always runs
}

void bind_scratch_slots(const Launch& l, Memory& mem, unsigned worker, WorkerStorage& st) {
  const QueueScratch& q = l.scratch;
  st.slot_host.assign(l.group_waves, nullptr);
  if (!l.needs_scratch || q.wave_bytes == 0) return;
  for (unsigned i = 0; i < l.group_waves; ++i) {
    const uint64_t slot = uint64_t{worker} * l.group_waves + i;
    if (slot < q.waves)
      st.slot_host[i] = mem.translate(q.base + slot * q.wave_bytes, q.wave_bytes, true);
  }
}

void setup_group(const Launch& l, DispatchCtx& ctx, unsigned worker, uint64_t index,
                 WorkerStorage& st, Group& g) {
  g.ctx = &ctx;
  g.id[0] = l.start[0] + static_cast<uint32_t>(index % l.groups[0]);
  g.id[1] = l.start[1] + static_cast<uint32_t>((index / l.groups[0]) % l.groups[1]);
  g.id[2] = l.start[2] + static_cast<uint32_t>(index / (uint64_t{l.groups[0]} * l.groups[1]));
  g.cu = l.cus && !l.cus->empty() ? (*l.cus)[index % l.cus->size()] : 0;
  uint32_t size[3];
  for (int i = 0; i < 3; ++i) size[i] = std::min<uint32_t>(l.wg[i], l.grid[i] - g.id[i] * l.wg[i]);
  uint64_t items = uint64_t{size[0]} * size[1] * size[2];
  g.nwaves = static_cast<unsigned>((items + 63) / 64);
  if (st.waves.size() < g.nwaves) st.waves.resize(g.nwaves);
  if (st.vregs_waves < g.nwaves) {
    st.vregs.reset(new uint32_t[size_t{g.nwaves} * kVRows][64]);
    st.vregs_waves = g.nwaves;
  }
  if (st.lds.size() < l.lds_bytes) st.lds.resize(l.lds_bytes);
  g.lds = st.lds.data();
  g.lds_size = l.lds_bytes;
  g.waves = &st.waves;
  for (unsigned i = 0; i < g.nwaves; ++i) {
    Wave& w = st.waves[i];
    reset_wave(w);  // translations stay valid for the whole dispatch: reused across workgroups
    w.v = st.vregs.get() + size_t{i} * kVRows;
    w.group = &g;
    w.wave_id = i;
    w.pc = l.entry;
    w.mode = l.mode;
    std::memcpy(w.s, l.user_sgpr, l.user_sgprs * sizeof(uint32_t));
    bind_slot(l, worker, i, st, w);
    init_vgprs(l, size, i, w);
  }
}

}  // namespace emu::shader
