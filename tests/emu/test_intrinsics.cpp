// SPDX-License-Identifier: MIT
// Corpus kernels built on clang's AMDGPU builtins (kernels/intrin.hip) and on raw buffer
// intrinsics (kernels/buffer.hip), checked against host models of the ISA operations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/emu/harness.h"

using namespace emu_test;
using emu::shader::Outcome;
using emu::shader::ShaderCore;
using emu::shader::Target;

namespace {

class CorpusIntrinsics : public ::testing::Test {
 protected:
  Outcome run(const std::string& file, const std::string& kernel, uint32_t n, uint16_t block, const Args& a) {
    auto& co = objects[file];
    if (!co.base()) { EXPECT_EQ(co.load(kernel_path(file), mem), ""); }
    Launch l;
    l.grid[0] = n;
    l.block[0] = block;
    Outcome o = dispatch(core, mem, co.kernel(kernel), l, a.data(), a.size());
    EXPECT_TRUE(o.ok()) << kernel << ": " << o.message;
    return o;
  }
  HostMemory mem;
  std::map<std::string, CodeObject> objects;
  ShaderCore core{Target::gfx90a, 2};
  std::mt19937 rng{77};
};

uint32_t byte_of(uint32_t x, unsigned i) { return (x >> (8 * i)) & 0xFF; }
uint32_t adiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }
uint32_t sad8(uint32_t a, uint32_t b, bool masked) {
  uint32_t s = 0;
  for (unsigned i = 0; i < 4; ++i)
    if (!masked || byte_of(b, i)) s += adiff(byte_of(a, i), byte_of(b, i));
  return s;
}
template <class T> T sat(int64_t v) {
  return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}
uint32_t pack16(uint32_t lo, uint32_t hi) { return (lo & 0xFFFF) | (hi << 16); }

TEST_F(CorpusIntrinsics, ComputesSadLerpSaturationAndBitOps) {
  const unsigned n = 256;
  auto* a = mem.alloc_array<uint32_t>(n); auto* b = mem.alloc_array<uint32_t>(n); auto* out = mem.alloc_array<uint32_t>(16 * n);
  for (unsigned i = 0; i < n; ++i) { a[i] = rng(); b[i] = rng(); }
  a[0] = 0x7FFFFFF0; b[0] = 0x20;          // i32 add overflows, u32 add does not
  a[1] = 0x80000005; b[1] = 0x10;          // i32 sub underflows
  a[2] = 0xFFFFFFF0; b[2] = 0x7FFF8000;    // u32 add overflows; 16-bit halves saturate
  a[3] = 0x12005600; b[3] = 0x00340078;    // msad skips zero reference bytes
  run("intrin.co", "int_builtins", n, 64, Args().add(a).add(b).add(out));
  for (unsigned i = 0; i < n; ++i) {
    uint32_t x = a[i], y = b[i];
    const uint32_t* o = out + 16 * i;
    ASSERT_EQ(o[0], sad8(x, y, false) + 7) << i;
    ASSERT_EQ(o[1], sad8(x, y, true) + 9) << i;
    ASSERT_EQ(o[2], (sad8(x, y, false) << 16) + 11) << i;
    ASSERT_EQ(o[3], adiff(x & 0xFFFF, y & 0xFFFF) + adiff(x >> 16, y >> 16) + 13) << i;
    uint32_t lerp = 0;
    for (unsigned k = 0; k < 4; ++k) lerp |= ((byte_of(x, k) + byte_of(y, k) + (k & 1)) >> 1) << (8 * k);
    ASSERT_EQ(o[4], lerp) << i;
    int64_t sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y);
    ASSERT_EQ(o[5], static_cast<uint32_t>(sat<int32_t>(sx + sy))) << i;
    ASSERT_EQ(o[6], static_cast<uint32_t>(sat<int32_t>(sx - sy))) << i;
    ASSERT_EQ(o[7], sat<uint32_t>(int64_t{x} + y)) << i;
    ASSERT_EQ(o[8], sat<uint32_t>(int64_t{x} - y)) << i;
    ASSERT_EQ(o[9], pack16(sat<uint16_t>(int64_t{x & 0xFFFF} + (y & 0xFFFF)), sat<uint16_t>(int64_t{x >> 16} + (y >> 16)))) << i;
    int64_t hx = static_cast<int16_t>(x), hy = static_cast<int16_t>(y);
    int64_t hx1 = static_cast<int16_t>(x >> 16), hy1 = static_cast<int16_t>(y >> 16);
    ASSERT_EQ(o[10], pack16(static_cast<uint16_t>(sat<int16_t>(hx + hy)), static_cast<uint16_t>(sat<int16_t>(hx1 + hy1)))) << i;
    ASSERT_EQ(o[11], pack16(sat<uint16_t>(int64_t{x & 0xFFFF} - (y & 0xFFFF)), sat<uint16_t>(int64_t{x >> 16} - (y >> 16)))) << i;
    ASSERT_EQ(o[12], static_cast<uint32_t>(((uint64_t{x} << 32) | y) >> (8 * (i & 3)))) << i;
    ASSERT_EQ(o[13], (x >> (i & 31)) & 31) << i;
    unsigned off = (i * 3) & 15;
    ASSERT_EQ(o[14], static_cast<uint32_t>(static_cast<int32_t>(y << (32 - off - 7)) >> 25)) << i;
    ASSERT_EQ(o[15], byte_of(y, 1) | byte_of(y, 3) << 8 | byte_of(x, 1) << 16 | byte_of(x, 3) << 24) << i;
  }
}

