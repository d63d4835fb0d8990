// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): hip_fp16.h's __half and __half2 in kernels and on the host,
// against references computed without _Float16 (binary16 decoded and rounded by hand, IEEE 754).
#include <gtest/gtest.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace {

// ---- The reference: binary16 as IEEE 754 defines it (1 sign, 5 exponent, 10 fraction bits) ----
bool ref_isnan(uint16_t b) { return (b & 0x7fff) > 0x7c00; }
double ref_decode(uint16_t b) {
  int e = (b >> 10) & 0x1f, m = b & 0x3ff;
  double s = (b & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1f) return m ? std::numeric_limits<double>::quiet_NaN() : s * INFINITY;
  if (e == 0) return s * std::ldexp(m, -24);
  return s * std::ldexp(1024 + m, e - 25);
}
// Every non-negative finite binary16 value, ascending (index = bit pattern 0..0x7bff).
const std::vector<double>& ref_table() {
  static std::vector<double> t = [] {
    std::vector<double> v;
    for (uint32_t b = 0; b <= 0x7bff; ++b) v.push_back(ref_decode(uint16_t(b)));
    return v;
  }();
  return t;
}
// x rounded to binary16 under mode 0 nearest-even, 1 toward zero, 2 down, 3 up.
uint16_t ref_round(double x, int mode) {
  if (std::isnan(x)) return 0x7e00;
  bool neg = std::signbit(x);
  double a = std::fabs(x);
  // Magnitude rounding: toward zero = truncate; away = the next one up.
  bool away;
  switch (mode) {
    case 0: away = false; break;  // decided below
    case 1: away = false; break;
    case 2: away = neg; break;
    default: away = !neg; break;
  }
  const auto& t = ref_table();
  uint16_t lo;  // the largest magnitude <= a
  if (a >= 65504.0) {
    lo = 0x7bff;
  } else {
    lo = uint16_t(std::upper_bound(t.begin(), t.end(), a) - t.begin() - 1);
  }
  uint16_t mag;
  if (std::isinf(a)) {
    mag = 0x7c00;
  } else if (t[lo] == a) {
    mag = lo;
  } else if (mode == 0) {
    double next = lo == 0x7bff ? 65536.0 : t[lo + 1];  // 65536: where binary16's next step would be
    double mid = (t[lo] + next) / 2;
    uint16_t up = lo == 0x7bff ? 0x7c00 : uint16_t(lo + 1);
    mag = a < mid ? lo : a > mid ? up : ((lo & 1) ? up : lo);
  } else {
    mag = away ? uint16_t(lo == 0x7bff ? 0x7c00 : lo + 1) : lo;
  }
  return uint16_t(mag | (neg ? 0x8000 : 0));
}
uint16_t bits(__half h) { return __half_as_ushort(h); }
__half hb(uint16_t b) { return __ushort_as_half(b); }
float f32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
// Equal as bit patterns, or both NaN.
bool same(uint16_t a, uint16_t b) { return a == b || (ref_isnan(a) && ref_isnan(b)); }

// Inputs: special values, every binade's edges and midpoints, and random patterns.
std::vector<uint16_t> sample_halves(size_t random_count) {
  std::vector<uint16_t> v = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x3bff,
                             0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x4000, 0x3800, 0x5640};
  std::mt19937 rng(16);
  for (size_t i = 0; i < random_count; ++i) v.push_back(uint16_t(rng()));
  return v;
}

