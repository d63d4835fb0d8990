// SPDX-License-Identifier: MIT
// hip::Device: a visible GPU with its queues, streams and synchronisation.
#include <algorithm>
#include <cstdlib>

#include "api/hip/stream.h"

namespace hip {

Device::Device(queues::Runtime& rt, int index, const gpu::Device& gpu, queues::Engine engine)
    : rt_(rt), index_(index), gpu_(gpu), signals_(rt), engine_(engine) {
  if (const char* q = std::getenv("KFDRT_HIP_QUEUES")) {
    long n = std::strtol(q, nullptr, 10);
    if (n >= 1 && n <= 64) max_queues_ = uint32_t(n);
  }
}

Device::~Device() = default;

base::Status Device::init() {
  fill_props();
  return {};
}

queues::WaitPolicy Device::wait_policy(bool blocking_sync) const {
  // Auto: spin for 1 us (a packet that is already running completes within it), then poll with
  // a sched_yield between looks for up to 200 us, then sleep on the signal's event. With more
  // runnable threads than cores, a thread the work waits for (the runtime's hostcall thread, a
  // host-side part of the device) may be queued on this very core, and a pure spin keeps it off
  // the core until the spin ends; on an idle core a yield returns at once.
  queues::WaitPolicy p = rt_.wait_policy();
  p.spin = std::chrono::microseconds(1);
  p.yield = std::chrono::microseconds(200);
  unsigned sched = flags() & hipDeviceScheduleMask;
  if (blocking_sync || sched == hipDeviceScheduleBlockingSync) return queues::WaitPolicy::blocking();
  if (sched == hipDeviceScheduleSpin) return queues::WaitPolicy::spinning();
  if (sched == hipDeviceScheduleYield) {
    p.spin = {};
    p.yield = std::chrono::milliseconds(10);
  }
  return p;
}

namespace {

queues::ManagedQueueOptions stream_queue_options(queues::Engine engine) {
  queues::ManagedQueueOptions o;
  o.engine = engine;
  o.priority = 7;
  // Event timings (hipEventElapsedTime, kfdrtEventGetTimestamps) read the start/end timestamps
  // stamped into completion signals.
  o.profiling = true;
  return o;
}

}  // namespace

base::Result<queues::ManagedQueue*> Device::queue_for_stream(bool null_stream) {
  std::lock_guard lk(mu_);
  uint32_t want;
  if (null_stream || max_queues_ == 1) {
    want = 0;
  } else {
    want = 1 + next_queue_++ % (max_queues_ - 1);
  }
  while (queues_.size() <= want) {
    KFD_ASSIGN(auto q, queues::ManagedQueue::create(gpu_, rt_.memory(), rt_.events(), rt_.scratch(),
                                                    stream_queue_options(engine_)));
    queues_.push_back(std::move(q));
  }
  return queues_[want].get();
}

base::Result<std::shared_ptr<Stream>> Device::create_stream_with_cu_mask(std::span<const uint32_t> mask) {
  queues::ManagedQueue* q = nullptr;
  {
    std::lock_guard lk(mu_);
    if (!masked_free_.empty()) {
      q = masked_free_.back();
      masked_free_.pop_back();
    }
  }
  if (!q) {
    KFD_ASSIGN(auto made, queues::ManagedQueue::create(gpu_, rt_.memory(), rt_.events(), rt_.scratch(),
                                                       stream_queue_options(engine_)));
    std::lock_guard lk(mu_);
    masked_queues_.push_back(std::move(made));
    q = masked_queues_.back().get();
  }
  auto give_back = [&] {
    std::lock_guard lk(mu_);
    masked_free_.push_back(q);
  };
  if (base::Status st = q->set_cu_mask(mask); !st.ok()) {
    give_back();
    return st.error();
  }
  auto s = Stream::create(*this, *q, hipStreamDefault, 0, false);
  if (!s) {
    give_back();
    return s.error();
  }
  std::lock_guard lk(mu_);
  streams_.push_back(*s);
  masked_.emplace_back(s->get(), q);
  return *s;
}

std::vector<uint32_t> Device::stream_cu_mask(const Stream* s) {
  std::lock_guard lk(mu_);
  for (const auto& [stream, q] : masked_)
    if (stream == s) return q->cu_mask();
  return {};
}

base::Result<Stream*> Device::null_stream() {
  if (Stream* s = null_.load(std::memory_order_acquire)) return s;
  static std::mutex create_mu;  // one creation at a time; rare
  std::lock_guard clk(create_mu);
  if (Stream* s = null_.load(std::memory_order_acquire)) return s;
  KFD_ASSIGN(queues::ManagedQueue* q, queue_for_stream(true));
  KFD_ASSIGN(auto s, Stream::create(*this, *q, hipStreamDefault, 0, true));
  {
    std::lock_guard lk(mu_);
    streams_.push_back(s);
  }
  null_.store(s.get(), std::memory_order_release);
  return s.get();
}

base::Result<std::shared_ptr<Stream>> Device::create_stream(unsigned flags, int priority) {
  KFD_ASSIGN(queues::ManagedQueue* q, queue_for_stream(false));
  KFD_ASSIGN(auto s, Stream::create(*this, *q, flags, priority, false));
  std::lock_guard lk(mu_);
  streams_.push_back(s);
  return s;
}

hipError_t Device::destroy_stream(Stream* s) {
  // HIP lets pending work finish; the stream's signals must outlive its packets.
  hipError_t e = s->synchronize("hipStreamDestroy");
  std::lock_guard lk(mu_);
  streams_.erase(std::remove_if(streams_.begin(), streams_.end(),
                                [s](const std::shared_ptr<Stream>& p) { return p.get() == s; }),
                 streams_.end());
  for (auto it = masked_.begin(); it != masked_.end(); ++it)
    if (it->first == s) {  // its queue, idle now, serves the next masked stream
      masked_free_.push_back(it->second);
      masked_.erase(it);
      break;
    }
  return e;
}

std::vector<std::shared_ptr<Stream>> Device::streams() {
  std::lock_guard lk(mu_);
  return streams_;
}

hipError_t Device::synchronize(const char* api) {
  hipError_t first = hipSuccess;
  for (auto& s : streams()) {
    hipError_t e = s->synchronize(api);
    if (first == hipSuccess) first = e;
  }
  if (first == hipSuccess) {
    if (auto st = rt_.check_device(false); !st) {
      report_device_error(api, st.error());
      first = from_error(st.error(), hipErrorLaunchFailure);
    }
  }
  return first;
}

hipError_t Device::reset() {
  hipError_t e = synchronize("hipDeviceReset");
  std::vector<std::shared_ptr<Stream>> gone;
  {
    std::lock_guard lk(mu_);
    for (auto& s : streams_)
      if (!s->is_null()) gone.push_back(s);
    streams_.erase(std::remove_if(streams_.begin(), streams_.end(),
                                  [](const std::shared_ptr<Stream>& p) { return !p->is_null(); }),
                   streams_.end());
    for (const auto& m : masked_) masked_free_.push_back(m.second);
    masked_.clear();
  }
  hipError_t ignored;
  if (Runtime* rt = Runtime::get(&ignored))
    for (auto& s : gone) rt->remove_stream_handle(s.get());
  {
    // Scratch grows with the kernels that ran and never shrinks on its own; a reset gives it
    // back. A queue another thread is still feeding keeps its scratch (EBUSY).
    std::lock_guard lk(mu_);
    for (auto& q : queues_) (void)q->release_scratch();
    for (auto& q : masked_queues_) (void)q->release_scratch();
  }
  forget_peer_access(index_);
  return e;
}

}  // namespace hip
