// SPDX-License-Identifier: MIT
// Hand-written ISA kernels (tests/isa/*.s) checked against the ISA semantics, per encoding.
#include <cfloat>
#include <cmath>

#include "tests/emu/isa_fixture.h"

using namespace emu_test;

namespace {

class Sop : public IsaTest {};

// Every lane stores the same scalar result; check lane 0 and the last lane.
#define EXPECT_SCALAR(k, v)                          \
  do {                                               \
    EXPECT_EQ(slot(k, 0), static_cast<uint32_t>(v)) << "slot " << k; \
    EXPECT_EQ(slot(k, 63), static_cast<uint32_t>(v)) << "slot " << k; \
  } while (0)

TEST_F(Sop, ComputesCarriesAndOverflow) {
  auto o = run_isa("sop.co", "k_sop_arith");
  ASSERT_TRUE(o.ok()) << o.message;
  uint64_t sum = 0xffffffffull + 2;
  EXPECT_SCALAR(0, static_cast<uint32_t>(sum));
  EXPECT_SCALAR(1, sum >> 32);
  EXPECT_SCALAR(2, 1);
  EXPECT_SCALAR(3, 1u - 2u);
  EXPECT_SCALAR(4, 1);                       // borrow
  int32_t r;
  bool ovf = __builtin_add_overflow(INT32_MIN, -1, &r);
  EXPECT_SCALAR(5, static_cast<uint32_t>(r));
  EXPECT_SCALAR(6, ovf);
  EXPECT_SCALAR(7, static_cast<uint32_t>(-5));
  EXPECT_SCALAR(8, 3);
  EXPECT_SCALAR(9, static_cast<uint32_t>((int64_t{INT32_MIN} * 3) >> 32));
  EXPECT_SCALAR(10, static_cast<uint32_t>((0xffffffffull * 0xffffffffull) >> 32));
  EXPECT_SCALAR(11, static_cast<uint32_t>(static_cast<int16_t>(0x8000)));
  EXPECT_SCALAR(12, 99);
  EXPECT_SCALAR(13, 99u < 0xffffu);
  EXPECT_SCALAR(14, 12);
  EXPECT_SCALAR(15, (3 << 2) + 5);
}

TEST_F(Sop, HandlesBitFieldEdgeCases) {
  auto o = run_isa("sop.co", "k_sop_bits");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_SCALAR(0, (0xf0f0u >> 4) & 0xff);
  EXPECT_SCALAR(1, 0xffffffffu);
  EXPECT_SCALAR(2, 0xffffffffu);              // s_ff1 of 0 is -1
  EXPECT_SCALAR(3, __builtin_ctz(0xf0f0u));
  EXPECT_SCALAR(4, __builtin_clz(0xf0f0u));
  EXPECT_SCALAR(5, 31);
  EXPECT_SCALAR(6, 64);
  EXPECT_SCALAR(7, (1ull << 40) >> 32);
  EXPECT_SCALAR(8, 0xffffffffu);
  EXPECT_SCALAR(9, 1);
  EXPECT_SCALAR(10, 0xf0f0u & 0xf00u);
  EXPECT_SCALAR(11, static_cast<uint32_t>(static_cast<int16_t>(0x8001)));
  EXPECT_SCALAR(12, 0xabcd1234u);
  EXPECT_SCALAR(13, 0x80000000u);
  EXPECT_SCALAR(14, ((1u << 4) - 1) << 8);
  EXPECT_SCALAR(15, 1);
}

}  // namespace

namespace {

// VALU inputs: in[l] f32 specials, in[64+l] and in[128+l] u32 patterns.
struct VopInputs {
  float f[64];
  uint32_t a[64], b[64];
  VopInputs() {
    const float specials[16] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f,
                                0.5f, 1.5f, 2.5f, -2.5f, 3e9f, -3e9f, 1e30f, -1e30f};
    for (unsigned l = 0; l < 64; ++l) {
      f[l] = l < 16 ? specials[l] : (static_cast<float>(l) - 32.0f) * 0.37f;
      a[l] = l * 0x9E3779B9u;
      b[l] = ~l * 0x7F4A7C15u;
    }
    a[0] = 0xffffffffu; b[0] = 1;  // carry out
    a[1] = 0; b[1] = 1;            // borrow
  }
};

