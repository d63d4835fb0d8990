// SPDX-License-Identifier: MIT
// VALU compares (VOPC and their VOP3 forms): v_cmp_*, v_cmpx_* (also writes EXEC), v_cmp_class_*.
#include <string>
#include <vector>

#include "emu/shader/fast32.h"
#include "emu/shader/valu64.h"

namespace emu::shader {

namespace {

enum class Cond { F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, TRU };

template <class T>
bool fcmp(Cond c, T a, T b) {
  bool un = std::isnan(a) || std::isnan(b);
  switch (c) {
    case Cond::F: return false;
    case Cond::LT: return a < b;
    case Cond::EQ: return a == b;
    case Cond::LE: return a <= b;
    case Cond::GT: return a > b;
    case Cond::LG: return !un && a != b;
    case Cond::GE: return a >= b;
    case Cond::O: return !un;
    case Cond::U: return un;
    case Cond::NGE: return !(a >= b);
    case Cond::NLG: return un || a == b;
    case Cond::NGT: return !(a > b);
    case Cond::NLE: return !(a <= b);
    case Cond::NEQ: return !(a == b);
    case Cond::NLT: return !(a < b);
    default: return true;
  }
}

#if defined(__AVX2__)
// The conditions as AVX compare predicates (quiet: no FP flags are read).
constexpr int kCmpPd[16] = {_CMP_FALSE_OQ, _CMP_LT_OQ, _CMP_EQ_OQ, _CMP_LE_OQ, _CMP_GT_OQ, _CMP_NEQ_OQ, _CMP_GE_OQ,
                            _CMP_ORD_Q, _CMP_UNORD_Q, _CMP_NGE_UQ, _CMP_EQ_UQ, _CMP_NGT_UQ, _CMP_NLE_UQ, _CMP_NEQ_UQ,
                            _CMP_NLT_UQ, _CMP_TRUE_UQ};
#endif

// Integer conditions use the same slots: F LT EQ LE GT NE(=LG) GE T(=O).
template <class T>
bool icmp(Cond c, T a, T b) {
  switch (c) {
    case Cond::F: return false;
    case Cond::LT: return a < b;
    case Cond::EQ: return a == b;
    case Cond::LE: return a <= b;
    case Cond::GT: return a > b;
    case Cond::LG: return a != b;
    case Cond::GE: return a >= b;
    default: return true;
  }
}

void finish(Wave& w, const Inst& in, uint64_t ex, uint64_t m, bool x) {
  m &= ex;
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
  store_mask(w, in, m);
  if (x) w.set_exec(m);
}

// Kind: 0 f16, 1 f32, 2 f64, 3 i16, 4 u16, 5 i32, 6 u32, 7 i64, 8 u64.
template <int K, Cond C, bool X>
void cmp(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in);
  uint32_t c[64];  // per-lane results, packed once (the lane loops vectorise)
  if constexpr (K == 7 || K == 8) {  // 64-bit integers from the rows' 32-bit halves (vectorises)
    uint32_t t0[128], t1[128];
    const Rows64 A = fetch64_rows(w, in, 0, false, t0), B = fetch64_rows(w, in, 1, false, t1);
    VLOOP {
      const uint32_t ah = A.hi[l], bh = B.hi[l], al = A.lo[l], bl = B.lo[l];
      const bool hlt = K == 7 ? static_cast<int32_t>(ah) < static_cast<int32_t>(bh) : ah < bh;
      const bool lt = hlt | ((ah == bh) & (al < bl)), eq = (ah == bh) & (al == bl);
      c[l] = icmp(C, lt ? 0 : eq ? 1 : 2, 1);  // compares -1/0/+1 as 0/1/2 against 1
    }
  } else if constexpr (K == 2) {
    (void)c;
#if defined(__AVX2__)
    auto fv = [](__m256d a, __m256d b, __m256d) { return _mm256_cmp_pd(a, b, kCmpPd[static_cast<int>(C)]); };
#else
    NoVector fv;
#endif
    finish(w, in, ex, valu64mask<2, K == 2, 3>(w, in, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
      return fcmp(C, f64(a), f64(b));
    }, fv), X);
    return;
  } else {
    constexpr Ty t = K == 0 ? Ty::F16 : K == 1 ? Ty::F32 : (K == 3 || K == 4) ? Ty::B16 : Ty::B32;
    uint32_t t0[64], t1[64];
    const uint32_t* A = fetch32(w, in, 0, t, t0);
    const uint32_t* B = fetch32(w, in, 1, t, t1);
    VLOOP {
      bool r;
      if constexpr (K == 0) r = fcmp(C, f16_to_f32(static_cast<uint16_t>(A[l])), f16_to_f32(static_cast<uint16_t>(B[l])));
      else if constexpr (K == 1) r = fcmp(C, f32(A[l]), f32(B[l]));
      else if constexpr (K == 3) r = icmp(C, static_cast<int16_t>(A[l]), static_cast<int16_t>(B[l]));
      else if constexpr (K == 4) r = icmp(C, static_cast<uint16_t>(A[l]), static_cast<uint16_t>(B[l]));
      else if constexpr (K == 5) r = icmp(C, static_cast<int32_t>(A[l]), static_cast<int32_t>(B[l]));
      else r = icmp(C, A[l], B[l]);
      c[l] = r;
    }
  }
  finish(w, in, ex, lanes_mask(c), X);
}

