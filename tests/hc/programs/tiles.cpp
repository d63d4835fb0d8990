// SPDX-License-Identifier: MIT
// hc test: tiled launches with partial tiles, oversized tiles, tile_static and dynamic group segment memory, barriers.
#include "hc_check.hpp"

#include <vector>

using hc_test::check;

void partial_tiles() {
  // 100 x 37 in 16 x 8 tiles: the last tile row and column are partial.
  const int h = 100, w = 37;
  std::vector<int> hits(h * w, 0), dims(h * w, 0), org(h * w, 0);
  hc::array_view<int, 2> vh(h, w, hits.data()), vd(h, w, dims.data()), vo(h, w, org.data());
  hc::tiled_extent<2> te(hc::extent<2>(h, w), 16, 8);
  hc::parallel_for_each(te, [=](hc::tiled_index<2> t) {
    vh[t.global] += 1;
    vd[t.global] = t.tile_dim[0] * 100 + t.tile_dim[1];
    vo[t.global] = (t.tile_origin == t.global - t.local && t.tile[0] * 16 == t.tile_origin[0]) ? 1 : 0;
  }).wait();
  bool once = true, dim_ok = true, origin_ok = true;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      once = once && vh(y, x) == 1;
      const int ty = (y / 16 == h / 16) ? h % 16 : 16, tx = (x / 8 == w / 8) ? w % 8 : 8;
      dim_ok = dim_ok && vd(y, x) == ty * 100 + tx;
      origin_ok = origin_ok && vo(y, x) == 1;
    }
  check(once, "a grid that tiles do not divide: every index runs exactly once");
  check(dim_ok, "tile_dim is the partial size at the edges");
  check(origin_ok, "tile_origin == global - local, tile * tile size == tile_origin");
}

void oversized_tiles() {
  hc::accelerator acc;
  const int max = static_cast<int>(acc.get_max_workgroup_size());
  int dummy = 0;
  check(hc_test::throws<hc::runtime_exception>([&] {
          hc::parallel_for_each(hc::extent<1>(4 * max).tile(2 * max), [=](hc::tiled_index<1>) { (void)dummy; });
        }, "maximum work-group size"),
        "a tile larger than the device's maximum work-group size throws, saying so");
  check(hc_test::throws<hc::runtime_exception>([&] {
          hc::parallel_for_each(hc::extent<2>(8, 8).tile(16, 4), [=](hc::tiled_index<2>) { (void)dummy; });
        }, "larger than the grid"),
        "a tile larger than the grid throws, saying so");
  check(hc_test::throws<hc::invalid_compute_domain>([&] {
          hc::parallel_for_each(hc::extent<1>(64).tile(0), [=](hc::tiled_index<1>) { (void)dummy; });
        }),
        "a zero tile size is an invalid compute domain");
}

void tile_static_reduce() {
  // Sum of each 256-element tile through tile_static memory and barriers.
  const int n = 256 * 12;
  std::vector<int> in(n), sums(n / 256, 0);
  for (int i = 0; i < n; ++i) in[i] = i % 7;
  hc::array_view<const int, 1> vin(n, in);
  hc::array_view<int, 1> vs(n / 256, sums);
  hc::parallel_for_each(hc::extent<1>(n).tile(256), [=](hc::tiled_index<1> t) {
    tile_static int lds[256];
    const int l = t.local[0];
    lds[l] = vin[t.global];
    t.barrier.wait();
    for (int s = 128; s > 0; s >>= 1) {
      if (l < s) lds[l] += lds[l + s];
      t.barrier.wait_with_tile_static_memory_fence();
    }
    if (l == 0) vs[t.tile] = lds[0];
  }).wait();
  bool ok = true;
  for (int k = 0; k < n / 256; ++k) {
    int want = 0;
    for (int i = 0; i < 256; ++i) want += in[k * 256 + i];
    ok = ok && vs[k] == want;
  }
  check(ok, "tile_static reduction with barriers");
}