template <class T>
struct DevBuf {
  T* p = nullptr;
  size_t n;
  explicit DevBuf(size_t n_) : n(n_) { EXPECT_EQ(hipMalloc(&p, n * sizeof(T)), hipSuccess); }
  DevBuf(const std::vector<T>& h) : DevBuf(h.size()) {
    EXPECT_EQ(hipMemcpy(p, h.data(), n * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
  }
  ~DevBuf() { EXPECT_EQ(hipFree(p), hipSuccess); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    EXPECT_EQ(hipMemcpy(h.data(), p, n * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    return h;
  }
};
unsigned blocks(size_t n) { return unsigned((n + 255) / 256); }

// ---- Kernels and their host twins: the same __host__ __device__ code on both sides ----
__host__ __device__ inline void from_float(const float* in, uint16_t* out, size_t i) {
  float f = in[i];
  out[4 * i + 0] = __half_as_ushort(__float2half_rn(f));
  out[4 * i + 1] = __half_as_ushort(__float2half_rz(f));
  out[4 * i + 2] = __half_as_ushort(__float2half_rd(f));
  out[4 * i + 3] = __half_as_ushort(__float2half_ru(f));
}
__global__ void k_from_float(const float* in, uint16_t* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) from_float(in, out, i);
}

__global__ void k_to_float(float* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 65536) out[i] = __half2float(__ushort_as_half((unsigned short)i));
}

constexpr int kArith = 11;
__host__ __device__ inline void arith(const uint16_t* a, const uint16_t* b, const uint16_t* c, uint16_t* out, size_t i) {
  __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]), z = __ushort_as_half(c[i]);
  uint16_t* o = out + kArith * i;
  o[0] = __half_as_ushort(__hadd(x, y));
  o[1] = __half_as_ushort(__hsub(x, y));
  o[2] = __half_as_ushort(__hmul(x, y));
  o[3] = __half_as_ushort(__hdiv(x, y));
  o[4] = __half_as_ushort(__hfma(x, y, z));
  o[5] = __half_as_ushort(x + y);
  o[6] = __half_as_ushort(x * y - z);
  o[7] = __half_as_ushort(__hadd_sat(x, y));
  o[8] = __half_as_ushort(__hneg(x));
  o[9] = __half_as_ushort(__habs(x));
  __half w = x;
  w += y;
  w *= z;
  o[10] = __half_as_ushort(w);
}
__global__ void k_arith(const uint16_t* a, const uint16_t* b, const uint16_t* c, uint16_t* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) arith(a, b, c, out, i);
}

constexpr int kCmp = 16;
__host__ __device__ inline void compare(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t i) {
  __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]);
  uint16_t* o = out + kCmp * i;
  o[0] = __heq(x, y);
  o[1] = __hne(x, y);
  o[2] = __hlt(x, y);
  o[3] = __hle(x, y);
  o[4] = __hgt(x, y);
  o[5] = __hge(x, y);
  o[6] = __hequ(x, y);
  o[7] = __hneu(x, y);
  o[8] = __hltu(x, y);
  o[9] = __hgeu(x, y);
  o[10] = __half_as_ushort(__hmax(x, y));
  o[11] = __half_as_ushort(__hmin(x, y));
  o[12] = (uint16_t)(x == y) | (uint16_t)((x != y) << 1) | (uint16_t)((x < y) << 2);
  o[13] = (uint16_t)(__hisnan(x) | (__hisinf(x) + 1) << 1);
  o[14] = __half_as_ushort(__hmax_nan(x, y));
  o[15] = __half_as_ushort(__hmin_nan(x, y));
}
__global__ void k_compare(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) compare(a, b, out, i);
}

constexpr int kInt = 12;
__host__ __device__ inline void to_int(const uint16_t* a, long long* out, size_t i) {
  __half x = __ushort_as_half(a[i]);
  long long* o = out + kInt * i;
  o[0] = __half2int_rn(x);
  o[1] = __half2int_rz(x);
  o[2] = __half2int_rd(x);
  o[3] = __half2int_ru(x);
  o[4] = __half2short_rn(x);
  o[5] = __half2ushort_rn(x);
  o[6] = __half2uint_rd(x);
  o[7] = __half2ll_ru(x);
  o[8] = (long long)__half2ull_rz(x);
  o[9] = __half_as_ushort(__int2half_rn((int)(a[i] * 37) - 1200000));
  o[10] = __half_as_ushort(__int2half_rz((int)(a[i] * 37) - 1200000));
  o[11] = __half_as_ushort(__ull2half_ru(a[i] * 3ull));
}
__global__ void k_to_int(const uint16_t* a, long long* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) to_int(a, out, i);
}

constexpr int kMath = 7;
__host__ __device__ inline void math(const uint16_t* a, uint16_t* out, size_t i) {
  __half x = __ushort_as_half(a[i]);
  uint16_t* o = out + kMath * i;
  o[0] = __half_as_ushort(hsqrt(x));
  o[1] = __half_as_ushort(hrcp(x));
  o[2] = __half_as_ushort(hfloor(x));
  o[3] = __half_as_ushort(hceil(x));
  o[4] = __half_as_ushort(htrunc(x));
  o[5] = __half_as_ushort(hrint(x));
  o[6] = __half_as_ushort(hexp(x));
}
__global__ void k_math(const uint16_t* a, uint16_t* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) math(a, out, i);
}

