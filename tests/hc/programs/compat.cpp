// SPDX-License-Identifier: MIT
// hc test: source forms hcc accepted that foreign hc programs use (kernel signatures, using namespace hc, arrays over device pointers, view lists, AM names).
#include "hc_check.hpp"

#include <hc_am.hpp>
#include <hc_math.hpp>

#include <vector>

using hc_test::check;

__device__ int hc_compat_symbol[4];
// hc programs put hc's names in the global namespace; index<N> must not clash with glibc's index().
using namespace hc;

// Kernels that take nothing, or take their index by non-const reference.
void kernel_signatures() {
  std::vector<int> host(300, 0);
  array_view<int, 1> v(300, host);
  parallel_for_each(extent<1>(300), [=](index<1>& i) [[hc]] { v[i] = i[0] + 1; }).wait();
  bool ok = true;
  for (int i = 0; i < 300; ++i) ok = ok && v[i] == i + 1;
  check(ok, "a kernel taking index<1>& runs once per index");

  std::vector<int> counter(1, 0);
  array_view<int, 1> c(1, counter);
  parallel_for_each(extent<1>(77), [=]() [[hc]] { atomic_fetch_add(&c[0], 1); }).wait();
  check(c[0] == 77, "a kernel taking no argument runs once per work-item (" + std::to_string(c[0]) + ")");

  std::vector<int> tiles(35, -1);
  array_view<int, 2> t(5, 7, tiles);
  parallel_for_each(extent<2>(5, 7).tile(2, 3), [=](tiled_index<2>& ti) [[hc]] {
    t[ti.global] = ti.tile[0] * 10 + ti.tile[1];
  }).wait();
  check(t(4, 6) == 22 && t(1, 2) == 0 && t(2, 3) == 11, "a tiled kernel taking tiled_index<2>& (partial tiles)");

  std::vector<int> flat(64, 0);
  array_view<int, 1> f(64, flat);
  parallel_for_each(extent<1>(64).tile(16), [=](index<1> i) [[hc]] { f[i] = i[0] * 2; }).wait();
  check(f[63] == 126 && f[17] == 34, "a tiled launch of a kernel taking index<1> gets the global index");
}

// The kernel's own tile_static bytes, also when the lambda is an out-of-line function (-O0).
void static_group_segment() {
  std::vector<unsigned> out(128, 0);
  array_view<unsigned, 1> o(128, out);
  tiled_extent<1> te = extent<1>(128).tile(64);
  te.set_dynamic_group_segment_size(512);
  parallel_for_each(te, [=](tiled_index<1> ti) [[hc]] {
    tile_static unsigned scratch[64];
    scratch[ti.local[0]] = ti.global[0];
    ti.barrier.wait();
    const unsigned other = scratch[63 - ti.local[0]];
    o[ti.global] = (get_static_group_segment_size() << 16) | (get_group_segment_size() & 0xffff);
    if (other == 0xffffffffu) o[ti.global] = 0;  // keeps `scratch` alive
  }).wait();
  const unsigned stat = o[5] >> 16, all = o[5] & 0xffff;
  check(stat >= 64 * sizeof(unsigned) && all == stat + 512,
        "static group segment " + std::to_string(stat) + " (>= 256), total " + std::to_string(all) +
            " = static + 512 dynamic");
}

void view_list() {
  accelerator acc;
  const size_t before = acc.get_all_views().size();
  accelerator_view a = acc.create_view();
  accelerator_view b = acc.create_view();
  std::vector<accelerator_view> all = acc.get_all_views();
  check(all.size() == before + 2 && all[0] == acc.get_default_view(), "get_all_views: the default view first, then created ones");
  check(all[all.size() - 2] == a && all.back() == b, "get_all_views lists created views in creation order");
  {
    accelerator_view gone = acc.create_view();
    (void)gone;
  }
  check(acc.get_all_views().size() == before + 2, "a destroyed view leaves get_all_views");
  check(a.get_hsa_interop(), "get_hsa_interop: kfdrt views are AQL queues");
  // layout: amd_queue_t begins with hsa_queue_t {type u32, features u32, base_address, ...}.
  const auto* q = static_cast<const uint32_t*>(a.get_hsa_queue());
  check(q && (q[1] & 1u) && acc.get_default_view().get_hsa_queue(),
        "get_hsa_queue: the view's AQL queue (HSA_QUEUE_FEATURE_KERNEL_DISPATCH set)");
}

