// SPDX-License-Identifier: MIT
// VALU execution of 32-bit VOP1/VOP2 operations (also reached through their VOP3 forms).
#include <algorithm>
#include <cfenv>

#include <vector>

#include "emu/shader/fast32.h"
#include "emu/shader/vmath.h"

namespace emu::shader {

namespace {

#define FETCH1(T) uint64_t ex = valu_active(w, in); uint32_t t0[64], r[64]; \
  const uint32_t* A = fetch32(w, in, 0, T, t0);
#define FETCH2(T) FETCH1(T) uint32_t t1[64]; const uint32_t* B = fetch32(w, in, 1, T, t1);
#define FETCH3(T) FETCH2(T) uint32_t t2[64]; const uint32_t* C = fetch32(w, in, 2, T, t2);

// Each op's lane expression runs once: straight into the destination row when direct32 allows,
// else into r for store32.
#define BODY(T, DECL, EXPR, CONV) \
  if (uint32_t* d = direct32(w, in, ex, T)) { VLOOP_INPLACE { DECL; d[l] = CONV(EXPR); } return; } \
  VLOOP { DECL; r[l] = CONV(EXPR); } store32(w, in, ex, r, T);
#define ASIS(x) (x)

// Every op below also gets handlers specialised per operand form (fast32.h), registered here as
// it is defined: K::f is its lane expression.
// Never destroyed (as the handler name lists): an engine thread may still be building its opcode
// table from it while the process exits.
std::vector<FastFamily>& fast_registry() {
  static auto& v = *new std::vector<FastFamily>;
  return v;
}
#define FAST(NAME, N, FIN, FOUT, DECL, EXPR, CONV) \
  struct NAME##_k { static uint32_t f(uint32_t x, uint32_t y, uint32_t z) { \
    (void)x; (void)y; (void)z; DECL; return CONV(EXPR); } }; \
  const bool NAME##_fast = (fast_registry().push_back(fast_family<NAME##_k, N, FIN, FOUT>(#NAME)), true);

#define F1(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH1(Ty::F32) \
  BODY(Ty::F32, float a = f32(A[l]), EXPR, u32) } \
  FAST(NAME, 1, true, true, float a = f32(x), EXPR, u32)
#define F2(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH2(Ty::F32) \
  BODY(Ty::F32, float a = f32(A[l]); float b = f32(B[l]), EXPR, u32) } \
  FAST(NAME, 2, true, true, float a = f32(x); float b = f32(y), EXPR, u32)
#define F3(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH3(Ty::F32) \
  BODY(Ty::F32, float a = f32(A[l]); float b = f32(B[l]); float c = f32(C[l]), EXPR, u32) } \
  FAST(NAME, 3, true, true, float a = f32(x); float b = f32(y); float c = f32(z), EXPR, u32)
#define U1(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH1(Ty::B32) \
  BODY(Ty::B32, uint32_t a = A[l], EXPR, ASIS) } \
  FAST(NAME, 1, false, false, uint32_t a = x, EXPR, ASIS)
#define U2(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH2(Ty::B32) \
  BODY(Ty::B32, uint32_t a = A[l]; uint32_t b = B[l], EXPR, ASIS) } \
  FAST(NAME, 2, false, false, uint32_t a = x; uint32_t b = y, EXPR, ASIS)
#define U3(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH3(Ty::B32) \
  BODY(Ty::B32, uint32_t a = A[l]; uint32_t b = B[l]; uint32_t c = C[l], EXPR, ASIS) } \
  FAST(NAME, 3, false, false, uint32_t a = x; uint32_t b = y; uint32_t c = z, EXPR, ASIS)
// Float result from integer operand.
#define FU1(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH1(Ty::B32) \
  BODY(Ty::F32, uint32_t a = A[l], EXPR, u32) } \
  FAST(NAME, 1, false, true, uint32_t a = x, EXPR, u32)
// Integer result from float operand.
#define UF1(NAME, EXPR) void NAME(Wave& w, const Inst& in) { FETCH1(Ty::F32) \
  BODY(Ty::B32, float a = f32(A[l]), EXPR, ASIS) } \
  FAST(NAME, 1, true, false, float a = f32(x), EXPR, ASIS)

inline int32_t i24(uint32_t x) { return static_cast<int32_t>(x << 8) >> 8; }
inline uint32_t sx(int32_t x) { return static_cast<uint32_t>(x); }

