// SPDX-License-Identifier: MIT
// VALU execution of 16-bit (f16/i16/u16) and packed (VOP3P) operations, incl. gfx90a's
// packed-f32 v_pk_{fma,mul,add,mov} on 64-bit register pairs.
#include <algorithm>

#include "emu/shader/valu.h"

namespace emu::shader {

namespace {

inline float h2f(uint32_t x) { return f16_to_f32(static_cast<uint16_t>(x)); }

#define H_FETCH(N, T) uint64_t ex = valu_active(w, in); uint32_t t0[64], t1[64], t2[64], r[64]; \
  const uint32_t* A = fetch32(w, in, 0, T, t0); const uint32_t* B = N > 1 ? fetch32(w, in, 1, T, t1) : t1; \
  const uint32_t* C = N > 2 ? fetch32(w, in, 2, T, t2) : t2; (void)B; (void)C;
#define H1(NAME, EXPR) void NAME(Wave& w, const Inst& in) { H_FETCH(1, Ty::F16) \
  VLOOP { float a = h2f(A[l]); r[l] = f32_to_f16(EXPR); } store32(w, in, ex, r, Ty::F16); }
#define H2(NAME, EXPR) void NAME(Wave& w, const Inst& in) { H_FETCH(2, Ty::F16) \
  VLOOP { float a = h2f(A[l]), b = h2f(B[l]); r[l] = f32_to_f16(EXPR); } store32(w, in, ex, r, Ty::F16); }
// f16 fma: the double product is exact, so one rounding to f16 (f64_to_f16) is correct.
#define H3(NAME, EXPR) void NAME(Wave& w, const Inst& in) { H_FETCH(3, Ty::F16) \
  VLOOP { double a = h2f(A[l]), b = h2f(B[l]), c = h2f(C[l]); r[l] = f64_to_f16(EXPR); } store32(w, in, ex, r, Ty::F16); }
#define I2(NAME, EXPR) void NAME(Wave& w, const Inst& in) { H_FETCH(2, Ty::B16) \
  VLOOP { uint32_t a = A[l] & 0xFFFF, b = B[l] & 0xFFFF; r[l] = (EXPR) & 0xFFFF; } store32(w, in, ex, r, Ty::B16); }

inline float hmin(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::fmin(a, b); }
inline float hmax(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::fmax(a, b); }
inline int16_t s16(uint32_t x) { return static_cast<int16_t>(x); }

H2(v_add_f16, a + b)
H2(v_sub_f16, a - b)
H2(v_subrev_f16, b - a)
H2(v_mul_f16, a * b)
H2(v_min_f16, hmin(a, b))
H2(v_max_f16, hmax(a, b))
H3(v_fma_f16, a * b + c)
// mad/mac are not fused (LLVM selects them for separately rounded a*b+c): the product is
// rounded to f16 first, like v_mad_f32 rounds its product to f32.
inline double rnd16(double x) { return f16_to_f32(f64_to_f16(x)); }
H3(v_mac_f16, rnd16(a * b) + c)
H3(v_mad_f16, rnd16(a * b) + c)
// v_madmk_f16: D = S0 * K + S1; v_madak_f16: D = S0 * S1 + K (K = the literal's low half).
void v_madmk_f16(Wave& w, const Inst& in) {
  H_FETCH(2, Ty::F16) double k = h2f(in.literal);
  VLOOP r[l] = f64_to_f16(rnd16(h2f(A[l]) * k) + h2f(B[l]));
  store32(w, in, ex, r, Ty::F16);
}
void v_madak_f16(Wave& w, const Inst& in) {
  H_FETCH(2, Ty::F16) double k = h2f(in.literal);
  VLOOP r[l] = f64_to_f16(rnd16(static_cast<double>(h2f(A[l])) * h2f(B[l])) + k);
  store32(w, in, ex, r, Ty::F16);
}
H1(v_sqrt_f16, std::sqrt(a))
H1(v_rcp_f16, 1.0f / a)
H1(v_rsq_f16, 1.0f / std::sqrt(a))
H1(v_log_f16, std::log2(a))
H1(v_exp_f16, std::exp2(a))
H1(v_floor_f16, std::floor(a))
H1(v_ceil_f16, std::ceil(a))
H1(v_trunc_f16, std::trunc(a))
H1(v_rndne_f16, std::nearbyint(a))
H1(v_fract_f16, std::isinf(a) ? std::nanf("") : a - std::floor(a))
H1(v_sin_f16, static_cast<float>(std::sin(a * 6.283185307179586)))
H1(v_cos_f16, static_cast<float>(std::cos(a * 6.283185307179586)))
// 16-bit add/sub: the VOP3 clamp bit saturates to [LO, HI] (EXACT: the result in 32 bits).
#define I2SAT(NAME, EXACT, LO, HI) void NAME(Wave& w, const Inst& in) { H_FETCH(2, Ty::B16) \
  VLOOP { uint32_t a = A[l] & 0xFFFF, b = B[l] & 0xFFFF; int32_t e = (EXACT); \
          r[l] = static_cast<uint32_t>(in.clamp ? std::clamp(e, LO, HI) : e) & 0xFFFF; } \
  store32(w, in, ex, r, in.clamp ? Ty::B16Sat : Ty::B16); }
