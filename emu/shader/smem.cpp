// SPDX-License-Identifier: MIT
// Scalar memory execution: s_load_dword*, s_buffer_load_dword*, s_store_dword* (SMEM encoding).
#include "emu/shader/decode.h"

namespace emu::shader {

namespace {

// Byte offset of the access: immediate and/or SGPR offset (SMEM imm/soe bits).
uint64_t smem_offset(const Wave& w, const Inst& in) {
  uint64_t off = static_cast<uint64_t>(static_cast<int64_t>(in.offset));
  if (in.flags & kSoe) off += sread32(w, in, in.src[1]);
  return off;
}

template <unsigned N>
void s_load(Wave& w, const Inst& in) {
  uint64_t addr = (w.s64(in.src[0]) + smem_offset(w, in)) & ~uint64_t{3};
  addr &= 0xFFFF'FFFF'FFFFull;
  const uint8_t* h = mem_host(w, addr, 4 * N, false);
  if (!h) return;
  uint32_t tmp[N];
  std::memcpy(tmp, h, sizeof tmp);
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
    if (o + 4 <= records) {
      const uint8_t* h = mem_host(w, base + o, 4, false);
      if (!h) return;
      std::memcpy(&v, h, 4);
    }
    swrite32(w, in.dst + i, v);
  }
}

template <unsigned N>
void s_store(Wave& w, const Inst& in) {
  uint64_t addr = ((w.s64(in.src[0]) + smem_offset(w, in)) & ~uint64_t{3}) & 0xFFFF'FFFF'FFFFull;
  uint8_t* h = mem_host(w, addr, 4 * N, true);
  if (!h) return;
  uint32_t tmp[N];
  for (unsigned i = 0; i < N; ++i) tmp[i] = w.s[in.dst + i];
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  std::memcpy(h, tmp, sizeof tmp);
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