// Float -> int conversions saturate; NaN gives 0 (ISA: V_CVT_I32_F32). Selects, not branches,
// so that the lane loops vectorise.
inline int32_t cvt_i32(double x) {
  const double c = x != x ? 0.0 : x < -2147483648.0 ? -2147483648.0 : x > 2147483647.0 ? 2147483647.0 : x;
  return static_cast<int32_t>(c);
}
inline uint32_t cvt_u32(double x) {
  const double c = !(x > 0) ? 0.0 : x > 4294967295.0 ? 4294967295.0 : x;
  return static_cast<uint32_t>(c);
}
// The same from f32 in f32 and 32-bit integer arithmetic only (vectorises without AVX-512).
inline int32_t cvt_i32f(float a) {
  const float c = a != a ? 0.0f : a < -2147483648.0f ? -2147483648.0f : a < 2147483648.0f ? a : 0.0f;
  return a >= 2147483648.0f ? INT32_MAX : static_cast<int32_t>(c);
}
inline uint32_t cvt_u32f(float a) {
  const float c = a > 0.0f ? a : 0.0f;  // NaN and negatives: 0
  const bool big = c >= 2147483648.0f;
  const float d = big ? c - 2147483648.0f : c;  // exact: c and 2^31 are within a factor of two
  const uint32_t r = static_cast<uint32_t>(static_cast<int32_t>(d < 2147483648.0f ? d : 0.0f)) + (big ? 0x80000000u : 0u);
  return c >= 4294967296.0f ? UINT32_MAX : r;
}
// IEEE-mode min/max: a quiet result from one NaN operand is the other operand.
inline float fmin_ieee(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : (a < b || (a == b && std::signbit(a))) ? a : b; }
inline float fmax_ieee(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : (a > b || (a == b && !std::signbit(a))) ? a : b; }
inline float fract_f32(float a) {
  if (std::isinf(a)) return std::nanf("");
  float f = a - std::floor(a);
  return std::fmin(f, 0x1.fffffep-1f);
}
inline uint32_t frexp_exp(float a) { int e = 0; if (std::isfinite(a)) std::frexp(a, &e); return sx(e); }
inline float frexp_mant(float a) { int e; return std::isfinite(a) ? std::frexp(a, &e) : a; }

F2(v_add_f32, a + b)
F2(v_sub_f32, a - b)
F2(v_subrev_f32, b - a)
F2(v_mul_f32, a * b)
F2(v_mul_legacy_f32, (a == 0.0f || b == 0.0f) ? 0.0f : a * b)
F2(v_min_f32, fmin_ieee(a, b))
F2(v_max_f32, fmax_ieee(a, b))
F3(v_mac_f32, a * b + c)
F3(v_fmac_f32, std::fma(a, b, c))
F3(v_fma_f32, std::fma(a, b, c))
F3(v_mad_f32, a * b + c)
F3(v_mad_legacy_f32, ((a == 0.0f || b == 0.0f) ? 0.0f : a * b) + c)
F3(v_min3_f32, fmin_ieee(fmin_ieee(a, b), c))
F3(v_max3_f32, fmax_ieee(fmax_ieee(a, b), c))
F3(v_med3_f32, (std::isnan(a) || std::isnan(b) || std::isnan(c)) ? fmin_ieee(fmin_ieee(a, b), c)
               : fmax_ieee(fmin_ieee(a, b), fmin_ieee(fmax_ieee(a, b), c)))
F1(v_fract_f32, fract_f32(a))
F1(v_trunc_f32, std::trunc(a))
F1(v_ceil_f32, std::ceil(a))
F1(v_rndne_f32, std::nearbyint(a))
F1(v_floor_f32, std::floor(a))
// v_exp_f32 / v_log_f32 (vmath.h): four lanes at a time where the build has AVX2.
#if defined(__AVX2__)
#define TRANSCENDENTAL(NAME, F, FV) void NAME(Wave& w, const Inst& in) { FETCH1(Ty::F32) \
  uint32_t* d = direct32(w, in, ex, Ty::F32); \
  uint32_t* out = d ? d : r; \
  for (unsigned l = 0; l < 64; l += 4) \
    _mm_storeu_ps(reinterpret_cast<float*>(out + l), FV(_mm_loadu_ps(reinterpret_cast<const float*>(A + l)))); \
  if (!d) store32(w, in, ex, r, Ty::F32); }
