// SPDX-License-Identifier: MIT
// Dispatch setup: reads the AQL packet and kernel descriptor and builds the initial wave state.
#include "emu/shader/dispatch.h"

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdio>

#include "pm4/aql.h"
#include "pm4/scratch_regs.h"

namespace emu::shader {

namespace {

template <class T>
T load(const uint8_t* p, unsigned off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}

Outcome fail(std::string msg) {
  Outcome o;
  o.kind = Outcome::Kind::MemoryFault;
  o.message = std::move(msg);
  return o;
}

// kernel_code_properties bits (REFERENCE §3).
enum : uint16_t {
  kPrivSegBuf = 1, kDispatchPtr = 2, kQueuePtr = 4, kKernargPtr = 8, kDispatchId = 16,
  kFlatScratchInit = 32, kPrivSegSize = 64, kWave32 = 1u << 10, kDynamicStack = 1u << 11
};

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

// The queue's scratch fields (amd_queue_t, REFERENCE §2), and whether they hold what the kernel
// needs: a gfx9 CP gives a dispatch only the scratch its queue has.
Outcome read_queue_scratch(const Dispatch& d, Memory& mem, uint32_t kd_private,
                           uint32_t pkt_private, Launch& l) {
  using pm4::aql::AmdQueue;
  namespace tr = pm4::tmpring_gfx9;
  const uint8_t* q = mem.translate(d.queue_va, sizeof(AmdQueue), false);
  QueueScratch& s = l.scratch;
  if (q) {
    const uint32_t tmpring = load<uint32_t>(q, offsetof(AmdQueue, compute_tmpring_size));
    std::memcpy(s.vsharp, q + offsetof(AmdQueue, scratch_resource_descriptor), sizeof s.vsharp);
    s.base = pm4::vsharp_gfx9::base(s.vsharp);
    s.flat_base =
        d.private_base + load<uint64_t>(q, offsetof(AmdQueue, scratch_backing_memory_location));
    s.waves = tr::waves(tmpring);
    s.wave_bytes = uint64_t{tr::wave_units(tmpring)} * tr::kWaveSizeUnit;
  }
  if (!l.needs_scratch) return Outcome{};
  if (!q) {
    Outcome o = fail("amd_queue_t not mapped: the queue's scratch of a kernel needing it is unknown");
    o.fault_va = d.queue_va;
    return o;
  }
  const char* dyn = (l.props & kDynamicStack) ? ", dynamic stack" : "";
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

bool packed_tid(Target t) { return t == Target::gfx90a || t == Target::gfx942; }

}  // namespace

Outcome read_launch(const Dispatch& d, Target t, Memory& mem, Launch& l) {
  l.d = d;
  l.target = t;
  const uint8_t* pk = mem.translate(d.packet_va, 64, false);
  if (!pk) { Outcome o = fail("dispatch packet not mapped"); o.fault_va = d.packet_va; return o; }
  for (int i = 0; i < 3; ++i) {
    l.wg[i] = std::max<uint16_t>(1, load<uint16_t>(pk, 4 + 2 * i));
    l.grid[i] = load<uint32_t>(pk, 12 + 4 * i);
    l.groups[i] = (l.grid[i] + l.wg[i] - 1) / l.wg[i];
  }
  uint32_t pkt_private = load<uint32_t>(pk, 24), pkt_group = load<uint32_t>(pk, 28);
  uint64_t kd_va = load<uint64_t>(pk, 32);
  l.kernarg = load<uint64_t>(pk, 40);
  const uint8_t* kd = mem.translate(kd_va, 64, false);
  if (!kd) { Outcome o = fail("kernel descriptor not mapped"); o.fault_va = kd_va; return o; }
  l.entry = kd_va + load<int64_t>(kd, 16);
  l.rsrc3 = load<uint32_t>(kd, 44);
  l.rsrc1 = load<uint32_t>(kd, 48);
  l.rsrc2 = load<uint32_t>(kd, 52);
  l.props = load<uint16_t>(kd, 56);
  if (l.props & kWave32) {
    Outcome o;
    o.kind = Outcome::Kind::Unimplemented;
    o.message = "wave32 kernels are not supported by the gfx9 shader core";
    return o;
  }
  if (uint64_t{l.wg[0]} * l.wg[1] * l.wg[2] > 1024) {  // the hardware limit (16 wave64s)
    Outcome o;
    o.kind = Outcome::Kind::Unimplemented;
    o.message = "workgroup of more than 1024 work-items";
    return o;
  }
  l.lds_bytes = load<uint32_t>(kd, 0) + pkt_group;
  const uint32_t kd_private = load<uint32_t>(kd, 4);
  const uint32_t priv = std::max(kd_private, pkt_private);
  l.private_per_lane = priv > UINT32_MAX - 3 ? UINT32_MAX & ~3u : (priv + 3) & ~3u;  // CP: dwords
  l.needs_scratch = priv > 0 || (l.props & kDynamicStack);
  l.group_waves = static_cast<unsigned>((uint64_t{l.wg[0]} * l.wg[1] * l.wg[2] + 63) / 64);
  l.total_groups = uint64_t{l.groups[0]} * l.groups[1] * l.groups[2];
  if (l.grid[0] == 0 || l.grid[1] == 0 || l.grid[2] == 0) l.total_groups = 0;
  return read_queue_scratch(d, mem, kd_private, pkt_private, l);
}

namespace {

// User SGPRs in AMDGPUUsage order; returns the next free SGPR.
unsigned init_user_sgprs(const Launch& l, Wave& w) {
  unsigned s = 0;
  auto put64 = [&](uint64_t v) { w.s[s] = static_cast<uint32_t>(v); w.s[s + 1] = static_cast<uint32_t>(v >> 32); s += 2; };
  if (l.props & kPrivSegBuf)  // the queue's V#, as the CP loads it
    for (uint32_t word : l.scratch.vsharp) w.s[s++] = word;
  if (l.props & kDispatchPtr) put64(l.d.packet_va);
  if (l.props & kQueuePtr) put64(l.d.queue_va);
  if (l.props & kKernargPtr) put64(l.kernarg);
  if (l.props & kDispatchId) put64(l.d.dispatch_id);
  if (l.props & kFlatScratchInit) put64(l.scratch.flat_base);  // the queue's backing base
  if (l.props & kPrivSegSize) w.s[s++] = l.private_per_lane;
  return s;
}

void init_system_sgprs(const Launch& l, const Group& g, uint32_t wave_offset, Wave& w) {
  unsigned s = (l.rsrc2 >> 1) & 0x1F;  // USER_SGPR_COUNT
  for (int i = 0; i < 3; ++i)
    if (l.rsrc2 & (1u << (7 + i))) w.s[s++] = g.id[i];
  if (l.rsrc2 & (1u << 10)) w.s[s++] = g.nwaves;  // workgroup info: wave count
  if (l.rsrc2 & 1u) w.s[s++] = wave_offset;       // private segment wave offset
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
  const uint64_t fs = l.target == Target::gfx942 && w.scratch_size ? q.flat_base + offset : 0;
  w.s[102] = static_cast<uint32_t>(fs);
  w.s[103] = static_cast<uint32_t>(fs >> 32);
  init_system_sgprs(l, *w.group, static_cast<uint32_t>(offset), w);
}

void init_vgprs(const Launch& l, const uint32_t size[3], unsigned wave, Wave& w) {
  uint64_t items = uint64_t{size[0]} * size[1] * size[2];
  uint64_t first = uint64_t{wave} * 64;
  // Work-item ids of the wave's first lane, then counted up (no division per lane).
  uint32_t x = static_cast<uint32_t>(first % size[0]);
  uint32_t y = static_cast<uint32_t>((first / size[0]) % size[1]);
  uint32_t z = static_cast<uint32_t>(first / (uint64_t{size[0]} * size[1]));
  uint64_t n = items > first ? std::min<uint64_t>(64, items - first) : 0;
  bool packed = packed_tid(l.target);
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
  w.set_exec(n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1));
}

}  // namespace

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
  g.id[0] = static_cast<uint32_t>(index % l.groups[0]);
  g.id[1] = static_cast<uint32_t>((index / l.groups[0]) % l.groups[1]);
  g.id[2] = static_cast<uint32_t>(index / (uint64_t{l.groups[0]} * l.groups[1]));
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
  uint32_t mode = ((l.rsrc1 >> 12) & 0xFF) | (((l.rsrc1 >> 21) & 1) << 8) | (((l.rsrc1 >> 23) & 1) << 9);
  for (unsigned i = 0; i < g.nwaves; ++i) {
    Wave& w = st.waves[i];
    Range keep[4];  // translations stay valid for the whole dispatch: reuse across workgroups
    std::memcpy(static_cast<void*>(keep), w.cache, sizeof keep);
    w = Wave{};
    std::memcpy(static_cast<void*>(w.cache), keep, sizeof keep);
    std::memset(w.s, 0, sizeof w.s);
    w.v = st.vregs.get() + size_t{i} * kVRows;
    w.group = &g;
    w.wave_id = i;
    w.pc = l.entry;
    w.mode = mode;
    init_user_sgprs(l, w);
    bind_slot(l, worker, i, st, w);
    init_vgprs(l, size, i, w);
  }
}

}  // namespace emu::shader