// v_cmp_class: S1 bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
// 7 +denormal, 8 +normal, 9 +inf.
template <class T>
unsigned fp_class(T x, bool quiet) {
  bool neg = std::signbit(x);
  switch (std::fpclassify(x)) {
    case FP_NAN: return quiet ? 1 : 0;
    case FP_INFINITE: return neg ? 2 : 9;
    case FP_NORMAL: return neg ? 3 : 8;
    case FP_SUBNORMAL: return neg ? 4 : 7;
    default: return neg ? 5 : 6;
  }
}
// fp_class of an f32 from its bits, without branches.
inline uint32_t fp_class_bits32(uint32_t x) {
  const uint32_t e = (x >> 23) & 0xFF, m = x & 0x7FFFFF, neg = x >> 31;
  const uint32_t normal = neg ? 3 : 8, denorm = neg ? 4 : 7, zero = neg ? 5 : 6, inf = neg ? 2 : 9;
  const uint32_t nan = (m >> 22) & 1;  // quiet bit: 1 qNaN, 0 sNaN
  const uint32_t low = m ? denorm : zero, high = m ? nan : inf;
  return e == 0 ? low : e == 0xFF ? high : normal;
}
// The same for an f64 from its high and low dwords.
inline uint32_t fp_class_bits64(uint32_t hi, uint32_t lo) {
  const uint32_t e = (hi >> 20) & 0x7FF, m = (hi & 0xFFFFF) | lo, neg = hi >> 31;
  const uint32_t normal = neg ? 3 : 8, denorm = neg ? 4 : 7, zero = neg ? 5 : 6, inf = neg ? 2 : 9;
  const uint32_t nan = (hi >> 19) & 1;  // quiet bit
  const uint32_t low = m ? denorm : zero, high = m ? nan : inf;
  return e == 0 ? low : e == 0x7FF ? high : normal;
}
template <int K, bool X>
void cmp_class(Wave& w, const Inst& in) {
  uint64_t ex = valu_active(w, in), m = 0;
  uint32_t t1[64];
  const uint32_t* B = fetch32(w, in, 1, Ty::B32, t1);
  if constexpr (K == 2) {
    if (in.src[0] >= 256 && !(in.flags & kDpp) && !w.gpr_idx) {  // a VGPR pair: from its rows' bits
      const unsigned row = in.src[0] - 256;
      const uint32_t* L = w.v[row];
      const uint32_t* H = w.v[(row + 1) & (kVRows - 1)];
      const uint32_t clear = (in.abs & 1) ? 0x80000000u : 0, flip = (in.neg & 1) ? 0x80000000u : 0;
      uint32_t c[64];
      VLOOP c[l] = (B[l] >> fp_class_bits64((H[l] & ~clear) ^ flip, L[l])) & 1;
      finish(w, in, ex, lanes_mask(c), X);
      return;
    }
    uint64_t A[64];
    uint32_t saved = w.mode;  // classify sees denormals: abs/neg apply but no flushing
    w.mode |= 0xC0;
    fetch64(w, in, 0, true, A);
    w.mode = saved;
    VLOOP m |= uint64_t{(B[l] >> fp_class(f64(A[l]), (A[l] >> 51) & 1)) & 1} << l;
  } else if constexpr (K == 1) {
    uint32_t t0[64], c[64];
    const uint32_t* A = fetch32(w, in, 0, Ty::M32, t0);
    VLOOP c[l] = (B[l] >> fp_class_bits32(A[l])) & 1;  // from the bits: vectorises
    m = lanes_mask(c);
  } else {
    uint32_t t0[64];
    const uint32_t* A = fetch32(w, in, 0, Ty::F16, t0);
    VLOOP {
      unsigned c = fp_class(f16_to_f32(static_cast<uint16_t>(A[l])), (A[l] >> 9) & 1);
      m |= uint64_t{(B[l] >> c) & 1} << l;
    }
  }
  finish(w, in, ex, m, X);
}

