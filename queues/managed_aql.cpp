// SPDX-License-Identifier: MIT
// The AQL backend of ManagedQueue: packets with the barrier bit, kernarg slots by ring index, scratch grown behind a gate.
#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include "queues/aql_queue.h"
#include "queues/managed_backends.h"
#include "queues/spin.h"
#include "queues/trace_hooks.h"

namespace queues {
namespace {

// Neither the grow marker nor its gate needs a memory fence; both keep the barrier bit.
constexpr Fence kOrderOnly{true, aql::kScopeNone, aql::kScopeNone};

aql::BarrierValueCond barrier_cond(Cond c) {
  switch (c) {
    case Cond::Eq: return aql::kCondEq;
    case Cond::Ne: return aql::kCondNe;
    case Cond::Lt: return aql::kCondLt;
    case Cond::Gte: return aql::kCondGte;
  }
  return aql::kCondEq;
}

uint64_t handle_of(const Signal* s) { return s ? s->handle() : 0; }

class AqlManaged final : public ManagedQueue {
 public:
  AqlManaged(const gpu::Device& gpu, mem::Context& memory) : ManagedQueue(Engine::Aql, gpu), mem_(memory) {}
  ~AqlManaged() override;
  base::Status init(EventManager& events, ScratchWindows& scratch, const ManagedQueueOptions& o);

  uint64_t queue_address() const override { return q_->handle(); }
  uint32_t queue_id() const override { return q_->queue_id(); }
  base::Status submit(std::span<const Command> cmds) override;
  base::Status dispatch(const KernelLaunch& l, Fence f, Completion c) override;
  base::Result<bool> prepare(const KernelLaunch& l, Fence f, PreparedDispatch* out) const override;
  base::Status dispatch_prepared(const PreparedDispatch& p, void (*write_args)(void*, uint8_t*), void* ctx,
                                 Completion c) override;
  base::Status marker(Fence f, Completion c) override;
  base::Status release_scratch() override;

 private:
  // A larger scratch waiting for the queue to drain behind its marker.
  struct Grow {
    AqlQueue::PreparedScratch scratch;
    std::unique_ptr<Signal> drained;  // the barrier marker's completion signal
    int64_t gate = 0;                 // the gate opens when gate_ reaches this
  };
  // An argument block too large for a slot, freed once the ring passed its packet as a slot would be.
  struct BigArgs {
    uint64_t index;
    void* mem;
  };

  // How many packets barrier `c` takes; InvalidArgument for one no packet can express.
  base::Result<uint32_t> barrier_packets(const Command& c) const;
  // Writes the commands' packets from ring index `index` on (checked, slots claimed); returns
  // the index after the last.
  uint64_t write_commands(std::span<const Command> cmds, uint64_t index, void* big);
  uint64_t write_barrier(const Command& c, uint64_t index);
  void write_dispatch(const Command& c, uint64_t index, void* big) {
    write_dispatch(*c.launch, c.fence, c.completion.signal, index, big, sink_ == nullptr);
  }
  // `to_ring`: straight into the ring (else through put(), which may collect it for tracing).
  void write_dispatch(const KernelLaunch& l, Fence f, const Signal* done, uint64_t index, void* big, bool to_ring);
  uint8_t* kernarg_slot(uint64_t index) const {  // slots_ is a power of two (twice the ring's packets)
    return kernarg_ + (index & (slots_ - 1)) * ManagedQueueOptions::kKernargSlot;
  }
  // The next dispatch's argument slot, as large as this one's block, asked for in a writable
  // state (the GPU's kernels read these lines last): see AqlQueue::ring_doorbell.
  void prefetch_next_kernarg(uint64_t index, uint32_t size) const {
    const uint8_t* next = kernarg_slot(index + 1);
    for (uint32_t off = 0; off < size; off += 64) spin::prefetch_for_write(next + off);
  }
  void note_big() { has_big_.store(!big_.empty(), std::memory_order_relaxed); }  // mu_ held
  base::Status prepare_grow(uint32_t lane_bytes, Grow* g, Packet pre[2], uint32_t* npre);
  base::Status submit_growing(std::span<const Command> cmds, uint32_t total, void* big);  // mu_ held
  void start_grow(Grow g);
  void grow_thread();
  void reap_big(uint64_t next_index);
  base::Status submit_traced(std::span<const Command> cmds, void* big);  // mu_ held
  // Writes packet `p` at ring index `index`, or appends it to sink_ while a traced submission
  // builds its packets first.
  void put(uint64_t index, const Packet& p) {
    if (sink_) sink_->push_back(p);
    else q_->write(index, p);
  }