#else
#define TRANSCENDENTAL(NAME, F, FV) F1(NAME, F(a))
#endif
TRANSCENDENTAL(v_exp_f32, exp2_f32, exp2_f32x4)
TRANSCENDENTAL(v_log_f32, log2_f32, log2_f32x4)
F1(v_rcp_f32, 1.0f / a)
F1(v_rcp_iflag_f32, 1.0f / a)
F1(v_rsq_f32, static_cast<float>(1.0 / std::sqrt(static_cast<double>(a))))
F1(v_sqrt_f32, std::sqrt(a))
// Sine and cosine take their argument in revolutions (x * 2*pi radians).
F1(v_sin_f32, static_cast<float>(std::sin(static_cast<double>(a) * 6.283185307179586)))
F1(v_cos_f32, static_cast<float>(std::cos(static_cast<double>(a) * 6.283185307179586)))
F1(v_frexp_mant_f32, frexp_mant(a))
UF1(v_frexp_exp_i32_f32, frexp_exp(a))
UF1(v_cvt_i32_f32, sx(cvt_i32f(a)))
UF1(v_cvt_u32_f32, cvt_u32f(a))
UF1(v_cvt_rpi_i32_f32, sx(cvt_i32(std::floor(static_cast<double>(a) + 0.5))))
UF1(v_cvt_flr_i32_f32, sx(cvt_i32(std::floor(a))))
FU1(v_cvt_f32_i32, static_cast<float>(static_cast<int32_t>(a)))
FU1(v_cvt_f32_u32, static_cast<float>(a))
FU1(v_cvt_f32_ubyte0, static_cast<float>(a & 0xFF))
FU1(v_cvt_f32_ubyte1, static_cast<float>((a >> 8) & 0xFF))
FU1(v_cvt_f32_ubyte2, static_cast<float>((a >> 16) & 0xFF))
FU1(v_cvt_f32_ubyte3, static_cast<float>(a >> 24))
FU1(v_cvt_off_f32_i4, static_cast<float>((static_cast<int32_t>(a << 28) >> 28)) / 16.0f)

// a * 2^b: exact in double for any f32 a once b is clamped to +-300 (beyond that the f32
// result is 0 or infinity either way), so converting the product rounds once, as ldexpf does.
inline float ldexp_f32(float a, int32_t b) {
  const int32_t k = std::clamp(b, -300, 300);
  return static_cast<float>(static_cast<double>(a) * f64(static_cast<uint64_t>(k + 1023) << 52));
}
void v_ldexp_f32(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t t0[64], t1[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::F32, t0);
  const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
  BODY(Ty::F32, (void)0, ldexp_f32(f32(A[l]), static_cast<int32_t>(B[l])), u32)
}

// A move writes the destination row directly: a scalar is broadcast into it, a row copied.
void v_mov_b32(Wave& w, const Inst& in) {
  const uint64_t ex = valu_active(w, in);
  if (uint32_t* d = (in.flags & kDpp) ? nullptr : direct32(w, in, ex, Ty::B32)) {
    const uint32_t* A = fetch32(w, in, 0, Ty::B32, d);
    if (A != d) std::memcpy(d, A, 256);
    return;
  }
  uint32_t t0[64], r[64];
  const uint32_t* A = fetch32(w, in, 0, Ty::B32, t0);
  std::memcpy(r, A, 256);
  store32(w, in, ex, r, Ty::B32);
}
U1(v_not_b32, ~a)
U1(v_bfrev_b32, [&] { uint32_t d = 0; for (int i = 0; i < 32; ++i) d |= ((a >> i) & 1) << (31 - i); return d; }())
U1(v_ffbh_u32, a ? static_cast<uint32_t>(std::countl_zero(a)) : ~0u)
U1(v_ffbl_b32, a ? static_cast<uint32_t>(std::countr_zero(a)) : ~0u)
U1(v_ffbh_i32, (a == 0 || a == ~0u) ? ~0u : static_cast<uint32_t>(std::countl_zero(static_cast<int32_t>(a) < 0 ? ~a : a)))
U2(v_mul_i32_i24, sx(i24(a) * i24(b)))
U2(v_mul_hi_i32_i24, static_cast<uint32_t>(static_cast<uint64_t>(int64_t{i24(a)} * i24(b)) >> 32))
U2(v_mul_u32_u24, (a & 0xFFFFFF) * (b & 0xFFFFFF))
U2(v_mul_hi_u32_u24, static_cast<uint32_t>((uint64_t{a & 0xFFFFFF} * (b & 0xFFFFFF)) >> 32))
U2(v_min_i32, sx(std::min(static_cast<int32_t>(a), static_cast<int32_t>(b))))
U2(v_max_i32, sx(std::max(static_cast<int32_t>(a), static_cast<int32_t>(b))))
U2(v_min_u32, std::min(a, b))
U2(v_max_u32, std::max(a, b))
U2(v_lshrrev_b32, b >> (a & 31))
U2(v_ashrrev_i32, sx(static_cast<int32_t>(b) >> (a & 31)))
U2(v_lshlrev_b32, b << (a & 31))
U2(v_and_b32, a & b)
U2(v_or_b32, a | b)
U2(v_xor_b32, a ^ b)
U2(v_xnor_b32, ~(a ^ b))
// Add/sub whose VOP3 clamp bit saturates (to [LO, HI]) instead of wrapping; EXACT is the
// result in 64 bits. clang uses this for the saturating-arithmetic builtins.
#define U2SAT(NAME, EXACT, LO, HI) void NAME(Wave& w, const Inst& in) { FETCH2(Ty::B32) \
  if (!in.clamp) { BODY(Ty::B32, uint32_t a = A[l]; uint32_t b = B[l], EXACT, static_cast<uint32_t>) return; } \
  VLOOP { uint32_t a = A[l], b = B[l]; r[l] = static_cast<uint32_t>(std::clamp<int64_t>(EXACT, LO, HI)); } \
  store32(w, in, ex, r, Ty::B32Sat); } \
  FAST(NAME, 2, false, false, uint32_t a = x; uint32_t b = y, EXACT, static_cast<uint32_t>)
