// SPDX-License-Identifier: MIT
// VALU operand fetch and write-back: VOP3 modifiers, DPP lane permutes, SDWA sub-dword selects.
#include "emu/shader/valu.h"

namespace emu::shader {

namespace {

// DPP source lane for `lane` (AMD Vega ISA "DPP_CTRL" enumeration), or -1 when out of range.
int dpp_source(unsigned ctrl, unsigned lane) {
  int l = static_cast<int>(lane), r = l & 15;
  if (ctrl <= 0xFF) return (l & ~3) | ((ctrl >> (2 * (l & 3))) & 3);  // quad_perm
  if (ctrl >= 0x101 && ctrl <= 0x10F) { int n = ctrl & 15; return r + n < 16 ? l + n : -1; }  // row_shl
  if (ctrl >= 0x111 && ctrl <= 0x11F) { int n = ctrl & 15; return r - n >= 0 ? l - n : -1; }  // row_shr
  if (ctrl >= 0x121 && ctrl <= 0x12F) { int n = ctrl & 15; return (l & ~15) | ((r - n) & 15); }  // row_ror
  switch (ctrl) {
    case 0x130: return l + 1 < 64 ? l + 1 : -1;  // wave_shl:1
    case 0x134: return (l + 1) & 63;             // wave_rol:1
    case 0x138: return l - 1;                    // wave_shr:1
    case 0x13C: return (l - 1) & 63;             // wave_ror:1
    case 0x140: return (l & ~15) | (15 - r);     // row_mirror
    case 0x141: return (l & ~7) | (7 - (l & 7)); // row_half_mirror
    case 0x142: return l >= 16 ? (l & ~15) - 1 : -1;  // row_bcast:15
    case 0x143: return l >= 32 ? 31 : -1;             // row_bcast:31
    default:
      if (ctrl >= 0x150 && ctrl <= 0x15F) return (l & ~15) | (ctrl & 15);  // row_newbcast (gfx90a)
      return -1;  // reserved values are refused by the decoder (dpp_ctrl_known)
  }
}

bool dpp_lane_enabled(const Inst& in, unsigned l) {
  return ((in.row_mask >> (l >> 4)) & 1) && ((in.bank_mask >> ((l >> 2) & 3)) & 1);
}

uint32_t sdwa_select(uint32_t v, unsigned sel, bool sext) {
  if (sel == 6) return v;
  if (sel <= 3) {
    uint32_t b = (v >> (8 * sel)) & 0xFF;
    return sext ? static_cast<uint32_t>(static_cast<int8_t>(b)) : b;
  }
  uint32_t h = (v >> (16 * (sel - 4))) & 0xFFFF;
  return sext ? static_cast<uint32_t>(static_cast<int16_t>(h)) : h;
}

uint32_t sign_bit(Ty t) { return (t == Ty::F32 || t == Ty::M32) ? 0x80000000u : t == Ty::F16 ? 0x8000u : 0; }

// MODE.FP_DENORM (AMD Vega ISA): bits [5:4] f32, [7:6] f64/f16; bit 0 of each pair allows
// input denormals, bit 1 output denormals; a cleared bit flushes them to signed zero.
inline void flush32(uint32_t* v) {
  VLOOP if ((v[l] & 0x7F800000u) == 0) v[l] &= 0x80000000u;
}
inline void flush16(uint32_t* v) {  // f16 in the low half
  VLOOP if ((v[l] & 0x7C00u) == 0) v[l] &= ~0x7FFFu;
}
inline void flush64(uint64_t* v) {
  VLOOP if ((v[l] & 0x7FF0000000000000ull) == 0) v[l] &= 0x8000000000000000ull;
}

void apply_fp_mods(const Inst& in, unsigned i, Ty t, uint32_t* tmp) {
  uint32_t sb = sign_bit(t);
  if (!sb) return;
  uint32_t clear = ((in.abs >> i) & 1) ? sb : 0, flip = ((in.neg >> i) & 1) ? sb : 0;
  if (!clear && !flip) return;
  VLOOP tmp[l] = (tmp[l] & ~clear) ^ flip;
}

}  // namespace

uint64_t valu_active_dpp(const Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  uint64_t m = 0;
  for (unsigned l = 0; l < 64; ++l) {
    if (!dpp_lane_enabled(in, l)) continue;
    int s = dpp_source(in.dpp_ctrl, l);
    bool valid = s >= 0 && ((ex >> s) & 1);
    if (valid || (in.flags & kBoundCtrl)) m |= uint64_t{1} << l;
  }
  return ex & m;
}

const uint32_t* fetch32_any(const Wave& w, const Inst& in, unsigned i, Ty t, uint32_t* tmp) {
  unsigned code = in.src[i];
  bool mods = ((in.abs | in.neg) >> i) & 1;
  if (code >= 256) {
    const uint32_t* row = w.v[w.vrow(code - 256, i)];
    if (i == 0 && (in.flags & kDpp)) {
      uint64_t ex = w.exec();
      VLOOP {
        int s = dpp_source(in.dpp_ctrl, l);
        tmp[l] = (s >= 0 && ((ex >> s) & 1)) ? row[s] : 0;
      }
    } else if (!mods && !(in.flags & kSdwa) && !(t == Ty::F16 && ((in.opsel >> i) & 1)) &&
               !(t == Ty::F32 && !(w.mode & 0x10)) && !(t == Ty::F16 && !(w.mode & 0x40))) {
      return row;
    } else {
      VLOOP tmp[l] = row[l];
    }
  } else {
    uint32_t v = sread32(w, in, code);
    if (t == Ty::F16 && code >= 240 && code <= 248) v = f32_to_f16(f32(v));  // f16 inline consts
    VLOOP tmp[l] = v;
  }
  if ((in.flags & kSdwa) && i < 2) {
    unsigned sel = in.sdwa_src_sel[i];
    bool sx = (in.sdwa_sext >> i) & 1;
    if (sel != 6 || sx) VLOOP tmp[l] = sdwa_select(tmp[l], sel, sx);
  } else if ((t == Ty::F16 || t == Ty::B16) && ((in.opsel >> i) & 1) && (in.flags & kVop3)) {
    VLOOP tmp[l] >>= 16;
  }
  apply_fp_mods(in, i, t, tmp);
  if (t == Ty::F32 && !(w.mode & 0x10)) flush32(tmp);
  if (t == Ty::F16 && !(w.mode & 0x40)) flush16(tmp);  // f16 shares the f64 denorm bits
  return tmp;
}

void fetch64(const Wave& w, const Inst& in, unsigned i, bool fp, uint64_t* out) {
  unsigned code = in.src[i];
  if (code >= 256) {
    unsigned row = w.vrow(code - 256, i);
    const uint32_t* lo = w.v[row];
    const uint32_t* hi = w.v[(row + 1) & (kVRows - 1)];
    VLOOP out[l] = lo[l] | (uint64_t{hi[l]} << 32);
  } else {
    uint64_t v = sread64(w, in, code, fp);
    VLOOP out[l] = v;
  }
  if (fp) {
    uint64_t sb = uint64_t{1} << 63;
    uint64_t clear = ((in.abs >> i) & 1) ? sb : 0, flip = ((in.neg >> i) & 1) ? sb : 0;
    if (clear | flip) VLOOP out[l] = (out[l] & ~clear) ^ flip;
    if (!(w.mode & 0x40)) flush64(out);
  }
}

Rows64 fetch64_rows_any(const Wave& w, const Inst& in, unsigned i, bool fp, uint32_t* tmp) {
  const unsigned code = in.src[i];
  if (code >= 256 && (!fp || (w.mode & 0x40))) {  // a VGPR pair: abs/neg touch the high row only
    const unsigned row = w.vrow(code - 256, i);
    const uint32_t* hi = w.v[(row + 1) & (kVRows - 1)];
    const uint32_t clear = fp && ((in.abs >> i) & 1) ? 0x80000000u : 0, flip = fp && ((in.neg >> i) & 1) ? 0x80000000u : 0;
    if (!(clear | flip)) return {w.v[row], hi};
    VLOOP tmp[64 + l] = (hi[l] & ~clear) ^ flip;
    return {w.v[row], tmp + 64};
  }
  uint64_t v[64];
  fetch64(w, in, i, fp, v);
  VLOOP { tmp[l] = static_cast<uint32_t>(v[l]); tmp[64 + l] = static_cast<uint32_t>(v[l] >> 32); }
  return {tmp, tmp + 64};
}

void store64_rows_any(Wave& w, const Inst& in, uint64_t ex, const uint32_t* lo, const uint32_t* hi, bool fp) {
  uint64_t r[64];
  VLOOP r[l] = lo[l] | (uint64_t{hi[l]} << 32);
  store64(w, in, ex, r, fp);
}

namespace {

void fp_output_mods32(const Wave& w, const Inst& in, uint32_t* r) {
  static constexpr float kOmod[4] = {1.0f, 2.0f, 4.0f, 0.5f};
  if (in.omod) { float m = kOmod[in.omod]; VLOOP r[l] = u32(f32(r[l]) * m); }
  if (in.clamp) {
    bool dx10 = (w.mode >> 8) & 1;
    VLOOP {
      float x = f32(r[l]);
      x = std::isnan(x) ? (dx10 ? 0.0f : x) : std::fmin(std::fmax(x, 0.0f), 1.0f);
      r[l] = u32(x);
    }
  }
}

void fp_output_mods16(const Inst& in, uint32_t* r) {
  static constexpr float kOmod[4] = {1.0f, 2.0f, 4.0f, 0.5f};
  VLOOP {
    float x = f16_to_f32(static_cast<uint16_t>(r[l])) * kOmod[in.omod];
    if (in.clamp) x = std::isnan(x) ? 0.0f : std::fmin(std::fmax(x, 0.0f), 1.0f);
    r[l] = f32_to_f16(x);
  }
}

uint32_t sdwa_merge(const Inst& in, uint32_t old, uint32_t v) {
  unsigned sel = in.sdwa_dst_sel;
  if (sel == 6) return v;
  unsigned shift = sel <= 3 ? 8 * sel : 16 * (sel - 4), bits = sel <= 3 ? 8 : 16;
  uint32_t field = (bits == 8 ? 0xFFu : 0xFFFFu) << shift;
  uint32_t placed = (v << shift) & field;
  if (in.sdwa_dst_unused == 2) return (old & ~field) | placed;
  if (in.sdwa_dst_unused == 1) {
    uint32_t top = (v >> (bits - 1)) & 1;
    uint32_t above = shift + bits >= 32 ? 0 : (~0u << (shift + bits));
    return placed | (top ? above : 0);
  }
  return placed;
}

}  // namespace

void store32_any(Wave& w, const Inst& in, uint64_t ex, uint32_t* r, Ty t) {
  bool saturated = t == Ty::B32Sat || t == Ty::B16Sat;
  if (saturated) t = t == Ty::B32Sat ? Ty::B32 : Ty::B16;
  if (in.omod || (in.clamp && !saturated)) {
    if (t == Ty::F32) fp_output_mods32(w, in, r);
    else if (t == Ty::F16) fp_output_mods16(in, r);
    else { wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size, "integer clamp/omod: " + describe(in, w.pc - in.size)); return; }
  }
  if (t == Ty::F32 && !(w.mode & 0x20)) flush32(r);
  if (t == Ty::F16 && !(w.mode & 0x80)) flush16(r);
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  uint32_t* d = w.v[w.vrow(in.dst, 3)];
  if (in.flags & kSdwa) {
    VLOOP if ((ex >> l) & 1) d[l] = sdwa_merge(in, d[l], r[l]);
    return;
  }
  if ((t == Ty::F16 || t == Ty::B16) && (in.flags & kVop3) && (in.opsel & 8)) {
    VLOOP if ((ex >> l) & 1) d[l] = (d[l] & 0xFFFF) | (r[l] << 16);  // op_sel dst: high half
    return;
  }
  if (ex == ~uint64_t{0}) { std::memcpy(d, r, 256); return; }
  uint32_t sel[64];
  mask_lanes(ex, sel);
  VLOOP d[l] = (r[l] & sel[l]) | (d[l] & ~sel[l]);
}

