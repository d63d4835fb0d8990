// SPDX-License-Identifier: MIT
// Scratch sizing per ROCr's formulas and the per-family encoder table (ROCr amd_aql_queue.cpp, amd_hsa_queue.h).
#include "queues/scratch.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>

namespace queues::scratch {
namespace {

// The scratch encodings come from the per-family table (pm4/family.h: TMPRING field widths and
// unit); the private segment buffer V# has one encoder per V# layout, and only the gfx9 one
// (gfx900 .. gfx950) is written so far: gfx10+ change V# word3 and run wave32.
struct Encoding {
  uint32_t wave_unit;       // bytes per COMPUTE_TMPRING_SIZE.WAVESIZE unit
  uint32_t wave_size_bits;  // width of WAVESIZE
  uint32_t waves_bits;      // width of WAVES
  const pm4::Family* family;
  Descriptor (*descriptor)(uint64_t base, uint32_t num_records, bool atc);
};

base::Result<Encoding> family_of(const kfd::NodeProperties& p) {
  const pm4::Family* f = pm4::family_for(p.gfx_target_version);
  if (!f || f->major != 9)
    return base::Error::msg("scratch: no scratch encoding for gfx_target_version " +
                           std::to_string(p.gfx_target_version) +
                           (f ? std::string(" (") + f->name + ": its buffer V# layout is not implemented)"
                              : std::string(" (unknown family)")), ENOTSUP);
  return Encoding{f->tmpring_wavesize_unit, f->tmpring_wavesize_bits, f->tmpring_waves_bits, f,
                  descriptor_gfx9};
}

uint32_t cu_count(const kfd::NodeProperties& p) {
  return p.simd_per_cu ? p.simd_count / p.simd_per_cu : 0;
}

}  // namespace

base::Result<Layout> layout(const kfd::NodeProperties& p, uint32_t lane_bytes) {
  Layout l;
  l.num_xcc = p.num_xcc ? p.num_xcc : 1;
  if (lane_bytes == 0) return l;  // no scratch
  KFD_ASSIGN(const Encoding enc, family_of(p));
  const Encoding* f = &enc;
  const uint32_t cus = cu_count(p);
  if (cus == 0 || p.max_slots_scratch_cu == 0)
    return base::Error::msg("scratch: node reports " + std::to_string(cus) + " CUs and " +
                           std::to_string(p.max_slots_scratch_cu) +
                           " max_slots_scratch_cu; no scratch possible", EINVAL);
  // A wave's share must be whole WAVESIZE units: round the per-lane size up to unit / lanes.
  const uint32_t lane_align = f->wave_unit / l.lanes_per_wave;
  const uint64_t lane = (uint64_t(lane_bytes) + lane_align - 1) / lane_align * lane_align;
  const uint64_t units = lane * l.lanes_per_wave / f->wave_unit;
  if (units >= (uint64_t(1) << f->wave_size_bits))
    return base::Error::msg("scratch: " + std::to_string(lane_bytes) +
                           " bytes per lane exceed the per-wave limit of " +
                           std::to_string(((1u << f->wave_size_bits) - 1) / l.lanes_per_wave *
                                          f->wave_unit) + " bytes", EINVAL);
  l.lane_bytes = uint32_t(lane);
  l.wave_units = uint32_t(units);
  const uint64_t slots = uint64_t(cus) * p.max_slots_scratch_cu;
  const uint64_t wave_bytes = units * f->wave_unit;
  l.total_bytes = lane * l.lanes_per_wave * slots;
  // WAVES counts the waves one XCC's share holds, at most every scratch slot of the device.
  const uint64_t per_xcc_waves = l.total_bytes / l.num_xcc / wave_bytes;
  l.waves = uint32_t(std::min<uint64_t>(per_xcc_waves, slots));
  // One XCC's share is what the V#'s 32-bit NUM_RECORDS covers: a per-lane size too large for
  // every slot to hold a wave gets fewer slots (WAVES), and the CP runs fewer of its waves at
  // once instead of the queue getting no scratch at all.
  // WAVES is also a 12-bit field (4095 at most), which a large part's slots can exceed.
  const uint64_t max_waves = std::min<uint64_t>(UINT32_MAX / wave_bytes, (1u << f->waves_bits) - 1);
  if (l.waves > max_waves) {
    l.waves = uint32_t(max_waves);
    l.total_bytes = max_waves * wave_bytes * l.num_xcc;
  }
  return l;
}

Layout with_waves(const Layout& l, uint32_t waves) {
  Layout out = l;
  out.waves = std::min(l.waves, waves);
  out.total_bytes = uint64_t(out.waves) * l.lane_bytes * l.lanes_per_wave * l.num_xcc;
  return out;
}

base::Result<Fields> encode(const kfd::NodeProperties& p, const Layout& l, uint64_t base,
                           uint64_t offset) {
  Fields out;
  if (l.total_bytes == 0) return out;
  KFD_ASSIGN(const Encoding enc, family_of(p));
  const Encoding* f = &enc;
  const uint64_t per_xcc = l.total_bytes / l.num_xcc;  // ROCr reports sizes per XCC
  if (per_xcc > UINT32_MAX)
    return base::Error::msg("scratch: " + std::to_string(per_xcc) +
                           " bytes per XCC exceed NUM_RECORDS (32 bits)", EINVAL);
  // ATC (address translation through the IOMMU) for full-profile APUs: a GPU node with CPU cores.
  const bool apu = p.cpu_cores_count != 0;
  out.compute_tmpring_size = tmpring_size(*f->family, l.waves, l.wave_units);
  out.srd = f->descriptor(base, uint32_t(per_xcc), apu);
  // Flat scratch: gfx9+ CPs take scratch_backing_memory_location as the backing store's GPU
  // address; gfx8 took an offset from the process's scratch base (ROCr amd_gpu_agent.cpp
  // AcquireQueueScratch, need_queue_scratch_base = major > 8).
  out.backing_location = p.gfx_target_version >= 90000 ? base : offset;
  out.backing_byte_size = per_xcc;
  out.wave64_lane_bytes = l.lane_bytes * l.lanes_per_wave / 64;
  return out;
}

void apply(aql::AmdQueue& q, const Fields& f) {
  q.compute_tmpring_size = f.compute_tmpring_size;
  for (int i = 0; i < 4; ++i) q.scratch_resource_descriptor[i] = f.srd.word[i];
  q.scratch_backing_memory_location = f.backing_location;
  q.scratch_backing_memory_byte_size = f.backing_byte_size;
  q.scratch_wave64_lane_byte_size = f.wave64_lane_bytes;
}

}  // namespace queues::scratch
