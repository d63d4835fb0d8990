// SPDX-License-Identifier: MIT
// hc test: dispatch_hsa_kernel of a real kernel and of bad packets, ticks in the packets' domain, native signal and agent handles.
#include "hc_check.hpp"

#include <hc_am.hpp>

#include <cstring>
#include <string>
#include <vector>

using hc_test::check;

constexpr uint16_t kGroup = 64;

// A kernel for raw AQL dispatch. It reads no hidden arguments (blockDim, gridDim), since a raw
// packet's kernel arguments are only what the caller passes: the workgroup size is fixed here.
extern "C" __global__ void raw_add(int* data, int value, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * kGroup + __builtin_amdgcn_workitem_id_x();
  if (i < n) data[i] += value;
}

namespace {

struct RawAddArgs {
  int* data;
  int value;
  unsigned n;
};

struct Kernel {
  uint64_t object = 0;
  uint32_t kernarg_size = 0, group = 0, priv = 0;
};

Kernel raw_add_kernel(const hc::accelerator& acc) {
  Kernel k;
  hc::detail::check(kfdrtFuncGetKernelObject(reinterpret_cast<const void*>(&raw_add), acc.get_hip_device(),
                                             &k.object, &k.kernarg_size, &k.group, &k.priv),
                    "kfdrtFuncGetKernelObject");
  return k;
}

hsa_kernel_dispatch_packet_t packet(const Kernel& k, uint32_t n) {
  hsa_kernel_dispatch_packet_t p{};
  p.header = uint16_t(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                      HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  p.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  p.workgroup_size_x = kGroup;
  p.workgroup_size_y = p.workgroup_size_z = 1;
  p.grid_size_x = n;  // need not be a multiple of the workgroup size
  p.grid_size_y = p.grid_size_z = 1;
  p.group_segment_size = k.group;
  p.private_segment_size = k.priv;
  p.kernel_object = k.object;
  return p;
}

// The kernel-argument block: the explicit arguments, the rest (hidden arguments) zero.
std::vector<char> kernargs(const Kernel& k, int* data, int value, unsigned n, size_t size = 0) {
  std::vector<char> a(std::max<size_t>(size ? size : k.kernarg_size, sizeof(RawAddArgs)), 0);
  RawAddArgs args{data, value, n};
  std::memcpy(a.data(), &args, sizeof args);
  return a;
}

struct device_ints {
  int* p = nullptr;
  unsigned n;
  explicit device_ints(unsigned count) : n(count) {
    hc::detail::check(hipMalloc(reinterpret_cast<void**>(&p), n * sizeof(int)), "hipMalloc");
  }
  ~device_ints() { (void)hipFree(p); }
  std::vector<int> read() const {
    std::vector<int> h(n);
    hc::detail::check(hipMemcpy(h.data(), p, n * sizeof(int), hipMemcpyDeviceToHost), "hipMemcpy");
    return h;
  }
};

hc::completion_future fill(hc::accelerator_view av, int* out, unsigned n, int mul, int add) {
  return hc::parallel_for_each(av, hc::extent<1>(int(n)), [=](hc::index<1> i) {
    int x = i[0];
    for (int k = 0; k < 100; ++k) x = (x * 1103515245 + 12345) & 0x7fffffff;  // take some time
    out[i[0]] = i[0] * mul + add + (x & 0);
  });
}

int64_t signal_value(const hsa_signal_t& s) {
  // layout: amd_signal_t {int64 kind; int64 value; ...} (ROCr amd_hsa_signal.h)
  return __atomic_load_n(reinterpret_cast<const int64_t*>(s.handle + 8), __ATOMIC_ACQUIRE);
}

void dispatch_runs_kernel() {
  hc::accelerator acc;
  hc::accelerator_view av = acc.create_view();
  const Kernel k = raw_add_kernel(acc);
  check(k.object != 0 && k.object % 64 == 0 && k.kernarg_size >= sizeof(RawAddArgs),
        "kfdrtFuncGetKernelObject gives an aligned descriptor and the kernel-argument size");
  const unsigned n = 1000;  // 16 workgroups, the last one partial
  device_ints d(n);
  fill(av, d.p, n, 3, 1);  // earlier work on the same view: d[i] = 3i + 1
  const hsa_kernel_dispatch_packet_t pkt = packet(k, n);
  std::vector<char> args = kernargs(k, d.p, 5, n);
  hc::completion_future cf;
  av.dispatch_hsa_kernel(&pkt, args.data(), args.size(), &cf, "raw_add");
  args.assign(args.size(), 0);  // the runtime copied the arguments
  fill(av, d.p + n / 2, 1, 0, -7);  // later work: overwrites one element after the dispatch
  cf.wait();
  check(cf.valid() && cf.is_ready() && cf.get_command_kind() == hc::hcCommandKernel,
        "dispatch_hsa_kernel's future completes as a kernel");
  av.wait();
  std::vector<int> h = d.read();
  bool ok = true;
  for (unsigned i = 0; i < n; ++i) ok = ok && h[i] == (i == n / 2 ? -7 : int(3 * i + 1 + 5));
  check(ok, "the raw dispatch ran after the view's earlier kernel and before its later one (d[0]=" +
                std::to_string(h[0]) + ", d[999]=" + std::to_string(h[n - 1]) + ")");

  // Kernel arguments larger than the queue's per-packet slot, then the default view waits for
  // the dispatch through a blocking marker.
  std::vector<char> big = kernargs(k, d.p, 10, n, 4096);
  hc::completion_future cf2;
  av.dispatch_hsa_kernel(&pkt, big.data(), big.size(), &cf2);
  hc::completion_future m = acc.get_default_view().create_blocking_marker(cf2);
  m.wait();
  check(cf2.is_ready(), "a marker on another view waits for the dispatch's future");
  h = d.read();
  check(h[0] == 1 + 5 + 10 && h[n - 1] == int(3 * (n - 1)) + 1 + 5 + 10,
        "a dispatch with 4 KiB of kernel arguments reads them");
  args = kernargs(k, d.p, 5, n);
  av.dispatch_hsa_kernel(&pkt, args.data(), args.size());  // no future
  av.wait();
  h = d.read();
  check(av.get_is_empty() && h[1] == 3 + 1 + 5 + 10 + 5,
        "a dispatch without a future is waited for by accelerator_view::wait");
}

// Each bad packet or argument throws hc::runtime_exception carrying the HIP error.
void dispatch_rejects_bad_packets() {
  hc::accelerator acc;
  hc::accelerator_view av = acc.get_default_view();
  const Kernel k = raw_add_kernel(acc);
  device_ints d(64);
  std::vector<char> args = kernargs(k, d.p, 1, 64);
  auto rejects = [&](const hsa_kernel_dispatch_packet_t* p, const void* a, size_t size, hipError_t want,
                     const std::string& what) {
    bool ok = false;
    std::string msg;
    try {
      av.dispatch_hsa_kernel(p, a, size, nullptr, "bad");
      msg = "no exception";
    } catch (const hc::runtime_exception& e) {
      ok = e.get_error_code() == static_cast<hc::HRESULT>(want) && std::string(e.what()).find("bad") != std::string::npos;
      msg = e.what();
    }
    check(ok, "dispatch_hsa_kernel rejects " + what + " (" + msg + ")");
  };
  const hsa_kernel_dispatch_packet_t good = packet(k, 64);
  hsa_kernel_dispatch_packet_t p = good;
  rejects(nullptr, args.data(), args.size(), hipErrorInvalidValue, "a null packet");
  p.header = uint16_t((p.header & ~0xff) | HSA_PACKET_TYPE_BARRIER_AND);
  rejects(&p, args.data(), args.size(), hipErrorInvalidValue, "a barrier-AND packet");
  p = good;
  p.header |= 3 << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE;
  rejects(&p, args.data(), args.size(), hipErrorInvalidValue, "a reserved fence scope");
  p = good;
  p.kernel_object = 0;
  rejects(&p, args.data(), args.size(), hipErrorInvalidValue, "kernel_object 0");
  p.kernel_object = k.object + 4;
  rejects(&p, args.data(), args.size(), hipErrorInvalidValue, "a misaligned kernel_object");
  p.kernel_object = reinterpret_cast<uint64_t>(d.p);
  rejects(&p, args.data(), args.size(), hipErrorInvalidValue, "a kernel_object in data memory");
  rejects(&good, nullptr, 16, hipErrorInvalidValue, "null kernel arguments with a size");
  rejects(&good, args.data(), size_t(1) << 40, hipErrorInvalidValue, "a 1 TiB kernel-argument size");
  p = good;
  p.setup = 0;
  rejects(&p, args.data(), args.size(), hipErrorInvalidConfiguration, "zero dimensions");
  p = good;
  p.workgroup_size_x = 0;
  rejects(&p, args.data(), args.size(), hipErrorInvalidConfiguration, "a zero workgroup size");
  p = good;
  p.grid_size_x = 0;
  rejects(&p, args.data(), args.size(), hipErrorInvalidConfiguration, "a zero grid size");
  p = good;
  p.workgroup_size_x = 1024;
  p.setup = 2;
  p.workgroup_size_y = p.grid_size_y = 2;
  rejects(&p, args.data(), args.size(), hipErrorInvalidConfiguration, "a 2048-work-item workgroup");
  p = good;
  p.grid_size_z = 4;
  rejects(&p, args.data(), args.size(), hipErrorInvalidConfiguration, "an unused dimension of 4");
  p = good;
  p.group_segment_size = 1u << 30;
  rejects(&p, args.data(), args.size(), hipErrorInvalidConfiguration, "a 1 GiB group segment");
  p = good;
  p.private_segment_size = 1u << 30;
  rejects(&p, args.data(), args.size(), hipErrorInvalidConfiguration, "a 1 GiB private segment");
  // The view still works after all of them.
  hc::completion_future cf;
  hc::detail::check(hipMemset(d.p, 0, 64 * sizeof(int)), "hipMemset");
  av.dispatch_hsa_kernel(&good, args.data(), args.size(), &cf);
  cf.wait();
  std::vector<int> h = d.read();
  check(h[0] == 1 && h[63] == 1, "a good dispatch after the rejected ones runs");
}

// Ticks: a tolerance of 10 ms absorbs the clock-sample skew; another domain (the GPU counter,
// host steady clock) would be off by far more, or scaled.
void ticks_in_packet_domain() {
  hc::accelerator acc;
  hc::accelerator_view av = acc.get_default_view();
  const uint64_t hz = hc::get_tick_frequency();
  const uint64_t tol = hz / 100;
  uint64_t sys = 0, sys_hz = 0;
  hc::detail::check(kfdrtGetSystemTicks(&sys, &sys_hz), "kfdrtGetSystemTicks");
  check(hz > 0 && hz == sys_hz, "get_tick_frequency is the system timestamp's (" + std::to_string(hz) + " Hz)");
  uint64_t prev = hc::get_system_ticks();
  bool monotonic = true;
  for (int i = 0; i < 100; ++i) {
    uint64_t t = hc::get_system_ticks();
    monotonic = monotonic && t >= prev;
    prev = t;
  }
  check(monotonic, "get_system_ticks never goes backwards");

  device_ints d(8192);
  const uint64_t t0 = hc::get_system_ticks();
  hc::completion_future f = fill(av, d.p, d.n, 1, 0);
  f.wait();
  const uint64_t t1 = hc::get_system_ticks();
  const uint64_t b = f.get_begin_tick(), e = f.get_end_tick();
  check(f.get_tick_frequency() == hz, "a future's tick frequency is hc::get_tick_frequency");
  check(b <= e, "begin tick <= end tick (" + std::to_string(e - b) + " ticks)");
  check(b + tol >= t0 && e <= t1 + tol,
        "the kernel's ticks lie between get_system_ticks before and after it (t0=" + std::to_string(t0) +
            " b=" + std::to_string(b) + " e=" + std::to_string(e) + " t1=" + std::to_string(t1) + ")");
  check(double(e - b) / double(hz) < 60.0, "the kernel's tick span is plausible");

  const Kernel k = raw_add_kernel(acc);
  const hsa_kernel_dispatch_packet_t pkt = packet(k, d.n);
  std::vector<char> args = kernargs(k, d.p, 1, d.n);
  hc::completion_future cf;
  const uint64_t u0 = hc::get_system_ticks();
  av.dispatch_hsa_kernel(&pkt, args.data(), args.size(), &cf);
  cf.wait();
  const uint64_t u1 = hc::get_system_ticks();
  const uint64_t db = cf.get_begin_tick(), de = cf.get_end_tick();
  check(db <= de && db + tol >= u0 && de <= u1 + tol,
        "a raw dispatch's own start and end ticks lie in the system-tick window (" + std::to_string(de - db) +
            " ticks)");
  check(hc::completion_future().get_begin_tick() == 0, "an empty future has tick 0");
}

void native_handles() {
  hc::accelerator acc;
  hc::accelerator_view av = acc.create_view();
  // A kernel held back by a flag in host-coherent memory, so the handle is seen pending.
  int* flag = static_cast<int*>(hc::am_alloc(sizeof(int), acc, amHostCoherent));
  check(flag != nullptr, "am_alloc(amHostCoherent) for the release flag");
  if (!flag) return;
  *flag = 0;
  device_ints d(1);
  int* out = d.p;
  hc::completion_future f = hc::parallel_for_each(av, hc::extent<1>(1), [=](hc::index<1>) {
    volatile int* v = flag;
    const uint64_t start = hc::__clock_u64();  // 100 MHz: give up after 60 s
    while (*v == 0 && hc::__clock_u64() - start < 6000000000ull) {
    }
    out[0] = *v;
  });
  void* h = f.get_native_handle();
  check(h != nullptr && h == f.get_native_handle() && h == hc::completion_future(f).get_native_handle(),
        "get_native_handle is one stable pointer per operation");
  const hsa_signal_t sig = *static_cast<hsa_signal_t*>(h);
  check(sig.handle != 0 && signal_value(sig) == 1, "the signal is 1 while the kernel waits");
  check(!f.is_ready(), "the future is not ready while the kernel waits");
  __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
  f.wait();
  check(signal_value(sig) == 0, "the signal reaches 0 when the future is ready");
  check(d.read()[0] == 1, "the held kernel saw the flag");
  hc::am_free(flag);

  hc::completion_future m = av.create_marker();
  m.wait();
  check(signal_value(*static_cast<hsa_signal_t*>(m.get_native_handle())) == 0, "a marker's signal is 0 once ready");
  check(hc::completion_future().get_native_handle() == nullptr, "an empty future has no native handle");

  void* agent = acc.get_hsa_agent();
  uint32_t gpu_id = 0, node = 0;
  hc::detail::check(kfdrtDeviceGetGpuId(acc.get_hip_device(), &gpu_id, &node), "kfdrtDeviceGetGpuId");
  check(agent != nullptr && static_cast<hsa_agent_t*>(agent)->handle == gpu_id && gpu_id != 0,
        "get_hsa_agent points at an hsa_agent_t holding the gpu_id (" + std::to_string(gpu_id) + ")");
  check(av.get_hsa_agent() == agent, "accelerator_view::get_hsa_agent is its accelerator's");
}

}  // namespace

int main() {
  hc_test::run("dispatch", dispatch_runs_kernel);
  hc_test::run("bad packets", dispatch_rejects_bad_packets);
  hc_test::run("ticks", ticks_in_packet_domain);
  hc_test::run("native", native_handles);
  return hc_test::finish();
}
