// SPDX-License-Identifier: MIT
// Runs the clang-15 HIP corpus (kernels/*.hip) through the shader core against host references.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "tests/emu/harness.h"

using namespace emu_test;
using emu::shader::Outcome;
using emu::shader::ShaderCore;
using emu::shader::Target;

namespace {

class Corpus : public ::testing::Test {
 protected:
  void SetUp() override { core = std::make_unique<ShaderCore>(Target::gfx90a, 2); }
  uint64_t kernel(const std::string& file, const std::string& name) {
    auto& co = objects[file];
    if (!co.base()) {
      std::string err = co.load(kernel_path(file), mem);
      EXPECT_EQ(err, "");
    }
    uint64_t kd = co.kernel(name);
    EXPECT_NE(kd, 0u) << name;
    return kd;
  }
  Outcome run(const std::string& file, const std::string& name, Launch l, const Args& a) {
    Outcome o = dispatch(*core, mem, kernel(file, name), l, a.data(), a.size());
    EXPECT_TRUE(o.ok()) << name << ": " << o.message;
    return o;
  }
  static Launch grid1(uint32_t n, uint16_t block) {
    Launch l; l.grid[0] = n; l.block[0] = block; return l;
  }
  HostMemory mem;
  std::map<std::string, CodeObject> objects;
  std::unique_ptr<ShaderCore> core;
  std::mt19937 rng{1234};
};

TEST_F(Corpus, RunsVectorAdd) {
  const unsigned n = 1000;  // not a multiple of the block: the last block is partial
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* c = mem.alloc_array<float>(n + 1);
  for (unsigned i = 0; i < n; ++i) { a[i] = 0.5f * i; b[i] = 3.0f - i; }
  c[n] = -7.0f;
  run("basic.co", "vadd", grid1(n, 256), Args().add(a).add(b).add(c).add(n));
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_EQ(c[n], -7.0f);
}

// Code replaced at an address that already ran is decoded again (the decode cache compares the
// page with its snapshot once per dispatch): vadd's v_add_f32 is patched to v_sub_f32 and back.
TEST_F(Corpus, DecodesPatchedCodeAgain) {
  if (const char* v = std::getenv("EMU_KERNEL_VARIANT"); v && *v)
    GTEST_SKIP() << "patches the instruction clang-15 -O2 emits (variant " << v << ")";
  const unsigned n = 256;
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* c = mem.alloc_array<float>(n);
  for (unsigned i = 0; i < n; ++i) { a[i] = 0.5f * i; b[i] = 3.0f - i; }
  const Args args = Args().add(a).add(b).add(c).add(n);
  run("basic.co", "vadd", grid1(n, 64), args);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  // v_add_f32_e32 v2, v6, v7 (VOP2 opcode 1 in bits 30:25; v_sub_f32 is opcode 2), as clang-15
  // emits it for vadd; v6 holds a[i], v7 b[i].
  const CodeObject& co = objects["basic.co"];
  uint32_t* add = nullptr;
  for (uint64_t va = co.text_begin; va + 4 <= co.text_end && !add; va += 4) {
    auto* p = reinterpret_cast<uint32_t*>(mem.translate(va, 4, false));  // read-only to the GPU
    if (p && *p == 0x02040F06u) add = p;
  }
  ASSERT_NE(add, nullptr) << "v_add_f32_e32 v2, v6, v7 not found in basic.co";
  *add = 0x04040F06u;  // v_sub_f32_e32 v2, v6, v7
  run("basic.co", "vadd", grid1(n, 64), args);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] - b[i]) << i;
  run("basic.co", "vadd", grid1(n, 64), args);  // unchanged page: the snapshot holds
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] - b[i]) << i;
  *add = 0x02040F06u;
  run("basic.co", "vadd", grid1(n, 64), args);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_F(Corpus, RunsSaxpy) {
  const unsigned n = 4096;
  float* x = mem.alloc_array<float>(n); float* y = mem.alloc_array<float>(n);
  std::vector<float> ref(n);
  std::uniform_real_distribution<float> d(-10, 10);
  for (unsigned i = 0; i < n; ++i) { x[i] = d(rng); y[i] = d(rng); ref[i] = std::fma(2.5f, x[i], y[i]); }
  run("basic.co", "saxpy", grid1(n, 128), Args().add(2.5f).add(x).add(y).add(n));
  for (unsigned i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[i], ref[i]) << i;
}