// An array built over another array's accelerator_pointer() shares its data and ordering.
void array_over_device_pointer() {
  array<int, 1> a1(1000);
  void* p = a1.accelerator_pointer();
  array<int, 1> a2(1000, p);
  array_view<int, 1> v2(a2);
  parallel_for_each(extent<1>(1000), [=](index<1> i) [[hc]] { v2[i] = i[0]; });
  array<int, 2> a3(extent<2>(10, 100), p);
  array_view<int, 2> v3(a3);
  parallel_for_each(extent<2>(10, 100), [=](index<2> i) [[hc]] { v3[i] = -v3[i]; });
  std::vector<int> r1 = a1;  // no wait: reading a1 must wait for both kernels
  bool ok = true;
  for (int i = 0; i < 1000; ++i) ok = ok && r1[i] == -i;
  check(ok && a3.accelerator_pointer() == p, "arrays over one device pointer share data and wait for each other");

  hc::accelerator acc;
  int* raw = hc::am_alloc(64 * sizeof(int), acc, 0);
  {
    array<int, 1> over(64, static_cast<void*>(raw));
    array_view<int, 1> ov(over);
    parallel_for_each(extent<1>(64), [=](index<1> i) [[hc]] { ov[i] = 3 * i[0]; });
    std::vector<int> back = over;
    check(back[21] == 63, "an array over am_alloc memory");
  }
  check(hc::am_free(raw) == AM_SUCCESS, "the array did not free memory it does not own");
  check(hc_test::throws<hc::runtime_exception>([] { array<int, 1> bad(4, static_cast<void*>(nullptr)); },
                                               "null device pointer"),
        "an array over a null device pointer throws");
}

void array_from_iterator() {
  int init[50];
  for (int i = 0; i < 50; ++i) init[i] = i * i;
  array<int, 1> a(50, std::begin(init));
  std::vector<int> v = a;
  std::vector<int> grid(6);
  for (int i = 0; i < 6; ++i) grid[i] = 10 + i;
  array<int, 2> b(2, 3, grid.begin());
  array_view<int, 2> bv(b);
  check(v[7] == 49 && v[49] == 2401 && bv(1, 2) == 15, "array(n, iterator) and array(n0, n1, iterator)");
}

void am_names() {
  hc::accelerator acc;
  void* pinned = hc::am_alloc(256, acc, am_host_pinned);
  void* coherent = hc::am_alloc(256, acc, am_host_coherent);
  hc::AmPointerInfo info(nullptr, nullptr, 0, acc);
  const bool got = hc::am_memtracker_getinfo(&info, pinned) == AM_SUCCESS;
  check(pinned && coherent && got && info._hostPointer == pinned && !info._isInDeviceMem && info._isAmManaged,
        "am_host_pinned / am_host_coherent allocate host memory; AmPointerInfo(host, dev, size, acc)");
  check(hc::am_free(pinned) == AM_SUCCESS && hc::am_free(coherent) == AM_SUCCESS, "am_free of both");
}

// C math called unqualified with integer arguments, in a kernel and on the host (hc_math.hpp).
void unqualified_math() {
  std::vector<int> out(16, -1), host(16, -2);
  array_view<int, 1> o(16, out);
  parallel_for_each(extent<1>(16), [=](index<1> i) [[hc]] {
    o[i] = ilogb(i[0] + 1) * 10 + (isnormal(i[0] + 1) ? 1 : 0);
  }).wait();
  for (int i = 0; i < 16; ++i) host[i] = ilogb(i + 1) * 10 + (isnormal(i + 1) ? 1 : 0);
  bool same = true;
  for (int i = 0; i < 16; ++i) same = same && o[i] == host[i];
  check(same && host[15] == 41, "ilogb(int) and isnormal(int) unqualified, kernel and host agree");
}

// memcpy_symbol and get_symbol_address by the variable's name, as hcc programs use them.
void symbols_by_name() {
  accelerator acc;
  check(acc.get_symbol_address("hc_compat_symbol") != nullptr, "get_symbol_address finds a __device__ variable by name");
  check(acc.get_symbol_address("no_such_symbol_here") == nullptr, "get_symbol_address of an unknown name is null");
  int in[4] = {5, 6, 7, 8}, out[4] = {};
  acc.memcpy_symbol("hc_compat_symbol", in, sizeof(in));
  parallel_for_each(extent<1>(4), [=](index<1> i) [[hc]] { hc_compat_symbol[i[0]] += 100; }).wait();
  acc.memcpy_symbol("hc_compat_symbol", out, sizeof(out), 0, hcMemcpyDeviceToHost);
  check(out[0] == 105 && out[3] == 108, "memcpy_symbol by name to and from the device");
  check(hc_test::throws<hc::runtime_exception>([&] { acc.memcpy_symbol("no_such_symbol_here", in, 4); },
                                               "symbol not found"),
        "memcpy_symbol of an unknown name throws naming the problem");
}

int main() {
  hc_test::run("kernel_signatures", kernel_signatures);
  hc_test::run("static_group_segment", static_group_segment);
  hc_test::run("view_list", view_list);
  hc_test::run("array_over_device_pointer", array_over_device_pointer);
  hc_test::run("array_from_iterator", array_from_iterator);
  hc_test::run("am_names", am_names);
  hc_test::run("unqualified_math", unqualified_math);
  hc_test::run("symbols_by_name", symbols_by_name);
  assert(hc_test::passed() >= 0);  // <cassert> comes with hc.hpp, as with hcc
  return hc_test::finish();
}
