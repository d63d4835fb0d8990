// SPDX-License-Identifier: MIT
// Global memory accesses of a wave through the GPU's caches (emu/shader/cache.h): per-lane paths, whole-wave fast paths, cache instructions.
#pragma once

#include "emu/shader/cache.h"
#include "emu/shader/memops.h"

namespace emu::shader {

// Under the model a Range carries its CachedRange; these run only for such ranges. `flags` are
// the instruction's (kGlc/kSlc/kScc: glc/slc/scc on gfx90a, sc0/nt/sc1 on gfx942; AMDGPUUsage
// "Memory Model GFX90A" / "GFX942" code sequences):
// * loads with glc (gfx942: sc0 or sc1) bypass the vector L1; others go through it;
// * stores write through the L1 (this CU's own copy is updated, other CUs' copies stay stale)
//   into the L2 (RW/NC: dirty until written back) or memory (CC/UC);
// * atomics are performed in the L2 (RW/NC) or memory (CC/UC) and bypass the L1;
// * gfx942 stores and atomics with sc1 (system scope) are written through to memory.
bool model_read(Wave& w, const Range& r, uint64_t va, void* dst, unsigned n, uint16_t flags);
bool model_write(Wave& w, const Range& r, uint64_t va, const void* src, unsigned n, uint16_t flags);
// Atomic `op` on the `bytes` (4 or 8) at va; *old gets the value before it.
void model_atomic(Wave& w, const Range& r, uint64_t va, unsigned bytes, AtomicOp op, uint64_t v,
                  uint64_t cmp, uint64_t* old, uint16_t flags);

// A whole wave's atomic: lane l (active in `ex`) applies `op` with v[l] (and cmp[l]) to the
// `bytes` at addr[l], all in `r`; old[l] gets the value before. Lanes in the same line one after
// the other take the line's lock once (lanes in lane order, as model_atomic one by one would).
// False, before touching anything, when some lane's access crosses a line (the per-lane path).
bool model_atomic_wave(Wave& w, const Range& r, const uint64_t* addr, uint64_t ex, unsigned bytes, AtomicOp op,
                       const uint64_t* v, const uint64_t* cmp, uint64_t* old, uint16_t flags);

// Whole-wave fast paths over one access of every active lane (`ex`) of `bytes` at addr[lane],
// all inside [lo, hi + bytes). Load: host pointers per active lane to read from, or false when
// some lane needs the per-lane path (a private L1 copy, a partly dirty RW line, stale-load
// reports). Store: pointers to write to, grouped in runs of lanes whose bytes lie in one or two
// consecutive pages, and the lines they dirty; model_store_lanes writes them (RW/NC: each run
// under its pages' locks, as GpuCache::lock_pages says); false: use the per-lane path.
struct WaveAccess {
  const uint64_t* addr;
  uint64_t ex;
  unsigned bytes;
  uint64_t lo, hi;  // lowest and highest lane address
};
bool model_load_ptrs(Wave& w, const Range& r, const WaveAccess& a, uint16_t flags, uint8_t** ptrs);
struct StoreLines {
  GpuCache::LineMask e[130];  // the lines, run after run
  unsigned n = 0;
  struct Run {
    uint64_t lanes;                  // its lanes
    uint64_t first_page, last_page;  // the pages their bytes are in (at most two)
    unsigned from, to;               // its lines: e[from, to)
  };
  Run run[64];
  unsigned runs = 0;
};
bool model_store_ptrs(Wave& w, const Range& r, const WaveAccess& a, uint16_t flags, uint8_t** ptrs,
                      StoreLines& lines);
// copy(lanes) writes those lanes' bytes through the pointers model_store_ptrs gave.
template <class F>
void model_store_lanes(Wave& w, const Range& r, StoreLines& lines, uint16_t flags, F&& copy);
void model_store_commit(Wave& w, const Range& r, StoreLines& lines, uint16_t flags);  // (model_store_lanes' end)

// A whole wave's contiguous access [va, va + n) (n <= 1024, the lanes' pieces in lane order).
// Load: a pointer to the n bytes as this CU reads them (memory or the L2's copy when every line
// comes from there, else `staging` filled line by line), or nullptr when the per-lane path must
// do it (stale-load reports). Store: src's n bytes through the caches, as model_write stores
// them; an RW range's whole lines are marked dirty a page at a time.
const uint8_t* model_load_block(Wave& w, const Range& r, uint64_t va, unsigned n, uint16_t flags, uint8_t* staging);
void model_store_block(Wave& w, const Range& r, uint64_t va, const uint8_t* src, unsigned n, uint16_t flags);
// The same in two steps, for a caller that writes the bytes itself: begin gives where (the L2's
// copy of an RW range, after other L1s took their copies of the lines; nullptr for other
// MTYPEs: use model_store_block), end marks them dirty and updates this CU's L1 copies.
struct BlockStore { uint64_t off; unsigned n; uint32_t own; GpuCache::PageLocks held; };
uint8_t* model_store_begin(Wave& w, const Range& r, uint64_t va, unsigned n, BlockStore& b);
void model_store_end(Wave& w, const Range& r, const BlockStore& b, uint16_t flags);
// (begin takes the lines' page locks, end gives them back: write nothing else in between)
// A whole wave's strided store: lane l's `bytes` (src + bytes * l) at va + stride * l, stride at
// least `bytes` and the wave's span at most kMaxStridedLines lines. Load: model_load_block
// without staging gives the base to read the lanes from, or nullptr (not one source).
inline constexpr unsigned kMaxStridedLines = 66;
void model_store_strided(Wave& w, const Range& r, uint64_t va, unsigned stride, const uint8_t* src, unsigned bytes,
                         uint16_t flags);

// The Range (with its model state) of [va, va+size), from the wave's translation cache or a
// lookup; nullptr after recording a fault, or when the access spans two mappings (then *spans).
const Range* mem_range(Wave& w, uint64_t va, uint64_t size, bool write, bool* spans);

// Cache instructions (MUBUF): buffer_wbl2, buffer_invl2, buffer_wbinvl1(_vol), buffer_inv.
void exec_buffer_wbl2(Wave& w, const Inst& in);
void exec_buffer_invl2(Wave& w, const Inst& in);
void exec_buffer_wbinvl1(Wave& w, const Inst& in);
void exec_buffer_inv(Wave& w, const Inst& in);

template <class F>
void model_store_lanes(Wave& w, const Range& r, StoreLines& lines, uint16_t flags, F&& copy) {
  CachedRange& cr = *r.cache;
  if (!cr.cached()) {  // memory itself (CC/UC): nothing marks the bytes
    for (unsigned i = 0; i < lines.runs; ++i) copy(lines.run[i].lanes);
    return;
  }
  GpuCache& c = *w.group->ctx->cache;
  for (unsigned i = 0; i < lines.runs; ++i) {
    const StoreLines::Run& run = lines.run[i];
    GpuCache::PageLocks held;
    c.lock_pages(cr, run.first_page, run.last_page, held);
    copy(run.lanes);
    c.mark_lines(cr, lines.e + run.from, run.to - run.from);
    c.unlock_pages(held);
  }
  model_store_commit(w, r, lines, flags);
}

}  // namespace emu::shader
