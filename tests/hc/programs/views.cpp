// SPDX-License-Identifier: MIT
// hc test: array and array_view synchronisation (copy-back only when needed, discard_data, const views), sections, projections, copies.
#include "hc_check.hpp"

#include <numeric>
#include <vector>

using hc_test::check;

uint64_t to_device() { return hc::detail::transfer_stats::get().to_device.load(); }
uint64_t to_host() { return hc::detail::transfer_stats::get().to_host.load(); }

void automatic_sync() {
  std::vector<int> data(1000);
  std::iota(data.begin(), data.end(), 0);
  hc::array_view<int, 1> v(1000, data);
  const uint64_t d0 = to_device(), h0 = to_host();
  hc::parallel_for_each(v.get_extent(), [=](hc::index<1> i) { v[i] *= 2; });
  check(to_device() == d0 + 1, "captured data is copied to the device before the kernel");
  check(v[999] == 1998, "host access after a kernel waits for it and sees its result");
  check(to_host() == h0 + 1, "... with one copy back");
  (void)v[5];
  (void)v.data();
  check(to_host() == h0 + 1, "further host reads copy nothing");
  v.synchronize();
  check(data[10] == 20 && to_host() == h0 + 1, "synchronize() on a current host copy copies nothing");
  // A second kernel: the host wrote through the view, so the data goes up again.
  v[0] = 100;
  hc::parallel_for_each(v.get_extent(), [=](hc::index<1> i) { v[i] += 1; });
  hc::completion_future s = v.synchronize_async();
  s.wait();
  check(data[0] == 101 && data[999] == 1999, "synchronize_async brings the kernel's result to the host data");
  check(to_device() == d0 + 2, "a host write makes the next kernel upload again");
}

void kernels_chain_on_device() {
  std::vector<int> data(4096, 1);
  hc::array_view<int, 1> v(4096, data);
  const uint64_t d0 = to_device(), h0 = to_host();
  for (int k = 0; k < 5; ++k) hc::parallel_for_each(v.get_extent(), [=](hc::index<1> i) { v[i] += i[0]; });
  check(to_device() == d0 + 1 && to_host() == h0, "five kernels in a row: one upload, no copy back yet");
  v.synchronize();
  check(data[7] == 1 + 5 * 7 && to_host() == h0 + 1, "synchronize: one copy back with all five results");
}

void const_views() {
  std::vector<int> in(512, 3), out(512, 0);
  hc::array_view<const int, 1> cin(512, in);
  hc::array_view<int, 1> vout(512, out);
  hc::parallel_for_each(cin.get_extent(), [=](hc::index<1> i) { vout[i] = cin[i] * 7; }).wait();
  const uint64_t h0 = to_host();
  in[0] = 99;  // the host data changes: a const view is never copied back over it
  check(cin[0] == 99 && in[0] == 99, "a const view reads the host data and is never copied back");
  cin.synchronize();
  check(to_host() == h0 && in[0] == 99, "synchronize() on a const view copies nothing");
  check(vout[1] == 21, "the kernel read the const view's data");
  hc::array_view<const int, 1> from_writable(vout);
  check(from_writable[2] == 21, "array_view<const T> from array_view<T>");
}

void discard() {
  std::vector<int> data(256, 5);
  hc::array_view<int, 1> v(256, data);
  v.discard_data();
  const uint64_t d0 = to_device();
  hc::parallel_for_each(v.get_extent(), [=](hc::index<1> i) { v[i] = i[0]; });
  check(to_device() == d0, "discard_data: the next kernel uploads nothing");
  check(v[255] == 255 && data[255] == 255, "the kernel's writes come back after discard_data");
  // refresh(): host data changed behind a view; the next kernel must upload it again.
  std::vector<int> in(64, 1), out(64, 0);
  hc::array_view<const int, 1> cin(64, in);
  hc::array_view<int, 1> vout(64, out);
  hc::parallel_for_each(cin.get_extent(), [=](hc::index<1> i) { vout[i] = cin[i]; }).wait();
  in[0] = 77;
  cin.refresh();
  const uint64_t d1 = to_device();
  hc::parallel_for_each(cin.get_extent(), [=](hc::index<1> i) { vout[i] = cin[i] + 1; }).wait();
  check(to_device() == d1 + 1 && vout[0] == 78 && vout[1] == 2, "refresh(): changed host data is uploaded again");
}

void sections_and_projections() {
  const int h = 8, wd = 10;
  std::vector<int> m(h * wd, 0);
  hc::array_view<int, 2> v(h, wd, m.data());
  hc::array_view<int, 2> s = v.section(hc::index<2>(2, 3), hc::extent<2>(4, 5));
  hc::parallel_for_each(s.get_extent(), [=](hc::index<2> i) { s[i] = 1 + i[0] * 10 + i[1]; });
  hc::array_view<int, 1> row = v[5];
  hc::parallel_for_each(hc::extent<1>(2), [=](hc::index<1> i) { row[i] = -1; });
  v.synchronize();
  bool ok = true;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < wd; ++x) {
      int want = (y >= 2 && y < 6 && x >= 3 && x < 8) ? 1 + (y - 2) * 10 + (x - 3) : 0;
      if (y == 5 && x < 2) want = -1;
      ok = ok && m[y * wd + x] == want;
    }
  check(ok, "a kernel writes a 2-D section and a projected row, nothing else");
  check(s.get_extent() == hc::extent<2>(4, 5) && row.get_extent()[0] == wd, "section/projection extents");
}

