// SPDX-License-Identifier: MIT
// ISA kernels of tests/isa/vop3p.s: integer clamp (saturation) in VOP3/VOP3P and packed-math
// operand selection, checked against the ISA's semantics lane by lane.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/emu/isa_fixture.h"

using namespace emu_test;

namespace {

class Packed : public IsaTest {
 protected:
  // in[64+l] = a[l], in[128+l] = b[l]: edge patterns first, then pseudo-random words.
  emu::shader::Outcome run_packed(const char* kernel) {
    uint32_t* in = mem.alloc_array<uint32_t>(192);
    const uint32_t edge_a[8] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x00000000u,
                                0x7FFF8000u, 0x3C007E00u, 0xFC00BC00u, 0x00010001u};
    const uint32_t edge_b[8] = {0x00000001u, 0x00000001u, 0x00000001u, 0x00000001u,
                                0x00017FFFu, 0x3800C000u, 0x7C003C00u, 0xFFFFFFFFu};
    for (unsigned l = 0; l < 64; ++l) {
      a[l] = l < 8 ? edge_a[l] : l * 0x9E3779B9u;
      b[l] = l < 8 ? edge_b[l] : (l * 0x85EBCA6Bu) ^ 0x5BD1E995u;
      in[64 + l] = a[l];
      in[128 + l] = b[l];
    }
    return run_isa("vop3p.co", kernel, 64, 64, Args().add(in));
  }
  uint32_t a[64], b[64];
};

template <class T> T sat(int64_t v) {
  return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}
uint32_t lo16(uint32_t x) { return x & 0xFFFF; }
uint32_t hi16(uint32_t x) { return x >> 16; }
int64_t s16(uint32_t x) { return static_cast<int16_t>(x); }
uint32_t pack(uint32_t lo, uint32_t hi) { return (lo & 0xFFFF) | (hi << 16); }

TEST_F(Packed, SaturatesIntegerResultsUnderClamp) {
  auto o = run_packed("k_int_clamp");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = a[l], y = b[l];
    int64_t sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y);
    ASSERT_EQ(slot(0, l), sat<uint32_t>(int64_t{x} + y)) << l;
    ASSERT_EQ(slot(1, l), sat<uint32_t>(int64_t{x} - y)) << l;
    ASSERT_EQ(slot(2, l), static_cast<uint32_t>(sat<int32_t>(sx + sy))) << l;
    ASSERT_EQ(slot(3, l), static_cast<uint32_t>(sat<int32_t>(sx - sy))) << l;
    bool carry = uint64_t{x} + y > 0xFFFFFFFFu;
    ASSERT_EQ(slot(4, l), carry ? 0xFFFFFFFFu : x + y) << l;
    ASSERT_EQ(slot(5, l), carry ? 1u : 0u) << l;
    ASSERT_EQ(slot(6, l), sat<uint16_t>(int64_t{lo16(x)} + lo16(y))) << l;
    ASSERT_EQ(slot(7, l), static_cast<uint16_t>(sat<int16_t>(s16(x) - s16(y)))) << l;
    ASSERT_EQ(slot(8, l), pack(sat<uint16_t>(int64_t{lo16(x)} + lo16(y)), sat<uint16_t>(int64_t{hi16(x)} + hi16(y)))) << l;
    ASSERT_EQ(slot(9, l), pack(static_cast<uint16_t>(sat<int16_t>(s16(x) - s16(y))),
                               static_cast<uint16_t>(sat<int16_t>(s16(x >> 16) - s16(y >> 16))))) << l;
    int64_t dot = 0x7FFFFFF0;
    for (int i = 0; i < 4; ++i) dot += static_cast<int8_t>(x >> (8 * i)) * static_cast<int8_t>(y >> (8 * i));
    ASSERT_EQ(slot(10, l), static_cast<uint32_t>(sat<int32_t>(dot))) << l;
    ASSERT_EQ(slot(11, l), x + y) << l;
  }
}

float h(uint32_t bits16) { _Float16 v; uint16_t u = static_cast<uint16_t>(bits16); std::memcpy(&v, &u, 2); return v; }
uint32_t hb(double v) { _Float16 x = static_cast<_Float16>(v); uint16_t u; std::memcpy(&u, &x, 2); return u; }
float f(uint32_t bits) { float v; std::memcpy(&v, &bits, 4); return v; }
uint32_t fb(float v) { uint32_t u; std::memcpy(&u, &v, 4); return u; }
// The ISA kernels' descriptors flush f32 denormals (FLOAT_DENORM_MODE_32 = 0).
float ftz(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v; }
double clamp01(double v) { return std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0); }
bool nan16(uint32_t x) { return (x & 0x7C00) == 0x7C00 && (x & 0x3FF); }
// Equal f16 results, any NaN matching any NaN.
bool same16(uint32_t got, uint32_t want) { return nan16(want) ? nan16(got) : got == want; }