TEST_F(Corpus, Runs2DGridWithPartialWorkgroups) {
  const unsigned w = 37, h = 23;
  unsigned* out = mem.alloc_array<unsigned>(w * h);
  Launch l; l.grid[0] = w; l.grid[1] = h; l.block[0] = 16; l.block[1] = 8;
  run("basic.co", "grid2d", l, Args().add(out).add(w).add(h));
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) ASSERT_EQ(out[y * w + x], (y << 16) | x) << x << "," << y;
}

TEST_F(Corpus, Runs3DGridWithPartialWorkgroups) {
  const unsigned nx = 9, ny = 7, nz = 5;
  unsigned* out = mem.alloc_array<unsigned>(nx * ny * nz);
  Launch l; l.grid[0] = nx; l.grid[1] = ny; l.grid[2] = nz; l.block[0] = 4; l.block[1] = 4; l.block[2] = 2;
  run("basic.co", "grid3d", l, Args().add(out).add(nx).add(ny).add(nz));
  for (unsigned z = 0; z < nz; ++z)
    for (unsigned y = 0; y < ny; ++y)
      for (unsigned x = 0; x < nx; ++x)
        ASSERT_EQ(out[(z * ny + y) * nx + x], x + 100 * y + 10000 * z + 1);
}

TEST_F(Corpus, MasksLanesPastTheGrid) {
  const unsigned n = 100;  // block 64: second block has 36 work-items
  unsigned* out = mem.alloc_array<unsigned>(128);
  for (unsigned i = 0; i < 128; ++i) out[i] = 0xDEAD;
  run("basic.co", "partial_fill", grid1(n, 64), Args().add(out));
  for (unsigned i = 0; i < 128; ++i) ASSERT_EQ(out[i], i < n ? i * 3 + 1 : 0xDEADu) << i;
}

TEST_F(Corpus, ReducesWithLdsAndBarriers) {
  const unsigned n = 256 * 20 + 77, blocks = (n + 255) / 256;
  float* in = mem.alloc_array<float>(n); float* out = mem.alloc_array<float>(blocks);
  for (unsigned i = 0; i < n; ++i) in[i] = static_cast<float>(i % 17);
  run("lds.co", "reduce_sum", grid1(blocks * 256, 256), Args().add(in).add(out).add(n));
  for (unsigned b = 0; b < blocks; ++b) {
    float s = 0;
    for (unsigned i = b * 256; i < std::min(n, b * 256 + 256); ++i) s += in[i];
    ASSERT_EQ(out[b], s) << b;
  }
}

TEST_F(Corpus, UsesDynamicSharedMemory) {
  const unsigned block = 192, blocks = 5;
  unsigned* in = mem.alloc_array<unsigned>(block * blocks); unsigned* out = mem.alloc_array<unsigned>(block * blocks);
  for (unsigned i = 0; i < block * blocks; ++i) in[i] = i * 11 + 3;
  Launch l = grid1(block * blocks, block);
  l.dynamic_lds = block * 4;
  run("lds.co", "reverse_dynamic", l, Args().add(in).add(out));
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < block; ++t) ASSERT_EQ(out[b * block + t], in[b * block + block - 1 - t]);
}

TEST_F(Corpus, BuildsHistogramWithAtomics) {
  const unsigned n = 50000;
  uint8_t* data = mem.alloc_array<uint8_t>(n); unsigned* bins = mem.alloc_array<unsigned>(256);
  std::vector<unsigned> ref(256);
  for (unsigned i = 0; i < n; ++i) { data[i] = static_cast<uint8_t>(rng() % 97 * 3); ref[data[i]]++; }
  run("lds.co", "histogram", grid1(16 * 256, 256), Args().add(data).add(n).add(bins));
  for (unsigned i = 0; i < 256; ++i) ASSERT_EQ(bins[i], ref[i]) << i;
}

