// SPDX-License-Identifier: MIT
// The copy engine's two paths (SDMA queue, blit kernels on an AQL queue) and the work items they take.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "queues/aql_queue.h"
#include "queues/copy_engine.h"
#include "queues/sdma_queue.h"

namespace queues {

// The paths' device-only scratch buffer for staging and overlapping moves: its size, and one
// allocation of it on `gpu_id` (VRAM without host access, as a small-BAR GPU has it).
inline constexpr uint64_t kCopyTempBytes = 4u << 20;
base::Result<void*> allocate_copy_temp(Runtime& rt, uint32_t gpu_id);

// One unit of an operation, in the order it must run: a linear copy (non-overlapping), a fill
// of `bytes` bytes with the rotated pattern dword `word` of a `width`-byte value, or a rectangle.
struct CopyPiece {
  enum class Op : uint8_t { Copy, Fill, Rect } op = Op::Copy;
  uint8_t width = 4;
  uint32_t word = 0;
  uint64_t dst = 0, src = 0, bytes = 0;
  CopyRect rect;
};

// The pieces of one operation, reused per thread (no allocation per operation once warm).
std::vector<CopyPiece>& scratch_pieces();

// Operations on one SDMA queue: [POLL_REGMEM waits] [HDP flush] packets... [completion],
// emitted in submissions of at most a quarter of the ring. In-order execution on the queue
// orders the pieces of an operation and consecutive operations.
class SdmaCopier {
 public:
  static base::Result<std::unique_ptr<SdmaCopier>> create(Runtime& rt, const gpu::Device& gpu, uint32_t ring_bytes);
  ~SdmaCopier();
  base::Status submit(std::span<const CopyPiece> pieces, const CopyOrder& o);
  // Whether SDMA can run a fill of this pattern at this destination (CONSTANT_FILL writes whole
  // dwords; the unaligned ends are copied from a table of 16-bit patterns).
  static bool can_fill(uint64_t dst, uint32_t word, unsigned width);
  static bool can_wait(std::span<const CopyWait> w);
  // A device-only VRAM buffer of at least `bytes` for staged moves (used in queue order only).
  base::Result<uint64_t> temp();  // kCopyTempBytes of device-only VRAM, allocated once
  base::Status wait_idle(std::chrono::nanoseconds timeout) { return q_->wait_idle(timeout); }
  uint64_t ops() const { return ops_.load(std::memory_order_relaxed); }

 private:
  SdmaCopier(Runtime& rt, const gpu::Device& gpu) : rt_(rt), gpu_(gpu) {}
  base::Status encode(std::span<const CopyPiece> pieces);
  base::Status encode_fill(const CopyPiece& p);
  base::Status encode_rect(const CopyRect& r);
  base::Result<uint64_t> pattern_table();
  void end_packet() { ends_.push_back(uint32_t(body_.size())); }

  Runtime& rt_;
  const gpu::Device& gpu_;
  std::unique_ptr<SdmaQueue> q_;
  const pm4::Family* family_ = nullptr;
  std::mutex mu_;                   // encode buffers, temp and the pattern table
  std::vector<uint32_t> body_;      // dwords of the operation being encoded
  std::vector<uint32_t> ends_;      // packet boundaries in body_
  void* table_ = nullptr;           // 64 Ki x 4 bytes: the 16-bit pattern w at 4w, twice
  void* temp_ = nullptr;
  std::atomic<uint64_t> ops_{0};
};

// Operations as dispatches of kfdrt's blit kernels on an AQL queue of its own: [BARRIER_VALUE
// per wait] dispatch... with the barrier bit on every packet (each starts once the one before
// finished) and system-scope acquire and release, the last completing the operation's signal.
class BlitCopier {
 public:
  static base::Result<std::unique_ptr<BlitCopier>> create(Runtime& rt, const gpu::Device& gpu, uint32_t packets,
                                                           uint32_t max_threads);
  ~BlitCopier();
  base::Status submit(std::span<const CopyPiece> pieces, const CopyOrder& o);
  base::Result<uint64_t> temp();  // kCopyTempBytes of device-only VRAM, allocated once
  base::Status wait_idle(std::chrono::nanoseconds timeout);
  uint64_t ops() const { return ops_.load(std::memory_order_relaxed); }
  const blit::Kernels& kernels() const { return *kernels_; }

 private:
  BlitCopier(Runtime& rt, const gpu::Device& gpu) : rt_(rt), gpu_(gpu) {}
  base::Result<Packet> dispatch(const CopyPiece& p, uint64_t index, uint64_t completion) const;
  base::Status write_batch(std::span<const Packet> pkts);

  Runtime& rt_;
  const gpu::Device& gpu_;
  std::unique_ptr<blit::Kernels> kernels_;
  std::unique_ptr<AqlQueue> q_;
  uint32_t max_threads_ = 0;
  uint8_t* kernargs_ = nullptr;     // 2 x packets slots: a slot is rewritten only once its
  uint32_t slots_ = 0;              // dispatch has finished (the barrier bits order them)
  std::mutex mu_;                   // submissions and the temp buffer
  // Signals of waits that gave up while the CP may still write them: freed with the queue.
  std::vector<std::unique_ptr<Signal>> abandoned_;  // mu_
  void* temp_ = nullptr;
  std::atomic<uint64_t> ops_{0};
};

static constexpr size_t kKernargSlot = 128;

}  // namespace queues