  mem::Context& mem_;
  EventManager* events_ = nullptr;
  std::unique_ptr<AqlQueue> q_;
  std::mutex mu_;
  uint32_t lane_bytes_ = 0;          // scratch per work-item once every scheduled grow landed (mu_)
  std::unique_ptr<Signal> gate_;     // counts the grows installed
  int64_t gates_ = 0;                // grows scheduled (mu_)
  std::mutex grow_mu_;
  std::condition_variable grow_cv_;
  std::deque<Grow> grows_;           // grow_mu_
  bool stopping_ = false;            // grow_mu_
  std::thread grower_;
  std::vector<Packet>* sink_ = nullptr;  // mu_
  uint8_t* kernarg_ = nullptr;
  uint32_t slots_ = 0;
  std::deque<BigArgs> big_;          // mu_
  std::atomic<bool> has_big_{false};  // !big_.empty(), for the lock-free route
};

base::Status AqlManaged::init(EventManager& events, ScratchWindows& scratch, const ManagedQueueOptions& o) {
  events_ = &events;
  QueueOptions qo;
  qo.gpu_id = gpu().gpu_id;
  qo.packets = o.aql_packets;
  qo.priority = o.priority;
  qo.profiling = o.profiling;
  KFD_ASSIGN(q_, AqlQueue::create(gpu(), mem_, events, scratch, qo));
  // Two slots per ring slot: a slot is rewritten only after its packet and the next one (which
  // waited for it, barrier bit) have retired.
  slots_ = 2 * o.aql_packets;
  KFD_ASSIGN(void* ka, mem_.allocate_kernarg(size_t(slots_) * ManagedQueueOptions::kKernargSlot, 4096));
  kernarg_ = static_cast<uint8_t*>(ka);
  return {};
}

AqlManaged::~AqlManaged() {
  {
    std::lock_guard gl(grow_mu_);
    stopping_ = true;
  }
  grow_cv_.notify_all();
  if (grower_.joinable()) grower_.join();
  if (q_) {
    for (Grow& g : grows_) q_->discard_scratch(g.scratch);
    (void)q_->destroy();
  }
  for (const BigArgs& b : big_) (void)mem_.free(b.mem);
  if (kernarg_) (void)mem_.free(kernarg_);
}

// The packets of a barrier command: the Eq-0 conditions in one barrier-AND (the HSA form), each
// other condition in a BARRIER_VALUE; acquire on the first packet, release and the completion
// on the last; with no condition, a marker.
base::Result<uint32_t> AqlManaged::barrier_packets(const Command& c) const {
  if (c.wait_count > Command::kMaxWaits || (c.wait_count && !c.waits))
    return base::Error::msg("barrier: " + std::to_string(c.wait_count) + " conditions (at most " +
                                std::to_string(Command::kMaxWaits) + ", given)", EINVAL);
  uint32_t nzero = 0, nother = 0;
  for (uint32_t i = 0; i < c.wait_count; ++i) {
    const WaitCondition& w = c.waits[i];
    if (!w.signal) return base::Error::msg("barrier: condition without a signal", EINVAL);
    (w.cond == Cond::Eq && w.value == 0 ? nzero : nother)++;
  }
  return nother + (nzero > 0 || nother == 0 ? 1 : 0);
}

uint64_t AqlManaged::write_barrier(const Command& c, uint64_t index) {
  uint64_t zero[Command::kMaxWaits];
  uint32_t nzero = 0, nother = 0;
  for (uint32_t i = 0; i < c.wait_count; ++i)
    if (c.waits[i].cond == Cond::Eq && c.waits[i].value == 0)
      zero[nzero++] = c.waits[i].signal->handle();
    else
      ++nother;
  const bool and_packet = nzero > 0 || nother == 0;
  const uint32_t total = nother + (and_packet ? 1 : 0);
  auto fence = [&](uint32_t i) {
    return Fence{true, i == 0 ? c.fence.acquire : aql::kScopeNone,
                 i + 1 == total ? c.fence.release : aql::kScopeNone};
  };
  auto done = [&](uint32_t i) { return i + 1 == total ? handle_of(c.completion.signal) : 0; };
  uint32_t k = 0;
  for (uint32_t i = 0; i < c.wait_count; ++i) {
    const WaitCondition& w = c.waits[i];
    if (w.cond == Cond::Eq && w.value == 0) continue;
    put(index++, make_barrier_value(w.signal->handle(), barrier_cond(w.cond), w.value, -1, done(k), fence(k)));
    ++k;
  }
  if (and_packet) put(index++, *make_barrier_and(std::span<const uint64_t>(zero, nzero), done(k), fence(k)));
  return index;
}

namespace {

// The dispatch packet of launch `l`, but for its argument address and completion signal.
aql::KernelDispatchPacket dispatch_packet(const KernelLaunch& l, Fence f) {
  aql::KernelDispatchPacket k{};
  k.header = make_fence_header(aql::kTypeKernelDispatch, Fence{true, f.acquire, f.release});
  k.setup = uint16_t(l.dims);
  k.workgroup_size_x = l.block[0];
  k.workgroup_size_y = l.block[1];
  k.workgroup_size_z = l.block[2];
  k.grid_size_x = l.grid[0];
  k.grid_size_y = l.grid[1];
  k.grid_size_z = l.grid[2];
  k.private_segment_size = l.private_segment_bytes;
  k.group_segment_size = l.group_segment_bytes;
  k.kernel_object = l.kernel_object;
  return k;
}

}  // namespace

void AqlManaged::write_dispatch(const KernelLaunch& l, Fence f, const Signal* done, uint64_t index, void* big,
                                bool to_ring) {
  uint8_t* args = big ? static_cast<uint8_t*>(big) : kernarg_slot(index);
  write_kernarg(l, args);
  if (big) big_.push_back({index, big}), note_big();
  aql::KernelDispatchPacket k = dispatch_packet(l, f);
  k.kernarg_address = reinterpret_cast<uintptr_t>(args);
  k.completion_signal = handle_of(done);
  if (to_ring) {
    q_->write(index, k);
    return;
  }
  Packet p;
  static_assert(sizeof k == sizeof p);
  std::memcpy(p.dw, &k, sizeof k);
  put(index, p);
}

uint64_t AqlManaged::write_commands(std::span<const Command> cmds, uint64_t index, void* big) {
  for (const Command& c : cmds) {
    if (c.kind == Command::Kind::Dispatch)
      write_dispatch(c, index++, big);
    else
      index = write_barrier(c, index);
  }
  return index;
}

base::Status AqlManaged::prepare_grow(uint32_t lane_bytes, Grow* g, Packet pre[2], uint32_t* npre) {
  auto prepared = q_->prepare_scratch(lane_bytes);
  if (!prepared) {
    base::Error e = base::Error::msg("no scratch for a kernel needing " + std::to_string(lane_bytes) +
                                         " bytes per work-item on AQL queue " + std::to_string(q_->queue_id()) +
                                         " (it has " + std::to_string(lane_bytes_) + "): " +
                                         prepared.error().message, ENOMEM);
    std::fprintf(stderr, "kfdrt: %s\n", e.message.c_str());
    return e;
  }
  g->scratch = *prepared;
  if (q_->write_index() == 0) return {};  // nothing ever ran on the queue: installed at once
  if (!gate_) {
    auto gate = events_->create_signal(0);
    if (!gate) {
      q_->discard_scratch(g->scratch);
      return gate.error();
    }
    gate_ = std::move(*gate);
  }
  auto drained = events_->create_signal(1);
  if (!drained) {
    q_->discard_scratch(g->scratch);
    return drained.error();
  }
  g->drained = std::move(*drained);
  g->gate = gates_ + 1;
  // The marker completes once every earlier packet has (barrier bit); the gate then holds the
  // CP until the grow thread has installed the new store.
  pre[0] = make_marker(g->drained->handle(), kOrderOnly);
  pre[1] = make_barrier_value(gate_->handle(), aql::kCondGte, g->gate, -1, 0, kOrderOnly);
  *npre = 2;
  return {};
}

void AqlManaged::start_grow(Grow g) {
  lane_bytes_ = g.scratch.layout.lane_bytes;
  if (!g.drained) {  // an idle, never used queue: no marker to wait for
    q_->commit_scratch(g.scratch);
    return;
  }
  gates_ = g.gate;
  {
    std::lock_guard gl(grow_mu_);
    grows_.push_back(std::move(g));
    if (!grower_.joinable()) grower_ = std::thread([this] { grow_thread(); });
  }
  grow_cv_.notify_one();
}

// Installs scheduled grows in order: each waits for its marker (the kernels before it are done
// and the CP is held at its gate), swaps the stores and opens the gate. A queue error ends the
// wait with an error: the queue is dead, and its prepared store is dropped.
void AqlManaged::grow_thread() {
  std::unique_lock gl(grow_mu_);
  for (;;) {
    grow_cv_.wait(gl, [this] { return stopping_ || !grows_.empty(); });
    if (grows_.empty()) return;  // stopping
    Grow& g = grows_.front();
    gl.unlock();
    base::Status done;
    bool ready = false;
    while (!ready) {
      auto r = g.drained->wait(Cond::Eq, 0, std::chrono::milliseconds(100), WaitPolicy::blocking());
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
      std::fprintf(stderr, "kfdrt: scratch grow on AQL queue %u: %s\n", q_->queue_id(), done.error().message.c_str());
    }
    gl.lock();
    grows_.pop_front();
  }
}

base::Status AqlManaged::release_scratch() {
  // No new packets needing scratch meanwhile (they take the lock); one needing none may still
  // come, and then the queue is not idle (EBUSY below) and keeps its scratch.
  std::lock_guard lk(mu_);
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

void AqlManaged::reap_big(uint64_t next_index) {
  while (!big_.empty() && big_.front().index + slots_ <= next_index) {
    (void)mem_.free(big_.front().mem);
    big_.pop_front();
  }
  note_big();
}

base::Status AqlManaged::submit(std::span<const Command> cmds) {
  // Everything that can fail is done before a slot is claimed: a claimed slot must be written.
  uint32_t total = 0;
  const KernelLaunch* launch = nullptr;
  for (const Command& c : cmds) {
    if (c.kind == Command::Kind::Dispatch) {
      if (launch) return base::Error::msg("AQL managed queue: one dispatch per submission", EINVAL);
      if (!c.launch) return base::Error::msg("dispatch command without a launch", EINVAL);
      KFD_TRY(check_launch(*c.launch));
      launch = c.launch;
      ++total;
    } else {
      KFD_ASSIGN(uint32_t n, barrier_packets(c));
      total += n;
    }
  }
  if (total == 0) return {};
  void* big = nullptr;
  if (launch && launch->kernarg_size > ManagedQueueOptions::kKernargSlot) {
    KFD_ASSIGN(big, mem_.allocate_kernarg(launch->kernarg_size, std::max<size_t>(launch->kernarg_align, 64)));
  }
  if (trace::on() && launch && !big) {  // the traced path needs arguments that stay where they are
    KFD_ASSIGN(big, mem_.allocate_kernarg(std::max<size_t>(launch->kernarg_size, 1),
                                          std::max<size_t>(launch->kernarg_align, 64)));
  }
  std::lock_guard lk(mu_);
  if (trace::on() && !(launch && launch->private_segment_bytes > lane_bytes_)) return submit_traced(cmds, big);
  if (launch && launch->private_segment_bytes > lane_bytes_) return submit_growing(cmds, total, big);
  auto first = q_->reserve(total);
  if (!first) {
    if (big) (void)mem_.free(big);
    return first.error();
  }
  if (!big_.empty()) reap_big(*first);
  q_->ring_doorbell(write_commands(cmds, *first, big) - 1);
  return {};
}

// The launch path: one dispatch whose arguments fit a slot, no scratch to grow, no tracing; the
// others take submit's general route. A dispatch needing no scratch takes no lock at all: the
// ring is multi-producer (its slot is claimed atomically, its kernarg slot goes with it) and
// nothing else it touches is shared. What the lock guards (scratch grows and their gates,
// argument blocks of their own, the trace's packet list) is not on that route.
base::Status AqlManaged::dispatch(const KernelLaunch& l, Fence f, Completion c) {
  if (trace::on() || l.kernarg_size > ManagedQueueOptions::kKernargSlot) [[unlikely]]
    return ManagedQueue::dispatch(l, f, c);
  KFD_TRY(check_launch(l));
  if (l.private_segment_bytes == 0 && !has_big_.load(std::memory_order_relaxed)) [[likely]] {
    KFD_ASSIGN(const uint64_t index, q_->reserve(1));
    write_dispatch(l, f, c.signal, index, nullptr, true);
    q_->ring_doorbell(index);
    prefetch_next_kernarg(index, l.kernarg_size);
    return {};
  }
  std::lock_guard lk(mu_);
  if (l.private_segment_bytes > lane_bytes_) [[unlikely]] {
    const Command cmd = Command::dispatch(l, f, c);
    return submit_growing(std::span(&cmd, 1), 1, nullptr);
  }
  KFD_ASSIGN(const uint64_t index, q_->reserve(1));
  if (!big_.empty()) reap_big(index);
  write_dispatch(l, f, c.signal, index, nullptr, sink_ == nullptr);
  q_->ring_doorbell(index);
  return {};
}

// The launch path's route for a launch repeated: what dispatch checks and builds, done once.
// Only dispatches that take dispatch's lock-free route (no scratch, arguments in a slot).
base::Result<bool> AqlManaged::prepare(const KernelLaunch& l, Fence f, PreparedDispatch* out) const {
  KFD_TRY(check_launch(l));
  if (l.private_segment_bytes != 0 || l.kernarg_size > ManagedQueueOptions::kKernargSlot) return false;
  out->packet = dispatch_packet(l, f);
  out->kernarg_size = l.kernarg_size;
  return true;
}

base::Status AqlManaged::dispatch_prepared(const PreparedDispatch& p, void (*write_args)(void*, uint8_t*),
                                           void* ctx, Completion c) {
  auto write = [&](uint64_t index) {
    uint8_t* slot = kernarg_slot(index);
    if (p.kernarg_size) {
      std::memcpy(slot, p.kernarg_image, p.kernarg_size);
      write_args(ctx, slot);
    }
    aql::KernelDispatchPacket k = p.packet;
    k.kernarg_address = reinterpret_cast<uintptr_t>(slot);
    k.completion_signal = handle_of(c.signal);
    q_->write(index, k);
    q_->ring_doorbell(index);
    prefetch_next_kernarg(index, p.kernarg_size);
  };
  if (!has_big_.load(std::memory_order_relaxed)) [[likely]] {
    KFD_ASSIGN(const uint64_t index, q_->reserve(1));
    write(index);
    return {};
  }
  std::lock_guard lk(mu_);  // big argument blocks to free: their list is the lock's
  KFD_ASSIGN(const uint64_t index, q_->reserve(1));
  reap_big(index);
  write(index);
  return {};
}

// While tracing: the packets are built first (a dispatch's arguments in memory of their own, so
// their place does not depend on the ring index), given probes by the trace hooks (which add a
// barrier per packet), then written. A dispatch that grows scratch takes the untraced path.
base::Status AqlManaged::submit_traced(std::span<const Command> cmds, void* big) {
  std::vector<Packet> pkts;
  sink_ = &pkts;
  (void)write_commands(cmds, 0, big);
  sink_ = nullptr;
  int dispatch = -1;
  for (size_t i = 0; i < pkts.size(); ++i)
    if (aql::header_type(pkts[i].header()) == aql::kTypeKernelDispatch) dispatch = int(i);
  std::span<Packet> out = trace_aql(mem_, *q_, std::span<Packet>(pkts), dispatch);
  auto first = q_->reserve(uint32_t(out.size()));
  if (!first) {
    if (big) {
      if (!big_.empty() && big_.back().mem == big) big_.pop_back(), note_big();
      (void)mem_.free(big);
    }
    return first.error();
  }
  if (big && !big_.empty() && big_.back().mem == big) big_.back().index = *first + out.size() - 1;
  if (!big_.empty()) reap_big(*first);
  uint64_t index = *first;
  for (const Packet& p : out) q_->write(index++, p);
  q_->ring_doorbell(index - 1);
  return {};
}

// A marker takes no lock either, unless big argument blocks wait to be freed (their list is
// the lock's) or tracing collects packets: one slot claimed, one barrier-AND written.
base::Status AqlManaged::marker(Fence f, Completion c) {
  if (trace::on() || has_big_.load(std::memory_order_relaxed)) [[unlikely]] return ManagedQueue::marker(f, c);
  KFD_ASSIGN(const uint64_t index, q_->reserve(1));
  q_->write(index, make_marker(handle_of(c.signal), Fence{true, f.acquire, f.release}));
  q_->ring_doorbell(index);
  return {};
}

// A dispatch needing more scratch than the queue has goes behind a grow's marker and gate.
base::Status AqlManaged::submit_growing(std::span<const Command> cmds, uint32_t total, void* big) {
  const KernelLaunch* launch = nullptr;
  for (const Command& c : cmds)
    if (c.kind == Command::Kind::Dispatch) launch = c.launch;
  Packet pre[2];
  uint32_t npre = 0;
  Grow grow;
  if (auto st = prepare_grow(launch->private_segment_bytes, &grow, pre, &npre); !st) {
    if (big) (void)mem_.free(big);
    return st;
  }
  auto first = q_->reserve(npre + total);
  if (!first) {
    q_->discard_scratch(grow.scratch);
    if (big) (void)mem_.free(big);
    return first.error();
  }
  uint64_t index = *first;
  if (!big_.empty()) reap_big(index);
  for (uint32_t i = 0; i < npre; ++i) q_->write(index++, pre[i]);
  start_grow(std::move(grow));
  q_->ring_doorbell(write_commands(cmds, index, big) - 1);
  return {};
}

}  // namespace

base::Result<std::unique_ptr<ManagedQueue>> make_aql_managed(const gpu::Device& gpu, mem::Context& memory,
                                                             EventManager& events, ScratchWindows& scratch,
                                                             const ManagedQueueOptions& opts) {
  auto q = std::make_unique<AqlManaged>(gpu, memory);
  KFD_TRY(q->init(events, scratch, opts));
  return std::unique_ptr<ManagedQueue>(std::move(q));
}

}  // namespace queues