inline int64_t s64(uint32_t x) { return static_cast<int32_t>(x); }
U2SAT(v_add_u32, int64_t{a} + b, 0, UINT32_MAX)
U2SAT(v_sub_u32, int64_t{a} - b, 0, UINT32_MAX)
U2SAT(v_subrev_u32, int64_t{b} - a, 0, UINT32_MAX)
U2SAT(v_add_i32, s64(a) + s64(b), INT32_MIN, INT32_MAX)
U2SAT(v_sub_i32, s64(a) - s64(b), INT32_MIN, INT32_MAX)
U2(v_mul_lo_u32, a * b)
U2(v_mul_hi_u32, static_cast<uint32_t>((uint64_t{a} * b) >> 32))
U2(v_mul_hi_i32, static_cast<uint32_t>(static_cast<uint64_t>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)) >> 32))
U2(v_bcnt_u32_b32, static_cast<uint32_t>(std::popcount(a)) + b)
U2(v_bfm_b32, ((1u << (a & 31)) - 1) << (b & 31))
U3(v_mad_i32_i24, sx(i24(a) * i24(b)) + c)
U3(v_mad_u32_u24, (a & 0xFFFFFF) * (b & 0xFFFFFF) + c)
U3(v_bfe_u32, (c & 31) == 0 ? 0 : (a >> (b & 31)) & ((c & 31) == 32 ? ~0u : ((1u << (c & 31)) - 1)))
U3(v_bfe_i32, (c & 31) == 0 ? 0 : sx(((b & 31) + (c & 31) >= 32) ? static_cast<int32_t>(a) >> (b & 31)
                                    : static_cast<int32_t>(a << (32 - (b & 31) - (c & 31))) >> (32 - (c & 31))))
U3(v_bfi_b32, (a & b) | (~a & c))
U3(v_alignbit_b32, static_cast<uint32_t>(((uint64_t{a} << 32) | b) >> (c & 31)))
U3(v_alignbyte_b32, static_cast<uint32_t>(((uint64_t{a} << 32) | b) >> (8 * (c & 3))))
U3(v_min3_i32, sx(std::min({static_cast<int32_t>(a), static_cast<int32_t>(b), static_cast<int32_t>(c)})))
U3(v_max3_i32, sx(std::max({static_cast<int32_t>(a), static_cast<int32_t>(b), static_cast<int32_t>(c)})))
U3(v_min3_u32, std::min({a, b, c}))
U3(v_max3_u32, std::max({a, b, c}))
U3(v_med3_i32, sx(std::max(std::min(static_cast<int32_t>(a), static_cast<int32_t>(b)),
                          std::min(std::max(static_cast<int32_t>(a), static_cast<int32_t>(b)), static_cast<int32_t>(c)))))