I2SAT(v_add_u16, static_cast<int32_t>(a + b), 0, 0xFFFF)
I2SAT(v_sub_u16, static_cast<int32_t>(a) - static_cast<int32_t>(b), 0, 0xFFFF)
I2SAT(v_subrev_u16, static_cast<int32_t>(b) - static_cast<int32_t>(a), 0, 0xFFFF)
I2SAT(v_add_i16, int32_t{static_cast<int16_t>(a)} + static_cast<int16_t>(b), -32768, 32767)
I2SAT(v_sub_i16, int32_t{static_cast<int16_t>(a)} - static_cast<int16_t>(b), -32768, 32767)
I2(v_mul_lo_u16, a * b)
I2(v_lshlrev_b16, b << (a & 15))
I2(v_lshrrev_b16, b >> (a & 15))
I2(v_ashrrev_i16, static_cast<uint32_t>(s16(b) >> (a & 15)))
I2(v_max_u16, std::max(a, b))
I2(v_min_u16, std::min(a, b))
I2(v_max_i16, static_cast<uint32_t>(std::max(s16(a), s16(b))))
I2(v_min_i16, static_cast<uint32_t>(std::min(s16(a), s16(b))))

#define I3(NAME, EXPR) void NAME(Wave& w, const Inst& in) { H_FETCH(3, Ty::B16) \
  VLOOP { uint32_t a = A[l] & 0xFFFF, b = B[l] & 0xFFFF, c = C[l] & 0xFFFF; r[l] = (EXPR) & 0xFFFF; } store32(w, in, ex, r, Ty::B16); }
inline uint32_t u16s(int v) { return static_cast<uint32_t>(v) & 0xFFFF; }
I3(v_mad_u16, a * b + c)
I3(v_mad_i16, u16s(s16(a) * s16(b) + s16(c)))
I3(v_min3_u16, std::min({a, b, c}))
I3(v_max3_u16, std::max({a, b, c}))
I3(v_med3_u16, std::max(std::min(a, b), std::min(std::max(a, b), c)))
I3(v_min3_i16, u16s(std::min({s16(a), s16(b), s16(c)})))
I3(v_max3_i16, u16s(std::max({s16(a), s16(b), s16(c)})))
I3(v_med3_i16, u16s(std::max(std::min(s16(a), s16(b)), std::min(std::max(s16(a), s16(b)), s16(c)))))
H3(v_min3_f16, hmin(hmin(static_cast<float>(a), static_cast<float>(b)), static_cast<float>(c)))
H3(v_max3_f16, hmax(hmax(static_cast<float>(a), static_cast<float>(b)), static_cast<float>(c)))
void v_cvt_u16_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  VLOOP { float x = h2f(A[l]); r[l] = std::isnan(x) || x <= 0 ? 0 : x >= 65535.0f ? 65535u : static_cast<uint32_t>(x); }
  store32(w, in, ex, r, Ty::B16);
}
void v_cvt_i16_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  VLOOP {
    float x = h2f(A[l]);
    int v = std::isnan(x) ? 0 : x >= 32767.0f ? 32767 : x <= -32768.0f ? -32768 : static_cast<int>(x);
    r[l] = u16s(v);
  }
  store32(w, in, ex, r, Ty::B16);
}

