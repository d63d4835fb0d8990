// SPDX-License-Identifier: MIT
// Stream ordering on AQL queues: dispatches, event markers, waits, host operations, synchronisation.
#include "api/hip/stream.h"

#include <cstring>

namespace hip {

using queues::Packet;
namespace aql = queues::aql;

namespace {

// Every packet sets the barrier bit: a stream's packets run one after another even when several
// streams share a queue. Fence scopes follow seeds/hip-host-memory.txt.
constexpr queues::Fence kDispatchFence{true, aql::kScopeSystem, aql::kScopeAgent};
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

base::Result<std::shared_ptr<Stream>> Stream::create(Device& dev, HwQueue& hw, unsigned flags,
                                                    int priority, bool is_null) {
  std::shared_ptr<Stream> s(new Stream(dev, hw, flags, priority, is_null));
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

void Stream::reap() {
  if (retained_.empty()) return;
  uint64_t done = completed();
  while (!retained_.empty() && retained_.front().count <= done) retained_.pop_front();
}

// Legacy default-stream semantics: the null stream waits for every blocking stream of its device,
// and a blocking stream waits for the null stream. Streams on the same queue are already ordered.
void Stream::add_legacy_deps(std::vector<Packet>& pkts) {
  if (!blocking()) return;
  auto depend_on = [&](Stream& o) {
    if (&o == this || &o.hw_ == &hw_ || !o.blocking()) return;
    uint64_t n = o.submitted();
    if (o.completed() >= n) return;
    pkts.push_back(queues::make_barrier_value(o.timeline_->handle(), aql::kCondLt,
                                              kStart - int64_t(n) + 1, -1, timeline_->handle(),
                                              kNoFence));
    retained_.push_back({submitted() + pkts.size(), o.timeline_});
  };
  if (is_null_) {
    for (auto& o : dev_.streams()) depend_on(*o);
  } else if (Stream* n = dev_.null_stream_if_created()) {
    depend_on(*n);
  }
}

Packet Stream::timeline_marker(aql::FenceScope release) const {
  return queues::make_marker(timeline_->handle(), queues::Fence{true, aql::kScopeNone, release});
}

hipError_t Stream::push(std::vector<Packet>& pkts, int dispatch, const uint8_t* kernarg,
                        size_t kernarg_size) {
  if (pkts.empty()) return hipSuccess;
  uint64_t timeline = timeline_->handle(), counted = 0;
  for (const Packet& p : pkts) {
    uint64_t sig;
    std::memcpy(&sig, reinterpret_cast<const uint8_t*>(p.dw) + 56, 8);  // completion_signal
    counted += sig == timeline;
  }
  if (auto st = hw_.submit(pkts, dispatch, kernarg, kernarg_size); !st)
    return submit_error("submit", st.error());
  submitted_.fetch_add(counted, std::memory_order_acq_rel);
  return hipSuccess;
}

hipError_t Stream::launch(const Dispatch& d) {
  thread_local std::vector<Packet> pkts;
  pkts.clear();
  std::lock_guard lk(mu_);
  reap();
  add_legacy_deps(pkts);
  queues::DispatchParams p;
  p.fence = kDispatchFence;
  p.dims = d.items[2] > 1 ? 3 : d.items[1] > 1 ? 2 : 1;
  for (int i = 0; i < 3; ++i) {
    p.workgroup[i] = d.block[i];
    p.grid[i] = d.items[i];
  }
  p.group_segment_size = d.group_segment;
  p.private_segment_size = d.private_segment;
  p.kernel_object = d.kernel_object;
  p.completion_signal = timeline_->handle();
  std::shared_ptr<void> big;  // kernel arguments that do not fit a slot
  if (d.kernarg_size > HwQueue::kSlotSize) {
    auto mem = dev_.memory().allocate_kernarg(d.kernarg_size, std::max<size_t>(d.kernarg_align, 64));
    if (!mem) return submit_error("hipLaunchKernel", mem.error());
    std::memcpy(*mem, d.kernarg, d.kernarg_size);
    p.kernarg_address = reinterpret_cast<uintptr_t>(*mem);
    mem::Context* ctx = &dev_.memory();
    big = std::shared_ptr<void>(*mem, [ctx](void* m) { (void)ctx->free(m); });
  }
  auto pk = queues::make_dispatch(p);
  if (!pk) return hipErrorInvalidConfiguration;
  pkts.push_back(*pk);
  hipError_t e = big ? push(pkts) : push(pkts, int(pkts.size()) - 1, d.kernarg, d.kernarg_size);
  if (e != hipSuccess) return e;
  if (big) retained_.push_back({submitted(), std::move(big)});
  tail_system_ = false;
  return hipSuccess;
}

hipError_t Stream::record(Event& ev) {
  auto sig = dev_.signals().acquire(1);
  if (!sig) return submit_error("hipEventRecord", sig.error());
  auto rec = std::make_shared<EventRecord>();
  rec->dev = &dev_;
  rec->hw = &hw_;
  rec->flags = ev.flags();
  rec->sig = std::move(*sig);
  std::vector<Packet> pkts;
  std::lock_guard lk(mu_);
  reap();
  add_legacy_deps(pkts);
  // Device-scope acquire and release by default; system scope on request (the seed's table).
  aql::FenceScope rel = (ev.flags() & hipEventReleaseToSystem) ? aql::kScopeSystem : aql::kScopeAgent;
  pkts.push_back(queues::make_marker(rec->sig->handle(), queues::Fence{true, aql::kScopeAgent, rel}));
  if (hipError_t e = push(pkts); e != hipSuccess) return e;
  // The marker is not a timeline packet: keep its signal until a later timeline packet retires.
  retained_.push_back({submitted() + 1, rec});
  tail_system_ = false;
  ev.set_record(std::move(rec));
  return hipSuccess;
}

hipError_t Stream::wait(const std::shared_ptr<EventRecord>& rec) {
  if (!rec || rec->done() || rec->hw == &hw_) return hipSuccess;  // same queue: already ordered
  uint64_t dep = rec->sig->handle();
  auto pk = queues::make_barrier_and(std::span<const uint64_t>(&dep, 1), timeline_->handle(), kNoFence);
  if (!pk) return hipErrorInvalidValue;
  std::vector<Packet> pkts{*pk};
  std::lock_guard lk(mu_);
  reap();
  if (hipError_t e = push(pkts); e != hipSuccess) return e;
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
  for (const auto& o : dev_.streams())
    if (o.get() != this && (!o->tail_system_.load(std::memory_order_acquire) || o->pending())) return false;
  return true;
}

hipError_t Stream::host_op(HostOp op, Mode mode) {
  std::vector<Packet> pkts;
  std::unique_lock lk(mu_);
  reap();
  add_legacy_deps(pkts);
  const bool released = device_released();
  if (mode != Mode::Worker && pkts.empty() && tail_system_ && released && completed() >= submitted()) {
    lk.unlock();
    return op();  // idle: nothing to order against
  }
  // The host reads what earlier packets wrote, on this stream or on others (the GPU's L2 is one
  // for the device): they must end with a system-scope release.
  if (!tail_system_ || !released) pkts.push_back(timeline_marker(aql::kScopeSystem));
  uint64_t wait_count = submitted() + pkts.size();
  uint64_t gate = ++host_ops_;
  pkts.push_back(queues::make_barrier_value(host_progress_->handle(), aql::kCondGte, int64_t(gate), -1,
                                            timeline_->handle(), kNoFence));
  if (hipError_t e = push(pkts); e != hipSuccess) return e;
  tail_system_ = true;  // the gate adds no GPU writes after the system release
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

hipError_t Stream::synchronize(const char* api) {
  std::unique_lock lk(mu_);
  reap();
  if (!tail_system_) {
    std::vector<Packet> pkts{timeline_marker(aql::kScopeSystem)};
    if (hipError_t e = push(pkts); e != hipSuccess) return e;
    tail_system_ = true;
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