TEST_F(Corpus, RunsGlobalAtomics) {
  unsigned* counter = mem.alloc_array<unsigned>(1); int* mm = mem.alloc_array<int>(2);
  auto* sum = mem.alloc_array<unsigned long long>(1);
  mm[0] = 1 << 30; mm[1] = -(1 << 30);
  const unsigned n = 3000;
  run("lds.co", "global_atomics", grid1(n, 64), Args().add(counter).add(mm).add(sum));
  EXPECT_EQ(*counter, n);
  EXPECT_EQ(mm[0], -1000);
  EXPECT_EQ(mm[1], static_cast<int>(n - 1) - 1000);
  unsigned long long s = 0;
  for (unsigned i = 0; i < n; ++i) s += static_cast<unsigned long long>(i) << 20;
  EXPECT_EQ(*sum, s);
}

TEST_F(Corpus, ShufflesThroughBpermute) {
  const unsigned n = 256;
  int* in = mem.alloc_array<int>(n); int* out = mem.alloc_array<int>(n);
  for (unsigned i = 0; i < n; ++i) in[i] = static_cast<int>(i * 5 - 100);
  run("lanes.co", "shuffle_rotate", grid1(n, 128), Args().add(in).add(out).add(3));
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[i], in[(i & ~63u) | ((i + 3) & 63)]) << i;
}

TEST_F(Corpus, ComputesBallot) {
  const unsigned n = 256;
  int* in = mem.alloc_array<int>(n); auto* out = mem.alloc_array<unsigned long long>(n / 64);
  for (unsigned i = 0; i < n; ++i) in[i] = static_cast<int>(rng());
  run("lanes.co", "ballot_odd", grid1(n, 256), Args().add(in).add(out));
  for (unsigned w = 0; w < n / 64; ++w) {
    unsigned long long m = 0;
    for (unsigned l = 0; l < 64; ++l) m |= static_cast<unsigned long long>(in[w * 64 + l] & 1) << l;
    ASSERT_EQ(out[w], m) << w;
  }
}

TEST_F(Corpus, ReducesAcrossAWave) {
  const unsigned n = 512;
  int* in = mem.alloc_array<int>(n); int* out = mem.alloc_array<int>(n / 64);
  for (unsigned i = 0; i < n; ++i) in[i] = static_cast<int>(rng() % 1000) - 500;
  run("lanes.co", "wave_sum", grid1(n, 64), Args().add(in).add(out));
  for (unsigned w = 0; w < n / 64; ++w) {
    int s = 0;
    for (unsigned l = 0; l < 64; ++l) s += in[w * 64 + l];
    ASSERT_EQ(out[w], s) << w;
  }
}

TEST_F(Corpus, ComputesTranscendentalsThroughOcml) {
  const unsigned n = 300;
  float* x = mem.alloc_array<float>(n); float* out = mem.alloc_array<float>(4 * n);
  for (unsigned i = 0; i < n; ++i) x[i] = -1.5f + 0.0123f * i;
  run("math.co", "transcend_f32", grid1(n, 64), Args().add(x).add(out).add(n));
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_NEAR(out[4 * i + 0], std::sin(x[i]), 2e-6f * std::max(1.0f, std::fabs(std::sin(x[i])))) << i;
    ASSERT_NEAR(out[4 * i + 1], std::exp(x[i]), 4e-6f * std::exp(x[i])) << i;
    ASSERT_NEAR(out[4 * i + 2], std::log(x[i] + 2.0f), 4e-6f) << i;
    ASSERT_NEAR(out[4 * i + 3], std::sqrt(x[i] + 2.0f), 2e-6f * std::sqrt(x[i] + 2.0f)) << i;
  }
}

