// SPDX-License-Identifier: MIT
// gfx9-family scratch encoding of the private segment buffer V#.
#include "queues/scratch.h"

namespace queues::scratch {

// The V# ROCr programs on gfx9 and gfx90a alike (AqlQueue::InitScratchSRD, default branch):
// swizzled (SWIZZLE_ENABLE, stride 0) with ADD_TID_ENABLE, 4-byte elements interleaved across
// 64 lanes (INDEX_STRIDE 3), 32-bit UINT format, identity component selects; NUM_RECORDS is
// the byte size. The CP fills in each wave's offset from COMPUTE_TMPRING_SIZE.
Descriptor descriptor_gfx9(uint64_t base, uint32_t num_records, bool atc) {
  using namespace vsharp_gfx9;
  Descriptor d{};
  d.word[0] = uint32_t(base);
  d.word[1] = (uint32_t(base >> 32) & ((1u << kBaseHiBits) - 1)) << kBaseHiShift |
              0u << kStrideShift | 0u << kCacheSwizzleBit | 1u << kSwizzleEnableBit;
  d.word[2] = num_records;
  d.word[3] = kSelX << kDstSelXShift | kSelY << kDstSelYShift | kSelZ << kDstSelZShift |
              kSelW << kDstSelWShift | kNumFormatUint << kNumFormatShift |
              kDataFormat32 << kDataFormatShift | 1u << kElementSizeShift |
              3u << kIndexStrideShift | 1u << kAddTidEnableBit | uint32_t(atc) << kAtcBit |
              0u << kHashEnableBit | 0u << kHeapBit | 0u << kMtypeShift | 0u << kTypeShift;
  return d;
}

}  // namespace queues::scratch
