// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP for gfx90a, gfx908, and gfx942 by clang 19): the matrix instructions (MFMA) through clang's
// __builtin_amdgcn_mfma_* builtins, one wave each: D = A x B + C for every block, with A, B and C
// spread over the lanes as the CDNA2 ISA lays them out (AMD's matrix instruction calculator
// prints the same mappings):
// * A[b][i][k] (B[b][k][j]): lane i + M * (b + blocks * (k / KL)) (j for B), element k % KL of
//   that lane's operand, KL = M * K * blocks / 64;
// * C and D[b][i][j]: 32x32 and 16x16 blocks in M*N/64 registers each, row groups of four in
//   consecutive registers dealt across lane groups of N lanes; 4x4 blocks side by side in the
//   lanes; f64 blocks deal the rows across the lane groups.
// Inputs are small integers, so every product and sum is exact in every type and the device's
// result must equal the host's exactly. The gfx942 build also checks the emulator's gfx940
// scratch addressing: clang 19 keeps the accumulators in private memory, through scratch
// instructions with neither a VGPR nor an SGPR offset (gfx940's ST mode).
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define HIP_ASSERT(x) ASSERT_EQ((x), hipSuccess)

namespace {

enum class El { F32, F16, BF16, I8, F64, FP8, BF8 };

template <El T> struct Elem;
template <> struct Elem<El::F32> { using acc = float; };
template <> struct Elem<El::F16> { using acc = float; };
template <> struct Elem<El::BF16> { using acc = float; };
template <> struct Elem<El::I8> { using acc = int; };
template <> struct Elem<El::F64> { using acc = double; };
template <> struct Elem<El::FP8> { using acc = float; };
template <> struct Elem<El::BF8> { using acc = float; };

// Register and lane of D[b][i][j] (see the header).
__host__ __device__ inline void d_place(El t, int M, int N, int b, int i, int j, int* reg, int* lane) {
  if (t == El::F64) {
    *reg = M == 16 ? i / 4 : 0;  // in register pairs
    *lane = 16 * (i % 4) + (M == 4 ? 4 * b : 0) + j;
  } else if (M * N >= 64) {
    const int per_block = M * N / 64, groups = 64 / N, g = i / 4;
    *reg = per_block * b + 4 * (g / groups) + i % 4;
    *lane = N * (g % groups) + j;
  } else {
    *reg = i;
    *lane = N * b + j;
  }
}

typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef float f32x32 __attribute__((ext_vector_type(32)));
typedef int i32x4 __attribute__((ext_vector_type(4)));
typedef int i32x16 __attribute__((ext_vector_type(16)));
typedef double f64x4 __attribute__((ext_vector_type(4)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short i16x2 __attribute__((ext_vector_type(2)));
typedef short i16x4 __attribute__((ext_vector_type(4)));

// The operands one lane passes: its KL elements of A (or B), packed as the builtin takes them.
template <El T, int KL> struct Operand;
template <> struct Operand<El::F32, 1> {
  float v;
  __device__ void set(int, int x) { v = float(x); }
};
template <> struct Operand<El::F64, 1> {
  double v;
  __device__ void set(int, int x) { v = double(x); }
};
template <> struct Operand<El::F16, 4> {
  f16x4 v;
  __device__ void set(int e, int x) { v[e] = _Float16(x); }
};
template <int KL> struct BfOperand {  // bf16 as the raw bits the builtins take
  typedef short vec __attribute__((ext_vector_type(KL)));
  vec v;
  __device__ void set(int e, int x) {
    float f = float(x);
    v[e] = short(__builtin_bit_cast(unsigned, f) >> 16);  // small integers are exact in bf16
  }
};
template <> struct Operand<El::BF16, 2> : BfOperand<2> {};
template <> struct Operand<El::BF16, 4> : BfOperand<4> {};
// Eight 8-bit elements in a register pair (gfx940's i8 and fp8/bf8 forms).
template <El T> struct Operand8 {
  long v;
  // gfx940's FNUZ 8-bit floats (E4M3 bias 8, E5M2 bias 16) of a small integer, exactly.
  __device__ static unsigned encode(int x) {
    if (T == El::I8) return unsigned(x) & 0xFF;
    if (x == 0) return 0;
    const unsigned sign = x < 0 ? 0x80 : 0, a = unsigned(x < 0 ? -x : x);
    int e = 0;
    while ((a >> (e + 1)) != 0) ++e;
    const unsigned mant_bits = T == El::FP8 ? 3 : 2, bias = T == El::FP8 ? 8 : 16;
    const unsigned mant = ((a << mant_bits) >> e) & ((1u << mant_bits) - 1);
    return sign | ((e + bias) << mant_bits) | mant;
  }
  __device__ void set(int e, int x) {
    unsigned long long u = static_cast<unsigned long long>(v);
    u = (u & ~(0xFFull << (8 * e))) | (static_cast<unsigned long long>(encode(x)) << (8 * e));
    v = static_cast<long>(u);
  }
};
template <> struct Operand<El::I8, 8> : Operand8<El::I8> {};
template <> struct Operand<El::FP8, 8> : Operand8<El::FP8> {};
template <> struct Operand<El::BF8, 8> : Operand8<El::BF8> {};
template <> struct Operand<El::I8, 4> {
  int v;
  __device__ void set(int e, int x) { v = int((unsigned(v) & ~(0xFFu << (8 * e))) | ((unsigned(x) & 0xFFu) << (8 * e))); }
};

// One instruction: its shape, the targets that have it and the builtin that runs it. gfx90a
// added the f64 and the bf16 "_1k" forms to gfx908's; gfx940 (MI300) dropped the bf16 forms
// without _1k and 32x32x8 i8. A build for a target without the instruction traps in its place,
// and the host skips it on such a device.
enum : int { k908 = 1, k90a = 2, k942 = 4 };
#if defined(__gfx942__)
constexpr int kDeviceArch = k942;
#elif defined(__gfx908__)
constexpr int kDeviceArch = k908;
#else
constexpr int kDeviceArch = k90a;
#endif
#define MFMA_CASE_AB(NAME, T, TB_, M_, N_, K_, B_, ACC, ARCHS)                                   \
  struct NAME {                                                                                  \
    static constexpr El t = T, tb = TB_;                                                         \
    static constexpr int M = M_, N = N_, K = K_, B = B_, KL = M_ * K_ * B_ / 64, archs = ARCHS;  \
    using acc_vec = ACC;                                                                         \
    static const char* name() { return #NAME; }                                                  \
    template <int CBSZ, int ABID, int BLGP, class OA, class OB>                                  \
    __device__ static acc_vec run(const OA& a, const OB& b, acc_vec c) {                         \
      if constexpr (((ARCHS) & kDeviceArch) != 0) {                                              \
        return __builtin_amdgcn_##NAME(a.v, b.v, c, CBSZ, ABID, BLGP);                           \
      } else {                                                                                   \
        __builtin_trap();                                                                        \
        return c;                                                                                \
      }                                                                                          \
    }                                                                                            \
  };
#define MFMA_CASE(NAME, T, M_, N_, K_, B_, ACC, ARCHS) MFMA_CASE_AB(NAME, T, T, M_, N_, K_, B_, ACC, ARCHS)
MFMA_CASE(mfma_f32_32x32x1f32, El::F32, 32, 32, 1, 2, f32x32, k908 | k90a | k942)
MFMA_CASE(mfma_f32_16x16x1f32, El::F32, 16, 16, 1, 4, f32x16, k908 | k90a | k942)
MFMA_CASE(mfma_f32_4x4x1f32, El::F32, 4, 4, 1, 16, f32x4, k908 | k90a | k942)
MFMA_CASE(mfma_f32_32x32x2f32, El::F32, 32, 32, 2, 1, f32x16, k908 | k90a | k942)
MFMA_CASE(mfma_f32_16x16x4f32, El::F32, 16, 16, 4, 1, f32x4, k908 | k90a | k942)
MFMA_CASE(mfma_f32_32x32x4f16, El::F16, 32, 32, 4, 2, f32x32, k908 | k90a | k942)
MFMA_CASE(mfma_f32_4x4x4f16, El::F16, 4, 4, 4, 16, f32x4, k908 | k90a | k942)
MFMA_CASE(mfma_f32_32x32x8f16, El::F16, 32, 32, 8, 1, f32x16, k908 | k90a | k942)
MFMA_CASE(mfma_f32_16x16x16f16, El::F16, 16, 16, 16, 1, f32x4, k908 | k90a | k942)
MFMA_CASE(mfma_i32_16x16x4i8, El::I8, 16, 16, 4, 4, i32x16, k908 | k90a | k942)
MFMA_CASE(mfma_i32_32x32x8i8, El::I8, 32, 32, 8, 1, i32x16, k908 | k90a)
MFMA_CASE(mfma_f32_16x16x2bf16, El::BF16, 16, 16, 2, 4, f32x16, k908 | k90a)
MFMA_CASE(mfma_f32_32x32x4bf16, El::BF16, 32, 32, 4, 1, f32x16, k908 | k90a)
MFMA_CASE(mfma_f32_32x32x8bf16_1k, El::BF16, 32, 32, 8, 1, f32x16, k90a | k942)
MFMA_CASE(mfma_f32_4x4x4bf16_1k, El::BF16, 4, 4, 4, 16, f32x4, k90a | k942)
MFMA_CASE(mfma_f64_16x16x4f64, El::F64, 16, 16, 4, 1, f64x4, k90a | k942)
MFMA_CASE(mfma_f64_4x4x4f64, El::F64, 4, 4, 4, 4, double, k90a | k942)
MFMA_CASE(mfma_i32_32x32x16_i8, El::I8, 32, 32, 16, 1, i32x16, k942)
MFMA_CASE(mfma_i32_16x16x32_i8, El::I8, 16, 16, 32, 1, i32x4, k942)
MFMA_CASE(mfma_f32_16x16x32_fp8_fp8, El::FP8, 16, 16, 32, 1, f32x4, k942)
MFMA_CASE(mfma_f32_32x32x16_bf8_bf8, El::BF8, 32, 32, 16, 1, f32x16, k942)
MFMA_CASE_AB(mfma_f32_16x16x32_bf8_fp8, El::BF8, El::FP8, 16, 16, 32, 1, f32x4, k942)
MFMA_CASE_AB(mfma_f32_32x32x16_fp8_bf8, El::FP8, El::BF8, 32, 32, 16, 1, f32x16, k942)
#undef MFMA_CASE
#undef MFMA_CASE_AB


template <class V, class S>
__device__ S& at(V& v, int r) { return reinterpret_cast<S*>(&v)[r]; }  // a double is its own element 0

// One wave: loads its operands by the layout, runs the instruction, stores D by the layout.
template <class C, int CBSZ, int ABID, int BLGP>
__global__ void run_mfma(const int* a, const int* b, const typename Elem<C::t>::acc* c,
                         typename Elem<C::t>::acc* d) {
  using S = typename Elem<C::t>::acc;
  const int l = threadIdx.x;
  Operand<C::t, C::KL> oa{};
  Operand<C::tb, C::KL> ob{};
  const int row = l % C::M, rest = l / C::M, blk = rest % C::B, kg = rest / C::B;
  for (int e = 0; e < C::KL; ++e) {
    const int k = kg * C::KL + e;
    oa.set(e, a[(blk * C::M + row) * C::K + k]);  // A[blk][row][k]
    ob.set(e, b[(blk * C::K + k) * C::N + row]);  // B[blk][k][row]
  }
  typename C::acc_vec acc{};
  for (int blk2 = 0; blk2 < C::B; ++blk2)
    for (int i = 0; i < C::M; ++i)
      for (int j = 0; j < C::N; ++j) {
        int reg, lane;
        d_place(C::t, C::M, C::N, blk2, i, j, &reg, &lane);
        if (lane == l) at<typename C::acc_vec, S>(acc, reg) = c[(blk2 * C::M + i) * C::N + j];
      }
  acc = C::template run<CBSZ, ABID, BLGP>(oa, ob, acc);
  for (int blk2 = 0; blk2 < C::B; ++blk2)
    for (int i = 0; i < C::M; ++i)
      for (int j = 0; j < C::N; ++j) {
        int reg, lane;
        d_place(C::t, C::M, C::N, blk2, i, j, &reg, &lane);
        if (lane == l) d[(blk2 * C::M + i) * C::N + j] = at<typename C::acc_vec, S>(acc, reg);
      }
}

int device_arch() {
  hipDeviceProp_t p;
  if (hipGetDeviceProperties(&p, 0) != hipSuccess) return 0;
  const std::string a = p.gcnArchName;
  return a.rfind("gfx942", 0) == 0 ? k942 : a.rfind("gfx908", 0) == 0 ? k908 : a.rfind("gfx90a", 0) == 0 ? k90a : 0;
}

// The broadcast controls (CDNA ISA): every group of 2^CBSZ blocks multiplies block ABID's A;
// B's lanes read lane blgp_lane(l) instead of l.
int blgp_lane(int l, int blgp) {
  switch (blgp) {
    case 1: return l % 32;
    case 2: return 32 + l % 32;
    case 3: return (l + 16) % 64;
    case 4: case 5: case 6: case 7: return 16 * (blgp - 4) + l % 16;
    default: return l;
  }
}

// NEG_ON: the targets on which an f64 form's BLGP is NEG (gfx940).
template <class C, int CBSZ = 0, int ABID = 0, int BLGP = 0, int NEG_ON = 0>
void check() {
  using S = typename Elem<C::t>::acc;
  const bool neg = (NEG_ON & device_arch()) != 0;
  if (NEG_ON && !neg) {
    std::printf("%s: NEG only on gfx940, not run\n", C::name());
    return;
  }
  if (!(C::archs & device_arch())) {  // not on this device
    std::printf("%s: not on this device, not run\n", C::name());
    return;
  }
  const int M = C::M, N = C::N, K = C::K, B = C::B;
  std::vector<int> a(B * M * K), b(B * K * N);
  std::vector<S> c(B * M * N), want(B * M * N), got(B * M * N, S(-12345));
  // Small integers (signed, so i8's sign extension counts), different in every element.
  for (size_t x = 0; x < a.size(); ++x) a[x] = int((x * 7 + 3) % 9) - 4;
  for (size_t x = 0; x < b.size(); ++x) b[x] = int((x * 5 + 1) % 7) - 3;
  for (size_t x = 0; x < c.size(); ++x) c[x] = S(int((x * 11) % 13) - 6);
  const int KL = C::KL, group = 1 << CBSZ;
  for (int blk = 0; blk < B; ++blk)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        S s = c[(blk * M + i) * N + j];
        if (neg && (BLGP & 4)) s = -s;
        const int ablk = blk / group * group + ABID;
        for (int k = 0; k < K; ++k) {
          // B[blk][k][j] sits in lane j + N * (blk + B * (k / KL)); BLGP reads another lane's
          // element in the same register position.
          const int lane = blgp_lane(j + N * (blk + B * (k / KL)), neg ? 0 : BLGP);
          const int jb = lane % N, bb = (lane / N) % B, kb = (lane / N / B) * KL + k % KL;
          const int sa = neg && (BLGP & 1) ? -1 : 1, sb = neg && (BLGP & 2) ? -1 : 1;
          s += S(sa * a[(ablk * M + i) * K + k] * sb * b[(bb * K + kb) * N + jb]);
        }
        want[(blk * M + i) * N + j] = s;
      }
  int *da, *db;
  S *dc, *dd;
  HIP_ASSERT(hipMalloc(&da, a.size() * sizeof(int)));
  HIP_ASSERT(hipMalloc(&db, b.size() * sizeof(int)));
  HIP_ASSERT(hipMalloc(&dc, c.size() * sizeof(S)));
  HIP_ASSERT(hipMalloc(&dd, c.size() * sizeof(S)));
  HIP_ASSERT(hipMemcpy(da, a.data(), a.size() * sizeof(int), hipMemcpyHostToDevice));
  HIP_ASSERT(hipMemcpy(db, b.data(), b.size() * sizeof(int), hipMemcpyHostToDevice));
  HIP_ASSERT(hipMemcpy(dc, c.data(), c.size() * sizeof(S), hipMemcpyHostToDevice));
  HIP_ASSERT(hipMemcpy(dd, got.data(), got.size() * sizeof(S), hipMemcpyHostToDevice));
  run_mfma<C, CBSZ, ABID, BLGP><<<1, 64>>>(da, db, dc, dd);
  HIP_ASSERT(hipGetLastError());
  HIP_ASSERT(hipMemcpy(got.data(), dd, got.size() * sizeof(S), hipMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t x = 0; x < want.size(); ++x) bad += got[x] != want[x];
  EXPECT_EQ(bad, 0u) << C::name() << " cbsz " << CBSZ << " abid " << ABID << " blgp " << BLGP << ": first element D[0][0][0] = " << double(got[0]) << ", want "
                     << double(want[0]);
  for (void* p : {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dc), static_cast<void*>(dd)})
    HIP_ASSERT(hipFree(p));
}

}  // namespace

TEST(Mfma, F32) {
  check<mfma_f32_32x32x1f32>();
  check<mfma_f32_16x16x1f32>();
  check<mfma_f32_4x4x1f32>();
  check<mfma_f32_32x32x2f32>();
  check<mfma_f32_16x16x4f32>();
}

TEST(Mfma, F16) {
  check<mfma_f32_32x32x4f16>();
  check<mfma_f32_4x4x4f16>();
  check<mfma_f32_32x32x8f16>();
  check<mfma_f32_16x16x16f16>();
}

TEST(Mfma, I8) {
  check<mfma_i32_16x16x4i8>();
  check<mfma_i32_32x32x8i8>();
}

TEST(Mfma, Bf16) {
  check<mfma_f32_16x16x2bf16>();
  check<mfma_f32_32x32x4bf16>();
  check<mfma_f32_32x32x8bf16_1k>();
  check<mfma_f32_4x4x4bf16_1k>();
}

TEST(Mfma, F64) {
  check<mfma_f64_16x16x4f64>();
  check<mfma_f64_4x4x4f64>();
}

// The broadcast controls: A's block broadcast (CBSZ/ABID) and B's lane patterns (BLGP).
TEST(Mfma, BroadcastControls) {
  check<mfma_f32_32x32x1f32, 1, 1, 0>();
  check<mfma_f32_16x16x4f32, 0, 0, 3>();
  check<mfma_f32_16x16x1f32, 2, 3, 1>();
  check<mfma_f32_4x4x1f32, 4, 9, 6>();
  check<mfma_f32_4x4x4f16, 3, 5, 2>();
  check<mfma_f32_32x32x4f16, 1, 0, 7>();
  check<mfma_i32_16x16x4i8, 1, 1, 4>();
  check<mfma_f32_4x4x4bf16_1k, 2, 2, 5>();
}

// gfx940's NEG on the f64 forms (in BLGP's field: bit 0 negates A, 1 B, 2 C).
TEST(Mfma, Gfx940F64Negation) {
  check<mfma_f64_16x16x4f64, 0, 0, 7, k942>();
  check<mfma_f64_4x4x4f64, 0, 0, 5, k942>();
  check<mfma_f64_16x16x4f64, 0, 0, 2, k942>();
}

// gfx940's own: i8 at twice the depth, and the FNUZ fp8/bf8 products (mixed too).
TEST(Mfma, Gfx940EightBit) {
  check<mfma_i32_32x32x16_i8>();
  check<mfma_i32_16x16x32_i8>();
  check<mfma_f32_16x16x32_fp8_fp8>();
  check<mfma_f32_32x32x16_bf8_bf8>();
  check<mfma_f32_16x16x32_bf8_fp8>();
  check<mfma_f32_32x32x16_fp8_bf8>();
}

// Half a wave: the emulator does not model EXEC's effect on a matrix instruction and must say so
// (the queue stops naming the instruction; the launch's error comes back) rather than compute
// something. Last in the file: the device is unusable after the fault.
__global__ void half_wave(float* d) {
  f32x4 acc{};
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(1.0f, 1.0f, acc, 0, 0, 0);
  d[threadIdx.x] = acc[0];
}

TEST(Mfma, PartialWaveIsRefusedOnTheEmulator) {
  if (!dlsym(RTLD_DEFAULT, "kfdemu_get_config")) GTEST_SKIP() << "the emulator's refusal (hardware computes)";
  float* d;
  HIP_ASSERT(hipMalloc(&d, 64 * sizeof(float)));
  half_wave<<<1, 32>>>(d);
  EXPECT_NE(hipDeviceSynchronize(), hipSuccess);
}
