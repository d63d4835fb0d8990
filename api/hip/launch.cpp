// SPDX-License-Identifier: MIT
// Kernel launches: <<<>>> configuration stack, argument layout from metadata, hidden arguments, checks.
#include "api/hip/launch.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "api/hip/stream.h"

namespace hip {
namespace {

// Plain fields (dim3 has a constructor): a thread_local array of these needs no initialiser. A
// dim3 is kept as it travels in registers (x and y in one 64-bit word, z in another): push and
// pop store and load each part in the width it was written in (a load spanning two narrower
// stores stalls on store forwarding, some 15 cycles on every <<<>>> launch).
struct CallConfig {
  uint64_t grid_xy;
  uint32_t grid_z, block_z;
  uint64_t block_xy;
  size_t shared;
  hipStream_t stream;
};
static_assert(sizeof(dim3) == 12);
// For the functions that take or give a launch's dim3s (push, pop, launch): GCC's SLP vectoriser
// and store merging repack their fields through the stack in other widths than they were stored in.
#define KFDRT_NO_REPACKING __attribute__((optimize("no-tree-slp-vectorize", "no-store-merging")))
// The <<<>>> configurations pushed and not yet popped (clang's kernel stubs pop right after the
// push; more than one is pending only while a launch's arguments launch kernels). Trivially
// destructible, so a thread's first launch registers no destructor and no access checks for one.
struct ConfigStack {
  static constexpr unsigned kMax = 32;
  CallConfig slots[kMax];
  unsigned depth;
};
thread_local ConfigStack t_configs;

// A kernel's fences: system-scope acquire (host writes become visible), agent-scope release
// (the HIP programming guide, "Visibility of Zero-Copy Host Memory"); the barrier bit orders it
// after the stream's earlier work.
constexpr queues::Fence kDispatchFence{true, queues::aql::kScopeSystem, queues::aql::kScopeAgent};

template <class T>
void put(uint8_t* ka, const KernelInfo::Hidden& h, T v) {
  std::memcpy(ka + h.offset, &v, std::min<size_t>(sizeof v, h.size));
}

// The grid of one launch in work-items and, per dimension, its whole blocks and the work-items of
// a last partial block (AQL packets describe grids in work-items; code object v5's hidden
// arguments want the block counts and remainders).
struct Grid {
  uint32_t items[3];
  uint32_t blocks[3];
  uint16_t rest[3];
};

// A launch's explicit arguments, at the metadata's offsets (from a pointer per argument) or as
// the caller's block (up to the end of the last explicit argument: the rest is the runtime's).
// Written over zeroes: what lies between arguments stays zero.
struct ExplicitArgs {
  const KernelInfo* k;
  const ArgSource* args;

  static void write(void* self, uint8_t* ka) { static_cast<const ExplicitArgs*>(self)->fill(ka); }

  void fill(uint8_t* ka) const {
    if (args->params) {
      const KernelInfo::Arg* a = k->args.data();
      for (size_t i = 0, n = k->args.size(); i < n; ++i) std::memcpy(ka + a[i].offset, args->params[i], a[i].size);
    } else if (args->buffer) {
      std::memcpy(ka, args->buffer, std::min<size_t>(args->buffer_size, k->explicit_size));
    }
  }
};

// The kernel-argument block of one launch, written once, straight into the queue's argument slot:
// the explicit arguments, then the hidden ones.
struct ArgWriter {
  const KernelInfo* k;
  const ArgSource* args;
  const Grid* grid;
  dim3 block;
  uint32_t dynamic_lds;
  uint32_t private_base_hi, shared_base_hi;
  const queues::ManagedQueue* queue;  // its amd_queue_t is hidden_queue_ptr (read only if asked for)
  uint64_t hostcall;

  static void write(void* self, uint8_t* ka) { static_cast<const ArgWriter*>(self)->fill(ka); }
  // What a prepared launch keeps: the block without its explicit arguments.
  static void write_image(void* self, uint8_t* ka) { static_cast<const ArgWriter*>(self)->fill_fixed(ka); }

  void fill(uint8_t* ka) const {
    if (k->kernarg_size == 0) return;  // (a zero-length memset into a cold line is not free)
    fill_fixed(ka);
    ExplicitArgs{k, args}.fill(ka);
  }

  void fill_fixed(uint8_t* ka) const {
    std::memset(ka, 0, k->kernarg_size);
    if (!k->hidden.empty()) write_hidden(ka);
  }

