// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): integer, bit-field, conversion, load and vote intrinsics on the device.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

// Runs `kernel` with one block of `threads` and returns `n` results it wrote.
template <class T, class K, class... A>
std::vector<T> run(K kernel, int n, int threads, A... args) {
  T* d = nullptr;
  EXPECT_EQ(hipMalloc(&d, n * sizeof(T)), hipSuccess);
  EXPECT_EQ(hipMemset(d, 0xcd, n * sizeof(T)), hipSuccess);
  hipLaunchKernelGGL(kernel, dim3(1), dim3(threads), 0, 0, d, args...);
  EXPECT_EQ(hipGetLastError(), hipSuccess);
  std::vector<T> h(n);
  EXPECT_EQ(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(hipFree(d), hipSuccess);
  return h;
}

// The inputs come through memory so that the compiler cannot fold the device code at build time.
__global__ void bit_fields(unsigned long long* o, const unsigned long long* in) {
  unsigned int x = unsigned(in[0]), y = unsigned(in[1]);
  unsigned long long w = in[2];
  o[0] = __bitextract_u32(x, 8, 8);
  o[1] = __bitextract_u32(y, 28, 8);  // past the word's end: wraps as ROCm's definition does
  o[2] = __bitextract_u32(x, 40, 8);  // offset taken modulo 32
  o[3] = __bitextract_u32(x, 8, 0);
  o[4] = __bitextract_u64(w, 36, 12);
  o[5] = __bitinsert_u32(0xffffffffu, 0u, 4, 8);
  o[6] = __bitinsert_u32(0u, 0xabcu, 8, 8);
  o[7] = __bitinsert_u64(0ull, w, 60, 8);
  o[8] = __byte_perm(x, y, 0x7531);
  o[9] = __byte_perm(x, y, 0x0123);
  o[10] = __funnelshift_l(y, x, 8);
  o[11] = __funnelshift_l(y, x, 40);
  o[12] = __funnelshift_lc(y, x, 40);
  o[13] = __funnelshift_r(y, x, 8);
  o[14] = __funnelshift_rc(y, x, 40);
  o[15] = __lastbit_u32_u32(0x50u + (x & 0));
  o[16] = __lastbit_u32_u32(x & 0);
  o[17] = __lastbit_u32_u64(w & ~0xffffffffffull);
  o[18] = __bitextract_u64(w, 60, 8);
}

TEST(HipIntrinsics, ExtractInsertPermuteAndShiftBitFields) {
  unsigned long long* in = nullptr;
  ASSERT_EQ(hipMallocManaged(&in, 3 * sizeof *in), hipSuccess);
  in[0] = 0x33221100;  // doubles as the "hi" word of the funnel shifts
  in[1] = 0x77665544;
  in[2] = 0x0123456789abcdefull;
  auto o = run<unsigned long long>(bit_fields, 19, 1, (const unsigned long long*)in);
  EXPECT_EQ(o[0], 0x11u);
  // A field past the word's end: (src << ((bits - offset - width) mod bits)) >> (bits - width),
  // HIP's definition (ROCm's headers, HIP's own tests): 0x77665544's low nibble, not bits 28..31.
  EXPECT_EQ(o[1], 0x40u);
  EXPECT_EQ(o[2], 0x11u);
  EXPECT_EQ(o[3], 0u);
  EXPECT_EQ(o[4], 0x456u);
  EXPECT_EQ(o[5], 0xfffff00fu);
  EXPECT_EQ(o[6], 0xbc00u);
  EXPECT_EQ(o[7], 0xf000000000000000ull);
  EXPECT_EQ(o[8], 0x77553311u);  // bytes 1, 3, 5, 7 of y:x
  EXPECT_EQ(o[9], 0x00112233u);
  EXPECT_EQ(o[10], 0x22110077u);  // (0x33221100:77665544 << 8) >> 32
  EXPECT_EQ(o[11], 0x22110077u);  // shift taken modulo 32
  EXPECT_EQ(o[12], 0x77665544u);  // clamped to 32: the low word
  EXPECT_EQ(o[13], 0x00776655u);
  EXPECT_EQ(o[14], 0x33221100u);
  EXPECT_EQ(o[15], 4u);
  EXPECT_EQ(o[16], 0xffffffffu);
  EXPECT_EQ(o[17], 40u);  // 0x0123450000000000: bit 0 of 0x45 << 40
  EXPECT_EQ(o[18], 0xf0u);  // the 64-bit field past the end wraps alike
  EXPECT_EQ(hipFree(in), hipSuccess);
}

__global__ void averages_and_searches(long long* o, const int* in) {
  int big = in[0], m3 = in[1];  // INT_MAX, -3
  unsigned int ubig = unsigned(in[2]);
  o[0] = __hadd(big, big);
  o[1] = __hadd(m3, 0);
  o[2] = __rhadd(m3, 0);
  o[3] = __uhadd(ubig, ubig);
  o[4] = __urhadd(1u, 2u + unsigned(in[3]));
  o[5] = __sad(-5 + in[3], 10, 3u);
  o[6] = __usad(3u, 10u + unsigned(in[3]), 1u);
  unsigned long long mask = 0x16ull + unsigned(in[3]);  // bits 1, 2, 4
  o[7] = __fns32(mask, 0, 1);
  o[8] = __fns32(mask, 0, 2);
  o[9] = __fns32(mask, 0, 3);
  o[10] = __fns32(mask, 0, 4);
  o[11] = __fns32(mask, 4, -1);
  o[12] = __fns32(mask, 3, -2);
  o[13] = __fns32(mask, 2, 0);
  o[14] = __fns32(mask, 3, 0);
  o[15] = __fns64(mask << 40, 0, 1);
  o[16] = umin(3u, ubig) + umax(3u, 4u) + llmin(-2ll, 5ll) + llmax(-2ll, 5ll);
  o[17] = (long long)ullmax(1ull << 63, 5ull);
}

TEST(HipIntrinsics, AverageWithoutOverflowAndFindNthSetBit) {
  int* in = nullptr;
  ASSERT_EQ(hipMallocManaged(&in, 4 * sizeof *in), hipSuccess);
  in[0] = INT_MAX, in[1] = -3, in[2] = int(UINT_MAX), in[3] = 0;
  auto o = run<long long>(averages_and_searches, 18, 1, (const int*)in);
  EXPECT_EQ(o[0], INT_MAX);
  EXPECT_EQ(o[1], -2);  // rounds toward -infinity
  EXPECT_EQ(o[2], -1);
  EXPECT_EQ(o[3], (long long)UINT_MAX);
  EXPECT_EQ(o[4], 2);
  EXPECT_EQ(o[5], 18);
  EXPECT_EQ(o[6], 8);
  EXPECT_EQ(o[7], 1);
  EXPECT_EQ(o[8], 2);
  EXPECT_EQ(o[9], 4);
  EXPECT_EQ(o[10], (long long)0xffffffffu);
  EXPECT_EQ(o[11], 4);
  EXPECT_EQ(o[12], 1);
  EXPECT_EQ(o[13], 2);
  EXPECT_EQ(o[14], (long long)0xffffffffu);
  EXPECT_EQ(o[15], 41);
  EXPECT_EQ(o[16], 3 + 4 - 2 + 5);
  EXPECT_EQ((unsigned long long)o[17], 1ull << 63);
  EXPECT_EQ(hipFree(in), hipSuccess);
}

// Integer to floating point in each rounding mode, for values that do not convert exactly.
__global__ void int_to_fp(double* o, const long long* in) {
  int i = int(in[0]);                     // 2^24 + 1
  long long l = in[1];                    // -(2^53 + 1)
  unsigned long long u = (unsigned long long)in[2];  // 2^64 - 1
  o[0] = __int2float_rn(i), o[1] = __int2float_rz(i), o[2] = __int2float_rd(i), o[3] = __int2float_ru(i);
  o[4] = __int2float_rn(-i), o[5] = __int2float_rz(-i), o[6] = __int2float_rd(-i), o[7] = __int2float_ru(-i);
  o[8] = __ll2double_rn(l), o[9] = __ll2double_rz(l), o[10] = __ll2double_rd(l), o[11] = __ll2double_ru(l);
  o[12] = __ull2float_rn(u), o[13] = __ull2float_rz(u), o[14] = __ull2float_rd(u), o[15] = __ull2float_ru(u);
  o[16] = __uint2float_rd(unsigned(i) * 3u), o[17] = __uint2float_ru(unsigned(i) * 3u);
  o[18] = __ll2float_rd(l), o[19] = __ll2float_ru(l);
}

// The host's own conversion under a rounding mode (volatile keeps it out of constant folding).
template <class F, class I>
double host_convert(I x, int mode) {
  volatile I v = x;
  std::fesetround(mode);
  volatile F r = F(v);
  std::fesetround(FE_TONEAREST);
  return double(r);
}

TEST(HipIntrinsics, ConvertIntegersToFloatingPointInEveryRoundingMode) {
  long long* in = nullptr;
  ASSERT_EQ(hipMallocManaged(&in, 3 * sizeof *in), hipSuccess);
  const int i = (1 << 24) + 1;
  const long long l = -((1ll << 53) + 1);
  const unsigned long long u = ~0ull;
  in[0] = i, in[1] = l, in[2] = (long long)u;
  auto o = run<double>(int_to_fp, 20, 1, (const long long*)in);
  const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int m = 0; m < 4; ++m) {
    SCOPED_TRACE(m);
    EXPECT_EQ(o[m], (host_convert<float, int>(i, modes[m])));
    EXPECT_EQ(o[4 + m], (host_convert<float, int>(-i, modes[m])));
    EXPECT_EQ(o[8 + m], (host_convert<double, long long>(l, modes[m])));
    EXPECT_EQ(o[12 + m], (host_convert<float, unsigned long long>(u, modes[m])));
  }
  EXPECT_EQ(o[2], 16777216.0);  // a direct check of the reference itself
  EXPECT_EQ(o[3], 16777218.0);
  EXPECT_EQ(o[16], (host_convert<float, unsigned>(unsigned(i) * 3u, FE_DOWNWARD)));
  EXPECT_EQ(o[17], (host_convert<float, unsigned>(unsigned(i) * 3u, FE_UPWARD)));
  EXPECT_EQ(o[18], (host_convert<float, long long>(l, FE_DOWNWARD)));
  EXPECT_EQ(o[19], (host_convert<float, long long>(l, FE_UPWARD)));
  EXPECT_EQ(hipFree(in), hipSuccess);
}

