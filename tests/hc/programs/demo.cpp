// SPDX-License-Identifier: MIT
// The hc demo: a tiled matrix multiply and an asynchronous pipeline on kfdrt, checked against the CPU.
#include <hc.hpp>

#include <cstdio>
#include <vector>

// C = A * B with 16 x 16 tiles staged in tile_static memory; n need not be a multiple of 16.
static hc::completion_future matmul(const std::vector<float>& a, const std::vector<float>& b,
                                    std::vector<float>& c, int n) {
  hc::array_view<const float, 2> va(n, n, a.data()), vb(n, n, b.data());
  hc::array_view<float, 2> vc(n, n, c.data());
  vc.discard_data();
  constexpr int T = 16;
  return hc::parallel_for_each(hc::extent<2>(n, n).tile(T, T), [=](hc::tiled_index<2> t) {
    tile_static float ta[T][T], tb[T][T];
    const int row = t.global[0], col = t.global[1], ly = t.local[0], lx = t.local[1];
    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
      ta[ly][lx] = (k0 + lx < n) ? va(row, k0 + lx) : 0.0f;
      tb[ly][lx] = (k0 + ly < n) ? vb(k0 + ly, col) : 0.0f;
      t.barrier.wait();
      for (int k = 0; k < T; ++k) sum += ta[ly][k] * tb[k][lx];
      t.barrier.wait();
    }
    vc[t.global] = sum;
  });
}

int main() {
  hc::accelerator acc;
  std::printf("hc on kfdrt: %ls, %u CUs, %zu KiB tile_static\n", acc.get_description().c_str(),
              acc.get_cu_count(), acc.get_max_tile_static_size() / 1024);
  const int n = 48;
  std::vector<float> a(n * n), b(n * n), c(n * n, 0.0f);
  for (int i = 0; i < n * n; ++i) a[i] = static_cast<float>(i % 7) - 3.0f, b[i] = static_cast<float>(i % 5) * 0.5f;
  // A 48 x 48 grid in 16 x 16 tiles.
  hc::completion_future f = matmul(a, b, c, n);
  f.wait();
  int bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0.0f;
      for (int k = 0; k < n; ++k) want += a[i * n + k] * b[k * n + j];
      bad += c[i * n + j] != want;
    }
  const double us = static_cast<double>(f.get_end_tick() - f.get_begin_tick()) * 1e6 /
                    static_cast<double>(f.get_tick_frequency());
  std::printf("matmul %dx%d (tiled 16x16, tile_static): %s, kernel %.1f us\n", n, n, bad ? "WRONG" : "ok", us);

  // An asynchronous pipeline: two kernels on two views, a marker joining them, then a copy.
  std::vector<int> x(1000), y(1000);
  hc::array_view<int, 1> vx(1000, x), vy(1000, y);
  hc::accelerator_view v1 = acc.create_view(), v2 = acc.create_view();
  hc::completion_future k1 = hc::parallel_for_each(v1, vx.get_extent(), [=](hc::index<1> i) { vx[i] = i[0]; });
  hc::completion_future k2 = hc::parallel_for_each(v2, vy.get_extent(), [=](hc::index<1> i) { vy[i] = 2 * i[0]; });
  hc::completion_future joined = v1.create_blocking_marker({k1, k2});
  joined.wait();
  long sum = 0;
  for (int i = 0; i < 1000; ++i) sum += vx[i] + vy[i];
  std::printf("pipeline: two views joined by a blocking marker, sum %ld (%s)\n", sum, sum == 1498500 ? "ok" : "WRONG");
  return bad == 0 && sum == 1498500 ? 0 : 1;
}
