// SPDX-License-Identifier: MIT
// Matrix fused multiply-add (VOP3P-MAI, the MI100/MI200/MI300 matrix cores): D = A x B + C for
// each of an instruction's blocks, the matrices spread over the wave's lanes and registers as
// the CDNA1/CDNA2 ISA documents lay them out (AMD's matrix instruction calculator prints the same
// mappings per instruction):
// * A (M x K per block) and B (K x N): an element's lane is i + M * (block + blocks * (k / KL))
//   (j and N for B), where KL = M * K * blocks / 64 elements sit in each lane, packed from bit 0
//   by their size (f32 one per register, f16/bf16 two, i8/fp8/bf8 four, f64 a register pair each).
// * C and D (M x N per block, f32/i32, or f64): blocks of 32x32 and 16x16 take M*N/64 registers
//   each, rows in groups of four consecutive registers, the groups dealt across lane groups of N
//   lanes; 4x4 blocks sit side by side in the lanes (lane 4 * block + j, register i). The f64
//   layouts deal rows across the lane groups instead (lane 16 * (i % 4) + j).
// Products accumulate into C in k order, each rounded (fma) in the accumulator's type (the ISA
// does not document the matrix core's internal order and precision: results exact in the
// accumulator's type match a GPU's, long float sums may differ in their last bits); i8 products
// add in wrapping 32-bit integers. Denormals are kept. The broadcast controls (CBSZ, ABID, BLGP)
// apply as described at blgp_lane; the wave's EXEC must be all ones, and undefined broadcast
// values are refused: such uses stop the queue naming them.
#include <array>
#if defined(__F16C__)
#include <immintrin.h>
#endif
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "emu/shader/valu.h"