// f32 denormals are flushed: the ISA kernels' descriptors leave FLOAT_DENORM_MODE_32 = 0.
float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
bool same(float x, float y) { return (std::isnan(x) && std::isnan(y)) || x == y; }
float fl(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }
double dbl(uint32_t lo, uint32_t hi) { uint64_t u = lo | (uint64_t{hi} << 32); double d; std::memcpy(&d, &u, 8); return d; }

class Vop : public IsaTest {
 protected:
  emu::shader::Outcome run_vop(const char* kernel) {
    uint32_t* in = mem.alloc_array<uint32_t>(192);
    for (unsigned l = 0; l < 64; ++l) { std::memcpy(&in[l], &inp.f[l], 4); in[64 + l] = inp.a[l]; in[128 + l] = inp.b[l]; }
    return run_isa("vop.co", kernel, 64, 64, Args().add(in));
  }
  VopInputs inp;
};

TEST_F(Vop, HandlesCarriesExecMasksAndCrossLaneOps) {
  auto o = run_vop("k_vop_int");
  ASSERT_TRUE(o.ok()) << o.message;
  const uint32_t* a = inp.a; const uint32_t* b = inp.b;
  for (unsigned l = 0; l < 64; ++l) {
    uint64_t s = uint64_t{a[l]} + b[l];
    ASSERT_EQ(slot(0, l), static_cast<uint32_t>(s)) << l;
    ASSERT_EQ(slot(1, l), s >> 32) << l;
    ASSERT_EQ(slot(2, l), b[l] > a[l] ? 1u : 0u) << l;
    uint64_t m = uint64_t{a[l]} * b[l] + (a[l] | (uint64_t{b[l]} << 32));
    ASSERT_EQ(slot(3, l), static_cast<uint32_t>(m)) << l;
    ASSERT_EQ(slot(4, l), static_cast<uint32_t>(m >> 32)) << l;
    ASSERT_EQ(slot(5, l), static_cast<uint32_t>((int64_t{static_cast<int32_t>(a[l])} * static_cast<int32_t>(b[l])) >> 32)) << l;
    ASSERT_EQ(slot(6, l), static_cast<uint32_t>(static_cast<int32_t>(a[l] << (32 - 3 - 5)) >> (32 - 5))) << l;
    ASSERT_EQ(slot(7, l), static_cast<uint32_t>(((uint64_t{a[l]} << 32) | b[l]) >> 7)) << l;
    // v_perm selectors 0x0d (0xff), 0x02 (byte 2 of S1), 0x07 (byte 3 of S0), 0x0c (0x00).
    uint32_t perm = 0xffu | (((b[l] >> 16) & 0xff) << 8) | ((a[l] >> 24) << 16);
    ASSERT_EQ(slot(8, l), perm) << l;
    ASSERT_EQ(slot(9, l), l % 2 == 0 ? l : 0x77u) << l;
    ASSERT_EQ(slot(10, l), (l % 2 == 0 && a[l] < b[l]) ? 1u : 0u) << l;
    ASSERT_EQ(slot(11, l), l) << l;
    ASSERT_EQ(slot(12, l), a[l] << 1) << l;
    ASSERT_EQ(slot(13, l), a[5]) << l;
    ASSERT_EQ(slot(14, l), l == 9 ? a[5] : 0u) << l;
    ASSERT_EQ(slot(15, l), a[l] + b[l] - 1) << l;
  }
}