__global__ void fp_conversions(double* o, const double* in) {
  double third = in[0], big = in[1];
  float m = float(in[2]);  // -1.5
  o[0] = __double2float_rn(third), o[1] = __double2float_rz(-third);
  o[2] = __double2float_rd(third), o[3] = __double2float_ru(third);
  o[4] = __double2float_rd(big), o[5] = __double2float_ru(big);
  o[6] = __float2int_rd(m), o[7] = __float2int_ru(m), o[8] = __float2int_rz(m), o[9] = __float2int_rn(m);
  o[10] = __float2int_rn(m + 4.0f);  // 2.5: ties to even
  o[11] = __double2ll_rd(-third), o[12] = __double2uint_ru(third);
  o[13] = __int_as_float(__float_as_int(m));
  o[14] = __uint_as_float(__float_as_uint(m) ^ 0x80000000u);
  o[15] = __longlong_as_double(__double_as_longlong(big));
  o[16] = __hiloint2double(__double2hiint(third), __double2loint(third));
  o[17] = __ldg(&in[1]);
}

TEST(HipIntrinsics, ConvertAndReinterpretFloatingPoint) {
  double* in = nullptr;
  ASSERT_EQ(hipMallocManaged(&in, 3 * sizeof *in), hipSuccess);
  in[0] = 1.0 / 3.0, in[1] = 1e300, in[2] = -1.5;
  auto o = run<double>(fp_conversions, 18, 1, (const double*)in);
  EXPECT_EQ(o[0], double(float(1.0 / 3.0)));
  EXPECT_EQ(o[1], -(host_convert<float, double>(1.0 / 3.0, FE_TOWARDZERO)));
  EXPECT_EQ(o[2], (host_convert<float, double>(1.0 / 3.0, FE_DOWNWARD)));
  EXPECT_EQ(o[3], (host_convert<float, double>(1.0 / 3.0, FE_UPWARD)));
  EXPECT_LT(o[2], o[3]);
  EXPECT_EQ(o[4], double(FLT_MAX));  // too big: rounding down stays finite
  EXPECT_TRUE(std::isinf(o[5]));
  EXPECT_EQ(o[6], -2);
  EXPECT_EQ(o[7], -1);
  EXPECT_EQ(o[8], -1);
  EXPECT_EQ(o[9], -2);
  EXPECT_EQ(o[10], 2);
  EXPECT_EQ(o[11], -1);
  EXPECT_EQ(o[12], 1);
  EXPECT_EQ(o[13], -1.5);
  EXPECT_EQ(o[14], 1.5);
  EXPECT_EQ(o[15], 1e300);
  EXPECT_EQ(o[16], 1.0 / 3.0);
  EXPECT_EQ(o[17], 1e300);
  EXPECT_EQ(hipFree(in), hipSuccess);
}