U3(v_med3_u32, std::max(std::min(a, b), std::min(std::max(a, b), c)))
U3(v_lshl_add_u32, (a << (b & 31)) + c)
U3(v_add_lshl_u32, (a + b) << (c & 31))
U3(v_add3_u32, a + b + c)
U3(v_lshl_or_b32, (a << (b & 31)) | c)
U3(v_and_or_b32, (a & b) | c)
U3(v_or3_b32, a | b | c)
U3(v_xad_u32, (a ^ b) + c)
U3(v_mad_u32_u16, (a & 0xFFFF) * (b & 0xFFFF) + c)
U3(v_mad_i32_i16, sx(int32_t{static_cast<int16_t>(a)} * static_cast<int16_t>(b)) + c)
U3(v_sad_u32, (a > b ? a - b : b - a) + c)
// v_perm_b32: byte selectors from c pick from {a,b} (b is bytes 0..3) or constants.
inline uint32_t perm_byte(uint64_t ab, uint32_t sel) {
  sel &= 0xFF;
  if (sel <= 7) return (ab >> (8 * sel)) & 0xFF;
  if (sel <= 11) return ((ab >> (15 + 16 * (sel - 8))) & 1) ? 0xFF : 0;  // sign of bytes 1,3,5,7
  return sel == 12 ? 0 : 0xFF;
}
U3(v_perm_b32, perm_byte((uint64_t{a} << 32) | b, c) | perm_byte((uint64_t{a} << 32) | b, c >> 8) << 8 |
               perm_byte((uint64_t{a} << 32) | b, c >> 16) << 16 | perm_byte((uint64_t{a} << 32) | b, c >> 24) << 24)

// v_madmk: D = S0 * K + S1; v_madak: D = S0 * S1 + K (K = literal).
void v_madmk_f32(Wave& w, const Inst& in) {
  FETCH2(Ty::F32) float k = f32(in.literal);
  VLOOP r[l] = u32(f32(A[l]) * k + f32(B[l]));
  store32(w, in, ex, r, Ty::F32);
}
void v_madak_f32(Wave& w, const Inst& in) {
  FETCH2(Ty::F32) float k = f32(in.literal);
  VLOOP r[l] = u32(f32(A[l]) * f32(B[l]) + k);
  store32(w, in, ex, r, Ty::F32);
}
// gfx942's fused forms: v_fmamk = fma(S0, K, S1), v_fmaak = fma(S0, S1, K).
void v_fmamk_f32(Wave& w, const Inst& in) {
  FETCH2(Ty::F32) float k = f32(in.literal);
  VLOOP r[l] = u32(std::fma(f32(A[l]), k, f32(B[l])));
  store32(w, in, ex, r, Ty::F32);
}
void v_fmaak_f32(Wave& w, const Inst& in) {
  FETCH2(Ty::F32) float k = f32(in.literal);
  VLOOP r[l] = u32(std::fma(f32(A[l]), f32(B[l]), k));
  store32(w, in, ex, r, Ty::F32);
}

// Carry ops: carry-out to sdst (VCC for VOP2), carry-in from VCC or the VOP3 src2 pair. With
// VOP3 clamp, lanes that carried (borrowed) get UINT32_MAX (0) instead of the wrapped sum.
enum class Carry { Add, Sub, SubRev, AddC, SubB, SubBRev };

// One lane: the result and whether it carried (borrowed); ci is the carry-in as 0 or ~0.
template <Carry K>
inline uint32_t carry_lane(uint32_t a, uint32_t b, uint32_t ci, uint32_t& co) {
  switch (K) {
    case Carry::Add: { const uint32_t r = a + b; co = r < a; return r; }
    case Carry::Sub: co = b > a; return a - b;
    case Carry::SubRev: co = a > b; return b - a;
    case Carry::AddC: { const uint32_t t = a + b, r = t - ci; co = (t < a) | (r < t); return r; }
    case Carry::SubB: { const uint32_t bb = b - ci; co = (bb > a) | (bb < b); return a - bb; }  // borrow: B + ci > A
    default: { const uint32_t aa = a - ci; co = (aa > b) | (aa < a); return b - aa; }            // borrow: A + ci > B
  }
}

#if defined(__AVX2__)
// Lane-mask bits as 8-lane vectors: the bits of m, broadcast once per 32 lanes, moved by a
// variable shift so that lane l's bit is the sign of its element (what blendv and movemask read).
struct MaskBits {
  __m256i lo, hi;
  explicit MaskBits(uint64_t m)
      : lo(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(m)))),
        hi(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(m >> 32)))) {}
  // Group g (lanes 8g .. 8g+7): the lanes' bits at bit 31.
  __m256i sign(unsigned g) const {
    const int b = 31 - 8 * static_cast<int>(g & 3);
    return _mm256_sllv_epi32(g < 4 ? lo : hi, _mm256_setr_epi32(b, b - 1, b - 2, b - 3, b - 4, b - 5, b - 6, b - 7));
  }
  __m256i all(unsigned g) const { return _mm256_srai_epi32(sign(g), 31); }  // 0 / ~0 per lane
};

