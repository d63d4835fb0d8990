// SPDX-License-Identifier: MIT
// hc test: accelerator and accelerator_view queries, views with priorities, default selection, symbols, math.
#include "hc_check.hpp"

#include <hc_math.hpp>

#include <cmath>
#include <vector>

using hc_test::check;

__device__ int hc_test_global[4];

void accelerators() {
  std::vector<hc::accelerator> all = hc::accelerator::get_all();
  check(!all.empty(), "get_all lists at least one accelerator (" + std::to_string(all.size()) + ")");
  hc::accelerator acc;
  check(acc == all[0] && !(acc != all[0]), "the default accelerator is the first; == and !=");
  check(acc.is_hsa_accelerator() && acc.get_profile() != hc::hcAgentProfileNone, "is_hsa_accelerator, get_profile");
  check(!acc.get_device_path().empty() && !acc.get_description().empty(), "device path and description");
  check(hc::accelerator(acc.get_device_path()) == acc, "an accelerator from its device path");
  check(acc.get_version() >> 16 >= 9, "get_version (GFX major >= 9)");
  check(acc.get_dedicated_memory() > 0 && acc.get_cu_count() > 0, "dedicated memory and CU count");
  check(acc.get_max_tile_static_size() >= 32 * 1024, "get_max_tile_static_size >= 32 KiB");
  check(acc.get_supports_cpu_shared_memory(), "get_supports_cpu_shared_memory");
  check(acc.get_seqnum() == 0, "get_seqnum of the first accelerator");
  check(!acc.get_is_peer(acc), "an accelerator is not its own peer");
  std::vector<hc::accelerator> peers = acc.get_peers();
  bool peers_ok = true;
  for (auto& p : peers) peers_ok = peers_ok && acc.get_is_peer(p);
  check(peers_ok, "get_peers agrees with get_is_peer");
  check(!hc::accelerator::set_default(L"kfdrt:does-not-exist"), "set_default of an unknown path fails");
}

void views() {
  hc::accelerator acc;
  hc::accelerator_view dv = acc.get_default_view();
  check(dv == acc.get_default_view() && dv.get_accelerator() == acc, "the default view is one view");
  check(hc::accelerator::get_auto_selection_view().get_accelerator() == acc, "auto selection view");
  hc::accelerator_view lo = acc.create_view(hc::execute_any_order, hc::queuing_mode_immediate, hc::priority_low);
  hc::accelerator_view hi = acc.create_view(hc::execute_in_order, hc::queuing_mode_automatic, hc::priority_high);
  check(lo != hi && lo != dv, "created views are distinct");
  check(lo.get_execute_order() == hc::execute_any_order && lo.get_queuing_mode() == hc::queuing_mode_immediate &&
            lo.get_queue_priority() == hc::priority_low && hi.get_queue_priority() == hc::priority_high,
        "order, mode and priority getters");
  std::vector<int> a(100, 0), b(100, 0);
  hc::array_view<int, 1> va(100, a), vb(100, b);
  hc::completion_future f1 = hc::parallel_for_each(lo, hc::extent<1>(100), [=](hc::index<1> i) { va[i] = 1; });
  hc::completion_future f2 = hc::parallel_for_each(hi, hc::extent<1>(100), [=](hc::index<1> i) { vb[i] = 2; });
  lo.flush();
  lo.wait();
  hi.wait();
  check(f1.is_ready() && f2.is_ready() && va[99] == 1 && vb[0] == 2, "kernels on low and high priority views");
  check(lo.get_is_empty() && hi.get_pending_async_ops() == 0, "waited views are empty");
  check(hc::accelerator::set_default(acc.get_device_path()) == false, "set_default fails once the default is in use");
}

void symbols() {
  hc::accelerator acc;
  void* addr = acc.get_symbol_address("hc_test_global");
  if (!addr) {
    void* p = nullptr;
    if (hipGetSymbolAddress(&p, HIP_SYMBOL(hc_test_global)) == hipSuccess) addr = p;
  }
  if (!check(addr != nullptr, "a __device__ variable's address (get_symbol_address or HIP)")) return;
  int in[4] = {1, 2, 3, 4}, out[4] = {};
  acc.memcpy_symbol(addr, in, sizeof(in), 0, hc::hcMemcpyHostToDevice);
  hc::parallel_for_each(hc::extent<1>(4), [=](hc::index<1> i) { hc_test_global[i[0]] *= 10; }).wait();
  acc.memcpy_symbol(addr, out, sizeof(out), 0, hc::hcMemcpyDeviceToHost);
  check(out[0] == 10 && out[3] == 40, "memcpy_symbol to and from a __device__ variable");
}

void math() {
  std::vector<float> f(8, 0);
  std::vector<double> d(4, 0);
  hc::array_view<float, 1> vf(8, f);
  hc::array_view<double, 1> vd(4, d);
  hc::parallel_for_each(hc::extent<1>(1), [=](hc::index<1>) {
    vf[0] = hc::precise_math::sqrtf(16.0f);
    vf[1] = hc::precise_math::sinf(0.5f);
    vf[2] = hc::fast_math::sin(0.5f);
    vf[3] = hc::fast_math::exp(1.0f);
    vf[4] = hc::precise_math::rsqrt(4.0f);
    vf[5] = hc::precise_math::fmaxf(2.0f, 3.0f);
    vf[6] = hc::fast_math::powf(2.0f, 10.0f);
    vf[7] = hc::precise_math::isnan(hc::precise_math::nanf("")) ? 1.0f : 0.0f;
    vd[0] = hc::precise_math::cos(0.25);
    vd[1] = hc::precise_math::pow(2.0, 0.5);
    vd[2] = hc::precise_math::log(10.0);
    vd[3] = hc::precise_math::cbrt(27.0);
  }).wait();
  check(vf[0] == 4.0f && std::fabs(vf[1] - std::sin(0.5f)) < 1e-6f, "precise_math float");
  check(std::fabs(vf[2] - std::sin(0.5f)) < 1e-3f && std::fabs(vf[3] - std::exp(1.0f)) < 1e-3f, "fast_math float");
  check(std::fabs(vf[4] - 0.5f) < 1e-6f && vf[5] == 3.0f && std::fabs(vf[6] - 1024.0f) < 0.5f && vf[7] == 1.0f,
        "rsqrt, fmax, fast pow, isnan");
  check(std::fabs(vd[0] - std::cos(0.25)) < 1e-12 && std::fabs(vd[1] - std::sqrt(2.0)) < 1e-12 &&
            std::fabs(vd[2] - std::log(10.0)) < 1e-12 && std::fabs(vd[3] - 3.0) < 1e-12,
        "precise_math double");
}

int main() {
  hc_test::run("accelerators", accelerators);
  hc_test::run("views", views);
  hc_test::run("symbols", symbols);
  hc_test::run("math", math);
  return hc_test::finish();
}