TEST_F(Vop, ChainsCarriesThroughVccAndSgprPairs) {
  auto o = run_vop("k_vop_carry");
  ASSERT_TRUE(o.ok()) << o.message;
  const uint32_t* a = inp.a; const uint32_t* b = inp.b;
  const uint64_t carry_in = 0x0ff00ff05a5a5a5aull;
  for (unsigned l = 0; l < 64; ++l) {
    const uint64_t cin = (carry_in >> l) & 1;
    const uint64_t sum = uint64_t{a[l]} + b[l] + cin;
    ASSERT_EQ(slot(0, l), static_cast<uint32_t>(sum)) << l;
    ASSERT_EQ(slot(1, l), sum >> 32) << l;
    ASSERT_EQ(slot(2, l), static_cast<uint32_t>(a[l] - b[l] - cin)) << l;
    ASSERT_EQ(slot(3, l), uint64_t{b[l]} + cin > a[l] ? 1u : 0u) << l;
    ASSERT_EQ(slot(4, l), static_cast<uint32_t>(b[l] - a[l] - cin)) << l;
    ASSERT_EQ(slot(5, l), uint64_t{a[l]} + cin > b[l] ? 1u : 0u) << l;
    ASSERT_EQ(slot(6, l), b[l] - a[l]) << l;
    ASSERT_EQ(slot(7, l), a[l] > b[l] ? 1u : 0u) << l;
    ASSERT_EQ(slot(8, l), static_cast<uint32_t>(std::min<uint64_t>(uint64_t{a[l]} + b[l], UINT32_MAX))) << l;
    ASSERT_EQ(slot(9, l), a[l] > b[l] ? a[l] - b[l] : 0u) << l;
    ASSERT_EQ(slot(10, l), l % 2 ? static_cast<uint32_t>(sum) : 0x77u) << l;
    ASSERT_EQ(slot(11, l), l % 2 ? static_cast<uint32_t>(sum >> 32) : 0u) << l;
    ASSERT_EQ(slot(12, l), 0xFFFFFFFFull + cin > a[l] ? 1u : 0u) << l;
    ASSERT_EQ(slot(13, l), cin) << l;
    ASSERT_EQ(slot(14, l), 0xFFFFFFFFull + cin > b[l] ? 1u : 0u) << l;
    ASSERT_EQ(slot(15, l), static_cast<uint32_t>(a[l] - 0xFFFFFFFFu - static_cast<uint32_t>(cin))) << l;
  }
}

TEST_F(Vop, ConvertsAndScalesAtTheEdges) {
  auto o = run_vop("k_vop_cvt");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    const float x = ftz(inp.f[l]);
    const uint32_t u = std::isnan(x) || x <= 0 ? 0u : x >= 4294967296.0f ? UINT32_MAX : static_cast<uint32_t>(x);
    const int32_t i = std::isnan(x) ? 0 : x >= 2147483648.0f ? INT32_MAX : x <= -2147483648.0f ? INT32_MIN : static_cast<int32_t>(x);
    ASSERT_EQ(slot(0, l), u) << l;
    ASSERT_EQ(slot(1, l), static_cast<uint32_t>(i)) << l;
    ASSERT_TRUE(same(fslot(2, l), ftz(std::ldexp(x, static_cast<int32_t>(inp.a[l]))))) << l;
    const int e = static_cast<int>(inp.a[l] & 0xff) - 128;
    ASSERT_TRUE(same(fslot(3, l), ftz(std::ldexp(x, e)))) << l;
    ASSERT_TRUE(same(fslot(4, l), ftz(std::ldexp(FLT_MAX, e)))) << l;
    const uint64_t p = inp.a[l] | (uint64_t{inp.b[l]} << 32), q = inp.b[l] | (uint64_t{inp.a[l]} << 32);
    ASSERT_EQ(slot(5, l), static_cast<int64_t>(p) < static_cast<int64_t>(q) ? 1u : 0u) << l;
    ASSERT_EQ(slot(6, l), p > q ? 1u : 0u) << l;
    ASSERT_EQ(slot(7, l), 1u) << l;
    ASSERT_EQ(slot(8, l), p != q ? 1u : 0u) << l;
    ASSERT_EQ(slot(9, l), static_cast<int64_t>(p) >= static_cast<int64_t>(q) ? 1u : 0u) << l;
  }
}

