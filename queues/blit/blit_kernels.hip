// SPDX-License-Identifier: MIT
// kfdrt's blit kernels (copies, 1/2/4-byte fills, rectangles, the GWS init of cooperative launches), built at build time for every GPU target.
//
// Device code with clang builtins only (no HIP headers, no device libraries), compiled with
// -nogpuinc -nogpulib. Stores are 16-byte aligned dwordx4; loads are dwordx4 when the source is
// 16-byte co-aligned with the destination, dwords when it is 4-byte co-aligned, and bytes
// otherwise (no reliance on the unaligned access mode). The unaligned head and tail of a range
// go byte by byte. Each work-item moves four units per loop trip to keep loads in flight.
#include "blit_args.h"

#define KERNEL extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(256, 256)))
#define DEVICE static __attribute__((device)) inline

using namespace queues::blit;

typedef uint32_t u32x4 __attribute__((ext_vector_type(4)));
// Global-memory pointers (address space 1): global_load/store rather than flat instructions.
#define GLOBAL __attribute__((address_space(1)))
typedef GLOBAL uint8_t gu8;
typedef GLOBAL const uint8_t gcu8;
typedef GLOBAL u32x4 gu32x4;

DEVICE uint32_t gid_x() { return __builtin_amdgcn_workgroup_id_x() * kWorkgroup + __builtin_amdgcn_workitem_id_x(); }

// The 16 bytes at `p` (any alignment), one byte load each.
DEVICE u32x4 load_bytes(gcu8* p) {
  u32x4 v;
  for (int i = 0; i < 4; ++i)
    v[i] = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 |
           uint32_t(p[4 * i + 3]) << 24;
  return v;
}

DEVICE u32x4 load_dwords(gcu8* p) {
  GLOBAL const uint32_t* d = (GLOBAL const uint32_t*)p;
  return u32x4{d[0], d[1], d[2], d[3]};
}

// dst[u] <- src[u] for the 16-byte units u = first, first + stride, ... < units (units < 2^28:
// the runtime splits larger ranges), addressed by 32-bit byte offsets from the uniform bases so
// each access is one global_load/store with a scalar base; `Load` reads one unit.
template <class Load>
DEVICE void copy_units(gu32x4* dst, gcu8* src, uint32_t units, uint32_t first, uint32_t stride, Load load) {
  gu8* d = (gu8*)dst;
  const uint32_t end = units * 16, step = stride * 16;
  uint32_t o = first * 16;
  for (; o + 3 * step < end; o += 4 * step) {
    const uint32_t o1 = o + step, o2 = o1 + step, o3 = o2 + step;
    const u32x4 a = load(src + o), b = load(src + o1), c = load(src + o2), e = load(src + o3);
    *(gu32x4*)(d + o) = a;
    *(gu32x4*)(d + o1) = b;
    *(gu32x4*)(d + o2) = c;
    *(gu32x4*)(d + o3) = e;
  }
  for (; o < end; o += step) *(gu32x4*)(d + o) = load(src + o);
}

// One row of `bytes` bytes, work-items `first`, first + stride, ... of it.
DEVICE void copy_row(gu8* dst, gcu8* src, uint64_t bytes, uint64_t first, uint64_t stride) {
  uint64_t head = (16 - (uint64_t(dst) & 15)) & 15;
  if (head > bytes) head = bytes;
  const uint64_t units = (bytes - head) / 16;
  const uint64_t tail_at = head + units * 16, tail = bytes - tail_at;
  for (uint64_t i = first; i < head; i += stride) dst[i] = src[i];
  for (uint64_t i = first; i < tail; i += stride) dst[tail_at + i] = src[tail_at + i];
  if (units == 0) return;
  gu32x4* d = (gu32x4*)(dst + head);
  gcu8* s = src + head;
  const uint64_t skew = uint64_t(s) & 15;
  const uint32_t u = uint32_t(units), f = uint32_t(first), st = uint32_t(stride);
  if (skew == 0)
    copy_units(d, s, u, f, st, [](gcu8* p) { return *(GLOBAL const u32x4*)p; });
  else if ((skew & 3) == 0)
    copy_units(d, s, u, f, st, load_dwords);
  else
    copy_units(d, s, u, f, st, load_bytes);
}

KERNEL void kfdrt_blit_copy(CopyArgs a) {
  copy_row((gu8*)a.dst, (gcu8*)a.src, a.bytes, gid_x(), a.threads);
}

KERNEL void kfdrt_blit_fill(FillArgs a) {
  gu8* dst = (gu8*)a.dst;
  const uint64_t first = gid_x(), stride = a.threads;
  uint64_t head = (16 - (a.dst & 15)) & 15;
  if (head > a.bytes) head = a.bytes;
  const uint64_t units = (a.bytes - head) / 16;
  const uint64_t tail_at = head + units * 16, tail = a.bytes - tail_at;
  // Byte k of the range sits at address dst + k: its pattern byte is (dst + k) % 4 of `word`.
  for (uint64_t i = first; i < head; i += stride) dst[i] = uint8_t(a.word >> (8 * ((a.dst + i) & 3)));
  for (uint64_t i = first; i < tail; i += stride)
    dst[tail_at + i] = uint8_t(a.word >> (8 * ((a.dst + tail_at + i) & 3)));
  gu8* d = dst + head;
  const u32x4 v = {a.word, a.word, a.word, a.word};
  const uint32_t end = uint32_t(units) * 16, step = uint32_t(stride) * 16;
  uint32_t o = uint32_t(first) * 16;
  for (; o + 3 * step < end; o += 4 * step) {
    const uint32_t o1 = o + step, o2 = o1 + step, o3 = o2 + step;
    *(gu32x4*)(d + o) = v;
    *(gu32x4*)(d + o1) = v;
    *(gu32x4*)(d + o2) = v;
    *(gu32x4*)(d + o3) = v;
  }
  for (; o < end; o += step) *(gu32x4*)(d + o) = v;
}

KERNEL void kfdrt_blit_copy_rect(RectArgs a) {
  const uint64_t rows = uint64_t(a.height) * a.depth;
  const uint32_t gid = gid_x(), lane = gid % a.row_threads;
  for (uint64_t r = gid / a.row_threads; r < rows; r += a.rows_step) {
    const uint64_t y = r % a.height, z = r / a.height;
    copy_row((gu8*)(a.dst + z * a.dst_slice + y * a.dst_pitch),
             (gcu8*)(a.src + z * a.src_slice + y * a.src_pitch), a.width, lane, a.row_threads);
  }
}

// One work-item (its own workgroup size): resource 0, M0[21:16] being 0 and the offset 0.
extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(1, 64))) void kfdrt_gws_init(GwsInitArgs a) {
  __builtin_amdgcn_ds_gws_init(a.value, 0);
}
