// SPDX-License-Identifier: MIT
// gfx9 scratch registers (COMPUTE_TMPRING_SIZE, buffer V#): one header for the runtime encoder and the emulator decoder.
#pragma once

#include <cstdint>

namespace pm4 {

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

// Decoders of the fields above (the emulated command processor and shader core).
namespace tmpring_gfx9 {
constexpr uint32_t waves(uint32_t reg) { return (reg >> kWavesShift) & ((1u << kWavesBits) - 1); }
constexpr uint32_t wave_units(uint32_t reg) {
  return (reg >> kWaveSizeShift) & ((1u << kWaveSizeBits) - 1);
}
}  // namespace tmpring_gfx9

namespace vsharp_gfx9 {
constexpr uint64_t base(const uint32_t w[4]) {
  return w[0] | uint64_t(w[1] & ((1u << kBaseHiBits) - 1)) << 32;
}
constexpr uint32_t stride(const uint32_t w[4]) {
  return (w[1] >> kStrideShift) & ((1u << kStrideBits) - 1);
}
constexpr bool swizzle(const uint32_t w[4]) { return (w[1] >> kSwizzleEnableBit) & 1; }
constexpr bool add_tid(const uint32_t w[4]) { return (w[3] >> kAddTidEnableBit) & 1; }
// Bytes per element and lanes per index stride (the 2-bit codes decoded).
constexpr uint32_t element_bytes(const uint32_t w[4]) {
  return 2u << ((w[3] >> kElementSizeShift) & 3);
}
constexpr uint32_t index_stride(const uint32_t w[4]) {
  return 8u << ((w[3] >> kIndexStrideShift) & 3);
}
}  // namespace vsharp_gfx9

}  // namespace pm4
