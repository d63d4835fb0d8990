// SPDX-License-Identifier: MIT
// Opening the HIP runtime (visible devices), current device, stream handles, hardware queues, signals.
#include "api/hip/runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "api/hip/stream.h"
#include "queues/trace_hooks.h"

namespace hip {
namespace {

namespace aql = queues::aql;
// The dispatch packet's private_segment_size as a dword of queues::Packet.
constexpr size_t kPrivateSegmentDword = offsetof(aql::KernelDispatchPacket, private_segment_size) / 4;

thread_local int t_current_device = 0;

}  // namespace

std::vector<int> parse_visible_devices(const char* spec, int physical_count) {
  std::vector<int> out;
  const char* p = spec;
  while (*p) {
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v >= physical_count) break;  // CUDA: stop at the first invalid
    bool dup = false;
    for (int o : out) dup |= o == v;
    if (dup) break;
    out.push_back(int(v));
    p = end;
    while (*p == ' ') ++p;
    if (*p != ',') break;
    ++p;
  }
  return out;
}

hipError_t Runtime::open(Runtime** out) {
  std::unique_ptr<Runtime> rt(new Runtime());
  queues::RuntimeOptions opts;
  auto q = queues::Runtime::open(opts);
  if (!q) {
    debug_log("init", q.message());
    int e = q.err();
    return (e == ENOENT || e == ENODEV || e == EACCES || e == ENXIO) ? hipErrorNoDevice
                                                                      : hipErrorNotInitialized;
  }
  rt->qrt_ = std::move(*q);
  if (auto st = rt->add_devices(); !st) {
    debug_log("init", st.message());
    return hipErrorNotInitialized;
  }
  if (rt->devices_.empty()) return hipErrorNoDevice;
  *out = rt.release();
  return hipSuccess;
}

base::Status Runtime::add_devices() {
  auto gpus = qrt_->gpus();
  std::vector<int> order;
  const char* spec = std::getenv("HIP_VISIBLE_DEVICES");
  if (!spec) spec = std::getenv("CUDA_VISIBLE_DEVICES");
  if (spec) {
    order = parse_visible_devices(spec, int(gpus.size()));
  } else {
    for (size_t i = 0; i < gpus.size(); ++i) order.push_back(int(i));
  }
  for (int phys : order) {
    auto d = std::make_unique<Device>(*qrt_, int(devices_.size()), *gpus[phys]);
    KFD_TRY(d->init());
    devices_.push_back(std::move(d));
  }
  return {};
}

Runtime* Runtime::get(hipError_t* err) {
  static Runtime* instance = nullptr;
  static hipError_t open_error = hipSuccess;
  static std::once_flag once;
  static pid_t owner = 0;
  std::call_once(once, [] {
    open_error = open(&instance);
    owner = ::getpid();
  });
  if (instance && owner != ::getpid()) {
    // A forked child: amdkfd binds the queues, memory and events to the process that opened
    // /dev/kfd, so the runtime inherited from the parent is not the child's to use (its threads
    // did not come along either). Every call fails at once instead of hanging or touching the
    // parent's GPU state.
    static std::once_flag told;
    std::call_once(told, [] {
      std::fprintf(stderr,
                   "kfdrt: HIP was initialised by pid %d and this is its forked child pid %d: a child "
                   "has no GPU context (amdkfd binds it to the process that opened /dev/kfd); HIP "
                   "calls fail with hipErrorInitializationError\n",
                   int(owner), int(::getpid()));
    });
    *err = hipErrorInitializationError;
    return nullptr;
  }
  if (!instance) *err = open_error;
  return instance;
}

Device* Runtime::device_of_gpu(uint32_t gpu_id) {
  for (auto& d : devices_)
    if (d->gpu_id() == gpu_id) return d.get();
  return nullptr;
}

Device& Runtime::current() {
  int i = t_current_device;
  return *devices_[i < device_count() ? i : 0];
}
int Runtime::current_index() const { return t_current_device; }
void Runtime::set_current(int i) { t_current_device = i; }

