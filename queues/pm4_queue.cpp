// SPDX-License-Identifier: MIT
// Pm4Queue: creation with its amd_queue_t and scratch, raw packets, dispatches with fences, idle waits.
#include "queues/trace_hooks.h"
#include "queues/pm4_queue.h"

#include <linux/kfd_ioctl.h>

#include <bit>
#include <cerrno>
#include <cstring>


namespace queues {

using Clock = spin::Clock;

base::Result<std::unique_ptr<Pm4Queue>> Pm4Queue::create(const gpu::Device& gpu, mem::Context& memory,
                                                        EventManager& events, ScratchWindows& scratch,
                                                        const Pm4QueueOptions& o) {
  // KFD_MIN_QUEUE_RING_SIZE is the kernel's floor; a power of two as the CP's QUEUE_SIZE encodes.
  if (!std::has_single_bit(o.ring_bytes) || o.ring_bytes < KFD_MIN_QUEUE_RING_SIZE ||
      o.ring_bytes > (1u << 30))
    return base::Error::msg("create PM4 queue: ring size " + std::to_string(o.ring_bytes) +
                                " bytes is not a power of two in 1 KiB..1 GiB", EINVAL);
  if (o.priority > 15 || o.percentage == 0 || o.percentage > 100)
    return base::Error::msg("create PM4 queue: priority " + std::to_string(o.priority) +
                                " or percentage " + std::to_string(o.percentage) + " out of range",
                            EINVAL);
  std::unique_ptr<Pm4Queue> q(new Pm4Queue(gpu, memory, events, scratch));
  if (auto st = q->init(o); !st) return st.error();
  return q;
}

base::Status Pm4Queue::init(const Pm4QueueOptions& o) {
  const gpu::Device& gpu = *gpu_;
  family_ = gpu.family;
  mem::Context& ctx = mem_;
  KFD_ASSIGN(void* aux, ctx.allocate(queue_buffer_request(mem::Heap::Gtt, mem::Coherence::Uncached,
                                                          kAuxBytes, gpu.gpu_id)));
  aux_ = static_cast<uint8_t*>(aux);
  std::memset(aux_, 0, kAuxBytes);
  amdq_ = reinterpret_cast<aql::AmdQueue*>(aux_);
  fence_ = reinterpret_cast<uint32_t*>(aux_ + kFenceOffset);
  slots_ = reinterpret_cast<Packet*>(aux_ + kSlotsOffset);
  RingSetup s;
  s.kind = RingKind::Pm4;
  s.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE;
  s.ring_bytes = o.ring_bytes;
  s.priority = o.priority;
  s.percentage = o.percentage;
  s.compute_buffers = true;
  KFD_TRY(ring_.create(gpu, s, "PM4 queue"));  // checks the family: gfx9 or later
  init_amd_queue_device_fields(*amdq_, gpu);
  amdq_->hsa_queue.base_address = reinterpret_cast<uint64_t>(ring_.ring());
  amdq_->hsa_queue.id = ring_.queue_id();
  // The queue runs kernel dispatches (written as PM4 commands by the runtime); its size of 0
  // says it has no AQL packet slots for anyone to write.
  amdq_->hsa_queue.type = aql::kQueueTypeMulti;
  amdq_->hsa_queue.features = aql::kQueueFeatureKernelDispatch;
  amdq_->queue_properties = scratch::kPropIsPtr64;
  if (o.scratch_lane_bytes) {
    KFD_ASSIGN(scratch_, scratch_windows_.prepare(gpu, o.scratch_lane_bytes));
    scratch::apply(*amdq_, scratch_.fields);
  }
  return {};
}

Pm4Queue::~Pm4Queue() { (void)destroy(); }

void Pm4Queue::free_buffers() {
  for (const Retired& r : retired_) scratch_windows_.release(gpu_->gpu_id, r.store.slice);
  retired_.clear();
  scratch_windows_.release(gpu_->gpu_id, scratch_.slice);
  scratch_ = {};
  if (aux_) (void)mem_.free(aux_);
  aux_ = nullptr;
  amdq_ = nullptr;
  fence_ = nullptr;
  slots_ = nullptr;
}

base::Status Pm4Queue::destroy() {
  base::Status st = ring_.destroy();  // first: the CP may still read the aux buffer and scratch
  free_buffers();
  return st;
}

Pm4QueueContext Pm4Queue::context() const {
  Pm4QueueContext c;
  c.family = family_;
  const uint32_t lds_kb = gpu_->props().lds_size_in_kb;
  c.lds_bytes = lds_kb ? lds_kb << 10 : 65536;
  c.trap_present = ring_.buffer_sizes().cwsr;  // the driver installs its CWSR trap handler
  c.tmpring_size = scratch_.fields.compute_tmpring_size;
  std::memcpy(c.scratch_srd, scratch_.fields.srd.word, sizeof c.scratch_srd);
  c.scratch_base = scratch_.slice.base;
  c.scratch_lane_bytes = scratch_.layout.lane_bytes;
  c.amd_queue = reinterpret_cast<uint64_t>(amdq_);
  c.dispatch_id = dispatches_;
  return c;
}

base::Status Pm4Queue::finish_emit(uint32_t dwords, size_t written) {
  uint32_t* at = ring_.ring() + (ring_.pending_index() & (ring_.ring_dwords() - 1));
  if (written > dwords)  // the caller overran its reservation: the ring is already damaged
    return base::Error::msg("PM4 queue emit: wrote " + std::to_string(written) + " dwords into " +
                                std::to_string(dwords) + " reserved", EINVAL);
  ring_.write_nops(at + written, uint32_t(dwords - written));
  ring_.advance(dwords);
  ring_.publish();
  return {};
}

base::Status Pm4Queue::submit(std::span<const uint32_t> packets, std::chrono::nanoseconds timeout) {
  if (packets.empty()) return base::Error::msg("PM4 queue submit: no packets", EINVAL);
  trace_pm4(gpu_id(), queue_id(), packets.size());
  return emit(uint32_t(packets.size()), [&](uint32_t* out) {
    std::memcpy(out, packets.data(), packets.size_bytes());
    return packets.size();
  }, timeout);
}

base::Status Pm4Queue::wait_fence_until(uint32_t seq, Clock::time_point deadline) {
  const auto start = Clock::now();
  return spin::poll(
      1024, deadline, [&] { return int32_t(completed_fence() - seq) >= 0; }, [&] { return ring_.check_device(); },
      [&](Clock::time_point now) -> base::Status {
        return base::Error::msg("PM4 queue " + std::to_string(queue_id()) + " not idle after " +
                                    std::to_string(spin::ms_since(start, now)) + " ms (fence " +
                                    std::to_string(completed_fence()) + ", waiting for " +
                                    std::to_string(seq) + "; read index " +
                                    std::to_string(read_index()) + ", write index " +
                                    std::to_string(write_index()) + " dwords)", ETIMEDOUT);
      });
}

base::Status Pm4Queue::wait_fence(uint32_t seq, std::chrono::nanoseconds timeout) {
  return wait_fence_until(seq, spin::deadline_after(Clock::now(), timeout));
}

uint32_t Pm4Queue::tail_dwords(const SignalTarget& c, bool decrement, bool profile) const {
  const bool stamp = profile && c.value_address;
  return (stamp ? kPm4EndTimestampDwords : 0) + pm4::kReleaseMemDwords +
         (decrement && c.value_address ? pm4_decrement_dwords(c) : pm4_signal_dwords(c));
}

size_t Pm4Queue::write_tail(uint32_t* out, uint32_t seq, uint32_t cache, const SignalTarget& c,
                            int64_t value, bool decrement, bool profile) const {
  size_t n = 0;
  if (profile && c.value_address) n += write_pm4_end_stamp(out + n, c);
  const uint64_t fence = reinterpret_cast<uint64_t>(fence_);
  n += write_pm4_fence(out + n, fence, seq, cache);
  if (decrement && c.value_address)
    n += write_pm4_decrement(out + n, c, fence, seq);
  else
    n += write_pm4_signal(out + n, *family_, c, value, false);
  return n;
}

void Pm4Queue::reap_scratch() {
  while (!retired_.empty() && fence_reached(retired_.front().seq)) {
    scratch_windows_.release(gpu_->gpu_id, retired_.front().store.slice);
    retired_.pop_front();
  }
}

// The trace record of a dispatch or barrier (tracing on): what it runs, what it waits for and
// completes, its fence scopes; the probe it returns is stamped around the commands.
uint64_t Pm4Queue::trace_dispatch(const Pm4Launch& l) {
  trace::Record r;
  r.op = trace::Op::Pm4Dispatch;
  r.gpu = gpu_id();
  r.queue = queue_id();
  r.index = ring_.pending_index();
  r.object = l.kernel ? l.kernel->kernel_object : 0;
  for (int i = 0; i < 3; ++i) r.grid[i] = l.grid[i], r.workgroup[i] = l.workgroup[i];
  r.acquire = l.fence.acquire, r.release = l.fence.release;
  r.completion = l.completion.value_address ? l.completion.value_address - offsetof(aql::AmdSignal, value) : 0;
  return trace_pm4_command(mem_, r);
}

uint64_t Pm4Queue::trace_barrier(const Barrier& b) {
  trace::Record r;
  r.op = b.waits.empty() ? trace::Op::Marker : trace::Op::BarrierAnd;
  r.gpu = gpu_id();
  r.queue = queue_id();
  r.index = ring_.pending_index();
  for (const Wait& w : b.waits)
    if (r.ndeps < 5) r.deps[r.ndeps++] = w.value_address - offsetof(aql::AmdSignal, value), r.operand = w.operand;
  r.acquire = b.fence.acquire, r.release = b.fence.release;
  r.completion = b.completion.value_address ? b.completion.value_address - offsetof(aql::AmdSignal, value) : 0;
  return trace_pm4_command(mem_, r);
}

base::Status Pm4Queue::dispatch(const Pm4Launch& l, std::chrono::nanoseconds timeout) {
  std::lock_guard lk(ring_.mutex());
  KFD_TRY(ring_.check_alive("dispatch"));
  const auto deadline = spin::deadline_after(Clock::now(), timeout);
  if (!retired_.empty()) reap_scratch();
  Pm4QueueContext ctx = context();
  const bool uses_packet = l.kernel && (l.kernel->properties & pm4::kEnableSgprDispatchPtr);
  const uint32_t slot = uint32_t(dispatches_ % kPacketSlots);
  if (uses_packet) {
    // The slot's last kernel may still read it: reuse it only once that dispatch's fence passed.
    if (slot_seq_[slot]) KFD_TRY(wait_fence_until(slot_seq_[slot], deadline));
    ctx.dispatch_packet = reinterpret_cast<uint64_t>(&slots_[slot]);
  }
  KFD_ASSIGN(Pm4DispatchRegs regs, plan_pm4_dispatch(l, ctx));
  const bool barrier = l.fence.barrier && !fence_reached(last_seq_);
  const bool stamp = l.profile && l.completion.value_address;
  const uint64_t probe = trace::on() ? trace_dispatch(l) : 0;
  const uint32_t seq = last_seq_ + 1;
  const uint32_t total = (barrier ? pm4::kWaitRegMemDwords : 0) + (stamp ? kPm4TimestampDwords : 0) +
                         (probe ? kPm4TimestampDwords + kPm4EndTimestampDwords : 0) +
                         pm4_dispatch_dwords(regs) +
                         tail_dwords(l.completion, l.completion_decrement, l.profile);
  if (uses_packet) {
    KFD_ASSIGN(Packet p, pm4_dispatch_packet(l));
    std::memcpy(&slots_[slot], &p, sizeof p);
    __atomic_thread_fence(__ATOMIC_RELEASE);
  }
  KFD_ASSIGN(uint32_t * out, ring_.reserve(total, deadline));
  size_t n = 0;
  if (barrier) n += write_pm4_wait_equal(out + n, reinterpret_cast<uint64_t>(fence_), last_seq_);
  if (stamp) n += write_pm4_start_stamp(out + n, l.completion);
  if (probe) n += write_pm4_timestamp(out + n, probe + offsetof(aql::AmdSignal, start_ts));
  n += write_pm4_dispatch(out + n, regs);
  if (probe) n += write_pm4_end_timestamp(out + n, probe + offsetof(aql::AmdSignal, end_ts));
  const uint32_t cache = pm4::release_for_scope(*family_, l.fence.release);
  n += write_tail(out + n, seq, cache, l.completion, l.completion_value, l.completion_decrement, l.profile);
  ring_.advance(uint32_t(n));
  ring_.publish();
  last_seq_ = seq;
  if (uses_packet) slot_seq_[slot] = seq;
  ++dispatches_;
  return {};
}

base::Status Pm4Queue::barrier(const Barrier& b, std::chrono::nanoseconds timeout) {
  std::lock_guard lk(ring_.mutex());
  KFD_TRY(ring_.check_alive("barrier"));
  const auto deadline = spin::deadline_after(Clock::now(), timeout);
  if (!retired_.empty()) reap_scratch();
  // The waits are built first: a condition the CP cannot test fails before the ring is touched.
  constexpr size_t kMaxWaits = 16;
  if (b.waits.size() > kMaxWaits)
    return base::Error::msg("PM4 queue barrier: " + std::to_string(b.waits.size()) + " conditions (at most " +
                                std::to_string(kMaxWaits) + ")", EINVAL);
  uint32_t waits[kMaxWaits * kPm4WaitSignalDwords];
  size_t nw = 0;
  for (const Wait& w : b.waits) {
    KFD_ASSIGN(size_t k, write_pm4_wait_signal(waits + nw, w.value_address, w.cond, w.operand));
    nw += k;
  }
  const bool acquire = b.fence.acquire != aql::kScopeNone;
  const bool stamp = b.profile && b.completion.value_address;
  const uint64_t probe = trace::on() ? trace_barrier(b) : 0;
  const uint32_t seq = last_seq_ + 1;
  const uint32_t total = (stamp ? kPm4TimestampDwords : 0) + uint32_t(nw) +
                         (probe ? kPm4TimestampDwords + kPm4EndTimestampDwords : 0) +
                         (acquire ? pm4::acquire_mem_dwords(family_->acquire_mem) : 0) +
                         tail_dwords(b.completion, b.completion_decrement, b.profile);
  KFD_ASSIGN(uint32_t * out, ring_.reserve(total, deadline));
  size_t n = 0;
  if (stamp) n += write_pm4_start_stamp(out + n, b.completion);
  std::memcpy(out + n, waits, nw * 4);
  n += nw;
  // The trace's start is when the waits are satisfied, as for a barrier on an AQL queue (whose
  // start the packet processor takes once the dependencies are met): a barrier is drawn from the
  // moment it could proceed, and a dependency always ends before its waiter starts.
  if (probe) n += write_pm4_timestamp(out + n, probe + offsetof(aql::AmdSignal, start_ts));
  if (acquire) n += pm4::write_acquire_mem(out + n, pm4::acquire_for_scope(*family_, b.fence.acquire), family_->acquire_mem);
  if (probe) n += write_pm4_end_timestamp(out + n, probe + offsetof(aql::AmdSignal, end_ts));
  const uint32_t cache = pm4::release_for_scope(*family_, b.fence.release);
  n += write_tail(out + n, seq, cache, b.completion, b.completion_value, b.completion_decrement, b.profile);
  ring_.advance(uint32_t(n));
  ring_.publish();
  last_seq_ = seq;
  return {};
}

base::Status Pm4Queue::signal(const SignalTarget& s, int64_t value, std::chrono::nanoseconds timeout) {
  if (!s.value_address && !s.mailbox) return base::Error::msg("PM4 queue signal: no signal", EINVAL);
  return emit(pm4_signal_dwords(s), [&](uint32_t* out) {
    return write_pm4_signal(out, *family_, s, value, true);
  }, timeout);
}

base::Status Pm4Queue::wait_signal(uint64_t value_address, Cond cond, int64_t operand,
                                   std::chrono::nanoseconds timeout) {
  uint32_t cmd[kPm4WaitSignalDwords];
  KFD_ASSIGN(size_t n, write_pm4_wait_signal(cmd, value_address, cond, operand));
  return submit(std::span(cmd, n), timeout);
}

base::Status Pm4Queue::wait_idle(std::chrono::nanoseconds timeout) {
  const auto deadline = spin::deadline_after(Clock::now(), timeout);
  uint32_t seq;
  {
    std::lock_guard lk(ring_.mutex());
    KFD_TRY(ring_.check_alive("wait_idle"));
    seq = last_seq_ + 1;
    KFD_ASSIGN(uint32_t * out, ring_.reserve(pm4::kReleaseMemDwords, deadline));
    write_pm4_fence(out, reinterpret_cast<uint64_t>(fence_), seq, pm4::release_cache_writeback(*family_));
    ring_.advance(pm4::kReleaseMemDwords);
    ring_.publish();
    last_seq_ = seq;
  }
  KFD_TRY(wait_fence_until(seq, deadline));
  reap_scratch();
  // On hardware a faulting write is dropped and the fence after it may still land: a fault the
  // runtime already saw is reported even then (its interrupt may also come later; the next wait
  // sees it).
  return ring_.known_faults();
}

base::Status Pm4Queue::grow_scratch(uint32_t lane_bytes, std::chrono::nanoseconds timeout) {
  std::lock_guard lk(ring_.mutex());
  KFD_TRY(ring_.check_alive("grow_scratch"));
  // Every dispatch so far carries the old store in its registers: let them finish first.
  KFD_TRY(wait_fence_until(last_seq_, spin::deadline_after(Clock::now(), timeout)));
  reap_scratch();
  KFD_TRY(scratch::layout(gpu_->props(), lane_bytes));  // a size the family cannot take: no change
  scratch_windows_.release(gpu_->gpu_id, scratch_.slice);
  scratch_ = {};
  auto p = scratch_windows_.prepare(*gpu_, lane_bytes);
  if (p) scratch_ = *p;
  scratch::apply(*amdq_, scratch_.fields);  // without scratch when the new store cannot be had
  if (!p) return p.error();
  return {};
}

}  // namespace queues

namespace queues {

void Pm4Queue::replace_scratch(const scratch::Prepared& p) {
  std::lock_guard lk(ring_.mutex());
  if (scratch_.slice.size) retired_.push_back({scratch_, last_seq_});
  scratch_ = p;
  scratch::apply(*amdq_, scratch_.fields);
  reap_scratch();
}

}  // namespace queues