// The same for 8 lanes; ci is the carry-in as 0 / ~0. Returns where there is NO carry (borrow) as
// 0 / ~0 (one operation fewer than the carries themselves: movemask and invert).
template <Carry K>
inline __m256i carry8(__m256i a, __m256i b, __m256i ci, __m256i& nc) {
  auto ge = [](__m256i x, __m256i y) { return _mm256_cmpeq_epi32(_mm256_max_epu32(x, y), x); };  // unsigned x >= y
  const __m256i ones = _mm256_set1_epi32(-1);
  switch (K) {
    case Carry::Add: { const __m256i r = _mm256_add_epi32(a, b); nc = ge(r, a); return r; }
    case Carry::Sub: nc = ge(a, b); return _mm256_sub_epi32(a, b);
    case Carry::SubRev: nc = ge(b, a); return _mm256_sub_epi32(b, a);
    case Carry::AddC: {  // a + b wrapped, or the carry-in wrapped a + b = 0xffffffff
      const __m256i t = _mm256_add_epi32(a, b);
      nc = _mm256_andnot_si256(_mm256_and_si256(_mm256_cmpeq_epi32(t, ones), ci), ge(t, a));
      return _mm256_sub_epi32(t, ci);
    }
    case Carry::SubB: {  // B + ci > A, or B + ci wrapped (B = 0xffffffff with the carry-in)
      const __m256i bb = _mm256_sub_epi32(b, ci);
      nc = _mm256_andnot_si256(_mm256_and_si256(_mm256_cmpeq_epi32(b, ones), ci), ge(a, bb));
      return _mm256_sub_epi32(a, bb);
    }
    default: {  // SubBRev: A + ci > B, or A + ci wrapped
      const __m256i aa = _mm256_sub_epi32(a, ci);
      nc = _mm256_andnot_si256(_mm256_and_si256(_mm256_cmpeq_epi32(a, ones), ci), ge(b, aa));
      return _mm256_sub_epi32(b, aa);
    }
  }
}
#endif

template <Carry K>
void carry_op(Wave& w, const Inst& in) {
  constexpr bool with_in = K == Carry::AddC || K == Carry::SubB || K == Carry::SubBRev;
  const uint64_t cin = with_in ? mask_source(w, in) : 0;  // read before any result is written
  FETCH2(Ty::B32)
  uint32_t* d = direct32(w, in, ex, Ty::B32);  // never with clamp
  uint32_t* out = d ? d : r;
  uint64_t co = 0;
#if defined(__AVX2__)
  const MaskBits bits(cin);
  for (unsigned g = 0; g < 8; ++g) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(A + 8 * g));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(B + 8 * g));
    const __m256i ci = with_in ? bits.all(g) : _mm256_setzero_si256();
    __m256i nc;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * g), carry8<K>(a, b, ci, nc));
    co |= uint64_t{~static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(nc))) & 0xFFu} << (8 * g);
  }
#else
  uint32_t ci[64], c[64];
  mask_lanes(cin, ci);
  VLOOP_INPLACE out[l] = carry_lane<K>(A[l], B[l], ci[l], c[l]);
  co = lanes_mask(c);
