// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): hip_bfloat16 and hipFloatComplex/hipDoubleComplex on the host and in kernels.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_complex.h>
// ROCm's small headers that programs include beside these (each must build in a HIP program).
#include <hip/device_functions.h>
#include <hip/hip_common.h>
#include <hip/library_types.h>
#include <hip/math_functions.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <type_traits>
#include <vector>

namespace {

// Copies `in` to the device, runs kernel(out, in, n) on one block of `threads` and returns the
// `n_out` results it wrote. The inputs come through memory so that the device compiler cannot fold
// the computations at build time.
template <class O, class I, class K>
std::vector<O> run(K kernel, const std::vector<I>& in, size_t n_out, int threads = 1) {
  I* d_in = nullptr;
  O* d_out = nullptr;
  EXPECT_EQ(hipMalloc(&d_in, in.size() * sizeof(I)), hipSuccess);
  EXPECT_EQ(hipMalloc(&d_out, n_out * sizeof(O)), hipSuccess);
  EXPECT_EQ(hipMemcpy(d_in, in.data(), in.size() * sizeof(I), hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(hipMemset(d_out, 0xcd, n_out * sizeof(O)), hipSuccess);
  hipLaunchKernelGGL(kernel, dim3(1), dim3(threads), 0, 0, d_out, (const I*)d_in, int(in.size()));
  EXPECT_EQ(hipGetLastError(), hipSuccess);
  std::vector<O> out(n_out);
  EXPECT_EQ(hipMemcpy(out.data(), d_out, n_out * sizeof(O), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(hipFree(d_in), hipSuccess);
  EXPECT_EQ(hipFree(d_out), hipSuccess);
  return out;
}

__host__ __device__ inline float f32(uint32_t bits) { return __builtin_bit_cast(float, bits); }
__host__ __device__ inline uint32_t bits_of(float f) { return __builtin_bit_cast(uint32_t, f); }
__host__ __device__ inline uint64_t bits_of(double d) { return __builtin_bit_cast(uint64_t, d); }
__host__ __device__ inline hip_bfloat16 bf(uint16_t bits) {
  hip_bfloat16 b;
  b.data = bits;
  return b;
}

// ==== hip_bfloat16 ====
// The format: the upper 16 bits of an IEEE 754 binary32 (sign, 8 exponent bits, 7 fraction bits),
// as ROCm 5.2's hip/hip_bfloat16.h defines hip_bfloat16. So 1.0 is 0x3F80, 2^-8 0x3B80, 3 0x4040,
// 7 0x40E0, 10 0x4120, 256 0x4380, 258 0x4381 (the next value up: 8 significant bits), 0.5 0x3F00,
// the largest finite value 0x7F7F, +Inf 0x7F80, the default quiet NaN 0x7FC0.

static_assert(sizeof(hip_bfloat16) == 2, "hip_bfloat16 is 2 bytes");
static_assert(alignof(hip_bfloat16) == 2, "hip_bfloat16 is aligned to 2");
static_assert(std::is_trivial<hip_bfloat16>::value && std::is_standard_layout<hip_bfloat16>::value,
              "hip_bfloat16 is a trivial standard-layout type, like the C struct");
static_assert(std::is_same<decltype(hip_bfloat16::data), uint16_t>::value, "one uint16_t member");
static_assert(!std::is_convertible<float, hip_bfloat16>::value, "construction from float is explicit, as in ROCm");
static_assert(std::is_constructible<hip_bfloat16, float>::value, "and direct construction works");

__global__ void bf16_layout(unsigned* o, const unsigned*, int) {
  o[0] = sizeof(hip_bfloat16);
  o[1] = alignof(hip_bfloat16);
  o[2] = offsetof(hip_bfloat16, data);
  hip_bfloat16 z{};  // value-initialised: zero
  o[3] = z.data;
}

TEST(HipBfloat16, IsTwoBytesAlignedToTwoOnHostAndDevice) {
  auto o = run<unsigned>(bf16_layout, std::vector<unsigned>{0}, 4);
  EXPECT_EQ(o[0], 2u);
  EXPECT_EQ(o[1], 2u);
  EXPECT_EQ(o[2], 0u);
  EXPECT_EQ(o[3], 0u);
  hip_bfloat16 z{};
  EXPECT_EQ(z.data, 0u);
  hip_bfloat16 pair[2];
  EXPECT_EQ(reinterpret_cast<char*>(&pair[1]) - reinterpret_cast<char*>(&pair[0]), 2);
}

// Each float converted four ways: the rounding constructor, the truncating one, and
// round_to_bfloat16 with and without the truncate tag.
__host__ __device__ void bf16_convert(uint16_t* o, uint32_t in) {
  float f = f32(in);
  o[0] = hip_bfloat16(f).data;
  o[1] = hip_bfloat16(f, hip_bfloat16::truncate).data;
  o[2] = hip_bfloat16::round_to_bfloat16(f).data;
  o[3] = hip_bfloat16::round_to_bfloat16(f, hip_bfloat16::truncate).data;
}

__global__ void bf16_convert_kernel(uint16_t* o, const uint32_t* in, int n) {
  int i = threadIdx.x;
  if (i < n) bf16_convert(o + 4 * i, in[i]);
}

struct ConvertCase {
  uint32_t in;       // binary32 bit pattern
  uint16_t rounded;  // round to nearest, ties to even (IEEE 754-2019 4.3.1 roundTiesToEven)
  uint16_t truncated;
  const char* what;
};

// Rounding: the 16 dropped bits against half a unit of the kept part's last place (0x8000).
const ConvertCase convert_cases[] = {
    {0x3F800000, 0x3F80, 0x3F80, "1.0 is exact"},
    {0x3F804000, 0x3F80, 0x3F80, "1 + 2^-9: a quarter unit, down"},
    {0x3F807FFF, 0x3F80, 0x3F80, "just under half a unit, down"},
    {0x3F808000, 0x3F80, 0x3F80, "1 + 2^-8: a tie, to the even 0x3F80"},
    {0x3F808001, 0x3F81, 0x3F80, "just over half a unit, up"},
    {0x3F80C000, 0x3F81, 0x3F80, "three quarters of a unit, up"},
    {0x3F818000, 0x3F82, 0x3F81, "a tie above the odd 0x3F81: up to the even 0x3F82"},
    {0x3FFF8000, 0x4000, 0x3FFF, "a tie above 0x3FFF carries into the exponent: 2.0"},
    {0xBF808000, 0xBF80, 0xBF80, "negative tie, to even (magnitude down)"},
    {0xBF818000, 0xBF82, 0xBF81, "negative tie, to even (magnitude up)"},
    {0x3EAAAAAB, 0x3EAB, 0x3EAA, "1/3"},
    {0x40490FDB, 0x4049, 0x4049, "pi"},
    {0x42F6E979, 0x42F7, 0x42F6, "123.456"},
    {0x00000000, 0x0000, 0x0000, "+0"},
    {0x80000000, 0x8000, 0x8000, "-0 keeps its sign"},
    {0x00008000, 0x0000, 0x0000, "subnormal tie, to the even 0"},
    {0x00018000, 0x0002, 0x0001, "subnormal tie above an odd value, up"},
    {0x007FFFFF, 0x0080, 0x007F, "the largest subnormal rounds up to the smallest normal"},
    {0x7F7F7FFF, 0x7F7F, 0x7F7F, "under half a unit above the largest finite bfloat16"},
    {0x7F7F8000, 0x7F80, 0x7F7F, "a tie above the (odd) largest finite value: to Inf"},
    {0x7F7FFFFF, 0x7F80, 0x7F7F, "FLT_MAX rounds to Inf, truncates to the largest finite"},
    {0xFF7FFFFF, 0xFF80, 0xFF7F, "-FLT_MAX"},
    {0x7F800000, 0x7F80, 0x7F80, "+Inf"},
    {0xFF800000, 0xFF80, 0xFF80, "-Inf"},
    // NaNs (ROCm 5.2 hip/hip_bfloat16.h): the upper half is kept as it is (no rounding, which
    // would carry a NaN's fraction into the exponent and the sign) and, when fraction bits set in
    // the dropped half would leave the kept fraction zero (Inf), its lowest bit is set.
    {0x7FC00000, 0x7FC0, 0x7FC0, "quiet NaN"},
    {0xFFC00000, 0xFFC0, 0xFFC0, "negative quiet NaN keeps its sign"},
    {0x7FFFFFFF, 0x7FFF, 0x7FFF, "NaN with every fraction bit set: no carry into the sign"},
    {0xFFFFFFFF, 0xFFFF, 0xFFFF, "negative NaN with every fraction bit set"},
    {0x7FA00000, 0x7FA0, 0x7FA0, "signalling NaN with its payload in the upper half"},
    {0x7F800001, 0x7F81, 0x7F81, "signalling NaN with its payload in the lower half stays NaN"},
    {0xFF800001, 0xFF81, 0xFF81, "the same, negative"},
    {0x7FC00001, 0x7FC1, 0x7FC1, "quiet NaN with a lower-half payload bit"},
};

TEST(HipBfloat16, ConvertsFromFloatRoundingToNearestEvenOrTruncating) {
  const size_t n = sizeof convert_cases / sizeof convert_cases[0];
  std::vector<uint32_t> in;
  for (const auto& c : convert_cases) in.push_back(c.in);
  auto dev = run<uint16_t>(bf16_convert_kernel, in, 4 * n, int(n));
  for (size_t i = 0; i < n; ++i) {
    const ConvertCase& c = convert_cases[i];
    SCOPED_TRACE(testing::Message() << std::hex << "0x" << c.in << ": " << c.what);
    uint16_t host[4];
    bf16_convert(host, c.in);
    const uint16_t want[4] = {c.rounded, c.truncated, c.rounded, c.truncated};
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(host[k], want[k]) << "host, conversion " << k << std::hex << ": 0x" << host[k] << ", want 0x" << want[k];
      EXPECT_EQ(dev[4 * i + k], want[k])
          << "device, conversion " << k << std::hex << ": 0x" << dev[4 * i + k] << ", want 0x" << want[k];
    }
  }
}

// To float: the 16 bits become the upper half of the binary32, the lower half zero (exact).
__host__ __device__ void bf16_to_float(uint32_t* o, const uint16_t* in, int n) {
  for (int i = 0; i < n; ++i) o[i] = bits_of(float(bf(in[i])));
}
__global__ void bf16_to_float_kernel(uint32_t* o, const uint16_t* in, int n) { bf16_to_float(o, in, n); }

TEST(HipBfloat16, ConvertsToFloatExactly) {
  const std::vector<uint16_t> in = {0x3F80, 0xC040, 0x0001, 0x7F7F, 0x7F80, 0xFFC0, 0x8000, 0x7F81};
  const uint32_t want[] = {0x3F800000,   // 1.0
                           0xC0400000,   // -3.0
                           0x00010000,   // a subnormal float (2^-133)
                           0x7F7F0000,   // 3.3895e38
                           0x7F800000,   // +Inf
                           0xFFC00000,   // negative quiet NaN, bits kept
                           0x80000000,   // -0
                           0x7F810000};  // signalling NaN, bits kept
  auto dev = run<uint32_t>(bf16_to_float_kernel, in, in.size());
  std::vector<uint32_t> host(in.size());
  bf16_to_float(host.data(), in.data(), int(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(host[i], want[i]) << "host, input " << i;
    EXPECT_EQ(dev[i], want[i]) << "device, input " << i;
  }
  EXPECT_EQ(float(bf(0x3F80)), 1.0f);
  EXPECT_EQ(float(bf(0x4120)) * 2.0f, 20.0f);  // the implicit conversion in float arithmetic
}

// Arithmetic happens in float and is rounded to bfloat16 (to nearest, ties to even) once.
enum : uint16_t {
  kOne = 0x3F80, kStep = 0x3B80 /* 2^-8 */, kOneUp = 0x3F81 /* 1 + 2^-7 */, k256 = 0x4380, k258 = 0x4381,
  kThree = 0x4040, kSeven = 0x40E0, kTen = 0x4120, kHalf = 0x3F00, kTwo = 0x4000, kMax = 0x7F7F,
  kZero = 0x0000, kQNaN = 0x7FC0, kOneAndHalf = 0x3FC0
};
const std::vector<uint16_t> arith_in = {kOne, kStep, kOneUp, k256, k258, kThree, kSeven, kTen, kHalf,
                                        kTwo, kMax, kZero, kQNaN, kOneAndHalf};

__host__ __device__ void bf16_arithmetic(uint16_t* o, const uint16_t* in) {
  hip_bfloat16 one = bf(in[0]), step = bf(in[1]), one_up = bf(in[2]), b256 = bf(in[3]), b258 = bf(in[4]);
  hip_bfloat16 three = bf(in[5]), seven = bf(in[6]), ten = bf(in[7]), half = bf(in[8]), two = bf(in[9]);
  hip_bfloat16 max = bf(in[10]), zero = bf(in[11]), nan = bf(in[12]), one_and_half = bf(in[13]);
  o[0] = (one + step).data;    // 1 + 2^-8: a tie, to even: 1
  o[1] = (one_up + step).data;  // 1.0078125 + 2^-8 = 1.01171875: a tie, to even: 0x3F82
  o[2] = (b256 + one).data;    // 257: a tie between 256 and 258, to even: 256
  o[3] = (b258 + one).data;    // 259: a tie between 258 and 260, to even: 260 (0x4382)
  o[4] = (three * seven).data;  // 21 (0x41A8)
  o[5] = (one / three).data;   // 1/3: float 0x3EAAAAAB, rounded 0x3EAB
  o[6] = (ten - half).data;    // 9.5 (0x4118)
  o[7] = (max * two).data;     // overflows to +Inf
  o[8] = (one / zero).data;    // +Inf
  o[9] = (-one).data;          // 0xBF80
  o[10] = (-zero).data;        // -0: 0x8000
  o[11] = (-nan).data;         // the sign bit alone: 0xFFC0
  o[12] = (+seven).data;       // unchanged
  hip_bfloat16 x = two;
  x *= three;                  // 6 (0x40C0)
  o[13] = x.data;
  x /= bf(0x4080);             // / 4: 1.5
  o[14] = x.data;
  x -= half;                   // 1
  o[15] = x.data;
  x += two;                    // 3
  o[16] = x.data;
  hip_bfloat16 y = b256;
  o[17] = (y++).data;          // returns 256
  o[18] = y.data;              // 256 + 1 rounds back to 256
  hip_bfloat16 z = one_and_half;
  o[19] = (++z).data;          // 2.5 (0x4020)
  o[20] = (z--).data;          // returns 2.5
  o[21] = z.data;              // 1.5
  o[22] = (--z).data;          // 0.5
  hip_bfloat16 w = b258, v = -b258;
  o[23] = (++w).data;          // 259: a tie, to the even 260 (0x4382)
  v--;
  o[24] = v.data;              // -259: to -260 (0xC382)
  o[25] = (zero / zero).data;  // NaN (its sign is the platform's: checked with isnan below)
}
__global__ void bf16_arithmetic_kernel(uint16_t* o, const uint16_t* in, int) { bf16_arithmetic(o, in); }

TEST(HipBfloat16, ArithmeticRoundsEachResultToNearestEven) {
  const uint16_t want[] = {0x3F80, 0x3F82, 0x4380, 0x4382, 0x41A8, 0x3EAB, 0x4118, 0x7F80, 0x7F80,
                           0xBF80, 0x8000, 0xFFC0, 0x40E0, 0x40C0, 0x3FC0, 0x3F80, 0x4040, 0x4380,
                           0x4380, 0x4020, 0x4020, 0x3FC0, 0x3F00, 0x4382, 0xC382};
  const size_t n = sizeof want / sizeof want[0];
  auto dev = run<uint16_t>(bf16_arithmetic_kernel, arith_in, n + 1);
  uint16_t host[n + 1];
  bf16_arithmetic(host, arith_in.data());
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(host[i], want[i]) << "host, result " << i << std::hex << ": 0x" << host[i] << ", want 0x" << want[i];
    EXPECT_EQ(dev[i], want[i]) << "device, result " << i << std::hex << ": 0x" << dev[i] << ", want 0x" << want[i];
  }
  EXPECT_TRUE(std::isnan(bf(host[n])) && std::isnan(float(bf(host[n])))) << std::hex << host[n];
  EXPECT_TRUE(std::isnan(bf(dev[n])) && std::isnan(float(bf(dev[n])))) << std::hex << dev[n];
}

// Comparisons are float's (IEEE 754-2019 5.11: a NaN is unordered with everything, so every
// ordered comparison with it is false and != is true; -0 == +0).
__host__ __device__ void bf16_compare(uint8_t* o, const uint16_t* in) {
  hip_bfloat16 a = bf(in[0]), b = bf(in[1]), nan = bf(in[2]), pz = bf(in[3]), nz = bf(in[4]);
  const bool r[] = {a < b,     a <= b,    a > b,     a >= b,    a == b,     a != b,    // 0-5
                    a == a,    a <= a,    a >= a,    a < a,     pz == nz,   pz != nz,  // 6-11
                    nan == nan, nan != nan, nan < a, nan <= a, nan > a,    nan >= a,  // 12-17
                    a <= nan,  a >= nan,  a < 1.5f,  b > 1.5f};                       // 18-21
  for (size_t i = 0; i < sizeof r / sizeof r[0]; ++i) o[i] = r[i];
  // classification from the bits, for 8 patterns: isinf, isnan, iszero each
  const uint16_t pats[] = {0x7F80, 0xFF80, 0x7F81, 0xFFC0, 0x7F7F, 0x0000, 0x8000, 0x0001};
  for (int i = 0; i < 8; ++i) {
    hip_bfloat16 p = bf(uint16_t(pats[i] + in[5]));  // in[5] == 0
    o[22 + 3 * i] = std::isinf(p);
    o[23 + 3 * i] = std::isnan(p);
    o[24 + 3 * i] = std::iszero(p);
  }
}
__global__ void bf16_compare_kernel(uint8_t* o, const uint16_t* in, int) { bf16_compare(o, in); }

TEST(HipBfloat16, ComparesAsFloatAndClassifiesFromTheBits) {
  const std::vector<uint16_t> in = {kOne, kTwo, kQNaN, 0x0000, 0x8000, 0};
  const uint8_t want[] = {1, 1, 0, 0, 0, 1,  // 1 vs 2
                          1, 1, 1, 0, 1, 0,  // 1 vs 1, +0 vs -0
                          0, 1, 0, 0, 0, 0,  // NaN vs NaN, NaN vs 1 (ROCm 5.2's <= and >= say 1 here)
                          0, 0, 1, 1,        // 1 vs NaN, against float 1.5
                          1, 0, 0,   1, 0, 0,   0, 1, 0,   0, 1, 0,   // +Inf, -Inf, sNaN, -qNaN
                          0, 0, 0,   0, 0, 1,   0, 0, 1,   0, 0, 0};  // max, +0, -0, min subnormal
  const size_t n = sizeof want;
  auto dev = run<uint8_t>(bf16_compare_kernel, in, n);
  uint8_t host[n];
  bf16_compare(host, in.data());
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(int(host[i]), int(want[i])) << "host, result " << i;
    EXPECT_EQ(int(dev[i]), int(want[i])) << "device, result " << i;
  }
}

TEST(HipBfloat16, PrintsAsFloat) {
  std::ostringstream s;
  s << hip_bfloat16(1.5f) << ' ' << bf(0xC040) << ' ' << hip_bfloat16(0.1f);
  EXPECT_EQ(s.str(), "1.5 -3 0.100098");  // 0.1 rounds to 0x3DCD = 0.10009765625
}

// ==== hipFloatComplex / hipDoubleComplex ====
// ROCm 5.2 hip/hip_complex.h: float2 and double2 with the real part in .x, the imaginary in .y.

static_assert(std::is_same<hipFloatComplex, float2>::value, "hipFloatComplex is float2");
static_assert(std::is_same<hipComplex, hipFloatComplex>::value, "hipComplex is hipFloatComplex");
static_assert(std::is_same<hipDoubleComplex, double2>::value, "hipDoubleComplex is double2");
static_assert(sizeof(hipFloatComplex) == 8 && alignof(hipFloatComplex) == 8, "two floats, aligned to 8");
static_assert(sizeof(hipDoubleComplex) == 16 && alignof(hipDoubleComplex) == 16, "two doubles, aligned to 16");

// Powers of two scale the exact cases into ranges where |q|^2 overflows or underflows.
constexpr float kBigF = 0x1p100f, kTinyF = 0x1p-100f;
constexpr double kBigD = 0x1p600, kTinyD = 0x1p-600;

// The inputs (through memory), for float and double alike.
template <class C>
std::vector<C> complex_inputs(double big, double tiny, double huge) {
  using T = decltype(C{}.x);
  auto c = [](double re, double im) { return C{T(re), T(im)}; };
  const double inf = INFINITY, nan = NAN;
  return {c(1, 2), c(3, -4), c(10, -5), c(4, 3), c(0.5, 0.25),      // 0-4: p, q, p*(1-2i) by (4+3i), r
          c(7 * big, big), c(big, big), c(7 * tiny, tiny), c(tiny, tiny),  // 5-8: (7+i)s / (1+i)s
          c(3 * big, 4 * big), c(3 * tiny, 4 * tiny), c(huge, huge),      // 9-11: |3+4i|s, |huge(1+i)|
          c(inf, nan), c(10, 5), c(3, 4), c(-1, 0)};                      // 12-15
}

// The same operations with the float and double names.
#define COMPLEX_CASES(C, T, SUFFIX, MAKE)                                                         \
  C p = in[0], q = in[1];                                                                         \
  o[0] = MAKE(hipCreal##SUFFIX(q), hipCimag##SUFFIX(q)); /* (3, -4) */                            \
  o[1] = hipConj##SUFFIX(p);                             /* (1, -2) */                            \
  o[2] = hipCadd##SUFFIX(p, q);                          /* (4, -2) */                            \
  o[3] = hipCsub##SUFFIX(p, q);                          /* (-2, 6) */                            \
  o[4] = hipCmul##SUFFIX(p, q);                          /* (1+2i)(3-4i) = 11+2i */               \
  o[5] = hipCdiv##SUFFIX(in[2], in[3]);                  /* (10-5i)/(4+3i) = 1-2i: |re| >= |im| */ \
  o[6] = hipCdiv##SUFFIX(in[13], in[14]);                /* (10+5i)/(3+4i) = 2-i: |im| > |re| */  \
  o[7] = hipCdiv##SUFFIX(in[5], in[6]);                  /* (7+i)/(1+i) = 4-3i, huge parts */     \
  o[8] = hipCdiv##SUFFIX(in[7], in[8]);                  /* the same, tiny parts */               \
  o[9] = MAKE(hipCsqabs##SUFFIX(q), hipCabs##SUFFIX(q)); /* (25, 5) */                            \
  o[10] = MAKE(hipCabs##SUFFIX(in[9]), hipCabs##SUFFIX(in[10])); /* 5 big, 5 tiny */              \
  o[11] = MAKE(hipCabs##SUFFIX(in[11]), hipCabs##SUFFIX(in[12])); /* sqrt(2) huge, Inf */         \
  o[12] = hipCfma##SUFFIX(p, q, in[4]);                  /* 11.5 + 2.25i */                       \
  o[13] = -p;                                            /* (-1, -2) */                           \
  o[14] = MAKE(T(p == p), T(p != q));                    /* (1, 1) */                             \
  o[15] = MAKE(T(p == hipConj##SUFFIX(p)), T(p != p));   /* (0, 0): == compares both parts */     \
  o[16] = p * 2.0f;                                      /* (2, 4) */                             \
  o[17] = p * 3;                                         /* (3, 6) */                             \
  o[18] = p * 0.5;                                       /* (0.5, 1) */                           \
  o[19] = p * (unsigned short)5;                         /* (5, 10) */                            \
  o[20] = p * -2ll;                                      /* (-2, -4) */                           \
  o[21] = p * 4ull;                                      /* (4, 8) */                             \
  o[22] = p + q;                                         /* hip_vector_types.h's: (4, -2) */      \
  o[23] = p - q;                                         /* (-2, 6) */                            \
  o[30] = p * q;                                         /* complex, as in ROCm: 11+2i */         \
  o[31] = in[2] / in[3];                                 /* complex: 1-2i */

__host__ __device__ void complex_float(hipFloatComplex* o, const hipFloatComplex* in) {
  COMPLEX_CASES(hipFloatComplex, float, f, make_hipFloatComplex)
  o[24] = make_hipComplex(p.y, p.x);  // (2, 1)
  // p*q + r with each part's two multiply-adds fused (one rounding each): (1 + 2^-12)^2 - 1 is
  // 2^-11 + 2^-24, which a separately rounded product (1 + 2^-11: the 2^-24 is half a unit, a
  // tie, to even) would lose.
  hipFloatComplex one_up = make_hipFloatComplex(1.0f + 0x1p-12f + 0.0f * in[0].x, 0.0f);
  o[25] = hipCfmaf(one_up, one_up, in[15]);
}
__global__ void complex_float_kernel(hipFloatComplex* o, const hipFloatComplex* in, int) { complex_float(o, in); }

__host__ __device__ void complex_double(hipDoubleComplex* o, const hipDoubleComplex* in) {
  COMPLEX_CASES(hipDoubleComplex, double, , make_hipDoubleComplex)
  hipFloatComplex f = hipComplexDoubleToFloat(make_hipDoubleComplex(p.x + 0x1p-30, 0.1 * p.x));
  o[24] = make_hipDoubleComplex(f.x, f.y);  // (1.0f, 0.1f): each part rounded to float
  o[25] = hipComplexFloatToDouble(make_hipFloatComplex(1.5f * float(p.x), -2.25f));  // exact
  // (1 + 2^-27)^2 - 1 = 2^-26 + 2^-54 fused; 2^-26 with the product rounded first.
  hipDoubleComplex one_up = make_hipDoubleComplex(1.0 + 0x1p-27 + 0.0 * p.x, 0.0);
  o[26] = hipCfma(one_up, one_up, in[15]);
}
__global__ void complex_double_kernel(hipDoubleComplex* o, const hipDoubleComplex* in, int) {
  complex_double(o, in);
}

// The expected values, the same for float and double except the scaled ones.
template <class T>
std::vector<std::pair<T, T>> complex_expected(T big, T tiny, T abs_huge) {
  const T inf = INFINITY;
  return {{3, -4}, {1, -2}, {4, -2}, {-2, 6}, {11, 2}, {1, -2}, {2, -1}, {4, -3}, {4, -3}, {25, 5},
          {5 * big, 5 * tiny}, {abs_huge, inf}, {11.5, 2.25}, {-1, -2}, {1, 1}, {0, 0}, {2, 4},
          {3, 6}, {0.5, 1}, {5, 10}, {-2, -4}, {4, 8}, {4, -2}, {-2, 6}};
}

// Within 4 units in the last place (GoogleTest's FLOAT_EQ / DOUBLE_EQ).
void expect_ulps(float got, float want, const char* who) { EXPECT_FLOAT_EQ(got, want) << who; }
void expect_ulps(double got, double want, const char* who) { EXPECT_DOUBLE_EQ(got, want) << who; }

template <class C, class T>
void expect_complex(const std::vector<C>& dev, const C* host, size_t i, T re, T im, bool near = false) {
  SCOPED_TRACE(testing::Message() << "result " << i);
  if (near) {
    expect_ulps(host[i].x, re, "host real");
    expect_ulps(dev[i].x, re, "device real");
  } else {
    EXPECT_EQ(bits_of(host[i].x), bits_of(re)) << "host real " << host[i].x << " want " << re;
    EXPECT_EQ(bits_of(dev[i].x), bits_of(re)) << "device real " << dev[i].x << " want " << re;
  }
  EXPECT_EQ(bits_of(host[i].y), bits_of(im)) << "host imaginary " << host[i].y << " want " << im;
  EXPECT_EQ(bits_of(dev[i].y), bits_of(im)) << "device imaginary " << dev[i].y << " want " << im;
}

TEST(HipComplex, FloatFunctionsAndOperatorsOnHostAndDevice) {
  const float huge = 1e30f;
  auto in = complex_inputs<hipFloatComplex>(kBigF, kTinyF, huge);
  // |huge (1+i)| from double arithmetic, where huge^2 (1e60) does not overflow: a reference
  // independent of hypotf.
  const float abs_huge = float(std::sqrt(2.0 * double(huge) * double(huge)));
  ASSERT_TRUE(std::isfinite(abs_huge));
  auto want = complex_expected<float>(kBigF, kTinyF, abs_huge);
  const size_t n = 32;
  auto dev = run<hipFloatComplex>(complex_float_kernel, in, n);
  std::vector<hipFloatComplex> host(n);
  complex_float(host.data(), in.data());
  for (size_t i = 0; i < want.size(); ++i) expect_complex(dev, host.data(), i, want[i].first, want[i].second, i == 11);
  expect_complex(dev, host.data(), 24, 2.0f, 1.0f);
  expect_complex(dev, host.data(), 25, 0x1p-11f + 0x1p-24f, 0.0f);
  expect_complex(dev, host.data(), 30, 11.0f, 2.0f);  // hip_complex.h makes float2 * and / complex
  expect_complex(dev, host.data(), 31, 1.0f, -2.0f);
}

TEST(HipComplex, DoubleFunctionsAndOperatorsOnHostAndDevice) {
  const double huge = 1e300;
  auto in = complex_inputs<hipDoubleComplex>(kBigD, kTinyD, huge);
  const double abs_huge = double(std::sqrt(2.0L) * (long double)huge);  // x87 extended: no overflow
  auto want = complex_expected<double>(kBigD, kTinyD, abs_huge);
  const size_t n = 32;
  auto dev = run<hipDoubleComplex>(complex_double_kernel, in, n);
  std::vector<hipDoubleComplex> host(n);
  complex_double(host.data(), in.data());
  for (size_t i = 0; i < want.size(); ++i) expect_complex(dev, host.data(), i, want[i].first, want[i].second, i == 11);
  expect_complex(dev, host.data(), 24, 1.0, double(f32(0x3DCCCCCD)));  // 0.1f, the float nearest 0.1
  expect_complex(dev, host.data(), 25, 1.5, -2.25);
  expect_complex(dev, host.data(), 26, 0x1p-26 + 0x1p-54, 0.0);
  expect_complex(dev, host.data(), 30, 11.0, 2.0);
  expect_complex(dev, host.data(), 31, 1.0, -2.0);
}

TEST(HipComplex, AbsoluteValueAndDivisionDoNotOverflowWhereTheResultIsRepresentable) {
  // The textbook formulas square the parts: (1e30)^2 and (2^100)^2 are beyond float's range
  // (about 3.4e38), so sqrt(x*x + y*y) would be Inf and (p * conj(q)) / |q|^2 zero or NaN.
  EXPECT_TRUE(std::isinf(1e30f * 1e30f));
  const float a = hipCabsf(make_hipFloatComplex(3e30f, -4e30f));
  EXPECT_NEAR(a / 5e30f, 1.0f, 1e-6f);
  hipFloatComplex d = hipCdivf(make_hipFloatComplex(1e30f, 1e30f), make_hipFloatComplex(1e30f, 1e30f));
  EXPECT_EQ(d.x, 1.0f);
  EXPECT_EQ(d.y, 0.0f);
  d = hipCdivf(make_hipFloatComplex(1.0f, 0.0f), make_hipFloatComplex(0.0f, 0x1p-120f));  // 1/(i 2^-120)
  EXPECT_EQ(d.x, 0.0f);
  EXPECT_EQ(d.y, -0x1p120f);
  hipDoubleComplex e = hipCdiv(make_hipDoubleComplex(3e300, 4e300), make_hipDoubleComplex(3e300, 4e300));
  EXPECT_EQ(e.x, 1.0);
  EXPECT_EQ(e.y, 0.0);
  EXPECT_NEAR(hipCabs(make_hipDoubleComplex(-3e300, 4e300)) / 5e300, 1.0, 1e-15);
}

// ==== ROCm's small headers ====
// hipDataType and hipLibraryPropertyType: ROCm 5.2 hip/library_types.h's values (libraries built
// against ROCm pass them as integers).
TEST(HipLibraryTypes, HaveRocmValues) {
  EXPECT_EQ(int(HIP_R_32F), 0);
  EXPECT_EQ(int(HIP_R_64F), 1);
  EXPECT_EQ(int(HIP_R_16F), 2);
  EXPECT_EQ(int(HIP_C_32F), 4);
  EXPECT_EQ(int(HIP_C_64F), 5);
  EXPECT_EQ(int(HIP_C_16F), 6);
  EXPECT_EQ(int(HIP_LIBRARY_MAJOR_VERSION), 0);
  EXPECT_EQ(int(HIP_LIBRARY_MINOR_VERSION), 1);
  EXPECT_EQ(int(HIP_LIBRARY_PATCH_LEVEL), 2);
  hipDataType t = HIP_C_64F;
  hipLibraryPropertyType p = HIP_LIBRARY_PATCH_LEVEL;
  EXPECT_EQ(int(t) + int(p), 7);
}

}  // namespace