TEST_F(Vop, AppliesModifiersNaNRulesAndDenormalFlush) {
  auto o = run_vop("k_vop_f32");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    float x = ftz(inp.f[l]);
    auto nanmax = [](float p, float q) { return std::isnan(p) ? q : std::isnan(q) ? p : std::fmax(p, q); };
    auto nanmin = [](float p, float q) { return std::isnan(p) ? q : std::isnan(q) ? p : std::fmin(p, q); };
    ASSERT_TRUE(same(fslot(0, l), nanmax(x, 1.0f))) << l;
    ASSERT_TRUE(same(fslot(1, l), nanmin(x, 1.0f))) << l;
    ASSERT_TRUE(same(fslot(2, l), ftz(-x + 1.0f))) << l;
    float c = x * 2.0f;
    ASSERT_TRUE(same(fslot(3, l), std::isnan(c) ? 0.0f : std::fmin(std::fmax(c, 0.0f), 1.0f))) << l;
    ASSERT_TRUE(same(fslot(4, l), ftz((x + x) * 2.0f))) << l;
    int32_t ci = std::isnan(x) ? 0 : x >= 2147483647.0f ? INT32_MAX : x <= -2147483648.0f ? INT32_MIN : static_cast<int32_t>(x);
    ASSERT_EQ(static_cast<int32_t>(slot(5, l)), ci) << l;
    ASSERT_TRUE(same(fslot(6, l), std::nearbyint(x))) << l;
    if (std::isfinite(x)) { ASSERT_TRUE(same(fslot(7, l), std::fmin(x - std::floor(x), 0x1.fffffep-1f))) << l; }
    if (!std::isnan(x)) { ASSERT_TRUE(same(fslot(8, l), std::fmax(std::fmin(x, 0.0f), std::fmin(std::fmax(x, 0.0f), 1.0f)))) << l; }
    ASSERT_EQ(slot(9, l), std::isnan(inp.f[l]) ? 1u : 0u) << l;
    ASSERT_TRUE(same(fslot(10, l), ftz(x * 0.5f))) << l;
    ASSERT_TRUE(same(fslot(11, l), ftz(std::fma(x, x, -1.0f)))) << l;
    float h = static_cast<float>(static_cast<_Float16>(x));
    ASSERT_TRUE(same(fslot(12, l), h)) << l << " " << x;
    if (std::isfinite(x)) { int e; ASSERT_TRUE(same(fslot(13, l), std::frexp(x, &e))) << l; }
    ASSERT_TRUE(same(fslot(14, l), ftz(std::ldexp(x, 3)))) << l;
    ASSERT_EQ(slot(15, l), x < 1.0f ? 1u : 0u) << l;
    ASSERT_TRUE(same(fslot(16, l), ftz(std::fma(-x, 1.0f, 0.5f)))) << l;
  }
}