TEST_F(Corpus, DividesFloatsCorrectlyRounded) {
  const unsigned n = 512;
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* out = mem.alloc_array<float>(n);
  std::uniform_real_distribution<float> d(-1e6f, 1e6f);
  for (unsigned i = 0; i < n; ++i) { a[i] = d(rng); b[i] = d(rng); }
  a[0] = 1.0f; b[0] = 0.0f; a[1] = 0.0f; b[1] = 0.0f; a[2] = 1e-30f; b[2] = 1e30f; a[3] = 3e38f; b[3] = 1e-3f;
  run("math.co", "divide_f32", grid1(n, 64), Args().add(a).add(b).add(out).add(n));
  for (unsigned i = 0; i < n; ++i) {
    float ref = a[i] / b[i];
    if (std::isnan(ref)) ASSERT_TRUE(std::isnan(out[i])) << i;
    else ASSERT_EQ(out[i], ref) << i << ": " << a[i] << "/" << b[i];
  }
}

TEST_F(Corpus, ComputesInDoublePrecision) {
  const unsigned n = 200;
  double* x = mem.alloc_array<double>(n); double* out = mem.alloc_array<double>(4 * n);
  for (unsigned i = 0; i < n; ++i) x[i] = -2.0 + 0.021 * i;
  run("math.co", "double_ops", grid1(n, 64), Args().add(x).add(out).add(n));
  for (unsigned i = 0; i < n; ++i) {
    double v = x[i];
    ASSERT_NEAR(out[4 * i + 0], v * v + 1.0 / (v + 3.0), 1e-15 * (v * v + 1.0 / (v + 3.0))) << i;
    ASSERT_NEAR(out[4 * i + 1], std::sqrt(v + 3.0), 1e-15 * std::sqrt(v + 3.0)) << i;
    ASSERT_NEAR(out[4 * i + 2], std::exp(v * 0.5), 1e-15 * std::exp(v * 0.5)) << i;
    ASSERT_NEAR(out[4 * i + 3], std::sin(v), 1e-15) << i;
  }
}

TEST_F(Corpus, Divides64BitIntegers) {
  const unsigned n = 500;
  auto* a = mem.alloc_array<long long>(n); auto* b = mem.alloc_array<long long>(n);
  auto* q = mem.alloc_array<long long>(n); auto* r = mem.alloc_array<long long>(n);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = static_cast<long long>((static_cast<uint64_t>(rng()) << 32) | rng());
    b[i] = static_cast<long long>(rng() % 1000000007) - 500000000;
    if (i % 3 == 0) b[i] = static_cast<long long>((static_cast<uint64_t>(rng()) << 20) | rng());
    if (b[i] == 0) b[i] = 7;
  }
  a[0] = INT64_MIN; b[0] = 1;
  run("math.co", "int64_divmod", grid1(n, 64), Args().add(a).add(b).add(q).add(r).add(n));
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(q[i], a[i] / b[i]) << i;
    ASSERT_EQ(r[i], a[i] % b[i]) << i;
  }
}

TEST_F(Corpus, DividesUnsigned64BitIntegers) {
  const unsigned n = 300;
  auto* a = mem.alloc_array<unsigned long long>(n); auto* b = mem.alloc_array<unsigned long long>(n);
  auto* q = mem.alloc_array<unsigned long long>(n);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = (static_cast<uint64_t>(rng()) << 32) | rng();
    b[i] = (static_cast<uint64_t>(rng() >> (i % 32)) << (i % 33)) | 1;
  }
  run("math.co", "u64_div", grid1(n, 64), Args().add(a).add(b).add(q).add(n));
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(q[i], a[i] / b[i]) << i;
}

TEST_F(Corpus, Computes32BitIntegerOps) {
  const unsigned n = 400;
  int* a = mem.alloc_array<int>(n); int* b = mem.alloc_array<int>(n); int* out = mem.alloc_array<int>(4 * n);
  for (unsigned i = 0; i < n; ++i) { a[i] = static_cast<int>(rng()); b[i] = static_cast<int>(rng()); }
  a[0] = INT32_MIN; b[0] = -1;
  run("math.co", "int32_ops", grid1(n, 64), Args().add(a).add(b).add(out).add(n));
  for (unsigned i = 0; i < n; ++i) {
    int x = a[i], y = b[i];
    if (!(x == INT32_MIN && (y | 1) == -1)) { ASSERT_EQ(out[4 * i + 0], x / (y | 1)) << i; }
    ASSERT_EQ(out[4 * i + 1], static_cast<int>(static_cast<unsigned>(x) % (static_cast<unsigned>(y) | 1u))) << i;
    ASSERT_EQ(out[4 * i + 2], static_cast<int>(static_cast<unsigned>(x) * static_cast<unsigned>(y)) ^ (x >> 3)) << i;
    ASSERT_EQ(out[4 * i + 3], __builtin_popcount(x) + __builtin_clz(static_cast<unsigned>(y) | 1u)) << i;
  }
}

