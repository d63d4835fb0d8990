// SPDX-License-Identifier: MIT
// ISA kernels of tests/isa/vop64.s: 64-bit VALU operations (f64 arithmetic, compares, classes,
// conversions, ldexp, v_div_fmas, shifts) with modifiers, broadcast sources and partly active
// waves, and the f32 transcendentals v_exp_f32 / v_log_f32, checked lane by lane against the
// ISA's semantics computed on the host.
#include <cfloat>
#include <cmath>
#include <cstring>

#include "tests/emu/isa_fixture.h"

using namespace emu_test;

namespace {

double f64(uint64_t u) { double d; std::memcpy(&d, &u, 8); return d; }
uint64_t u64(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u; }
float f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
float fl(uint32_t u) { return f32(u); }
uint32_t u32(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
double absd(double d) { return f64(u64(d) & ~(uint64_t{1} << 63)); }
double negd(double d) { return f64(u64(d) ^ (uint64_t{1} << 63)); }

class Vop64 : public IsaTest {
 protected:
  // X = (a, b) and Y = (b, a) as f64 pairs: edge values in the first lanes, then bit patterns.
  emu::shader::Outcome run64(const char* kernel) {
    const double edge[20] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 4.9e-324, -2.2e-308, 0.5, 1.5,
                             2.5, -2.5, 3e9, -3e9, 5e9, -0.75, 1e300, -1e-300, 2147483647.5, -2147483648.5};
    uint32_t* in = mem.alloc_array<uint32_t>(192);
    for (unsigned l = 0; l < 64; ++l) {
      uint64_t x = l < 20 ? u64(edge[l]) : (uint64_t{l * 0x9E3779B9u} << 32 | (l * 0x85EBCA6Bu)) ^ 0x3FF0000000000000ull;
      if (l >= 20 && l % 5 == 0) x = (x & 0x800FFFFFFFFFFFFFull) | (uint64_t{1023 + l % 40 - 20} << 52);  // moderate exponents
      a[l] = static_cast<uint32_t>(x);
      b[l] = static_cast<uint32_t>(x >> 32);
      in[64 + l] = a[l];
      in[128 + l] = b[l];
    }
    return run_isa("vop64.co", kernel, 64, 64, Args().add(in));
  }
  // in[64 + lane] = f[lane] as f32 bits (the pair's high dword stays b's).
  emu::shader::Outcome run32(const char* kernel, const float* f) {
    uint32_t* in = mem.alloc_array<uint32_t>(192);
    for (unsigned l = 0; l < 64; ++l) {
      a[l] = u32(f[l]);
      b[l] = 0xb0b0b0b0u + l;
      in[64 + l] = a[l];
      in[128 + l] = b[l];
    }
    return run_isa("vop64.co", kernel, 64, 64, Args().add(in));
  }
  double X(unsigned l) const { return f64(a[l] | (uint64_t{b[l]} << 32)); }
  double Y(unsigned l) const { return f64(b[l] | (uint64_t{a[l]} << 32)); }
  uint64_t pair(unsigned k, unsigned l) const { return slot(k, l) | (uint64_t{slot(k + 1, l)} << 32); }
  // The f64 in slots k, k+1 is `want` (any NaN for a NaN; zeros by sign).
  void expect64(unsigned k, unsigned l, double want) const {
    const uint64_t got = pair(k, l);
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(f64(got))) << "slot " << k << " lane " << l;
    else EXPECT_EQ(got, u64(want)) << "slot " << k << " lane " << l << ": " << f64(got) << " want " << want;
  }
  uint32_t a[64], b[64];
};

TEST_F(Vop64, ComputesWithModifiersBroadcastsAndPartialExec) {
  auto o = run64("k_f64_arith");
  ASSERT_TRUE(o.ok()) << o.message;
  const double tenth = f64(0x3fb999999999999aull);
  for (unsigned l = 0; l < 64; ++l) {
    const double x = X(l), y = Y(l);
    expect64(0, l, std::fma(negd(x), absd(y), tenth));
    const bool on = (l < 32 ? 0x0f0f0f0fu >> l : 0xf0f0f0f0u >> (l - 32)) & 1;
    if (on) expect64(2, l, absd(x) + negd(y));
    else EXPECT_EQ(pair(2, l), 0x2222222211111111ull) << l;
    expect64(4, l, std::fma(0.5, y, x));
    expect64(6, l, tenth * negd(x));
    expect64(8, l, std::nearbyint(x));
    expect64(10, l, std::floor(negd(y)));
    expect64(12, l, 1.0 / std::sqrt(absd(x)));
    expect64(14, l, x / y);
  }
}

