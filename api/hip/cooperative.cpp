// SPDX-License-Identifier: MIT
// Cooperative launches: every block of the grid co-resident, with a grid barrier (global wave sync).
//
// How HIP 5.2 code does a grid barrier (ROCm-Device-Libs ockl/src/cg.cl __ockl_grid_sync): an
// agent-scope seq_cst fence, s_barrier, one work-item per block waits at ds_gws_barrier with the
// block count minus one, s_barrier. The GWS resource must hold that count first, which ROCclr
// sets with a one-work-item kernel running ds_gws_init (rocvirtual.cpp submitKernel, RunGwsInit)
// on a queue that holds the device's GWS (ROCr's cooperative queue: AMDKFD_IOC_ALLOC_QUEUE_GWS).
// hidden_multigrid_sync_arg is 1 for such a launch (ROCclr; __ockl_grid_is_valid tests it is not
// 0) and a pointer to the multi-grid sync info for multi-device launches, which kfdrt does not do.
// kfdrt does the same: the init kernel is kfdrt's own (kfdrt_gws_init among its blit kernels,
// queues/blit), so a cooperative launch works for every program, whatever compiled it.
#include <algorithm>
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
  static std::map<int, const queues::blit::Kernels*> loaded;  // by device index
  std::lock_guard lock(mu);
  const queues::blit::Kernels*& k = loaded[dev.index()];
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

hipError_t cooperative_launch(const void* fn, dim3 grid, dim3 block, void** args, size_t shared,
                              hipStream_t stream, const char* api) {
  Function* f = fn ? Registry::get().function(fn) : nullptr;
  if (!f) return hipErrorInvalidDeviceFunction;
  HIP_INIT(rt);
  std::shared_ptr<Stream> s;
  if (hipError_t e = rt->stream(stream, &s); e != hipSuccess) return e;
  Device& dev = s->device();
  if (!dev.props().cooperativeLaunch) {
    debug_log(api, "the device has no global wave sync (topology num_gws 0)");
    return hipErrorNotSupported;
  }
  auto ki = f->info(dev);
  if (!ki) return hipErrorInvalidDeviceFunction;
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  if (threads == 0 || blocks == 0 || threads > 1024) return hipErrorInvalidConfiguration;
  // Every block must be resident at once (a grid barrier waits for all of them).
  const int per_cu = max_blocks_per_cu(dev, **ki, int(threads), shared);
  const uint64_t fit = uint64_t(std::max(per_cu, 0)) * uint64_t(dev.props().multiProcessorCount);
  if (blocks > fit) {
    debug_log(api, std::to_string(blocks) + " blocks of " + std::to_string(threads) + " threads; " +
                       std::to_string(fit) + " fit at once (" + std::to_string(per_cu) + " per CU)");
    return hipErrorCooperativeLaunchTooLarge;
  }
  if (hipError_t e = ensure_gws(dev, s->queue(), api); e != hipSuccess) return e;
  if (hipError_t e = gws_init(*s, uint32_t(blocks - 1), api); e != hipSuccess) return e;
  ArgSource a{args};
  a.multigrid_sync = 1;
  return launch(f, grid, block, shared, stream, a, api);
}

}  // namespace

HIP_EXPORT hipError_t hipLaunchCooperativeKernel(const void* fn, dim3 grid, dim3 block, void** args,
                                                 unsigned int shared, hipStream_t stream) {
  return ret(cooperative_launch(fn, grid, block, args, shared, stream, "hipLaunchCooperativeKernel"));
}
