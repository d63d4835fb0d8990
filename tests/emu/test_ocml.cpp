// SPDX-License-Identifier: MIT
// The ocml corpus (kernels/ocml.hip): every listed device-library function in f32 and f64,
// against the host's libm on 64 inputs (negative, fractional, zeros, tiny, large).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/emu/harness.h"
#include "tests/emu/kernels/ocml_list.h"

using namespace emu_test;

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Ref { const char* name; double (*f)(double x, double y); };
#define REF1(name, expr) {#name, [](double x, double) -> double { return expr; }},
#define REF2(name, expr) {#name, [](double x, double y) -> double { return expr; }},
const Ref kRefs[] = {OCML_UNARY(REF1) OCML_BINARY(REF2)};

std::vector<double> inputs() {
  std::vector<double> x(64);
  for (int i = 0; i < 60; ++i) x[i] = -3.7 + 0.125 * i + 0.0173 * (i % 7);
  x[60] = 0.0; x[61] = -0.0; x[62] = 1e-5; x[63] = 25.25;
  return x;
}

template <class T>
void check_all(const char* kernel, double rel) {
  HostMemory mem;
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("ocml.co"), mem), "");
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, 2);
  const size_t nfn = std::size(kRefs);
  std::vector<double> x = inputs();
  T* in = mem.alloc_array<T>(64);
  T* out = mem.alloc_array<T>(64 * nfn);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<T>(x[i]);
  Launch l; l.grid[0] = 64; l.block[0] = 64;
  Args a; a.add(in).add(out);
  auto o = dispatch(core, mem, co.kernel(kernel), l, a.data(), a.size());
  ASSERT_TRUE(o.ok()) << o.message;
  for (size_t k = 0; k < nfn; ++k) {
    for (int i = 0; i < 64; ++i) {
      double xi = in[i], yi = in[i ^ 1];
      double want = static_cast<double>(static_cast<T>(kRefs[k].f(xi, yi))), got = out[k * 64 + i];
      if (std::isnan(want)) { EXPECT_TRUE(std::isnan(got)) << kRefs[k].name << "(" << xi << ")"; continue; }
      if (std::isinf(want)) { EXPECT_EQ(got, want) << kRefs[k].name << "(" << xi << ")"; continue; }
      EXPECT_NEAR(got, want, rel * std::max(1.0, std::fabs(want))) << kRefs[k].name << "(" << xi << ", " << yi << ")";
    }
  }
}

TEST(CorpusOcml, MatchesHostLibmInSinglePrecision) { check_all<float>("ocml_f32", 4e-6); }
TEST(CorpusOcml, MatchesHostLibmInDoublePrecision) { check_all<double>("ocml_f64", 1e-14); }

}  // namespace