  // Hidden arguments by value kind (AMDGPUUsage "Code Object V4/V5 Metadata"); kinds not listed
  // stay zero (no printf buffer, default queue or heap).
  void write_hidden(uint8_t* ka) const {
    using loader::ValueKind;
    const uint16_t bs[3] = {uint16_t(block.x), uint16_t(block.y), uint16_t(block.z)};
    const uint32_t* items = grid->items;
    unsigned dims = items[2] > 1 ? 3 : items[1] > 1 ? 2 : 1;
    for (const KernelInfo::Hidden& h : k->hidden) {
      switch (h.kind) {
        case ValueKind::HiddenBlockCountX: put<uint32_t>(ka, h, grid->blocks[0]); break;
        case ValueKind::HiddenBlockCountY: put<uint32_t>(ka, h, grid->blocks[1]); break;
        case ValueKind::HiddenBlockCountZ: put<uint32_t>(ka, h, grid->blocks[2]); break;
        case ValueKind::HiddenRemainderX: put<uint16_t>(ka, h, grid->rest[0]); break;
        case ValueKind::HiddenRemainderY: put<uint16_t>(ka, h, grid->rest[1]); break;
        case ValueKind::HiddenRemainderZ: put<uint16_t>(ka, h, grid->rest[2]); break;
        case ValueKind::HiddenGroupSizeX: put<uint16_t>(ka, h, bs[0]); break;
        case ValueKind::HiddenGroupSizeY: put<uint16_t>(ka, h, bs[1]); break;
        case ValueKind::HiddenGroupSizeZ: put<uint16_t>(ka, h, bs[2]); break;
        case ValueKind::HiddenGridDims: put<uint16_t>(ka, h, uint16_t(dims)); break;
        case ValueKind::HiddenDynamicLdsSize: put<uint32_t>(ka, h, dynamic_lds); break;
        case ValueKind::HiddenPrivateBase: put<uint32_t>(ka, h, private_base_hi); break;
        case ValueKind::HiddenSharedBase: put<uint32_t>(ka, h, shared_base_hi); break;
        case ValueKind::HiddenQueuePtr: put<uint64_t>(ka, h, queue->queue_address()); break;
        case ValueKind::HiddenHostcallBuffer: put<uint64_t>(ka, h, hostcall); break;
        case ValueKind::HiddenMultigridSyncArg: put<uint64_t>(ka, h, args->multigrid_sync); break;
        default: break;  // global offsets are 0: HIP launches start at work-item 0
      }
    }
  }
};

// Kernels that call printf (they have a hidden_hostcall_buffer argument) get the device's
// hostcall buffer, set up on the first such launch; others get 0.
hipError_t hostcall_address(Device& dev, const KernelInfo& k, const char* api, uint64_t* out) {
  *out = 0;
  if (!k.hostcall) return hipSuccess;
  auto buf = dev.hostcall_buffer();
  if (!buf) {
    debug_log(api, buf.message());
    return from_error(buf.error(), hipErrorOutOfMemory);
  }
  *out = *buf;
  return hipSuccess;
}

hipError_t kernel_error(const char* api, const base::Error& e) {
  debug_log(api, e.message);
  if (e.err == ENOENT) return hipErrorInvalidDeviceFunction;
  if (e.err == ENOEXEC) return hipErrorNoBinaryForGpu;
  return from_error(e, hipErrorInvalidImage);
}

// The argument sources are checked before anything is submitted: the queue writes them into
// their slot later, where nothing can fail any more.
hipError_t check_args(const KernelInfo& k, const ArgSource& args) {
  if (args.params) {
    for (size_t i = 0, n = k.args.size(); i < n; ++i)
      if (!args.params[i]) return hipErrorInvalidValue;
  } else if (args.buffer) {
    if (args.buffer_size < k.explicit_size) return hipErrorInvalidValue;
  } else if (!k.args.empty()) {
    return hipErrorInvalidValue;
  }
  return hipSuccess;
}

hipError_t check_config(const Device& dev, const KernelInfo& k, const uint32_t items[3], dim3 block,
                        size_t shared) {
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  const hipDeviceProp_tR0600& p = dev.limits();
  if (block.x == 0 || block.y == 0 || block.z == 0 || items[0] == 0 || items[1] == 0 || items[2] == 0)
    return hipErrorInvalidConfiguration;
  if (block.x > uint32_t(p.maxThreadsDim[0]) || block.y > uint32_t(p.maxThreadsDim[1]) ||
      block.z > uint32_t(p.maxThreadsDim[2]) || threads > uint64_t(p.maxThreadsPerBlock) ||
      threads > k.max_workgroup)
    return hipErrorInvalidConfiguration;
  if (k.group_segment + shared > p.sharedMemPerBlock) return hipErrorInvalidValue;
  return hipSuccess;
}

}  // namespace

namespace {

[[gnu::always_inline]] inline hipError_t submit_launch(Function* f, const Grid& g, dim3 block, size_t shared,
                                                     hipStream_t stream, const ArgSource& args, const char* api) {
  if (!f) return hipErrorInvalidDeviceFunction;
  HIP_INIT_NAMED(rt, api);
  Stream* s = nullptr;
  if (hipError_t e = rt->stream_ref(stream, &s); e != hipSuccess) return e;
  Device& dev = s->device();
  const KernelInfo* kp = f->cached(dev.index());
  // A launch repeated (the same kernel, grid, block and LDS on this stream; not while tracing, not
  // cooperative) goes by the stream's prepared route: checked, its packet built and its hidden
  // arguments written once, when it was first launched.
  const bool preparable = !trace::on() && !args.multigrid_sync;
  auto key_of = [&](const KernelInfo* k) {
    return LaunchKey{k, k->serial, {g.items[0], g.items[1], g.items[2]}, {block.x, block.y, block.z}, shared};
  };
  if (kp && preparable) [[likely]] {
    if (hipError_t e = check_args(*kp, args); e != hipSuccess) return e;
    ExplicitArgs ea{kp, &args};
    hipError_t e;
    if (s->launch_prepared(key_of(kp), &ExplicitArgs::write, &ea, api, &e)) return e;
  } else {
    if (!kp) {
      auto ki = f->info(dev);
      if (!ki) return kernel_error(api, ki.error());
      kp = *ki;
    }
    if (hipError_t e = check_args(*kp, args); e != hipSuccess) return e;
  }
  const KernelInfo& k = *kp;
  if (trace::on()) trace::name_kernel(k.kernel_object, k.name.c_str());
  if (hipError_t e = check_config(dev, k, g.items, block, shared); e != hipSuccess) return e;
  uint64_t hostcall = 0;
  if (k.hostcall)
    if (hipError_t e = hostcall_address(dev, k, api, &hostcall); e != hipSuccess) return e;
  const uint32_t lds = uint32_t(k.group_segment + shared);
  ArgWriter w{&k, &args, &g, block, lds - k.group_segment, uint32_t(dev.scratch_aperture_hi()),
              uint32_t(dev.lds_aperture_hi()), &s->queue(), hostcall};
  queues::KernelLaunch l;
  l.kernel_object = k.kernel_object;
  l.dims = g.items[2] > 1 ? 3 : g.items[1] > 1 ? 2 : 1;
  for (int i = 0; i < 3; ++i) l.grid[i] = g.items[i];
  l.block[0] = uint16_t(block.x), l.block[1] = uint16_t(block.y), l.block[2] = uint16_t(block.z);
  l.group_segment_bytes = lds;
  l.private_segment_bytes = uint32_t(scratch_per_item(k.private_segment, k.dynamic_stack));
  l.kernarg_size = k.kernarg_size;
  l.kernarg_align = k.kernarg_align;
  l.write_kernarg = &ArgWriter::write;
  l.write_ctx = &w;
  if (hipError_t e = s->launch(l, kDispatchFence, nullptr, api); e != hipSuccess) return e;
  if (preparable) s->prepare_launch(key_of(kp), l, kDispatchFence, &ArgWriter::write_image, &w);
  return hipSuccess;
}

}  // namespace

KFDRT_NO_REPACKING hipError_t launch(Function* f, dim3 grid, dim3 block, size_t shared,
                                     hipStream_t stream, const ArgSource& args, const char* api) {
  // The packet's grid size is in work-items and 32 bits wide. A grid given in blocks has whole
  // blocks only: no division on this path.
  const uint64_t items[3] = {uint64_t(grid.x) * block.x, uint64_t(grid.y) * block.y, uint64_t(grid.z) * block.z};
  if (items[0] > UINT32_MAX || items[1] > UINT32_MAX || items[2] > UINT32_MAX)
    return hipErrorInvalidConfiguration;
  const Grid g{{uint32_t(items[0]), uint32_t(items[1]), uint32_t(items[2])}, {grid.x, grid.y, grid.z}, {0, 0, 0}};
  return submit_launch(f, g, block, shared, stream, args, api);
}

hipError_t launch_items(Function* f, const uint32_t items[3], dim3 block, size_t shared,
                        hipStream_t stream, const ArgSource& args, const char* api) {
  Grid g{{items[0], items[1], items[2]}, {}, {}};
  const uint32_t bs[3] = {block.x, block.y, block.z};
  for (int i = 0; i < 3; ++i)  // (a zero block size is rejected by submit_launch's checks)
    if (bs[i]) g.blocks[i] = items[i] / bs[i], g.rest[i] = uint16_t(items[i] % bs[i]);
  return submit_launch(f, g, block, shared, stream, args, api);
}

hipError_t parse_launch_extra(void** extra, ArgSource* args) {
  for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER) {
      args->buffer = extra[i + 1];
    } else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE) {
      if (!extra[i + 1]) return hipErrorInvalidValue;
      args->buffer_size = *static_cast<size_t*>(extra[i + 1]);
    } else {
      return hipErrorInvalidValue;
    }
  }
  return args->buffer ? hipSuccess : hipErrorInvalidValue;
}

