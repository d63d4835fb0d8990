// SPDX-License-Identifier: MIT
// The AQL producer protocol: reserve with back-pressure, publish with release, ring the doorbell.
#include <cerrno>
#include <cstring>

#include "queues/aql_queue.h"
#include "queues/spin.h"

namespace queues {
namespace {

using Clock = spin::Clock;
using spin::ms_since;
using spin::poll;

}  // namespace

base::Status AqlQueue::check_alive(const char* op) const {
  if (created_) return {};
  return base::Error::msg(std::string(op) + ": the AQL queue was destroyed", EINVAL);
}

base::Status AqlQueue::wait_for_space(uint64_t end, Clock::time_point start,
                                     Clock::time_point deadline) {
  return poll(
      256, deadline, [&] { return end - read_index() <= size_; },
      [&]() -> base::Status {
        KFD_TRY(error());
        return events_.check_device(true);
      },
      [&](Clock::time_point now) -> base::Status {
        return base::Error::msg("AQL queue " + std::to_string(queue_id_) + " full for " +
                               std::to_string(ms_since(start, now)) + " ms (read index " +
                               std::to_string(read_index()) + ", waiting to write up to " +
                               std::to_string(end) + ")", ETIMEDOUT);
      });
}

base::Result<uint64_t> AqlQueue::reserve(uint32_t count, std::chrono::nanoseconds timeout) {
  if (!created_ || count == 0 || count > size_ || (inactive_ && error_code() != 0)) [[unlikely]] {
    KFD_TRY(check_alive("AQL queue reserve"));
    if (count == 0 || count > size_)
      return base::Error::msg("AQL queue reserve: " + std::to_string(count) + " packets on a ring of " +
                             std::to_string(size_), EINVAL);
    KFD_TRY(error());
  }
  if (timeout == kForever) {
    // Claim first, then wait for the device to free the slots (HSA's add-then-wait protocol).
    uint64_t index = __atomic_fetch_add(&amdq_->write_dispatch_id, uint64_t(count), __ATOMIC_ACQ_REL);
    // The device's read index lives on a cache line it writes; a host-side copy that is only
    // refreshed when the ring looks full saves a cache-line transfer per packet.
    if (index + count - cached_read_.load(std::memory_order_relaxed) > size_) [[unlikely]] {
      if (index + count - read_index() > size_) {
        const auto start = Clock::now();  // (a clock read costs tens of ns: only when waiting)
        KFD_TRY(wait_for_space(index + count, start, spin::deadline_after(start, timeout)));
      }
      cached_read_.store(read_index(), std::memory_order_relaxed);
    }
    return index;
  }
  const auto start = Clock::now();
  const auto deadline = spin::deadline_after(start, timeout);
  // With a timeout a claim must be undone-free: claim only once the slots are free (CAS), so a
  // producer that gives up leaves no hole in the ring. One deadline for all rounds: losing the
  // race to other producers must not restart the clock.
  uint64_t w = write_index();
  for (;;) {
    if (w + count - read_index() > size_) {
      KFD_TRY(wait_for_space(w + count, start, deadline));
      w = write_index();
      continue;
    }
    if (__atomic_compare_exchange_n(&amdq_->write_dispatch_id, &w, w + count, true,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return w;
  }
}

void AqlQueue::write(uint64_t index, const Packet& p) {
  Packet* slot = &ring_[index & mask_];
  // Body first (dwords 1..15), then the header+setup dword with release order so the device
  // never sees a valid header in front of a stale body.
  std::memcpy(&slot->dw[1], &p.dw[1], sizeof(Packet) - sizeof(uint32_t));
  __atomic_store_n(&slot->dw[0], p.dw[0], __ATOMIC_RELEASE);
}

void AqlQueue::ring_doorbell(uint64_t index) {
  spin::ring_doorbell64(doorbell_, index);
  spin::prefetch_for_write(&ring_[(index + 1) & mask_]);  // the slot the next packet most likely takes
}

base::Status AqlQueue::submit(const Packet& p) {
  KFD_ASSIGN(uint64_t index, reserve(1));
  write(index, p);
  ring_doorbell(index);
  return {};
}

base::Status AqlQueue::wait_idle(std::chrono::nanoseconds timeout) {
  KFD_TRY(check_alive("AQL queue wait_idle"));
  const auto start = Clock::now();
  const uint64_t target = write_index();
  KFD_TRY(poll(
      1024, spin::deadline_after(start, timeout), [&] { return read_index() >= target; },
      [&]() -> base::Status {
        KFD_TRY(error());
        return events_.check_device(true);
      },
      [&](Clock::time_point now) -> base::Status {
        return base::Error::msg("AQL queue " + std::to_string(queue_id_) + " not idle after " +
                               std::to_string(ms_since(start, now)) + " ms (read index " +
                               std::to_string(read_index()) + ", write index " +
                               std::to_string(target) + ")", ETIMEDOUT);
      }));
  return error();
}

}  // namespace queues
