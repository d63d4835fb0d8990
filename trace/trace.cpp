// SPDX-License-Identifier: MIT
// The trace recorder: per-thread record buffers, sessions (KFDRT_TRACE or start/stop), probes, clocks.
#include "trace/trace.h"

#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "trace/trace_file.h"
#include "trace/trace_internal.h"

namespace trace {
namespace detail {
std::atomic<bool> g_on{false};
}  // namespace detail

namespace {

// amd_signal_t offsets of start_ts and end_ts (ROCr amd_hsa_signal.h; pm4/aql.h asserts them).
constexpr size_t kStartTsOffset = 32, kEndTsOffset = 40;

State& state() {
  static State* s = new State;  // never destroyed: other libraries' exit handlers may still trace
  return *s;
}

std::atomic<uint64_t> g_session{0};

struct Local {
  ThreadBuf* buf = nullptr;
  uint32_t woken = 0;
  std::unordered_set<uint64_t> named;
  uint64_t named_session = 0;
};
thread_local Local t_local;

ThreadBuf* new_buffer(uint64_t session) {
  auto* b = new ThreadBuf;
  b->session = session;
  b->head = b->tail = new Chunk;
  State& s = state();
  std::lock_guard lk(s.mu);
  b->tid = uint32_t(s.bufs.size()) + 1;
  s.bufs.push_back(b);  // kept for the process: the thread may still hold it after a stop
  return b;
}

void exit_handler() {
  if (on()) {
    if (auto st = stop(); !st) std::fprintf(stderr, "kfdrt: %s\n", st.error().message.c_str());
  }
}

// KFDRT_TRACE=path starts a session when the library loads.
struct EnvStart {
  EnvStart() {
    const char* p = std::getenv("KFDRT_TRACE");
    if (!p || !*p) return;
    if (auto st = start(p); !st) std::fprintf(stderr, "kfdrt: KFDRT_TRACE: %s\n", st.error().message.c_str());
  }
} g_env_start;

}  // namespace

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

const char* op_name(Op op) {
  switch (op) {
    case Op::Dispatch: return "dispatch";
    case Op::BarrierAnd: return "barrier-and";
    case Op::BarrierOr: return "barrier-or";
    case Op::Marker: return "marker";
    case Op::BarrierValue: return "barrier-value";
    case Op::Vendor: return "vendor";
    case Op::Pm4Dispatch: return "pm4-dispatch";
    case Op::Pm4Commands: return "pm4-commands";
    case Op::CopyLinear: return "copy";
    case Op::Fill: return "fill";
    case Op::CopyRect: return "copy-rect";
    case Op::None: return "none";
  }
  return "?";
}

Record* emit(const Record& r) {
  const uint64_t session = g_session.load(std::memory_order_acquire);
  ThreadBuf* b = t_local.buf;
  if (!b || b->session != session) b = t_local.buf = new_buffer(session);
  Chunk* c = b->tail;
  uint32_t n = c->used.load(std::memory_order_relaxed);
  if (n == Chunk::kRecords) {
    auto* next = new Chunk;
    c->next.store(next, std::memory_order_release);
    b->tail = c = next;
    n = 0;
  }
  c->r[n] = r;
  c->used.store(n + 1, std::memory_order_release);
  return &c->r[n];
}

base::Status start(const std::string& p) {
  if (p.empty()) return base::Error::msg("trace start: empty path", EINVAL);
  State& s = state();
  {
    std::lock_guard lk(s.mu);
    if (!s.path.empty()) return base::Error::msg("trace start: a session writing " + s.path + " is running", EBUSY);
    s.path = p;
    s.kernels.clear();
    s.clocks.clear();
    s.t_start = now_ns();
    g_session.fetch_add(1, std::memory_order_acq_rel);
    if (!s.exit_registered) {
      std::atexit(exit_handler);
      s.exit_registered = true;
    }
  }
  detail::g_on.store(true, std::memory_order_release);
  return {};
}

std::string path() {
  State& s = state();
  std::lock_guard lk(s.mu);
  return s.path;
}

void add_stop_hook(void (*fn)()) {
  State& s = state();
  std::lock_guard lk(s.mu);
  for (auto h : s.stop_hooks)
    if (h == fn) return;
  s.stop_hooks.push_back(fn);
}

base::Status stop() {
  State& s = state();
  std::vector<void (*)()> hooks;
  {
    std::lock_guard lk(s.mu);
    if (s.path.empty()) return base::Error::msg("trace stop: no session is running", EINVAL);
    hooks = s.stop_hooks;
  }
  for (auto h : hooks) h();  // fresh clock samples while the devices are still open
  harvest(false);
  detail::g_on.store(false, std::memory_order_release);
  std::string events, file;
  {
    std::lock_guard lk(s.mu);
    events = render_events(s, g_session.load(std::memory_order_acquire));
    file = s.path;
    s.path.clear();
  }
  std::string err = write_events(file, events);
  if (!err.empty()) return base::Error::msg(err, EIO);
  return {};
}

void name_kernel(uint64_t kernel_object, const char* name) {
  if (!kernel_object || !name) return;
  Local& l = t_local;
  const uint64_t session = g_session.load(std::memory_order_relaxed);
  if (l.named_session != session) l.named.clear(), l.named_session = session;
  if (!l.named.insert(kernel_object).second) return;  // this thread named it already
  State& s = state();
  std::lock_guard lk(s.mu);
  s.kernels.emplace(kernel_object, name);
}

void clock_sample(uint32_t gpu_id, uint64_t gpu_ticks, uint64_t system_ticks, uint64_t system_hz) {
  if (!gpu_ticks || !system_hz) return;
  State& s = state();
  std::lock_guard lk(s.mu);
  const uint64_t ns = uint64_t((unsigned __int128)system_ticks * 1000000000u / system_hz);
  auto [it, fresh] = s.clocks.try_emplace(gpu_id);
  if (fresh) it->second.first = {gpu_ticks, ns};
  it->second.last = {gpu_ticks, ns};
}

void harvest(bool forget) {
  State& s = state();
  std::lock_guard lk(s.mu);
  const uint64_t session = g_session.load(std::memory_order_acquire);
  for (ThreadBuf* b : s.bufs) {
    if (b->session != session) continue;
    for (Chunk* c = b->head; c; c = c->next.load(std::memory_order_acquire)) {
      const uint32_t n = c->used.load(std::memory_order_acquire);
      for (uint32_t i = 0; i < n; ++i) {
        Record& r = c->r[i];
        if (!r.probe) continue;
        const auto* p = reinterpret_cast<const uint8_t*>(uintptr_t(r.probe));
        const uint64_t end = __atomic_load_n(reinterpret_cast<const uint64_t*>(p + kEndTsOffset), __ATOMIC_ACQUIRE);
        if (end) {
          r.dev_start = __atomic_load_n(reinterpret_cast<const uint64_t*>(p + kStartTsOffset), __ATOMIC_ACQUIRE);
          r.dev_end = end;
          r.flags |= kFlagHarvested;
          r.probe = 0;
        } else if (forget) {
          r.probe = 0;
        }
      }
    }
  }
}

void ApiScope::end() {
  Record r;
  r.kind = Kind::Api;
  r.t0 = t0_;
  r.t1 = now_ns();
  r.name = name_;
  emit(r);
}

void WaitScope::end() {
  Record r;
  r.kind = Kind::Wait;
  r.t0 = t0_;
  r.t1 = now_ns();
  const int64_t d = int64_t(r.t1 - r.t0);
  r.name = d <= spin_ns_ ? "wait (spin)" : d <= spin_ns_ + yield_ns_ ? "wait (yield)" : "wait (block)";
  r.object = signal_;
  r.operand = operand_;
  r.queue = t_local.woken;
  t_local.woken = 0;
  emit(r);
}

void WaitEventsScope::end() {
  Record r;
  r.kind = Kind::WaitEvents;
  r.t0 = t0_;
  r.t1 = now_ns();
  r.name = "WAIT_EVENTS";
  r.object = event_;
  r.queue = woken_;
  r.flags = timeout_ ? kFlagTimeout : 0;
  if (!timeout_) t_local.woken = woken_;
  emit(r);
}

uint32_t last_woken_event() { return t_local.woken; }

}  // namespace trace
