// SPDX-License-Identifier: MIT
// MUBUF execution: buffer loads/stores/atomics through a V#, for the private segment (scratch
// spills) and for plain linear buffers.
#include <cstdio>

#include "emu/shader/memmodel.h"
#include "emu/shader/memops.h"
#include "emu/shader/texel.h"
#include "pm4/image_gfx9.h"
#include "pm4/scratch_regs.h"

namespace emu::shader {

namespace {

// V# fields (AMD Vega ISA "Buffer Resource"; decoders shared with the runtime's encoder).
struct Vsharp {
  uint64_t base;
  uint32_t stride, records, element_bytes, index_stride;
  bool swizzle, add_tid;
};

Vsharp read_vsharp(const Wave& w, const Inst& in) {
  namespace vs = pm4::vsharp_gfx9;
  const uint32_t* s = &w.s[in.srsrc & 127];
  return {vs::base(s), vs::stride(s), s[2], vs::element_bytes(s), vs::index_stride(s),
          vs::swizzle(s), vs::add_tid(s)};
}

// Lane address; `avail` = how many bytes from there are inside the buffer's range (raw buffers:
// num_records bytes; structured: whole records while index < num_records). Out-of-range dwords
// read 0 and are not written (AMD Vega ISA "buffer range checking", per dword).
LaneAddr buffer_addr(Wave& w, const Inst& in, const Vsharp& v, unsigned l, uint64_t& avail, bool& unsupported) {
  uint32_t idx = (in.flags & kIdxen) ? w.v[in.vaddr][l] : 0;
  uint32_t voff = (in.flags & kOffen) ? w.v[(in.vaddr + ((in.flags & kIdxen) ? 1 : 0)) & 255][l] : 0;
  uint32_t soff = sread32(w, in, in.src[1]);
  uint64_t off = uint64_t{voff} + static_cast<uint32_t>(in.offset);
  avail = ~uint64_t{0};
  if (v.swizzle || v.add_tid) {
    // The private segment buffer layout (the queue's V#): swizzled, ADD_TID, 4-byte elements
    // over 64 lanes, no stride. The swizzled window starts at base + soffset (memops.cpp); the
    // wave's slot bounds it.
    if (!v.swizzle || !v.add_tid || (in.flags & kIdxen) || v.stride != 0 || v.element_bytes != 4 ||
        v.index_stride != 64)
      unsupported = true;
    return {Space::Scratch, off, v.base + soff};
  }
  uint64_t rel = uint64_t{idx} * v.stride + off;
  if (v.stride == 0) avail = off < v.records ? v.records - off : 0;
  else if (idx >= v.records) avail = 0;
  return {Space::Global, v.base + soff + rel, 0};
}

bool check_supported(Wave& w, const Inst& in, bool unsupported) {
  if (!unsupported) return true;
  wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size,
            "MUBUF addressing mode not supported (a swizzled V# other than the private segment "
            "layout, or idxen on it): " + describe(in, w.pc - in.size));
  return false;
}

template <unsigned Bytes, bool S, int H = 0>
void buffer_load(Wave& w, const Inst& in) {
  Vsharp v = read_vsharp(w, in);
  uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint64_t avail;
    bool bad = false;
    LaneAddr a = buffer_addr(w, in, v, l, avail, bad);
    if (!check_supported(w, in, bad)) return;
    uint32_t buf[4] = {};
    if (avail >= Bytes) {
      if (!lane_read(w, a, l, buf, Bytes, in.flags)) return;
    } else if (Bytes > 4) {  // partly in range: the dwords that are
      for (unsigned i = 0; 4 * i + 4 <= avail; ++i) {
        LaneAddr ai = a;
        ai.addr += 4 * i;
        if (!lane_read(w, ai, l, &buf[i], 4, in.flags)) return;
      }
    }
    if (Bytes >= 4) { for (unsigned i = 0; i < Bytes / 4; ++i) data_row(w, in, in.vdata + i)[l] = buf[i]; continue; }
    uint32_t x = buf[0];
    if (S) x = Bytes == 1 ? static_cast<uint32_t>(static_cast<int8_t>(x)) : static_cast<uint32_t>(static_cast<int16_t>(x));
    uint32_t& d = data_row(w, in, in.vdata)[l];
    d = H == 0 ? x : H == 1 ? (d & 0xFFFF0000u) | (x & 0xFFFF) : (d & 0xFFFF) | (x << 16);
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

template <unsigned Bytes, bool Hi = false>
void buffer_store(Wave& w, const Inst& in) {
  Vsharp v = read_vsharp(w, in);
  uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint64_t avail;
    bool bad = false;
    LaneAddr a = buffer_addr(w, in, v, l, avail, bad);
    if (!check_supported(w, in, bad)) return;
    uint32_t buf[4];
    for (unsigned i = 0; i < (Bytes + 3) / 4; ++i) buf[i] = data_row(w, in, in.vdata + i)[l];
    if (Hi) buf[0] >>= 16;
    if (avail >= Bytes) {
      if (!lane_write(w, a, l, buf, Bytes, in.flags)) return;
    } else if (Bytes > 4) {
      for (unsigned i = 0; 4 * i + 4 <= avail; ++i) {
        LaneAddr ai = a;
        ai.addr += 4 * i;
        if (!lane_write(w, ai, l, &buf[i], 4, in.flags)) return;
      }
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// Atomics through a V#: the data VGPRs hold the operand (then the compare value for cmpswap);
// with GLC the pre-op value comes back in the data VGPRs. Out-of-range lanes do nothing and
// return 0. Linear buffers use host atomics like GLOBAL; scratch read-modify-writes.
template <AtomicOp Op, bool Wide>
void buffer_atomic(Wave& w, const Inst& in) {
  Vsharp v = read_vsharp(w, in);
  uint64_t ex = w.exec();
  constexpr unsigned regs = Wide ? 2 : 1;
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint64_t avail;
    bool bad = false;
    LaneAddr a = buffer_addr(w, in, v, l, avail, bad);
    if (!check_supported(w, in, bad)) return;
    uint64_t val = data_row(w, in, in.vdata)[l], cmp = 0, old = 0;
    if (Wide) val |= uint64_t{data_row(w, in, in.vdata + 1)[l]} << 32;
    if (Op == AtomicOp::CmpSwap) {
      cmp = data_row(w, in, in.vdata + regs)[l];
      if (Wide) cmp |= uint64_t{data_row(w, in, in.vdata + regs + 1)[l]} << 32;
    }
    if (avail >= 4 * regs) {
      if (a.space == Space::Global) {
        if (!lane_atomic_global(w, a.addr, 4 * regs, Op, val, cmp, &old, in.flags)) return;
      } else {
        if (w.state == WaveState::Fault) return;
        uint64_t cur = 0;
        if (!lane_read(w, a, l, &cur, 4 * regs)) return;
        old = Wide ? rmw64(Op, &cur, val, cmp)
                   : rmw32(Op, reinterpret_cast<uint32_t*>(&cur), static_cast<uint32_t>(val), static_cast<uint32_t>(cmp));
        if (!lane_write(w, a, l, &cur, 4 * regs)) return;
      }
    }
    if (in.flags & kGlc) {
      data_row(w, in, in.vdata)[l] = static_cast<uint32_t>(old);
      if (Wide) data_row(w, in, in.vdata + 1)[l] = static_cast<uint32_t>(old >> 32);
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// Typed ("format") loads and stores: one element of the V#'s DATA_FORMAT / NUM_FORMAT per lane
// (AMD Vega ISA "Buffer Instructions", typed buffers), N components in N data VGPRs (d16: two
// per VGPR, low half first; an odd last half leaves the VGPR's high half as it was). An
// element not wholly in range reads 0 in every component and is not written (range checking
// in elements with a stride, in bytes without). Loads apply DST_SEL; stores do not.
bool format_checks(Wave& w, const Inst& in, const pm4::image_gfx9::BufferFormat& f, const Vsharp& v,
                   unsigned n, bool store) {
  namespace ig = pm4::image_gfx9;
  std::string why = texel::unsupported(f.data_format, f.num_format, store);
  if (why.empty() && !store) why = texel::bad_sel(f.dst_sel);
  if (why.empty() && store && n < ig::components(f.data_format))
    why = "a store of fewer components than the format has (" + std::to_string(n) + " of " +
          std::to_string(ig::components(f.data_format)) + ")";
  if (why.empty() && (v.swizzle || v.add_tid)) why = "a swizzled or ADD_TID V#";
  if (why.empty()) return true;
  wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size,
            "MUBUF format access with " + why + " not implemented: " + describe(in, w.pc - in.size));
  return false;
}

template <unsigned N, bool D16>
void buffer_load_format(Wave& w, const Inst& in) {
  namespace ig = pm4::image_gfx9;
  Vsharp v = read_vsharp(w, in);
  const ig::BufferFormat f = ig::decode_buffer_format(&w.s[in.srsrc & 127]);
  if (!format_checks(w, in, f, v, N, false)) return;
  const unsigned bytes = ig::bytes_per_texel(f.data_format);
  const bool integer = texel::is_integer(f.num_format);
  uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint64_t avail;
    bool bad = false;
    LaneAddr a = buffer_addr(w, in, v, l, avail, bad);
    uint32_t out[4] = {0, 0, 0, 0};
    if (avail >= bytes) {
      uint8_t buf[16];
      if (!lane_read(w, a, l, buf, bytes, in.flags)) return;
      uint32_t t[4];
      texel::unpack(buf, f.data_format, f.num_format, t);
      texel::swizzle(t, f.dst_sel, integer, out);
    }
    for (unsigned c = 0; c < N; ++c) {
      if (!D16) { data_row(w, in, in.vdata + c)[l] = out[c]; continue; }
      uint32_t& r = data_row(w, in, in.vdata + c / 2)[l];
      uint32_t h = texel::to_d16(out[c], integer);
      r = (c & 1) ? (r & 0xFFFFu) | (h << 16) : (r & 0xFFFF0000u) | h;
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

template <unsigned N, bool D16>
void buffer_store_format(Wave& w, const Inst& in) {
  namespace ig = pm4::image_gfx9;
  Vsharp v = read_vsharp(w, in);
  const ig::BufferFormat f = ig::decode_buffer_format(&w.s[in.srsrc & 127]);
  if (!format_checks(w, in, f, v, N, true)) return;
  const unsigned bytes = ig::bytes_per_texel(f.data_format);
  uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint64_t avail;
    bool bad = false;
    LaneAddr a = buffer_addr(w, in, v, l, avail, bad);
    if (avail < bytes) continue;
    uint32_t c4[4] = {0, 0, 0, 0};
    for (unsigned c = 0; c < N; ++c) {
      uint32_t r = data_row(w, in, in.vdata + (D16 ? c / 2 : c))[l];
      c4[c] = D16 ? texel::from_d16(static_cast<uint16_t>((c & 1) ? r >> 16 : r), f.num_format) : r;
    }
    uint8_t buf[16];
    texel::pack(c4, f.data_format, f.num_format, buf);
    if (!lane_write(w, a, l, buf, bytes, in.flags)) return;
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

const HandlerEntry kMubuf[] = {
    {"buffer_load_format_x", buffer_load_format<1, false>}, {"buffer_load_format_xy", buffer_load_format<2, false>},
    {"buffer_load_format_xyz", buffer_load_format<3, false>}, {"buffer_load_format_xyzw", buffer_load_format<4, false>},
    {"buffer_store_format_x", buffer_store_format<1, false>}, {"buffer_store_format_xy", buffer_store_format<2, false>},
    {"buffer_store_format_xyz", buffer_store_format<3, false>}, {"buffer_store_format_xyzw", buffer_store_format<4, false>},
    {"buffer_load_format_d16_x", buffer_load_format<1, true>}, {"buffer_load_format_d16_xy", buffer_load_format<2, true>},
    {"buffer_load_format_d16_xyz", buffer_load_format<3, true>}, {"buffer_load_format_d16_xyzw", buffer_load_format<4, true>},
    {"buffer_store_format_d16_x", buffer_store_format<1, true>}, {"buffer_store_format_d16_xy", buffer_store_format<2, true>},
    {"buffer_store_format_d16_xyz", buffer_store_format<3, true>}, {"buffer_store_format_d16_xyzw", buffer_store_format<4, true>},
    {"buffer_load_dword", buffer_load<4, false>}, {"buffer_load_dwordx2", buffer_load<8, false>},
    {"buffer_load_dwordx3", buffer_load<12, false>}, {"buffer_load_dwordx4", buffer_load<16, false>},
    {"buffer_load_ubyte", buffer_load<1, false>}, {"buffer_load_sbyte", buffer_load<1, true>},
    {"buffer_load_ushort", buffer_load<2, false>}, {"buffer_load_sshort", buffer_load<2, true>},
    {"buffer_load_ubyte_d16", buffer_load<1, false, 1>}, {"buffer_load_ubyte_d16_hi", buffer_load<1, false, 2>},
    {"buffer_load_sbyte_d16", buffer_load<1, true, 1>}, {"buffer_load_sbyte_d16_hi", buffer_load<1, true, 2>},
    {"buffer_load_short_d16", buffer_load<2, false, 1>}, {"buffer_load_short_d16_hi", buffer_load<2, false, 2>},
    {"buffer_store_dword", buffer_store<4>}, {"buffer_store_dwordx2", buffer_store<8>},
    {"buffer_store_dwordx3", buffer_store<12>}, {"buffer_store_dwordx4", buffer_store<16>},
    {"buffer_store_byte", buffer_store<1>}, {"buffer_store_short", buffer_store<2>},
    {"buffer_store_byte_d16_hi", buffer_store<1, true>}, {"buffer_store_short_d16_hi", buffer_store<2, true>},
    {"buffer_wbinvl1", exec_buffer_wbinvl1}, {"buffer_wbinvl1_vol", exec_buffer_wbinvl1},
    {"buffer_wbl2", exec_buffer_wbl2}, {"buffer_invl2", exec_buffer_invl2}, {"buffer_inv", exec_buffer_inv},
#define A(n, op) {"buffer_atomic_" n, buffer_atomic<AtomicOp::op, false>}, \
                 {"buffer_atomic_" n "_x2", buffer_atomic<AtomicOp::op, true>},
    A("swap", Swap) A("cmpswap", CmpSwap) A("add", Add) A("sub", Sub) A("smin", SMin)
    A("umin", UMin) A("smax", SMax) A("umax", UMax) A("and", And) A("or", Or) A("xor", Xor)
    A("inc", Inc) A("dec", Dec)
#undef A
    {"buffer_atomic_add_f32", buffer_atomic<AtomicOp::FAdd, false>},
    {"buffer_atomic_pk_add_f16", buffer_atomic<AtomicOp::PkAddF16, false>},
    {"buffer_atomic_add_f64", buffer_atomic<AtomicOp::FAdd, true>},
    {"buffer_atomic_min_f64", buffer_atomic<AtomicOp::FMin, true>},
    {"buffer_atomic_max_f64", buffer_atomic<AtomicOp::FMax, true>},
};

}  // namespace

HandlerList mubuf_handlers() { return {std::begin(kMubuf), std::end(kMubuf)}; }

}  // namespace emu::shader
