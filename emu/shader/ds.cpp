// SPDX-License-Identifier: MIT
// DS execution: LDS loads/stores (incl. read2/write2), LDS atomics, append/consume counters, and
// the LDS-free cross-lane ops ds_swizzle_b32, ds_permute_b32, ds_bpermute_b32.
#include <string>
#include <vector>

#include "emu/shader/memops.h"

namespace emu::shader {

namespace {

inline uint32_t offset16(const Inst& in) { return static_cast<uint32_t>(in.offset) | (uint32_t{in.offset1} << 8); }
inline LaneAddr lds_at(uint64_t a) { return {Space::Lds, a, 0}; }
inline uint32_t* row(Wave& w, const Inst& in, unsigned r) { return data_row(w, in, r); }

// The lanes' LDS byte addresses (vaddr + offset, wrapping at 32 bits); true when every active
// lane's `bytes` lie inside the workgroup's LDS (the fast paths; otherwise the per-lane path
// gives out-of-range reads 0 and drops out-of-range writes).
inline bool lds_addrs(const Wave& w, const Inst& in, uint64_t ex, uint32_t off, unsigned bytes, uint32_t* a) {
  const uint32_t* v = w.v[in.vaddr];
  const uint32_t size = w.group->lds_size;
  uint32_t sel[64], bad = 0;
  mask_lanes(ex, sel);
  VLOOP {
    a[l] = v[l] + off;
    bad |= sel[l] & ((a[l] > size) | (size - a[l] < bytes));
  }
  return bad == 0;
}
// Whether all 64 lanes are active and lane l's element is at a[0] + bytes * l.
inline bool lds_unit(uint64_t ex, const uint32_t* a, unsigned bytes) {
  if (ex != ~uint64_t{0}) return false;
  uint32_t diff = 0;
  VLOOP diff |= a[l] ^ (a[0] + bytes * l);
  return diff == 0;
}

// Single-address read of `Bytes` (sign-extended when S; D16 placement when H = 1 low / 2 high).
template <unsigned Bytes, bool S, int H = 0>
void ds_read(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t off = offset16(in), a[64];
  const uint8_t* lds = w.group->lds;
  const bool fast = lds_addrs(w, in, ex, off, Bytes, a);
  if (fast && Bytes == 4 && lds_unit(ex, a, 4)) {
    std::memcpy(row(w, in, in.dst), lds + a[0], 256);
    w.lane_ops += 64;
    return;
  }
  for (uint64_t m = ex; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    uint32_t buf[4] = {};
    if (fast) std::memcpy(buf, lds + a[l], Bytes);
    else lane_read(w, lds_at(a[l]), l, buf, Bytes);
    if (Bytes >= 4) { for (unsigned i = 0; i < Bytes / 4; ++i) row(w, in, in.dst + i)[l] = buf[i]; continue; }
    uint32_t v = buf[0];
    if (S) v = Bytes == 1 ? static_cast<uint32_t>(static_cast<int8_t>(v)) : static_cast<uint32_t>(static_cast<int16_t>(v));
    uint32_t& d = row(w, in, in.dst)[l];
    d = H == 0 ? v : H == 1 ? (d & 0xFFFF0000u) | (v & 0xFFFF) : (d & 0xFFFF) | (v << 16);
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

template <unsigned Bytes, bool Hi = false>
void ds_write(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t off = offset16(in), a[64];
  uint8_t* lds = w.group->lds;
  const bool fast = lds_addrs(w, in, ex, off, Bytes, a);
  if (fast && Bytes == 4 && lds_unit(ex, a, 4)) {
    std::memcpy(lds + a[0], row(w, in, in.vdata), 256);
    w.lane_ops += 64;
    return;
  }
  for (uint64_t m = ex; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    uint32_t buf[4];
    for (unsigned i = 0; i < (Bytes + 3) / 4; ++i) buf[i] = row(w, in, in.vdata + i)[l];
    if (Hi) buf[0] >>= 16;
    if (fast) std::memcpy(lds + a[l], buf, Bytes);
    else lane_write(w, lds_at(a[l]), l, buf, Bytes);
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// read2/write2: two elements at addr + offset0*size*stride and addr + offset1*size*stride.
template <unsigned Dw, unsigned Stride>
void ds_read2(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  const uint32_t o0 = static_cast<uint32_t>(in.offset) * 4 * Dw * Stride, o1 = uint32_t{in.offset1} * 4 * Dw * Stride;
  uint32_t a0[64], a1[64];
  const uint8_t* lds = w.group->lds;
  const bool fast = lds_addrs(w, in, ex, o0, 4 * Dw, a0) && lds_addrs(w, in, ex, o1, 4 * Dw, a1);
  for (uint64_t m = ex; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    uint32_t b0[2] = {}, b1[2] = {};
    if (fast) {
      std::memcpy(b0, lds + a0[l], 4 * Dw);
      std::memcpy(b1, lds + a1[l], 4 * Dw);
    } else {  // LDS address arithmetic wraps at 32 bits
      lane_read(w, lds_at(a0[l]), l, b0, 4 * Dw);
      lane_read(w, lds_at(a1[l]), l, b1, 4 * Dw);
    }
    for (unsigned i = 0; i < Dw; ++i) { row(w, in, in.dst + i)[l] = b0[i]; row(w, in, in.dst + Dw + i)[l] = b1[i]; }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}
template <unsigned Dw, unsigned Stride>
void ds_write2(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  const uint32_t o0 = static_cast<uint32_t>(in.offset) * 4 * Dw * Stride, o1 = uint32_t{in.offset1} * 4 * Dw * Stride;
  uint32_t a0[64], a1[64];
  uint8_t* lds = w.group->lds;
  const bool fast = lds_addrs(w, in, ex, o0, 4 * Dw, a0) && lds_addrs(w, in, ex, o1, 4 * Dw, a1);
  for (uint64_t m = ex; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    uint32_t b0[2], b1[2];
    for (unsigned i = 0; i < Dw; ++i) { b0[i] = row(w, in, in.vdata + i)[l]; b1[i] = row(w, in, in.src[1] + i)[l]; }
    if (fast) {  // in order: the second element wins where the two overlap
      std::memcpy(lds + a0[l], b0, 4 * Dw);
      std::memcpy(lds + a1[l], b1, 4 * Dw);
    } else {
      lane_write(w, lds_at(a0[l]), l, b0, 4 * Dw);
      lane_write(w, lds_at(a1[l]), l, b1, 4 * Dw);
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// LDS atomics: data0 = vdata, data1 = src[1]; ds_cmpst: data0 = compare, data1 = new value.
// One host thread runs all waves of a workgroup, so LDS needs no host atomics; lanes apply in
// lane order. An address out of range does nothing and returns 0.
template <AtomicOp Op, bool Wide, bool Rtn>
void ds_atomic(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  constexpr unsigned regs = Wide ? 2 : 1;
  uint32_t a[64];
  const bool all_in = lds_addrs(w, in, ex, offset16(in), 4 * regs, a);
  uint8_t* const lds = w.group->lds;
  const uint32_t size = w.group->lds_size;
  const uint32_t* d0lo = row(w, in, in.vdata);
  const uint32_t* d1lo = row(w, in, in.src[1]);
  const uint32_t* d0hi = Wide ? row(w, in, in.vdata + 1) : d0lo;
  const uint32_t* d1hi = Wide ? row(w, in, in.src[1] + 1) : d1lo;
  uint32_t* rlo = Rtn ? row(w, in, in.dst) : nullptr;
  uint32_t* rhi = Rtn && Wide ? row(w, in, in.dst + 1) : nullptr;
  if constexpr (!Wide && Op != AtomicOp::CmpSwap) {
    if (all_in && ex == ~uint64_t{0}) {  // a whole wave in range (a histogram's adds): no lane tests
      for (unsigned l = 0; l < 64; ++l) {
        uint8_t* p = lds + a[l];
        uint32_t x;
        std::memcpy(&x, p, 4);
        const uint32_t y = atomic_apply<uint32_t>(Op, x, d0lo[l], 0);
        std::memcpy(p, &y, 4);
        if constexpr (Rtn) rlo[l] = x;  // after reading the data (the VGPRs may be the same)
      }
      w.lane_ops += 64;
      return;
    }
  }
  for (uint64_t m = ex; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    uint64_t old = 0;
    if (all_in || (a[l] <= size && size - a[l] >= 4 * regs)) {
      uint8_t* p = lds + a[l];
      if constexpr (Wide) {
        const uint64_t d0 = d0lo[l] | uint64_t{d0hi[l]} << 32, d1 = d1lo[l] | uint64_t{d1hi[l]} << 32;
        uint64_t x;
        std::memcpy(&x, p, 8);
        old = x;
        x = Op == AtomicOp::CmpSwap ? atomic_apply<uint64_t>(Op, x, d1, d0) : atomic_apply<uint64_t>(Op, x, d0, 0);
        std::memcpy(p, &x, 8);
      } else {
        uint32_t x;
        std::memcpy(&x, p, 4);
        old = x;
        x = Op == AtomicOp::CmpSwap ? atomic_apply<uint32_t>(Op, x, d1lo[l], d0lo[l])
                                    : atomic_apply<uint32_t>(Op, x, d0lo[l], 0);
        std::memcpy(p, &x, 4);
      }
    }
    if constexpr (Rtn) {
      rlo[l] = static_cast<uint32_t>(old);
      if (Wide) rhi[l] = static_cast<uint32_t>(old >> 32);
    }
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

void ds_nop(Wave&, const Inst&) {}

// ds_append / ds_consume: one LDS counter at M0 + offset (clang puts the counter's address in
// M0) gains / loses the number of active lanes; every active lane gets the pre-op value.
// An address past the LDS reads 0 and changes nothing, like other DS accesses.
template <bool Append>
void ds_counter(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t addr = w.s[124] + offset16(in), old = 0, n = static_cast<uint32_t>(std::popcount(ex));
  if (uint8_t* p = lane_atomic_ptr(w, lds_at(addr), 4)) {
    std::memcpy(&old, p, 4);
    uint32_t now = Append ? old + n : old - n;
    std::memcpy(p, &now, 4);
  }
  uint32_t* d = row(w, in, in.dst);
  VLOOP if ((ex >> l) & 1) d[l] = old;
  w.lane_ops += n;
}

// ds_swizzle_b32 offset: bit 15 = quad-perm mode (2-bit selectors), else bit mask mode on
// groups of 32 lanes: and_mask [4:0], or_mask [9:5], xor_mask [14:10] (AMD Vega ISA).
void ds_swizzle_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t off = offset16(in), r[64];
  const uint32_t* s = w.v[in.vaddr];  // ds_swizzle's data is in the ADDR field
  VLOOP {
    unsigned src;
    if (off & 0x8000) src = (l & ~3u) | ((off >> (2 * (l & 3))) & 3);
    else src = (l & 0x20) | ((((l & 0x1F) & (off & 0x1F)) | ((off >> 5) & 0x1F)) ^ ((off >> 10) & 0x1F));
    r[l] = ((ex >> src) & 1) ? s[src] : 0;
  }
  uint32_t* d = row(w, in, in.dst), sel[64];
  mask_lanes(ex, sel);
  VLOOP d[l] = (r[l] & sel[l]) | (d[l] & ~sel[l]);
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}
// Pull: lane l reads data0 of lane (addr+offset)/4; inactive source lanes read 0.
void ds_bpermute_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t off = offset16(in), r[64], src[64], sel[64];
  const uint32_t* a = w.v[in.vaddr];
  const uint32_t* s = row(w, in, in.vdata);
  mask_lanes(ex, sel);
  VLOOP { src[l] = ((a[l] + off) >> 2) & 63; r[l] = s[l] & sel[l]; }  // r: the sources, 0 if inactive
  uint32_t g[64], rot = 0;
  const uint32_t k = src[0];
  VLOOP rot |= src[l] ^ ((l + k) & 63);
  if (rot == 0) {  // lane l reads lane l + k (mod 64): a rotation, as wave reductions shift
    std::memcpy(g, r + k, 4 * (64 - k));
    std::memcpy(g + (64 - k), r, 4 * k);
  } else {
#if defined(__AVX2__)
  for (unsigned l = 0; l < 64; l += 8) {
    const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + l));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(g + l),
                        _mm256_i32gather_epi32(reinterpret_cast<const int*>(r), idx, 4));
  }
#else
    VLOOP g[l] = r[src[l]];
#endif
  }
  uint32_t* d = row(w, in, in.dst);
  VLOOP d[l] = (g[l] & sel[l]) | (d[l] & ~sel[l]);
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}
// Push: active lane l writes its data0 to lane (addr+offset)/4; lanes nobody writes get 0.
void ds_permute_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint32_t off = offset16(in), r[64] = {};
  const uint32_t* a = w.v[in.vaddr];
  const uint32_t* s = row(w, in, in.vdata);
  for (unsigned l = 0; l < 64; ++l)
    if ((ex >> l) & 1) r[((a[l] + off) >> 2) & 63] = s[l];
  uint32_t* d = row(w, in, in.dst), sel[64];
  mask_lanes(ex, sel);
  VLOOP d[l] = (r[l] & sel[l]) | (d[l] & ~sel[l]);
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

struct Op { const char* name; ExecFn fn; };
const Op kDsOps[] = {
    {"ds_read_b32", ds_read<4, false>}, {"ds_read_b64", ds_read<8, false>},
    {"ds_read_b96", ds_read<12, false>}, {"ds_read_b128", ds_read<16, false>},
    {"ds_read_u8", ds_read<1, false>}, {"ds_read_i8", ds_read<1, true>},
    {"ds_read_u16", ds_read<2, false>}, {"ds_read_i16", ds_read<2, true>},
    {"ds_read_u8_d16", ds_read<1, false, 1>}, {"ds_read_u8_d16_hi", ds_read<1, false, 2>},
    {"ds_read_i8_d16", ds_read<1, true, 1>}, {"ds_read_i8_d16_hi", ds_read<1, true, 2>},
    {"ds_read_u16_d16", ds_read<2, false, 1>}, {"ds_read_u16_d16_hi", ds_read<2, false, 2>},
    {"ds_write_b32", ds_write<4>}, {"ds_write_b64", ds_write<8>}, {"ds_write_b96", ds_write<12>},
    {"ds_write_b128", ds_write<16>}, {"ds_write_b8", ds_write<1>}, {"ds_write_b16", ds_write<2>},
    {"ds_write_b8_d16_hi", ds_write<1, true>}, {"ds_write_b16_d16_hi", ds_write<2, true>},
    {"ds_read2_b32", ds_read2<1, 1>}, {"ds_read2st64_b32", ds_read2<1, 64>},
    {"ds_read2_b64", ds_read2<2, 1>}, {"ds_read2st64_b64", ds_read2<2, 64>},
    {"ds_write2_b32", ds_write2<1, 1>}, {"ds_write2st64_b32", ds_write2<1, 64>},
    {"ds_write2_b64", ds_write2<2, 1>}, {"ds_write2st64_b64", ds_write2<2, 64>},
    {"ds_nop", ds_nop}, {"ds_swizzle_b32", ds_swizzle_b32}, {"ds_bpermute_b32", ds_bpermute_b32},
    {"ds_permute_b32", ds_permute_b32}, {"ds_append", ds_counter<true>},
    {"ds_consume", ds_counter<false>},
};

// Atomic names: ds_<op>_<type> and ds_<op>_rtn_<type>.
struct AOp { const char* op; const char* ty; ExecFn plain; ExecFn rtn; };
#define A32(n, t, o) {n, t, ds_atomic<AtomicOp::o, false, false>, ds_atomic<AtomicOp::o, false, true>},
#define A64(n, t, o) {n, t, ds_atomic<AtomicOp::o, true, false>, ds_atomic<AtomicOp::o, true, true>},
const AOp kDsAtomics[] = {
    A32("add", "u32", Add) A32("sub", "u32", Sub) A32("rsub", "u32", Rsub) A32("inc", "u32", Inc)
    A32("dec", "u32", Dec) A32("min", "i32", SMin) A32("max", "i32", SMax) A32("min", "u32", UMin)
    A32("max", "u32", UMax) A32("and", "b32", And) A32("or", "b32", Or) A32("xor", "b32", Xor)
    A32("cmpst", "b32", CmpSwap) A32("add", "f32", FAdd) A32("min", "f32", FMin) A32("max", "f32", FMax)
    A32("wrxchg", "b32", Swap) A32("pk_add", "f16", PkAddF16)
    A64("add", "u64", Add) A64("sub", "u64", Sub) A64("rsub", "u64", Rsub) A64("inc", "u64", Inc)
    A64("dec", "u64", Dec) A64("min", "i64", SMin) A64("max", "i64", SMax) A64("min", "u64", UMin)
    A64("max", "u64", UMax) A64("and", "b64", And) A64("or", "b64", Or) A64("xor", "b64", Xor)
    A64("cmpst", "b64", CmpSwap) A64("min", "f64", FMin) A64("max", "f64", FMax)
    A64("wrxchg", "b64", Swap) A64("add", "f64", FAdd)
};
#undef A32
#undef A64

}  // namespace

HandlerList ds_handlers() {
  // Never destroyed: an engine thread may still be building its opcode table from these while
  // the process exits (static destructors would free the names under it).
  static auto& names = *new std::vector<std::string>;
  static const auto& v = *new std::vector<HandlerEntry>([] {
    std::vector<HandlerEntry> e;
    for (const Op& op : kDsOps) { names.push_back(op.name); e.push_back({nullptr, op.fn}); }
    for (const AOp& a : kDsAtomics) {
      names.push_back(std::string("ds_") + a.op + "_" + a.ty); e.push_back({nullptr, a.plain});
      names.push_back(std::string("ds_") + a.op + "_rtn_" + a.ty); e.push_back({nullptr, a.rtn});
    }
    for (size_t i = 0; i < e.size(); ++i) e[i].name = names[i].c_str();
    return e;
  }());
  return {v.data(), v.data() + v.size()};
}

}  // namespace emu::shader
