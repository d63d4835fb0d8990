// SPDX-License-Identifier: MIT
// PM4 compute queue (KFD_IOC_QUEUE_TYPE_COMPUTE): packet streams, kernel dispatches, fences, scratch.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <deque>
#include <mutex>
#include <span>

#include "base/result.h"
#include "pm4/aql.h"
#include "pm4/family.h"
#include "queues/pm4_commands.h"
#include "queues/scratch.h"
#include "queues/scratch_window.h"
#include "queues/signal.h"
#include "queues/user_ring.h"

namespace queues {


struct Pm4QueueOptions {
  uint32_t gpu_id = 0;                // 0: the first GPU
  uint32_t ring_bytes = 64u << 10;    // a power of two, 1 KiB (KFD_MIN_QUEUE_RING_SIZE) .. 1 GiB
  uint32_t priority = 7;              // 0..15
  uint32_t percentage = 100;
  // Scratch per work-item for the queue's dispatches (as QueueOptions::scratch_lane_bytes); a
  // dispatch needing more is refused with EINVAL. grow_scratch changes it.
  uint32_t scratch_lane_bytes = 0;
};

// One PM4 compute queue. Every submitting call is thread-safe (one lock per queue: PM4 packets are
// published in ring order) and fails at once with the device's error when the GPU faulted.
//
// Completion: dispatch() ends every dispatch with a RELEASE_MEM of the next sequence number into
// the queue's fence (at the end of the pipe, so after the kernel finished); a dispatch with
// Fence::barrier first waits (WAIT_REG_MEM) for the fence of the previous one. kfdtest's
// Dispatch.cpp uses the same RELEASE_MEM + WAIT_REG_MEM pair instead of EVENT_WRITE
// CS_PARTIAL_FLUSH, which it found to upset preemption. The fence also tells when a dispatch
// packet slot (for kernels reading their dispatch ptr) may be reused. Raw packets (submit/emit)
// run in ring order but are not fenced until the next dispatch or wait_idle.
//
// Destroying the queue with work pending is allowed (DESTROY_QUEUE preempts it); what the queue
// is created with (GPU, allocator, events, scratch windows) must outlive it, and producers must
// have stopped.
class Pm4Queue {
 public:
  static base::Result<std::unique_ptr<Pm4Queue>> create(const gpu::Device& gpu, mem::Context& memory,
                                                        EventManager& events, ScratchWindows& scratch,
                                                        const Pm4QueueOptions& o);
  ~Pm4Queue();
  Pm4Queue(const Pm4Queue&) = delete;
  Pm4Queue& operator=(const Pm4Queue&) = delete;
  // DESTROY_QUEUE, then frees every buffer. Idempotent.
  base::Status destroy();

  uint32_t queue_id() const { return ring_.queue_id(); }
  uint32_t gpu_id() const { return ring_.gpu_id(); }
  uint32_t ring_bytes() const { return ring_.ring_dwords() * 4; }
  const pm4::Family& family() const { return *family_; }
  const pm4::QueueBufferSizes& buffer_sizes() const { return ring_.buffer_sizes(); }
  // The amd_queue_t a kernel's queue ptr points at (scratch fields, apertures, ids).
  aql::AmdQueue* amd_queue() const { return amdq_; }
  uint32_t scratch_lane_bytes() const { return scratch_.layout.lane_bytes; }
  // Ring positions in dwords: published, and read by the CP (its 32-bit pointer made monotonic).
  uint64_t write_index() const { return ring_.published_index(); }
  uint64_t read_index() const { return ring_.read_index(); }
  uint32_t* ring() const { return ring_.ring(); }
  // Fence sequence: last issued by this queue, and last completed by the device.
  uint32_t issued_fence() const { return last_seq_; }
  uint32_t completed_fence() const { return __atomic_load_n(fence_, __ATOMIC_ACQUIRE); }

  // Copies whole PM4 packets into the ring (contiguously: padded to the ring's start when they
  // would cross its end) and rings the doorbell. Waits while the ring is full.
  base::Status submit(std::span<const uint32_t> packets, std::chrono::nanoseconds timeout = kForever);
  // Reserves `dwords` contiguous ring dwords, lets fill(uint32_t*) write at most that many (it
  // returns how many; the rest become a NOP), publishes. fill runs under the queue's lock and must
  // not call back into the queue. Builds a command once, in place.
  template <class Fill>
  base::Status emit(uint32_t dwords, Fill&& fill, std::chrono::nanoseconds timeout = kForever);

  // One kernel dispatch: [barrier wait] [ACQUIRE_MEM] SET_SH_REGs DISPATCH_DIRECT, fence,
  // [completion signal]. Writes the dispatch packet first when the kernel reads its dispatch ptr.
  base::Status dispatch(const Pm4Launch& l, std::chrono::nanoseconds timeout = kForever);