namespace emu::shader {

namespace {

// Element types. FP8 and BF8 are gfx940's "FNUZ" 8-bit floats (the MI300 ISA; HIP's fp8
// reference): E4M3 with exponent bias 8 and E5M2 with bias 16, no infinities, 0x80 the only NaN.
enum class El : uint8_t { F32, F16, BF16, I8, F64, FP8, BF8 };

constexpr unsigned bits_of(El e) {
  return e == El::F64 ? 64 : e == El::F32 ? 32 : (e == El::I8 || e == El::FP8 || e == El::BF8) ? 8 : 16;
}

// An FNUZ 8-bit float with `mant` mantissa bits and exponent bias `bias`.
double fnuz8(uint32_t b, unsigned mant, int bias) {
  if (b == 0x80) return NAN;
  const unsigned m = b & ((1u << mant) - 1), e = (b & 0x7F) >> mant;
  const double v = e ? std::ldexp(1.0 + double(m) / (1u << mant), int(e) - bias)
                     : std::ldexp(double(m) / (1u << mant), 1 - bias);
  return (b & 0x80) ? -v : v;
}

bool refuse(Wave& w, const Inst& in, const char* what) {
  return fail_unimplemented(w, in, std::string(in.name) + ": " + what);
}

// The broadcast controls (CDNA ISA; AMD's matrix instruction calculator models the same): CBSZ
// and ABID make every group of 2^CBSZ blocks take block ABID's A (instructions of several blocks,
// CBSZ up to log2(blocks), at most 4; ABID below 2^CBSZ); BLGP makes B's lanes read other lanes:
// 1 the first 32 twice, 2 the second 32 twice, 3 rotated by 16 (lane l reads l + 16), 4..7 the
// 16 lanes starting at 16 * (BLGP - 4) four times.
struct Broadcast {
  unsigned cbsz, abid, blgp;
};

unsigned blgp_lane(unsigned l, unsigned blgp) {
  switch (blgp) {
    case 1: return l % 32;
    case 2: return 32 + l % 32;
    case 3: return (l + 16) % 64;
    case 4: case 5: case 6: case 7: return 16 * (blgp - 4) + l % 16;
    default: return l;
  }
}

// The checks every MFMA makes before it runs; false once it has stopped the wave. `blocks`: the
// instruction's; `blgp_ok`: whether it has BLGP (not the f64 forms, whose field gfx940 gives to
// NEG, nor gfx940's own i8, fp8 and bf8 forms).
bool usable(Wave& w, const Inst& in, unsigned blocks, bool blgp_ok, Broadcast* bc) {
  bc->cbsz = (in.raw[0] >> 8) & 7;
  bc->abid = (in.raw[0] >> 11) & 15;
  bc->blgp = in.raw[1] >> 29;
  unsigned max_cbsz = 0;
  while ((2u << max_cbsz) <= blocks && max_cbsz < 4) ++max_cbsz;
  if (bc->cbsz > max_cbsz || bc->abid >= (1u << bc->cbsz))
    return refuse(w, in, "CBSZ/ABID out of the range this instruction's blocks allow (undefined)");
  if (bc->blgp && !blgp_ok) return refuse(w, in, "BLGP on an instruction without BLGP (undefined)");
  if (w.exec() != ~uint64_t{0}) return refuse(w, in, "a matrix instruction with EXEC not all ones is not emulated");
  return true;
}

// Element e of lane l from the source rows starting at `row` (A or B).
template <El T>
double element(const Wave& w, unsigned row, unsigned l, unsigned e) {
  constexpr unsigned b = bits_of(T);
  if constexpr (T == El::F64) {
    const unsigned r = (row + 2 * e) & (kVRows - 1);
    uint64_t x = w.v[r][l] | (uint64_t{w.v[(r + 1) & (kVRows - 1)][l]} << 32);
    double d;
    std::memcpy(&d, &x, 8);
    return d;
  } else {
    constexpr unsigned per = 32 / b;
    const uint32_t word = w.v[(row + e / per) & (kVRows - 1)][l];
    const uint32_t bitsv = (word >> (b * (e % per))) & (b == 32 ? ~0u : (1u << b) - 1);
    if constexpr (T == El::F32) {
      float f;
      std::memcpy(&f, &bitsv, 4);
      return f;
    } else if constexpr (T == El::F16) {
#if defined(__F16C__)
      return _cvtsh_ss(static_cast<unsigned short>(bitsv));  // exact, as f16_to_f32
#else
      return f16_to_f32(static_cast<uint16_t>(bitsv));
#endif
    } else if constexpr (T == El::BF16) {
      const uint32_t x = bitsv << 16;
      float f;
      std::memcpy(&f, &x, 4);
      return f;
    } else if constexpr (T == El::FP8) {
      return fnuz8(bitsv, 3, 8);
    } else if constexpr (T == El::BF8) {
      return fnuz8(bitsv, 2, 16);
    } else {
      return static_cast<int8_t>(bitsv);
    }
  }
}

// Register (relative to D's first) and lane of D[i][j] of block b.
template <El T, unsigned M, unsigned N, unsigned B>
void d_place(unsigned b, unsigned i, unsigned j, unsigned* reg, unsigned* lane) {
  if constexpr (T == El::F64) {
    *reg = 2 * (M == 16 ? i / 4 : 0);
    *lane = 16 * (i % 4) + (M == 4 ? 4 * b : 0) + j;
  } else if constexpr (M * N >= 64) {
    constexpr unsigned per_block = M * N / 64, groups = 64 / N;
    const unsigned g = i / 4;
    *reg = per_block * b + 4 * (g / groups) + i % 4;
    *lane = N * (g % groups) + j;
  } else {
    *reg = i;
    *lane = N * b + j;
  }
}

// TB: B's type where it differs from A's (gfx940's mixed fp8/bf8 forms).
template <El T, unsigned M, unsigned N, unsigned K, unsigned B, El TB = T, bool kBlgp = true>
void mfma(Wave& w, const Inst& in) {
  static_assert(M == N && M * K * B % 64 == 0, "an MFMA shape");
  constexpr unsigned KL = M * K * B / 64;  // elements of A (and of B) per lane
  // gfx940 gives the f64 forms' BLGP field to NEG (bit 61 negates A, 62 B, 63 C; LLVM's
  // VOP3PInstructions.td, `neg:[a,b,c]` on v_mfma_f64_* for gfx940); before gfx940 they have
  // neither.
  const bool f64_neg = T == El::F64 && w.group->ctx->target == Target::gfx942;
  Broadcast bc;
  if (!usable(w, in, B, (kBlgp && T != El::F64) || f64_neg, &bc)) return;
  const unsigned neg = f64_neg ? bc.blgp : 0;
  if (f64_neg) bc.blgp = 0;
  const unsigned ra = in.src[0] - 256u, rb = in.src[1] - 256u;
  if (in.src[0] < 256 || in.src[1] < 256)
    return (void)refuse(w, in, "A and B must be registers");
  constexpr bool f64 = T == El::F64, integer = T == El::I8;
  // The arithmetic type: products of the narrow inputs are exact in it.
  using S = std::conditional_t<f64, double, std::conditional_t<integer, int32_t, float>>;
  // Unpack A[b][i][k] and B[b][k][j]: the lane that holds an element is
  // i + M * (b + B * (k / KL)); A's block after CBSZ/ABID, B's lane after BLGP.
  static thread_local S a[B][M][K], bm[B][K][N];
  const unsigned group = 1u << bc.cbsz;
  const S sign_a = (neg & 1) ? S(-1) : S(1), sign_b = (neg & 2) ? S(-1) : S(1);
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned row = l % M, rest = l / M, blk = rest % B, kg = rest / B;
    const unsigned src_blk = blk / group * group + bc.abid;
    const unsigned la = row + M * (src_blk + B * kg), lb = blgp_lane(l, bc.blgp);
    for (unsigned e = 0; e < KL; ++e) {
      a[blk][row][kg * KL + e] = sign_a * static_cast<S>(element<T>(w, ra, la, e));
      bm[blk][kg * KL + e][row] = sign_b * static_cast<S>(element<TB>(w, rb, lb, e));
    }
  }
  // Which element D[b][i][j] (index (b * M + i) * N + j) each register and lane holds, once per
  // instruction kind; an f64 element takes a register pair (`rows` counts registers or pairs).
  constexpr unsigned step = f64 ? 2 : 1, rows = M * N * B / 64;
  static const auto held = [] {
    std::array<uint16_t, rows * 64> t{};
    for (unsigned blk = 0; blk < B; ++blk)
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) {
          unsigned reg, lane;
          d_place<T, M, N, B>(blk, i, j, &reg, &lane);
          t[reg / step * 64 + lane] = static_cast<uint16_t>((blk * M + i) * N + j);
        }
    return t;
  }();
  // C: registers (VGPRs or AGPRs) or an inline constant broadcast to every element.
  const unsigned code = in.src[2];
  const bool c_reg = code >= 256;
  const unsigned rc = c_reg ? code - 256u : 0;
  uint64_t c_const = 0;
  if (!c_reg) c_const = f64 ? sread64(w, in, code, true) : sread32(w, in, code);
  static thread_local S acc[B][M][N];
  S* flat = &acc[0][0][0];
  for (unsigned r = 0; r < rows; ++r) {
    const uint32_t* lo = w.v[(rc + step * r) & (kVRows - 1)];
    const uint32_t* hi = w.v[(rc + step * r + 1) & (kVRows - 1)];
    const uint16_t* h = &held[r * 64];
    for (unsigned l = 0; l < 64; ++l) {
      uint64_t bits = c_const;
      if (c_reg) {
        bits = lo[l];
        if constexpr (f64) bits |= uint64_t{hi[l]} << 32;
      }
      std::memcpy(&flat[h[l]], &bits, sizeof(S));
    }
  }
  if constexpr (f64)
    if (neg & 4)
      for (unsigned x = 0; x < B * M * N; ++x) flat[x] = -flat[x];
  // Each element sums its products in k order (one rounding each); the j loop vectorises.
  for (unsigned blk = 0; blk < B; ++blk)
    for (unsigned i = 0; i < M; ++i) {
      S* row = acc[blk][i];
      for (unsigned k = 0; k < K; ++k) {
        const S x = a[blk][i][k];
        const S* brow = bm[blk][k];
        if constexpr (integer) {
          for (unsigned j = 0; j < N; ++j)
            row[j] = static_cast<int32_t>(static_cast<uint32_t>(row[j]) + static_cast<uint32_t>(x * brow[j]));
        } else {
          for (unsigned j = 0; j < N; ++j) row[j] = std::fma(x, brow[j], row[j]);
        }
      }
    }
  // D: A, B and C are all read by now, so D may overlap any of them.
  for (unsigned r = 0; r < rows; ++r) {
    uint32_t* lo = w.v[(in.dst + step * r) & (kVRows - 1)];
    uint32_t* hi = w.v[(in.dst + step * r + 1) & (kVRows - 1)];
    const uint16_t* h = &held[r * 64];
    for (unsigned l = 0; l < 64; ++l) {
      uint64_t bits = 0;
      std::memcpy(&bits, &flat[h[l]], sizeof(S));
      lo[l] = static_cast<uint32_t>(bits);
      if constexpr (f64) hi[l] = static_cast<uint32_t>(bits >> 32);
    }
  }
  w.lane_ops += 64;
}

