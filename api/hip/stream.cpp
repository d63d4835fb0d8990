// SPDX-License-Identifier: MIT
// Stream ordering on managed queues: dispatches, event markers, waits, host operations, synchronisation.
#include "api/hip/stream.h"

#include <algorithm>
#include <cstring>
#include <span>

namespace hip {

using queues::Command;
using queues::Completion;
namespace aql = queues::aql;

namespace {

// Every command runs after the one before it (a managed queue is in order): a stream's commands
// run one after another even when several streams share a queue. Fence scopes follow the HIP
// programming guide's table of synchronisation and visibility ("Visibility of Zero-Copy Host
// Memory").
constexpr queues::Fence kNoFence{true, aql::kScopeNone, aql::kScopeNone};

hipError_t submit_error(const char* api, const base::Error& e) {
  debug_log(api, e.message);
  hipError_t h = from_error(e, hipErrorLaunchFailure);
  if (h == hipErrorIllegalAddress || h == hipErrorLaunchFailure) report_device_error(api, e);
  return h;
}

}  // namespace

EventRecord::~EventRecord() {
  if (dev) dev->signals().release(std::move(sig));
}

std::shared_ptr<EventRecord> Event::record() const {
  std::lock_guard lk(mu_);
  return rec_;
}

void Event::set_record(std::shared_ptr<EventRecord> r) {
  std::lock_guard lk(mu_);
  rec_ = std::move(r);
}

base::Result<std::shared_ptr<Stream>> Stream::create(Device& dev, queues::ManagedQueue& q, unsigned flags,
                                                    int priority, bool is_null) {
  std::shared_ptr<Stream> s(new Stream(dev, q, flags, priority, is_null));
  KFD_ASSIGN(auto timeline, dev.qrt().create_signal(kStart));
  s->timeline_ = std::move(timeline);
  // Only the device reads the host-progress signal, so it needs no interrupt event.
  KFD_ASSIGN(s->host_progress_, dev.qrt().create_signal(0, queues::SignalKind::Polling));
  return s;
}

Stream::~Stream() {
  {
    std::lock_guard lk(work_mu_);
    work_stop_ = true;
  }
  work_cv_.notify_all();
  if (worker_.joinable()) {
    if (worker_.get_id() == std::this_thread::get_id()) worker_.detach();
    else worker_.join();
  }
}

void Stream::drop_retained() {
  uint64_t done = completed();
  while (!retained_.empty() && retained_.front().count <= done) retained_.pop_front();
}

// Legacy default-stream semantics: the null stream waits for every blocking stream of its device,
// and a blocking stream waits for the null stream. Streams on the same queue are already ordered.
base::Status Stream::legacy_deps(Deps& deps) {
  if (!may_follow_others()) return {};
  auto depend_on = [&](Stream& o) -> base::Status {
    // Streams on one queue are ordered by it, except for engine operations whose barriers
    // that stream holds back (tail_record pushes them).
    if (&o == this || !o.blocking() || !o.pending()) return {};
    if (&o.q_ == &q_ && !o.chained_.load(std::memory_order_acquire)) return {};
    KFD_ASSIGN(auto rec, o.tail_record());
    if (!rec->done()) deps.push_back(std::move(rec));
    return {};
  };
  if (is_null_) {
    for (auto& o : dev_.streams()) KFD_TRY(depend_on(*o));
  } else if (Stream* n = dev_.null_stream_if_created()) {
    KFD_TRY(depend_on(*n));
  }
  return {};
}

// The k-th counted command of the next submission leaves the timeline at kStart - (n + k + 1):
// this stream is its only writer and its commands complete in order.
Completion Stream::count_next(uint32_t k) const {
  return Completion::to(timeline_.get(), kStart - int64_t(submitted() + k + 1));
}

Command Stream::timeline_marker(aql::FenceScope release, uint32_t k) const {
  return Command::marker(queues::Fence{true, aql::kScopeNone, release}, count_next(k));
}

hipError_t Stream::push(const Deps& deps, std::span<const Command> own, uint32_t counted, const char* api) {
  base::Status st;
  if (deps.empty()) {
    st = q_.submit(own);
  } else {
    std::vector<queues::WaitCondition> conds;
    for (const auto& d : deps) conds.push_back({d->sig.get(), queues::Cond::Eq, 0});
    std::vector<Command> cmds;
    for (size_t i = 0; i < conds.size(); i += Command::kMaxWaits)
      cmds.push_back(Command::barrier(
          std::span(conds).subspan(i, std::min<size_t>(Command::kMaxWaits, conds.size() - i)), kNoFence, {}));
    cmds.insert(cmds.end(), own.begin(), own.end());
    st = q_.submit(cmds);
  }
  if (!st) return submit_error(api, st.error());
  // Written under mu_ only: a plain add published with a release store (no locked instruction).
  submitted_.store(submitted_.load(std::memory_order_relaxed) + counted, std::memory_order_release);
  return hipSuccess;
}

std::shared_ptr<EventRecord> Stream::new_record(unsigned flags, base::Error* err) {
  auto sig = dev_.signals().acquire(1);
  if (!sig) {
    *err = sig.error();
    return nullptr;
  }
  auto rec = std::make_shared<EventRecord>();
  rec->dev = &dev_;
  rec->queue = &q_;
  rec->flags = flags;
  rec->sig = std::move(*sig);
  return rec;
}

hipError_t Stream::launch(const queues::KernelLaunch& l, queues::Fence fence, Event* completion,
                          const char* api) {
  Deps deps;
  if (may_follow_others())
    if (auto st = legacy_deps(deps); !st) return submit_error(api, st.error());
  if (!completion && deps.empty()) {  // the common launch: one dispatch completing the timeline
    std::lock_guard lk(mu_);
    reap();
    if (auto st = q_.dispatch(l, fence, count_next(0)); !st) return submit_error(api, st.error());
    submitted_.store(submitted_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    tail_system_.store(false, std::memory_order_release);
    return hipSuccess;
  }
  std::shared_ptr<EventRecord> rec;
  if (completion) {
    base::Error e;
    if (!(rec = new_record(completion->flags(), &e))) return submit_error(api, e);
  }
  std::lock_guard lk(mu_);
  reap();
  Command own[2];
  uint32_t n = 0;
  if (rec) {
    own[n++] = Command::dispatch(l, fence, Completion::to(rec->sig.get(), 0));
    own[n++] = timeline_marker(aql::kScopeNone, 0);
  } else {
    own[n++] = Command::dispatch(l, fence, count_next(0));
  }
  if (hipError_t e = push(deps, std::span(own, n), 1, api); e != hipSuccess) {
    if (rec) rec->sig->store(0);  // never submitted: the pool may reuse the signal
    return e;
  }
  for (auto& d : deps) retained_.push_back({submitted(), std::move(d)});
  if (rec) {
    retained_.push_back({submitted(), rec});
    completion->set_record(std::move(rec));
  }
  tail_system_.store(false, std::memory_order_release);
  return hipSuccess;
}

bool Stream::launch_prepared(const LaunchKey& key, void (*write_args)(void*, uint8_t*), void* ctx,
                             const char* api, hipError_t* result) {
  if (prepared_count_.load(std::memory_order_relaxed) == 0) return false;
  if (may_follow_others()) {
    Deps deps;
    if (auto st = legacy_deps(deps); !st) {
      *result = submit_error(api, st.error());
      return true;
    }
    if (!deps.empty()) return false;  // (launch asks for the same record again: it is kept)
  }
  std::lock_guard lk(mu_);
  const PreparedLaunch* p = prepared_;
  const PreparedLaunch* end = prepared_ + prepared_count_.load(std::memory_order_relaxed);
  while (p != end && !(p->key == key)) ++p;
  if (p == end) return false;
  reap();
  if (auto st = q_.dispatch_prepared(p->dispatch, write_args, ctx, count_next(0)); !st) {
    *result = submit_error(api, st.error());
    return true;
  }
  submitted_.store(submitted_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  tail_system_.store(false, std::memory_order_release);
  *result = hipSuccess;
  return true;
}

void Stream::prepare_launch(const LaunchKey& key, const queues::KernelLaunch& l, queues::Fence fence,
                            void (*write_image)(void*, uint8_t*), void* ctx) {
  queues::PreparedDispatch d;
  if (auto ok = q_.prepare(l, fence, &d); !ok || !*ok) return;
  std::lock_guard lk(mu_);
  const unsigned count = prepared_count_.load(std::memory_order_relaxed);
  for (unsigned i = 0; i < count; ++i)
    if (prepared_[i].key == key) return;  // another thread's launch prepared it meanwhile
  PreparedLaunch& p = prepared_[prepared_next_];
  prepared_next_ = (prepared_next_ + 1) % kPreparedLaunches;
  p.key = key;
  p.image.resize(l.kernarg_size);  // (an entry's buffer is reused: no allocation once it is large enough)
  if (l.kernarg_size) write_image(ctx, p.image.data());
  d.kernarg_image = p.image.data();
  p.dispatch = d;
  if (count < kPreparedLaunches) prepared_count_.store(count + 1, std::memory_order_relaxed);
}

hipError_t Stream::record(Event& ev) {
  Deps deps;
  if (auto st = legacy_deps(deps); !st) return submit_error("hipEventRecord", st.error());
  base::Error err;
  auto rec = new_record(ev.flags(), &err);
  if (!rec) return submit_error("hipEventRecord", err);
  std::lock_guard lk(mu_);
  reap();
  // A system-scope release unless the event asks for device scope (hipEventReleaseToDevice,
  // hipEventDisableSystemFence). HIP's documentation allows a device-scope release for an event
  // with neither flag, but ROCm's HIP makes a kernel's writes to non-coherent host memory visible
  // after hipEventSynchronize on such an event (its kernels release to system scope), and
  // programs written for it, HIP's own tests among them, read host memory so.
  const bool device_scope = ev.flags() & (hipEventReleaseToDevice | hipEventDisableSystemFence);
  aql::FenceScope rel = device_scope ? aql::kScopeAgent : aql::kScopeSystem;
  const Command own = Command::marker(queues::Fence{true, aql::kScopeAgent, rel}, Completion::to(rec->sig.get(), 0));
  if (hipError_t e = push(deps, std::span(&own, 1), 0, "hipEventRecord"); e != hipSuccess) {
    rec->sig->store(0);
    return e;
  }
  // The marker is not counted: keep its signal (and the records it waited for) until a later
  // counted command retires.
  for (auto& d : deps) retained_.push_back({submitted() + 1, std::move(d)});
  retained_.push_back({submitted() + 1, rec});
  tail_system_.store(false, std::memory_order_release);
  ev.set_record(std::move(rec));
  return hipSuccess;
}

base::Result<std::shared_ptr<EventRecord>> Stream::tail_record() {
  std::lock_guard lk(mu_);
  if (!chain_.empty()) flush_chain();
  if (tail_rec_ && tail_count_ == submitted()) return tail_rec_;
  base::Error err;
  auto rec = new_record(0, &err);
  if (!rec) return err;
  const Command own = Command::marker(kNoFence, Completion::to(rec->sig.get(), 0));
  if (auto st = q_.submit(std::span(&own, 1)); !st) {
    rec->sig->store(0);
    return st.error();
  }
  tail_rec_ = rec;
  tail_count_ = submitted();
  return rec;
}

base::Result<std::shared_ptr<EventRecord>> Stream::system_tail_record() {
  std::lock_guard lk(mu_);
  if (!chain_.empty()) flush_chain();
  base::Error err;
  auto rec = new_record(0, &err);
  if (!rec) return err;
  const Command own =
      Command::marker(queues::Fence{true, aql::kScopeNone, aql::kScopeSystem}, Completion::to(rec->sig.get(), 0));
  if (auto st = q_.submit(std::span(&own, 1)); !st) {
    rec->sig->store(0);
    return st.error();
  }
  // Uncounted: its signal lives until a later counted command retires (as hipEventRecord's).
  retained_.push_back({submitted() + 1, rec});
  return rec;
}

hipError_t Stream::wait(const std::shared_ptr<EventRecord>& rec) {
  if (!rec || rec->done() || rec->queue == &q_) return hipSuccess;  // same queue: already ordered
  std::lock_guard lk(mu_);
  reap();
  const queues::WaitCondition cond{rec->sig.get(), queues::Cond::Eq, 0};
  const Command own = Command::barrier(std::span(&cond, 1), kNoFence, count_next(0));
  if (hipError_t e = push({}, std::span(&own, 1), 1, "hipStreamWaitEvent"); e != hipSuccess) return e;
  retained_.push_back({submitted(), rec});
  return hipSuccess;  // no fence: tail_system_ unchanged
}

hipError_t Stream::wait_for(uint64_t count, const char* api) {
  if (completed() >= count) return hipSuccess;
  auto r = timeline_->wait(queues::Cond::Lt, kStart - int64_t(count) + 1, queues::kForever,
                           dev_.wait_policy());
  if (!r) {
    report_device_error(api, r.error());
    return from_error(r.error(), hipErrorLaunchFailure);
  }
  return hipSuccess;
}

// Whether what every other stream of the device wrote is visible to the host: each is idle and
// ended with a system-scope release. Otherwise their results may still sit in the GPU's L2 (an
// agent-scope release, e.g. a kernel followed by hipEventRecord), and the host must not read the
// memory they wrote before a system-scope release writes the L2 back.
bool Stream::device_released() {
  return dev_.all_streams([this](const Stream& o) {
    return &o == this || (o.tail_system_.load(std::memory_order_acquire) && !o.pending());
  });
}

hipError_t Stream::host_op(HostOp op, Mode mode) {
  Deps deps;
  if (auto st = legacy_deps(deps); !st) return submit_error("stream host operation", st.error());
  std::unique_lock lk(mu_);
  reap();
  const bool released = device_released();
  if (mode != Mode::Worker && deps.empty() && tail_system_ && released && completed() >= submitted()) {
    lk.unlock();
    return op();  // idle: nothing to order against
  }
  Command own[2];
  uint32_t counted = 0;
  // The host reads what earlier commands wrote, on this stream or on others (the GPU's L2 is one
  // for the device): they must end with a system-scope release.
  if (!tail_system_ || !released) own[counted] = timeline_marker(aql::kScopeSystem, counted), ++counted;
  const uint64_t wait_count = submitted() + counted;
  const uint64_t gate = ++host_ops_;
  // The gate passes once the host stored `gate`. It is tested for equality, which is exact: the
  // host stores gate + 1 only after this gate completed (the next task waits for it), so the
  // value is gate - 1 or gate whenever the gate is tested.
  const queues::WaitCondition opened{host_progress_.get(), queues::Cond::Eq, int64_t(gate)};
  own[counted] = Command::barrier(std::span(&opened, 1), kNoFence, count_next(counted));
  ++counted;
  if (hipError_t e = push(deps, std::span(own, counted), counted, "stream host operation"); e != hipSuccess)
    return e;
  for (auto& d : deps) retained_.push_back({submitted(), std::move(d)});
  tail_system_.store(true, std::memory_order_release);  // the gate adds no GPU writes after the system release
  lk.unlock();
  auto task = [this, wait_count, gate, mode, op = std::move(op)]() -> hipError_t {
    hipError_t e = wait_for(wait_count, "stream host operation");
    if (e == hipSuccess) e = (trace::ApiScope(mode == Mode::Worker ? "stream callback" : "stream host copy/fill"), op());
    host_progress_->store(int64_t(gate));
    return e;
  };
  if (mode == Mode::Sync) return task();
  start_worker();
  {
    std::lock_guard wl(work_mu_);
    work_.push_back([this, task = std::move(task)] {
      hipError_t e = task();
      if (e != hipSuccess) {
        std::lock_guard l(mu_);
        if (async_error_ == hipSuccess) async_error_ = e;
      }
    });
  }
  work_cv_.notify_one();
  return hipSuccess;
}

// Every engine operation and the stream commands around it (gate marker, barrier) are submitted
// under one process-wide lock, so each engine queue and each managed queue receive them in the
// same relative order: without it, stream A's copy could sit on an SDMA queue ahead of stream
// B's copy while B's gate sits behind A's barrier on a shared managed queue, each waiting for
// the other.
static std::mutex& engine_order_mutex() {
  static std::mutex m;
  return m;
}

hipError_t Stream::order_engine_op(Deps& deps, const std::shared_ptr<EventRecord>& done, queues::CopyWait* w,
                                   bool* wait, std::shared_ptr<void> keep, const char* api) {
  std::lock_guard lk(mu_);
  drop_retained();
  prune_chain();
  const bool released = deps.empty() && device_released();
  // A gate marker must come after the held-back operations' barrier.
  if (!released && !chain_.empty()) flush_chain();
  *wait = false;
  Deferred d;
  d.done = done;
  if (!chain_.empty()) {
    // Only the previous engine operation to wait for (nothing was pushed since: that would have
    // flushed the chain): its signal, whose writes are system-visible. Its entry stays in the
    // chain until this operation completed.
    *w = queues::CopyWait{chain_.back().done->sig->handle(), queues::Cond::Lt, 1};
    *wait = true;
  } else if (released && tail_system_ && completed() >= submitted()) {
    // Idle and everything released to system scope: the engine may start at once.
  } else if (released && last_engine_ && last_engine_count_ == submitted()) {
    // Only the previous engine operation (its barrier pushed, nothing after it) to wait for.
    *w = queues::CopyWait{last_engine_->sig->handle(), queues::Cond::Lt, 1};
    *wait = true;
    d.prev = last_engine_;  // the engine reads it
  } else {
    base::Error err;
    if (!(d.gate = new_record(0, &err))) return submit_error(api, err);
    // The engine reads what earlier commands wrote, on this stream or others (one L2 per device):
    // a system-scope release before it, as before a host read. Not counted: the barrier after
    // the operation covers it.
    const Command marker = Command::marker(queues::Fence{true, aql::kScopeNone, aql::kScopeSystem},
                                           Completion::to(d.gate->sig.get(), 0));
    if (hipError_t e = push(deps, std::span(&marker, 1), 0, api); e != hipSuccess) {
      d.gate->sig->store(0);
      return e;
    }
    *w = queues::CopyWait{d.gate->sig->handle(), queues::Cond::Eq, 0};
    *wait = true;
  }
  d.deps = std::move(deps);
  d.keep = std::move(keep);
  last_engine_ = done;
  last_engine_count_ = submitted();
  tail_system_.store(true, std::memory_order_release);  // the engine's writes are system-visible once its signal moved
  chain_.push_back(std::move(d));
  chained_.store(true, std::memory_order_release);
  return hipSuccess;
}

// Later commands see what the engine wrote: a barrier with a system-scope acquire once its signal
// is below 1 (a failed submission stores 0; parts already running may still decrement it).
// `copied` holds the barrier's condition (the command refers to it).
queues::Command Stream::engine_barrier(const EventRecord& done, queues::WaitCondition* copied) const {
  *copied = queues::WaitCondition{done.sig.get(), queues::Cond::Lt, 1};
  return Command::barrier(std::span(copied, 1), queues::Fence{true, aql::kScopeSystem, aql::kScopeNone},
                          count_next(0));
}

void Stream::retain(Deferred& d) {
  const uint64_t n = submitted();
  for (auto& r : d.deps) retained_.push_back({n, std::move(r)});
  retained_.push_back({n, std::move(d.done)});
  if (d.keep) retained_.push_back({n, std::move(d.keep)});
  if (d.gate) retained_.push_back({n, std::move(d.gate)});
  if (d.prev) retained_.push_back({n, std::move(d.prev)});
}

// Entries whose successor completed are read by no one any more (each operation of the chain
// waited for the one before it): their signals and buffers go.
void Stream::prune_chain() {
  while (chain_.size() >= 2 && chain_[1].done->sig->load() < 1) chain_.pop_front();
  if (chain_.size() == 1 && chain_.front().done->sig->load() < 1 && last_engine_ == chain_.front().done) {
    // The last one completed too: later commands need no barrier for it (their own acquire sees
    // its writes); the next engine operation may still wait for its signal (last_engine_).
    last_engine_count_ = submitted();
    chain_.clear();
  }
  if (chain_.empty()) chained_.store(false, std::memory_order_release);
}

// Pushes the barrier on the chain's last operation (its completion implies the others') and
// keeps the chain's records until it passed.
void Stream::flush_chain() {
  queues::WaitCondition copied;
  const Command own = engine_barrier(*chain_.back().done, &copied);
  // A queue that refuses the barrier has stopped on an error: its later commands fail as well.
  (void)push({}, std::span(&own, 1), 1, "stream order after a copy");
  if (last_engine_ == chain_.back().done) last_engine_count_ = submitted();
  for (Deferred& d : chain_) retain(d);
  chain_.clear();
  chained_.store(false, std::memory_order_release);
}

// An operation that could not be (fully) submitted leaves the chain: the operations before it
// get their barrier (later commands must still follow them), its own records stay until that
// barrier passed (its gate marker may still be pending).
void Stream::drop_failed(const std::shared_ptr<EventRecord>& done) {
  std::lock_guard lk(mu_);
  auto it = std::find_if(chain_.begin(), chain_.end(), [&](const Deferred& d) { return d.done == done; });
  if (it == chain_.end()) return;  // already flushed: its barrier passes (the signal is 0)
  Deferred failed = std::move(*it);
  chain_.erase(it);
  if (last_engine_ == done) last_engine_ = chain_.empty() ? nullptr : chain_.back().done;
  if (!chain_.empty()) {
    flush_chain();
  } else if (failed.gate) {
    const Command own = timeline_marker(aql::kScopeNone, 0);
    (void)push({}, std::span(&own, 1), 1, "stream order after a failed copy");
  }
  retain(failed);
  chained_.store(!chain_.empty(), std::memory_order_release);
}

hipError_t Stream::engine_op(uint32_t ops, bool sync, const EngineOp& op, const char* api,
                             std::shared_ptr<void> keep) {
  // A GPU fault ends the process's GPU work: every later operation reports it, whether or not
  // its own wait would have looked (a copy that completes at once would not).
  if (auto f = dev_.qrt().known_fault(); !f) {
    report_device_error(api, f.error());
    return from_error(f.error(), hipErrorLaunchFailure);
  }
  Deps deps;
  if (auto st = legacy_deps(deps); !st) return submit_error(api, st.error());
  base::Error err;
  auto done = new_record(0, &err);
  if (!done) return submit_error(api, err);
  done->sig->store(ops ? int64_t(ops) : 1);
  {
    std::lock_guard order(engine_order_mutex());
    queues::CopyWait w;
    bool wait = false;
    if (hipError_t e = order_engine_op(deps, done, &w, &wait, std::move(keep), api); e != hipSuccess) {
      done->sig->store(0);
      return e;
    }
    const queues::CopyOrder o{wait ? std::span(&w, 1) : std::span<const queues::CopyWait>{},
                              ops ? queues::signal_target(*done->sig) : queues::SignalTarget{}};
    if (auto st = op(o); !st) {
      // Not (all) submitted: the stream goes on without the operation, whose error is returned.
      done->sig->store(0);
      drop_failed(done);
      debug_log(api, st.error().message);
      hipError_t h = from_error(st.error(), hipErrorInvalidValue);
      if (h == hipErrorIllegalAddress || h == hipErrorLaunchFailure) report_device_error(api, st.error());
      return h;
    }
    if (!ops) done->sig->store(0);  // op completed its work before returning
  }
  if (!sync) return hipSuccess;
  auto r = done->sig->wait(queues::Cond::Lt, 1, queues::kForever, dev_.wait_policy());
  if (!r) {
    report_device_error(api, r.error());
    return from_error(r.error(), hipErrorLaunchFailure);
  }
  std::lock_guard lk(mu_);
  prune_chain();  // this operation and those before it completed
  return hipSuccess;
}

hipError_t Stream::synchronize(const char* api) {
  std::unique_lock lk(mu_);
  reap();
  if (!tail_system_) {  // the marker's own route (no command list, no queue lock)
    if (auto st = q_.marker(queues::Fence{true, aql::kScopeNone, aql::kScopeSystem}, count_next(0)); !st)
      return submit_error(api, st.error());
    submitted_.store(submitted_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    tail_system_.store(true, std::memory_order_release);
  }
  uint64_t n = submitted();
  lk.unlock();
  hipError_t e = wait_for(n, api);
  lk.lock();
  reap();
  if (e == hipSuccess && async_error_ != hipSuccess) {
    e = async_error_;
    async_error_ = hipSuccess;
  }
  return e;
}

hipError_t Stream::query() {
  std::lock_guard lk(mu_);
  reap();
  if (completed() >= submitted()) return hipSuccess;
  if (auto st = dev_.qrt().check_device(false); !st) {
    report_device_error("hipStreamQuery", st.error());
    return from_error(st.error(), hipErrorLaunchFailure);
  }
  return hipErrorNotReady;
}

void Stream::start_worker() {
  std::lock_guard lk(work_mu_);
  if (!worker_.joinable()) worker_ = std::thread([this] { worker_loop(); });
}

void Stream::worker_loop() {
  std::unique_lock lk(work_mu_);
  for (;;) {
    work_cv_.wait(lk, [this] { return work_stop_ || !work_.empty(); });
    if (work_.empty()) return;  // stopping and drained
    auto fn = std::move(work_.front());
    work_.pop_front();
    lk.unlock();
    fn();
    lk.lock();
  }
}

}  // namespace hip