  // A barrier command, as an AQL barrier packet with its barrier bit: holds the queue's later work
  // until every condition in `waits` holds (write_pm4_wait_signal: Eq, or Lt with 0 < operand
  // <= 2^32), invalidates the caches when fence.acquire asks, then completes `completion` (as
  // Pm4Launch does: a value or a decrement by 1, optionally stamped) once everything before it
  // finished, the L2 written back first for a system-scope fence.release.
  struct Wait {
    uint64_t value_address = 0;  // &amd_signal_t.value
    Cond cond = Cond::Eq;
    int64_t operand = 0;
  };
  struct Barrier {
    std::span<const Wait> waits;
    Fence fence;
    SignalTarget completion;
    int64_t completion_value = 0;
    bool completion_decrement = false;
    bool profile = false;
  };
  base::Status barrier(const Barrier& b, std::chrono::nanoseconds timeout = kForever);

  // Completes `s` with `value` once everything before it finished (end of pipe), the L2 written
  // back first: what a stream's event record needs.
  base::Status signal(const SignalTarget& s, int64_t value, std::chrono::nanoseconds timeout = kForever);
  // Holds the queue's later work until the 64-bit value at `value_address` satisfies
  // `cond operand` (write_pm4_wait_signal: Eq, or Lt with 0 < operand <= 2^32).
  base::Status wait_signal(uint64_t value_address, Cond cond, int64_t operand,
                           std::chrono::nanoseconds timeout = kForever);

  // Waits until everything submitted so far has finished: a fence (with L2 write-back) after it,
  // waited for. ETIMEDOUT names the queue; a device fault ends it with the fault.
  base::Status wait_idle(std::chrono::nanoseconds timeout = kForever);
  // Waits until the CP has read everything published (kfdtest's Wait4PacketConsumption).
  base::Status wait_consumed(std::chrono::nanoseconds timeout = kForever) {
    return ring_.wait_consumed(timeout);
  }
  // Replaces the scratch with `lane_bytes` per work-item once every dispatch so far finished.
  base::Status grow_scratch(uint32_t lane_bytes, std::chrono::nanoseconds timeout = kForever);
  // Installs a store prepared with the queue's scratch windows for the dispatches from now on,
  // without waiting: each dispatch carries its scratch in its registers, so the running ones keep
  // the old store, which is freed once the fence of the last dispatch issued before passes.
  void replace_scratch(const scratch::Prepared& p);
  // Waits until the device's fence passed `seq` (issued_fence() after a command: its completion).
  base::Status wait_fence(uint32_t seq, std::chrono::nanoseconds timeout = kForever);

 private:
  Pm4Queue(const gpu::Device& gpu, mem::Context& memory, EventManager& events, ScratchWindows& scratch)
      : gpu_(&gpu), mem_(memory), scratch_windows_(scratch), ring_(memory, events) {}
  base::Status init(const Pm4QueueOptions& o);
  base::Status wait_fence_until(uint32_t seq, spin::Clock::time_point deadline);
  // The end of a command: [end stamp] fence RELEASE_MEM (`seq`, `cache`) and its completion.
  uint32_t tail_dwords(const SignalTarget& c, bool decrement, bool profile) const;
  uint64_t trace_dispatch(const Pm4Launch& l);
  uint64_t trace_barrier(const Barrier& b);
  size_t write_tail(uint32_t* out, uint32_t seq, uint32_t cache, const SignalTarget& c, int64_t value,
                    bool decrement, bool profile) const;
  void reap_scratch();  // frees replaced stores whose dispatches finished (ring mutex held)
  // Whether the device's fence passed `seq`; a value seen before answers first (the CP writes
  // the fence's cache line). Under the ring's mutex.
  bool fence_reached(uint32_t seq) {
    if (int32_t(cached_fence_ - seq) >= 0) return true;
    cached_fence_ = completed_fence();
    return int32_t(cached_fence_ - seq) >= 0;
  }
  Pm4QueueContext context() const;
  base::Status finish_emit(uint32_t dwords, size_t written);
  void free_buffers();

  static constexpr uint32_t kPacketSlots = 64;
  static constexpr uint64_t kFenceOffset = 0x400;
  static constexpr uint64_t kSlotsOffset = 0x1000;
  static constexpr uint64_t kAuxBytes = kSlotsOffset + kPacketSlots * aql::kPacketSize;

  const gpu::Device* gpu_;
  mem::Context& mem_;
  ScratchWindows& scratch_windows_;
  UserRing ring_;
  const pm4::Family* family_ = nullptr;
  uint8_t* aux_ = nullptr;  // amd_queue_t, fence, dispatch packet slots
  aql::AmdQueue* amdq_ = nullptr;
  uint32_t* fence_ = nullptr;
  Packet* slots_ = nullptr;
  scratch::Prepared scratch_;
  // Under the ring's mutex:
  uint32_t last_seq_ = 0;
  uint64_t dispatches_ = 0;  // dispatch id of the next dispatch
  uint32_t slot_seq_[kPacketSlots] = {};
  uint32_t cached_fence_ = 0;
  struct Retired {
    scratch::Prepared store;
    uint32_t seq;  // freed once the fence passed it
  };
  std::deque<Retired> retired_;
};

template <class Fill>
base::Status Pm4Queue::emit(uint32_t dwords, Fill&& fill, std::chrono::nanoseconds timeout) {
  std::lock_guard lk(ring_.mutex());
  KFD_ASSIGN(uint32_t * out, ring_.reserve(dwords, spin::deadline_after(spin::Clock::now(), timeout)));
  return finish_emit(dwords, fill(out));
}

}  // namespace queues
