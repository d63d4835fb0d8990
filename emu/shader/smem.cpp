// SPDX-License-Identifier: MIT
// Scalar memory execution: s_load_dword*, s_buffer_load_dword*, s_store_dword* (SMEM encoding).
#include "emu/shader/decode.h"
#include "emu/shader/guest.h"
#include "emu/shader/memmodel.h"

namespace emu::shader {

namespace {

// Byte offset of the access: immediate and/or SGPR offset (SMEM imm/soe bits).
uint64_t smem_offset(const Wave& w, const Inst& in) {
  uint64_t off = static_cast<uint64_t>(static_cast<int64_t>(in.offset));
  if (in.flags & kSoe) off += sread32(w, in, in.src[1]);
  return off;
}

// Scalar memory goes through the L2 (the scalar cache is not modelled: AMDGPUUsage, scalar
// loads read memory that does not change during the dispatch); false after a fault. Guest bytes
// (guest.h).
EMU_GUEST bool scalar_read(Wave& w, uint64_t addr, void* dst, unsigned n) {
  bool spans = false;
  const Range* r = mem_range(w, addr, n, false, &spans);
  if (r && r->cache) {
    const CachedRange& cr = *r->cache;
    const uint64_t off = addr - cr.va_begin;
    // Memory as it is: an uncached range, or RW lines without dirty bytes in the L2.
    if (!cr.cached() || (cr.mtype == Mtype::RW && ((off + n - 1) >> kLineShift) == (off >> kLineShift) &&
                         cr.dirty(off >> kLineShift) == 0)) {
      guest_move(dst, cr.memory + off, n);
      return true;
    }
    w.group->ctx->cache->read(*r->cache, addr, dst, n, true);
    return true;
  }
  const uint8_t* h = r ? r->host + (addr - r->begin) : spans ? w.group->ctx->mem->translate(addr, n, false) : nullptr;
  if (!h) return false;
  guest_move(dst, h, n);
  return true;
}

template <unsigned N>
void s_load(Wave& w, const Inst& in) {
  uint64_t addr = (w.s64(in.src[0]) + smem_offset(w, in)) & ~uint64_t{3};
  addr &= 0xFFFF'FFFF'FFFFull;
  uint32_t tmp[N];
  if (!scalar_read(w, addr, tmp, sizeof tmp)) return;
  for (unsigned i = 0; i < N; ++i) swrite32(w, in.dst + i, tmp[i]);
}

// s_buffer_load: base from the V# in sbase[0:3]; reads past num_records return 0.
template <unsigned N>
void s_buffer_load(Wave& w, const Inst& in) {
  uint64_t base = w.s64(in.src[0]) & 0xFFFF'FFFF'FFFFull;
  uint32_t records = w.s[in.src[0] + 2];
  uint64_t off = smem_offset(w, in) & ~uint64_t{3};
  for (unsigned i = 0; i < N; ++i) {
    uint64_t o = off + 4 * i;
    uint32_t v = 0;
    if (o + 4 <= records && !scalar_read(w, base + o, &v, 4)) return;
    swrite32(w, in.dst + i, v);
  }
}

template <unsigned N>
EMU_GUEST void s_store(Wave& w, const Inst& in) {
  uint64_t addr = ((w.s64(in.src[0]) + smem_offset(w, in)) & ~uint64_t{3}) & 0xFFFF'FFFF'FFFFull;
  uint32_t tmp[N];
  for (unsigned i = 0; i < N; ++i) tmp[i] = w.s[in.dst + i];
  bool spans = false;
  const Range* r = mem_range(w, addr, sizeof tmp, true, &spans);
  if (r && r->cache) {
    w.group->ctx->cache->write(*r->cache, addr, tmp, sizeof tmp);
    return;
  }
  uint8_t* h = r ? r->host + (addr - r->begin) : spans ? w.group->ctx->mem->translate(addr, sizeof tmp, true) : nullptr;
  if (!h) return;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  guest_move(h, tmp, sizeof tmp);
}

const HandlerEntry kSmem[] = {
    {"s_load_dword", s_load<1>}, {"s_load_dwordx2", s_load<2>}, {"s_load_dwordx4", s_load<4>},
    {"s_load_dwordx8", s_load<8>}, {"s_load_dwordx16", s_load<16>},
    {"s_buffer_load_dword", s_buffer_load<1>}, {"s_buffer_load_dwordx2", s_buffer_load<2>},
    {"s_buffer_load_dwordx4", s_buffer_load<4>}, {"s_buffer_load_dwordx8", s_buffer_load<8>},
    {"s_buffer_load_dwordx16", s_buffer_load<16>}, {"s_store_dword", s_store<1>},
    {"s_store_dwordx2", s_store<2>}, {"s_store_dwordx4", s_store<4>},
};

}  // namespace

HandlerList smem_handlers() { return {std::begin(kSmem), std::end(kSmem)}; }

}  // namespace emu::shader