hipError_t Runtime::stream(hipStream_t h, std::shared_ptr<Stream>* out) {
  auto raw = reinterpret_cast<uintptr_t>(h);
  if (raw == 0 || raw == 1 || raw == 2) {  // null, hipStreamLegacy, hipStreamPerThread
    auto s = current().null_stream();
    if (!s) return from_error(s.error(), hipErrorOutOfMemory);
    // The null stream lives as long as its device; an aliasing shared_ptr owns nothing.
    *out = std::shared_ptr<Stream>(std::shared_ptr<Stream>(), *s);
    return hipSuccess;
  }
  std::lock_guard lk(handles_mu_);
  auto it = stream_handles_.find(reinterpret_cast<Stream*>(h));
  if (it == stream_handles_.end()) return hipErrorInvalidHandle;
  *out = it->second.lock();
  return *out ? hipSuccess : hipErrorInvalidHandle;
}

void Runtime::add_stream_handle(const std::shared_ptr<Stream>& s) {
  std::lock_guard lk(handles_mu_);
  stream_handles_[s.get()] = s;
}

void Runtime::remove_stream_handle(Stream* s) {
  std::lock_guard lk(handles_mu_);
  stream_handles_.erase(s);
}

// ---- HwQueue ----

base::Result<std::unique_ptr<HwQueue>> HwQueue::create(Device& dev, uint32_t priority) {
  std::unique_ptr<HwQueue> h(new HwQueue());
  queues::QueueOptions qo;
  qo.gpu_id = dev.gpu_id();
  qo.packets = kPackets;
  qo.priority = priority;
  // Event timings (hipEventElapsedTime, kfdrtEventGetTimestamps) read the start/end timestamps
  // the CP writes into completion signals, which it does only on a profiling queue.
  qo.profiling = true;
  KFD_ASSIGN(h->q_, dev.qrt().create_queue(qo));
  h->dev_ = &dev;
  h->ctx_ = &dev.memory();
  // Two slots per ring slot: a slot is rewritten only after its packet and the next one (which
  // waited for it, barrier bit) have retired.
  h->slots_ = 2 * kPackets;
  KFD_ASSIGN(void* ka, h->ctx_->allocate_kernarg(size_t(h->slots_) * kSlotSize, 4096));
  h->kernarg_ = static_cast<uint8_t*>(ka);
  return h;
}

HwQueue::~HwQueue() {
  {
    std::lock_guard gl(grow_mu_);
    stopping_ = true;
  }
  grow_cv_.notify_all();
  if (grower_.joinable()) grower_.join();
  for (Grow& g : grows_) q_->discard_scratch(g.scratch);
  if (q_) (void)q_->destroy();
  if (kernarg_) (void)ctx_->free(kernarg_);
}

base::Status HwQueue::schedule_grow(uint32_t lane_bytes, std::vector<queues::Packet>& pre) {
  auto prepared = q_->prepare_scratch(lane_bytes);
  if (!prepared) {
    base::Error e = base::Error::msg("no scratch for a kernel needing " + std::to_string(lane_bytes) +
                                   " bytes per work-item on AQL queue " +
                                   std::to_string(q_->queue_id()) + " (it has " +
                                   std::to_string(lane_bytes_) + "): " + prepared.error().message,
                                   ENOMEM);
    std::fprintf(stderr, "kfdrt: %s\n", e.message.c_str());
    return e;
  }
  if (q_->write_index() == 0) {  // nothing ever ran on the queue: install at once
    q_->commit_scratch(*prepared);
    lane_bytes_ = prepared->layout.lane_bytes;
    return {};
  }
  if (!gate_) {
    auto gate = dev_->qrt().create_signal(0);
    if (!gate) {
      q_->discard_scratch(*prepared);
      return gate.error();
    }
    gate_ = std::move(*gate);
  }
  auto drained = dev_->qrt().create_signal(1);
  if (!drained) {
    q_->discard_scratch(*prepared);
    return drained.error();
  }
  Grow g;
  g.scratch = *prepared;
  g.drained = std::move(*drained);
  g.gate = ++gates_;
  // The marker completes once every earlier packet has (barrier bit); the gate then holds the
  // CP until the grow thread has installed the new store. Neither needs a memory fence.
  constexpr queues::Fence kNoFence{true, aql::kScopeNone, aql::kScopeNone};
  pre.push_back(queues::make_marker(g.drained->handle(), kNoFence));
  pre.push_back(queues::make_barrier_value(gate_->handle(), aql::kCondGte, g.gate, -1, 0, kNoFence));
  lane_bytes_ = g.scratch.layout.lane_bytes;
  {
    std::lock_guard gl(grow_mu_);
    grows_.push_back(std::move(g));
    if (!grower_.joinable()) grower_ = std::thread([this] { grow_thread(); });
  }
  grow_cv_.notify_one();
  return {};
}