void store64(Wave& w, const Inst& in, uint64_t ex, uint64_t* r, bool fp) {
  if (fp && (in.omod || in.clamp)) {
    static constexpr double kOmod[4] = {1.0, 2.0, 4.0, 0.5};
    VLOOP {
      double x = f64(r[l]) * kOmod[in.omod];
      if (in.clamp) x = std::isnan(x) ? 0.0 : std::fmin(std::fmax(x, 0.0), 1.0);
      r[l] = u64(x);
    }
  } else if (in.clamp) {
    wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size, "integer clamp: " + describe(in, w.pc - in.size));
    return;
  }
  if (fp && !(w.mode & 0x80)) flush64(r);
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  unsigned drow = w.vrow(in.dst, 3);
  uint32_t* lo = w.v[drow];
  uint32_t* hi = w.v[(drow + 1) & (kVRows - 1)];
  if (ex == ~uint64_t{0}) {
    VLOOP { lo[l] = static_cast<uint32_t>(r[l]); hi[l] = static_cast<uint32_t>(r[l] >> 32); }
    return;
  }
  uint32_t sel[64];
  mask_lanes(ex, sel);
  VLOOP {
    lo[l] = (static_cast<uint32_t>(r[l]) & sel[l]) | (lo[l] & ~sel[l]);
    hi[l] = (static_cast<uint32_t>(r[l] >> 32) & sel[l]) | (hi[l] & ~sel[l]);
  }
}