void dynamic_lds() {
  // The dynamic group segment holds one int per work-item; each reads its neighbour's.
  const int tile = 64, n = tile * 5;
  std::vector<int> out(n, 0), seg(n, 0);
  hc::array_view<int, 1> vo(n, out), vseg(n, seg);
  hc::tiled_extent<1> te = hc::extent<1>(n).tile(tile);
  te.set_dynamic_group_segment_size(tile * sizeof(int));
  check(te.get_dynamic_group_segment_size() == tile * sizeof(int), "set/get_dynamic_group_segment_size");
  hc::parallel_for_each(te, [=](hc::tiled_index<1> t) {
    int* dyn = static_cast<int*>(hc::get_dynamic_group_segment_base_pointer());
    dyn[t.local[0]] = t.global[0];
    t.barrier.wait();
    vo[t.global] = dyn[(t.local[0] + 1) % tile];
    vseg[t.global] = static_cast<int>(hc::get_dynamic_group_segment_size());
  }).wait();
  bool ok = true, size_ok = true;
  for (int i = 0; i < n; ++i) {
    ok = ok && vo[i] == (i / tile) * tile + (i % tile + 1) % tile;
    size_ok = size_ok && vseg[i] >= static_cast<int>(tile * sizeof(int));
  }
  check(ok, "dynamic tile_static memory shared by a tile");
  check(size_ok, "get_dynamic_group_segment_size in the kernel covers the request");
  hc::tiled_extent<1> te2 = hc::extent<1>(n).tile_with_dynamic(tile, 128);
  check(te2.get_dynamic_group_segment_size() == 128 && te2.tile_dim[0] == tile, "tile_with_dynamic");
}

void tiled_3d_barrier() {
  // Each work-item publishes its value, then reads its neighbour's across the barrier.
  const hc::extent<3> e(4, 6, 10);
  std::vector<int> out(e.size(), -1);
  hc::array_view<int, 3> v(e, out);
  hc::parallel_for_each(e.tile(2, 3, 5), [=](hc::tiled_index<3> t) {
    tile_static int lds[2][3][5];
    lds[t.local[0]][t.local[1]][t.local[2]] = t.global[2];
    t.barrier.wait_with_all_memory_fence();
    const int nx = (t.local[2] + 1) % 5;
    v[t.global] = lds[t.local[0]][t.local[1]][nx];
  }).wait();
  bool ok = true;
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 10; ++x) ok = ok && v(z, y, x) == (x / 5) * 5 + (x % 5 + 1) % 5;
  check(ok, "rank-3 tiles exchange tile_static values across a barrier");
}

void partial_tile_barrier() {
  // 150 items in tiles of 128: the second tile has 22 work-items, so its second wavefront has
  // none and exits; the barrier must still release the first.
  const int n = 150;
  std::vector<int> out(n, 0);
  hc::array_view<int, 1> v(n, out);
  hc::parallel_for_each(hc::extent<1>(n).tile(128), [=](hc::tiled_index<1> t) {
    tile_static int lds[128];
    lds[t.local[0]] = t.global[0];
    t.barrier.wait();
    const int peer = (t.local[0] + 1) % t.tile_dim[0];
    v[t.global] = lds[peer];
  }).wait();
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    const int base = i / 128 * 128, dim = i < 128 ? 128 : n - 128;
    ok = ok && v[i] == base + (i - base + 1) % dim;
  }
  check(ok, "a barrier in a partial tile whose last wavefront has no work-items");
}

int main() {
  hc_test::run("partial", partial_tiles);
  hc_test::run("oversized", oversized_tiles);
  hc_test::run("reduce", tile_static_reduce);
  hc_test::run("dynamic", dynamic_lds);
  hc_test::run("tiled3d", tiled_3d_barrier);
  hc_test::run("partial_barrier", partial_tile_barrier);
  return hc_test::finish();
}