void v_ldexp_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], t1[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
  VLOOP r[l] = f64_to_f16(std::ldexp(static_cast<double>(h2f(A[l])), static_cast<int16_t>(B[l])));
  store32(w, in, ex, r, Ty::F16);
}
void v_cvt_f16_f32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F32, t0);
  VLOOP r[l] = f32_to_f16(f32(A[l]));
  store32(w, in, ex, r, Ty::F16);
}
void v_cvt_f32_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  VLOOP r[l] = u32(h2f(A[l]));
  store32(w, in, ex, r, Ty::F32);
}
void v_cvt_f16_u16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::B16, t0);
  VLOOP r[l] = f32_to_f16(static_cast<float>(A[l] & 0xFFFF));
  store32(w, in, ex, r, Ty::F16);
}
void v_cvt_f16_i16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::B16, t0);
  VLOOP r[l] = f32_to_f16(static_cast<float>(s16(A[l])));
  store32(w, in, ex, r, Ty::F16);
}
// Round-toward-zero pack of two f32 into f16x2.
uint16_t f32_to_f16_rtz(float f) {
  uint16_t h = f32_to_f16(f);
  if (std::isnan(f) || std::isinf(f)) return h;
  if (std::fabs(h2f(h)) > std::fabs(f)) h = static_cast<uint16_t>(h - 1);  // one step toward zero
  return h;
}
void v_cvt_pkrtz_f16_f32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], t1[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F32, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::F32, t1);
  VLOOP r[l] = f32_to_f16_rtz(f32(A[l])) | (uint32_t{f32_to_f16_rtz(f32(B[l]))} << 16);
  store32(w, in, ex, r, Ty::B32);
}
void v_pack_b32_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], t1[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::F16, t1);
  VLOOP r[l] = (A[l] & 0xFFFF) | (B[l] << 16);
  store32(w, in, ex, r, Ty::B32);
}

// f16 clamp: [0, 1], NaN becomes 0.
inline uint32_t clamp01_f16(uint32_t h) {
  float x = h2f(h);
  return f32_to_f16(std::isnan(x) ? 0.0f : std::fmin(std::fmax(x, 0.0f), 1.0f));
}
// Saturating 16-bit add/sub for packed ops: exact 32-bit result, clamped when `c`.
inline uint32_t usat16(int32_t e, bool c) { return static_cast<uint32_t>(c ? std::clamp(e, 0, 0xFFFF) : e) & 0xFFFF; }
inline uint32_t ssat16(int32_t e, bool c) { return static_cast<uint32_t>(c ? std::clamp(e, -32768, 32767) : e) & 0xFFFF; }

// A 16-bit packed operand (VOP3P packed math, the two-element dot products): an inline float
// constant is its binary16 value in the low half with the high half zero, so that op_sel_hi:0
// (which LLVM's AMDGPU backend emits beside such constants) feeds it to both elements. LLVM
// (AMDGPUBaseInfo isInlinableLiteralV216) counts a v2f16/v2i16 value as inlinable when its high
// half is zero and its low half is an inline 16-bit constant. Integer constants stay 32-bit values.
const uint32_t* fetch_packed16(Wave& w, const Inst& in, unsigned i, uint32_t* t) {
  const unsigned code = in.src[i];
  if (code < 240 || code > 248) return fetch32(w, in, i, Ty::B32, t);
  const uint32_t v = f32_to_f16(f32(kInlineF32[code - 240]));
  VLOOP t[l] = v;
  return t;
}

