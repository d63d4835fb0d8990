// SPDX-License-Identifier: MIT
// Per-lane memory access shared by FLAT/GLOBAL/SCRATCH, MUBUF and DS: apertures, the swizzled
// scratch layout in the wave's slot of the queue's backing store, LDS bounds, and atomics.
#pragma once

#include <type_traits>

#include "emu/shader/valu.h"

namespace emu::shader {

// Where a lane's access goes.
enum class Space : uint8_t { Global, Lds, Scratch };

struct LaneAddr {
  Space space = Space::Global;
  uint64_t addr = 0;  // Global: VA; Lds: byte offset; Scratch: per-lane private offset
  uint64_t wave_base = 0;  // Scratch: GPU VA of the swizzled window (FLAT_SCRATCH, V# base + soffset)
};

// Flat address -> space (AMDGPUUsage "Address Spaces" apertures: LDS 1<<48, private 2<<48, 4 GiB each).
inline LaneAddr classify_flat(const Wave& w, uint64_t a) {
  if (a - kLdsAperture < kApertureSize) return {Space::Lds, a - kLdsAperture, 0};
  if (a - kPrivateAperture < kApertureSize)
    return {Space::Scratch, a - kPrivateAperture, w.s64(102)};
  return {Space::Global, a, 0};
}

// Copies `size` bytes between `data` and the lane's location. False after a fault (the wave
// has failed) — LDS out of range is not a fault: reads give 0 and writes are dropped (ISA).
// Global accesses go through the memory model when the range has one (`flags`: the
// instruction's glc/slc/scc, memmodel.h).
bool lane_read(Wave& w, const LaneAddr& a, unsigned lane, void* data, unsigned size, uint16_t flags = 0);
bool lane_write(Wave& w, const LaneAddr& a, unsigned lane, const void* data, unsigned size, uint16_t flags = 0);
// Host pointer for an atomic on [a, a+size) in LDS; nullptr for global memory (callers use
// lane_atomic_global), scratch (callers then read-modify-write through lane_read/lane_write)
// or LDS out of range.
uint8_t* lane_atomic_ptr(Wave& w, const LaneAddr& a, unsigned size);

// Atomic operations shared by FLAT/GLOBAL and DS (names: the suffix after "atomic_"/"ds_").
enum class AtomicOp : uint8_t {
  Swap, CmpSwap, Add, Sub, Rsub, SMin, UMin, SMax, UMax, And, Or, Xor, Inc, Dec, FAdd, FMin,
  FMax, PkAddF16
};
// The value `op` leaves in memory given the old value (inline, so that callers with a constant
// `op` get just that operation).
template <class T>
inline T atomic_apply(AtomicOp op, T old, T v, T cmp) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case AtomicOp::Swap: return v;
    case AtomicOp::CmpSwap: return old == cmp ? v : old;
    case AtomicOp::Add: return old + v;
    case AtomicOp::Sub: return old - v;
    case AtomicOp::Rsub: return v - old;
    case AtomicOp::SMin: return static_cast<S>(old) < static_cast<S>(v) ? old : v;
    case AtomicOp::UMin: return old < v ? old : v;
    case AtomicOp::SMax: return static_cast<S>(old) > static_cast<S>(v) ? old : v;
    case AtomicOp::UMax: return old > v ? old : v;
    case AtomicOp::And: return old & v;
    case AtomicOp::Or: return old | v;
    case AtomicOp::Xor: return old ^ v;
    case AtomicOp::Inc: return old >= v ? 0 : old + 1;
    case AtomicOp::Dec: return (old == 0 || old > v) ? v : old - 1;
    case AtomicOp::FAdd:
      if constexpr (sizeof(T) == 4) return u32(f32(old) + f32(v));
      else return u64(f64(old) + f64(v));
    case AtomicOp::FMin:
      if constexpr (sizeof(T) == 4) return u32(std::fmin(f32(old), f32(v)));
      else return u64(std::fmin(f64(old), f64(v)));
    case AtomicOp::FMax:
      if constexpr (sizeof(T) == 4) return u32(std::fmax(f32(old), f32(v)));
      else return u64(std::fmax(f64(old), f64(v)));
    case AtomicOp::PkAddF16: {
      uint32_t lo = f32_to_f16(f16_to_f32(static_cast<uint16_t>(old)) + f16_to_f32(static_cast<uint16_t>(v)));
      uint32_t hi = f32_to_f16(f16_to_f32(static_cast<uint16_t>(old >> 16)) + f16_to_f32(static_cast<uint16_t>(v >> 16)));
      return static_cast<T>(lo | (hi << 16));
    }
  }
  return old;
}

// Applies `op` to *p atomically; returns the previous value. `cmp` for CmpSwap.
uint32_t atomic32(AtomicOp op, uint32_t* p, uint32_t v, uint32_t cmp);
uint64_t atomic64(AtomicOp op, uint64_t* p, uint64_t v, uint64_t cmp);
// The same on a plain value (scratch): returns the new value in *p, old as result.
uint32_t rmw32(AtomicOp op, uint32_t* p, uint32_t v, uint32_t cmp);
uint64_t rmw64(AtomicOp op, uint64_t* p, uint64_t v, uint64_t cmp);
// An atomic on global memory at va (`bytes` 4 or 8): *old gets the previous value; false after a
// fault (w.state == Fault).
bool lane_atomic_global(Wave& w, uint64_t va, unsigned bytes, AtomicOp op, uint64_t v, uint64_t cmp,
                        uint64_t* old, uint16_t flags);

// Vector register row for a memory instruction's data operand (acc bit selects AGPRs).
inline uint32_t* data_row(Wave& w, const Inst& in, unsigned reg) {
  return w.v[((in.flags & kAcc) ? 256 : 0) + (reg & 255)];
}

}  // namespace emu::shader
