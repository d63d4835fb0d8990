// SPDX-License-Identifier: MIT
// Kernel-argument layouts of kfdrt's blit kernels, shared by the device code and the runtime.
#pragma once

#include <stdint.h>

namespace queues::blit {

// Every blit kernel runs workgroups of this many work-items (1-D in x).
constexpr uint32_t kWorkgroup = 256;

// kfdrt_blit_copy: dst[0, bytes) <- src[0, bytes), the regions not overlapping. Work-item i of
// `threads` moves the 16-byte units i, i + threads, ... of the part of dst that is 16-byte
// aligned, and the unaligned head and tail bytes.
struct CopyArgs {
  uint64_t dst;
  uint64_t src;
  uint64_t bytes;
  uint32_t threads;  // work-items in the grid (a multiple of kWorkgroup)
  uint32_t pad;
};
static_assert(sizeof(CopyArgs) == 32, "CopyArgs layout");

// kfdrt_blit_fill: dst[0, bytes) filled with a pattern of 1, 2 or 4 bytes. `word` is the dword
// the pattern gives every 4-byte aligned address of the range (the pattern rotated by the
// destination's offset), so byte a of the range is byte (a % 4) of `word`.
struct FillArgs {
  uint64_t dst;
  uint64_t bytes;
  uint32_t word;
  uint32_t threads;
};
static_assert(sizeof(FillArgs) == 24, "FillArgs layout");

// kfdrt_blit_copy_rect: `height` x `depth` rows of `width` bytes; row (y, z) starts at
// base + z * slice + y * pitch on each side. `row_threads` work-items (a power of two dividing
// kWorkgroup) share a row: work-item i moves rows i / row_threads, + rows_step, ... (a 1-D grid
// of rows_step * row_threads work-items).
struct RectArgs {
  uint64_t dst;
  uint64_t src;
  uint64_t dst_pitch;
  uint64_t src_pitch;
  uint64_t dst_slice;
  uint64_t src_slice;
  uint64_t width;
  uint32_t height;
  uint32_t depth;
  uint32_t row_threads;  // work-items per row
  uint32_t rows_step;    // rows one pass of the grid covers
};
static_assert(sizeof(RectArgs) == 72, "RectArgs layout");

// kfdrt_gws_init: one work-item sets GWS resource 0 (the one a grid barrier, ROCm's
// __ockl_grid_sync, waits at) to `value`: the number of workgroups of the cooperative dispatch
// that follows, minus one (ds_gws_barrier releases once value + 1 waves arrived; ROCclr's
// gwsInit blit kernel). The dispatch's queue must hold the GWS (AMDKFD_IOC_ALLOC_QUEUE_GWS).
struct GwsInitArgs {
  uint32_t value;
  uint32_t pad;
};
static_assert(sizeof(GwsInitArgs) == 8, "GwsInitArgs layout");

}  // namespace queues::blit