// VOP3P: each half of the result takes its sources' halves per op_sel (low result) and
// op_sel_hi (high result); neg_lo/neg_hi negate per half.
inline uint32_t half(uint32_t v, bool hi) { return hi ? v >> 16 : v & 0xFFFF; }
// Kind of packed op for the clamp bit: f16 results clamp to [0, 1]; integer ops with a
// saturating form get the clamp bit passed to `f`; others refuse it.
enum class Pk : uint8_t { F16, IntSat, Int };
template <class F>
void pk16(Wave& w, const Inst& in, unsigned n, Pk kind, F f) {
  if (in.clamp && kind == Pk::Int) {
    wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size, "packed integer clamp: " + describe(in, w.pc - in.size));
    return;
  }
  bool fp = kind == Pk::F16;
  uint64_t ex = w.exec();
  uint32_t t[3][64], r[64];
  const uint32_t* S[3];
  Inst plain = in; plain.abs = plain.neg = 0; plain.opsel = 0;
  for (unsigned i = 0; i < n; ++i) S[i] = fetch_packed16(w, plain, i, t[i]);
  VLOOP {
    uint32_t lo[3], hi[3];
    for (unsigned i = 0; i < n; ++i) {
      lo[i] = half(S[i][l], (in.opsel >> i) & 1);
      hi[i] = half(S[i][l], (in.opsel_hi >> i) & 1);
      if (fp && ((in.neg >> i) & 1)) lo[i] ^= 0x8000;
      if (fp && ((in.neg_hi >> i) & 1)) hi[i] ^= 0x8000;
    }
    uint32_t rl = f(lo[0], lo[1], lo[2]) & 0xFFFF, rh = f(hi[0], hi[1], hi[2]) & 0xFFFF;
    if (fp && in.clamp) { rl = clamp01_f16(rl); rh = clamp01_f16(rh); }
    r[l] = rl | (rh << 16);
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  uint32_t* d = w.v[in.dst];
  VLOOP if ((ex >> l) & 1) d[l] = r[l];
}
void v_pk_add_f16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::F16, [](uint32_t a, uint32_t b, uint32_t) -> uint32_t { return f32_to_f16(h2f(a) + h2f(b)); }); }
void v_pk_mul_f16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::F16, [](uint32_t a, uint32_t b, uint32_t) -> uint32_t { return f32_to_f16(h2f(a) * h2f(b)); }); }
void v_pk_fma_f16(Wave& w, const Inst& in) {
  pk16(w, in, 3, Pk::F16, [](uint32_t a, uint32_t b, uint32_t c) -> uint32_t {
    return f64_to_f16(static_cast<double>(h2f(a)) * h2f(b) + h2f(c)); });
}
void v_pk_min_f16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::F16, [](uint32_t a, uint32_t b, uint32_t) -> uint32_t { return f32_to_f16(hmin(h2f(a), h2f(b))); }); }
void v_pk_max_f16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::F16, [](uint32_t a, uint32_t b, uint32_t) -> uint32_t { return f32_to_f16(hmax(h2f(a), h2f(b))); }); }
void v_pk_add_u16(Wave& w, const Inst& in) { bool c = in.clamp; pk16(w, in, 2, Pk::IntSat, [c](uint32_t a, uint32_t b, uint32_t) { return usat16(static_cast<int32_t>(a + b), c); }); }
void v_pk_sub_u16(Wave& w, const Inst& in) { bool c = in.clamp; pk16(w, in, 2, Pk::IntSat, [c](uint32_t a, uint32_t b, uint32_t) { return usat16(static_cast<int32_t>(a) - static_cast<int32_t>(b), c); }); }
void v_pk_mul_lo_u16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return a * b; }); }
void v_pk_lshlrev_b16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return b << (a & 15); }); }
void v_pk_ashrrev_i16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>(s16(b) >> (a & 15)); }); }
void v_pk_add_i16(Wave& w, const Inst& in) { bool c = in.clamp; pk16(w, in, 2, Pk::IntSat, [c](uint32_t a, uint32_t b, uint32_t) { return ssat16(int32_t{s16(a)} + s16(b), c); }); }
void v_pk_sub_i16(Wave& w, const Inst& in) { bool c = in.clamp; pk16(w, in, 2, Pk::IntSat, [c](uint32_t a, uint32_t b, uint32_t) { return ssat16(int32_t{s16(a)} - s16(b), c); }); }
void v_pk_max_i16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>(std::max(s16(a), s16(b))); }); }
void v_pk_min_i16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>(std::min(s16(a), s16(b))); }); }
void v_pk_max_u16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return std::max(a, b); }); }
void v_pk_min_u16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return std::min(a, b); }); }
void v_pk_mad_u16(Wave& w, const Inst& in) { pk16(w, in, 3, Pk::Int, [](uint32_t a, uint32_t b, uint32_t c) { return a * b + c; }); }
void v_pk_mad_i16(Wave& w, const Inst& in) { pk16(w, in, 3, Pk::Int, [](uint32_t a, uint32_t b, uint32_t c) { return static_cast<uint32_t>(s16(a) * s16(b) + s16(c)); }); }
void v_pk_lshrrev_b16(Wave& w, const Inst& in) { pk16(w, in, 2, Pk::Int, [](uint32_t a, uint32_t b, uint32_t) { return b >> (a & 15); }); }

