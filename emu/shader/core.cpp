// SPDX-License-Identifier: MIT
// ShaderCore: takes a dispatch (AQL packet or PM4 registers) and runs its workgroups on worker threads.
#include <time.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

#include "emu/shader/cache.h"
#include "emu/shader/decode.h"
#include "emu/shader/dispatch.h"

namespace emu::shader {

// Persistent host threads for multi-workgroup dispatches (thread start-up would otherwise
// dominate small dispatches). The calling thread takes part as worker 0.
class Pool {
 public:
  ~Pool() {
    { std::lock_guard l(mu_); quit_ = true; }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // Runs f(0..n-1) concurrently and returns when all are done.
  void run(unsigned n, const std::function<void(unsigned)>& f) {
    {
      std::lock_guard l(mu_);
      while (threads_.size() + 1 < n) {
        unsigned idx = static_cast<unsigned>(threads_.size()) + 1;
        threads_.emplace_back([this, idx] { loop(idx); });
      }
      job_ = &f;
      want_ = n;
      pending_ = n - 1;
      ++gen_;
    }
    cv_.notify_all();
    f(0);
    std::unique_lock l(mu_);
    done_.wait(l, [&] { return pending_ == 0; });
    job_ = nullptr;
  }
  std::mutex busy;  // one dispatch at a time uses the pool

 private:
  void loop(unsigned idx) {
    uint64_t seen = 0;
    for (;;) {
      std::unique_lock l(mu_);
      cv_.wait(l, [&] { return quit_ || (gen_ != seen && idx < want_); });
      if (quit_) return;
      seen = gen_;
      const auto* f = job_;
      l.unlock();
      (*f)(idx);
      l.lock();
      if (--pending_ == 0) done_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(unsigned)>* job_ = nullptr;
  uint64_t gen_ = 0;
  unsigned want_ = 0, pending_ = 0;
  bool quit_ = false;
};

class Core {
 public:
  Core(Target t, unsigned workers) : target(t), code(t), nworkers(workers) {
    if (nworkers == 0) nworkers = std::max(1u, std::thread::hardware_concurrency());
    (void)op_table(t);
  }
  Target target;
  DecodeCache code;
  unsigned nworkers;
  std::atomic<uint64_t> epochs{0};
  Pool pool;
};

namespace {

// Executes the wave until it waits at a barrier, ends, faults, sleeps (s_sleep) or has used
// its time slice: switching waves lets a wave that spins on memory another wave of its
// workgroup will write make progress.
constexpr uint64_t kSlice = 1 << 14;
void run_wave(Wave& w, DecodeCache& code) {
  uint64_t n = 0;
  w.yield = false;
  while (w.state == WaveState::Running && !w.yield && n < kSlice) {
    const Inst* in = code.fetch(w, w.pc);
    if (!in) break;
    w.pc += in->size;
    in->exec(w, *in);
    ++n;
  }
  w.instructions += n;
}

// Whether the dispatch was asked to stop (Dispatch::preempt); the first to see it records the
// outcome, unless an error came first.
bool preempted(DispatchCtx& ctx) {
  if (!ctx.preempt || !ctx.preempt->load(std::memory_order_relaxed)) return false;
  bool expected = false;
  if (ctx.have_error.compare_exchange_strong(expected, true)) {
    ctx.error.kind = Outcome::Kind::Preempted;
    ctx.error.message = "preempted";
  }
  ctx.stop.store(true, std::memory_order_relaxed);
  return true;
}

// Runs all waves of one workgroup: round robin between barriers (AMD Vega ISA s_barrier: a barrier
// releases when every wave that has not ended has arrived).
void run_group(Group& g, DecodeCache& code) {
  DispatchCtx& ctx = *g.ctx;
  for (;;) {
    unsigned live = 0, waiting = 0;
    for (unsigned i = 0; i < g.nwaves; ++i) {
      Wave& w = (*g.waves)[i];
      if (preempted(ctx)) return;
      if (w.state == WaveState::Running) run_wave(w, code);
      if (w.yield && g.nwaves == 1) std::this_thread::yield();  // s_sleep: let others run
      if (w.state == WaveState::Fault || ctx.stop.load(std::memory_order_relaxed)) return;
      if (w.state != WaveState::Done) ++live;
      if (w.state == WaveState::Barrier) ++waiting;
    }
    if (live == 0) return;
    if (waiting == live)
      for (unsigned i = 0; i < g.nwaves; ++i)
        if ((*g.waves)[i].state == WaveState::Barrier) (*g.waves)[i].state = WaveState::Running;
  }
}

struct WorkerResult { uint64_t insts = 0, lane_ops = 0; };

uint64_t boot_ns() {  // the trace's clock (emu/trace_emu.h)
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void worker(const Launch& l, DispatchCtx& ctx, DecodeCache& code, unsigned index,
            std::atomic<uint64_t>& next, WorkerResult& res) {
  // Register files and LDS are reused across dispatches on this thread; the translation caches
  // and scratch slot views are not (mappings may have changed since the last dispatch).
  thread_local WorkerStorage st;
  for (Wave& w : st.waves)
    for (Range& r : w.cache) r = Range{};
  bind_scratch_slots(l, *ctx.mem, index, st);
  // The worker is one CU: its workgroups share an L1, empty at the start of the dispatch.
  L1* l1 = ctx.cache ? ctx.cache->acquire_l1() : nullptr;
  for (;;) {
    uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
    if (i >= l.total_groups || ctx.stop.load(std::memory_order_relaxed) || preempted(ctx)) break;
    Group g;
    setup_group(l, ctx, index, i, st, g);
    g.l1 = l1;
    const uint64_t t0 = ctx.hooks->trace_groups ? boot_ns() : 0;
    run_group(g, code);
    if (t0) ctx.hooks->group_ran(ctx.kernel_object, g.id, index, t0, boot_ns());
    for (unsigned w = 0; w < g.nwaves; ++w) {
      res.insts += st.waves[w].instructions;
      res.lane_ops += st.waves[w].lane_ops;
    }
  }
  if (l1) ctx.cache->release_l1(l1);
}

}  // namespace

ShaderCore::ShaderCore(Target t, unsigned workers) : core_(std::make_unique<Core>(t, workers)) {}
ShaderCore::~ShaderCore() = default;
unsigned ShaderCore::workers() const { return core_->nworkers; }
void ShaderCore::flush_code_cache() { core_->code.clear(); }

namespace {

Outcome run_launch(Core& core, const Launch& l, Memory& mem, Hooks& hooks,
                   const std::atomic<bool>* preempt) {
  DispatchCtx ctx;
  ctx.preempt = preempt;
  ctx.mem = &mem;
  ctx.hooks = &hooks;
  ctx.code = &core.code;
  ctx.target = core.target;
  ctx.epoch = core.epochs.fetch_add(1) + 1;
  ctx.cache = mem.cache();
  ctx.entry = l.entry;
  ctx.kernel_object = l.kernel_object;
  if (ctx.cache) ctx.cache->dispatch_begin();
  std::atomic<uint64_t> next{0};
  // Each worker runs one workgroup at a time on scratch slots of its own (dispatch.h).
  unsigned n = static_cast<unsigned>(
      std::min<uint64_t>(std::min(core.nworkers, l.max_workers), l.total_groups));
  std::vector<WorkerResult> res(std::max(1u, n));
  std::function<void(unsigned)> job = [&](unsigned i) {
    worker(l, ctx, core.code, i, next, res[i]);
  };
  std::unique_lock busy(core.pool.busy, std::try_to_lock);
  if (n <= 1) {
    job(0);
  } else if (busy) {
    core.pool.run(n, job);
  } else {  // another dispatch holds the pool: use short-lived threads
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < n; ++i) threads.emplace_back(job, i);
    job(0);
    for (auto& t : threads) t.join();
  }
  Outcome out;
  if (ctx.have_error.load()) out = ctx.error;
  for (auto& r : res) { out.wave_instructions += r.insts; out.lane_ops += r.lane_ops; }
  if (ctx.cache) {
    out.memory = std::move(ctx.report);
    report_memory(*ctx.cache, mem, l, out.memory);
    ctx.cache->dispatch_end();
  }
  return out;
}

}  // namespace

Outcome ShaderCore::run(const Dispatch& d, Memory& mem, Hooks& hooks) {
  Launch l;
  Outcome bad = read_launch(d, core_->target, mem, l);
  if (!bad.ok()) return bad;
  return run_launch(*core_, l, mem, hooks, d.preempt);
}

Outcome ShaderCore::run_registers(const RegisterDispatch& r, Memory& mem, Hooks& hooks) {
  Launch l;
  Outcome bad = read_launch(r, core_->target, l);
  if (!bad.ok()) return bad;
  return run_launch(*core_, l, mem, hooks, r.preempt);
}

}  // namespace emu::shader