#endif
  if (!d) {
    if (in.clamp) {
      constexpr uint32_t sat = K == Carry::Add || K == Carry::AddC ? UINT32_MAX : 0;
      uint32_t c[64];
      mask_lanes(co, c);
      VLOOP r[l] = c[l] ? sat : r[l];
    }
    store32(w, in, ex, r, in.clamp ? Ty::B32Sat : Ty::B32);
  }
  store_mask(w, in, co & ex);
}
void v_add_co_u32(Wave& w, const Inst& in) { carry_op<Carry::Add>(w, in); }
void v_sub_co_u32(Wave& w, const Inst& in) { carry_op<Carry::Sub>(w, in); }
void v_subrev_co_u32(Wave& w, const Inst& in) { carry_op<Carry::SubRev>(w, in); }
void v_addc_co_u32(Wave& w, const Inst& in) { carry_op<Carry::AddC>(w, in); }
void v_subb_co_u32(Wave& w, const Inst& in) { carry_op<Carry::SubB>(w, in); }
void v_subbrev_co_u32(Wave& w, const Inst& in) { carry_op<Carry::SubBRev>(w, in); }
void v_cndmask_b32(Wave& w, const Inst& in) {
  const uint64_t m = mask_source(w, in);
  FETCH2(Ty::M32)  // VOP3 abs/neg apply (clang uses them for fabs/fneg selects); no flushing
#if defined(__AVX2__)
  if (uint32_t* d = direct32(w, in, ex, Ty::B32)) {  // the selector's bits 8 lanes at a time
    const MaskBits bits(m);
    for (unsigned g = 0; g < 8; ++g) {
      const __m256 a = _mm256_loadu_ps(reinterpret_cast<const float*>(A + 8 * g));
      const __m256 b = _mm256_loadu_ps(reinterpret_cast<const float*>(B + 8 * g));
      _mm256_storeu_ps(reinterpret_cast<float*>(d + 8 * g), _mm256_blendv_ps(a, b, _mm256_castsi256_ps(bits.sign(g))));
    }
    return;
  }
#endif
  uint32_t sel[64];
  mask_lanes(m, sel);
  BODY(Ty::B32, (void)0, (B[l] & sel[l]) | (A[l] & ~sel[l]), ASIS)
}

#if defined(__AVX2__)
// Carry ops and v_cndmask specialised at decode (fast32.h): sources a VGPR row or one scalar
// (Bc), every lane active; the mask in (VCC, or the SGPR pair of the VOP3 form) and the carries out
// as the general handlers have them.
EMU_INLINE uint64_t mask_in(const Wave& w, const Inst& in) {
  return (in.flags & kVop3) ? sread64(w, in, in.src[2], false) : w.vcc();
}
template <unsigned Bc>
EMU_INLINE void fast_sources(const Wave& w, const Inst& in, const uint32_t*& A, const uint32_t*& B, __m256i& a0, __m256i& b0) {
  if (Bc & 1) a0 = _mm256_set1_epi32(static_cast<int>(sread32(w, in, in.src[0])));
  else A = w.v[in.src[0] - 256];
  if (Bc & 2) b0 = _mm256_set1_epi32(static_cast<int>(sread32(w, in, in.src[1])));
  else B = w.v[in.src[1] - 256];
}
template <Carry K, unsigned Bc>
void fast_carry(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx) return in.slow(w, in);
  constexpr bool with_in = K == Carry::AddC || K == Carry::SubB || K == Carry::SubBRev;
  const MaskBits bits(with_in ? mask_in(w, in) : 0);
  const uint32_t *A = nullptr, *B = nullptr;
  __m256i a0, b0;
  fast_sources<Bc>(w, in, A, B, a0, b0);
  uint32_t* d = w.v[in.dst];
  uint64_t co = 0;
  for (unsigned g = 0; g < 8; ++g) {
    const __m256i a = (Bc & 1) ? a0 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(A + 8 * g));
    const __m256i b = (Bc & 2) ? b0 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(B + 8 * g));
    __m256i nc;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 8 * g), carry8<K>(a, b, with_in ? bits.all(g) : _mm256_setzero_si256(), nc));
    co |= uint64_t{~static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(nc))) & 0xFFu} << (8 * g);
  }
  w.lane_ops += 64;
  swrite64(w, in.sdst, co);
}
template <unsigned Bc>
void fast_cndmask(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx) return in.slow(w, in);
  const MaskBits bits(mask_in(w, in));
  const uint32_t *A = nullptr, *B = nullptr;
  __m256i a0, b0;
  fast_sources<Bc>(w, in, A, B, a0, b0);
  uint32_t* d = w.v[in.dst];
  for (unsigned g = 0; g < 8; ++g) {
    const __m256i a = (Bc & 1) ? a0 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(A + 8 * g));
    const __m256i b = (Bc & 2) ? b0 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(B + 8 * g));
    _mm256_storeu_ps(reinterpret_cast<float*>(d + 8 * g), _mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                                                           _mm256_castsi256_ps(bits.sign(g))));
  }
  w.lane_ops += 64;
}
template <template <unsigned> class H>
constexpr FastFamily family2(const char* name) { return {name, 2, {H<0>::fn, H<1>::fn, H<2>::fn, H<3>::fn}}; }
template <Carry K> struct CarryH { template <unsigned Bc> struct H { static constexpr ExecFn fn = fast_carry<K, Bc>; }; };
template <unsigned Bc> struct CndH { static constexpr ExecFn fn = fast_cndmask<Bc>; };
const bool carry_fast = [] {
  auto& r = fast_registry();
  r.push_back(family2<CarryH<Carry::Add>::H>("v_add_co_u32"));
  r.push_back(family2<CarryH<Carry::Sub>::H>("v_sub_co_u32"));
  r.push_back(family2<CarryH<Carry::SubRev>::H>("v_subrev_co_u32"));
  r.push_back(family2<CarryH<Carry::AddC>::H>("v_addc_co_u32"));
  r.push_back(family2<CarryH<Carry::SubB>::H>("v_subb_co_u32"));
  r.push_back(family2<CarryH<Carry::SubBRev>::H>("v_subbrev_co_u32"));
  r.push_back(family2<CndH>("v_cndmask_b32"));
  return true;
}();
#endif