// Host models (AMD Vega ISA): cube-map face selection and normalized/packed conversions.
float cube(int which, float x, float y, float z) {
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  if (az >= ax && az >= ay) {
    const float v[4] = {z < 0 ? 5.0f : 4.0f, z < 0 ? -x : x, -y, 2 * z};
    return v[which];
  }
  if (ay >= ax) {
    const float v[4] = {y < 0 ? 3.0f : 2.0f, x, y < 0 ? -z : z, 2 * y};
    return v[which];
  }
  const float v[4] = {x < 0 ? 1.0f : 0.0f, x < 0 ? z : -z, -y, 2 * x};
  return v[which];
}
uint32_t norm(double x, double scale, double lo, double hi) {
  if (std::isnan(x)) return 0;
  return static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(std::clamp(x * scale, lo, hi)))) & 0xFFFF;
}
uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
uint16_t hbits(_Float16 h) { uint16_t u; std::memcpy(&u, &h, 2); return u; }
float fmin_nan(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::fmin(a, b); }
float fmax_nan(float a, float b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::fmax(a, b); }
float med3(float a, float b, float c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return fmin_nan(fmin_nan(a, b), c);
  return fmax_nan(fmin_nan(a, b), fmin_nan(fmax_nan(a, b), c));
}
bool same_bits_or_nan(uint32_t got, float ref) {
  float g;
  std::memcpy(&g, &got, 4);
  return std::isnan(ref) ? std::isnan(g) : got == bits(ref);
}