TEST(Half, LayoutMatchesHip) {
  EXPECT_EQ(sizeof(__half), 2u);
  EXPECT_EQ(alignof(__half), 2u);
  EXPECT_EQ(sizeof(__half2), 4u);
  EXPECT_EQ(alignof(__half2), 4u);
  EXPECT_TRUE((std::is_same<half, __half>::value && std::is_same<half2, __half2>::value));
  __half2 v = __halves2half2(hb(0x3c00), hb(0x4000));
  uint32_t raw;
  std::memcpy(&raw, &v, 4);
  EXPECT_EQ(raw, 0x40003c00u);  // x in the low half, as HIP's __half2_raw
  __half2_raw r = v;
  EXPECT_EQ(r.x, 0x3c00);
  EXPECT_EQ(r.y, 0x4000);
}

// Every binary16 pattern widened to float in a kernel and on the host.
TEST(Half, EveryPatternWidensExactly) {
  DevBuf<float> out(65536);
  hipLaunchKernelGGL(k_to_float, dim3(256), dim3(256), 0, 0, out.p);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto dev = out.get();
  for (uint32_t b = 0; b < 65536; ++b) {
    double want = ref_decode(uint16_t(b));
    float host = __half2float(hb(uint16_t(b)));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(dev[b]) && std::isnan(host)) << std::hex << b;
    } else {
      ASSERT_EQ(double(dev[b]), want) << "device, pattern 0x" << std::hex << b;
      ASSERT_EQ(double(host), want) << "host, pattern 0x" << std::hex << b;
      ASSERT_EQ(std::signbit(dev[b]), std::signbit(want)) << std::hex << b;
    }
  }
}

// float -> half in the four rounding directions: halfway cases, overflow, underflow, subnormals.
TEST(Half, FloatNarrowsInEveryRoundingDirection) {
  std::vector<float> in = {0.0f, -0.0f, 1.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-11f + 0x1p-20f, 1.0f + 3 * 0x1p-11f,
                           -1.0f - 0x1p-11f, 65504.0f, 65519.0f, 65520.0f, 65536.0f, 1e10f, -1e10f,
                           0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f, -0x1p-25f, 0x1p-14f - 0x1p-25f, 1e-30f,
                           -1e-30f, INFINITY, -INFINITY, NAN, 3.14159265f, -2.71828f, 0.1f, 1.0f / 3};
  std::mt19937 rng(3);
  for (int i = 0; i < 4000; ++i) {  // random floats within and around binary16's range
    uint32_t b = (rng() & 0x807fffffu) | ((uint32_t(rng() % 50) + 96) << 23);
    in.push_back(f32(b));
  }
  DevBuf<float> din(in);
  DevBuf<uint16_t> dout(4 * in.size());
  hipLaunchKernelGGL(k_from_float, dim3(blocks(in.size())), dim3(256), 0, 0, din.p, dout.p, in.size());
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto dev = dout.get();
  std::vector<uint16_t> host(4 * in.size());
  for (size_t i = 0; i < in.size(); ++i) from_float(in.data(), host.data(), i);
  const char* names[] = {"rn", "rz", "rd", "ru"};
  for (size_t i = 0; i < in.size(); ++i) {
    for (int m = 0; m < 4; ++m) {
      uint16_t want = ref_round(double(in[i]), m);
      ASSERT_TRUE(same(dev[4 * i + m], want)) << "device __float2half_" << names[m] << "(" << in[i] << " = "
                                              << std::hexfloat << in[i] << "): 0x" << std::hex << dev[4 * i + m]
                                              << ", want 0x" << want;
      ASSERT_TRUE(same(host[4 * i + m], want)) << "host __float2half_" << names[m] << "(" << std::hexfloat << in[i]
                                               << "): 0x" << std::hex << host[4 * i + m] << ", want 0x" << want;
    }
  }
  // The implicit conversions round to nearest-even too.
  EXPECT_EQ(bits(__half(1.0f + 0x1p-11f)), 0x3c00);
  EXPECT_EQ(bits(__half(1.0 + 3 * 0x1p-11)), 0x3c02);
  EXPECT_EQ(bits(__half(2049)), 0x6800);  // 2049 is halfway between 2048 and 2050: even
  EXPECT_EQ(float(hb(0x3555)), 0x1.554p-2f);
}

