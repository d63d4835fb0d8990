// SPDX-License-Identifier: MIT
// kfdrt's blit kernels (copies, 1/2/4-byte fills, rectangles, the GWS init of cooperative launches), built at build time for every GPU target.
//
// Device code with clang builtins only (no HIP headers, no device libraries), compiled with
// -nogpuinc -nogpulib. Stores are 16-byte aligned dwordx4; loads are dwordx4 when the source is
// 16-byte co-aligned with the destination, dwords when it is 4-byte co-aligned, and bytes
// otherwise (no reliance on the unaligned access mode). The unaligned head and tail of a range
// go byte by byte. Each work-item moves eight units per loop trip to keep loads in flight.
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

// A pointer every work-item holds the same value of, in scalar registers (its loads and stores
// then take a scalar base and a 32-bit vector offset).
template <class T>
DEVICE T* uniform(T* p) {
  const uint64_t v = uint64_t(p);
  const uint32_t lo = __builtin_amdgcn_readfirstlane(uint32_t(v)), hi = __builtin_amdgcn_readfirstlane(uint32_t(v >> 32));
  return (T*)(uint64_t(lo) | uint64_t(hi) << 32);
}

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
// the runtime splits larger ranges), addressed by 32-bit byte offsets from the bases; `Load`
// reads one unit. With Uniform (every work-item of the wave has the same bases: a plain copy,
// not rows of a rectangle) the bases are scalar and each access one global_load/store with a
// scalar base. Eight units per loop trip keep loads in flight (and the loop's own instructions
// few per byte).
template <bool Uniform, class Load>
DEVICE void copy_units(gu32x4* dst, gcu8* src, uint32_t units, uint32_t first, uint32_t stride, Load load) {
  gu8* d = (gu8*)dst;
  if (Uniform) {
    d = uniform(d);
    src = uniform(src);
  }
  const uint32_t end = units * 16, step = stride * 16;
  uint32_t o = first * 16;
  for (; o + 7 * step < end; o += 8 * step) {
    uint32_t ok[8];
    u32x4 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) ok[k] = o + uint32_t(k) * step;  // 32-bit offsets: no carry into the base
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = load(src + ok[k]);
#pragma unroll
    for (int k = 0; k < 8; ++k) *(gu32x4*)(d + ok[k]) = v[k];
  }
  for (; o < end; o += step) *(gu32x4*)(d + o) = load(src + o);
}

// The unaligned head (before dst's first 16-byte boundary) and tail of a row: under 16 bytes
// each, so one work-item per byte; their sizes are uniform, computed in 32 bits (scalar).
struct Edges {
  uint32_t head, tail;
  uint64_t units, tail_at;
};
DEVICE Edges edges(uint64_t dst, uint64_t bytes) {
  Edges e;
  e.head = (16 - (uint32_t(dst) & 15)) & 15;
  if ((bytes >> 32) == 0 && uint32_t(bytes) < e.head) e.head = uint32_t(bytes);
  e.units = (bytes - e.head) >> 4;
  e.tail_at = e.head + (e.units << 4);
  e.tail = uint32_t(bytes - e.tail_at);
  return e;
}

// One row of `bytes` bytes, work-items `first`, first + stride, ... of it (Uniform: see
// copy_units).
template <bool Uniform>
DEVICE void copy_row(gu8* dst, gcu8* src, uint64_t bytes, uint64_t first, uint64_t stride) {
  const Edges e = edges(uint64_t(dst), bytes);
  if (e.head)
    for (uint64_t i = first; i < e.head; i += stride) dst[i] = src[i];
  if (e.tail)
    for (uint64_t i = first; i < e.tail; i += stride) dst[e.tail_at + i] = src[e.tail_at + i];
  if (e.units == 0) return;
  gu32x4* d = (gu32x4*)(dst + e.head);
  gcu8* s = src + e.head;
  const uint32_t skew = uint32_t(uint64_t(s)) & 15;
  const uint32_t u = uint32_t(e.units), f = uint32_t(first), st = uint32_t(stride);
  if (skew == 0)
    copy_units<Uniform>(d, s, u, f, st, [](gcu8* p) { return *(GLOBAL const u32x4*)p; });
  else if ((skew & 3) == 0)
    copy_units<Uniform>(d, s, u, f, st, load_dwords);
  else
    copy_units<Uniform>(d, s, u, f, st, load_bytes);
}

KERNEL void kfdrt_blit_copy(CopyArgs a) {
  copy_row<true>((gu8*)a.dst, (gcu8*)a.src, a.bytes, gid_x(), a.threads);
}

KERNEL void kfdrt_blit_fill(FillArgs a) {
  gu8* dst = (gu8*)a.dst;
  const uint64_t first = gid_x(), stride = a.threads;
  const Edges e = edges(a.dst, a.bytes);
  // Byte k of the range sits at address dst + k: its pattern byte is (dst + k) % 4 of `word`.
  if (e.head)
    for (uint64_t i = first; i < e.head; i += stride) dst[i] = uint8_t(a.word >> (8 * ((a.dst + i) & 3)));
  if (e.tail)
    for (uint64_t i = first; i < e.tail; i += stride)
      dst[e.tail_at + i] = uint8_t(a.word >> (8 * ((a.dst + e.tail_at + i) & 3)));
  gu8* d = uniform(dst + e.head);
  const u32x4 v = {a.word, a.word, a.word, a.word};
  const uint32_t end = uint32_t(e.units) * 16, step = uint32_t(stride) * 16;
  uint32_t o = uint32_t(first) * 16;
  for (; o + 7 * step < end; o += 8 * step) {
#pragma unroll
    for (int k = 0; k < 8; ++k) *(gu32x4*)(d + (o + uint32_t(k) * step)) = v;
  }
  for (; o < end; o += step) *(gu32x4*)(d + o) = v;
}

KERNEL void kfdrt_blit_copy_rect(RectArgs a) {
  const uint64_t rows = uint64_t(a.height) * a.depth;
  const uint32_t gid = gid_x(), lane = gid % a.row_threads;
  for (uint64_t r = gid / a.row_threads; r < rows; r += a.rows_step) {
    const uint64_t y = r % a.height, z = r / a.height;
    copy_row<false>((gu8*)(a.dst + z * a.dst_slice + y * a.dst_pitch),
             (gcu8*)(a.src + z * a.src_slice + y * a.src_pitch), a.width, lane, a.row_threads);
  }
}

// One work-item (its own workgroup size): resource 0, M0[21:16] being 0 and the offset 0.
extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(1, 64))) void kfdrt_gws_init(GwsInitArgs a) {
  __builtin_amdgcn_ds_gws_init(a.value, 0);
}
