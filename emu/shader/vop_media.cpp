// SPDX-License-Identifier: MIT
// VALU execution of media and packing operations: byte SADs, lerp, cube-map coordinates,
// packed and normalized conversions, f16 med3/frexp, and gfx90a's v_pk_fmac_f16.
#include <algorithm>

#include "emu/shader/valu.h"

namespace emu::shader {

namespace {

#define FETCH2(T) uint64_t ex = valu_active(w, in); uint32_t t0[64], t1[64], r[64]; \
  const uint32_t* A = fetch32(w, in, 0, T, t0); const uint32_t* B = fetch32(w, in, 1, T, t1);
#define FETCH3(T) FETCH2(T) uint32_t t2[64]; const uint32_t* C = fetch32(w, in, 2, T, t2);
#define U3(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH3(Ty::B32) \
  VLOOP { uint32_t a = A[l], b = B[l], c = C[l]; r[l] = (EXPR); } store32(w, in, ex, r, Ty::B32); }

inline uint32_t byte(uint32_t x, unsigned i) { return (x >> (8 * i)) & 0xFF; }
inline uint32_t absdiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

// Sum of absolute differences of the four bytes; msad skips bytes whose reference (S1) is 0.
inline uint32_t sad8(uint32_t a, uint32_t b, bool masked) {
  uint32_t s = 0;
  for (unsigned i = 0; i < 4; ++i)
    if (!masked || byte(b, i)) s += absdiff(byte(a, i), byte(b, i));
  return s;
}
// Per byte: the rounded average (a + b + rounding bit from the byte of c) / 2.
inline uint32_t lerp8(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d = 0;
  for (unsigned i = 0; i < 4; ++i) d |= ((byte(a, i) + byte(b, i) + (byte(c, i) & 1)) >> 1) << (8 * i);
  return d;
}

U3(v_sad_u8, sad8(a, b, false) + c)
U3(v_msad_u8, sad8(a, b, true) + c)
U3(v_sad_hi_u8, (sad8(a, b, false) << 16) + c)
U3(v_sad_u16, absdiff(a & 0xFFFF, b & 0xFFFF) + absdiff(a >> 16, b >> 16) + c)
U3(v_lerp_u8, lerp8(a, b, c))

// Cube map (AMD Vega ISA V_CUBE*): the major axis is z when |z| >= |x|,|y|, else y when
// |y| >= |x|, else x. id = 2*axis + (coordinate < 0); ma = 2 * the major coordinate.
enum class Cube : uint8_t { Id, Sc, Tc, Ma };
template <Cube K>
float cube(float x, float y, float z) {
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  if (az >= ax && az >= ay) {
    if (K == Cube::Id) return z < 0 ? 5.0f : 4.0f;
    if (K == Cube::Sc) return z < 0 ? -x : x;
    if (K == Cube::Tc) return -y;
    return 2.0f * z;
  }
  if (ay >= ax) {
    if (K == Cube::Id) return y < 0 ? 3.0f : 2.0f;
    if (K == Cube::Sc) return x;
    if (K == Cube::Tc) return y < 0 ? -z : z;
    return 2.0f * y;
  }
  if (K == Cube::Id) return x < 0 ? 1.0f : 0.0f;
  if (K == Cube::Sc) return x < 0 ? z : -z;
  if (K == Cube::Tc) return -y;
  return 2.0f * x;
}
template <Cube K>
void v_cube(Wave& w, const Inst& in) {
  FETCH3(Ty::F32)
  VLOOP r[l] = u32(cube<K>(f32(A[l]), f32(B[l]), f32(C[l])));
  store32(w, in, ex, r, Ty::F32);
}

// Float to integer with round-to-nearest-even and saturation to [lo, hi]; NaN gives 0.
inline int32_t sat_round(double x, double lo, double hi) {
  if (std::isnan(x)) return 0;
  return static_cast<int32_t>(std::nearbyint(std::clamp(x, lo, hi)));
}
inline uint32_t snorm16(double x) { return static_cast<uint32_t>(sat_round(x * 32767.0, -32767.0, 32767.0)) & 0xFFFF; }
inline uint32_t unorm16(double x) { return static_cast<uint32_t>(sat_round(x * 65535.0, 0.0, 65535.0)); }
inline uint32_t u8_of(float x) { return static_cast<uint32_t>(sat_round(x, 0.0, 255.0)); }

// D = {cvt(S1) in the high half, cvt(S0) in the low half}.
template <uint32_t (*Cvt)(double), Ty T>
void pknorm(Wave& w, const Inst& in) {
  FETCH2(T)
  auto val = [&](uint32_t x) -> double { return T == Ty::F16 ? f16_to_f32(static_cast<uint16_t>(x)) : f32(x); };
  VLOOP r[l] = Cvt(val(A[l])) | (Cvt(val(B[l])) << 16);
  store32(w, in, ex, r, Ty::B32);
}
void v_cvt_pk_i16_i32(Wave& w, const Inst& in) {
  FETCH2(Ty::B32)
  auto s16 = [](uint32_t x) { return static_cast<uint32_t>(std::clamp(static_cast<int32_t>(x), -32768, 32767)) & 0xFFFF; };
  VLOOP r[l] = s16(A[l]) | (s16(B[l]) << 16);
  store32(w, in, ex, r, Ty::B32);
}
void v_cvt_pk_u16_u32(Wave& w, const Inst& in) {
  FETCH2(Ty::B32)
  VLOOP r[l] = std::min(A[l], 0xFFFFu) | (std::min(B[l], 0xFFFFu) << 16);
  store32(w, in, ex, r, Ty::B32);
}
// v_cvt_pk_u8_f32: S2 with byte S1[1:0] replaced by u8(S0).
void v_cvt_pk_u8_f32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], t1[64], t2[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F32, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
  const uint32_t* C = fetch32(w, in, 2, Ty::B32, t2);
  VLOOP {
    unsigned sh = 8 * (B[l] & 3);
    r[l] = (C[l] & ~(0xFFu << sh)) | (u8_of(f32(A[l])) << sh);
  }
  store32(w, in, ex, r, Ty::B32);
}
// f16 -> normalized i16/u16 (gfx90a), and packed i16 -> u8 saturation.
template <uint32_t (*Cvt)(double)>
void cvt_norm_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  VLOOP r[l] = Cvt(f16_to_f32(static_cast<uint16_t>(A[l]))) & 0xFFFF;
  store32(w, in, ex, r, Ty::B16);
}
void v_sat_pk_u8_i16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::B32, t0);
  auto u8 = [](uint32_t h) { return static_cast<uint32_t>(std::clamp<int32_t>(static_cast<int16_t>(h), 0, 255)); };
  VLOOP r[l] = u8(A[l]) | (u8(A[l] >> 16) << 8);
  store32(w, in, ex, r, Ty::B16);
}