// Each thread votes (tid % k == 0); thread 0 stores the block's answers.
__global__ void block_votes(int* o, int k) {
  int t = threadIdx.x;
  int count = __syncthreads_count(t % k == 0);
  int all = __syncthreads_and(t % k == 0);
  int any = __syncthreads_or(t % k == 0);
  int all_true = __syncthreads_and(1);
  int none = __syncthreads_or(0);
  if (t == 0) o[0] = count, o[1] = all, o[2] = any, o[3] = all_true, o[4] = none;
}

TEST(HipIntrinsics, VoteAcrossTheBlock) {
  auto o = run<int>(block_votes, 5, 256, 3);
  EXPECT_EQ(o[0], 86);  // 0, 3, ..., 255
  EXPECT_EQ(o[1], 0);
  EXPECT_EQ(o[2], 1);
  EXPECT_EQ(o[3], 1);
  EXPECT_EQ(o[4], 0);
  auto one = run<int>(block_votes, 5, 256, 1);
  EXPECT_EQ(one[0], 256);
  EXPECT_EQ(one[1], 1);
}

// Lane votes with member masks; lane 0 of each wave stores them.
__global__ void wave_votes(unsigned long long* o) {
  unsigned lane = __lane_id();
  unsigned long long even = 0x5555555555555555ull;
  unsigned long long b = __ballot_sync(even, lane < 8);
  int all_even = __all_sync(even, (lane & 1) == 0);
  int any_odd = __any_sync(even, lane & 1);
  __shared__ int scratch[64];
  scratch[lane] = int(lane) * 2;
  __syncwarp();
  int neighbour = scratch[lane ^ 1];
  if (lane == 0) o[0] = b, o[1] = all_even, o[2] = any_odd, o[3] = unsigned(neighbour);
}

TEST(HipIntrinsics, VoteWithinAWaveUnderAMask) {
  auto o = run<unsigned long long>(wave_votes, 4, 64);
  EXPECT_EQ(o[0], 0x55ull);
  EXPECT_EQ(o[1], 1u);
  EXPECT_EQ(o[2], 0u);
  EXPECT_EQ(o[3], 2u);
}

}  // namespace