// + - * / and fma, each rounded once: against exact double arithmetic rounded by hand.
TEST(Half, ArithmeticIsCorrectlyRounded) {
  std::mt19937 rng(11);
  std::vector<uint16_t> a, b, c;
  auto sample = sample_halves(0);
  for (uint16_t x : sample)
    for (uint16_t y : sample) {
      a.push_back(x);
      b.push_back(y);
      c.push_back(uint16_t(rng()));
    }
  // fma operands in [2^-4, 8) so a * b + c is exact in double (35 significant bits at most).
  auto moderate = [&] { return uint16_t((rng() & 0x83ff) | ((11 + rng() % 7) << 10)); };
  for (int i = 0; i < 20000; ++i) {
    a.push_back(moderate());
    b.push_back(moderate());
    c.push_back(moderate());
  }
  size_t n = a.size();
  DevBuf<uint16_t> da(a), db(b), dc(c), dout(kArith * n);
  hipLaunchKernelGGL(k_arith, dim3(blocks(n)), dim3(256), 0, 0, da.p, db.p, dc.p, dout.p, n);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto dev = dout.get();
  std::vector<uint16_t> host(kArith * n);
  for (size_t i = 0; i < n; ++i) arith(a.data(), b.data(), c.data(), host.data(), i);
  const char* names[] = {"__hadd", "__hsub", "__hmul", "__hdiv", "__hfma", "operator+", "x * y - z (may fuse)",
                         "__hadd_sat", "__hneg", "__habs", "(x + y) * z"};
  size_t fma_from = sample.size() * sample.size();
  for (size_t i = 0; i < n; ++i) {
    double x = ref_decode(a[i]), y = ref_decode(b[i]), z = ref_decode(c[i]);
    uint16_t want[kArith];
    want[0] = ref_round(x + y, 0);
    want[1] = ref_round(x - y, 0);
    want[2] = ref_round(x * y, 0);
    want[3] = ref_round(x / y, 0);
    want[4] = i >= fma_from ? ref_round(x * y + z, 0) : 0;
    want[5] = want[0];
    uint16_t sum = want[0];
    double s = ref_decode(sum);
    want[7] = std::isnan(s) || !(s > 0) ? 0 : s > 1 ? 0x3c00 : sum;
    want[8] = a[i] ^ 0x8000;
    want[9] = a[i] & 0x7fff;
    want[10] = ref_round(s * z, 0);
    for (int k = 0; k < kArith; ++k) {
      if (k == 4 && i < fma_from) continue;  // fma checked where it is exact in double
      if (k == 6) {                          // one rounding (fused) or two: either is HIP's contract
        uint16_t fused = ref_round(x * y - z, 0), twice = ref_round(ref_decode(want[2]) - z, 0);
        bool ok_dev = same(dev[kArith * i + k], fused) || same(dev[kArith * i + k], twice);
        bool ok_host = same(host[kArith * i + k], fused) || same(host[kArith * i + k], twice);
        ASSERT_TRUE(ok_dev && ok_host) << names[k] << " of 0x" << std::hex << a[i] << ", 0x" << b[i] << ", 0x" << c[i];
        continue;
      }
      ASSERT_TRUE(same(dev[kArith * i + k], want[k]))
          << "device " << names[k] << "(0x" << std::hex << a[i] << ", 0x" << b[i] << ", 0x" << c[i] << ") = 0x"
          << dev[kArith * i + k] << ", want 0x" << want[k];
      ASSERT_TRUE(same(host[kArith * i + k], want[k]))
          << "host " << names[k] << "(0x" << std::hex << a[i] << ", 0x" << b[i] << ", 0x" << c[i] << ") = 0x"
          << host[kArith * i + k] << ", want 0x" << want[k];
    }
  }
}

