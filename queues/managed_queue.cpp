// SPDX-License-Identifier: MIT
// ManagedQueue: engine names, the checks every backend makes, and creation of the AQL or PM4 backend.
#include "queues/managed_queue.h"

#include <cerrno>
#include <string>

#include "gpu/device.h"
#include "kfd/kfd.h"
#include "queues/managed_backends.h"

namespace queues {

const char* engine_name(Engine e) { return e == Engine::Pm4 ? "pm4" : "aql"; }

base::Result<Engine> parse_engine(std::string_view name) {
  if (name == "aql") return Engine::Aql;
  if (name == "pm4") return Engine::Pm4;
  return base::Error::of_kind(base::ErrorKind::InvalidArgument,
                              "queue engine \"" + std::string(name) + "\" is neither aql nor pm4", EINVAL);
}

base::Status check_launch_slow(const KernelLaunch& l) {
  if (l.kernel_object == 0) return base::Error::msg("dispatch: no kernel object", EINVAL);
  if (l.dims < 1 || l.dims > 3)
    return base::Error::msg("dispatch: dimensions " + std::to_string(l.dims) + " not in 1..3", EINVAL);
  for (int i = 0; i < 3; ++i)
    if (l.block[i] == 0 || l.grid[i] == 0)
      return base::Error::msg("dispatch: zero workgroup or grid size in dimension " + std::to_string(i), EINVAL);
  if (l.kernarg_size && !l.kernarg && !l.write_kernarg)
    return base::Error::msg("dispatch: " + std::to_string(l.kernarg_size) + " argument bytes but no source", EINVAL);
  return {};
}

void write_kernarg_bytes(const KernelLaunch& l, uint8_t* dst) {
  if (l.write_kernarg)
    l.write_kernarg(l.write_ctx, dst);
  else
    std::memcpy(dst, l.kernarg, l.kernarg_size);
}

base::Result<std::unique_ptr<ManagedQueue>> ManagedQueue::create(const gpu::Device& gpu, mem::Context& memory,
                                                                 EventManager& events, ScratchWindows& scratch,
                                                                 const ManagedQueueOptions& opts) {
  if (opts.engine == Engine::Pm4) return make_pm4_managed(gpu, memory, events, scratch, opts);
  return make_aql_managed(gpu, memory, events, scratch, opts);
}

base::Status ManagedQueue::dispatch(const KernelLaunch& l, Fence f, Completion c) {
  const Command cmd = Command::dispatch(l, f, c);
  return submit(std::span(&cmd, 1));
}

base::Result<bool> ManagedQueue::prepare(const KernelLaunch& l, Fence, PreparedDispatch*) const {
  KFD_TRY(check_launch(l));
  return false;
}

base::Status ManagedQueue::dispatch_prepared(const PreparedDispatch&, void (*)(void*, uint8_t*), void*, Completion) {
  return base::Error::msg(std::string("dispatch_prepared: a ") + engine_name(engine()) + " queue prepares no dispatch",
                         EINVAL);
}

base::Status ManagedQueue::marker(Fence f, Completion c) {
  const Command cmd = Command::marker(f, c);
  return submit(std::span(&cmd, 1));
}

base::Status ManagedQueue::set_global_wave_sync(bool on) const {
  return gpu_.kfd().alloc_queue_gws(queue_id(), on ? 1 : 0);
}

base::Status ManagedQueue::set_cu_mask(std::span<const uint32_t> mask) {
  std::lock_guard lk(cu_mu_);
  if (base::Status s = gpu_.kfd().set_cu_mask(queue_id(), mask); !s.ok()) return s;
  cu_mask_.assign(mask.begin(), mask.end());
  return {};
}

std::vector<uint32_t> ManagedQueue::cu_mask() const {
  std::lock_guard lk(cu_mu_);
  return cu_mask_;
}

}  // namespace queues