TEST_F(CorpusIntrinsics, ComputesCubeCoordinatesPackingAndHalfBuiltins) {
  const unsigned n = 192;
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); auto* out = mem.alloc_array<uint32_t>(16 * n);
  std::uniform_real_distribution<float> d(-2.5f, 2.5f);
  for (unsigned i = 0; i < n; ++i) { a[i] = d(rng); b[i] = d(rng); }
  a[0] = NAN; b[1] = NAN; a[2] = -0.0f; a[3] = 1e-6f; b[3] = -1e-6f; a[4] = 0.25f; b[4] = 0.25f;
  run("intrin.co", "float_builtins", n, 64, Args().add(a).add(b).add(out));
  for (unsigned i = 0; i < n; ++i) {
    float x = a[i], y = b[i];
    const uint32_t* o = out + 16 * i;
    if (!std::isnan(x) && !std::isnan(y)) {
      for (int k = 0; k < 4; ++k) ASSERT_EQ(o[k], bits(cube(k, x, y, 0.5f))) << i << " cube " << k;
    }
    ASSERT_EQ(o[4], norm(x, 32767, -32767, 32767) | norm(y, 32767, -32767, 32767) << 16) << i;
    ASSERT_EQ(o[5], norm(x, 65535, 0, 65535) | norm(y, 65535, 0, 65535) << 16) << i;
    if (!std::isnan(x) && !std::isnan(y)) {
      int32_t ix = static_cast<int32_t>(x * 70000.0f), iy = static_cast<int32_t>(y * 70000.0f);
      ASSERT_EQ(o[6], pack16(static_cast<uint16_t>(sat<int16_t>(ix)), static_cast<uint16_t>(sat<int16_t>(iy)))) << i;
      uint32_t ux = static_cast<uint32_t>(std::fabs(x * 70000.0f)), uy = static_cast<uint32_t>(std::fabs(y * 90000.0f));
      ASSERT_EQ(o[7], pack16(std::min(ux, 0xFFFFu), std::min(uy, 0xFFFFu))) << i;
    }
    unsigned sh = 8 * (i & 3);
    uint32_t u8 = std::isnan(x) ? 0 : static_cast<uint32_t>(std::nearbyint(std::clamp(x * 200.0f, 0.0f, 255.0f)));
    ASSERT_EQ(o[8], (0x11223344u & ~(0xFFu << sh)) | (u8 << sh)) << i;
    _Float16 hx = static_cast<_Float16>(x), hy = static_cast<_Float16>(y);
    _Float16 m = static_cast<_Float16>(med3(static_cast<float>(hx), static_cast<float>(hy), 0.25f));
    if (std::isnan(static_cast<float>(m))) {
      ASSERT_TRUE((o[9] & 0x7C00) == 0x7C00 && (o[9] & 0x3FF)) << i;
    } else {
      ASSERT_EQ(o[9], hbits(m)) << i;
    }
    if (std::isfinite(x)) {
      int e = 0;
      float mant = std::frexp(static_cast<float>(hx), &e);
      ASSERT_EQ(o[10], hbits(static_cast<_Float16>(mant))) << i;
      ASSERT_EQ(static_cast<int16_t>(o[11]), e) << i;
      mant = std::frexp(x, &e);
      ASSERT_EQ(o[12], bits(mant)) << i;
      ASSERT_EQ(static_cast<int32_t>(o[13]), e) << i;
    }
    if (!std::isnan(x) && !std::isnan(y)) {
      _Float16 lo = static_cast<_Float16>(std::fma(static_cast<double>(hx), static_cast<double>(hy), 1.0));
      _Float16 hi = static_cast<_Float16>(std::fma(static_cast<double>(hy), static_cast<double>(hx), -2.0));
      ASSERT_EQ(o[14], pack16(hbits(lo), hbits(hi))) << i;
    }
    ASSERT_TRUE(same_bits_or_nan(o[15], med3(x, y, 0.5f))) << i;
  }
}

TEST_F(CorpusIntrinsics, AppendsAndConsumesLdsCounters) {
  const unsigned block = 256, blocks = 3, n = block * blocks;
  auto* in = mem.alloc_array<uint32_t>(n); auto* out = mem.alloc_array<uint32_t>(n); auto* counts = mem.alloc_array<uint32_t>(2 * blocks);
  for (unsigned i = 0; i < n; ++i) in[i] = (i / 64 == 5) ? 0 : rng();  // wave 5 appends nothing
  run("intrin.co", "append_consume", n, block, Args().add(in).add(out).add(counts));
  for (unsigned b = 0; b < blocks; ++b) {
    std::vector<std::pair<uint32_t, uint32_t>> waves;  // (base the wave got, lanes it appended)
    uint32_t total = 0;
    for (unsigned wv = 0; wv < block / 64; ++wv) {
      uint32_t base = ~0u, cnt = 0;
      for (unsigned l = 0; l < 64; ++l) {
        unsigned i = b * block + wv * 64 + l;
        if (!(in[i] & 1)) { ASSERT_EQ(out[i], ~0u) << i; continue; }
        if (cnt == 0) base = out[i];
        ASSERT_EQ(out[i], base) << "every lane of a wave gets the same pre-op value, " << i;
        ++cnt;
      }
      if (cnt) waves.push_back({base, cnt});
      total += cnt;
    }
    ASSERT_EQ(counts[2 * b], total) << b;
    ASSERT_EQ(counts[2 * b + 1], 1000 - total) << b;
    std::sort(waves.begin(), waves.end());
    uint32_t expect = 0;
    for (auto [base, cnt] : waves) { ASSERT_EQ(base, expect) << b; expect += cnt; }
  }
}

