// SPDX-License-Identifier: MIT
// The f64 handlers of fast64.cpp sixteen lanes at a time, for hosts with AVX-512F (chosen at
// decode when the CPU has it; the library itself is built for x86-64-v3): the same IEEE
// operations on the same lanes, only wider vectors. A partly active wave takes the AVX2 handler.
#pragma once

#include "emu/shader/host_cpu.h"
#include "emu/shader/valu64.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__x86_64__)
#define EMU_SHADER_AVX512 1

// GCC 12's AVX-512 unpack intrinsics pass an undefined vector as the unused merge source, which
// -Wuninitialized reports at every use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace emu::shader {

#define EMU_AVX512 __attribute__((target("avx512f"), always_inline)) inline

struct Add512 { EMU_AVX512 static __m512d f(__m512d a, __m512d b, __m512d) { return _mm512_add_pd(a, b); } };
struct Mul512 { EMU_AVX512 static __m512d f(__m512d a, __m512d b, __m512d) { return _mm512_mul_pd(a, b); } };
struct Fma512 { EMU_AVX512 static __m512d f(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); } };

// One source of 16 lanes as two vectors of 64-bit lanes (l, l+1 | l+4, l+5 | l+8, l+9 |
// l+12, l+13, and the others), abs/neg applied (Mods) or one value (Bc).
template <bool Bc, bool Mods>
EMU_AVX512 void source512(const uint32_t* p, __m512d bc, __m512d clear, __m512d flip, unsigned l, __m512d& e, __m512d& o) {
  if (Bc) {
    e = o = bc;
    return;
  }
  const __m512i x = _mm512_loadu_si512(p + l), y = _mm512_loadu_si512(p + 64 + l);
  e = _mm512_castsi512_pd(_mm512_unpacklo_epi32(x, y));
  o = _mm512_castsi512_pd(_mm512_unpackhi_epi32(x, y));
  if (Mods) {
    e = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_andnot_si512(_mm512_castpd_si512(clear), _mm512_castpd_si512(e)),
                                             _mm512_castpd_si512(flip)));
    o = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_andnot_si512(_mm512_castpd_si512(clear), _mm512_castpd_si512(o)),
                                             _mm512_castpd_si512(flip)));
  }
}

template <class Op, unsigned N, unsigned Bc, unsigned Mods>
__attribute__((target("avx512f"))) void lanes512(const Src64v* s, uint32_t* dlo) {
  __m512d bc[3], clear[3], flip[3];
  for (unsigned i = 0; i < N; ++i) {
    bc[i] = _mm512_castsi512_pd(_mm512_set1_epi64(static_cast<int64_t>(s[i].bc)));
    clear[i] = _mm512_castsi512_pd(_mm512_set1_epi64(static_cast<int64_t>(s[i].clear)));
    flip[i] = _mm512_castsi512_pd(_mm512_set1_epi64(static_cast<int64_t>(s[i].flip)));
  }
  const uint32_t* p0 = s[0].lo;
  const uint32_t* p1 = N > 1 ? s[1].lo : nullptr;
  const uint32_t* p2 = N > 2 ? s[2].lo : nullptr;
  for (unsigned l = 0; l < 64; l += 16) {
    __m512d a0, a1, b0 = _mm512_setzero_pd(), b1 = b0, c0 = b0, c1 = b0;
    source512<(Bc & 1) != 0, (Mods & 1) != 0>(p0, bc[0], clear[0], flip[0], l, a0, a1);
    if (N > 1) source512<(Bc & 2) != 0, (Mods & 2) != 0>(p1, bc[1], clear[1], flip[1], l, b0, b1);
    if (N > 2) source512<(Bc & 4) != 0, (Mods & 4) != 0>(p2, bc[2], clear[2], flip[2], l, c0, c1);
    const __m512 r0 = _mm512_castpd_ps(Op::f(a0, b0, c0)), r1 = _mm512_castpd_ps(Op::f(a1, b1, c1));
    _mm512_storeu_ps(reinterpret_cast<float*>(dlo + l), _mm512_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_ps(reinterpret_cast<float*>(dlo + 64 + l), _mm512_shuffle_ps(r0, r1, _MM_SHUFFLE(3, 1, 3, 1)));
  }
}

// v_mov_b32 of a scalar: the row in four stores (the f64 handlers above read rows 64 bytes at a
// time; whole-vector stores let those loads take the data from the store buffer).
__attribute__((target("avx512f"))) inline void broadcast512(uint32_t* d, uint32_t v) {
  const __m512i x = _mm512_set1_epi32(static_cast<int>(v));
  for (unsigned l = 0; l < 64; l += 16) _mm512_storeu_si512(d + l, x);
}
__attribute__((target("avx512f"))) inline void copy512(uint32_t* d, const uint32_t* s) {
  for (unsigned l = 0; l < 64; l += 16) _mm512_storeu_si512(d + l, _mm512_loadu_si512(s + l));
}

// Whether the host has AVX-512F (checked once).
inline bool host_avx512() { return host_cpu().avx512f; }

}  // namespace emu::shader

#pragma GCC diagnostic pop
#endif
