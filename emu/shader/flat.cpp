// SPDX-License-Identifier: MIT
// FLAT, GLOBAL and SCRATCH execution: loads, stores (incl. d16) and atomics, per active lane.
#include <string>
#include <vector>

#include "emu/shader/guest.h"
#include "emu/shader/memmodel.h"
#include "emu/shader/memops.h"
#include "emu/shader/transpose.h"

namespace emu::shader {

namespace {

// Lane address by segment (AMD Vega ISA "Flat, Global and Scratch"): GLOBAL with saddr = SGPR pair + 32-bit vaddr;
// SCRATCH = per-lane private offset (SGPR, VGPR, both or neither: Inst::scratch_vaddr) in the
// FLAT_SCRATCH window.
inline LaneAddr lane_addr(const Wave& w, const Inst& in, unsigned l) {
  const uint32_t* lo = w.v[in.vaddr];
  if (in.seg == kSegScratch) {
    const uint32_t base = (in.saddr != 0x7F ? w.s[in.saddr] : 0) + (in.scratch_vaddr ? lo[l] : 0);
    return {Space::Scratch, static_cast<uint32_t>(base + in.offset), w.s64(102)};
  }
  if (in.seg == kSegGlobal && in.saddr != 0x7F)
    return {Space::Global, w.s64(in.saddr) + lo[l] + static_cast<int64_t>(in.offset), 0};
  uint64_t a = (lo[l] | (uint64_t{w.v[(in.vaddr + 1) & 255][l]} << 32)) + static_cast<int64_t>(in.offset);
  if (in.seg == kSegGlobal) return {Space::Global, a, 0};
  return classify_flat(w, a);
}

// Fast path: when every active lane's [addr, addr+bytes) lies in one cached mapping (the usual
// case for global data), fills the lanes' addresses and returns that mapping's Range.
const Range* wave_range(Wave& w, const Inst& in, uint64_t ex, unsigned bytes, bool write, uint64_t* addr,
                        uint64_t* lo_out = nullptr, uint64_t* hi_out = nullptr) {
  if (in.seg == kSegScratch || ex == 0) return nullptr;
  uint64_t lo = ~uint64_t{0}, hi = 0;
  bool have_bounds = false;
  if (in.seg == kSegGlobal) {  // vectorizable address computation
    const uint32_t* vlo = w.v[in.vaddr];
    if (in.saddr != 0x7F) {
      uint64_t base = w.s64(in.saddr) + static_cast<int64_t>(in.offset);
      VLOOP addr[l] = base + vlo[l];
      // Bounds from the 32-bit offsets (vectorised 32-bit min/max) unless the sum wraps.
      uint32_t sel[64], mn = UINT32_MAX, mx = 0;
      mask_lanes(ex, sel);
      VLOOP {
        mn = std::min(mn, vlo[l] | ~sel[l]);
        mx = std::max(mx, vlo[l] & sel[l]);
      }
      if (base + mx >= base) lo = base + mn, hi = base + mx, have_bounds = true;
    } else {
      const uint32_t* vhi = w.v[(in.vaddr + 1) & 255];
      VLOOP addr[l] = (vlo[l] | (uint64_t{vhi[l]} << 32)) + static_cast<int64_t>(in.offset);
    }
  } else {
    bool all_global = true;
    for (unsigned l = 0; l < 64; ++l) {
      LaneAddr a = ((ex >> l) & 1) ? lane_addr(w, in, l) : LaneAddr{};
      addr[l] = a.addr;
      all_global &= a.space == Space::Global;
    }
    if (!all_global) return nullptr;
  }
  if (!have_bounds) {  // unsigned 64-bit min/max as signed ones (biased), which AVX2 vectorises
    constexpr uint64_t kBias = uint64_t{1} << 63;
    uint32_t sel[64];
    mask_lanes(ex, sel);
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    VLOOP {
      const uint64_t on = 0 - static_cast<uint64_t>(sel[l] & 1);
      const int64_t x = static_cast<int64_t>(addr[l] ^ kBias);
      mn = std::min(mn, static_cast<int64_t>((static_cast<uint64_t>(x) & on) | (~on & uint64_t{INT64_MAX})));
      mx = std::max(mx, static_cast<int64_t>((static_cast<uint64_t>(x) & on) | (~on & kBias)));
    }
    lo = static_cast<uint64_t>(mn) ^ kBias;
    hi = static_cast<uint64_t>(mx) ^ kBias;
  }
  if (!mem_host(w, lo, bytes, write) || w.state != WaveState::Running) return nullptr;
  if (lo_out) *lo_out = lo, *hi_out = hi;
  for (const Range& r : w.cache)
    if (lo >= r.begin && hi + bytes <= r.end && hi + bytes >= hi && (!write || r.writable)) return &r;
  return nullptr;
}

// A naturally aligned 64-bit access (a lane of *_dwordx2) is single-copy atomic on the GPU:
// LLVM's AMDGPU memory model lowers 64-bit atomic loads and stores to plain global_load_dwordx2
// and global_store_dwordx2 (AMDGPUUsage, "Memory Model GFX90A"), and rocPRIM's look-back scan
// publishes a flag and its value in one such word. Another CU (another host thread) must never
// see half of one, so these lanes move as one host 8-byte access (guest.h's unit moves).
EMU_GUEST inline uint64_t load8(const uint8_t* p) { return guest_unit_load<uint64_t>(p); }
EMU_GUEST inline void store8(uint8_t* p, uint64_t v) { guest_unit_store<uint64_t>(p, v); }

// Host pointers for every active lane's load, or false (per-lane path).
bool load_ptrs(Wave& w, const Inst& in, uint64_t ex, unsigned bytes, uint8_t** ptrs) {
  uint64_t addr[64], lo, hi;
  const Range* r = wave_range(w, in, ex, bytes, false, addr, &lo, &hi);
  if (!r) return false;
  if (r->cache) return model_load_ptrs(w, *r, WaveAccess{addr, ex, bytes, lo, hi}, in.flags, ptrs);
  for (unsigned l = 0; l < 64; ++l) ptrs[l] = r->host + (((ex >> l) & 1) ? addr[l] - r->begin : 0);
  return true;
}

// Runs copy(ptrs, lanes) with host pointers for every active lane's store, for all of them at
// once or (under the memory model) run by run (model_store_lanes); false: per-lane path.
template <class F>
bool store_fast(Wave& w, const Inst& in, uint64_t ex, unsigned bytes, F&& copy) {  // copy: EMU_GUEST
  uint64_t addr[64], lo, hi;
  uint8_t* ptrs[64];
  const Range* r = wave_range(w, in, ex, bytes, true, addr, &lo, &hi);
  if (!r) return false;
  if (!r->cache) {
    for (unsigned l = 0; l < 64; ++l) ptrs[l] = r->host + (((ex >> l) & 1) ? addr[l] - r->begin : 0);
    copy(ptrs, ex);
    return true;
  }
  StoreLines lines;
  if (!model_store_ptrs(w, *r, WaveAccess{addr, ex, bytes, lo, hi}, in.flags, ptrs, lines)) return false;
  model_store_lanes(w, *r, lines, in.flags, [&](uint64_t lanes) EMU_GUEST { copy(ptrs, lanes); });
  return true;
}

// Scratch dword accesses (scratch_load/store_dword*, and flat ones whose lanes all address the
// private aperture): when every active lane's dwords are
// aligned and inside the wave's mapped slot, copies them directly (swizzled layout as in
// memops.cpp: dword i of lane L at wave base + (o/4 + i)*256 + L*4); else false, and the
// per-lane path does the access (and reports any fault).
// The private offsets of a scratch access's lanes (scratch_*: SGPR or VGPR offset; flat: only
// when every active lane addresses the private aperture without wrapping); false otherwise.
inline bool scratch_offsets(const Wave& w, const Inst& in, uint64_t ex, uint32_t* o) {
  const uint32_t off = static_cast<uint32_t>(in.offset);
  if (in.seg == kSegFlat) {
    const uint32_t* vlo = w.v[in.vaddr];
    const uint32_t* vhi = w.v[(in.vaddr + 1) & 255];
    constexpr uint32_t kHi = static_cast<uint32_t>(kPrivateAperture >> 32);
    if (vhi[std::countr_zero(ex)] != kHi) return false;  // quick reject
    uint32_t sel[64], bad = 0;
    mask_lanes(ex, sel);
    const bool up = in.offset >= 0;
    VLOOP {  // in the aperture: high dword kHi and the offset added without a carry
      o[l] = vlo[l] + off;
      const uint32_t wrap = up ? o[l] < vlo[l] : o[l] > vlo[l];
      bad |= sel[l] & ((vhi[l] ^ kHi) | wrap);
    }
    return bad == 0;
  }
  const uint32_t v = (in.saddr != 0x7F ? w.s[in.saddr] : 0) + off;
  if (!in.scratch_vaddr) {
    VLOOP o[l] = v;
  } else {
    const uint32_t* lo = w.v[in.vaddr];
    VLOOP o[l] = lo[l] + v;
  }
  return true;
}

// Scratch dword accesses (scratch_load/store_dword*, and flat ones whose lanes all address the
// private aperture): when every active lane's dwords are aligned and inside the wave's mapped
// slot, copies them directly (swizzled layout as in memops.cpp: dword i of lane L at wave base
// + (o/4 + i)*256 + L*4; a wave whose lanes share the offset moves whole 256-byte rows); else
// false, and the per-lane path does the access (and reports any fault).
template <unsigned N, bool Write>
EMU_GUEST bool scratch_fast(Wave& w, const Inst& in, uint64_t ex) {
  if (in.seg == kSegGlobal || !w.scratch_host || ex == 0) return false;
  uint32_t o[64];
  if (!scratch_offsets(w, in, ex, o)) return false;
  const uint64_t base = w.s64(102) - w.scratch_lo;  // the window's start in the slot (wraps)
  const uint64_t size = w.scratch_size;
  constexpr uint64_t span = (N - 1) * 256 + 4;
  uint8_t* const host = w.scratch_host;
  const unsigned reg = Write ? in.vdata : in.dst;
  if (ex == ~uint64_t{0}) {
    uint32_t same = 0;
    VLOOP same |= o[l] ^ o[0];
    const uint64_t rel = base + uint64_t{o[0] >> 2} * 256;
    if (same == 0 && (o[0] & 3) == 0 && rel < size && size - rel >= span + 252) {
      for (unsigned i = 0; i < N; ++i) {
        uint32_t* d = data_row(w, in, reg + i);
        if (Write) guest_move(host + rel + 256 * i, d, 256);
        else guest_move(d, host + rel + 256 * i, 256);
      }
      w.lane_ops += 64;
      return true;
    }
  }
  uint64_t rel[64];
  uint32_t sel[64];
  mask_lanes(ex, sel);
  uint64_t bad = 0;
  VLOOP {
    rel[l] = base + uint64_t{o[l] >> 2} * 256 + l * 4;
    const uint64_t out = (o[l] & 3) | (rel[l] >= size) | (size - rel[l] < span);
    bad |= out & sel[l];
  }
  if (bad) return false;
  for (unsigned i = 0; i < N; ++i) {
    uint32_t* d = data_row(w, in, reg + i);
    for (uint64_t m = ex; m; m &= m - 1) {
      const unsigned l = static_cast<unsigned>(std::countr_zero(m));
      uint8_t* p = host + rel[l] + 256 * i;
      if (Write) std::memcpy(p, &d[l], 4); else std::memcpy(&d[l], p, 4);
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  return true;
}

// Whether every lane is active and lane l's `bytes` start at ptrs[0] + bytes*l (a unit-stride
// access, the usual global array access): the data then moves as one block / strided copy.
inline bool unit_stride(uint64_t ex, uint8_t* const* ptrs, unsigned bytes) {
  if (ex != ~uint64_t{0}) return false;
  const uintptr_t p0 = reinterpret_cast<uintptr_t>(ptrs[0]);
  bool same = true;
  VLOOP same &= reinterpret_cast<uintptr_t>(ptrs[l]) == p0 + uintptr_t{bytes} * l;
  return same;
}

// A whole wave's access whose lanes' `bytes` are evenly spaced (lane l at va + stride * l, the
// usual global array access: stride == bytes, or one field of an array of small records): its
// first address and stride (at most kMaxStride), else false. The lanes' 32-bit offsets must not
// wrap and, with 64-bit addresses, share the high dword; flat ones must be global.
constexpr uint32_t kMaxStride = 64;
bool coalesced(const Wave& w, const Inst& in, uint64_t ex, unsigned bytes, uint64_t* va, uint32_t* stride) {
  if (ex != ~uint64_t{0} || in.seg == kSegScratch) return false;
  const uint32_t* lo = w.v[in.vaddr];
  const uint32_t st = lo[1] - lo[0];
  if (st < bytes || st > kMaxStride) return false;
  uint32_t diff = 0;
  VLOOP diff |= lo[l] ^ (lo[0] + st * l);
  if (diff || lo[0] > UINT32_MAX - 63 * st) return false;
  uint64_t a;
  if (in.seg == kSegGlobal && in.saddr != 0x7F) {
    a = w.s64(in.saddr) + lo[0];
  } else {
    const uint32_t* hi = w.v[(in.vaddr + 1) & 255];
    VLOOP diff |= hi[l] ^ hi[0];
    if (diff) return false;
    a = (uint64_t{hi[0]} << 32) | lo[0];
  }
  a += static_cast<int64_t>(in.offset);
  const uint64_t n = uint64_t{63} * st + bytes;
  if (a + n < a) return false;
  if (in.seg == kSegFlat && (classify_flat(w, a).space != Space::Global ||
                             classify_flat(w, a + n - 1).space != Space::Global))
    return false;
  *va = a;
  *stride = st;
  return true;
}

// The mapping holding all of [va, va + n), or nullptr: then the per-lane path runs (after a
// fault of lane 0's `bytes` the wave has failed, as there).
const Range* block_range(Wave& w, uint64_t va, uint64_t n, unsigned bytes, bool write) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const Range& r : w.cache)
      if (va >= r.begin && va + n <= r.end && (!write || r.writable)) return &r;
    if (pass == 0 && !mem_host(w, va, bytes, write)) return nullptr;
  }
  return nullptr;
}

// Accesses of this many active lanes or fewer go lane by lane: the whole-wave paths cost more.
constexpr int kFewLanes = 4;

// Loads of N dwords, or sub-dword with extension and d16 placement.
enum class Ext : uint8_t { None, U8, S8, U16, S16, D16U8, D16S8, D16, D16HiU8, D16HiS8, D16Hi };

// Sub-dword load result: extension and d16 half placement into the destination VGPR.
template <Ext E>
EMU_GUEST inline void place(uint32_t& d, const uint8_t* p) {
  constexpr bool byte = E == Ext::U8 || E == Ext::S8 || E == Ext::D16U8 || E == Ext::D16S8 ||
                        E == Ext::D16HiU8 || E == Ext::D16HiS8;
  uint32_t v;
  if constexpr (byte) { v = p[0]; } else { uint16_t h; std::memcpy(&h, p, 2); v = h; }
  if (E == Ext::S8 || E == Ext::D16S8 || E == Ext::D16HiS8) v = static_cast<uint32_t>(static_cast<int8_t>(v));
  if (E == Ext::S16) v = static_cast<uint32_t>(static_cast<int16_t>(v));
  if (E == Ext::D16U8 || E == Ext::D16S8 || E == Ext::D16) d = (d & 0xFFFF0000u) | (v & 0xFFFF);
  else if (E == Ext::D16HiU8 || E == Ext::D16HiS8 || E == Ext::D16Hi) d = (d & 0xFFFF) | (v << 16);
  else d = v;
}

template <Ext E>
constexpr unsigned ext_bytes() {
  return E == Ext::U8 || E == Ext::S8 || E == Ext::D16U8 || E == Ext::D16S8 || E == Ext::D16HiU8 ||
         E == Ext::D16HiS8 ? 1 : 2;
}

// A whole-wave load of evenly spaced lanes (see coalesced): one block from memory or the
// caches; false: another path (w.state says whether the wave faulted).
template <unsigned N, Ext E>
EMU_GUEST bool load_block(Wave& w, const Inst& in, uint64_t ex) {
  constexpr unsigned bytes = E == Ext::None ? 4 * N : ext_bytes<E>();
  uint64_t va;
  uint32_t st;
  if (!coalesced(w, in, ex, bytes, &va, &st)) return false;
  const uint64_t span = uint64_t{63} * st + bytes;
  const Range* r = block_range(w, va, span, bytes, false);
  if (!r) return false;
  alignas(32) uint8_t staging[64 * bytes];
  const uint8_t* src = !r->cache ? r->host + (va - r->begin)
                       : model_load_block(w, *r, va, static_cast<unsigned>(span), in.flags, st == bytes ? staging : nullptr);
  if (!src) return false;
  if constexpr (E == Ext::None) {
    uint32_t* rows[N];
    for (unsigned i = 0; i < N; ++i) rows[i] = data_row(w, in, in.dst + i);
    if (st == bytes) {
      rows_from_lanes<N>(rows, src);
    } else if constexpr (N == 2) {  // evenly spaced 8-byte lanes: one read each (see load8)
      for (unsigned l = 0; l < 64; ++l) {
        const uint64_t v = load8(src + uint64_t{st} * l);
        rows[0][l] = static_cast<uint32_t>(v);
        rows[1][l] = static_cast<uint32_t>(v >> 32);
      }
    } else {
      for (unsigned i = 0; i < N; ++i) {
        uint32_t* d = rows[i];
        VLOOP std::memcpy(&d[l], src + st * l + 4 * i, 4);
      }
    }
  } else {
    uint32_t* d = data_row(w, in, in.dst);
    VLOOP place<E>(d[l], src + st * l);
  }
  w.lane_ops += 64;
  return true;
}

template <unsigned N, Ext E>
EMU_GUEST void load(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  constexpr unsigned bytes = E == Ext::None ? 4 * N : ext_bytes<E>();
  if (load_block<N, E>(w, in, ex)) return;
  if (w.state != WaveState::Running) return;
  if (std::popcount(ex) <= kFewLanes) {
    // lane by lane below
  } else if constexpr (E == Ext::None) {
    if (scratch_fast<N, false>(w, in, ex)) return;
    uint8_t* ptrs[64];
    if (load_ptrs(w, in, ex, bytes, ptrs)) {
      if (N == 1 && unit_stride(ex, ptrs, bytes)) {
        guest_move(data_row(w, in, in.dst), ptrs[0], 256);
      } else if constexpr (N == 2) {  // one 8-byte read per lane: see load8
        uint32_t* lo = data_row(w, in, in.dst);
        uint32_t* hi = data_row(w, in, in.dst + 1);
        for (unsigned l = 0; l < 64; ++l)
          if ((ex >> l) & 1) {
            const uint64_t v = load8(ptrs[l]);
            lo[l] = static_cast<uint32_t>(v);
            hi[l] = static_cast<uint32_t>(v >> 32);
          }
      } else {
        for (unsigned i = 0; i < N; ++i) {
          uint32_t* d = data_row(w, in, in.dst + i);
          for (unsigned l = 0; l < 64; ++l)
            if ((ex >> l) & 1) std::memcpy(&d[l], ptrs[l] + 4 * i, 4);
        }
      }
      w.lane_ops += static_cast<unsigned>(std::popcount(ex));
      return;
    }
    if (w.state != WaveState::Running) return;
  } else {
    uint8_t* ptrs[64];
    if (load_ptrs(w, in, ex, bytes, ptrs)) {
      for (unsigned l = 0; l < 64; ++l)
        if ((ex >> l) & 1) place<E>(data_row(w, in, in.dst)[l], ptrs[l]);
      w.lane_ops += static_cast<unsigned>(std::popcount(ex));
      return;
    }
    if (w.state != WaveState::Running) return;
  }
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint32_t buf[4] = {};
    if (!lane_read(w, lane_addr(w, in, l), l, buf, bytes, in.flags)) return;
    if constexpr (E == Ext::None) {
      for (unsigned i = 0; i < N; ++i) data_row(w, in, in.dst + i)[l] = buf[i];
    } else {
      place<E>(data_row(w, in, in.dst)[l], reinterpret_cast<const uint8_t*>(buf));
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// A whole-wave store of evenly spaced lanes (see coalesced) as one block; false: another path.
template <unsigned N, unsigned Bytes, bool Hi>
EMU_GUEST bool store_block(Wave& w, const Inst& in, uint64_t ex) {
  constexpr unsigned bytes = Bytes ? Bytes : 4 * N;
  uint64_t va;
  uint32_t st;
  if (!coalesced(w, in, ex, bytes, &va, &st)) return false;
  const uint64_t span = uint64_t{63} * st + bytes;
  const Range* r = block_range(w, va, span, bytes, true);
  if (!r) return false;
  alignas(32) uint8_t staging[64 * bytes];  // the lanes' bytes in lane order
  const uint8_t* src = staging;
  if constexpr (Bytes == 0) {
    const uint32_t* rows[N];
    for (unsigned i = 0; i < N; ++i) rows[i] = data_row(w, in, in.vdata + i);
    if (N > 1 && st == bytes) {  // transposed straight into memory or the L2's copy
      BlockStore b;
      if (!r->cache) {
        lanes_from_rows<N>(r->host + (va - r->begin), rows);
        w.lane_ops += 64;
        return true;
      }
      if (uint8_t* d = model_store_begin(w, *r, va, 64 * bytes, b)) {
        lanes_from_rows<N>(d, rows);
        model_store_end(w, *r, b, in.flags);
        w.lane_ops += 64;
        return true;
      }
    }
    if (N == 1) src = reinterpret_cast<const uint8_t*>(rows[0]);
    else lanes_from_rows<N>(staging, rows);
  } else {
    const uint32_t* s = data_row(w, in, in.vdata);
    VLOOP {
      const uint32_t v = Hi ? s[l] >> 16 : s[l];
      if (Bytes == 1) staging[l] = static_cast<uint8_t>(v);
      else { const uint16_t h = static_cast<uint16_t>(v); std::memcpy(staging + 2 * l, &h, 2); }
    }
  }
  if (st == bytes) {
    if (r->cache) model_store_block(w, *r, va, src, 64 * bytes, in.flags);
    else guest_move(r->host + (va - r->begin), src, 64 * bytes);
  } else if (r->cache) {
    model_store_strided(w, *r, va, st, src, bytes, in.flags);
  } else {
    uint8_t* d = r->host + (va - r->begin);
    for (unsigned l = 0; l < 64; ++l) std::memcpy(d + uint64_t{st} * l, src + bytes * l, bytes);
  }
  w.lane_ops += 64;
  return true;
}

// Stores N dwords, or `Bytes` bytes from the low (Hi=false) or high half of the data VGPR.
template <unsigned N, unsigned Bytes, bool Hi>
EMU_GUEST void store(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  if (store_block<N, Bytes, Hi>(w, in, ex)) return;
  if (w.state != WaveState::Running) return;
  if (std::popcount(ex) <= kFewLanes) {
    // lane by lane below
  } else if constexpr (Bytes == 0) {
    if (scratch_fast<N, true>(w, in, ex)) return;
    auto copy = [&](uint8_t** ptrs, uint64_t lanes) EMU_GUEST {
      if (N == 1 && unit_stride(lanes, ptrs, 4)) {
        guest_move(ptrs[0], data_row(w, in, in.vdata), 256);
        return;
      }
      if constexpr (N == 2) {  // one 8-byte write per lane: see load8
        const uint32_t* lo = data_row(w, in, in.vdata);
        const uint32_t* hi = data_row(w, in, in.vdata + 1);
        for (unsigned l = 0; l < 64; ++l)
          if ((lanes >> l) & 1) store8(ptrs[l], uint64_t{lo[l]} | uint64_t{hi[l]} << 32);
        return;
      }
      for (unsigned i = 0; i < N; ++i) {
        const uint32_t* s = data_row(w, in, in.vdata + i);
        for (unsigned l = 0; l < 64; ++l)
          if ((lanes >> l) & 1) std::memcpy(ptrs[l] + 4 * i, &s[l], 4);
      }
    };
    if (store_fast(w, in, ex, 4 * N, copy)) {
      w.lane_ops += static_cast<unsigned>(std::popcount(ex));
      return;
    }
    if (w.state != WaveState::Running) return;
  }
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint32_t buf[4];
    for (unsigned i = 0; i < N; ++i) buf[i] = data_row(w, in, in.vdata + i)[l];
    if (Hi) buf[0] >>= 16;
    if (!lane_write(w, lane_addr(w, in, l), l, buf, Bytes ? Bytes : 4 * N, in.flags)) return;
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// A whole wave's global atomic on memory under the model, a line's lanes under one lock (the
// per-lane path takes it per lane: a histogram's bins saw two workers pass line locks back and
// forth 64 times per instruction). False: the per-lane path (check the wave's state first).
template <AtomicOp Op, bool Wide>
bool atomic_wave(Wave& w, const Inst& in, uint64_t ex) {
  constexpr unsigned regs = Wide ? 2 : 1;
  uint64_t addr[64];
  const Range* r = wave_range(w, in, ex, 4 * regs, true, addr);
  if (!r || !r->cache) return false;
  uint64_t v[64], c[64] = {}, old[64];
  const uint32_t* v0 = data_row(w, in, in.vdata);
  for (unsigned l = 0; l < 64; ++l) v[l] = v0[l];
  if constexpr (Wide) {
    const uint32_t* v1 = data_row(w, in, in.vdata + 1);
    for (unsigned l = 0; l < 64; ++l) v[l] |= uint64_t{v1[l]} << 32;
  }
  if constexpr (Op == AtomicOp::CmpSwap) {
    const uint32_t* c0 = data_row(w, in, in.vdata + regs);
    for (unsigned l = 0; l < 64; ++l) c[l] = c0[l];
    if constexpr (Wide) {
      const uint32_t* c1 = data_row(w, in, in.vdata + regs + 1);
      for (unsigned l = 0; l < 64; ++l) c[l] |= uint64_t{c1[l]} << 32;
    }
  }
  if (!model_atomic_wave(w, *r, addr, ex, 4 * regs, Op, v, c, old, in.flags)) return false;
  if (in.flags & kGlc) {
    uint32_t* d0 = data_row(w, in, in.dst);
    uint32_t* d1 = Wide ? data_row(w, in, in.dst + 1) : nullptr;
    for (uint64_t m = ex; m; m &= m - 1) {
      const unsigned l = static_cast<unsigned>(std::countr_zero(m));
      d0[l] = static_cast<uint32_t>(old[l]);
      if (Wide) d1[l] = static_cast<uint32_t>(old[l] >> 32);
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  return true;
}

template <AtomicOp Op, bool Wide>
EMU_GUEST void atomic(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  constexpr unsigned regs = Wide ? 2 : 1;
  if (std::popcount(ex) > 1) {
    if (atomic_wave<Op, Wide>(w, in, ex)) return;
    if (w.state != WaveState::Running) return;
  }
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint64_t v = data_row(w, in, in.vdata)[l], c = 0;
    if (Wide) v |= uint64_t{data_row(w, in, in.vdata + 1)[l]} << 32;
    if (Op == AtomicOp::CmpSwap) {
      c = data_row(w, in, in.vdata + regs)[l];
      if (Wide) c |= uint64_t{data_row(w, in, in.vdata + regs + 1)[l]} << 32;
    }
    LaneAddr a = lane_addr(w, in, l);
    uint64_t old;
    if (a.space == Space::Global) {
      if (!lane_atomic_global(w, a.addr, 4 * regs, Op, v, c, &old, in.flags)) return;
    } else if (uint8_t* p = lane_atomic_ptr(w, a, 4 * regs)) {
      old = Wide ? atomic64(Op, reinterpret_cast<uint64_t*>(p), v, c)
                 : atomic32(Op, reinterpret_cast<uint32_t*>(p), static_cast<uint32_t>(v), static_cast<uint32_t>(c));
    } else {
      if (w.state == WaveState::Fault) return;
      if (a.space == Space::Lds) { old = 0; }  // out of range LDS: dropped
      else {
        uint64_t cur = 0;
        if (!lane_read(w, a, l, &cur, 4 * regs)) return;
        old = Wide ? rmw64(Op, &cur, v, c) : rmw32(Op, reinterpret_cast<uint32_t*>(&cur), static_cast<uint32_t>(v), static_cast<uint32_t>(c));
        if (!lane_write(w, a, l, &cur, 4 * regs)) return;
      }
    }
    if (in.flags & kGlc) {
      data_row(w, in, in.dst)[l] = static_cast<uint32_t>(old);
      if (Wide) data_row(w, in, in.dst + 1)[l] = static_cast<uint32_t>(old >> 32);
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

struct Op { const char* suffix; ExecFn fn; };
const Op kFlatOps[] = {
    {"load_ubyte", load<1, Ext::U8>}, {"load_sbyte", load<1, Ext::S8>},
    {"load_ushort", load<1, Ext::U16>}, {"load_sshort", load<1, Ext::S16>},
    {"load_dword", load<1, Ext::None>}, {"load_dwordx2", load<2, Ext::None>},
    {"load_dwordx3", load<3, Ext::None>}, {"load_dwordx4", load<4, Ext::None>},
    {"load_ubyte_d16", load<1, Ext::D16U8>}, {"load_ubyte_d16_hi", load<1, Ext::D16HiU8>},
    {"load_sbyte_d16", load<1, Ext::D16S8>}, {"load_sbyte_d16_hi", load<1, Ext::D16HiS8>},
    {"load_short_d16", load<1, Ext::D16>}, {"load_short_d16_hi", load<1, Ext::D16Hi>},
    {"store_byte", store<1, 1, false>}, {"store_byte_d16_hi", store<1, 1, true>},
    {"store_short", store<1, 2, false>}, {"store_short_d16_hi", store<1, 2, true>},
    {"store_dword", store<1, 0, false>}, {"store_dwordx2", store<2, 0, false>},
    {"store_dwordx3", store<3, 0, false>}, {"store_dwordx4", store<4, 0, false>},
#define A(n, op) {"atomic_" n, atomic<AtomicOp::op, false>}, {"atomic_" n "_x2", atomic<AtomicOp::op, true>},
    A("swap", Swap) A("cmpswap", CmpSwap) A("add", Add) A("sub", Sub) A("smin", SMin)
    A("umin", UMin) A("smax", SMax) A("umax", UMax) A("and", And) A("or", Or) A("xor", Xor)
    A("inc", Inc) A("dec", Dec)
#undef A
    {"atomic_add_f32", atomic<AtomicOp::FAdd, false>}, {"atomic_pk_add_f16", atomic<AtomicOp::PkAddF16, false>},
    {"atomic_add_f64", atomic<AtomicOp::FAdd, true>}, {"atomic_min_f64", atomic<AtomicOp::FMin, true>},
    {"atomic_max_f64", atomic<AtomicOp::FMax, true>},
};

}  // namespace

HandlerList flat_handlers() {
  // Never destroyed: an engine thread may still be building its opcode table from these while
  // the process exits (static destructors would free the names under it).
  static auto& names = *new std::vector<std::string>;
  static const auto& v = *new std::vector<HandlerEntry>([] {
    std::vector<HandlerEntry> e;
    for (const char* prefix : {"flat_", "global_", "scratch_"})
      for (const Op& op : kFlatOps) { names.push_back(std::string(prefix) + op.suffix); e.push_back({nullptr, op.fn}); }
    for (size_t i = 0; i < e.size(); ++i) e[i].name = names[i].c_str();
    return e;
  }());
  return {v.data(), v.data() + v.size()};
}

}  // namespace emu::shader
