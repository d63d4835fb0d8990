// SPDX-License-Identifier: MIT
// hc test: asynchronous vector adds over extents of rank 1 to 4, tiled and not, and launch domain errors.
#include "hc_check.hpp"

#include <numeric>
#include <vector>

using hc_test::check;

// Device callees: hcc's spellings. [[hc]] alone is accepted but ignored by clang, so a callee
// also needs __HC__ (or __host__ __device__), or a force_cuda_host_device region.
__attribute__((hc)) __HC__ int twice(int x) [[hc]] { return 2 * x; }
#pragma clang force_cuda_host_device begin
int thrice(int x) { return 3 * x; }
#pragma clang force_cuda_host_device end

// c = a + b over an extent of rank N, on raw device pointers (am-style memory via hipMalloc).
template <int N> void add_rank(const hc::extent<N>& ext) {
  const size_t n = ext.size();
  std::vector<int> a(n), b(n), c(n, -1);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), 1000);
  hc::array_view<const int, N> va(ext, a), vb(ext, b);
  hc::array_view<int, N> vc(ext, c);
  hc::completion_future f = hc::parallel_for_each(ext, [=](hc::index<N> i) { vc[i] = va[i] + vb[i]; });
  check(f.valid(), "rank " + std::to_string(N) + ": parallel_for_each returns a valid future");
  f.wait();
  vc.synchronize();
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok = ok && c[i] == a[i] + b[i];
  check(ok, "rank " + std::to_string(N) + ": every element added (" + std::to_string(n) + ")");
}

// The same through a tiled launch, checking that tiled_index.global is the row-major position.
template <int N> void add_tiled(const hc::tiled_extent<N>& te) {
  const size_t n = te.size();
  std::vector<int> c(n, -1);
  hc::array_view<int, N> vc(te, c);
  hc::extent<N> ext = te;
  hc::parallel_for_each(te, [=](hc::tiled_index<N> t) {
    vc[t.global] = static_cast<int>(ext.linear(t.global)) * 2 + 1;
  }).wait();
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok = ok && vc.data()[i] == static_cast<int>(i) * 2 + 1;
  check(ok, "tiled rank " + std::to_string(N) + ": every element written once at its global index");
}

void index_maps_to_x() {
  // index[N-1] varies fastest: consecutive work-items in x write consecutive elements.
  std::vector<int> lane(64, -1);
  hc::array_view<int, 2> v(2, 32, lane.data());
  hc::parallel_for_each(hc::extent<2>(2, 32), [=](hc::index<2> i) {
    v[i] = static_cast<int>(__builtin_amdgcn_workitem_id_x());
  }).wait();
  bool ok = true;
  for (int i = 0; i < 32; ++i) ok = ok && v(0, i) == i;
  check(ok, "index<2>[1] maps to the x dimension");
}

void annotations() {
  std::vector<int> out(64, 0);
  hc::array_view<int, 1> v(64, out);
  hc::parallel_for_each(hc::extent<1>(64), [=](hc::index<1> i) [[hc]] { v[i] = twice(i[0]) + thrice(1); }).wait();
  check(v[10] == 23, "[[hc]] lambdas, __HC__ and force_cuda_host_device callees");
}

void domain_errors() {
  int dummy = 0;
  hc::completion_future f = hc::parallel_for_each(hc::extent<1>(0), [=](hc::index<1>) { (void)dummy; });
  check(!f.valid() && f.is_ready(), "extent 0 does nothing and returns an empty future");
  f.wait();
  check(hc_test::throws<hc::invalid_compute_domain>([] {
          hc::parallel_for_each(hc::extent<2>(4, -1), [=](hc::index<2>) {});
        }, "negative"),
        "a negative extent throws invalid_compute_domain");
  check(hc_test::throws<hc::runtime_exception>([] {
          hc::parallel_for_each(hc::extent<1>(-5), [=](hc::index<1>) {});
        }),
        "invalid_compute_domain is a runtime_exception");
}

void many_in_flight() {
  // Several launches queued before any wait: each future completes with its own result.
  const int n = 4096;
  std::vector<std::vector<int>> out(6, std::vector<int>(n, 0));
  std::vector<hc::completion_future> fs;
  std::vector<hc::array_view<int, 1>> views;
  for (int k = 0; k < 6; ++k) {
    views.emplace_back(n, out[k]);
    hc::array_view<int, 1> v = views.back();
    fs.push_back(hc::parallel_for_each(hc::extent<1>(n), [=](hc::index<1> i) { v[i] = i[0] * k; }));
  }
  bool ok = true;
  for (int k = 0; k < 6; ++k) {
    fs[k].wait();
    views[k].synchronize();
    for (int i = 0; i < n; ++i) ok = ok && out[k][i] == i * k;
  }
  check(ok, "six asynchronous launches in flight, each result correct");
}

int main() {
  hc_test::run("rank1", [] { add_rank(hc::extent<1>(1000)); });
  hc_test::run("rank2", [] { add_rank(hc::extent<2>(33, 70)); });
  hc_test::run("rank3", [] { add_rank(hc::extent<3>(5, 9, 17)); });
  hc_test::run("rank4", [] { add_rank(hc::extent<4>(3, 4, 5, 6)); });
  hc_test::run("tiled1", [] { add_tiled(hc::tiled_extent<1>(hc::extent<1>(1024), 64)); });
  hc_test::run("tiled2", [] { add_tiled(hc::extent<2>(32, 48).tile(8, 16)); });
  hc_test::run("tiled3", [] { add_tiled(hc::extent<3>(4, 8, 16).tile(2, 4, 8)); });
  hc_test::run("index", index_maps_to_x);
  hc_test::run("annotations", annotations);
  hc_test::run("domain", domain_errors);
  hc_test::run("inflight", many_in_flight);
  return hc_test::finish();
}