hipError_t kernel_attributes(Function* f, hipFuncAttributes* attr) {
  HIP_INIT(rt);
  Device& dev = rt->current();
  auto ki = f->info(dev);
  if (!ki) return kernel_error("hipFuncGetAttributes", ki.error());
  const KernelInfo& k = **ki;
  std::memset(attr, 0, sizeof *attr);
  attr->sharedSizeBytes = k.group_segment;
  attr->localSizeBytes = k.private_segment;
  attr->maxThreadsPerBlock = int(std::min<uint32_t>(k.max_workgroup, 1024));
  attr->numRegs = int(k.vgprs);
  attr->binaryVersion = dev.limits().major * 10 + dev.limits().minor;
  attr->ptxVersion = attr->binaryVersion;
  attr->maxDynamicSharedSizeBytes = int(dev.limits().sharedMemPerBlock - k.group_segment);
  return hipSuccess;
}

}  // namespace hip

using namespace hip;

HIP_EXPORT KFDRT_NO_REPACKING hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                                                   hipStream_t stream) {
  ConfigStack& st = t_configs;
  if (st.depth == ConfigStack::kMax) return ret(hipErrorLaunchOutOfResources);
  CallConfig& c = st.slots[st.depth++];
  std::memcpy(&c.grid_xy, &grid, 8);
  c.grid_z = grid.z;
  std::memcpy(&c.block_xy, &block, 8);
  c.block_z = block.z;
  c.shared = shared;
  c.stream = stream;
  return hipSuccess;
}