const HandlerEntry kMfma[] = {
    // CDNA1/CDNA2 (gfx908, gfx90a) names.
    {"v_mfma_f32_32x32x1f32", mfma<El::F32, 32, 32, 1, 2>},
    {"v_mfma_f32_16x16x1f32", mfma<El::F32, 16, 16, 1, 4>},
    {"v_mfma_f32_4x4x1f32", mfma<El::F32, 4, 4, 1, 16>},
    {"v_mfma_f32_32x32x2f32", mfma<El::F32, 32, 32, 2, 1>},
    {"v_mfma_f32_16x16x4f32", mfma<El::F32, 16, 16, 4, 1>},
    {"v_mfma_f32_32x32x4f16", mfma<El::F16, 32, 32, 4, 2>},
    {"v_mfma_f32_16x16x4f16", mfma<El::F16, 16, 16, 4, 4>},
    {"v_mfma_f32_4x4x4f16", mfma<El::F16, 4, 4, 4, 16>},
    {"v_mfma_f32_32x32x8f16", mfma<El::F16, 32, 32, 8, 1>},
    {"v_mfma_f32_16x16x16f16", mfma<El::F16, 16, 16, 16, 1>},
    {"v_mfma_i32_32x32x4i8", mfma<El::I8, 32, 32, 4, 2>},
    {"v_mfma_i32_16x16x4i8", mfma<El::I8, 16, 16, 4, 4>},
    {"v_mfma_i32_4x4x4i8", mfma<El::I8, 4, 4, 4, 16>},
    {"v_mfma_i32_32x32x8i8", mfma<El::I8, 32, 32, 8, 1>},
    {"v_mfma_i32_16x16x16i8", mfma<El::I8, 16, 16, 16, 1>},
    {"v_mfma_f32_32x32x2bf16", mfma<El::BF16, 32, 32, 2, 2>},
    {"v_mfma_f32_16x16x2bf16", mfma<El::BF16, 16, 16, 2, 4>},
    {"v_mfma_f32_4x4x2bf16", mfma<El::BF16, 4, 4, 2, 16>},
    {"v_mfma_f32_32x32x4bf16", mfma<El::BF16, 32, 32, 4, 1>},
    {"v_mfma_f32_16x16x8bf16", mfma<El::BF16, 16, 16, 8, 1>},
    {"v_mfma_f32_32x32x4bf16_1k", mfma<El::BF16, 32, 32, 4, 2>},
    {"v_mfma_f32_16x16x4bf16_1k", mfma<El::BF16, 16, 16, 4, 4>},
    {"v_mfma_f32_4x4x4bf16_1k", mfma<El::BF16, 4, 4, 4, 16>},
    {"v_mfma_f32_32x32x8bf16_1k", mfma<El::BF16, 32, 32, 8, 1>},
    {"v_mfma_f32_16x16x16bf16_1k", mfma<El::BF16, 16, 16, 16, 1>},
    {"v_mfma_f64_16x16x4f64", mfma<El::F64, 16, 16, 4, 1>},
    {"v_mfma_f64_4x4x4f64", mfma<El::F64, 4, 4, 4, 4>},
    // CDNA3 (gfx942) names of the same operations.
    {"v_mfma_f32_32x32x4_2b_bf16", mfma<El::BF16, 32, 32, 4, 2>},
    {"v_mfma_f32_16x16x4_4b_bf16", mfma<El::BF16, 16, 16, 4, 4>},
    {"v_mfma_f32_4x4x4_16b_bf16", mfma<El::BF16, 4, 4, 4, 16>},
    {"v_mfma_f32_32x32x8_bf16", mfma<El::BF16, 32, 32, 8, 1>},
    {"v_mfma_f32_16x16x16_bf16", mfma<El::BF16, 16, 16, 16, 1>},
    {"v_mfma_f64_16x16x4_f64", mfma<El::F64, 16, 16, 4, 1>},
    {"v_mfma_f64_4x4x4_4b_f64", mfma<El::F64, 4, 4, 4, 4>},
    // CDNA3's own: i8 with twice the depth, and the fp8/bf8 products (A's type first).
    {"v_mfma_i32_32x32x16_i8", mfma<El::I8, 32, 32, 16, 1, El::I8, false>},
    {"v_mfma_i32_16x16x32_i8", mfma<El::I8, 16, 16, 32, 1, El::I8, false>},
    {"v_mfma_f32_16x16x32_fp8_fp8", mfma<El::FP8, 16, 16, 32, 1, El::FP8, false>},
    {"v_mfma_f32_16x16x32_fp8_bf8", mfma<El::FP8, 16, 16, 32, 1, El::BF8, false>},
    {"v_mfma_f32_16x16x32_bf8_fp8", mfma<El::BF8, 16, 16, 32, 1, El::FP8, false>},
    {"v_mfma_f32_16x16x32_bf8_bf8", mfma<El::BF8, 16, 16, 32, 1, El::BF8, false>},
    {"v_mfma_f32_32x32x16_fp8_fp8", mfma<El::FP8, 32, 32, 16, 1, El::FP8, false>},
    {"v_mfma_f32_32x32x16_fp8_bf8", mfma<El::FP8, 32, 32, 16, 1, El::BF8, false>},
    {"v_mfma_f32_32x32x16_bf8_fp8", mfma<El::BF8, 32, 32, 16, 1, El::FP8, false>},
    {"v_mfma_f32_32x32x16_bf8_bf8", mfma<El::BF8, 32, 32, 16, 1, El::BF8, false>},
};

}  // namespace

HandlerList mfma_handlers() { return {std::begin(kMfma), std::end(kMfma)}; }

}  // namespace emu::shader