void arrays() {
  std::vector<float> src(300);
  std::iota(src.begin(), src.end(), 0.0f);
  hc::array<float, 1> a(300, src.begin(), src.end());
  hc::array<float, 1> b(300);
  hc::array_view<float, 1> av(a);
  hc::parallel_for_each(a.get_extent(), [=](hc::index<1> i) { av[i] = av[i] * 2.0f; });
  hc::copy(a, b);  // device to device
  std::vector<float> back(300);
  hc::copy(b, back.begin());
  check(back[299] == 598.0f && back[1] == 2.0f, "array: host -> device, kernel, device -> device, -> host");
  hc::array<float, 1> c(b);  // deep copy
  hc::array_view<float, 1> cv(c);
  hc::parallel_for_each(c.get_extent(), [=](hc::index<1> i) { cv[i] = 0.0f; });
  std::vector<float> bb = b;
  check(bb[10] == 20.0f && cv[10] == 0.0f, "copying an array copies the data");
  std::vector<float> hostv(300, 1.5f);
  hc::array_view<float, 1> hv(300, hostv);
  hc::copy(hv, a);
  hc::copy(a, hv);
  check(hv[7] == 1.5f, "copy array_view -> array -> array_view");
  hc::completion_future f = hc::copy_async(a, b);
  f.wait();
  std::vector<float> b2 = b;
  check(b2[0] == 1.5f, "copy_async array -> array");
  check(a.accelerator_pointer() != nullptr && a.get_accelerator_view() == hc::accelerator().get_default_view(),
        "array accelerator_pointer / get_accelerator_view");
}

void four_d_views() {
  const hc::extent<4> e(2, 3, 4, 5);
  std::vector<int> d(e.size(), 0);
  hc::array_view<int, 4> v(e, d);
  hc::parallel_for_each(e, [=](hc::index<4> i) { v[i] = i[0] * 1000 + i[1] * 100 + i[2] * 10 + i[3]; });
  v.synchronize();
  check(d[e.linear(hc::index<4>(1, 2, 3, 4))] == 1234 && d[0] == 0, "rank-4 extent: leading dimension looped");
}

void more_view_ops() {
  // A view with its own storage, view_as, synchronize_to, and array sections and data().
  hc::array_view<int, 1> own(64);
  for (int i = 0; i < 64; ++i) own[i] = i;
  hc::array_view<int, 2> grid = own.view_as(hc::extent<2>(8, 8));
  hc::parallel_for_each(grid.get_extent(), [=](hc::index<2> i) { grid[i] += 100 * i[0]; });
  check(own[63] == 63 + 700 && grid(7, 7) == own[63], "array_view(extent) storage and view_as share data");
  std::vector<int> h(32, 4);
  hc::array_view<int, 1> v(32, h);
  const uint64_t d0 = to_device();
  v.synchronize_to(hc::accelerator().get_default_view());
  check(to_device() == d0 + 1, "synchronize_to uploads to the accelerator");
  hc::parallel_for_each(v.get_extent(), [=](hc::index<1> i) { v[i] += 1; });
  check(to_device() == d0 + 1 && v[31] == 5, "after synchronize_to the kernel uploads nothing");
  hc::array<int, 2> a(4, 6);
  hc::array_view<int, 2> sec = a.section(hc::index<2>(1, 2), hc::extent<2>(2, 3));
  hc::parallel_for_each(a.get_extent(), [=](hc::index<2> i) { sec.get_extent().contains(i) ? sec[i] = 9 : 0; });
  int* hd = a.data();
  check(hd[1 * 6 + 2] == 9 && hd[2 * 6 + 4] == 9 && hd[0] != 9 + 1, "array section written by a kernel, read through data()");
}

void last_view_copies_back() {
  std::vector<int> data(128, 0);
  {
    hc::array_view<int, 1> v(128, data);
    hc::parallel_for_each(v.get_extent(), [=](hc::index<1> i) { v[i] = 7; });
  }  // no synchronize: the last view's destruction brings the result home
  check(data[0] == 7 && data[127] == 7, "destroying the last view copies pending results back");
}

void across_views() {
  // Data written on one view and read on another: the second kernel waits for the first.
  hc::accelerator acc;
  hc::accelerator_view a = acc.create_view(), b = acc.create_view();
  bool ok = true;
  for (int it = 0; it < 10; ++it) {
    std::vector<int> x(4096, 1), y(4096, 0);
    hc::array_view<int, 1> vx(4096, x), vy(4096, y);
    for (int r = 0; r < 4; ++r) hc::parallel_for_each(a, vx.get_extent(), [=](hc::index<1> i) { vx[i] += 1; });
    hc::parallel_for_each(b, vy.get_extent(), [=](hc::index<1> i) { vy[i] = vx[i] * 2; });
    ok = ok && vy[0] == 10 && vy[4095] == 10 && vx[7] == 5;
  }
  check(ok, "a kernel on one view reads what kernels on another view wrote");
}

int main() {
  hc_test::run("sync", automatic_sync);
  hc_test::run("chain", kernels_chain_on_device);
  hc_test::run("const", const_views);
  hc_test::run("discard", discard);
  hc_test::run("sections", sections_and_projections);
  hc_test::run("arrays", arrays);
  hc_test::run("rank4", four_d_views);
  hc_test::run("more", more_view_ops);
  hc_test::run("across", across_views);
  hc_test::run("last", last_view_copies_back);
  return hc_test::finish();
}