// gfx90a packed f32: sources are VGPR pairs; op_sel picks the element for the low result,
// op_sel_hi for the high result.
template <class F>
void pk32(Wave& w, const Inst& in, unsigned n, F f) {
  uint64_t ex = w.exec();
  uint64_t S[3][64], R[64];
  Inst plain = in; plain.abs = plain.neg = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (in.src[i] >= 128 && in.src[i] < 256) {  // constants are f32 values, one per half
      uint64_t c = sread32(w, in, in.src[i]);
      VLOOP S[i][l] = c | (c << 32);
    } else {
      fetch64(w, plain, i, false, S[i]);
    }
  }
  VLOOP {
    float lo[3] = {}, hi[3] = {};
    for (unsigned i = 0; i < n; ++i) {
      uint32_t e0 = static_cast<uint32_t>(S[i][l]), e1 = static_cast<uint32_t>(S[i][l] >> 32);
      uint32_t bl = ((in.opsel >> i) & 1) ? e1 : e0, bh = ((in.opsel_hi >> i) & 1) ? e1 : e0;
      if (!(w.mode & 0x10)) {  // f32 input denormals flushed per MODE (see valu.cpp)
        if ((bl & 0x7F800000u) == 0) bl &= 0x80000000u;
        if ((bh & 0x7F800000u) == 0) bh &= 0x80000000u;
      }
      lo[i] = f32(bl);
      hi[i] = f32(bh);
      if ((in.neg >> i) & 1) lo[i] = -lo[i];
      if ((in.neg_hi >> i) & 1) hi[i] = -hi[i];
    }
    float fl = f(lo[0], lo[1], lo[2]), fh = f(hi[0], hi[1], hi[2]);
    if (in.clamp) {  // as for f32 VOP3 clamp: NaN becomes 0 under MODE.DX10_CLAMP
      bool dx10 = (w.mode >> 8) & 1;
      fl = std::isnan(fl) ? (dx10 ? 0.0f : fl) : std::fmin(std::fmax(fl, 0.0f), 1.0f);
      fh = std::isnan(fh) ? (dx10 ? 0.0f : fh) : std::fmin(std::fmax(fh, 0.0f), 1.0f);
    }
    uint32_t rl = u32(fl), rh = u32(fh);
    if (!(w.mode & 0x20)) {
      if ((rl & 0x7F800000u) == 0) rl &= 0x80000000u;
      if ((rh & 0x7F800000u) == 0) rh &= 0x80000000u;
    }
    R[l] = rl | (uint64_t{rh} << 32);
  }
  Inst out = in; out.clamp = 0;
  store64(w, out, ex, R, false);
}
void v_pk_fma_f32(Wave& w, const Inst& in) { pk32(w, in, 3, [](float a, float b, float c) { return std::fma(a, b, c); }); }
void v_pk_mul_f32(Wave& w, const Inst& in) { pk32(w, in, 2, [](float a, float b, float) { return a * b; }); }
void v_pk_add_f32(Wave& w, const Inst& in) { pk32(w, in, 2, [](float a, float b, float) { return a + b; }); }
// v_pk_mov_b32: D.lo = S0[op_sel[0]], D.hi = S1[op_sel[1]] (elements of the 64-bit sources).
void v_pk_mov_b32(Wave& w, const Inst& in) {
  uint64_t ex = w.exec(), S0[64], S1[64], R[64];
  Inst plain = in; plain.abs = plain.neg = 0;
  fetch64(w, plain, 0, false, S0);
  fetch64(w, plain, 1, false, S1);
  VLOOP {
    uint32_t lo = static_cast<uint32_t>(S0[l] >> ((in.opsel & 1) ? 32 : 0));
    uint32_t hi = static_cast<uint32_t>(S1[l] >> ((in.opsel & 2) ? 32 : 0));
    R[l] = lo | (uint64_t{hi} << 32);
  }
  store64(w, plain, ex, R, false);
}