const HandlerEntry kVop[] = {
#define E(n) {#n, n},
    E(v_add_f32) E(v_sub_f32) E(v_subrev_f32) E(v_mul_f32) E(v_mul_legacy_f32) E(v_min_f32)
    E(v_max_f32) E(v_mac_f32) E(v_fmac_f32) E(v_fma_f32) E(v_mad_f32) E(v_mad_legacy_f32)
    E(v_min3_f32) E(v_max3_f32) E(v_med3_f32) E(v_fract_f32) E(v_trunc_f32) E(v_ceil_f32)
    E(v_rndne_f32) E(v_floor_f32) E(v_exp_f32) E(v_log_f32) E(v_rcp_f32) E(v_rcp_iflag_f32)
    E(v_rsq_f32) E(v_sqrt_f32) E(v_sin_f32) E(v_cos_f32) E(v_frexp_mant_f32)
    E(v_frexp_exp_i32_f32) E(v_cvt_i32_f32) E(v_cvt_u32_f32) E(v_cvt_rpi_i32_f32)
    E(v_cvt_flr_i32_f32) E(v_cvt_f32_i32) E(v_cvt_f32_u32) E(v_cvt_f32_ubyte0)
    E(v_cvt_f32_ubyte1) E(v_cvt_f32_ubyte2) E(v_cvt_f32_ubyte3) E(v_cvt_off_f32_i4)
    E(v_ldexp_f32) E(v_mov_b32) E(v_not_b32) E(v_bfrev_b32) E(v_ffbh_u32) E(v_ffbl_b32)
    E(v_ffbh_i32) E(v_mul_i32_i24) E(v_mul_hi_i32_i24) E(v_mul_u32_u24) E(v_mul_hi_u32_u24)
    E(v_min_i32) E(v_max_i32) E(v_min_u32) E(v_max_u32) E(v_lshrrev_b32) E(v_ashrrev_i32)
    E(v_lshlrev_b32) E(v_and_b32) E(v_or_b32) E(v_xor_b32) E(v_xnor_b32) E(v_add_u32)
    E(v_sub_u32) E(v_subrev_u32) E(v_add_i32) E(v_sub_i32) E(v_mul_lo_u32) E(v_mul_hi_u32) E(v_mul_hi_i32)
    E(v_bcnt_u32_b32) E(v_bfm_b32) E(v_mad_i32_i24) E(v_mad_u32_u24) E(v_bfe_u32) E(v_bfe_i32)
    E(v_bfi_b32) E(v_alignbit_b32) E(v_alignbyte_b32) E(v_min3_i32) E(v_max3_i32)
    E(v_min3_u32) E(v_max3_u32) E(v_med3_i32) E(v_med3_u32) E(v_lshl_add_u32)
    E(v_add_lshl_u32) E(v_add3_u32) E(v_lshl_or_b32) E(v_and_or_b32) E(v_or3_b32)
    E(v_xad_u32) E(v_mad_u32_u16) E(v_mad_i32_i16) E(v_sad_u32) E(v_perm_b32) E(v_madmk_f32)
    E(v_madak_f32) E(v_fmamk_f32) E(v_fmaak_f32) E(v_add_co_u32) E(v_sub_co_u32) E(v_subrev_co_u32) E(v_addc_co_u32)
    E(v_subb_co_u32) E(v_subbrev_co_u32) E(v_cndmask_b32)
#undef E
};

}  // namespace

HandlerList vop_handlers() { return {std::begin(kVop), std::end(kVop)}; }
FastList vop_fast_families() { return {fast_registry().data(), fast_registry().data() + fast_registry().size()}; }

}  // namespace emu::shader