// v_cmp_class bit of f64 d (ISA: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
// 7 +denormal, 8 +normal, 9 +inf).
unsigned f64_class(double d) {
  const uint64_t u = u64(d);
  const bool neg = u >> 63;
  switch (std::fpclassify(d)) {
    case FP_NAN: return (u >> 51) & 1;
    case FP_INFINITE: return neg ? 2 : 9;
    case FP_NORMAL: return neg ? 3 : 8;
    case FP_SUBNORMAL: return neg ? 4 : 7;
    default: return neg ? 5 : 6;
  }
}

TEST_F(Vop64, ComparesClassifiesAndConverts) {
  auto o = run64("k_f64_cmp");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    const double x = X(l), y = Y(l);
    const bool un = std::isnan(x) || std::isnan(y);
    EXPECT_EQ(slot(0, l), x < y) << l;
    EXPECT_EQ(slot(1, l), !(x >= y)) << l;
    EXPECT_EQ(slot(2, l), !un && x != y) << l;
    EXPECT_EQ(slot(3, l), un || x == y) << l;
    EXPECT_EQ(slot(4, l), un) << l;
    EXPECT_EQ(slot(5, l), !(negd(x) == 1.0)) << l;
    EXPECT_EQ(slot(6, l), absd(x) >= absd(y)) << l;
    EXPECT_EQ(slot(7, l), (b[l] >> f64_class(x)) & 1) << l;
    EXPECT_EQ(slot(8, l), (a[l] >> f64_class(negd(absd(x)))) & 1) << l;
    const int32_t i = std::isnan(x) ? 0 : x >= 2147483647.0 ? INT32_MAX : x <= -2147483648.0 ? INT32_MIN : static_cast<int32_t>(x);
    EXPECT_EQ(slot(9, l), static_cast<uint32_t>(i)) << l;
    const uint32_t u = std::isnan(y) || y <= 0 ? 0 : y >= 4294967295.0 ? UINT32_MAX : static_cast<uint32_t>(y);
    EXPECT_EQ(slot(10, l), u) << l;
    const float f = static_cast<float>(x);
    if (std::isnan(f)) EXPECT_TRUE(std::isnan(f32(slot(11, l)))) << l;
    else EXPECT_EQ(slot(11, l), std::fpclassify(f) == FP_SUBNORMAL ? u32(f) & 0x80000000u : u32(f)) << l;  // f32 denormals flushed
    expect64(12, l, std::ldexp(y, static_cast<int>(a[l] & 0x7ff) - 0x400));
    expect64(14, l, std::ldexp(y, static_cast<int32_t>(a[l])));
  }
}

TEST_F(Vop64, ScalesDivisionStepsByVcc) {
  auto o = run64("k_f64_div");
  ASSERT_TRUE(o.ok()) << o.message;
  const uint64_t vcc = 0x6996966996696996ull;
  for (unsigned l = 0; l < 64; ++l) {
    const double fm = std::fma(X(l), 0.5, Y(l));
    expect64(0, l, ((vcc >> l) & 1) ? std::ldexp(fm, 64) : fm);
    expect64(2, l, negd(X(l)));  // the emulator's v_div_scale never scales
    expect64(4, l, 1.0 / Y(l));
  }
}

TEST_F(Vop64, ShiftsAndConvertsSixtyFourBitLanes) {
  auto o = run64("k_b64_shift");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    const uint64_t x = u64(X(l)), y = u64(Y(l));
    EXPECT_EQ(pair(0, l), y << (a[l] & 63)) << l;
    const uint64_t r = x >> 37;
    EXPECT_EQ(pair(2, l), r) << l;
    const bool on = (l < 32 ? 0x33333333u >> l : 0xccccccccu >> (l - 32)) & 1;
    EXPECT_EQ(pair(4, l), on ? ~uint64_t{0} >> (b[l] & 63) : r) << l;
    expect64(6, l, static_cast<double>(static_cast<int32_t>(a[l])));
    expect64(8, l, static_cast<double>(b[l]));
    expect64(10, l, std::trunc(X(l)));
    expect64(12, l, std::ceil(Y(l)));
    expect64(14, l, std::sqrt(absd(Y(l))));
  }
}