// v_div_fixup_f16: as for f32 (vop64.cpp), the correctly rounded quotient S2/S1.
void v_div_fixup_f16(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t1[64], t2[64], r[64];
  const uint32_t* B = fetch32(w, in, 1, Ty::F16, t1);
  const uint32_t* C = fetch32(w, in, 2, Ty::F16, t2);
  VLOOP r[l] = f64_to_f16(static_cast<double>(h2f(C[l])) / h2f(B[l]));
  store32(w, in, ex, r, Ty::F16);
}

// v_fma_mix*: each source is f32, or f16 when op_sel_hi[i] is set (op_sel[i] picks its half);
// neg_lo negates and neg_hi takes the absolute value. Out: 0 f32, 1 f16 low half, 2 f16 high.
template <int Out>
void fma_mix(Wave& w, const Inst& in) {
  uint64_t ex = w.exec();
  Inst plain = in; plain.abs = plain.neg = 0; plain.opsel = 0;
  uint32_t t[3][64];
  const uint32_t* S[3];
  for (unsigned i = 0; i < 3; ++i) S[i] = fetch32(w, plain, i, Ty::B32, t[i]);
  uint32_t r[64];
  VLOOP {
    float v[3];
    for (unsigned i = 0; i < 3; ++i) {
      uint32_t x = S[i][l];
      float d = ((in.opsel_hi >> i) & 1) ? h2f(half(x, (in.opsel >> i) & 1)) : f32(x);
      if ((in.neg_hi >> i) & 1) d = std::fabs(d);
      if ((in.neg >> i) & 1) d = -d;
      v[i] = d;
    }
    if constexpr (Out == 0) r[l] = u32(std::fma(v[0], v[1], v[2]));
    else r[l] = f64_to_f16(std::fma(static_cast<double>(v[0]), static_cast<double>(v[1]), static_cast<double>(v[2])));
  }
  if constexpr (Out == 0) {
    Inst o = in; o.omod = 0;
    store32(w, o, ex, r, Ty::F32);
  } else {
    if (in.clamp) VLOOP { float x = h2f(r[l]); r[l] = f32_to_f16(std::isnan(x) ? 0.0f : std::fmin(std::fmax(x, 0.0f), 1.0f)); }
    uint32_t* d = w.v[in.dst];
    VLOOP if ((ex >> l) & 1) d[l] = Out == 1 ? (d[l] & 0xFFFF0000u) | r[l] : (d[l] & 0xFFFFu) | (r[l] << 16);
    w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  }
}