uint64_t mask_source(const Wave& w, const Inst& in) {
  if (in.flags & kVop3) return sread64(w, in, in.src[2], false);
  return w.vcc();
}

void store_mask(Wave& w, const Inst& in, uint64_t m) { swrite64(w, in.sdst, m); }

float f16_to_f32(uint16_t h) {
  uint32_t sign = uint32_t{h & 0x8000u} << 16, e = (h >> 10) & 31, m = h & 0x3FF;
  if (e == 31) return f32(sign | 0x7F800000 | (m << 13));
  if (e == 0) {
    float v = std::ldexp(static_cast<float>(m), -24);
    return sign ? -v : v;
  }
  return f32(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t f64_to_f16(double d) {
  uint64_t b = u64(d);
  uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000);
  double a = std::fabs(d);
  if (std::isnan(d)) return sign | 0x7E00 | static_cast<uint16_t>((b >> 42) & 0x1FF);
  if (a >= 65520.0) return sign | 0x7C00;  // rounds to infinity
  if (a < std::ldexp(1.0, -14)) {          // subnormal: quantum 2^-24
    double q = std::nearbyint(a * 16777216.0);
    return sign | static_cast<uint16_t>(q);
  }
  int e;
  double m = std::frexp(a, &e);            // a = m * 2^e, m in [0.5,1)
  double q = std::nearbyint(std::ldexp(m, 11));  // 11 significant bits
  if (q >= 2048.0) { q /= 2; ++e; }
  unsigned exp16 = static_cast<unsigned>(e - 1 + 15);
  if (exp16 >= 31) return sign | 0x7C00;
  return sign | static_cast<uint16_t>((exp16 << 10) | (static_cast<unsigned>(q) & 0x3FF));
}

uint16_t f32_to_f16(float f) { return f64_to_f16(static_cast<double>(f)); }

}  // namespace emu::shader
