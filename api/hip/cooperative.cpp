// SPDX-License-Identifier: MIT
// Cooperative launches: every block of the grid co-resident, with a grid barrier (global wave sync).
//
// How HIP 5.2 code does a grid barrier (ROCm-Device-Libs ockl/src/cg.cl __ockl_grid_sync): an
// agent-scope seq_cst fence, s_barrier, one work-item per block waits at ds_gws_barrier with the
// block count minus one, s_barrier. The GWS resource must hold that count first, which ROCclr
// sets with a one-work-item kernel running ds_gws_init (rocvirtual.cpp submitKernel, RunGwsInit)
// on a queue that holds the device's GWS (ROCr's cooperative queue: AMDKFD_IOC_ALLOC_QUEUE_GWS).
// hidden_multigrid_sync_arg is 1 for such a launch (ROCclr; __ockl_grid_is_valid tests it is not
// 0) and a pointer to the multi-grid sync info for multi-device launches (one grid per device,
// hipLaunchCooperativeKernelMultiDevice).
// kfdrt does the same: the init kernel is kfdrt's own (kfdrt_gws_init among its blit kernels,
// queues/blit), so a cooperative launch works for every program, whatever compiled it.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>

#include "api/hip/cooperative.h"
#include "api/hip/launch.h"
#include "api/hip/stream.h"
#include "queues/blit_kernels.h"

using namespace hip;

