// SPDX-License-Identifier: MIT
// Per-lane memory access: global through Memory, LDS, swizzled scratch; atomic operations.
#include "emu/shader/memops.h"

#include "emu/shader/guest.h"
#include "emu/shader/memmodel.h"

#include <cstdio>

namespace emu::shader {

namespace {

// Scratch layout = MUBUF swizzle with ADD_TID, index stride 64, element size 4: byte `o` of
// lane L lives at (o/4)*256 + L*4 + o%4 from the wave's window base (AMD Vega ISA "Buffer
// addressing"); MUBUF and scratch_*/flat private accesses therefore see the same bytes. The
// bytes are the queue's backing store: an access must stay inside the wave's slot (never
// another wave's), and goes through the slot's host pointer or, without one, the page checks.
uint8_t* scratch_bytes(Wave& w, const LaneAddr& a, unsigned lane, uint64_t o, unsigned n, bool write) {
  const uint64_t va = a.wave_base + (o / 4) * 256 + lane * 4 + (o % 4);
  const uint64_t rel = va - w.scratch_lo;
  if (rel >= w.scratch_size || w.scratch_size - rel < n) {
    char buf[224];
    if (w.scratch_size == 0)
      std::snprintf(buf, sizeof buf, "scratch %s at 0x%llx (lane %u, private offset 0x%llx) by a wave "
                    "without a scratch slot (the dispatch declared no private segment)",
                    write ? "write" : "read", static_cast<unsigned long long>(va), lane,
                    static_cast<unsigned long long>(o));
    else
      std::snprintf(buf, sizeof buf, "scratch %s at 0x%llx (lane %u, private offset 0x%llx) outside "
                    "the wave's scratch slot [0x%llx, 0x%llx)", write ? "write" : "read",
                    static_cast<unsigned long long>(va), lane, static_cast<unsigned long long>(o),
                    static_cast<unsigned long long>(w.scratch_lo),
                    static_cast<unsigned long long>(w.scratch_lo + w.scratch_size));
    wave_fail(w, Outcome::Kind::MemoryFault, va, buf);
    return nullptr;
  }
  if (w.scratch_host) return w.scratch_host + rel;
  return mem_host(w, va, n, write);
}

template <bool Write>
EMU_GUEST bool scratch_copy(Wave& w, const LaneAddr& a, unsigned lane, uint8_t* data, unsigned size) {
  uint64_t o = a.addr;
  if (size == 4 && (o & 3) == 0 && w.scratch_host) {  // common case: one aligned dword
    const uint64_t rel = a.wave_base + o * 64 + lane * 4 - w.scratch_lo;
    if (rel < w.scratch_size && w.scratch_size - rel >= 4) {
      uint8_t* p = w.scratch_host + rel;
      if (Write) std::memcpy(p, data, 4); else std::memcpy(data, p, 4);
      return true;
    }
  }
  unsigned i = 0;
  while (i < size) {  // element by element: consecutive dwords of a lane are 256 bytes apart
    unsigned chunk = std::min<unsigned>(size - i, 4 - static_cast<unsigned>((o + i) % 4));
    uint8_t* p = scratch_bytes(w, a, lane, o + i, chunk, Write);
    if (!p) return false;
    if (Write) guest_move(p, data + i, chunk); else guest_move(data + i, p, chunk);
    i += chunk;
  }
  return true;
}

}  // namespace

namespace {

// Host pointer of global [va, va+size) when no memory model applies; *model: the Range to go
// through the model with instead. nullptr and no model after a fault.
uint8_t* global_at(Wave& w, uint64_t va, uint64_t size, bool write, const Range** model) {
  *model = nullptr;
  bool spans = false;
  const Range* r = mem_range(w, va, size, write, &spans);
  if (r && r->cache) {
    *model = r;
    return nullptr;
  }
  if (r) return r->host + (va - r->begin);
  return spans ? w.group->ctx->mem->translate(va, size, write) : nullptr;  // spans: uncached
}

}  // namespace

// A lane's access of global memory without the model, or of the workgroup's LDS (guest.h).
EMU_GUEST bool lane_read(Wave& w, const LaneAddr& a, unsigned lane, void* data, unsigned size, uint16_t flags) {
  switch (a.space) {
    case Space::Global: {
      const Range* m;
      const uint8_t* h = global_at(w, a.addr, size, false, &m);
      if (m) return model_read(w, *m, a.addr, data, size, flags);
      if (!h) return false;
      guest_move(data, h, size);
      return true;
    }
    case Space::Lds:
      if (a.addr + size > w.group->lds_size) std::memset(data, 0, size);
      else guest_move(data, w.group->lds + a.addr, size);
      return true;
    default:
      return scratch_copy<false>(w, a, lane, static_cast<uint8_t*>(data), size);
  }
}

EMU_GUEST bool lane_write(Wave& w, const LaneAddr& a, unsigned lane, const void* data, unsigned size, uint16_t flags) {
  switch (a.space) {
    case Space::Global: {
      const Range* m;
      uint8_t* h = global_at(w, a.addr, size, true, &m);
      if (m) return model_write(w, *m, a.addr, data, size, flags);
      if (!h) return false;
      guest_move(h, data, size);
      return true;
    }
    case Space::Lds:
      if (a.addr + size <= w.group->lds_size) guest_move(w.group->lds + a.addr, data, size);
      return true;
    default:
      return scratch_copy<true>(w, a, lane, static_cast<uint8_t*>(const_cast<void*>(data)), size);
  }
}

uint8_t* lane_atomic_ptr(Wave& w, const LaneAddr& a, unsigned size) {
  if (a.space == Space::Lds)
    return a.addr + size <= w.group->lds_size ? w.group->lds + a.addr : nullptr;
  return nullptr;
}

namespace {

// On guest memory (or LDS): the GPU program's atomics (guest.h).
template <class T>
EMU_GUEST T atomic_any(AtomicOp op, T* p, T v, T cmp) {
  switch (op) {  // the common integer ops map to single host atomics
    case AtomicOp::Swap: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
    case AtomicOp::Add: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    case AtomicOp::Sub: return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
    case AtomicOp::And: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
    case AtomicOp::Or: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
    case AtomicOp::Xor: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
    default: break;
  }
  T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  for (;;) {
    T n = atomic_apply(op, old, v, cmp);
    if (op == AtomicOp::CmpSwap && n == old) return old;
    if (__atomic_compare_exchange_n(p, &old, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
  }
}

}  // namespace

EMU_GUEST bool lane_atomic_global(Wave& w, uint64_t va, unsigned bytes, AtomicOp op, uint64_t v, uint64_t cmp,
                                  uint64_t* old, uint16_t flags) {
  const Range* m;
  uint8_t* p = global_at(w, va, bytes, true, &m);
  if (m) {
    model_atomic(w, *m, va, bytes, op, v, cmp, old, flags);
    return true;
  }
  if (!p) return false;
  *old = bytes == 8 ? atomic_any(op, reinterpret_cast<uint64_t*>(p), v, cmp)
                    : atomic_any(op, reinterpret_cast<uint32_t*>(p), uint32_t(v), uint32_t(cmp));
  return true;
}

EMU_GUEST uint32_t atomic32(AtomicOp op, uint32_t* p, uint32_t v, uint32_t cmp) { return atomic_any(op, p, v, cmp); }
EMU_GUEST uint64_t atomic64(AtomicOp op, uint64_t* p, uint64_t v, uint64_t cmp) { return atomic_any(op, p, v, cmp); }
EMU_GUEST uint32_t rmw32(AtomicOp op, uint32_t* p, uint32_t v, uint32_t cmp) { uint32_t o = *p; *p = atomic_apply(op, o, v, cmp); return o; }
EMU_GUEST uint64_t rmw64(AtomicOp op, uint64_t* p, uint64_t v, uint64_t cmp) { uint64_t o = *p; *p = atomic_apply(op, o, v, cmp); return o; }

}  // namespace emu::shader
