// SPDX-License-Identifier: MIT
// hc test: completion_future waits, chained then(), markers (incl. more than 5 dependencies), ticks, views, copy ordering.
#include "hc_check.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using hc_test::check;

// A kernel that spins for a while so that waits have something to wait for.
hc::completion_future busy(hc::accelerator_view av, int* out, int n, int value) {
  return hc::parallel_for_each(av, hc::extent<1>(n), [=](hc::index<1> i) {
    int x = i[0];
    for (int k = 0; k < 200; ++k) x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i[0]] = value + (x & 0);
  });
}

struct device_buffer {
  int* p = nullptr;
  int n;
  explicit device_buffer(int count) : n(count) { (void)hipMalloc(reinterpret_cast<void**>(&p), n * sizeof(int)); }
  ~device_buffer() { (void)hipFree(p); }
  std::vector<int> read() const {
    std::vector<int> h(n);
    (void)hipMemcpy(h.data(), p, n * sizeof(int), hipMemcpyDeviceToHost);
    return h;
  }
};

bool all_equal(const std::vector<int>& v, int x) {
  for (int e : v)
    if (e != x) return false;
  return true;
}

void waits() {
  hc::accelerator_view av = hc::accelerator().get_default_view();
  device_buffer d(8192);
  hc::completion_future f = busy(av, d.p, d.n, 7);
  f.wait(hc::hcWaitModeActive);
  check(f.is_ready(), "wait(hcWaitModeActive) returns when ready");
  check(all_equal(d.read(), 7), "the kernel's writes are visible after wait");
  f = busy(av, d.p, d.n, 8);
  check(f.wait_for(std::chrono::seconds(60)) == std::future_status::ready, "wait_for reports ready");
  f = busy(av, d.p, d.n, 9);
  check(f.wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(60)) ==
            std::future_status::ready, "wait_until reports ready");
  f.get();
  av.wait(hc::hcWaitModeBlocked);
  check(av.get_is_empty() && av.get_pending_async_ops() == 0, "a waited view has no pending ops");
  busy(av, d.p, d.n, 10);
  av.wait(hc::hcWaitModeActive);
  check(all_equal(d.read(), 10), "accelerator_view::wait(Active) waits for the kernel");
  check(hc::completion_future().is_ready() && !hc::completion_future().valid(),
        "a default future is empty and ready");
}

