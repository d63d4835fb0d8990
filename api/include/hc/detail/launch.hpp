// SPDX-License-Identifier: MIT
// hc::parallel_for_each: a templated __global__ kernel taking the functor by value, launched with hipLaunchKernel.
#pragma once

#include "array.hpp"

namespace hc {
namespace detail {

// What the kernel needs to turn HIP work-group/work-item ids into hc indices. Dimension N-1
// maps to x, N-2 to y, N-3 to z; for N > 3 the leading N-3 dimensions are looped in the kernel.
template <int N> struct grid_desc {
  int ext[N];
  int tile[3];  // work-group size in x, y, z
};

__device__ inline int hc_group_id(int axis) {
  return axis == 0 ? __builtin_amdgcn_workgroup_id_x()
                   : axis == 1 ? __builtin_amdgcn_workgroup_id_y() : __builtin_amdgcn_workgroup_id_z();
}
__device__ inline int hc_item_id(int axis) {
  return axis == 0 ? __builtin_amdgcn_workitem_id_x()
                   : axis == 1 ? __builtin_amdgcn_workitem_id_y() : __builtin_amdgcn_workitem_id_z();
}

// Calls the kernel functor in the forms hcc accepted: with the index as a value, a const or a
// non-const reference (`[=](hc::index<1>& i)`), or with no argument at all (`[]() [[hc]] {}`).
template <class F, class I> __device__ inline void call_kernel(F& f, I& idx) {
  if constexpr (std::is_invocable_v<F&, I&>) {
    f(idx);
  } else {
    static_assert(std::is_invocable_v<F&>,
                  "parallel_for_each: the kernel must take the index (hc::index<N> or "
                  "hc::tiled_index<N>, by value or reference) or nothing");
    f();
  }
}

template <int N, class F> __global__ void pfe_kernel(F f, grid_desc<N> g) {
  constexpr int K = N < 3 ? N : 3;  // dimensions carried by the grid
  index<N> idx;
  for (int a = 0; a < K; ++a) {
    const int d = N - 1 - a;
    idx[d] = hc_group_id(a) * g.tile[a] + hc_item_id(a);
    if (idx[d] >= g.ext[d]) return;
  }
  if constexpr (N <= 3) {
    call_kernel(f, idx);
  } else {
    uint64_t lead = 1;
    for (int d = 0; d < N - 3; ++d) lead *= static_cast<uint64_t>(g.ext[d]);
    for (uint64_t l = 0; l < lead; ++l) {
      uint64_t r = l;
      for (int d = N - 4; d >= 0; --d) idx[d] = static_cast<int>(r % g.ext[d]), r /= g.ext[d];
      call_kernel(f, idx);
    }
  }
}

template <int N, class F> __global__ void pfe_tiled_kernel(F f, grid_desc<N> g) {
  index<N> global, local, tile, origin;
  extent<N> dim;
  for (int a = 0; a < N; ++a) {
    const int d = N - 1 - a;
    tile[d] = hc_group_id(a);
    local[d] = hc_item_id(a);
    origin[d] = tile[d] * g.tile[a];
    global[d] = origin[d] + local[d];
    // A partial tile at the edge of the grid: its work-items beyond the extent do not run.
    if (global[d] >= g.ext[d]) return;
    const int left = g.ext[d] - origin[d];
    dim[d] = left < g.tile[a] ? left : g.tile[a];
  }
  tiled_index<N> t(global, local, tile, origin, dim);
  call_kernel(f, t);
}

inline void check_extent(const int* ext, int n) {
  for (int i = 0; i < n; ++i)
    if (ext[i] < 0)
      throw invalid_compute_domain("hc::parallel_for_each: extent[" + std::to_string(i) +
                                   "] is negative (" + std::to_string(ext[i]) + ")");
}

inline uint32_t blocks_for(int ext, int tile) {
  return static_cast<uint32_t>((static_cast<int64_t>(ext) + tile - 1) / tile);
}

// Copies the functor inside a capture scope, makes the captured data current on the device,
// launches `kernel` and marks what the kernel wrote.
template <class F, class G>
completion_future launch(const accelerator_view& av, const F& user, const void* kernel, G g,
                         dim3 grid, dim3 block, size_t lds) {
  view_state& v = *av.state();
  capture_scope scope(v.device);
  F k(user);
  scope.close();
  for (const auto& e : scope.entries()) e.buf->before_device_use(v);
  auto op = v.record(hcCommandKernel, true, [&](hipStream_t s) {
    void* args[] = {static_cast<void*>(&k), static_cast<void*>(&g)};
    check(hipLaunchKernel(kernel, grid, block, args, lds, s), "hipLaunchKernel (parallel_for_each)");
  });
  completion_future f(op);
  for (const auto& e : scope.entries()) e.buf->after_device_use(f, e.write);
  return f;
}

} // namespace detail

// Runs f(index<N>) for every index of `ext` on `av`; returns at once with the kernel's future.
template <int N, class F>
completion_future parallel_for_each(const accelerator_view& av, const extent<N>& ext, const F& f) {
  int e[N];
  for (int i = 0; i < N; ++i) e[i] = ext[i];
  detail::check_extent(e, N);
  if (ext.size64() == 0) return completion_future();
  detail::grid_desc<N> g{};
  for (int i = 0; i < N; ++i) g.ext[i] = ext[i];
  // Work-group shapes: 256 items, spread over the grid's dimensions.
  const int shape[3][3] = {{256, 1, 1}, {32, 8, 1}, {16, 4, 4}};
  const int K = N < 3 ? N : 3;
  uint32_t blocks[3] = {1, 1, 1};
  for (int a = 0; a < 3; ++a) {
    const int d = N - 1 - a;
    g.tile[a] = a < K ? std::min(shape[K - 1][a], ext[d]) : 1;
    if (a < K) blocks[a] = detail::blocks_for(ext[d], g.tile[a]);
  }
  return detail::launch(av, f, reinterpret_cast<const void*>(&detail::pfe_kernel<N, F>), g,
                        dim3(blocks[0], blocks[1], blocks[2]),
                        dim3(g.tile[0], g.tile[1], g.tile[2]), 0);
}

// Runs f(tiled_index<N>) over `ext` in tiles of ext.tile_dim; partial edge tiles are allowed.
template <int N, class F>
completion_future parallel_for_each(const accelerator_view& av, const tiled_extent<N>& ext, const F& f) {
  int e[N];
  for (int i = 0; i < N; ++i) e[i] = ext[i];
  detail::check_extent(e, N);
  if (ext.size64() == 0) return completion_future();
  accelerator acc = av.get_accelerator();
  int64_t items = 1;
  for (int i = 0; i < N; ++i) {
    if (ext.tile_dim[i] <= 0)
      throw invalid_compute_domain("hc::parallel_for_each: tile_dim[" + std::to_string(i) + "] is not positive");
    if (ext.tile_dim[i] > ext[i])
      throw runtime_exception("hc::parallel_for_each: the tile is larger than the grid (tile_dim[" +
                                  std::to_string(i) + "]=" + std::to_string(ext.tile_dim[i]) +
                                  " > extent " + std::to_string(ext[i]) + ")", -1);
    items *= ext.tile_dim[i];
  }
  if (items > static_cast<int64_t>(acc.get_max_workgroup_size()))
    throw runtime_exception("hc::parallel_for_each: the tile (" + std::to_string(items) +
                                " work-items) is larger than the device's maximum work-group size (" +
                                std::to_string(acc.get_max_workgroup_size()) + ")", -1);
  if (ext.get_dynamic_group_segment_size() > acc.get_max_tile_static_size())
    throw runtime_exception("hc::parallel_for_each: the dynamic group segment (" +
                                std::to_string(ext.get_dynamic_group_segment_size()) +
                                " bytes) exceeds the device's tile_static size", -1);
  detail::grid_desc<N> g{};
  uint32_t blocks[3] = {1, 1, 1};
  for (int a = 0; a < 3; ++a) g.tile[a] = 1;
  for (int i = 0; i < N; ++i) g.ext[i] = ext[i];
  for (int a = 0; a < N; ++a) {
    g.tile[a] = ext.tile_dim[N - 1 - a];
    blocks[a] = detail::blocks_for(ext[N - 1 - a], g.tile[a]);
  }
  return detail::launch(av, f, reinterpret_cast<const void*>(&detail::pfe_tiled_kernel<N, F>), g,
                        dim3(blocks[0], blocks[1], blocks[2]),
                        dim3(g.tile[0], g.tile[1], g.tile[2]), ext.get_dynamic_group_segment_size());
}

template <int N, class F> completion_future parallel_for_each(const extent<N>& ext, const F& f) {
  return parallel_for_each(accelerator::get_auto_selection_view(), ext, f);
}
template <int N, class F> completion_future parallel_for_each(const tiled_extent<N>& ext, const F& f) {
  return parallel_for_each(accelerator::get_auto_selection_view(), ext, f);
}

} // namespace hc