// Within 1 ulp of the host's libm (the hardware's bound, AMDGPUUsage "llvm.exp2"/"llvm.log2");
// exact where the result is: specials, powers of two. Flushed where the instruction does not
// support denormals.
void expect_ulp(float got, float want, const char* what, float x) {
  if (std::isnan(want)) { EXPECT_TRUE(std::isnan(got)) << what << "(" << x << ")"; return; }
  if (std::isinf(want) || want == 0.0f) { EXPECT_EQ(u32(got), u32(want)) << what << "(" << x << ")"; return; }
  const float ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
  EXPECT_LE(std::fabs(got - want), ulp) << what << "(" << x << ") = " << got << " want " << want;
}
float exp2_hw(float x) { return x < -126.0f ? 0.0f : std::exp2(x); }
float log2_hw(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? -INFINITY : std::log2(x); }

TEST_F(Vop64, ComputesExpAndLogWithinAnUlpWithoutDenormals) {
  float f[64] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, FLT_MIN, -126.0f, -126.5f, -149.0f,
                 127.99f, 128.0f, 1.0f, 2.0f, 0.5f, 1024.0f, 0x1p-100f, 3.0f, -1.0f, 1.4142135f, 0.70710677f, 1.0000001f};
  for (unsigned l = 24; l < 64; ++l) f[l] = std::ldexp(1.0f + 0.0173f * l, static_cast<int>(l % 17) - 8) * (l % 3 ? 1.0f : -1.0f);
  auto o = run32("k_f32_exp_log", f);
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    const float x = f[l];
    expect_ulp(fl(slot(0, l)), exp2_hw(x), "v_exp_f32", x);
    expect_ulp(fl(slot(1, l)), log2_hw(x), "v_log_f32", x);
    expect_ulp(fl(slot(2, l)), exp2_hw(-x), "v_exp_f32 neg", x);
    expect_ulp(fl(slot(3, l)), log2_hw(std::fabs(x)), "v_log_f32 abs", x);
    if (l % 2) EXPECT_EQ(slot(4, l), b[l]) << l;
    else expect_ulp(fl(slot(4, l)), exp2_hw(x), "v_exp_f32 partial", x);
  }
  EXPECT_EQ(slot(0, 14), u32(2.0f));  // exact powers of two
  EXPECT_EQ(slot(1, 17), u32(10.0f));
  EXPECT_EQ(slot(1, 18), u32(-100.0f));
  EXPECT_EQ(slot(1, 14), 0u);  // log2(1) = +0
}

// gfx942's 64-bit move and shifted add (tests/isa/gfx942.s, assembled for gfx940), on a gfx942 core.
class Gfx942 : public IsaTest {
 protected:
  Gfx942() : IsaTest(emu::shader::Target::gfx942) {}
};

TEST_F(Gfx942, MovesAndShiftedAddsOf64BitValues) {
  auto o = run_isa("gfx942.co", "k_b64");
  ASSERT_TRUE(o.ok()) << o.message;
  const uint64_t s = 0x0123456789abcdefull;
  for (uint32_t l = 0; l < 64; ++l) {
    const uint64_t x = uint64_t{l * 0x10001u} | uint64_t{~l} << 32;
    auto pair = [&](unsigned k) { return uint64_t{slot(k, l)} | uint64_t{slot(k + 1, l)} << 32; };
    ASSERT_EQ(pair(0), x) << l;
    ASSERT_EQ(pair(2), s) << l;
    ASSERT_EQ(pair(4), ~uint64_t{0}) << l;
    ASSERT_EQ(pair(6), (x << 3) + s) << l;
    ASSERT_EQ(pair(8), s + x) << l;
    ASSERT_EQ(pair(10), (x << 4) + 1) << l;
  }
}

}  // namespace