void chained_then() {
  hc::accelerator_view av = hc::accelerator().get_default_view();
  device_buffer d(1024);
  std::atomic<int> stage{0};
  std::atomic<bool> done{false};
  hc::completion_future f1 = busy(av, d.p, d.n, 1);
  f1.then([&] {
    stage = f1.is_ready() ? 1 : -100;
    // The continuation launches more work and chains on it.
    hc::completion_future f2 = busy(av, d.p, d.n, 2);
    f2.then([&, f2] {
      stage = f2.is_ready() ? stage + 1 : -200;
      done = true;
    });
    f2.wait();
  });
  for (int i = 0; i < 60000 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  check(done && stage == 2, "then() runs after completion, and a then() chained inside it too");
  av.wait();
  check(all_equal(d.read(), 2), "work launched from a continuation ran");
}

void markers() {
  hc::accelerator acc;
  std::vector<hc::accelerator_view> views;
  std::vector<hc::completion_future> deps;
  std::vector<device_buffer*> bufs;
  for (int k = 0; k < 8; ++k) {
    views.push_back(acc.create_view());
    bufs.push_back(new device_buffer(2048));
    deps.push_back(busy(views.back(), bufs.back()->p, 2048, 100 + k));
  }
  hc::accelerator_view av = acc.create_view();
  hc::completion_future m = av.create_blocking_marker(deps.begin(), deps.end(), hc::system_scope);
  m.wait();
  bool ok = true;
  for (int k = 0; k < 8; ++k) ok = ok && deps[k].is_ready() && all_equal(bufs[k]->read(), 100 + k);
  check(ok, "a blocking marker over 8 futures (more than 5) completes after all of them");
  hc::completion_future m2 = av.create_blocking_marker({deps[0], deps[1], deps[2], deps[3], deps[4], deps[5], deps[6]});
  m2.wait();
  check(m2.is_ready(), "create_blocking_marker(initializer_list of 7)");
  hc::completion_future m3 = av.create_blocking_marker(deps[7]);
  m3.wait();
  check(m3.get_command_kind() == hc::hcCommandMarker, "create_blocking_marker(one future) is a marker");
  hc::completion_future m4 = views[0].create_marker(hc::accelerator_scope);
  m4.wait();
  check(m4.is_ready(), "create_marker completes after the view's earlier work");
  for (auto* b : bufs) delete b;
}

void ticks() {
  hc::accelerator_view av = hc::accelerator().get_default_view();
  device_buffer d(65536);
  const uint64_t t0 = hc::get_system_ticks();
  hc::completion_future f = busy(av, d.p, d.n, 3);
  f.wait();
  const uint64_t t1 = hc::get_system_ticks();
  const uint64_t b = f.get_begin_tick(), e = f.get_end_tick();
  check(hc::get_tick_frequency() > 0 && f.get_tick_frequency() == hc::get_tick_frequency(),
        "tick frequency is positive and the same for futures");
  check(t1 >= t0, "get_system_ticks does not go backwards");
  check(e >= b, "end tick >= begin tick (" + std::to_string(e - b) + " ticks)");
  const double span_s = static_cast<double>(e - b) / static_cast<double>(hc::get_tick_frequency());
  check(span_s < 60.0, "the kernel's tick span is plausible");
  check(f.get_native_handle() != nullptr, "a kernel future has a native handle");
}

void copy_ordering() {
  hc::accelerator_view av = hc::accelerator().create_view(hc::execute_in_order, hc::queuing_mode_automatic,
                                                          hc::priority_high);
  device_buffer d(4096);
  std::vector<int> host(4096, 0);
  busy(av, d.p, d.n, 42);
  // copy_async is enqueued behind the kernel, so it sees the kernel's result.
  hc::completion_future c = av.copy_async(d.p, host.data(), host.size() * sizeof(int));
  c.wait();
  check(c.get_command_kind() == hc::hcMemcpyDeviceToHost, "copy_async knows its direction");
  check(all_equal(host, 42), "copy_async after a kernel on the same view copies its result");
  std::vector<int> src(4096, 5);
  av.copy(src.data(), d.p, src.size() * sizeof(int));
  busy(av, d.p + 0, 1, 6);  // overwrite element 0 after the copy
  av.copy(d.p, host.data(), host.size() * sizeof(int));
  check(host[0] == 6 && host[1] == 5 && host[4095] == 5, "copy, kernel, copy run in order");
  check(av.get_queue_priority() == hc::priority_high && av.get_execute_order() == hc::execute_in_order &&
            av.get_queuing_mode() == hc::queuing_mode_automatic,
        "view getters return the creation parameters");
}

void threads_and_extensions() {
  // Launches from several host threads at once, each on its own view (capture scopes are
  // per thread).
  std::vector<std::vector<int>> out(4, std::vector<int>(2048, 0));
  std::vector<std::thread> ts;
  for (int k = 0; k < 4; ++k)
    ts.emplace_back([&out, k] {
      hc::accelerator_view av = hc::accelerator().create_view();
      hc::array_view<int, 1> v(2048, out[k]);
      for (int r = 0; r < 5; ++r) hc::parallel_for_each(av, v.get_extent(), [=](hc::index<1> i) { v[i] += k; });
      v.synchronize();
    });
  for (auto& t : ts) t.join();
  bool ok = true;
  for (int k = 0; k < 4; ++k) ok = ok && out[k][0] == 5 * k && out[k][2047] == 5 * k;
  check(ok, "parallel_for_each from four host threads at once");
  hc::accelerator_view av = hc::accelerator().get_default_view();
  hsa_kernel_dispatch_packet_t pkt{};  // type 0: not a kernel dispatch (native.cpp runs real ones)
  check(hc_test::throws<hc::runtime_exception>([&] { av.dispatch_hsa_kernel(&pkt, nullptr, 0); },
                                                "kfdrtStreamDispatchAql"),
        "dispatch_hsa_kernel of a zeroed packet throws naming kfdrtStreamDispatchAql");
  check(av.get_hip_stream() != nullptr, "accelerator_view::get_hip_stream");
}

int main() {
  hc_test::run("waits", waits);
  hc_test::run("then", chained_then);
  hc_test::run("markers", markers);
  hc_test::run("ticks", ticks);
  hc_test::run("copy", copy_ordering);
  hc_test::run("threads", threads_and_extensions);
  return hc_test::finish();
}