TEST(Half, ComparisonsOrderedAndUnordered) {
  auto sample = sample_halves(40);
  std::vector<uint16_t> a, b;
  for (uint16_t x : sample)
    for (uint16_t y : sample) {
      a.push_back(x);
      b.push_back(y);
    }
  size_t n = a.size();
  DevBuf<uint16_t> da(a), db(b), dout(kCmp * n);
  hipLaunchKernelGGL(k_compare, dim3(blocks(n)), dim3(256), 0, 0, da.p, db.p, dout.p, n);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto dev = dout.get();
  std::vector<uint16_t> host(kCmp * n);
  for (size_t i = 0; i < n; ++i) compare(a.data(), b.data(), host.data(), i);
  for (size_t i = 0; i < n; ++i) {
    double x = ref_decode(a[i]), y = ref_decode(b[i]);
    bool un = std::isnan(x) || std::isnan(y);
    uint16_t want[kCmp] = {x == y, !un && x != y, x < y, x <= y, x > y, x >= y, un || x == y, un || x != y,
                           un || x < y, un || x >= y, 0, 0, 0, 0};
    // max/min (CUDA): a NaN operand yields the other, two NaNs the canonical NaN 0x7fff, and +0
    // is above -0; the _nan forms give 0x7fff when either is a NaN.
    auto pick = [&](bool larger) -> uint16_t {
      if (std::isnan(x) && std::isnan(y)) return 0x7fff;
      if (std::isnan(x)) return b[i];
      if (std::isnan(y)) return a[i];
      if (x == y && x == 0) return (larger == ((a[i] & 0x8000) != 0)) ? b[i] : a[i];  // the +0 / the -0
      if (x == y) return a[i];
      return (larger ? y > x : y < x) ? b[i] : a[i];
    };
    want[10] = pick(true);
    want[11] = pick(false);
    want[14] = std::isnan(x) || std::isnan(y) ? 0x7fff : want[10];
    want[15] = std::isnan(x) || std::isnan(y) ? 0x7fff : want[11];
    want[12] = uint16_t((x == y) | ((x != y) << 1) | ((x < y) << 2));
    int inf = std::isinf(x) ? (x > 0 ? 1 : -1) : 0;
    want[13] = uint16_t(std::isnan(x) | (inf + 1) << 1);
    for (int k = 0; k < kCmp; ++k) {
      const bool max_min = k == 10 || k == 11 || k == 14 || k == 15;  // bit-exact, NaN included
      if (max_min) {
        ASSERT_EQ(dev[kCmp * i + k], want[k]) << "device max/min " << k << " of 0x" << std::hex << a[i] << ", 0x" << b[i];
        ASSERT_EQ(host[kCmp * i + k], want[k]) << "host max/min " << k << " of 0x" << std::hex << a[i] << ", 0x" << b[i];
        continue;
      }
      ASSERT_TRUE(same(dev[kCmp * i + k], want[k])) << "device comparison " << k << " of 0x" << std::hex << a[i]
                                                    << ", 0x" << b[i] << ": " << dev[kCmp * i + k];
      ASSERT_TRUE(same(host[kCmp * i + k], want[k])) << "host comparison " << k << " of 0x" << std::hex << a[i]
                                                     << ", 0x" << b[i] << ": " << host[kCmp * i + k];
    }
  }
}

TEST(Half, IntegerConversionsRoundAsNamedAndSaturate) {
  std::vector<uint16_t> a;
  for (uint32_t x = 0; x < 65536; x += 7) a.push_back(uint16_t(x));
  for (uint16_t s : sample_halves(0)) a.push_back(s);
  size_t n = a.size();
  DevBuf<uint16_t> da(a);
  DevBuf<long long> dout(kInt * n);
  hipLaunchKernelGGL(k_to_int, dim3(blocks(n)), dim3(256), 0, 0, da.p, dout.p, n);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto dev = dout.get();
  std::vector<long long> host(kInt * n);
  for (size_t i = 0; i < n; ++i) to_int(a.data(), host.data(), i);
  auto sat = [](double r, long long lo, long long hi) -> long long {
    if (std::isnan(r)) return 0;
    if (r <= double(lo)) return lo;
    if (r >= double(hi)) return hi;
    return (long long)r;
  };
  for (size_t i = 0; i < n; ++i) {
    double x = ref_decode(a[i]);
    double rn = std::nearbyint(x), rz = std::trunc(x), rd = std::floor(x), ru = std::ceil(x);
    long long want[kInt] = {sat(rn, INT32_MIN, INT32_MAX), sat(rz, INT32_MIN, INT32_MAX), sat(rd, INT32_MIN, INT32_MAX),
                            sat(ru, INT32_MIN, INT32_MAX), sat(rn, -32768, 32767), sat(rn, 0, 65535),
                            sat(rd, 0, 4294967295ll), sat(ru, LLONG_MIN, LLONG_MAX),
                            0, ref_round(double((int)(a[i] * 37) - 1200000), 0),
                            ref_round(double((int)(a[i] * 37) - 1200000), 1), ref_round(double(a[i] * 3ull), 3)};
    // __half2ull_rz: +inf gives the largest unsigned long long (seen here as -1), negatives 0.
    want[8] = rz <= 0 ? 0 : std::isinf(rz) ? -1 : (long long)rz;
    // NaN: 0 for the 32- and 16-bit conversions, 0x8000000000000000 for the 64-bit ones (CUDA).
    if (std::isnan(x)) want[7] = want[8] = LLONG_MIN;
    for (int k = 0; k < kInt; ++k) {
      ASSERT_EQ(dev[kInt * i + k], want[k]) << "device conversion " << k << " of 0x" << std::hex << a[i];
      ASSERT_EQ(host[kInt * i + k], want[k]) << "host conversion " << k << " of 0x" << std::hex << a[i];
    }
  }
}