TEST_F(Vop, ComputesDoublesPackedAndSixteenBit) {
  auto o = run_vop("k_vop_f64");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    double x = ftz(inp.f[l]);
    double d = std::fma(x, 0.5, -(x * x));
    double got = dbl(slot(0, l), slot(1, l));
    ASSERT_TRUE((std::isnan(d) && std::isnan(got)) || d == got) << l;
    double sq = std::sqrt(static_cast<double>(inp.a[l]));
    ASSERT_EQ(dbl(slot(2, l), slot(3, l)), sq) << l;
    ASSERT_EQ(slot(4, l), static_cast<uint32_t>(sq)) << l;
    double mx = std::isnan(x) ? 1.0 : std::fmax(x, 1.0);
    uint64_t mb; std::memcpy(&mb, &mx, 8);
    ASSERT_EQ(slot(5, l), static_cast<uint32_t>(mb >> 32)) << l;
    ASSERT_TRUE(same(fslot(6, l), ftz(static_cast<float>(x * x)))) << l;
    float fa = ftz(fl(inp.a[l])), fb = ftz(fl(inp.b[l]));
    ASSERT_TRUE(same(fslot(7, l), ftz(fa * fa))) << l;
    ASSERT_TRUE(same(fslot(8, l), ftz(fa * fa))) << l;
    ASSERT_TRUE(same(fslot(9, l), ftz(fb + fb))) << l;
    _Float16 ha, hb;
    uint16_t ua = static_cast<uint16_t>(inp.a[l]), ub = static_cast<uint16_t>(inp.b[l]);
    std::memcpy(&ha, &ua, 2); std::memcpy(&hb, &ub, 2);
    _Float16 hs = static_cast<_Float16>(static_cast<float>(ha) + static_cast<float>(hb));
    uint16_t us; std::memcpy(&us, &hs, 2);
    bool nan16 = (us & 0x7C00) == 0x7C00 && (us & 0x3FF);
    if (nan16) ASSERT_TRUE((slot(10, l) & 0x7C00) == 0x7C00 && (slot(10, l) & 0x3FF)) << l;
    else ASSERT_EQ(slot(10, l), us) << l;
    uint32_t pk = ((inp.a[l] + inp.b[l]) & 0xFFFF) | (((inp.a[l] >> 16) + (inp.b[l] >> 16)) << 16);
    ASSERT_EQ(slot(11, l), pk) << l;
    ASSERT_EQ(slot(12, l), (inp.a[l] & 0xFFFF) >> 4) << l;
    ASSERT_EQ(slot(13, l), inp.a[l]) << l;
    ASSERT_EQ(slot(14, l), inp.a[l]) << l;
    ASSERT_EQ(slot(15, l), inp.b[l]) << l;
  }
}

}  // namespace

namespace {

class Dpp : public IsaTest {};

TEST_F(Dpp, PermutesLanesWithMasksAndBoundCtrl) {
  auto o = run_isa("dpp_sdwa.co", "k_dpp");
  ASSERT_TRUE(o.ok()) << o.message;
  auto v1 = [](int l) { return static_cast<uint32_t>(l * 10 + 1); };
  const uint32_t old = 0xaaaa;
  for (int l = 0; l < 64; ++l) {
    int r = l & 15;
    ASSERT_EQ(slot(0, l), r == 0 ? old : v1(l - 1)) << l;                // row_shr:1
    ASSERT_EQ(slot(1, l), r == 0 ? 0u : v1(l - 1)) << l;                 // + bound_ctrl
    ASSERT_EQ(slot(2, l), r + 2 < 16 ? v1(l + 2) : 0u) << l;             // row_shl:2
    ASSERT_EQ(slot(3, l), v1((l & ~3) | (3 - (l & 3)))) << l;            // quad_perm
    ASSERT_EQ(slot(4, l), v1((l & ~15) | (15 - r))) << l;                // row_mirror
    ASSERT_EQ(slot(5, l), v1((l & ~7) | (7 - (l & 7)))) << l;            // row_half_mirror
    ASSERT_EQ(slot(6, l), v1((l & ~15) | ((r - 4) & 15))) << l;          // row_ror:4
    ASSERT_EQ(slot(7, l), l == 0 ? 0u : v1(l - 1)) << l;                 // wave_shr:1
    int row = l >> 4;
    ASSERT_EQ(slot(8, l), (row == 1 || row == 3) ? v1((l & ~15) - 1) : old) << l;  // row_bcast:15
    ASSERT_EQ(slot(9, l), row >= 2 ? v1(31) : old) << l;                 // row_bcast:31
    int bank = (l >> 2) & 3;
    bool written = (bank == 0 || bank == 2) && r < 15;                   // bank mask, shl invalid
    ASSERT_EQ(slot(10, l), written ? v1(l + 1) + v1(l) : old) << l;
    ASSERT_EQ(slot(11, l), l % 2 == 0 ? 0u : old) << l;                  // inactive sources
    ASSERT_EQ(slot(12, l), v1((l + 1) & 63)) << l;                       // wave_rol:1
  }
}

TEST_F(Dpp, SelectsSubDwordsWithSdwa) {
  auto o = run_isa("dpp_sdwa.co", "k_sdwa");
  ASSERT_TRUE(o.ok()) << o.message;
  for (uint32_t l = 0; l < 64; ++l) {
    uint32_t v1 = 0x12345678 + l, v4 = (l * 0x01010101u) | 0x80;
    uint32_t sum = ((v1 >> 8) & 0xff) + (v4 & 0xffff);
    ASSERT_EQ(slot(0, l), (0xaaaau & 0xffff) | ((sum & 0xffff) << 16)) << l;
    ASSERT_EQ(slot(1, l), ((v4 & 0xff) << 16) | 0xff000000u) << l;
    ASSERT_EQ(slot(2, l), (v1 >> 16) & 0xffff) << l;
    ASSERT_EQ(slot(3, l), (v1 >> 16) & v4) << l;
    ASSERT_EQ(slot(4, l), (v4 & 0xff) < (v1 & 0xff) ? 1u : 0u) << l;
    uint32_t d = static_cast<uint32_t>(static_cast<int8_t>(v4 & 0xff)) - (v1 & 0xff);
    ASSERT_EQ(slot(5, l), (d & 0xffff) << 16) << l;
    ASSERT_EQ(slot(6, l), l == 42 ? 1u : 0u) << l;
  }
}

}  // namespace

