// SPDX-License-Identifier: MIT
// hc::index<N> and hc::extent<N>: N-dimensional coordinates and domains, usable on host and device.
#pragma once

#include "config.hpp"

namespace hc {

template <int N> class extent;

// A point in an N-dimensional domain; component N-1 varies fastest (row-major) and maps to x.
template <int N> class index {
  static_assert(N > 0, "index rank must be positive");

public:
  static constexpr int rank = N;
  typedef int value_type;

  HC_HD constexpr index() : v_{} {}
  HC_HD explicit constexpr index(int i0) requires(N == 1) : v_{i0} {}
  template <class... I>
  HC_HD constexpr index(int i0, I... is) requires(N > 1 && sizeof...(I) == N - 1)
      : v_{i0, static_cast<int>(is)...} {}
  HC_HD explicit index(const int components[]) {
    for (int i = 0; i < N; ++i) v_[i] = components[i];
  }
  HC_HD explicit index(int components[]) {
    for (int i = 0; i < N; ++i) v_[i] = components[i];
  }

  HC_HD constexpr int operator[](unsigned c) const { return v_[c]; }
  HC_HD constexpr int& operator[](unsigned c) { return v_[c]; }

  HC_HD bool operator==(const index& o) const {
    for (int i = 0; i < N; ++i)
      if (v_[i] != o.v_[i]) return false;
    return true;
  }
  HC_HD bool operator!=(const index& o) const { return !(*this == o); }

#define HC_INDEX_OPS(op)                                                                 \
  HC_HD index& operator op##=(const index& o) {                                          \
    for (int i = 0; i < N; ++i) v_[i] op## = o.v_[i];                                    \
    return *this;                                                                        \
  }                                                                                      \
  HC_HD index& operator op##=(int s) {                                                   \
    for (int i = 0; i < N; ++i) v_[i] op## = s;                                          \
    return *this;                                                                        \
  }                                                                                      \
  friend HC_HD index operator op(index a, const index& b) { return a op## = b; }         \
  friend HC_HD index operator op(index a, int s) { return a op## = s; }                  \
  friend HC_HD index operator op(int s, const index& b) {                                \
    index r;                                                                             \
    for (int i = 0; i < N; ++i) r.v_[i] = s op b.v_[i];                                  \
    return r;                                                                            \
  }
  HC_INDEX_OPS(+)
  HC_INDEX_OPS(-)
  HC_INDEX_OPS(*)
  HC_INDEX_OPS(/)
  HC_INDEX_OPS(%)
#undef HC_INDEX_OPS

  HC_HD index& operator++() { return *this += 1; }
  HC_HD index operator++(int) { index r = *this; *this += 1; return r; }
  HC_HD index& operator--() { return *this -= 1; }
  HC_HD index operator--(int) { index r = *this; *this -= 1; return r; }

private:
  int v_[N];
};

// The size of an N-dimensional domain; extent[N-1] is the fastest-varying dimension.
template <int N> class extent {
  static_assert(N > 0, "extent rank must be positive");

public:
  static constexpr int rank = N;
  typedef int value_type;

  HC_HD constexpr extent() : v_{} {}
  HC_HD explicit constexpr extent(int e0) requires(N == 1) : v_{e0} {}
  template <class... I>
  HC_HD constexpr extent(int e0, I... es) requires(N > 1 && sizeof...(I) == N - 1)
      : v_{e0, static_cast<int>(es)...} {}
  HC_HD explicit extent(const int components[]) {
    for (int i = 0; i < N; ++i) v_[i] = components[i];
  }
  HC_HD explicit extent(int components[]) {
    for (int i = 0; i < N; ++i) v_[i] = components[i];
  }

  HC_HD constexpr int operator[](unsigned c) const { return v_[c]; }
  HC_HD constexpr int& operator[](unsigned c) { return v_[c]; }

  // Number of points; 0 when any dimension is 0 or negative.
  HC_HD unsigned int size() const { return static_cast<unsigned int>(size64()); }
  HC_HD uint64_t size64() const {
    uint64_t s = 1;
    for (int i = 0; i < N; ++i) s *= v_[i] > 0 ? static_cast<uint64_t>(v_[i]) : 0;
    return s;
  }

  HC_HD bool contains(const index<N>& idx) const {
    for (int i = 0; i < N; ++i)
      if (idx[i] < 0 || idx[i] >= v_[i]) return false;
    return true;
  }

  // Row-major linear position of `idx` in this extent.
  HC_HD uint64_t linear(const index<N>& idx) const {
    uint64_t l = 0;
    for (int i = 0; i < N; ++i) l = l * static_cast<uint64_t>(v_[i]) + idx[i];
    return l;
  }

  HC_HD bool operator==(const extent& o) const {
    for (int i = 0; i < N; ++i)
      if (v_[i] != o.v_[i]) return false;
    return true;
  }
  HC_HD bool operator!=(const extent& o) const { return !(*this == o); }

  HC_HD extent& operator+=(const index<N>& o) {
    for (int i = 0; i < N; ++i) v_[i] += o[i];
    return *this;
  }
  HC_HD extent& operator-=(const index<N>& o) {
    for (int i = 0; i < N; ++i) v_[i] -= o[i];
    return *this;
  }
  HC_HD extent& operator+=(const extent& o) {
    for (int i = 0; i < N; ++i) v_[i] += o.v_[i];
    return *this;
  }
  HC_HD extent& operator-=(const extent& o) {
    for (int i = 0; i < N; ++i) v_[i] -= o.v_[i];
    return *this;
  }
  HC_HD extent& operator*=(int s) {
    for (int i = 0; i < N; ++i) v_[i] *= s;
    return *this;
  }
  HC_HD extent& operator/=(int s) {
    for (int i = 0; i < N; ++i) v_[i] /= s;
    return *this;
  }
  HC_HD extent& operator%=(int s) {
    for (int i = 0; i < N; ++i) v_[i] %= s;
    return *this;
  }
  friend HC_HD extent operator+(extent a, const index<N>& b) { return a += b; }
  friend HC_HD extent operator-(extent a, const index<N>& b) { return a -= b; }
  friend HC_HD extent operator+(extent a, const extent& b) { return a += b; }
  friend HC_HD extent operator-(extent a, const extent& b) { return a -= b; }
  friend HC_HD extent operator*(extent a, int s) { return a *= s; }
  friend HC_HD extent operator/(extent a, int s) { return a /= s; }
  friend HC_HD extent operator%(extent a, int s) { return a %= s; }

  HC_HD extent& operator++() {
    for (int i = 0; i < N; ++i) ++v_[i];
    return *this;
  }
  HC_HD extent& operator--() {
    for (int i = 0; i < N; ++i) --v_[i];
    return *this;
  }

  // Tiles this extent (defined in tiled.hpp).
  template <class... T> auto tile(T... dims) const;
  template <class... T> auto tile_with_dynamic(T... dims_then_lds) const;

private:
  int v_[N];
};

} // namespace hc