// sqrt and rcp correctly rounded, floor/ceil/trunc/rint exact, exp within one unit in the last place.
TEST(Half, MathFunctionsOverEveryPattern) {
  std::vector<uint16_t> a(65536);
  for (uint32_t x = 0; x < 65536; ++x) a[x] = uint16_t(x);
  size_t n = a.size();
  DevBuf<uint16_t> da(a), dout(kMath * n);
  hipLaunchKernelGGL(k_math, dim3(blocks(n)), dim3(256), 0, 0, da.p, dout.p, n);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto dev = dout.get();
  std::vector<uint16_t> host(kMath * n);
  for (size_t i = 0; i < n; ++i) math(a.data(), host.data(), i);
  const char* names[] = {"hsqrt", "hrcp", "hfloor", "hceil", "htrunc", "hrint", "hexp"};
  for (size_t i = 0; i < n; ++i) {
    double x = ref_decode(a[i]);
    uint16_t want[kMath] = {ref_round(std::sqrt(x), 0), ref_round(1.0 / x, 0), ref_round(std::floor(x), 0),
                            ref_round(std::ceil(x), 0), ref_round(std::trunc(x), 0), ref_round(std::nearbyint(x), 0),
                            ref_round(std::exp(x), 0)};
    for (int k = 0; k < kMath; ++k) {
      for (int side = 0; side < 2; ++side) {
        uint16_t got = (side ? host : dev)[kMath * i + k];
        if (k == 6 && !same(got, want[k])) {  // exp: one step either side of the correctly rounded value
          double g = ref_decode(got), w = ref_decode(want[k]);
          bool near = !std::isnan(g) && (std::abs(int(got & 0x7fff) - int(want[k] & 0x7fff)) <= 1) &&
                      std::signbit(g) == std::signbit(w);
          ASSERT_TRUE(near) << (side ? "host " : "device ") << names[k] << "(0x" << std::hex << a[i] << ") = 0x" << got
                            << ", want 0x" << want[k];
          continue;
        }
        ASSERT_TRUE(same(got, want[k])) << (side ? "host " : "device ") << names[k] << "(0x" << std::hex << a[i]
                                        << ") = 0x" << got << ", want 0x" << want[k];
      }
    }
  }
}

__global__ void k_half2(const __half2* a, const __half2* b, __half2* out) {
  int i = threadIdx.x;
  __half2 x = a[i], y = b[i];
  out[8 * i + 0] = __hadd2(x, y);
  out[8 * i + 1] = __hfma2(x, y, x);
  out[8 * i + 2] = x * y - y;
  out[8 * i + 3] = __hlt2(x, y);
  out[8 * i + 4] = __lowhigh2highlow(x);
  out[8 * i + 5] = __halves2half2(__high2half(x), __low2half(y));
  out[8 * i + 6] = __hmax2(x, y);
  out[8 * i + 7] = __half2(__hbge2(x, y) ? __float2half(1.0f) : __float2half(-1.0f), __float2half(__low2float(x) + __high2float(y)));
}

