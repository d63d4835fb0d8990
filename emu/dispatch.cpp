// SPDX-License-Identifier: MIT
// Bridges the command processor to the shader core: GPU memory, interrupts and dispatch outcomes.
#include <pthread.h>

#include <mutex>
#include <shared_mutex>

#include "emu/trace_emu.h"
#include "emu/command_processor.h"
#include "emu/shader/shader.h"
#include "pm4/queue_error.h"

namespace emu {

namespace {

// The shader core's view of one GPU's page mappings.
class DeviceMemory final : public shader::Memory {
 public:
  // `lookups`: the creating thread's mapping cache (the dispatch set-up runs there; the shader
  // core's workers, other threads, look up without it).
  explicit DeviceMemory(DeviceState& d, LookupCache* lookups = nullptr)
      : d_(d), lookups_(lookups), owner_(pthread_self()) {}
  uint8_t* translate(uint64_t va, uint64_t size, bool write) override {
    return d_.translate(va, size, write, lookups_ && pthread_equal(pthread_self(), owner_) ? lookups_ : nullptr);
  }
  // The waves cache the range they get: it must stop short of any injected fault inside the
  // mapping (lookup() checks only `va`), or accesses past the first would never fault.
  shader::Range lookup(uint64_t va) override {
    Mapping m;
    if (!d_.lookup(va, &m)) return {};
    uint64_t lo = m.va, hi = m.end;
    {
      std::shared_lock<std::shared_mutex> lk(d_.map_mu);
      for (const auto& [fva, fsize] : d_.injected_faults) {
        if (fva + fsize <= va && fva + fsize > lo) lo = fva + fsize;
        if (fva > va && fva < hi) hi = fva;
      }
    }
    return shader::Range{lo, hi, m.host + (lo - m.va), m.writable, m.cache};
  }
  shader::GpuCache* cache() override { return d_.l2.get(); }

 private:
  DeviceState& d_;
  LookupCache* lookups_;
  pthread_t owner_;
};

class DeviceHooks final : public shader::Hooks {
 public:
  DeviceHooks(Process& p, uint32_t gpu_id) : p_(p), gpu_id_(gpu_id) { trace_groups = trace_emu::on(); }
  // SQ_INTERRUPT_MSG: the event id is the message's 24 low bits (kfd_int_process_v9.c).
  void interrupt(uint32_t m0) override { p_.raise_signal_event(m0 & 0xffffff, 24); }
  void group_ran(uint64_t kernel_object, const uint32_t id[3], unsigned worker, uint64_t t0, uint64_t t1) override {
    trace_emu::workgroup(gpu_id_, kernel_object, id, worker, t0, t1);
  }

 private:
  Process& p_;
  uint32_t gpu_id_;
};

shader::Target target_of(const TargetInfo& t) {
  switch (t.gfx_target_version) {
    case 90006: return shader::Target::gfx906;
    case 90008: return shader::Target::gfx908;
    case 90402: return shader::Target::gfx942;
    default: return shader::Target::gfx90a;
  }
}

shader::ShaderCore& core_for(DeviceState& d) {
  if (shader::ShaderCore* c = d.shader_ready.load(std::memory_order_acquire)) [[likely]] return *c;
  std::lock_guard<std::mutex> lk(shader_build_mutex());
  if (!d.shader) {
    unsigned workers = model().config.workers > 0 ? unsigned(model().config.workers) : 0;
    d.shader = std::make_shared<shader::ShaderCore>(target_of(*d.model->target), workers, d.model->cus,
                                                     d.model->target->max_engine_clk_mhz,
                                                     d.model->target->gb_addr_config);
    d.shader_ready.store(d.shader.get(), std::memory_order_release);
  }
  return *d.shader;
}

// Whether `q` is the queue ALLOC_QUEUE_GWS gave the device's global wave sync to.
bool holds_gws(const DeviceState& d, const Queue& q) {
  return d.gws_queue.load(std::memory_order_acquire) == &q;
}

}  // namespace

namespace {

DispatchResult result_of(const shader::Outcome& o) {
  DispatchResult r;
  using K = shader::Outcome::Kind;
  switch (o.kind) {
    case K::Ok: return r;
    case K::MemoryFault: r.memory_fault = true; break;
    case K::IllegalInstruction: r.error = pm4::queue_error::kIllegalInstruction; break;
    case K::Trap: r.error = pm4::queue_error::kDebugTrap; break;
    // What the emulator cannot execute is reported as the hardware's closest error; the
    // message on stderr says it is the emulator's limit.
    case K::Unimplemented: r.error = pm4::queue_error::kIllegalInstruction; break;
    case K::ScratchTooSmall:
      r.error = pm4::queue_error::kScratchWave64;
      r.scratch_too_small = true;
      break;
    case K::Preempted: r.preempted = true; return r;
    case K::InvalidPacket: r.error = o.error; break;
  }
  r.fault_va = o.fault_va;
  r.message = "kernel dispatch: " + o.message;
  return r;
}

}  // namespace

DispatchResult run_kernel_dispatch(Process& p, DeviceState& d, const Queue& q, uint64_t packet_va,
                                   uint64_t queue_va, uint64_t dispatch_id, LookupCache* lookups) {
  DeviceMemory mem(d, lookups);
  DeviceHooks hooks(p, d.model->gpu_id);
  // SH_HIDDEN_PRIVATE_BASE as SET_SCRATCH_BACKING_VA programmed it (in 64 KiB units).
  const uint64_t private_base = d.scratch_va.load(std::memory_order_acquire) << 16;
  shader::Dispatch sd{packet_va, queue_va, dispatch_id, private_base, &q.dead};
  sd.gws = holds_gws(d, q);
  const std::shared_ptr<const std::vector<uint32_t>> cus = queue_cus(q);
  sd.cus = cus ? cus.get() : &d.model->all_cus;
  return result_of(core_for(d).run(sd, mem, hooks));
}

void prepare_dispatch(DeviceState& d) { (void)core_for(d); }

std::mutex& shader_build_mutex() {
  static auto* mu = new std::mutex;  // never destroyed: an engine thread may build during exit
  return *mu;
}

DispatchResult run_register_dispatch(Process& p, DeviceState& d, const shader::RegisterDispatch& r) {
  DeviceMemory mem(d);
  DeviceHooks hooks(p, d.model->gpu_id);
  return result_of(core_for(d).run_registers(r, mem, hooks));
}

}  // namespace emu