// f16 med3 with the f32 rules (a NaN operand makes it min3); f16 frexp.
inline float fmin_ieee(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::fmin(a, b); }
inline float fmax_ieee(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::fmax(a, b); }
void v_med3_f16(Wave& w, const Inst& in) {
  FETCH3(Ty::F16)
  VLOOP {
    float a = f16_to_f32(static_cast<uint16_t>(A[l])), b = f16_to_f32(static_cast<uint16_t>(B[l]));
    float c = f16_to_f32(static_cast<uint16_t>(C[l]));
    float m = (std::isnan(a) || std::isnan(b) || std::isnan(c)) ? fmin_ieee(fmin_ieee(a, b), c)
              : fmax_ieee(fmin_ieee(a, b), fmin_ieee(fmax_ieee(a, b), c));
    r[l] = f32_to_f16(m);
  }
  store32(w, in, ex, r, Ty::F16);
}
void v_frexp_mant_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  VLOOP { float a = f16_to_f32(static_cast<uint16_t>(A[l])); int e; r[l] = f32_to_f16(std::isfinite(a) ? std::frexp(a, &e) : a); }
  store32(w, in, ex, r, Ty::F16);
}
void v_frexp_exp_i16_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  VLOOP { float a = f16_to_f32(static_cast<uint16_t>(A[l])); int e = 0; if (std::isfinite(a)) std::frexp(a, &e); r[l] = static_cast<uint32_t>(e) & 0xFFFF; }
  store32(w, in, ex, r, Ty::B16);
}

// v_pk_fmac_f16 (VOP2): each half of D += S0 * S1 with one rounding.
void v_pk_fmac_f16(Wave& w, const Inst& in) {
  if ((in.abs | in.neg) || (in.flags & kSdwa)) {
    wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size, "v_pk_fmac_f16 with modifiers: " + describe(in, w.pc - in.size));
    return;
  }
  FETCH3(Ty::B32)
  auto h = [](uint32_t x, unsigned s) { return static_cast<double>(f16_to_f32(static_cast<uint16_t>(x >> s))); };
  VLOOP {
    uint32_t lo = f64_to_f16(h(A[l], 0) * h(B[l], 0) + h(C[l], 0));
    uint32_t hi = f64_to_f16(h(A[l], 16) * h(B[l], 16) + h(C[l], 16));
    r[l] = lo | (hi << 16);
  }
  store32(w, in, ex, r, Ty::B32);
}

void v_clrexcp(Wave&, const Inst&) {}  // no exception state is modelled

const HandlerEntry kVopMedia[] = {
#define E(n) {#n, n},
    E(v_sad_u8) E(v_msad_u8) E(v_sad_hi_u8) E(v_sad_u16) E(v_lerp_u8) E(v_cvt_pk_i16_i32)
    E(v_cvt_pk_u16_u32) E(v_cvt_pk_u8_f32) E(v_sat_pk_u8_i16) E(v_med3_f16) E(v_frexp_mant_f16)
    E(v_frexp_exp_i16_f16) E(v_pk_fmac_f16) E(v_clrexcp)
#undef E
    {"v_cubeid_f32", v_cube<Cube::Id>}, {"v_cubesc_f32", v_cube<Cube::Sc>},
    {"v_cubetc_f32", v_cube<Cube::Tc>}, {"v_cubema_f32", v_cube<Cube::Ma>},
    {"v_cvt_pknorm_i16_f32", pknorm<snorm16, Ty::F32>}, {"v_cvt_pknorm_u16_f32", pknorm<unorm16, Ty::F32>},
    {"v_cvt_pknorm_i16_f16", pknorm<snorm16, Ty::F16>}, {"v_cvt_pknorm_u16_f16", pknorm<unorm16, Ty::F16>},
    {"v_cvt_norm_i16_f16", cvt_norm_f16<snorm16>}, {"v_cvt_norm_u16_f16", cvt_norm_f16<unorm16>},
};

}  // namespace

HandlerList vop_media_handlers() { return {std::begin(kVopMedia), std::end(kVopMedia)}; }

}  // namespace emu::shader
