// SPDX-License-Identifier: MIT
// Dispatch setup: reads the AQL packet and kernel descriptor and builds the initial wave state.
#include "emu/shader/dispatch.h"

#include <algorithm>
#include <cstdio>

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
  kFlatScratchInit = 32, kPrivSegSize = 64
};

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
  if (l.props & (1u << 10)) {
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
  uint32_t priv = std::max(load<uint32_t>(kd, 4), pkt_private);
  if (l.props & (1u << 11)) priv = std::max<uint32_t>(priv, 16384);  // dynamic stack
  l.private_per_lane = (priv + 15) & ~15u;
  l.total_groups = uint64_t{l.groups[0]} * l.groups[1] * l.groups[2];
  if (l.grid[0] == 0 || l.grid[1] == 0 || l.grid[2] == 0) l.total_groups = 0;
  return Outcome{};
}

namespace {

// User SGPRs in AMDGPUUsage order; returns the next free SGPR.
unsigned init_user_sgprs(const Launch& l, Wave& w) {
  unsigned s = 0;
  auto put64 = [&](uint64_t v) { w.s[s] = static_cast<uint32_t>(v); w.s[s + 1] = static_cast<uint32_t>(v >> 32); s += 2; };
  if (l.props & kPrivSegBuf) {
    // Scratch V#: base kScratchVa, swizzled, ADD_TID, index stride 64, element size 4
    // (mubuf.cpp decodes accesses relative to kScratchVa itself).
    put64(kScratchVa | (uint64_t{1} << 63));
    w.s[s++] = 0xFFFFFFFF;
    w.s[s++] = (1u << 23) | (3u << 21) | (1u << 19);
  }
  if (l.props & kDispatchPtr) put64(l.d.packet_va);
  if (l.props & kQueuePtr) put64(l.d.queue_va);
  if (l.props & kKernargPtr) put64(l.kernarg);
  if (l.props & kDispatchId) put64(l.d.dispatch_id);
  if (l.props & kFlatScratchInit) put64(kScratchVa);
  if (l.props & kPrivSegSize) w.s[s++] = l.private_per_lane;
  return s;
}

void init_system_sgprs(const Launch& l, const Group& g, Wave& w) {
  unsigned s = (l.rsrc2 >> 1) & 0x1F;  // USER_SGPR_COUNT
  for (int i = 0; i < 3; ++i)
    if (l.rsrc2 & (1u << (7 + i))) w.s[s++] = g.id[i];
  if (l.rsrc2 & (1u << 10)) w.s[s++] = g.nwaves;  // workgroup info: wave count
  if (l.rsrc2 & 1u) w.s[s++] = 0;                 // private segment wave offset
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

void setup_group(const Launch& l, DispatchCtx& ctx, uint64_t index, WorkerStorage& st, Group& g) {
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
  g.scratch_per_wave = uint64_t{l.private_per_lane} * 64;
  if (st.scratch.size() < g.scratch_per_wave * g.nwaves) st.scratch.resize(g.scratch_per_wave * g.nwaves);
  g.scratch = &st.scratch;
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
    // FLAT_SCRATCH as architected-flat-scratch targets (gfx942) get it from hardware; on the
    // others the kernel prologue sets it from the flat scratch init SGPRs (same value).
    w.s[102] = static_cast<uint32_t>(kScratchVa);
    w.s[103] = static_cast<uint32_t>(kScratchVa >> 32);
    init_user_sgprs(l, w);
    init_system_sgprs(l, g, w);
    init_vgprs(l, size, i, w);
  }
}

}  // namespace emu::shader