TEST_F(Corpus, SpillsLargePrivateArraysToScratch) {
  const unsigned n = 200;
  unsigned* idx = mem.alloc_array<unsigned>(256); unsigned* out = mem.alloc_array<unsigned>(n);
  for (unsigned i = 0; i < 256; ++i) idx[i] = rng() % 1000;
  run("scratch.co", "private_array", grid1(n, 64), Args().add(idx).add(out).add(n));
  for (unsigned i = 0; i < n; ++i) {
    unsigned s = 0;
    for (unsigned k = 0; k < 16; ++k) s += ((idx[i] + k * 13) % 300) * 7 + i;
    ASSERT_EQ(out[i], s) << i;
  }
}

}  // namespace

namespace {

class CorpusMore : public Corpus {};

bool close(double got, double ref, double rel, double abs_tol) {
  if (std::isnan(ref)) return std::isnan(got);
  if (std::isinf(ref)) return got == ref;
  return std::fabs(got - ref) <= abs_tol + rel * std::fabs(ref);
}

TEST_F(CorpusMore, ComputesMoreF32LibraryFunctions) {
  const unsigned n = 256;
  float* x = mem.alloc_array<float>(n); float* out = mem.alloc_array<float>(8 * n);
  for (unsigned i = 0; i < n; ++i) x[i] = -1.9f + 0.0149f * i;
  run("more.co", "math_more_f32", grid1(n, 64), Args().add(x).add(out).add(n));
  for (unsigned i = 0; i < n; ++i) {
    float v = x[i];
    ASSERT_TRUE(close(out[8 * i + 0], std::tan(v), 4e-6, 1e-6)) << i << " tan " << out[8 * i];
    ASSERT_TRUE(close(out[8 * i + 1], std::pow(v + 2.0f, 1.7f), 4e-6, 1e-7)) << i;
    ASSERT_TRUE(close(out[8 * i + 2], std::atan2(v, 0.75f), 4e-6, 1e-7)) << i;
    ASSERT_TRUE(close(out[8 * i + 3], std::erf(v), 4e-6, 1e-7)) << i;
    ASSERT_EQ(out[8 * i + 4], std::fmod(v * 13.0f, 1.25f)) << i;
    ASSERT_TRUE(close(out[8 * i + 5], std::cbrt(v), 4e-6, 1e-7)) << i;
    ASSERT_TRUE(close(out[8 * i + 6], std::tanh(v), 4e-6, 1e-7)) << i;
    ASSERT_EQ(out[8 * i + 7], static_cast<float>(static_cast<int>(v * 1000.0f)) +
                                  static_cast<float>(static_cast<unsigned>(v * v * 1000.0f))) << i;
  }
}

TEST_F(CorpusMore, ComputesMoreF64LibraryFunctions) {
  const unsigned n = 200;
  double* x = mem.alloc_array<double>(n); double* out = mem.alloc_array<double>(4 * n);
  for (unsigned i = 0; i < n; ++i) x[i] = -1.7 + 0.0171 * i;
  run("more.co", "math_more_f64", grid1(n, 64), Args().add(x).add(out).add(n));
  for (unsigned i = 0; i < n; ++i) {
    double v = x[i];
    ASSERT_TRUE(close(out[4 * i + 0], std::pow(v + 2.0, 1.3), 1e-15, 0)) << i;
    ASSERT_TRUE(close(out[4 * i + 1], std::cos(v), 1e-15, 1e-16)) << i;
    ASSERT_TRUE(close(out[4 * i + 2], std::atan(v), 1e-15, 1e-16)) << i;
    double ref = std::log2(v + 2.0) + static_cast<double>(static_cast<long long>(v * 1e6)) / (v - 7.0);
    ASSERT_TRUE(close(out[4 * i + 3], ref, 1e-15, 1e-15)) << i;
  }
}

TEST_F(CorpusMore, ComputesHalfPrecision) {
  const unsigned n = 300;
  auto* a = mem.alloc_array<_Float16>(n); auto* b = mem.alloc_array<_Float16>(n);
  auto* out = mem.alloc_array<_Float16>(2 * n); float* outf = mem.alloc_array<float>(n);
  for (unsigned i = 0; i < n; ++i) { a[i] = static_cast<_Float16>(-3.0f + 0.02f * i); b[i] = static_cast<_Float16>(1.5f - 0.013f * i); }
  run("more.co", "half_ops", grid1(n, 64), Args().add(a).add(b).add(out).add(outf).add(n));
  for (unsigned i = 0; i < n; ++i) {
    _Float16 x = a[i], y = b[i];
    // clang contracts x*y + x into one f16 fma: reference with a single rounding.
    _Float16 r0 = static_cast<_Float16>(std::fma(static_cast<double>(x), static_cast<double>(y), static_cast<double>(x)));
    ASSERT_EQ(static_cast<float>(out[2 * i]), static_cast<float>(r0)) << i;
    _Float16 r1 = x > y ? static_cast<_Float16>(static_cast<float>(x) - static_cast<float>(y))
                        : static_cast<_Float16>(static_cast<float>(y) / static_cast<float>(static_cast<_Float16>(static_cast<float>(x) + 4.0f)));
    ASSERT_EQ(static_cast<float>(out[2 * i + 1]), static_cast<float>(r1)) << i;
    ASSERT_EQ(outf[i], std::fma(static_cast<float>(x), 0.5f, static_cast<float>(y))) << i;
  }
}

TEST_F(CorpusMore, HandlesBytesAndShorts) {
  const unsigned n = 500;
  auto* c = mem.alloc_array<signed char>(n); auto* s = mem.alloc_array<short>(n);
  int* out = mem.alloc_array<int>(n); auto* outc = mem.alloc_array<unsigned char>(n);
  for (unsigned i = 0; i < n; ++i) { c[i] = static_cast<signed char>(rng()); s[i] = static_cast<short>(rng()); }
  run("more.co", "bytes_shorts", grid1(n, 128), Args().add(c).add(s).add(out).add(outc).add(n));
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], c[i] * 3 + s[i] - (s[i] >> 2)) << i;
    ASSERT_EQ(outc[i], static_cast<unsigned char>(c[i] + s[i])) << i;
  }
}

}  // namespace