namespace {

// A kernel's fences, as launch.cpp's: system-scope acquire, agent-scope release, barrier bit.
constexpr queues::Fence kInitFence{true, queues::aql::kScopeSystem, queues::aql::kScopeAgent};

// The device's blit kernels, for their GWS init kernel: loaded on first use and kept for the
// process (never freed, as the runtime: a queued dispatch may still reference them).
base::Result<const queues::blit::Kernels*> blit_kernels(Device& dev) {
  static std::mutex mu;
  // By device index; never destroyed, so the kernels stay reachable (not leaks) to the end.
  static auto* loaded = new std::map<int, const queues::blit::Kernels*>;
  std::lock_guard lock(mu);
  const queues::blit::Kernels*& k = (*loaded)[dev.index()];
  if (!k) {
    KFD_ASSIGN(std::unique_ptr<queues::blit::Kernels> p, queues::blit::Kernels::load(dev.memory(), dev.gpu()));
    k = p.release();
  }
  return k;
}

// Dispatches kfdrt_gws_init (one work-item) on `s`: GWS resource 0 gets `value`.
hipError_t gws_init(Stream& s, uint32_t value, const char* api) {
  auto k = blit_kernels(s.device());
  if (!k) {
    debug_log(api, "no GWS init kernel: " + k.error().message);
    return hipErrorNotSupported;
  }
  const queues::blit::KernelRef& r = (*k)->get(queues::blit::Kind::GwsInit);
  const queues::blit::GwsInitArgs a{value, 0};
  alignas(16) uint8_t args[256] = {};  // the explicit argument, hidden ones zero (unused)
  if (r.kernarg_size > sizeof args) {
    debug_log(api, "kfdrt_gws_init wants " + std::to_string(r.kernarg_size) + " bytes of arguments");
    return hipErrorNotSupported;
  }
  std::memcpy(args, &a, sizeof a);
  if (trace::on()) trace::name_kernel(r.object, queues::blit::kernel_name(queues::blit::Kind::GwsInit));
  queues::KernelLaunch l;
  l.kernel_object = r.object;
  l.group_segment_bytes = r.group_segment;
  l.private_segment_bytes = r.private_segment;
  l.kernarg_size = std::max<uint32_t>(r.kernarg_size, sizeof a);
  l.kernarg = args;
  return s.launch(l, kInitFence, nullptr, api);
}

// Gives the device's GWS to `hw` (once; the queue keeps it until destroyed). A device has one:
// when another of its queues holds it, the device drains and that queue gives it back.
hipError_t ensure_gws(Device& dev, queues::ManagedQueue& q, const char* api) {
  static std::mutex mu;
  static std::map<int, queues::ManagedQueue*> holder;  // by device index
  std::lock_guard lock(mu);
  queues::ManagedQueue*& h = holder[dev.index()];
  if (h == &q) return hipSuccess;
  base::Status st = q.set_global_wave_sync(true);
  if (!st && st.error().err == EBUSY && h) {
    if (hipError_t e = dev.synchronize(api); e != hipSuccess) return e;
    (void)h->set_global_wave_sync(false);
    st = q.set_global_wave_sync(true);
  }
  if (!st) {
    debug_log(api, "the queue cannot have the global wave sync a grid barrier needs: " + st.error().message);
    return hipErrorNotSupported;
  }
  h = &q;
  return hipSuccess;
}

// A cooperative launch that passed its checks: the stream holds the device's GWS.
struct Checked {
  Function* f = nullptr;
  std::shared_ptr<Stream> s;
  uint64_t blocks = 0, threads = 0;
};

// The checks of a cooperative launch (kernel, configuration, co-residency), then the GWS.
hipError_t check(const void* fn, dim3 grid, dim3 block, size_t shared, hipStream_t stream, const char* api,
                 Checked* c) {
  c->f = fn ? Registry::get().function(fn) : nullptr;
  if (!c->f) return hipErrorInvalidDeviceFunction;
  HIP_INIT(rt);
  if (hipError_t e = rt->stream(stream, &c->s); e != hipSuccess) return e;
  Device& dev = c->s->device();
  if (!dev.limits().cooperativeLaunch) {
    debug_log(api, "the device has no global wave sync (topology num_gws 0) or kfdrt has no blit kernels for it");
    return hipErrorNotSupported;
  }
  auto ki = c->f->info(dev);
  if (!ki) return hipErrorInvalidDeviceFunction;
  c->threads = uint64_t(block.x) * block.y * block.z;
  c->blocks = uint64_t(grid.x) * grid.y * grid.z;
  if (c->threads == 0 || c->blocks == 0 || c->threads > 1024) return hipErrorInvalidConfiguration;
  // Every block must be resident at once (a grid barrier waits for all of them).
  const int per_cu = max_blocks_per_cu(dev, **ki, int(c->threads), shared);
  const uint64_t fit = uint64_t(std::max(per_cu, 0)) * uint64_t(dev.limits().multiProcessorCount);
  if (c->blocks > fit) {
    debug_log(api, std::to_string(c->blocks) + " blocks of " + std::to_string(c->threads) + " threads; " +
                       std::to_string(fit) + " fit at once (" + std::to_string(per_cu) + " per CU)");
    return hipErrorCooperativeLaunchTooLarge;
  }
  return ensure_gws(dev, c->s->queue(), api);
}

// The GWS init, then the kernel with hidden_multigrid_sync_arg `mg` (1, or a multi-grid info).
hipError_t dispatch(const Checked& c, dim3 grid, dim3 block, void** args, size_t shared, hipStream_t stream,
                    uint64_t mg, const char* api) {
  if (hipError_t e = gws_init(*c.s, uint32_t(c.blocks - 1), api); e != hipSuccess) return e;
  ArgSource a{args};
  a.multigrid_sync = mg;
  return launch(c.f, grid, block, shared, stream, a, api);
}

// Held from a cooperative launch's checks to its kernel's submission: streams share queues, and
// another launch's GWS init must not come between a launch's init and its kernel (in the same
// queue it then runs once the kernel finished).
std::mutex g_launch_mu;

hipError_t cooperative_launch(const void* fn, dim3 grid, dim3 block, void** args, size_t shared,
                              hipStream_t stream, const char* api) {
  std::lock_guard lock(g_launch_mu);
  Checked c;
  if (hipError_t e = check(fn, grid, block, shared, stream, api, &c); e != hipSuccess) return e;
  return dispatch(c, grid, block, args, shared, stream, 1, api);
}

// What hidden_multigrid_sync_arg points at in a multi-device launch, one per grid, and the
// counter all grids share (ROCm-Device-Libs ockl/src/cg.cl struct mg_info and mg_sync, which
// ROCclr fills): __ockl_multi_grid_sync has one work-item per grid add to `w0` and wait until its
// low byte wrapped back to 0 (its upper bits count the generations). grid_sync and num_wg are the
// software grid barrier newer device libraries use where there is no GWS (zero and unused here).
struct MultiGridSync {
  uint32_t w0, w1;
};
struct MultiGridInfo {
  uint64_t sync;       // the shared MultiGridSync
  uint32_t grid_id;    // this grid's index in the launch list
  uint32_t num_grids;
  uint64_t prev_sum;   // work-items of the grids before this one
  uint64_t all_sum;    // work-items of every grid
  MultiGridSync grid_sync;
  uint32_t num_wg;     // this grid's workgroups
  uint32_t pad;
};
static_assert(sizeof(MultiGridSync) == 8 && sizeof(MultiGridInfo) == 48, "multi-grid info layout");
static_assert(offsetof(MultiGridInfo, grid_id) == 8 && offsetof(MultiGridInfo, num_grids) == 12 &&
                  offsetof(MultiGridInfo, prev_sum) == 16 && offsetof(MultiGridInfo, all_sum) == 24,
              "mg_info offsets (ockl cg.cl)");
constexpr size_t kMultiGridStride = 64;  // the shared counter, then each grid's info, a line each

// Multi-grid info blocks in use, freed once every grid that reads them finished.
struct MultiGridMemory {
  void* mem = nullptr;
  std::vector<std::shared_ptr<EventRecord>> ends;
};
std::mutex g_multi_mu;
std::vector<MultiGridMemory> g_multi;

void reap_multi_grid_memory() {
  std::lock_guard lock(g_multi_mu);
  std::erase_if(g_multi, [](const MultiGridMemory& m) {
    for (const auto& r : m.ends)
      if (!r->done()) return false;
    (void)hipHostFree(m.mem);
    return true;
  });
}

// Every stream of `cs` waits for what the others were given so far.
hipError_t cross_wait(const std::vector<Checked>& cs, std::vector<std::shared_ptr<EventRecord>>* tails,
                      const char* api) {
  tails->clear();
  for (const Checked& c : cs) {
    // Each stream's work released to system scope: the other devices read what it wrote.
    auto r = c.s->system_tail_record();
    if (!r) {
      debug_log(api, r.error().message);
      return from_error(r.error(), hipErrorOutOfMemory);
    }
    tails->push_back(std::move(*r));
  }
  for (size_t i = 0; i < cs.size(); ++i)
    for (size_t j = 0; j < cs.size(); ++j)
      if (i != j)
        if (hipError_t e = cs[i].s->wait((*tails)[j]); e != hipSuccess) return e;
  return hipSuccess;
}

// The multi-device launches take one launch per device: launch i's stream must be on a device
// none of the launches before it uses.
hipError_t another_on_its_device(const std::vector<Checked>& cs, int i, const char* api) {
  for (int j = 0; j < i; ++j)
    if (&cs[j].s->device() == &cs[i].s->device()) {
      debug_log(api, "launches " + std::to_string(j) + " and " + std::to_string(i) + " are on device " +
                         std::to_string(cs[i].s->device().index()) + " (one launch per device)");
      return hipErrorInvalidDevice;
    }
  return hipSuccess;
}

// What both multi-device launches check of their list and flags: one to device_count() launches,
// only the pre- and post-sync flags.
hipError_t check_launch_list(const hipLaunchParams* list, int n, unsigned flags, const Runtime& rt) {
  if (!list || n <= 0 || n > rt.device_count()) return hipErrorInvalidValue;
  if (flags & ~unsigned(hipCooperativeLaunchMultiDeviceNoPreSync | hipCooperativeLaunchMultiDeviceNoPostSync))
    return hipErrorInvalidValue;
  return hipSuccess;
}

// One grid per device, each on its own stream, all resident at once: every grid's checks first
// (nothing is submitted when one fails), then the multi-grid info, then the launches.
hipError_t multi_device_launch(hipLaunchParams* list, int n, unsigned flags, const char* api) {
  HIP_INIT(rt);
  if (hipError_t e = check_launch_list(list, n, flags, *rt); e != hipSuccess) return e;
  std::lock_guard lock(g_launch_mu);
  std::vector<Checked> cs(static_cast<size_t>(n));
  uint64_t all = 0;
  for (int i = 0; i < n; ++i) {
    const hipLaunchParams& p = list[i];
    if (hipError_t e = check(p.func, p.gridDim, p.blockDim, p.sharedMem, p.stream, api, &cs[i]); e != hipSuccess)
      return e;
    if (hipError_t e = another_on_its_device(cs, i, api); e != hipSuccess) return e;
    all += cs[i].blocks * cs[i].threads;
  }
  reap_multi_grid_memory();
  void* mem = nullptr;
  if (hipError_t e = hipHostMalloc(&mem, kMultiGridStride * (size_t(n) + 1), hipHostMallocCoherent); e != hipSuccess)
    return e;
  std::memset(mem, 0, kMultiGridStride * (size_t(n) + 1));
  uint8_t* base = static_cast<uint8_t*>(mem);
  uint64_t before = 0;
  for (int i = 0; i < n; ++i) {
    MultiGridInfo mi{};
    mi.sync = reinterpret_cast<uint64_t>(base);
    mi.grid_id = uint32_t(i);
    mi.num_grids = uint32_t(n);
    mi.prev_sum = before;
    mi.all_sum = all;
    mi.num_wg = uint32_t(cs[i].blocks);
    std::memcpy(base + kMultiGridStride * (size_t(i) + 1), &mi, sizeof mi);
    before += cs[i].blocks * cs[i].threads;
  }
  std::vector<std::shared_ptr<EventRecord>> tails;
  hipError_t e = hipSuccess;
  if (!(flags & hipCooperativeLaunchMultiDeviceNoPreSync)) e = cross_wait(cs, &tails, api);
  for (int i = 0; i < n && e == hipSuccess; ++i) {
    const hipLaunchParams& p = list[i];
    e = dispatch(cs[i], p.gridDim, p.blockDim, p.args, p.sharedMem, p.stream,
                 reinterpret_cast<uint64_t>(base + kMultiGridStride * (size_t(i) + 1)), api);
  }
  // The memory lives until every grid finished (or, after a failure, what was submitted).
  MultiGridMemory m{mem, {}};
  for (const Checked& c : cs) {
    auto r = c.s->tail_record();
    if (!r)  // no telling when the grids are done with it: the memory is left allocated
      return e != hipSuccess ? e : from_error(r.error(), hipErrorOutOfMemory);
    m.ends.push_back(std::move(*r));
  }
  {
    std::lock_guard lock(g_multi_mu);
    g_multi.push_back(std::move(m));
  }
  if (e == hipSuccess && !(flags & hipCooperativeLaunchMultiDeviceNoPostSync)) e = cross_wait(cs, &tails, api);
  return e;
}

// hipExtLaunchMultiKernelMultiDevice: one ordinary kernel per device, each on its own stream,
// submitted together (no launch of this API or the cooperative ones in between); unless the flags
// say otherwise every stream first waits for the others' earlier work and afterwards for the
// others' kernels, as the cooperative multi-device launch's pre- and post-sync do.
hipError_t multi_kernel_launch(hipLaunchParams* list, int n, unsigned flags, const char* api) {
  HIP_INIT(rt);
  if (hipError_t e = check_launch_list(list, n, flags, *rt); e != hipSuccess) return e;
  std::lock_guard lock(g_launch_mu);
  std::vector<Checked> cs(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const hipLaunchParams& p = list[i];
    cs[i].f = p.func ? Registry::get().function(p.func) : nullptr;
    if (!cs[i].f) return hipErrorInvalidDeviceFunction;
    if (hipError_t e = rt->stream(p.stream, &cs[i].s); e != hipSuccess) return e;
    if (hipError_t e = another_on_its_device(cs, i, api); e != hipSuccess) return e;
  }
  std::vector<std::shared_ptr<EventRecord>> tails;
  hipError_t e = hipSuccess;
  if (!(flags & hipCooperativeLaunchMultiDeviceNoPreSync)) e = cross_wait(cs, &tails, api);
  for (int i = 0; i < n && e == hipSuccess; ++i) {
    const hipLaunchParams& p = list[i];
    e = hipLaunchKernel(p.func, p.gridDim, p.blockDim, p.args, p.sharedMem, p.stream);
  }
  if (e == hipSuccess && !(flags & hipCooperativeLaunchMultiDeviceNoPostSync)) e = cross_wait(cs, &tails, api);
  return e;
}

}  // namespace

HIP_EXPORT hipError_t hipExtLaunchMultiKernelMultiDevice(hipLaunchParams* list, int numDevices, unsigned int flags) {
  return ret(multi_kernel_launch(list, numDevices, flags, "hipExtLaunchMultiKernelMultiDevice"));
}

HIP_EXPORT hipError_t hipLaunchCooperativeKernel(const void* fn, dim3 grid, dim3 block, void** args,
                                                 unsigned int shared, hipStream_t stream) {
  return ret(cooperative_launch(fn, grid, block, args, shared, stream, "hipLaunchCooperativeKernel"));
}

HIP_EXPORT hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams* list, int numDevices,
                                                            unsigned int flags) {
  return ret(multi_device_launch(list, numDevices, flags, "hipLaunchCooperativeKernelMultiDevice"));
}