TEST_F(Packed, SelectsNegatesAndClampsPackedHalves) {
  auto o = run_packed("k_packed");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = a[l], y = b[l];
    uint32_t add_lo = hb(clamp01(static_cast<double>(static_cast<_Float16>(h(x) + h(y)))));
    uint32_t add_hi = hb(clamp01(static_cast<double>(static_cast<_Float16>(h(x >> 16) + h(y >> 16)))));
    ASSERT_EQ(slot(0, l), pack(add_lo, add_hi)) << l;
    // v[2:3] holds (a, b): the packed f32 multiply squares each, then clamps.
    float fx = ftz(f(x)), fy = ftz(f(y));
    ASSERT_EQ(slot(1, l), fb(ftz(static_cast<float>(clamp01(ftz(fx * fx)))))) << l;
    ASSERT_EQ(slot(2, l), fb(ftz(static_cast<float>(clamp01(ftz(fy * fy)))))) << l;
    uint32_t fl = hb(std::fma(-static_cast<double>(h(x >> 16)), h(y), h(x)));
    uint32_t fh = hb(std::fma(static_cast<double>(h(x)), -static_cast<double>(h(y >> 16)), h(x >> 16)));
    ASSERT_TRUE(same16(slot(3, l) & 0xFFFF, fl)) << l << std::hex << " got " << slot(3, l) << " want lo " << fl;
    ASSERT_TRUE(same16(slot(3, l) >> 16, fh)) << l << std::hex << " got " << slot(3, l) << " want hi " << fh;
    ASSERT_EQ(slot(4, l) & 0xFFFF, lo16(x)) << l;  // low half kept
    ASSERT_TRUE(same16(slot(4, l) >> 16, hb(h(x >> 16) + h(y >> 16)))) << l;
    auto mx = [](uint32_t p, uint32_t q) { return static_cast<uint32_t>(std::max(s16(p), s16(q))) & 0xFFFF; };
    ASSERT_EQ(slot(5, l), pack(mx(x, y >> 16), mx(x >> 16, y))) << l;
  }
}

// Inline float constants in 16-bit packed operands are binary16 values in the low half with a zero
// high half (LLVM feeds them to both elements with op_sel_hi:0); integer constants are 32-bit.
TEST_F(Packed, InlineConstantsAreHalfValuesInTheLowHalf) {
  auto o = run_packed("k_packed_const");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t x = a[l], y = b[l];
    const double lo = h(x), hi = h(x >> 16);
    ASSERT_TRUE(same16(slot(0, l) & 0xFFFF, hb(lo + 1.0))) << l << std::hex << " got " << slot(0, l);
    ASSERT_TRUE(same16(slot(0, l) >> 16, hb(hi + 1.0))) << l << std::hex << " got " << slot(0, l);
    ASSERT_TRUE(same16(slot(1, l) & 0xFFFF, hb(lo * 0.5))) << l << std::hex << " got " << slot(1, l);
    ASSERT_TRUE(same16(slot(1, l) >> 16, hb(hi * 0.0))) << l << std::hex << " got " << slot(1, l);
    ASSERT_TRUE(same16(slot(2, l) & 0xFFFF, hb(std::fma(lo, 2.0, -1.0)))) << l;
    ASSERT_TRUE(same16(slot(2, l) >> 16, hb(std::fma(hi, 2.0, -1.0)))) << l;
    const float want3 = ftz(static_cast<float>(lo + hi + ftz(f(y))));
    const float got3 = f(slot(3, l)), got4 = f(slot(4, l));
    auto close = [](float got, float want) {
      return std::isnan(want) ? std::isnan(got) : got == want || std::fabs(got - want) <= std::fabs(want) * 1e-6f;
    };
    ASSERT_TRUE(close(got3, want3)) << l << " got " << got3 << " want " << want3;
    const float want4 = ftz(static_cast<float>(lo * 0.5 + hi * 0.0 + ftz(f(y))));
    ASSERT_TRUE(close(got4, want4)) << l << " got " << got4 << " want " << want4;
    ASSERT_EQ(slot(5, l), pack(lo16(x) + 0xFFFF, hi16(x) + 0xFFFF)) << l;
  }
}

}  // namespace

namespace {

class MadLiteral : public Packed {};

bool same32(uint32_t got, float want) { return std::isnan(want) ? std::isnan(f(got)) : got == fb(want); }

TEST_F(MadLiteral, UsesTheLiteralAndRoundsTheF16Product) {
  auto o = run_packed("k_mad_literal");
  ASSERT_TRUE(o.ok()) << o.message;
  unsigned unfused_differs = 0;
  for (unsigned l = 0; l < 64; ++l) {
    float x = ftz(f(a[l])), y = ftz(f(b[l]));
    ASSERT_TRUE(same32(slot(0, l), ftz(ftz(x * f(0x40490fdbu)) + y))) << l;
    ASSERT_TRUE(same32(slot(1, l), ftz(ftz(x * y) + f(0xc2f60000u)))) << l;
    double hx = h(a[l]), hy = h(b[l]);
    auto r16 = [](double v) { return static_cast<double>(static_cast<_Float16>(v)); };
    ASSERT_TRUE(same16(slot(2, l) & 0xFFFF, hb(r16(hx * h(0x4248)) + hy))) << l;
    ASSERT_TRUE(same16(slot(3, l) & 0xFFFF, hb(r16(hx * hy) + h(0xbc00)))) << l;
    uint32_t mad = hb(r16(hx * hy) + hy), fma = hb(std::fma(hx, hy, hy));
    ASSERT_TRUE(same16(slot(4, l) & 0xFFFF, mad)) << l;
    ASSERT_TRUE(same16(slot(5, l) & 0xFFFF, fma)) << l;
    unfused_differs += mad != fma;
  }
  EXPECT_GT(unfused_differs, 0u) << "inputs should tell the fused and unfused f16 results apart";
}

}  // namespace