namespace {

class Mem : public IsaTest {};

TEST_F(Mem, AccessesLdsAndCrossesLanes) {
  auto o = run_isa("mem.co", "k_lds");
  ASSERT_TRUE(o.ok()) << o.message;
  auto v1 = [](unsigned l) { return l * 10 + 1; };
  std::vector<bool> seen(64);
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(0, l), v1(l));
    ASSERT_EQ(slot(1, l), ~v1(l));
    ASSERT_LT(slot(2, l), 64u);
    seen[slot(2, l)] = true;
    ASSERT_EQ(slot(3, l), 64u);
    const unsigned quad[4] = {1, 0, 3, 2};
    ASSERT_EQ(slot(4, l), v1((l & ~3u) | quad[l & 3])) << l;
    // BITMASK_PERM "01pip": and_mask 0b00111, or_mask 0b01000, xor_mask 0b00010.
    ASSERT_EQ(slot(5, l), v1((l & 0x20) | (((l & 7) | 8) ^ 2))) << l;
    ASSERT_EQ(slot(6, l), v1((l + 5) & 63)) << l;
    ASSERT_EQ(slot(7, l), v1((l - 5) & 63)) << l;
    ASSERT_EQ(slot(8, l), v1(l)) << l;
    ASSERT_EQ(slot(9, l), 7u);
    ASSERT_EQ(slot(10, l), 99u);
    ASSERT_EQ(slot(11, l), 0u);
    ASSERT_EQ(slot(12, l), 99u) << "vaddr -4 + offset 1028 must wrap to LDS address 1024";
    ASSERT_EQ(slot(13, l), l) << "ds_add_rtn into its own data register returns the old value";
    ASSERT_EQ(slot(14, l), 2 * l + 2) << l;
  }
  for (unsigned i = 0; i < 64; ++i) EXPECT_TRUE(seen[i]) << "ds_add_rtn value " << i;
}

// The memory counters: results are held back until an s_waitcnt proves them returned, so a
// kernel missing a wait reads the register's old value, as it may on a GPU.
TEST_F(Mem, LoadResultsArriveOnlyAtTheWaitThatProvesThem) {
  auto o = run_isa("mem.co", "k_waitcnt_vm", 128, 64);  // the second workgroup runs decoded code
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(0, l), 7u) << "read before any s_waitcnt";
    ASSERT_EQ(slot(1, l), l + 1000) << "vmcnt(1): the older of two loads returned";
    ASSERT_EQ(slot(2, l), 8u) << "vmcnt(1): the newer load is not proved";
    ASSERT_EQ(slot(3, l), l + 1000) << "vmcnt(0)";
  }
}

