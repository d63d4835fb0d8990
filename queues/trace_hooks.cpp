// SPDX-License-Identifier: MIT
// The queues layer's trace hooks: packet records, probes from per-context chunks, clock samples.
#include "queues/trace_hooks.h"

#include <cstring>
#include <map>
#include <mutex>

#include "queues/aql_queue.h"
#include "queues/copy_backends.h"
#include "gpu/device.h"
#include "memory/context.h"

namespace queues {
namespace {

static_assert(offsetof(aql::AmdSignal, start_ts) == 32 && offsetof(aql::AmdSignal, end_ts) == 40,
              "trace.cpp reads the probe's stamps at these offsets");

// Probes of one memory context (a Runtime's): chunks of signal memory handed out slot by slot, never reused during
// the context's life (a record keeps its probe until harvested). Past kMaxChunks packets go
// untimed.
struct Probes {
  static constexpr uint32_t kPerChunk = 1024, kMaxChunks = 1024;  // 1 Mi packets, 64 MiB
  mem::Context* rt = nullptr;
  std::mutex mu;
  std::atomic<uint64_t> next{0};
  std::atomic<uint32_t> ready{0};
  std::atomic<uint8_t*> base[kMaxChunks] = {};
  bool sampled = false;
};

// Live memory contexts that traced. Never destroyed: the trace is written by an exit handler that may
// run after this library's static destructors.
struct Registry {
  std::mutex mu;
  std::map<mem::Context*, Probes*> probes;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}
std::atomic<uint64_t> g_epoch{1};      // bumped when a context closes (thread caches go stale)

struct Cache {
  mem::Context* rt = nullptr;
  uint64_t epoch = 0;
  Probes* p = nullptr;
};
thread_local Cache t_cache;

void sample_clocks(mem::Context& rt) {
  for (const auto& g : rt.platform().devices()) {
    auto c = g->clock_counters();
    if (c) trace::clock_sample(g->gpu_id, c->gpu_clock_counter, c->system_clock_counter, c->system_clock_freq);
  }
}

void stop_hook() {
  std::lock_guard lk(registry().mu);
  for (auto& [rt, p] : registry().probes) sample_clocks(*rt);
}

Probes* probes_of(mem::Context& rt) {
  const uint64_t epoch = g_epoch.load(std::memory_order_acquire);
  if (t_cache.rt == &rt && t_cache.epoch == epoch) return t_cache.p;
  std::lock_guard lk(registry().mu);
  Probes*& p = registry().probes[&rt];
  if (!p) {
    p = new Probes;
    p->rt = &rt;
    sample_clocks(rt);
    trace::add_stop_hook(stop_hook);
  }
  t_cache = {&rt, epoch, p};
  return p;
}

// A fresh probe (value 1, no stamps), or 0 when none can be had.
uint64_t take_probe(mem::Context& rt) {
  Probes* p = probes_of(rt);
  const uint64_t i = p->next.fetch_add(1, std::memory_order_relaxed);
  const uint64_t chunk = i / Probes::kPerChunk;
  if (chunk >= Probes::kMaxChunks) return 0;
  uint8_t* base = p->base[chunk].load(std::memory_order_acquire);
  if (!base) {
    std::lock_guard lk(p->mu);
    base = p->base[chunk].load(std::memory_order_acquire);
    if (!base) {
      auto m = rt.allocate_signal_memory(size_t(Probes::kPerChunk) * sizeof(aql::AmdSignal));
      if (!m) return 0;
      base = static_cast<uint8_t*>(*m);
      p->base[chunk].store(base, std::memory_order_release);
    }
  }
  auto* s = reinterpret_cast<aql::AmdSignal*>(base + (i % Probes::kPerChunk) * sizeof(aql::AmdSignal));
  std::memset(static_cast<void*>(s), 0, sizeof *s);
  s->kind = aql::kSignalKindUser;
  s->value = 1;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  return reinterpret_cast<uint64_t>(s);
}

uint64_t load64(const Packet& p, size_t byte) {
  uint64_t v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(p.dw) + byte, 8);
  return v;
}

void store64(Packet& p, size_t byte, uint64_t v) { std::memcpy(reinterpret_cast<uint8_t*>(p.dw) + byte, &v, 8); }

// What the packet is, from its header (and a dispatch's fields).
trace::Record describe(const Packet& p) {
  trace::Record r;
  const uint16_t h = p.header();
  r.acquire = aql::header_acquire(h);
  r.release = aql::header_release(h);
  r.completion = load64(p, offsetof(aql::KernelDispatchPacket, completion_signal));
  switch (aql::header_type(h)) {
    case aql::kTypeKernelDispatch: {
      aql::KernelDispatchPacket k;
      std::memcpy(&k, p.dw, sizeof k);
      r.op = trace::Op::Dispatch;
      r.grid[0] = k.grid_size_x, r.grid[1] = k.grid_size_y, r.grid[2] = k.grid_size_z;
      r.workgroup[0] = k.workgroup_size_x, r.workgroup[1] = k.workgroup_size_y, r.workgroup[2] = k.workgroup_size_z;
      r.object = k.kernel_object;
      break;
    }
    case aql::kTypeBarrierAnd:
    case aql::kTypeBarrierOr: {
      aql::BarrierPacket b;
      std::memcpy(&b, p.dw, sizeof b);
      for (uint64_t d : b.dep_signal)
        if (d) r.deps[r.ndeps++] = d;
      r.op = aql::header_type(h) == aql::kTypeBarrierOr ? trace::Op::BarrierOr
             : r.ndeps == 0                            ? trace::Op::Marker
                                                       : trace::Op::BarrierAnd;
      break;
    }
    case aql::kTypeVendor: {
      aql::BarrierValuePacket v;
      std::memcpy(&v, p.dw, sizeof v);
      r.op = v.format == aql::kVendorBarrierValue ? trace::Op::BarrierValue : trace::Op::Vendor;
      if (r.op == trace::Op::BarrierValue) r.deps[r.ndeps++] = v.signal, r.operand = v.value;
      break;
    }
    default: r.op = trace::Op::Vendor; break;
  }
  return r;
}

// The CP stamps start_ts/end_ts only on queues with ENABLE_PROFILING, which the runtime may set
// while the queue runs (ROCr amd_hsa_queue.h AMD_QUEUE_PROPERTIES_ENABLE_PROFILING).
void enable_profiling(AqlQueue& q) {
  uint32_t* props = &q.amd_queue()->queue_properties;
  if (!(__atomic_load_n(props, __ATOMIC_RELAXED) & scratch::kPropEnableProfiling))
    __atomic_fetch_or(props, scratch::kPropEnableProfiling, __ATOMIC_RELEASE);
}

}  // namespace

