// SPDX-License-Identifier: MIT
// AQL user-mode queue: buffers the kernel validates, amd_queue_t, doorbell, multi-producer protocol.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>

#include "pm4/queue_sizes.h"
#include "base/result.h"
#include "pm4/aql.h"
#include "queues/packets.h"
#include "queues/queue_memory.h"
#include "queues/scratch.h"
#include "queues/scratch_window.h"
#include "queues/signal.h"

namespace queues {

struct QueueOptions {
  uint32_t gpu_id = 0;      // 0: the first GPU
  uint32_t packets = 4096;  // ring size in packets: a power of two, 16 .. 2^25 (2 GiB)
  uint32_t priority = 7;    // 0..15
  uint32_t percentage = 100;
  // Scratch (private segment) bytes per work-item; 0 = none. The HIP layer sizes it from the
  // kernels' private_segment_fixed_size. A kernel needing more than the queue has faults on a
  // real GPU: grow it with AqlQueue::grow_scratch while the queue is idle, or create the queue
  // with the largest size its kernels need.
  uint32_t scratch_lane_bytes = 0;
  bool profiling = false;  // amd_queue_t ENABLE_PROFILING: the CP stamps signal start/end_ts
};

// One AQL queue. Producers may call reserve/write/ring_doorbell (or submit) from any thread.
// Destroying the queue with packets pending is allowed (they are dropped); producers must have
// stopped. Owned by the caller; the GPU, the allocator, the events and the scratch windows it is
// created with must outlive it (queues::Runtime bundles them).
class AqlQueue {
 public:
  static base::Result<std::unique_ptr<AqlQueue>> create(const gpu::Device& gpu, mem::Context& memory,
                                                        EventManager& events, ScratchWindows& scratch,
                                                        const QueueOptions& opts);
  ~AqlQueue();
  AqlQueue(const AqlQueue&) = delete;
  AqlQueue& operator=(const AqlQueue&) = delete;

  // DESTROY_QUEUE, then frees the ring, amd_queue_t, EOP and CWSR buffers (in that order: the
  // kernel holds the buffers while the queue lives). Idempotent.
  base::Status destroy();

  uint32_t size() const { return size_; }  // packets
  uint32_t queue_id() const { return queue_id_; }
  uint32_t gpu_id() const { return gpu_id_; }
  const gpu::Device& gpu() const { return gpu_; }
  aql::AmdQueue* amd_queue() const { return amdq_; }
  uint64_t handle() const { return reinterpret_cast<uint64_t>(amdq_); }  // hsa_queue_t*
  const pm4::QueueBufferSizes& buffer_sizes() const { return sizes_; }
  const scratch::Layout& scratch_layout() const { return scratch_layout_; }
  const scratch::Slice& scratch_slice() const { return scratch_slice_; }

  // Replaces the scratch with one of `lane_bytes` per work-item (larger or smaller; 0 frees it)
  // on a queue with no wave running and none about to start. read index == write index is checked
  // (EBUSY otherwise) but is not enough on hardware, where the CP advances read_dispatch_id when
  // it launches a kernel: the caller must also know the kernels finished (a barrier-bit marker
  // behind them completed). No producer may submit until it returns. The old backing store is
  // freed first; when the new one cannot be had (ENOMEM) the queue gets its old size back if it
  // can, else it is left without scratch.
  base::Status grow_scratch(uint32_t lane_bytes);

  // Scratch replaced while the queue keeps running, in two steps (how HIP grows a queue's scratch
  // without blocking its producers). prepare_scratch allocates and encodes a backing store of
  // `lane_bytes` per work-item beside the current one (halving the slots under memory pressure)
  // and changes nothing the device reads. commit_scratch installs it and frees the old store:
  // call it only when no wave of this queue runs and none can start before it returns (a
  // barrier-bit marker behind all earlier packets completed, and the CP waits at a BARRIER_VALUE
  // gate the caller opens afterwards). discard_scratch frees a prepared store never committed.
  using PreparedScratch = scratch::Prepared;
  base::Result<PreparedScratch> prepare_scratch(uint32_t lane_bytes);
  void commit_scratch(const PreparedScratch& p);
  void discard_scratch(const PreparedScratch& p);