TEST_F(Mem, LgkmCountProvesLdsInOrderAndScalarLoadsOnlyAtZero) {
  auto o = run_isa("mem.co", "k_waitcnt_lgkm", 128, 64);  // the second workgroup runs decoded code
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(1, l), l) << "lgkmcnt(1) of three: the first ds_read is proved";
    ASSERT_EQ(slot(2, l), 0x88u) << "the second ds_read is not";
    ASSERT_EQ(slot(3, l), 5u) << "nor the s_load (scalar memory returns out of order)";
    ASSERT_EQ(slot(4, l), 0xBADBADu) << "lgkmcnt(0)";
    ASSERT_EQ(slot(5, l), l);
  }
}

TEST_F(Mem, AWaitRightAfterALoadProvesItOnlyAtZero) {
  auto o = run_isa("mem.co", "k_waitcnt_next", 128, 64);  // the second workgroup runs decoded code
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(0, l), 8u) << "vmcnt(1) right after the second load does not prove it";
    ASSERT_EQ(slot(1, l), l + 1000) << "it proves the first";
    ASSERT_EQ(slot(2, l), l + 1000) << "vmcnt(0) right after a load";
  }
}

TEST_F(Mem, ALoadsResultLandsAtItsWaitOverAnEarlierWrite) {
  auto o = run_isa("mem.co", "k_waitcnt_waw", 128, 64);  // the second workgroup runs decoded code
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(0, l), 5u) << "the VALU's write, read before the wait";
    ASSERT_EQ(slot(1, l), l + 1000) << "the load's result, at the wait";
  }
}

// Two loads of one kind into one register with no wait between them land in issue order (LLVM
// emits that: SIInsertWaitcnts), whichever of them is held back.
TEST_F(Mem, LoadsIntoOneRegisterLandInIssueOrder) {
  for (const char* k : {"k_waitcnt_waw_loads", "k_waitcnt_waw_held", "k_waitcnt_waw_lds"}) {
    auto o = run_isa("mem.co", k, 128, 64);
    ASSERT_TRUE(o.ok()) << k << ": " << o.message;
    for (unsigned l = 0; l < 64; ++l) ASSERT_EQ(slot(0, l), l + 2000) << k << " lane " << l;
  }
  auto o = run_isa("mem.co", "k_waitcnt_waw_divergent", 128, 64);
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) ASSERT_EQ(slot(0, l), l < 32 ? l + 2000 : l + 1000) << l;
}

// FLAT returns in any order within VM_CNT (from LDS or memory), LDS and messages in any order
// with each other: a non-zero count after them proves nothing; a call ends the look-ahead.
TEST_F(Mem, MixedKindsProveOnlyAtZero) {
  const std::pair<const char*, uint32_t> cases[] = {
      {"k_waitcnt_flat_order", 7u}, {"k_waitcnt_lgkm_kinds", 0x77u}, {"k_waitcnt_call", 7u}};
  for (const auto& [k, want] : cases) {
    auto o = run_isa("mem.co", k, 128, 64);
    ASSERT_TRUE(o.ok()) << k << ": " << o.message;
    for (unsigned l = 0; l < 64; ++l) ASSERT_EQ(slot(0, l), want) << k << " lane " << l;
  }
}

TEST_F(Mem, AFullVmCountMakesTheOldestLoadReturn) {
  auto o = run_isa("mem.co", "k_waitcnt_full", 128, 64);  // the second workgroup runs decoded code
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(0, l), l + 1000) << "64th instruction: the oldest taken as returned";
    ASSERT_EQ(slot(1, l), 7u) << "63 outstanding fit the counter";
    ASSERT_EQ(slot(2, l), l + 1000);
  }
}

TEST_F(Mem, SharesScratchBetweenBufferScratchAndFlat) {
  auto o = run_isa("mem.co", "k_scratch", 128, 128);  // two waves: separate private memory
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned t = 0; t < 128; ++t) {
    ASSERT_EQ(out[t], 3 * t + 7) << t;
    ASSERT_EQ(out[128 + t], 3 * t + 8) << t;
    ASSERT_EQ(out[256 + t], 3 * t + 7) << t;
  }
}