HIP_EXPORT KFDRT_NO_REPACKING hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared,
                                                                  hipStream_t* stream) {
  ConfigStack& st = t_configs;
  if (st.depth == 0) return ret(hipErrorMissingConfiguration);
  const CallConfig& slot = st.slots[--st.depth];
  // Field by field (a copy of the whole slot would load it in other widths than push stored it
  // in), all before the stores below, which may alias nothing of it.
  const CallConfig c{slot.grid_xy, slot.grid_z, slot.block_z, slot.block_xy, slot.shared, slot.stream};
  auto put_dim3 = [](dim3* d, uint64_t xy, uint32_t z) {
    std::memcpy(static_cast<void*>(d), &xy, 8);
    std::memcpy(reinterpret_cast<uint8_t*>(d) + 8, &z, 4);
  };
  if (grid) put_dim3(grid, c.grid_xy, c.grid_z);
  if (block) put_dim3(block, c.block_xy, c.block_z);
  if (shared) *shared = c.shared;
  if (stream) *stream = c.stream;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipConfigureCall(dim3 grid, dim3 block, size_t shared, hipStream_t stream) {
  return __hipPushCallConfiguration(grid, block, shared, stream);
}

HIP_EXPORT hipError_t hipLaunchKernel(const void* fn, dim3 grid, dim3 block, void** args,
                                      size_t shared, hipStream_t stream) {
  Function* f = fn ? Registry::get().function(fn) : nullptr;
  if (!f) return ret(hipErrorInvalidDeviceFunction);
  return ret(launch(f, grid, block, shared, stream, ArgSource{args, nullptr, 0}, "hipLaunchKernel"));
}

HIP_EXPORT hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, const void* fn) {
  if (!attr) return ret(hipErrorInvalidValue);
  Function* f = fn ? Registry::get().function(fn) : nullptr;
  if (!f) return ret(hipErrorInvalidDeviceFunction);
  return ret(kernel_attributes(f, attr));
}

HIP_EXPORT hipError_t hipFuncSetAttribute(const void* fn, hipFuncAttribute attr, int value) {
  if (!fn || !Registry::get().function(fn)) return ret(hipErrorInvalidDeviceFunction);
  if (attr != hipFuncAttributeMaxDynamicSharedMemorySize &&
      attr != hipFuncAttributePreferredSharedMemoryCarveout)
    return ret(hipErrorInvalidValue);
  return value < 0 ? ret(hipErrorInvalidValue) : hipSuccess;
}

HIP_EXPORT hipError_t hipFuncSetCacheConfig(const void* fn, hipFuncCache_t) {
  return fn && Registry::get().function(fn) ? hipSuccess : ret(hipErrorInvalidDeviceFunction);
}

HIP_EXPORT hipError_t hipFuncSetSharedMemConfig(const void* fn, hipSharedMemConfig) {
  return fn && Registry::get().function(fn) ? hipSuccess : ret(hipErrorInvalidDeviceFunction);
}
