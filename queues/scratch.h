// SPDX-License-Identifier: MIT
// Scratch (private segment) of an AQL queue: backing-store sizing and the amd_queue_t fields the CP reads.
#pragma once

#include <cstdint>

#include "kfd/node_properties.h"
#include "kfd/result.h"
#include "queues/aql.h"

namespace queues::scratch {

// amd_queue_t.queue_properties bits. source: ROCr amd_hsa_queue.h (amd_queue_properties_t).
constexpr uint32_t kPropEnableTrapHandler = 1u << 0;
constexpr uint32_t kPropIsPtr64 = 1u << 1;
constexpr uint32_t kPropEnableTrapHandlerDebugSgprs = 1u << 2;
constexpr uint32_t kPropEnableProfiling = 1u << 3;

// The process scratch backing VA handed to SET_SCRATCH_BACKING_VA is in 64 KiB units (the thunk
// passes base >> 16), so the window and each queue's slice are 64 KiB aligned.
constexpr uint64_t kBackingAlign = uint64_t(1) << 16;

// COMPUTE_TMPRING_SIZE on gfx9: WAVES [11:0], WAVESIZE [24:12] in 1 KiB units per wave.
// source: ROCr registers.h (COMPUTE_TMPRING_SIZE); AMD Vega ISA register reference.
namespace tmpring_gfx9 {
constexpr unsigned kWavesShift = 0, kWavesBits = 12;
constexpr unsigned kWaveSizeShift = 12, kWaveSizeBits = 13;
constexpr uint32_t kWaveSizeUnit = 1024;  // bytes
}  // namespace tmpring_gfx9

// Buffer resource (V#) words as gfx9 defines them. source: ROCr registers.h SQ_BUF_RSRC_WORD1/3,
// AMD Vega ISA "Buffer Resource".
namespace vsharp_gfx9 {
// word1
constexpr unsigned kBaseHiShift = 0, kBaseHiBits = 16;
constexpr unsigned kStrideShift = 16, kStrideBits = 14;
constexpr unsigned kCacheSwizzleBit = 30;
constexpr unsigned kSwizzleEnableBit = 31;
// word3
constexpr unsigned kDstSelXShift = 0, kDstSelYShift = 3, kDstSelZShift = 6, kDstSelWShift = 9;
constexpr unsigned kNumFormatShift = 12;    // 3 bits
constexpr unsigned kDataFormatShift = 15;   // 4 bits
constexpr unsigned kElementSizeShift = 19;  // 2 bits: 0=2, 1=4, 2=8, 3=16 bytes
constexpr unsigned kIndexStrideShift = 21;  // 2 bits: 0=8, 1=16, 2=32, 3=64 lanes
constexpr unsigned kAddTidEnableBit = 23;
constexpr unsigned kAtcBit = 24;            // address translation via ATC (APU, full profile)
constexpr unsigned kHashEnableBit = 25;
constexpr unsigned kHeapBit = 26;
constexpr unsigned kMtypeShift = 27;        // 3 bits
constexpr unsigned kTypeShift = 30;         // 2 bits: 0 = buffer
constexpr uint32_t kSelX = 4, kSelY = 5, kSelZ = 6, kSelW = 7;
constexpr uint32_t kNumFormatUint = 4;
constexpr uint32_t kDataFormat32 = 4;
}  // namespace vsharp_gfx9

// A queue's part of its GPU's scratch window (queues::Runtime::acquire_scratch).
struct Slice {
  uint64_t base = 0;    // GPU VA of the slice (the V# base)
  uint64_t offset = 0;  // from the window base (amd_queue_t.scratch_backing_memory_location)
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
// per-lane size rounded so a wave's share is a multiple of 1 KiB. EINVAL when the node has no
// scratch slots or the per-wave size overflows WAVESIZE; ENOTSUP for a family without a table entry.
kfd::Result<Layout> layout(const kfd::NodeProperties& p, uint32_t lane_bytes);

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
kfd::Result<Fields> encode(const kfd::NodeProperties& p, const Layout& l, uint64_t base,
                           uint64_t offset);

// Writes the fields into amd_queue_t.
void apply(aql::AmdQueue& q, const Fields& f);

// --- gfx9 family encoders (gfx900 .. gfx90a, gfx94x), pure, exposed for tests ---
uint32_t tmpring_size_gfx9(uint32_t waves, uint32_t wave_units);
Descriptor descriptor_gfx9(uint64_t base, uint32_t num_records, bool atc);

}  // namespace queues::scratch