namespace {

TEST(CorpusThreads, RunsConcurrentDispatchesOnOneCore) {
  HostMemory mem;
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("basic.co"), mem), "");
  ShaderCore core(Target::gfx90a, 2);
  // Each thread records its first failure (dispatch outcome or the first wrong element).
  auto body = [&](float bias, std::string* failure) {
    const unsigned n = 3000;
    float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* c = mem.alloc_array<float>(n);
    for (unsigned i = 0; i < n; ++i) { a[i] = static_cast<float>(i); b[i] = bias; }
    for (int rep = 0; rep < 20 && failure->empty(); ++rep) {
      Launch l; l.grid[0] = n; l.block[0] = 128;
      Args args; args.add(a).add(b).add(c).add(n);
      auto o = dispatch(core, mem, co.kernel("vadd"), l, args.data(), args.size());
      if (!o.ok()) { *failure = "rep " + std::to_string(rep) + ": dispatch failed: " + o.message; break; }
      for (unsigned i = 0; i < n; ++i)
        if (c[i] != a[i] + bias) {
          *failure = "rep " + std::to_string(rep) + ": c[" + std::to_string(i) + "] = " + std::to_string(c[i]) +
                     ", expected " + std::to_string(a[i] + bias);
          break;
        }
    }
  };
  std::string f1, f2;
  std::thread t1(body, 1.0f, &f1), t2(body, -2.0f, &f2);
  t1.join();
  t2.join();
  EXPECT_EQ(f1, "");
  EXPECT_EQ(f2, "");
}

