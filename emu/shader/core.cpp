// SPDX-License-Identifier: MIT
// ShaderCore: takes a dispatch (AQL packet or PM4 registers) and runs its workgroups, co-resident as a GPU holds them, on worker threads.
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>

#include "emu/shader/cache.h"
#include "emu/shader/guest.h"
#include "emu/shader/decode.h"
#include "emu/shader/dispatch.h"
#include "emu/shader/gws.h"
#include "emu/shader/host_cpu.h"

namespace emu::shader {

namespace {
// A worker thread may use every CPU the process's main thread may: the command processor that
// starts it keeps off its creator's CPU (emu/command_processor.cpp, leave_creators_cpu), and a
// new thread inherits that restriction, which would put every worker on the CPUs left.
void use_process_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(getpid(), sizeof set, &set) == 0) (void)sched_setaffinity(0, sizeof set, &set);
}
}  // namespace

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
    use_process_cpus();
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

// A shader library built for x86-64-v3 (emu/shader/meson.build) stops here, naming what is
// missing, on a CPU without AVX2/FMA/BMI2 rather than dying of SIGILL in a lane loop.
void require_host_isa() {
#if defined(EMU_SHADER_X86_V3)
  const HostCpu& c = host_cpu();
  if (!c.avx2 || !c.fma || !c.bmi2) {
    std::fprintf(stderr, "kfdemu: the shader core was built for x86-64-v3 (AVX2, FMA, BMI2) and this CPU "
                 "lacks them; rebuild with -Demu_shader_isa=baseline\n");
    std::abort();
  }
#endif
}

class Core {
 public:
  Core(Target t, unsigned workers, unsigned compute_units, uint32_t clock_mhz, uint32_t addr_config)
      : target(t), code(t), nworkers(workers), cus(compute_units), engine_clock_mhz(clock_mhz),
        gb_addr_config(addr_config) {
    require_host_isa();
    if (nworkers == 0) nworkers = std::max(1u, std::thread::hardware_concurrency());
    // Here (the command processor's warm-up, while the host is still setting up) rather than in
    // the first decode; the opcode table itself fills as it is used.
    prepare_decoder(t);
  }
  Target target;
  DecodeCache code;
  unsigned nworkers;
  unsigned cus;  // compute units workgroups are resident on (0: no limit but scratch)
  uint32_t engine_clock_mhz;  // s_memtime's rate
  uint32_t gb_addr_config;    // the swizzled image layouts'
  Gws gws;       // the device's global wave sync resources
  Pool pool;
};

