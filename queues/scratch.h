// SPDX-License-Identifier: MIT
// Scratch (private segment) of an AQL queue: backing-store sizing and the amd_queue_t fields the CP reads.
#pragma once

#include <cstdint>

#include "kfd/node_properties.h"
#include "base/result.h"
#include "pm4/aql.h"
#include "pm4/family.h"
#include "pm4/scratch_regs.h"

namespace queues::scratch {

namespace aql = pm4::aql;
namespace tmpring_gfx9 = pm4::tmpring_gfx9;
namespace vsharp_gfx9 = pm4::vsharp_gfx9;

// amd_queue_t.queue_properties bits. source: ROCr amd_hsa_queue.h (amd_queue_properties_t).
constexpr uint32_t kPropEnableTrapHandler = 1u << 0;
constexpr uint32_t kPropIsPtr64 = 1u << 1;
constexpr uint32_t kPropEnableTrapHandlerDebugSgprs = 1u << 2;
constexpr uint32_t kPropEnableProfiling = 1u << 3;

// The process scratch backing VA handed to SET_SCRATCH_BACKING_VA is in 64 KiB units (the thunk
// passes base >> 16), so the window and each queue's slice are 64 KiB aligned.
constexpr uint64_t kBackingAlign = uint64_t(1) << 16;

// A queue's part of its GPU's scratch window (queues::Runtime::acquire_scratch).
struct Slice {
  uint64_t base = 0;    // GPU VA of the slice (the V# base)
  uint64_t offset = 0;  // from the window base (the gfx8 form of scratch_backing_memory_location)
  uint64_t size = 0;
};

// What a queue's scratch needs, from the node's properties and the per-lane size.
struct Layout {
  uint32_t lanes_per_wave = 64;
  uint32_t lane_bytes = 0;       // per work-item, rounded up to a whole number of wave units
  uint32_t wave_units = 0;       // COMPUTE_TMPRING_SIZE.WAVESIZE
  uint32_t waves = 0;            // COMPUTE_TMPRING_SIZE.WAVES
  uint32_t num_xcc = 1;
  uint64_t total_bytes = 0;      // backing store to allocate (all XCCs)
};

// Sizes the backing store as ROCr does: lane_bytes * max_slots_scratch_cu * CUs * 64 lanes, the
// per-lane size rounded so a wave's share is a multiple of 1 KiB, and at most the slots whose
// waves one XCC's 32-bit NUM_RECORDS covers (fewer WAVES for very large per-lane sizes). EINVAL
// when the node has no scratch slots or the per-wave size overflows WAVESIZE; ENOTSUP for a
// family without a table entry.
base::Result<Layout> layout(const kfd::NodeProperties& p, uint32_t lane_bytes);

// The largest per-work-item (wave64 lane) scratch COMPUTE_TMPRING_SIZE.WAVESIZE can describe on
// gfx9 (8191 KiB per wave / 64 lanes); layout() refuses more.
constexpr uint32_t kMaxLaneBytesGfx9 =
    ((1u << tmpring_gfx9::kWaveSizeBits) - 1) * tmpring_gfx9::kWaveSizeUnit / 64;

// The same per-wave size with room for only `waves` waves (WAVES), for memory pressure: the CP
// runs at most WAVES scratch-using waves at once, so fewer slots throttle a dispatch but never
// break it, as long as a whole workgroup (kMinWaves wave64s) fits.
constexpr uint32_t kMinWaves = 16;
Layout with_waves(const Layout& l, uint32_t waves);

// The four V# words of the private segment buffer for a backing store at `base`.
struct Descriptor {
  uint32_t word[4];
};

// The amd_queue_t fields for scratch at `base` (GPU VA), `offset` bytes into the process's
// backing window. A zero-size layout clears them (no scratch: the CP faults a kernel that needs it).
struct Fields {
  uint32_t compute_tmpring_size = 0;
  Descriptor srd{};
  uint64_t backing_location = 0;   // scratch_backing_memory_location
  uint64_t backing_byte_size = 0;  // scratch_backing_memory_byte_size (per XCC)
  uint32_t wave64_lane_bytes = 0;  // scratch_wave64_lane_byte_size
};
base::Result<Fields> encode(const kfd::NodeProperties& p, const Layout& l, uint64_t base,
                           uint64_t offset);

// A backing store allocated and encoded for a queue but not installed yet
// (queues::Runtime::prepare_scratch); all zero for "no scratch".
struct Prepared {
  Layout layout;
  Slice slice;
  Fields fields;
};

// Writes the fields into amd_queue_t.
void apply(aql::AmdQueue& q, const Fields& f);

// COMPUTE_TMPRING_SIZE with the family's field widths (pm4/family.h): WAVES at bit 0, WAVESIZE
// above it.
inline uint32_t tmpring_size(const pm4::Family& f, uint32_t waves, uint32_t wave_units) {
  const uint32_t waves_mask = (1u << f.tmpring_waves_bits) - 1;
  const uint32_t size_mask = (1u << f.tmpring_wavesize_bits) - 1;
  return (waves & waves_mask) | (wave_units & size_mask) << f.tmpring_wavesize_shift;
}
// The gfx9-family (gfx900 .. gfx90a, gfx94x) encoders, pure, exposed for tests.
inline uint32_t tmpring_size_gfx9(uint32_t waves, uint32_t wave_units) {
  return tmpring_size(*pm4::family_for(90010), waves, wave_units);
}
Descriptor descriptor_gfx9(uint64_t base, uint32_t num_records, bool atc);

}  // namespace queues::scratch