  uint64_t read_index() const { return __atomic_load_n(&amdq_->read_dispatch_id, __ATOMIC_ACQUIRE); }
  uint64_t write_index() const { return __atomic_load_n(&amdq_->write_dispatch_id, __ATOMIC_ACQUIRE); }

  // Claims `count` consecutive packet slots and returns the first index. Without a timeout: an
  // atomic add on write_dispatch_id, then a wait while the ring is full (back-pressure). With a
  // timeout: claims (compare-and-swap) only once the slots are free, so giving up with
  // ETIMEDOUT leaves no unwritten slot. Every claimed slot must be written. Fails at once when
  // the queue is in error or the device faulted.
  base::Result<uint64_t> reserve(uint32_t count = 1, std::chrono::nanoseconds timeout = kForever);
  // Writes the packet body, then stores its first dword (header + setup) with release order.
  void write(uint64_t index, const Packet& p);
  // The same for a kernel dispatch built in place (the launch path: one copy into the ring).
  void write(uint64_t index, const aql::KernelDispatchPacket& k) {
    Packet* slot = &ring_[index & mask_];
    std::memcpy(reinterpret_cast<uint8_t*>(slot) + 4, reinterpret_cast<const uint8_t*>(&k) + 4, sizeof k - 4);
    uint32_t dw0;
    std::memcpy(&dw0, &k, sizeof dw0);
    __atomic_store_n(&slot->dw[0], dw0, __ATOMIC_RELEASE);
  }
  // Store fence, then the 64-bit doorbell write of the packet index.
  void ring_doorbell(uint64_t index);
  // reserve + write + ring_doorbell.
  base::Status submit(const Packet& p);

  // Waits until the device has consumed every packet written so far.
  base::Status wait_idle(std::chrono::nanoseconds timeout = kForever);
  // The error the device reported for this queue (through queue_inactive_signal), if any.
  base::Status error() const;
  int64_t error_code() const { return __atomic_load_n(&inactive_->value, __ATOMIC_ACQUIRE); }

 private:
  AqlQueue(const gpu::Device& gpu, mem::Context& memory, EventManager& events, ScratchWindows& scratch)
      : gpu_(gpu), mem_(memory), events_(events), scratch_(scratch) {}
  base::Status init(const QueueOptions& opts);
  base::Status allocate_buffers();
  void init_amd_queue();
  base::Status wait_for_space(uint64_t end, std::chrono::steady_clock::time_point start,
                             std::chrono::steady_clock::time_point deadline);
  base::Status check_alive(const char* op) const;
  void free_buffers();
  base::Status setup_scratch(uint32_t lane_bytes);

  const gpu::Device& gpu_;
  mem::Context& mem_;
  EventManager& events_;
  ScratchWindows& scratch_;
  uint32_t gpu_id_ = 0;
  uint32_t size_ = 0;
  uint64_t mask_ = 0;
  uint32_t queue_id_ = 0;
  bool created_ = false;
  bool registered_ = false;
  pm4::QueueBufferSizes sizes_;
  Packet* ring_ = nullptr;
  aql::AmdQueue* amdq_ = nullptr;
  ComputeBuffers compute_;  // EOP and CWSR
  aql::AmdSignal* inactive_ = nullptr;
  aql::AmdSignal* doorbell_signal_ = nullptr;
  volatile uint64_t* doorbell_ = nullptr;
  scratch::Layout scratch_layout_;
  scratch::Slice scratch_slice_;
  alignas(64) std::atomic<uint64_t> cached_read_{0};  // a recent read_dispatch_id (never ahead)
};

}  // namespace queues