// Installs scheduled grows in order: each waits for its marker (the kernels before it are done
// and the CP is held at its gate), swaps the stores and opens the gate. A queue error ends the
// wait with an error: the queue is dead, and its prepared store is dropped.
void HwQueue::grow_thread() {
  std::unique_lock gl(grow_mu_);
  for (;;) {
    grow_cv_.wait(gl, [this] { return stopping_ || !grows_.empty(); });
    if (grows_.empty()) return;  // stopping
    Grow& g = grows_.front();
    gl.unlock();
    base::Status done;
    bool ready = false;
    while (!ready) {
      auto r = g.drained->wait(queues::Cond::Eq, 0, std::chrono::milliseconds(100), dev_->wait_policy());
      if (r) {
        ready = true;
      } else if (r.error().err != ETIMEDOUT) {
        done = r.error();
        break;
      }
      std::lock_guard stop(grow_mu_);
      if (stopping_ && !ready) return;  // the destructor discards what is left
    }
    if (ready) {
      q_->commit_scratch(g.scratch);
      gate_->store(g.gate);
    } else {
      q_->discard_scratch(g.scratch);
      debug_log("scratch grow", done.error().message);
    }
    gl.lock();
    grows_.pop_front();
  }
}

base::Status HwQueue::release_scratch() {
  std::lock_guard lk(mu_);  // no new packets meanwhile
  {
    std::lock_guard gl(grow_mu_);
    if (!grows_.empty())
      return base::Error::msg("release_scratch: a scratch grow is pending on AQL queue " +
                             std::to_string(q_->queue_id()), EBUSY);
  }
  if (lane_bytes_ == 0) return {};
  // The device signals a packet's completion before it retires the slot (read_dispatch_id), so
  // a queue whose work is all complete may still look busy for a moment.
  KFD_TRY(q_->wait_idle(std::chrono::seconds(1)));
  KFD_TRY(q_->grow_scratch(0));
  lane_bytes_ = 0;
  return {};
}

base::Status HwQueue::submit(std::span<queues::Packet> pkts, int dispatch, const uint8_t* kernarg,
                            size_t kernarg_size) {
  std::lock_guard lk(mu_);
  pkts = queues::trace_aql(dev_->qrt(), *q_, pkts, dispatch);
  uint32_t scratch = 0;  // the largest private_segment_size of the dispatches
  for (const queues::Packet& p : pkts)
    if (aql::header_type(p.header()) == aql::kTypeKernelDispatch)
      scratch = std::max(scratch, p.dw[kPrivateSegmentDword]);
  std::vector<queues::Packet> pre;
  if (scratch > lane_bytes_) KFD_TRY(schedule_grow(scratch, pre));
  KFD_ASSIGN(uint64_t first, q_->reserve(uint32_t(pre.size() + pkts.size())));
  uint64_t index = first;
  for (const queues::Packet& p : pre) q_->write(index++, p);
  for (size_t i = 0; i < pkts.size(); ++i, ++index) {
    if (int(i) == dispatch && kernarg) {
      uint8_t* slot = kernarg_ + (index % slots_) * kSlotSize;
      std::memcpy(slot, kernarg, kernarg_size);
      uint64_t addr = reinterpret_cast<uintptr_t>(slot);
      std::memcpy(reinterpret_cast<uint8_t*>(pkts[i].dw) + 40, &addr, 8);  // kernarg_address
    }
    q_->write(index, pkts[i]);
  }
  q_->ring_doorbell(index - 1);
  return {};
}

// ---- SignalPool ----

SignalPool::~SignalPool() = default;

base::Result<std::unique_ptr<queues::Signal>> SignalPool::acquire(int64_t value) {
  {
    std::lock_guard lk(mu_);
    if (!free_.empty()) {
      auto s = std::move(free_.back());
      free_.pop_back();
      s->store(value);
      return s;
    }
  }
  return rt_.create_signal(value);
}

void SignalPool::release(std::unique_ptr<queues::Signal> s) {
  if (!s) return;
  if (s->load() != 0) {
    (void)s.release();  // a packet may still complete it: never reuse or free its memory
    return;
  }
  std::lock_guard lk(mu_);
  free_.push_back(std::move(s));
}

}  // namespace hip
