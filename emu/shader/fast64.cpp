// SPDX-License-Identifier: MIT
// Handlers chosen at decode for the hottest operand forms: v_add/mul/fma/fmac_f64 whose sources
// are VGPR pairs or scalars, without DPP or output modifiers (what a source is and whether abs/neg
// apply is fixed per instruction, so each runs one branch-free lane loop, valu64.h), v_mov_b32 of
// a scalar or a VGPR, and the 32-bit operations of vop.cpp (fast32.h).
#include <string_view>
#include <unordered_map>

#include "emu/shader/fast32.h"
#include "emu/shader/fast512.h"
#include "emu/shader/valu64.h"

namespace emu::shader {

#if defined(__AVX2__) && defined(__FMA__)
namespace {

struct Add { static __m256d f(__m256d a, __m256d b, __m256d) { return _mm256_add_pd(a, b); } };
struct Mul { static __m256d f(__m256d a, __m256d b, __m256d) { return _mm256_mul_pd(a, b); } };
struct Fma { static __m256d f(__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); } };
#if defined(EMU_SHADER_AVX512)
template <class Op> struct Wide;
template <> struct Wide<Add> { using T = Add512; };
template <> struct Wide<Mul> { using T = Mul512; };
template <> struct Wide<Fma> { using T = Fma512; };
#endif

// Bc: sources read as one value (SGPR pair, constant, literal); Mods: VGPR sources with abs/neg.
// What the wave's state may still change (GPR indexing, f64 denormal flushing in MODE) sends it
// to the general handler (Inst::slow).
template <class Op, unsigned N, unsigned Bc, unsigned Mods, bool Z = false>
void fast_f64(Wave& w, const Inst& in) {
  if (w.gpr_idx || (w.mode & 0xC0) != 0xC0) return in.slow(w, in);
  Src64v s[N];
  for (unsigned i = 0; i < N; ++i) {
    const uint64_t sign = uint64_t{1} << 63;
    const uint64_t clear = ((in.abs >> i) & 1) ? sign : 0, flip = ((in.neg >> i) & 1) ? sign : 0;
    if ((Bc >> i) & 1) s[i] = {nullptr, (sread64(w, in, in.src[i], true) & ~clear) ^ flip, 0, 0};
    else s[i] = {w.v[in.src[i] - 256], 0, clear, flip};
  }
  const uint64_t ex = w.exec();
  uint32_t* dlo = w.v[in.dst];
  uint32_t* dhi = dlo + 64;  // the decoder chose this handler only for a pair that does not wrap
#if defined(EMU_SHADER_AVX512)
  if (Z && ex == ~uint64_t{0}) {  // sixteen lanes at a time (fast512.h)
    lanes512<typename Wide<Op>::T, N, Bc, Mods>(s, dlo);
    w.lane_ops += 64;
    return;
  }
#endif
  if (ex == ~uint64_t{0}) {
    lanes64v<N, Mods, 7, Bc>(s, Op::f, [&](unsigned l, __m256d r0, __m256d r1) {
      Lane8 lo, hi;
      split64(r0, r1, lo, hi);
      put8(dlo + l, lo);
      put8(dhi + l, hi);
    });
  } else {
    uint32_t sel[64];
    mask_lanes(ex, sel);
    lanes64v<N, Mods, 7, Bc>(s, Op::f, [&](unsigned l, __m256d r0, __m256d r1) {
      Lane8 lo, hi;
      split64(r0, r1, lo, hi);
      const Lane8 m = get8(sel + l);
      put8(dlo + l, blend8(get8(dlo + l), lo, m));
      put8(dhi + l, blend8(get8(dhi + l), hi, m));
    });
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// The handler for source kinds `key` (base 3, source i at 3^i: 0 a plain VGPR pair, 1 one with
// abs/neg, 2 a scalar) of an N-source Op.
constexpr unsigned pow3(unsigned n) { return n ? 3 * pow3(n - 1) : 1; }
template <unsigned N>
constexpr unsigned bits_of(unsigned key, unsigned kind) {
  unsigned m = 0;
  for (unsigned i = 0; i < N; ++i, key /= 3) m |= (key % 3 == kind ? 1u : 0u) << i;
  return m;
}
template <class Op, unsigned N, bool Z, unsigned K = 0>
ExecFn pick(unsigned key) {
  if constexpr (K < pow3(N)) {
    if (key == K) return fast_f64<Op, N, bits_of<N>(K, 2), bits_of<N>(K, 1), Z>;
    return pick<Op, N, Z, K + 1>(key);
  }
  return nullptr;
}
template <class Op, unsigned N>
ExecFn pick(unsigned key) {
#if defined(EMU_SHADER_AVX512)
  if (host_avx512()) return pick<Op, N, true>(key);
#endif
  return pick<Op, N, false>(key);
}

// v_mov_b32 of a scalar (broadcast) or a VGPR (row copy) into a VGPR, every lane active.
void mov_scalar(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx) return in.slow(w, in);
  const __m256i v = _mm256_set1_epi32(static_cast<int>(sread32(w, in, in.src[0])));
  uint32_t* d = w.v[in.dst];
  for (unsigned l = 0; l < 64; l += 8) put8(d + l, v);
  w.lane_ops += 64;
}
void mov_vgpr(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx) return in.slow(w, in);
  std::memcpy(w.v[in.dst], w.v[in.src[0] - 256], 256);
  w.lane_ops += 64;
}
#if defined(EMU_SHADER_AVX512)
void mov_scalar512(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx) return in.slow(w, in);
  broadcast512(w.v[in.dst], sread32(w, in, in.src[0]));
  w.lane_ops += 64;
}
void mov_vgpr512(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx) return in.slow(w, in);
  copy512(w.v[in.dst], w.v[in.src[0] - 256]);
  w.lane_ops += 64;
}
#endif

}  // namespace