// Dot products (VOP3P v_dot*, VOP2 v_dot*c accumulating into vdst): the sum of products of
// packed elements plus S2. For the two-element (16-bit) forms, op_sel and op_sel_hi pick the half
// of S0 and S1 that feeds each element, as for packed math (AMD MI200 ISA, VOP3P: OP_SEL for the
// low element, OP_SEL_HI for the high one; compilers use op_sel_hi:0 to feed one half to both);
// the 8- and 4-bit forms take their operands as they are (only the default is accepted there).
template <class F>
void dot(Wave& w, const Inst& in, bool fp, F f, bool halves = false) {
  const bool vop3 = in.flags & kVop3;
  if (vop3 && ((!halves && (in.opsel != 0 || (in.opsel_hi & 3) != 3)) || (!fp && (in.neg | in.neg_hi)))) {
    wave_fail(w, Outcome::Kind::Unimplemented, w.pc - in.size, "dot with op_sel/neg: " + describe(in, w.pc - in.size));
    return;
  }
  uint64_t ex = valu_active(w, in);
  Inst plain = in; plain.abs = plain.neg = 0; plain.opsel = 0;
  uint32_t t0[64], t1[64], t2[64], r[64];
  const uint32_t* A = halves ? fetch_packed16(w, plain, 0, t0) : fetch32(w, plain, 0, Ty::B32, t0);
  const uint32_t* B = halves ? fetch_packed16(w, plain, 1, t1) : fetch32(w, plain, 1, Ty::B32, t1);
  const uint32_t* C = fetch32(w, plain, 2, fp ? Ty::F32 : Ty::B32, t2);
  if (vop3 && halves && (in.opsel != 0 || (in.opsel_hi & 3) != 3)) {
    uint32_t s0[64], s1[64];
    auto pick = [](uint32_t v, bool lo_hi, bool hi_hi) {
      uint32_t lo = lo_hi ? v >> 16 : v & 0xFFFFu, hi = hi_hi ? v >> 16 : v & 0xFFFFu;
      return lo | (hi << 16);
    };
    VLOOP {
      s0[l] = pick(A[l], in.opsel & 1, in.opsel_hi & 1);
      s1[l] = pick(B[l], in.opsel & 2, in.opsel_hi & 2);
    }
    VLOOP r[l] = f(s0[l], s1[l], C[l], in);
  } else {
    VLOOP r[l] = f(A[l], B[l], C[l], in);
  }
  store32(w, in, ex, r, fp ? Ty::F32 : Ty::B32Sat);  // integer clamp applied by dot_int
}
template <int Bits, bool Signed>
uint32_t dot_int(uint32_t a, uint32_t b, uint32_t c, const Inst& in) {
  int64_t sum = Signed ? static_cast<int64_t>(static_cast<int32_t>(c)) : static_cast<int64_t>(c);
  for (int i = 0; i < 32 / Bits; ++i) {
    uint32_t ea = (a >> (i * Bits)) & ((1u << Bits) - 1), eb = (b >> (i * Bits)) & ((1u << Bits) - 1);
    int64_t x = ea, y = eb;
    if (Signed) { x = static_cast<int32_t>(ea << (32 - Bits)) >> (32 - Bits); y = static_cast<int32_t>(eb << (32 - Bits)) >> (32 - Bits); }
    sum += x * y;
  }
  if (in.clamp) sum = Signed ? std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX) : std::clamp<int64_t>(sum, 0, UINT32_MAX);
  return static_cast<uint32_t>(sum);
}
uint32_t dot2_f16(uint32_t a, uint32_t b, uint32_t c, const Inst& in) {
  float a0 = h2f(a), a1 = h2f(a >> 16), b0 = h2f(b), b1 = h2f(b >> 16);
  if (in.neg & 1) a0 = -a0;
  if (in.neg_hi & 1) a1 = -a1;
  if (in.neg & 2) b0 = -b0;
  if (in.neg_hi & 2) b1 = -b1;
  float cc = f32(c);
  if (in.neg & 4) cc = -cc;
  return u32(static_cast<float>(static_cast<double>(a0) * b0 + static_cast<double>(a1) * b1 + cc));
}
void v_dot2_f32_f16(Wave& w, const Inst& in) { dot(w, in, true, dot2_f16, true); }
void v_dot2_i32_i16(Wave& w, const Inst& in) { dot(w, in, false, dot_int<16, true>, true); }
void v_dot2_u32_u16(Wave& w, const Inst& in) { dot(w, in, false, dot_int<16, false>, true); }
void v_dot4_i32_i8(Wave& w, const Inst& in) { dot(w, in, false, dot_int<8, true>); }
void v_dot4_u32_u8(Wave& w, const Inst& in) { dot(w, in, false, dot_int<8, false>); }
void v_dot8_i32_i4(Wave& w, const Inst& in) { dot(w, in, false, dot_int<4, true>); }
void v_dot8_u32_u4(Wave& w, const Inst& in) { dot(w, in, false, dot_int<4, false>); }