// Two workers take workgroups in runs of neighbours (emu/shader/core.cpp worker()): away from
// the dispatch's tail, every aligned block of 8 workgroups ran on one worker. Worker 0 waits
// after its first workgroup until worker 1 has run one, so both take part however busy the host.
TEST(CorpusThreads, TwoWorkersTakeRunsOfNeighbouringWorkgroups) {
  struct Placement : RecordingHooks {
    void group_ran(uint64_t, const uint32_t id[3], unsigned worker, uint64_t, uint64_t) override {
      std::unique_lock l(mu);
      on[id[0]] = int(worker);
      if (worker == 1) {
        other_ran = true;
        cv.notify_all();
      } else if (!waited) {
        waited = true;
        cv.wait_for(l, std::chrono::seconds(30), [&] { return other_ran; });
      }
    }
    std::vector<int> on;
    std::condition_variable cv;
    bool other_ran = false, waited = false;
  };
  HostMemory mem;
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("basic.co"), mem), "");
  ShaderCore core(Target::gfx90a, 2);
  const unsigned groups = 512, block = 64, n = groups * block;
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* c = mem.alloc_array<float>(n);
  for (unsigned i = 0; i < n; ++i) { a[i] = float(i); b[i] = 0.5f; }
  Placement h;
  h.trace_groups = true;
  h.on.assign(groups, -1);
  Launch l; l.grid[0] = n; l.block[0] = block;
  Args args; args.add(a).add(b).add(c).add(n);
  auto o = dispatch(core, mem, co.kernel("vadd"), l, args.data(), args.size(), &h);
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + 0.5f) << i;
  ASSERT_EQ(std::count(h.on.begin(), h.on.end(), -1), 0) << "a workgroup did not run";
  ASSERT_TRUE(h.other_ran) << "worker 1 ran no workgroup";
  for (unsigned g = 0; g + 8 <= groups - 64; g += 8)
    for (unsigned k = 1; k < 8; ++k)
      ASSERT_EQ(h.on[g + k], h.on[g]) << "workgroup " << g + k << " ran on worker " << h.on[g + k]
                                      << ", its run's first (" << g << ") on worker " << h.on[g];
}

}  // namespace

namespace {

class OtherTargets : public ::testing::TestWithParam<std::pair<const char*, Target>> {};

TEST_P(OtherTargets, RunsVectorAddAnd3DGrid) {
  HostMemory mem;
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path(GetParam().first), mem), "");
  ShaderCore core(GetParam().second, 2);
  const unsigned n = 777;
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* c = mem.alloc_array<float>(n);
  for (unsigned i = 0; i < n; ++i) { a[i] = 1.5f * i; b[i] = 2.0f; }
  Launch l; l.grid[0] = n; l.block[0] = 256;
  Args args; args.add(a).add(b).add(c).add(n);
  auto o = dispatch(core, mem, co.kernel("vadd"), l, args.data(), args.size());
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  const unsigned nx = 9, ny = 7, nz = 5;
  unsigned* out = mem.alloc_array<unsigned>(nx * ny * nz);
  Launch g; g.grid[0] = nx; g.grid[1] = ny; g.grid[2] = nz; g.block[0] = 4; g.block[1] = 4; g.block[2] = 2;
  Args ga; ga.add(out).add(nx).add(ny).add(nz);
  o = dispatch(core, mem, co.kernel("grid3d"), g, ga.data(), ga.size());
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned z = 0; z < nz; ++z)
    for (unsigned y = 0; y < ny; ++y)
      for (unsigned x = 0; x < nx; ++x) ASSERT_EQ(out[(z * ny + y) * nx + x], x + 100 * y + 10000 * z + 1);
}

INSTANTIATE_TEST_SUITE_P(Gfx9, OtherTargets,
                         ::testing::Values(std::make_pair("basic_gfx906.co", Target::gfx906),
                                           std::make_pair("basic_gfx908.co", Target::gfx908)));

}  // namespace