static ExecFn specialize64(const Inst& in) {
  const std::string_view n = in.name;
  if (n == "v_mov_b32" && !(in.flags & (kDpp | kSdwa)) && in.plain & 1 && !in.omod && !in.clamp) {
#if defined(EMU_SHADER_AVX512)
    if (host_avx512()) return in.src[0] >= 256 ? mov_vgpr512 : mov_scalar512;
#endif
    return in.src[0] >= 256 ? mov_vgpr : mov_scalar;
  }
  const bool add = n == "v_add_f64", mul = n == "v_mul_f64", fma = n == "v_fma_f64" || n == "v_fmac_f64";
  if (!(add || mul || fma) || (in.flags & (kDpp | kSdwa)) || in.omod || in.clamp || in.dst >= kVRows - 1) return nullptr;
  const unsigned nsrc = fma ? 3 : 2;
  unsigned key = 0;
  for (unsigned i = 0, weight = 1; i < nsrc; ++i, weight *= 3) {
    if (in.src[i] >= 256 + kVRows - 1) return nullptr;  // a pair that wraps around the register file
    key += weight * (in.src[i] < 256 ? 2 : ((in.abs | in.neg) >> i) & 1);
  }
  if (add) return pick<Add, 2>(key);
  if (mul) return pick<Mul, 2>(key);
  return pick<Fma, 3>(key);
}
#else
static ExecFn specialize64(const Inst&) { return nullptr; }
#endif

namespace {

// The 32-bit operations with specialised handlers (vop.cpp), by name.
const FastFamily* fast_family_of(std::string_view n) {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, const FastFamily*>;
    for (const FastList l : {vop_fast_families(), vopc_fast_families()})
      for (const FastFamily* f = l.begin; f != l.end; ++f) (*m)[f->name] = f;
    return m;
  }();
  auto it = map->find(n);
  return it == map->end() ? nullptr : it->second;
}

ExecFn specialize32(const Inst& in) {
  const FastFamily* f = fast_family_of(in.name);
  if (!f || (in.flags & (kDpp | kSdwa)) || in.omod || in.clamp || in.dst >= kVRows) return nullptr;
  const unsigned all = (1u << f->nsrc) - 1;
  if ((in.plain & all) != all) return nullptr;
  unsigned bc = 0;
  for (unsigned i = 0; i < f->nsrc; ++i) bc |= in.src[i] < 256 ? 1u << i : 0;
  return f->fn[bc];
}

}  // namespace

void prepare_specialize() { (void)fast_family_of(""); }

ExecFn specialize(const Inst& in) {
  if (ExecFn f = specialize32(in)) return f;
  return specialize64(in);
}

}  // namespace emu::shader