const HandlerEntry kVop16[] = {
    {"v_dot2_f32_f16", v_dot2_f32_f16}, {"v_dot2c_f32_f16", v_dot2_f32_f16},
    {"v_dot2_i32_i16", v_dot2_i32_i16}, {"v_dot2c_i32_i16", v_dot2_i32_i16},
    {"v_dot2_u32_u16", v_dot2_u32_u16}, {"v_dot4_i32_i8", v_dot4_i32_i8},
    {"v_dot4c_i32_i8", v_dot4_i32_i8}, {"v_dot4_u32_u8", v_dot4_u32_u8},
    {"v_dot8_i32_i4", v_dot8_i32_i4}, {"v_dot8c_i32_i4", v_dot8_i32_i4},
    {"v_dot8_u32_u4", v_dot8_u32_u4},
    {"v_fma_mix_f32", fma_mix<0>}, {"v_fma_mixlo_f16", fma_mix<1>}, {"v_fma_mixhi_f16", fma_mix<2>},
#define E(n) {#n, n},
    E(v_add_f16) E(v_sub_f16) E(v_subrev_f16) E(v_mul_f16) E(v_min_f16) E(v_max_f16) E(v_fma_f16)
    E(v_mac_f16) E(v_mad_f16) E(v_madmk_f16) E(v_madak_f16) E(v_sqrt_f16) E(v_rcp_f16) E(v_rsq_f16) E(v_log_f16) E(v_exp_f16)
    E(v_floor_f16) E(v_ceil_f16) E(v_trunc_f16) E(v_rndne_f16) E(v_fract_f16) E(v_sin_f16)
    E(v_cos_f16) E(v_add_u16) E(v_sub_u16) E(v_subrev_u16) E(v_add_i16) E(v_sub_i16) E(v_mul_lo_u16) E(v_lshlrev_b16)
    E(v_lshrrev_b16) E(v_ashrrev_i16) E(v_max_u16) E(v_min_u16) E(v_max_i16) E(v_min_i16)
    E(v_ldexp_f16) E(v_cvt_f16_f32) E(v_cvt_f32_f16) E(v_cvt_f16_u16) E(v_cvt_f16_i16)
    E(v_cvt_pkrtz_f16_f32) E(v_pack_b32_f16) E(v_pk_add_f16) E(v_pk_mul_f16) E(v_pk_fma_f16)
    E(v_pk_min_f16) E(v_pk_max_f16) E(v_pk_add_u16) E(v_pk_sub_u16) E(v_pk_mul_lo_u16)
    E(v_pk_lshlrev_b16) E(v_pk_lshrrev_b16) E(v_pk_fma_f32) E(v_pk_mul_f32) E(v_pk_add_f32)
    E(v_pk_mov_b32) E(v_div_fixup_f16) E(v_mad_u16) E(v_mad_i16) E(v_min3_u16) E(v_max3_u16)
    E(v_med3_u16) E(v_min3_i16) E(v_max3_i16) E(v_med3_i16) E(v_min3_f16) E(v_max3_f16)
    E(v_cvt_u16_f16) E(v_cvt_i16_f16) E(v_pk_ashrrev_i16) E(v_pk_add_i16) E(v_pk_sub_i16)
    E(v_pk_max_i16) E(v_pk_min_i16) E(v_pk_max_u16) E(v_pk_min_u16) E(v_pk_mad_u16) E(v_pk_mad_i16)
#undef E
};

}  // namespace

HandlerList vop16_handlers() { return {std::begin(kVop16), std::end(kVop16)}; }

}  // namespace emu::shader
