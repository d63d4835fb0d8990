// SPDX-License-Identifier: MIT
// SDMA queue (KFD_IOC_QUEUE_TYPE_SDMA / SDMA_XGMI): packet streams, chunked copies and fills, fences.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>

#include "base/result.h"
#include "pm4/family.h"
#include "queues/sdma_commands.h"
#include "queues/signal.h"
#include "queues/user_ring.h"

namespace queues {


struct SdmaQueueOptions {
  uint32_t gpu_id = 0;               // 0: the first GPU
  uint32_t ring_bytes = 256u << 10;  // a power of two, 1 KiB .. 1 GiB
  bool xgmi = false;                 // an XGMI-optimized engine (the topology must report some)
  uint32_t priority = 7;
  uint32_t percentage = 100;
};

// One SDMA queue (no EOP, no CWSR; the driver picks the engine). Thread-safe like Pm4Queue.
// Packets execute in order, so a FENCE after a copy is written once the copy is done: wait_idle
// and the completions use that. An SDMA queue has no error signal: a bad address shows as the
// device's fault (a KFD MEMORY event naming it), which every wait reports.
class SdmaQueue {
 public:
  static base::Result<std::unique_ptr<SdmaQueue>> create(const gpu::Device& gpu, mem::Context& memory,
                                                         EventManager& events, const SdmaQueueOptions& o);
  ~SdmaQueue();
  SdmaQueue(const SdmaQueue&) = delete;
  SdmaQueue& operator=(const SdmaQueue&) = delete;
  base::Status destroy();

  uint32_t queue_id() const { return ring_.queue_id(); }
  uint32_t gpu_id() const { return ring_.gpu_id(); }
  uint32_t ring_bytes() const { return ring_.ring_dwords() * 4; }
  bool xgmi() const { return xgmi_; }
  const pm4::Family& family() const { return *family_; }
  // Ring positions in dwords (the engine counts bytes: 4x these).
  uint64_t write_index() const { return ring_.published_index(); }
  uint64_t read_index() const { return ring_.read_index(); }
  uint32_t* ring() const { return ring_.ring(); }
  // Whether copies and fills start with an HDP flush (host writes to VRAM through the BAR reach
  // memory before the engine reads): gfx9+ except gfx10.1, as ROCr's BlitSdma decides.
  bool hdp_flush() const { return hdp_flush_; }

  // Copies whole SDMA packets into the ring (padded to the engine's minimum submission, and to the
  // ring's start when they would cross its end) and rings the doorbell.
  base::Status submit(std::span<const uint32_t> packets, std::chrono::nanoseconds timeout = kForever);
  template <class Fill>
  base::Status emit(uint32_t dwords, Fill&& fill, std::chrono::nanoseconds timeout = kForever);

  // dst <- src, `bytes` bytes (any alignment), then the completion when given. Copies larger than
  // a quarter of the ring go out in several submissions.
  base::Status copy(uint64_t dst, uint64_t src, uint64_t bytes, const SdmaCompletion* done = nullptr,
                    std::chrono::nanoseconds timeout = kForever);
  // Fills with a dword pattern (dst and bytes multiples of 4).
  base::Status fill(uint64_t dst, uint32_t value, uint64_t bytes, const SdmaCompletion* done = nullptr,
                    std::chrono::nanoseconds timeout = kForever);

  // Completes a signal once everything before it executed.
  base::Status signal(const SdmaCompletion& c, std::chrono::nanoseconds timeout = kForever);
  // Holds the queue's later work until the 64-bit value at `value_address` satisfies
  // `cond operand` (write_sdma_wait_signal).
  base::Status wait_signal(uint64_t value_address, Cond cond, int64_t operand,
                           std::chrono::nanoseconds timeout = kForever);

  // Waits until everything submitted so far executed (a FENCE after it, waited for).
  base::Status wait_idle(std::chrono::nanoseconds timeout = kForever);
  // Waits until the engine has read everything published (kfdtest's Wait4PacketConsumption).
  base::Status wait_consumed(std::chrono::nanoseconds timeout = kForever) {
    return ring_.wait_consumed(timeout);
  }
  uint32_t completed_fence() const { return __atomic_load_n(fence_, __ATOMIC_ACQUIRE); }

 private:
  SdmaQueue(mem::Context& memory, EventManager& events) : mem_(memory), ring_(memory, events) {}
  base::Status init(const gpu::Device& gpu, const SdmaQueueOptions& o);
  base::Status finish_emit(uint32_t reserved, size_t written);
  uint32_t padded(uint32_t dwords) const { return dwords < min_dwords_ ? min_dwords_ : dwords; }
  template <class Chunk>
  base::Status chunked(uint64_t bytes, uint32_t dwords_per_packet, const SdmaCompletion* done,
                       std::chrono::nanoseconds timeout, Chunk&& write_chunk);

  mem::Context& mem_;
  UserRing ring_;
  const pm4::Family* family_ = nullptr;
  bool xgmi_ = false;
  bool hdp_flush_ = false;
  uint32_t min_dwords_ = 0;
  uint32_t* fence_ = nullptr;  // a page of its own
  uint32_t last_seq_ = 0;      // under the ring's mutex
};

template <class Fill>
base::Status SdmaQueue::emit(uint32_t dwords, Fill&& fill, std::chrono::nanoseconds timeout) {
  std::lock_guard lk(ring_.mutex());
  const uint32_t reserved = padded(dwords);
  // No clock read unless there is a deadline: the ring is rarely full.
  const auto deadline = timeout == kForever ? spin::Clock::time_point::max()
                                            : spin::deadline_after(spin::Clock::now(), timeout);
  KFD_ASSIGN(uint32_t * out, ring_.reserve(reserved, deadline));
  const size_t written = fill(out);
  if (written > dwords)
    return base::Error::msg("SDMA queue emit: wrote " + std::to_string(written) + " dwords into " +
                                std::to_string(dwords) + " reserved", EINVAL);
  return finish_emit(reserved, written);
}

}  // namespace queues