TEST_F(CorpusIntrinsics, MovesDataAcrossLanesWithDppAndSwizzle) {
  const unsigned n = 128;
  int* in = mem.alloc_array<int>(n); int* out = mem.alloc_array<int>(8 * n);
  for (unsigned i = 0; i < n; ++i) in[i] = static_cast<int>(i * 7 + 3);
  run("intrin.co", "dpp_ops", n, 64, Args().add(in).add(out));
  for (unsigned i = 0; i < n; ++i) {
    unsigned l = i & 63, w = i & ~63u, r = l & 15;
    auto v = [&](unsigned lane) { return in[w + lane]; };
    const int* o = out + 8 * i;
    ASSERT_EQ(o[0], r == 0 ? -1 : v(l - 1)) << i;                        // row_shr:1, old value
    ASSERT_EQ(o[1], r == 15 ? 0 : v(l + 1)) << i;                        // row_shl:1, bound_ctrl
    ASSERT_EQ(o[2], v((l & ~3u) | (3 - (l & 3)))) << i;                  // quad_perm [3,2,1,0]
    unsigned row = l >> 4;
    ASSERT_EQ(o[3], (row == 1 || row == 3) ? v((l & ~15u) - 1) : -7) << i;  // row_bcast:15, row mask
    ASSERT_EQ(o[4], v(l ^ 1)) << i;                                       // ds_swizzle xor 1
    ASSERT_EQ(o[5], v(17)) << i;                                          // readlane
    ASSERT_EQ(o[6], v((l + 63) & 63) + v(l)) << i;                        // wave_ror:1
    ASSERT_EQ(o[7], v(l ^ 5)) << i;                                       // ds_permute
  }
}

TEST_F(CorpusIntrinsics, AccessesRawBuffersWithRangeChecksAndAtomics) {
  const unsigned n = 1000, grid = 1024;  // the last 24 work-items are past the buffers
  float* in = mem.alloc_array<float>(grid); float* out = mem.alloc_array<float>(grid);
  int* counters = mem.alloc_array<int>(3); int* olds = mem.alloc_array<int>(grid);
  float* fsum = mem.alloc_array<float>(1); auto* mx = mem.alloc_array<unsigned long>(1);
  for (unsigned i = 0; i < grid; ++i) { in[i] = 0.25f * i - 7.0f; out[i] = -99.0f; }
  counters[1] = -1;
  run("buffer.co", "buffer_ops", grid, 256, Args().add(in).add(out).add(n).add(counters).add(olds).add(fsum).add(mx));
  for (unsigned i = 0; i < grid; ++i) ASSERT_EQ(out[i], i < n ? in[i] * 2.0f + 1.0f : -99.0f) << i;
  EXPECT_EQ(counters[0], static_cast<int>(grid));
  EXPECT_GE(counters[1], 0);  // exactly one work-item swapped its id in
  EXPECT_LT(counters[1], static_cast<int>(grid));
  EXPECT_EQ(counters[2], -static_cast<int>(grid - 1));
  EXPECT_EQ(*fsum, 0.5f * grid);
  EXPECT_EQ(*mx, 3ul * (grid - 1));
  std::vector<int> sorted(olds, olds + grid);
  std::sort(sorted.begin(), sorted.end());
  for (unsigned i = 0; i < grid; ++i) ASSERT_EQ(sorted[i], static_cast<int>(i)) << "pre-op values of the atomic add";
}

TEST_F(CorpusIntrinsics, ChecksBufferRangesPerDword) {
  const unsigned vecs = 64, bytes = 16 * 40 + 8;  // vector 40 is half in range, 41.. are out
  float* in = mem.alloc_array<float>(4 * vecs); float* out = mem.alloc_array<float>(4 * vecs);
  float* sums = mem.alloc_array<float>(vecs);
  for (unsigned i = 0; i < 4 * vecs; ++i) { in[i] = static_cast<float>(i); out[i] = -1.0f; }
  run("buffer.co", "buffer_tail", vecs, 64, Args().add(in).add(out).add(sums).add(bytes));
  for (unsigned i = 0; i < 4 * vecs; ++i) {
    bool inside = 4 * i + 4 <= bytes;
    ASSERT_EQ(out[i], inside ? in[i] + 1.0f : -1.0f) << i;
  }
  for (unsigned v = 0; v < vecs; ++v) {
    float s = 0;
    for (unsigned k = 0; k < 4; ++k) s += 16 * v + 4 * k + 4 <= bytes ? in[4 * v + k] : 0.0f;
    ASSERT_EQ(sums[v], s) << v;
  }
}

}  // namespace