namespace {

// Executes the wave until it waits at a barrier, ends, faults, sleeps (s_sleep, a global wave
// sync wait) or has used its time slice: switching waves lets a wave that spins on memory another
// wave writes make progress. Returns whether the wave gave up the core (slice used or yield).
constexpr uint64_t kSlice = 1 << 14;
// Not inlined into the worker: its loop keeps pc, the page and the count in registers.
__attribute__((noinline)) bool run_wave(Wave& w, DecodeCache& code) {
  uint64_t n = 0;
  w.yield = false;
  // The current code page and its base stay in registers: a handler changes w.pc, never the
  // page (only fetch_slow does).
  const CodePage* page = w.page;
  uint64_t base = page ? page->base : 1;  // 1: no page (bases are 4 KiB aligned)
  while (w.runs()) {
    const uint64_t pc = w.pc;
    const unsigned slot = (pc & 4095) >> 2;
    const Inst* in;
    if ((pc & ~uint64_t{4095}) == base && page->ready[slot].load(std::memory_order_acquire)) {
      in = &page->inst[slot];
    } else {
      in = code.fetch_slow(w, pc);
      if (!in) break;
      page = w.page;
      base = page->base;
    }
    w.pc = pc + in->size;
    in->exec(w, *in);
    if (++n == kSlice) break;
  }
  w.instructions += n;
  return w.state == WaveState::Running && (w.yield || n >= kSlice);
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

enum class Step { Done, Ran, Stalled };

// One round over the waves of a workgroup (AMD Vega ISA s_barrier: a barrier releases when every
// wave that has not ended has arrived). Stalled: some wave slept, waits for another workgroup
// (global wave sync) or spun through its whole slice, so another resident workgroup should run.
Step step_group(Group& g, DecodeCache& code) {
  DispatchCtx& ctx = *g.ctx;
  unsigned live = 0, waiting = 0;
  bool stalled = false;
  for (unsigned i = 0; i < g.nwaves; ++i) {
    Wave& w = (*g.waves)[i];
    if (preempted(ctx)) return Step::Done;
    if (w.state == WaveState::Running) stalled |= run_wave(w, code);
    if (w.state == WaveState::Fault || ctx.stop.load(std::memory_order_relaxed)) return Step::Done;
    if (w.state != WaveState::Done) ++live;
    if (w.state == WaveState::Barrier) ++waiting;
  }
  if (live == 0) return Step::Done;
  if (waiting == live)
    for (unsigned i = 0; i < g.nwaves; ++i)
      if ((*g.waves)[i].state == WaveState::Barrier) (*g.waves)[i].state = WaveState::Running;
  return stalled ? Step::Stalled : Step::Ran;
}

struct WorkerResult { uint64_t insts = 0, lane_ops = 0; };

uint64_t boot_ns() {  // the trace's clock (emu/trace_emu.h)
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// A workgroup resident on a worker: its waves, register files and LDS, and its scratch slots.
// The group stays put (its waves point at it) while the resident list changes.
struct Resident {
  WorkerStorage* st = nullptr;
  unsigned k = 0;  // index in the worker's storage
  Group* g = nullptr;  // st->group
  uint64_t t0 = 0;  // when it became resident (boot clock), while the emulator traces workgroups
};

// Workgroups a worker claims at once at most (worker()).
constexpr uint64_t kClaimRun = 8;

// Workgroups resident on worker `index` at most: slots index, index + workers, ... below the
// dispatch's residency (Launch::resident).
unsigned worker_slots(const Launch& l, unsigned index, unsigned workers) {
  const uint64_t total = std::min<uint64_t>(l.resident, l.total_groups);
  return total > index ? static_cast<unsigned>((total - index + workers - 1) / workers) : 0;
}

void worker(const Launch& l, DispatchCtx& ctx, DecodeCache& code, unsigned index, unsigned workers,
            std::atomic<uint64_t>& next, WorkerResult& res) {
  // Register files and LDS are reused across dispatches on this thread; the translation caches,
  // code pages and scratch slot views only within the dispatch (mappings may have changed since
  // the last one): a storage is bound to a dispatch (its serial) once.
  // The resident list and free slots too are this thread's, kept between dispatches (no
  // allocation per dispatch; a worker runs one dispatch at a time).
  struct ThreadState {
    std::vector<std::unique_ptr<WorkerStorage>> storage;
    std::vector<Resident> resident;
    std::vector<unsigned> free_slots;
  };
  thread_local ThreadState ts;
  std::vector<std::unique_ptr<WorkerStorage>>& storage = ts.storage;
  const unsigned cap = std::max(1u, worker_slots(l, index, workers));
  // The worker stands for a share of the CUs: its workgroups share an L1, empty at the start.
  L1* l1 = ctx.cache ? ctx.cache->acquire_l1() : nullptr;
  std::vector<Resident>& resident = ts.resident;
  std::vector<unsigned>& free_slots = ts.free_slots;
  resident.clear();
  free_slots.clear();
  for (unsigned k = cap; k-- > 0;) free_slots.push_back(k);
  // Workgroups are claimed in runs of neighbours [claimed, claimed_end): neighbouring workgroups
  // write neighbouring memory, and a run on one worker keeps the memory model's per-page state
  // on one core (one at a time, both workers stored into the same pages and its cache lines
  // moved between the cores on every store). A run is never longer than the worker's free
  // slots, so every claimed workgroup has a slot to become resident in (what a workgroup waits
  // for, another worker never holds back), nor than a share of what is left, so the last
  // workgroups still spread over the workers.
  uint64_t claimed = 0, claimed_end = 0;
  bool admit = true;
  for (;;) {
    // A workgroup joins the resident ones when the worker has none, or when those it has stall
    // (the hardware keeps every workgroup that fits resident; the emulator brings them in as
    // the ones it runs wait on others).
    if (admit && !free_slots.empty() && !ctx.stop.load(std::memory_order_relaxed) && !preempted(ctx)) {
      if (claimed == claimed_end) {
        const uint64_t seen = next.load(std::memory_order_relaxed);
        const uint64_t left = l.total_groups > seen ? l.total_groups - seen : 0;
        const uint64_t run = std::clamp<uint64_t>(left / (4 * uint64_t{workers}), 1,
                                                  std::min<uint64_t>(kClaimRun, free_slots.size()));
        claimed = next.fetch_add(run, std::memory_order_relaxed);
        claimed_end = std::min(claimed + run, l.total_groups);
        if (claimed > claimed_end) claimed = claimed_end;
      }
      if (claimed < claimed_end) {
        const uint64_t i = claimed++;
        const unsigned k = free_slots.back();
        free_slots.pop_back();
        while (storage.size() <= k) storage.push_back(std::make_unique<WorkerStorage>());
        WorkerStorage& st = *storage[k];
        const unsigned slot = k * workers + index;  // the scratch slots it owns (dispatch.h)
        if (st.serial != ctx.epoch) {
          for (Wave& w : st.waves) {
            for (Range& r : w.cache) r = Range{};
            w.page = w.page2 = nullptr;
          }
          bind_scratch_slots(l, *ctx.mem, slot, st);
          st.serial = ctx.epoch;
        }
        resident.push_back(Resident{&st, k, &st.group});
        setup_group(l, ctx, slot, i, st, *resident.back().g);
        resident.back().g->l1 = l1;
        if (ctx.hooks->trace_groups) resident.back().t0 = boot_ns();
      }
    }
    if (resident.empty()) break;
    bool stalled = false, ended = false;
    for (size_t r = 0; r < resident.size();) {
      Resident& rg = resident[r];
      const Step s = step_group(*rg.g, code);
      if (s == Step::Done) {
        if (rg.t0) ctx.hooks->group_ran(ctx.kernel_object, rg.g->id, index, rg.t0, boot_ns());
        for (unsigned w = 0; w < rg.g->nwaves; ++w) {
          res.insts += rg.st->waves[w].instructions;
          res.lane_ops += rg.st->waves[w].lane_ops;
        }
        free_slots.push_back(rg.k);
        resident.erase(resident.begin() + static_cast<std::ptrdiff_t>(r));
        ended = true;
        continue;
      }
      stalled |= s == Step::Stalled;
      ++r;
    }
    if (ctx.stop.load(std::memory_order_relaxed)) {
      resident.clear();
      break;
    }
    admit = stalled || ended;
    if (stalled && free_slots.empty()) std::this_thread::yield();  // waits on other workers
  }
  if (l1) ctx.cache->release_l1(l1);
}

}  // namespace

ShaderCore::ShaderCore(Target t, unsigned workers, unsigned cus, uint32_t engine_clock_mhz, uint32_t gb_addr_config)
    : core_(std::make_unique<Core>(t, workers, cus, engine_clock_mhz ? engine_clock_mhz : kDefaultEngineClockMhz,
                                   gb_addr_config)) {}
ShaderCore::~ShaderCore() = default;
unsigned ShaderCore::workers() const { return core_->nworkers; }
void ShaderCore::flush_code_cache() { core_->code.clear(); }

namespace {

// A queue whose CU mask enables no compute unit: the workgroup distributor never places a
// workgroup, so the dispatch waits (kfd_mqd_manager.c: "Returning with no CU's enabled will hang
// the queue") until the queue is preempted. Said once per process, naming the kernel.
Outcome hang_without_cus(const Launch& l, Memory& mem, const std::atomic<bool>* preempt) {
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    std::fprintf(stderr, "kfdemu: the queue's CU mask enables no compute unit: %s never starts (a GPU hangs here "
                 "until the queue is destroyed)\n", kernel_name(mem, l.kernel_object, l.entry).c_str());
  if (!preempt) {
    Outcome o;
    o.kind = Outcome::Kind::Unimplemented;
    o.message = "a dispatch on a queue whose CU mask enables no compute unit, without a way to preempt it";
    return o;
  }
  while (!preempt->load(std::memory_order_acquire)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Outcome o;
  o.kind = Outcome::Kind::Preempted;
  return o;
}

Outcome run_launch(Core& core, Launch& l, Memory& mem, Hooks& hooks,
                   const std::atomic<bool>* preempt, bool dispatch_gws, const std::vector<uint32_t>* cus) {
  l.cus = cus;
  if (cus && cus->empty()) return hang_without_cus(l, mem, preempt);
  const unsigned ncus = cus ? static_cast<unsigned>(cus->size()) : core.cus;
  // (Only compared with total_groups: one workgroup needs none of resident_groups' divisions.)
  l.resident = l.total_groups <= 1 ? 1 : std::min<uint64_t>(l.max_workers, resident_groups(l, ncus));
  DispatchCtx ctx;
  ctx.preempt = preempt;
  ctx.mem = &mem;
  ctx.hooks = &hooks;
  ctx.code = &core.code;
  ctx.target = core.target;
  ctx.engine_clock_mhz = core.engine_clock_mhz;
  ctx.gb_addr_config = core.gb_addr_config;
  // Distinct per run() of every core: a worker's storage is bound to one dispatch by it.
  static std::atomic<uint64_t> epochs{0};
  ctx.epoch = epochs.fetch_add(1) + 1;
  ctx.cache = mem.cache();
  ctx.entry = l.entry;
  ctx.kernel_object = l.kernel_object;
  if (ctx.cache) ctx.cache->dispatch_begin();
  std::atomic<uint64_t> next{0};
  ctx.gws = dispatch_gws ? &core.gws : nullptr;
  // Each worker keeps up to its share of the resident workgroups, each on scratch slots of its
  // own (dispatch.h).
  const unsigned n = static_cast<unsigned>(
      std::min<uint64_t>(std::min<uint64_t>(core.nworkers, l.resident), l.total_groups));
  Outcome out;
  if (n <= 1) {  // one worker, this thread: no job object, no pool
    WorkerResult res;
    {
      EmulatorThreadScope gpu_work;
      worker(l, ctx, core.code, 0, 1, next, res);
    }
    if (ctx.have_error.load()) out = ctx.error;
    out.wave_instructions += res.insts;
    out.lane_ops += res.lane_ops;
  } else {
    std::vector<WorkerResult> res(n);
    std::function<void(unsigned)> job = [&](unsigned i) {
      EmulatorThreadScope gpu_work;
      worker(l, ctx, core.code, i, n, next, res[i]);
    };
    std::unique_lock busy(core.pool.busy, std::try_to_lock);
    if (busy) {
      core.pool.run(n, job);
    } else {  // another dispatch holds the pool: use short-lived threads
      std::vector<std::thread> threads;
      for (unsigned i = 1; i < n; ++i)
        threads.emplace_back([&job, i] {
          use_process_cpus();
          job(i);
        });
      job(0);
      for (auto& t : threads) t.join();
    }
    if (ctx.have_error.load()) out = ctx.error;
    for (auto& r : res) { out.wave_instructions += r.insts; out.lane_ops += r.lane_ops; }
  }
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
  return run_launch(*core_, l, mem, hooks, d.preempt, d.gws, d.cus);
}

Outcome ShaderCore::run_registers(const RegisterDispatch& r, Memory& mem, Hooks& hooks) {
  Launch l;
  Outcome bad = read_launch(r, core_->target, l);
  if (!bad.ok()) return bad;
  return run_launch(*core_, l, mem, hooks, r.preempt, r.gws, r.cus);
}

}  // namespace emu::shader