TEST_F(Mem, ReturnsOldValuesFromGlobalAtomics) {
  uint32_t* p = mem.alloc_array<uint32_t>(8);
  auto o = run_isa("mem.co", "k_atomics", 64, 64, Args().add(p));
  ASSERT_TRUE(o.ok()) << o.message;
  std::vector<bool> seen(64);
  for (unsigned l = 0; l < 64; ++l) { ASSERT_LT(slot(0, l), 64u); seen[slot(0, l)] = true; }
  for (unsigned i = 0; i < 64; ++i) EXPECT_TRUE(seen[i]);
  EXPECT_EQ(p[0], 64u);
  EXPECT_EQ(p[1], 5u);
  EXPECT_EQ(p[2], 63u);
  EXPECT_EQ(p[3], 63u);
  float f; std::memcpy(&f, &p[4], 4);
  EXPECT_EQ(f, 32.0f);
  EXPECT_EQ(slot(1, 0), 0u);
  EXPECT_EQ(slot(2, 0), 5u);
  EXPECT_EQ(slot(3, 0), 5u);
  EXPECT_EQ(slot(4, 0), 0u);
}

}  // namespace

namespace {

class VopGprIdx : public IsaTest {};

TEST_F(VopGprIdx, IndexesVgprsThroughM0) {
  auto o = run_isa("vop.co", "k_gpr_idx");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(0, l), 102u);
    ASSERT_EQ(slot(1, l), l);
    ASSERT_EQ(slot(2, l), 100u);
  }
}

}  // namespace

namespace {

class SopConst : public IsaTest {};

TEST_F(SopConst, UsesF64InlineConstantsForSixtyFourBitOperands) {
  auto o = run_isa("sop.co", "k_sop_const64");
  ASSERT_TRUE(o.ok()) << o.message;
  auto hi = [](double d) { uint64_t u; std::memcpy(&u, &d, 8); return static_cast<uint32_t>(u >> 32); };
  EXPECT_EQ(slot(0, 0), 0u);
  EXPECT_EQ(slot(1, 0), hi(1.0));
  EXPECT_EQ(slot(2, 0), hi(-4.0));
  EXPECT_EQ(slot(3, 0), 0xffffffffu);  // integers sign-extend
}

}  // namespace

namespace {

class VopDot : public IsaTest {};

TEST_F(VopDot, SumsPackedProducts) {
  auto o = run_isa("vop.co", "k_dot");
  ASSERT_TRUE(o.ok()) << o.message;
  const uint32_t b = 0xfe02fd03u;
  for (uint32_t l = 0; l < 64; ++l) {
    uint32_t a = (0x01030507u & 0xffffff) * l;  // v_mul_u32_u24 uses the low 24 bits
    int32_t s4 = 1000, u4 = 1000, s2 = 1000, c4 = 7;
    for (int i = 0; i < 4; ++i) {
      s4 += static_cast<int8_t>(a >> (8 * i)) * static_cast<int8_t>(b >> (8 * i));
      u4 += static_cast<int32_t>(((a >> (8 * i)) & 0xff) * ((b >> (8 * i)) & 0xff));
      c4 += static_cast<int8_t>(a >> (8 * i)) * static_cast<int8_t>(b >> (8 * i));
    }
    for (int i = 0; i < 2; ++i) s2 += static_cast<int16_t>(a >> (16 * i)) * static_cast<int16_t>(b >> (16 * i));
    ASSERT_EQ(static_cast<int32_t>(slot(0, l)), s4) << l;
    ASSERT_EQ(static_cast<int32_t>(slot(1, l)), u4) << l;
    ASSERT_EQ(static_cast<int32_t>(slot(2, l)), s2) << l;
    ASSERT_EQ(static_cast<int32_t>(slot(3, l)), c4) << l;
    ASSERT_EQ(fslot(4, l), 11.5f) << l;
  }
}

}  // namespace
