// SPDX-License-Identifier: MIT
// Moves between a wave's VGPR rows (one row per dword, 64 lanes) and 64 lanes' consecutive N-dword pieces in memory, as a coalesced load or store of a whole wave does.
#pragma once

#include <cstdint>
#include <cstring>

#include "emu/shader/guest.h"
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace emu::shader {

// rows[i][l] = dword i of lane l's piece at src + 4*N*l. The lanes' side is guest memory.
template <unsigned N>
EMU_GUEST inline void rows_from_lanes(uint32_t* const* rows, const uint8_t* src) {
  if constexpr (N == 1) {
    guest_move(rows[0], src, 256);
#if defined(__AVX2__)
  } else if constexpr (N == 2) {
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    for (unsigned l = 0; l < 64; l += 8) {  // lanes l..l+3 then l+4..l+7, dword pairs
      const __m256i a = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 8 * l)), idx);
      const __m256i b = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 8 * l + 32)), idx);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows[0] + l), _mm256_permute2x128_si256(a, b, 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows[1] + l), _mm256_permute2x128_si256(a, b, 0x31));
    }
  } else if constexpr (N == 4) {
    for (unsigned l = 0; l < 64; l += 8) {  // A = lanes l and l+4, B = l+1 and l+5, ...
      const uint8_t* p = src + 16 * l;
      auto pair = [p](unsigned k) EMU_GUEST {
        return _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 16 * (k + 4)), reinterpret_cast<const __m128i*>(p + 16 * k));
      };
      const __m256i a = pair(0), b = pair(1), c = pair(2), d = pair(3);
      const __m256i t0 = _mm256_unpacklo_epi32(a, b), t1 = _mm256_unpackhi_epi32(a, b);
      const __m256i t2 = _mm256_unpacklo_epi32(c, d), t3 = _mm256_unpackhi_epi32(c, d);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows[0] + l), _mm256_unpacklo_epi64(t0, t2));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows[1] + l), _mm256_unpackhi_epi64(t0, t2));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows[2] + l), _mm256_unpacklo_epi64(t1, t3));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows[3] + l), _mm256_unpackhi_epi64(t1, t3));
    }
#endif
  } else if constexpr (N == 2) {  // one 8-byte read per lane: an aligned dwordx2 is single-copy atomic
    for (unsigned l = 0; l < 64; ++l) {
      uint64_t v;
      std::memcpy(&v, src + 8 * l, 8);
      rows[0][l] = static_cast<uint32_t>(v);
      rows[1][l] = static_cast<uint32_t>(v >> 32);
    }
  } else {
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned i = 0; i < N; ++i) std::memcpy(&rows[i][l], src + 4 * (N * l + i), 4);
  }
}

// The inverse: dst + 4*N*l + 4*i = rows[i][l].
template <unsigned N>
EMU_GUEST inline void lanes_from_rows(uint8_t* dst, const uint32_t* const* rows) {
  if constexpr (N == 1) {
    guest_move(dst, rows[0], 256);
#if defined(__AVX2__)
  } else if constexpr (N == 2) {
    const __m256i idx = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (unsigned l = 0; l < 64; l += 8) {
      const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[0] + l));
      const __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[1] + l));
      const __m256i a = _mm256_permute2x128_si256(r0, r1, 0x20), b = _mm256_permute2x128_si256(r0, r1, 0x31);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8 * l), _mm256_permutevar8x32_epi32(a, idx));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8 * l + 32), _mm256_permutevar8x32_epi32(b, idx));
    }
  } else if constexpr (N == 4) {
    for (unsigned l = 0; l < 64; l += 8) {
      auto row = [&](unsigned i) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[i] + l)); };
      const __m256i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
      const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
      const __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
      uint8_t* p = dst + 16 * l;
      auto put = [p](unsigned k, __m256i v) EMU_GUEST {
        _mm256_storeu2_m128i(reinterpret_cast<__m128i*>(p + 16 * (k + 4)), reinterpret_cast<__m128i*>(p + 16 * k), v);
      };
      put(0, _mm256_unpacklo_epi64(t0, t2));
      put(1, _mm256_unpackhi_epi64(t0, t2));
      put(2, _mm256_unpacklo_epi64(t1, t3));
      put(3, _mm256_unpackhi_epi64(t1, t3));
    }
#endif
  } else if constexpr (N == 2) {  // one 8-byte write per lane
    for (unsigned l = 0; l < 64; ++l) {
      const uint64_t v = uint64_t{rows[0][l]} | uint64_t{rows[1][l]} << 32;
      std::memcpy(dst + 8 * l, &v, 8);
    }
  } else {
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned i = 0; i < N; ++i) std::memcpy(dst + 4 * (N * l + i), &rows[i][l], 4);
  }
}

}  // namespace emu::shader