TEST(Half, Half2LanesAreIndependent) {
  std::mt19937 rng(5);
  const int n = 64;
  std::vector<__half2> a(n), b(n);
  for (int i = 0; i < n; ++i) {  // small integers: every result below is exact
    a[i] = __floats2half2_rn(float(int(rng() % 17) - 8), float(int(rng() % 17) - 8));
    b[i] = __floats2half2_rn(float(int(rng() % 17) - 8), float(int(rng() % 17) - 8));
  }
  DevBuf<__half2> da(a), db(b), dout(8 * n);
  hipLaunchKernelGGL(k_half2, dim3(1), dim3(n), 0, 0, da.p, db.p, dout.p);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto dev = dout.get();
  for (int i = 0; i < n; ++i) {
    float ax = __low2float(a[i]), ay = __high2float(a[i]), bx = __low2float(b[i]), by = __high2float(b[i]);
    float want[8][2] = {{ax + bx, ay + by},
                        {ax * bx + ax, ay * by + ay},
                        {ax * bx - bx, ay * by - by},
                        {ax < bx ? 1.0f : 0.0f, ay < by ? 1.0f : 0.0f},
                        {ay, ax},
                        {ay, bx},
                        {std::max(ax, bx), std::max(ay, by)},
                        {(ax >= bx && ay >= by) ? 1.0f : -1.0f, ax + by}};
    for (int k = 0; k < 8; ++k) {
      float2 got = __half22float2(dev[8 * i + k]);
      EXPECT_EQ(got.x, want[k][0]) << "op " << k << " lane x, element " << i;
      EXPECT_EQ(got.y, want[k][1]) << "op " << k << " lane y, element " << i;
    }
  }
}

__global__ void k_shuffle(const __half* in, __half* out, __half2* out2) {
  int i = threadIdx.x;
  __half v = in[i];
  out[i] = __shfl_xor(v, 1);
  out[64 + i] = __shfl_down(v, 3);
  out[128 + i] = __shfl(v, 63 - i);
  out2[i] = __shfl_xor(__halves2half2(v, __hneg(v)), 32);
}

TEST(Half, ShufflesMoveHalvesBetweenLanes) {
  int warp = 0;
  ASSERT_EQ(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0), hipSuccess);
  if (warp != 64) GTEST_SKIP() << "the lane pattern below assumes a 64-lane wave (gfx9)";
  std::vector<__half> in(64);
  for (int i = 0; i < 64; ++i) in[i] = __ushort_as_half(uint16_t(0x3c00 + i * 37));  // distinct patterns
  DevBuf<__half> din(in), dout(192);
  DevBuf<__half2> dout2(64);
  hipLaunchKernelGGL(k_shuffle, dim3(1), dim3(64), 0, 0, din.p, dout.p, dout2.p);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  auto out = dout.get();
  auto out2 = dout2.get();
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(bits(out[i]), bits(in[i ^ 1])) << i;
    EXPECT_EQ(bits(out[64 + i]), bits(in[i + 3 < 64 ? i + 3 : i])) << i;
    EXPECT_EQ(bits(out[128 + i]), bits(in[63 - i])) << i;
    EXPECT_EQ(bits(__low2half(out2[i])), bits(in[i ^ 32])) << i;
    EXPECT_EQ(bits(__high2half(out2[i])), bits(in[i ^ 32]) ^ 0x8000) << i;
  }
}

// __half through the runtime: hipMemcpy, hipMemset and a kernel argument by value.
__global__ void k_axpy(__half alpha, const __half* x, __half* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(alpha, x[i], y[i]);
}

TEST(Half, KernelArgumentsAndCopies) {
  const int n = 1000;
  std::vector<__half> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = __int2half_rn(i % 100);
    y[i] = __float2half(0.5f);
  }
  DevBuf<__half> dx(x), dy(y);
  hipLaunchKernelGGL(k_axpy, dim3(4), dim3(256), 0, 0, __float2half(2.0f), dx.p, dy.p, n);
  ASSERT_EQ(hipGetLastError(), hipSuccess);
  auto got = dy.get();
  for (int i = 0; i < n; ++i) ASSERT_EQ(__half2float(got[i]), 2.0f * float(i % 100) + 0.5f) << i;
  ASSERT_EQ(hipMemset(dy.p, 0x3c, n * sizeof(__half)), hipSuccess);  // 0x3c3c = 1.05859375
  got = dy.get();
  for (int i = 0; i < n; ++i) ASSERT_EQ(bits(got[i]), 0x3c3c) << i;
}

}  // namespace