std::span<Packet> trace_aql_slow(mem::Context& rt, AqlQueue& q, std::span<Packet> pkts, int& dispatch) {
  thread_local std::vector<Packet> out;
  out.clear();
  const uint64_t t = trace::now_ns();
  const uint64_t first = q.write_index();
  const int old_dispatch = dispatch;
  enable_profiling(q);
  for (size_t i = 0; i < pkts.size(); ++i) {
    Packet p = pkts[i];
    trace::Record r = describe(p);
    r.kind = trace::Kind::Packet;
    r.t0 = t;
    r.gpu = q.gpu_id();
    r.queue = q.queue_id();
    r.index = first + out.size();  // a scratch grow's packets, written first, shift it
    r.probe = take_probe(rt);
    if (int(i) == old_dispatch) dispatch = int(out.size());
    if (r.probe) store64(p, offsetof(aql::KernelDispatchPacket, completion_signal), r.probe);
    out.push_back(p);
    if (r.probe && r.completion) {  // forwards the completion once the probe is stamped
      auto fwd = make_barrier_and(std::span<const uint64_t>(&r.probe, 1), r.completion,
                                  Fence{true, aql::kScopeNone, aql::kScopeNone});
      if (fwd) out.push_back(*fwd);
    }
    trace::emit(r);
  }
  return out;
}

uint64_t trace_copy(mem::Context& rt, uint32_t gpu_id, uint32_t queue_id, const char* path,
                    std::span<const CopyPiece> pieces, const CopyOrder& o, AqlQueue* blit_queue) {
  if (!trace::on()) return 0;
  if (blit_queue) enable_profiling(*blit_queue);
  trace::Record r;
  r.kind = trace::Kind::Copy;
  r.t0 = trace::now_ns();
  r.name = path;
  r.gpu = gpu_id;
  r.queue = queue_id;
  r.op = pieces.empty() ? trace::Op::Marker : pieces[0].op == CopyPiece::Op::Fill ? trace::Op::Fill
                                            : pieces[0].op == CopyPiece::Op::Rect ? trace::Op::CopyRect
                                                                                 : trace::Op::CopyLinear;
  for (const CopyPiece& p : pieces)
    r.object += p.op == CopyPiece::Op::Rect ? uint64_t(p.rect.width) * p.rect.height * p.rect.depth : p.bytes;
  for (const CopyWait& w : o.waits)
    if (r.ndeps < 5) r.deps[r.ndeps++] = w.signal, r.operand = w.operand;
  r.completion = o.done.value_address ? o.done.value_address - offsetof(aql::AmdSignal, value) : 0;
  r.acquire = r.release = aql::kScopeSystem;  // a copy's writes are visible once its signal moved
  r.probe = take_probe(rt);
  if (r.probe && !blit_queue) reinterpret_cast<aql::AmdSignal*>(r.probe)->value = 0;  // SDMA: stamps only
  trace::emit(r);
  return r.probe;
}

void trace_pm4(uint32_t gpu_id, uint32_t queue_id, uint64_t dwords) {
  if (!trace::on()) return;
  trace::Record r;
  r.kind = trace::Kind::Pm4;
  r.t0 = trace::now_ns();
  r.gpu = gpu_id;
  r.queue = queue_id;
  r.op = trace::Op::Pm4Commands;
  r.object = dwords;
  trace::emit(r);
}

uint64_t trace_pm4_command(mem::Context& rt, trace::Record r) {
  r.kind = trace::Kind::Pm4;
  r.t0 = trace::now_ns();
  r.probe = take_probe(rt);
  // Stamps only: the probe's value is never waited on (harvest() reads it once end_ts is set).
  if (r.probe) reinterpret_cast<aql::AmdSignal*>(r.probe)->value = 0;
  trace::emit(r);
  return r.probe;
}

void trace_memory_closing(mem::Context& rt) {
  Probes* p = nullptr;
  {
    std::lock_guard lk(registry().mu);
    auto it = registry().probes.find(&rt);
    if (it == registry().probes.end()) return;
    p = it->second;
    registry().probes.erase(it);
    g_epoch.fetch_add(1, std::memory_order_acq_rel);
    sample_clocks(rt);
  }
  trace::harvest(true);  // reads what was stamped; the rest loses its probe with the memory
  for (auto& b : p->base)
    if (uint8_t* m = b.load()) (void)rt.free(m);
  delete p;
}

}  // namespace queues