// Compares of f32, i32 and u32 specialised at decode (fast32.h): sources a VGPR row or one scalar
// (Bc), every lane active.
template <int K, Cond C, bool X, unsigned Bc>
void fast_cmp(Wave& w, const Inst& in) {
  if (w.exec() != ~uint64_t{0} || w.gpr_idx || (K == 1 && !(w.mode & 0x10))) return in.slow(w, in);
  const uint32_t* A = (Bc & 1) ? nullptr : w.v[in.src[0] - 256];
  const uint32_t* B = (Bc & 2) ? nullptr : w.v[in.src[1] - 256];
  const uint32_t a0 = (Bc & 1) ? sread32(w, in, in.src[0]) : 0, b0 = (Bc & 2) ? sread32(w, in, in.src[1]) : 0;
  uint32_t c[64];
  VLOOP {
    const uint32_t a = (Bc & 1) ? a0 : A[l], b = (Bc & 2) ? b0 : B[l];
    bool r;
    if constexpr (K == 1) r = fcmp(C, f32(a), f32(b));
    else if constexpr (K == 5) r = icmp(C, static_cast<int32_t>(a), static_cast<int32_t>(b));
    else r = icmp(C, a, b);
    c[l] = r;
  }
  finish(w, in, ~uint64_t{0}, lanes_mask(c), X);
}
template <int K, int C, bool X>
FastFamily cmp_family(const char* name) {
  constexpr Cond c = static_cast<Cond>(C);
  return {name, 2, {fast_cmp<K, c, X, 0>, fast_cmp<K, c, X, 1>, fast_cmp<K, c, X, 2>, fast_cmp<K, c, X, 3>}};
}
// These two are never destroyed, as the name list: an engine thread may still be building its
// opcode table from them while the process exits.
std::vector<FastFamily>& cmp_fast() {
  static auto& v = *new std::vector<FastFamily>;
  return v;
}
std::vector<size_t>& cmp_fast_names() {  // index of each family's name in vopc_handlers' list
  static auto& v = *new std::vector<size_t>;
  return v;
}

const char* const kFCond[16] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
const char* const kICond[8] = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};
const char* const kKind[9] = {"f16", "f32", "f64", "i16", "u16", "i32", "u32", "i64", "u64"};

template <int K, int C>
void add_cmp(std::vector<HandlerEntry>& v, std::vector<std::string>& names) {
  const char* cond = K <= 2 ? kFCond[C] : kICond[C];
  names.push_back(std::string("v_cmp_") + cond + "_" + kKind[K]);
  v.push_back({nullptr, cmp<K, static_cast<Cond>(C), false>});
  names.push_back(std::string("v_cmpx_") + cond + "_" + kKind[K]);
  v.push_back({nullptr, cmp<K, static_cast<Cond>(C), true>});
  if constexpr (K == 1 || K == 5 || K == 6) {  // named once the name list is complete
    cmp_fast().push_back(cmp_family<K, C, false>(nullptr));
    cmp_fast_names().push_back(names.size() - 2);
    cmp_fast().push_back(cmp_family<K, C, true>(nullptr));
    cmp_fast_names().push_back(names.size() - 1);
  }
}
template <int K, int... C>
void add_kind(std::vector<HandlerEntry>& v, std::vector<std::string>& n, std::integer_sequence<int, C...>) {
  (add_cmp<K, C>(v, n), ...);
}

}  // namespace

HandlerList vopc_handlers() {
  // Never destroyed: an engine thread may still be building its opcode table from these while
  // the process exits (static destructors would free the names under it).
  static auto& names = *new std::vector<std::string>;
  static const auto& v = *new std::vector<HandlerEntry>([] {
    std::vector<HandlerEntry> e;
    add_kind<0>(e, names, std::make_integer_sequence<int, 16>{});
    add_kind<1>(e, names, std::make_integer_sequence<int, 16>{});
    add_kind<2>(e, names, std::make_integer_sequence<int, 16>{});
    add_kind<3>(e, names, std::make_integer_sequence<int, 8>{});
    add_kind<4>(e, names, std::make_integer_sequence<int, 8>{});
    add_kind<5>(e, names, std::make_integer_sequence<int, 8>{});
    add_kind<6>(e, names, std::make_integer_sequence<int, 8>{});
    add_kind<7>(e, names, std::make_integer_sequence<int, 8>{});
    add_kind<8>(e, names, std::make_integer_sequence<int, 8>{});
    names.push_back("v_cmp_class_f16"); e.push_back({nullptr, cmp_class<0, false>});
    names.push_back("v_cmpx_class_f16"); e.push_back({nullptr, cmp_class<0, true>});
    names.push_back("v_cmp_class_f32"); e.push_back({nullptr, cmp_class<1, false>});
    names.push_back("v_cmpx_class_f32"); e.push_back({nullptr, cmp_class<1, true>});
    names.push_back("v_cmp_class_f64"); e.push_back({nullptr, cmp_class<2, false>});
    names.push_back("v_cmpx_class_f64"); e.push_back({nullptr, cmp_class<2, true>});
    for (size_t i = 0; i < e.size(); ++i) e[i].name = names[i].c_str();
    for (size_t f = 0; f < cmp_fast().size(); ++f) cmp_fast()[f].name = names[cmp_fast_names()[f]].c_str();
    return e;
  }());
  return {v.data(), v.data() + v.size()};
}

FastList vopc_fast_families() {
  (void)vopc_handlers();  // names the families
  return {cmp_fast().data(), cmp_fast().data() + cmp_fast().size()};
}

}  // namespace emu::shader
