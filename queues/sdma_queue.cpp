// SPDX-License-Identifier: MIT
// SdmaQueue: creation on the topology's SDMA engines, padded submissions, chunked copies and fills, fences.
#include "queues/sdma_queue.h"

#include <linux/kfd_ioctl.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "queues/runtime.h"

namespace queues {

using Clock = spin::Clock;

base::Result<std::unique_ptr<SdmaQueue>> SdmaQueue::create(Runtime& rt, const SdmaQueueOptions& o) {
  const mem::Gpu* gpu = o.gpu_id ? rt.memory().gpu(o.gpu_id) : rt.gpus().front().get();
  if (!gpu) return base::Error::msg("create SDMA queue: unknown GPU " + base::hex(o.gpu_id), ENODEV);
  if (!std::has_single_bit(o.ring_bytes) || o.ring_bytes < KFD_MIN_QUEUE_RING_SIZE ||
      o.ring_bytes > (1u << 30))
    return base::Error::msg("create SDMA queue: ring size " + std::to_string(o.ring_bytes) +
                                " bytes is not a power of two in 1 KiB..1 GiB", EINVAL);
  if (o.priority > 15 || o.percentage == 0 || o.percentage > 100)
    return base::Error::msg("create SDMA queue: priority " + std::to_string(o.priority) +
                                " or percentage " + std::to_string(o.percentage) + " out of range",
                            EINVAL);
  const auto& p = gpu->props();
  const uint32_t engines = o.xgmi ? p.num_sdma_xgmi_engines : p.num_sdma_engines;
  if (engines == 0)
    return base::Error::of_kind(base::ErrorKind::NotSupported,
                                std::string("create SDMA queue: GPU ") + base::hex(gpu->gpu_id) +
                                    " has no " + (o.xgmi ? "XGMI " : "") +
                                    "SDMA engines (topology num_sdma" + (o.xgmi ? "_xgmi" : "") +
                                    "_engines 0)", ENODEV);
  std::unique_ptr<SdmaQueue> q(new SdmaQueue(rt));
  if (auto st = q->init(*gpu, o); !st) return st.error();
  return q;
}

base::Status SdmaQueue::init(const mem::Gpu& gpu, const SdmaQueueOptions& o) {
  family_ = gpu.family;
  xgmi_ = o.xgmi;
  KFD_ASSIGN(void* f, rt_.memory().allocate(queue_buffer_request(
                          mem::Heap::Gtt, mem::Coherence::Uncached, mem::kPageSize, gpu.gpu_id)));
  fence_ = static_cast<uint32_t*>(f);
  *fence_ = 0;
  RingSetup s;
  s.kind = RingKind::Sdma;
  s.queue_type = o.xgmi ? KFD_IOC_QUEUE_TYPE_SDMA_XGMI : KFD_IOC_QUEUE_TYPE_SDMA;
  s.ring_bytes = o.ring_bytes;
  s.priority = o.priority;
  s.percentage = o.percentage;
  KFD_TRY(ring_.create(gpu, s, o.xgmi ? "SDMA (XGMI) queue" : "SDMA queue"));
  const uint32_t v = gpu.props().gfx_target_version;
  min_dwords_ = pm4::sdma::min_submission_dwords(v);
  hdp_flush_ = family_->major >= 9 && !(v >= 100100 && v < 100200);
  return {};
}

SdmaQueue::~SdmaQueue() { (void)destroy(); }

base::Status SdmaQueue::destroy() {
  base::Status st = ring_.destroy();
  if (fence_) (void)rt_.memory().free(fence_);
  fence_ = nullptr;
  return st;
}

base::Status SdmaQueue::finish_emit(uint32_t reserved, size_t written) {
  uint32_t* at = ring_.ring() + (ring_.pending_index() & (ring_.ring_dwords() - 1));
  ring_.write_nops(at + written, uint32_t(reserved - written));
  ring_.advance(reserved);
  ring_.publish();
  return {};
}

base::Status SdmaQueue::submit(std::span<const uint32_t> packets, std::chrono::nanoseconds timeout) {
  if (packets.empty()) return base::Error::msg("SDMA queue submit: no packets", EINVAL);
  return emit(uint32_t(packets.size()), [&](uint32_t* out) {
    std::memcpy(out, packets.data(), packets.size_bytes());
    return packets.size();
  }, timeout);
}

// Splits `bytes` into submissions of at most a quarter of the ring, each
// [HDP flush] packets... and the completion after the last.
template <class Chunk>
base::Status SdmaQueue::chunked(uint64_t bytes, uint32_t dwords_per_packet, const SdmaCompletion* done,
                                std::chrono::nanoseconds timeout, Chunk&& write_chunk) {
  const auto deadline = spin::deadline_after(Clock::now(), timeout);
  const uint64_t max_packet = family_->sdma_max_copy_bytes;
  const uint64_t tail = pm4::sdma::kPollRegMemDwords + (done ? sdma_signal_dwords(*done) : 0);
  const uint64_t budget = std::max<uint64_t>(ring_.ring_dwords() / 4, dwords_per_packet + tail + 8);
  const uint64_t per_submit = std::max<uint64_t>(1, (budget - tail) / dwords_per_packet) * max_packet;
  uint64_t off = 0;
  do {
    const uint64_t n = std::min(bytes - off, per_submit);
    const bool last = off + n == bytes;
    const uint32_t dw = uint32_t((n + max_packet - 1) / max_packet * dwords_per_packet +
                                 (hdp_flush_ ? pm4::sdma::kPollRegMemDwords : 0) +
                                 (last && done ? sdma_signal_dwords(*done) : 0));
    base::Status chunk_status;
    const auto left = deadline - Clock::now();
    KFD_TRY(emit(dw, [&](uint32_t* out) -> size_t {
      size_t k = hdp_flush_ ? pm4::sdma::write_hdp_flush(out) : 0;
      auto w = write_chunk(out + k, off, n);
      if (!w) {
        chunk_status = w.error();
        return 0;  // all NOPs
      }
      k += *w;
      if (last && done) k += write_sdma_signal(out + k, *done);
      return k;
    }, left.count() > 0 ? std::chrono::duration_cast<std::chrono::nanoseconds>(left)
                        : std::chrono::nanoseconds(0)));
    KFD_TRY(chunk_status);
    off += n;
  } while (off < bytes);
  return {};
}

base::Status SdmaQueue::copy(uint64_t dst, uint64_t src, uint64_t bytes, const SdmaCompletion* done,
                             std::chrono::nanoseconds timeout) {
  if (bytes == 0 && !done) return {};
  return chunked(bytes, pm4::sdma::kCopyLinearDwords, done, timeout,
                 [&](uint32_t* out, uint64_t off, uint64_t n) -> base::Result<size_t> {
                   return write_sdma_copy(out, *family_, dst + off, src + off, n);
                 });
}

base::Status SdmaQueue::fill(uint64_t dst, uint32_t value, uint64_t bytes, const SdmaCompletion* done,
                             std::chrono::nanoseconds timeout) {
  if (dst % 4 || bytes % 4)
    return base::Error::msg("SDMA queue fill: destination " + base::hex(dst) + " and size " +
                                std::to_string(bytes) + " must be multiples of 4", EINVAL);
  if (bytes == 0 && !done) return {};
  return chunked(bytes, pm4::sdma::kConstFillDwords, done, timeout,
                 [&](uint32_t* out, uint64_t off, uint64_t n) {
                   return write_sdma_fill(out, *family_, dst + off, value, n);
                 });
}

base::Status SdmaQueue::signal(const SdmaCompletion& c, std::chrono::nanoseconds timeout) {
  const uint32_t n = sdma_signal_dwords(c);
  if (n == 0) return base::Error::msg("SDMA queue signal: no signal", EINVAL);
  return emit(n, [&](uint32_t* out) { return write_sdma_signal(out, c); }, timeout);
}

base::Status SdmaQueue::wait_signal(uint64_t value_address, Cond cond, int64_t operand,
                                    std::chrono::nanoseconds timeout) {
  uint32_t cmd[kSdmaWaitSignalDwords];
  KFD_ASSIGN(size_t n, write_sdma_wait_signal(cmd, value_address, cond, operand));
  return submit(std::span(cmd, n), timeout);
}

base::Status SdmaQueue::wait_idle(std::chrono::nanoseconds timeout) {
  const auto start = Clock::now();
  const auto deadline = spin::deadline_after(start, timeout);
  uint32_t seq;
  {
    std::lock_guard lk(ring_.mutex());
    KFD_TRY(ring_.check_alive("wait_idle"));
    seq = last_seq_ + 1;
    const uint32_t reserved = padded(pm4::sdma::kFenceDwords);
    KFD_ASSIGN(uint32_t * out, ring_.reserve(reserved, deadline));
    const size_t n = pm4::sdma::write_fence(out, reinterpret_cast<uint64_t>(fence_), seq);
    KFD_TRY(finish_emit(reserved, n));
    last_seq_ = seq;
  }
  KFD_TRY(spin::poll(
      1024, deadline, [&] { return int32_t(completed_fence() - seq) >= 0; },
      [&] { return ring_.check_device(); },
      [&](Clock::time_point now) -> base::Status {
        return base::Error::msg(std::string(ring_.name()) + " " + std::to_string(queue_id()) +
                                    " not idle after " + std::to_string(spin::ms_since(start, now)) +
                                    " ms (fence " + std::to_string(completed_fence()) +
                                    ", waiting for " + std::to_string(seq) + "; read index " +
                                    std::to_string(read_index()) + ", write index " +
                                    std::to_string(write_index()) + " dwords)", ETIMEDOUT);
      }));
  // A faulting copy may still be followed by its fence on hardware: a fault already seen is
  // reported even then.
  return ring_.known_faults();
}

}  // namespace queues
