// SPDX-License-Identifier: MIT
// hc::tiled_extent<N> (tile sizes chosen at run time), hc::tiled_index<N> and hc::tile_barrier.
#pragma once

#include "index.hpp"

namespace hc {

// A barrier over the work-items of one tile; the fence variants choose which memory is ordered.
class tile_barrier {
public:
  HC_HD tile_barrier() = default;
  HC_HD void wait() const { wait_with_all_memory_fence(); }
  HC_HD void wait_with_all_memory_fence() const {
#if HC_ON_DEVICE
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
#endif
  }
  HC_HD void wait_with_global_memory_fence() const { wait_with_all_memory_fence(); }
  HC_HD void wait_with_tile_static_memory_fence() const {
#if HC_ON_DEVICE
    // LDS accesses of a work-group complete in order once waited for (lgkmcnt), so a
    // work-group-scope fence around the barrier is all the tile_static data needs.
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
#endif
  }
};

// An extent<N> cut into tiles whose sizes are run-time values (hc's dynamic tile size), plus the
// bytes of dynamic group segment (LDS) each tile gets.
template <int N> class tiled_extent : public extent<N> {
  static_assert(N >= 1 && N <= 3, "tiled_extent supports ranks 1 to 3");

public:
  static constexpr int rank = N;
  int tile_dim[N];

  HC_HD tiled_extent() : extent<N>(), tile_dim{}, dyn_lds_(0) {}
  // (extent, t0..tN-1) or (extent, t0..tN-1, dynamic group segment bytes).
  template <class... T>
  HC_HD tiled_extent(const extent<N>& ext, T... t) requires(sizeof...(T) == N ||
                                                            sizeof...(T) == N + 1)
      : extent<N>(ext), tile_dim{}, dyn_lds_(0) {
    set_tiles(t...);
  }
  // (e0..eN-1, t0..tN-1) or the same plus the dynamic group segment bytes.
  template <class... T>
  HC_HD tiled_extent(int e0, T... rest) requires(sizeof...(T) == 2 * N - 1 ||
                                                 sizeof...(T) == 2 * N)
      : extent<N>(), tile_dim{}, dyn_lds_(0) {
    int all[] = {e0, static_cast<int>(rest)...};
    for (int i = 0; i < N; ++i) (*this)[i] = all[i];
    for (int i = 0; i < N; ++i) tile_dim[i] = all[N + i];
    if (sizeof...(T) == 2 * N) dyn_lds_ = static_cast<unsigned>(all[2 * N]);
  }

  HC_HD void set_dynamic_group_segment_size(unsigned int bytes) { dyn_lds_ = bytes; }
  HC_HD unsigned int get_dynamic_group_segment_size() const { return dyn_lds_; }
  HC_HD extent<N> get_tile_extent() const { return extent<N>(tile_dim); }
  HC_HD const extent<N>& get_extent() const { return *this; }

  HC_HD bool operator==(const tiled_extent& o) const {
    for (int i = 0; i < N; ++i)
      if (tile_dim[i] != o.tile_dim[i]) return false;
    return static_cast<const extent<N>&>(*this) == o && dyn_lds_ == o.dyn_lds_;
  }
  HC_HD bool operator!=(const tiled_extent& o) const { return !(*this == o); }

private:
  template <class... T> HC_HD void set_tiles(T... t) {
    int all[] = {static_cast<int>(t)...};
    for (int i = 0; i < N; ++i) tile_dim[i] = all[i];
    if (sizeof...(T) == N + 1) dyn_lds_ = static_cast<unsigned>(all[N]);
  }
  unsigned int dyn_lds_;
};

template <int N>
template <class... T>
auto extent<N>::tile(T... dims) const {
  static_assert(sizeof...(T) == N, "extent<N>::tile takes N tile sizes");
  return tiled_extent<N>(*this, dims...);
}

template <int N>
template <class... T>
auto extent<N>::tile_with_dynamic(T... dims_then_lds) const {
  static_assert(sizeof...(T) == N + 1, "tile_with_dynamic takes N tile sizes and a byte count");
  return tiled_extent<N>(*this, dims_then_lds...);
}

// The position of a work-item in a tiled launch: global and local indices, the tile it is in,
// that tile's origin and its actual size (tiles at the edge of the grid may be partial).
template <int N> class tiled_index {
public:
  static constexpr int rank = N;
  const index<N> global;
  const index<N> local;
  const index<N> tile;
  const index<N> tile_origin;
  const tile_barrier barrier;
  const extent<N> tile_dim;

  HC_HD tiled_index(const index<N>& g, const index<N>& l, const index<N>& t,
                    const index<N>& origin, const extent<N>& dim)
      : global(g), local(l), tile(t), tile_origin(origin), barrier(), tile_dim(dim) {}
  HC_HD operator const index<N>() const { return global; }
  HC_HD const extent<N>& get_tile_extent() const { return tile_dim; }
};

} // namespace hc
