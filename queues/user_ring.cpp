// SPDX-License-Identifier: MIT
// UserRing: PM4 and SDMA queue creation (Linux 6.12 buffer rules), room with NOP padding, publish.
#include "queues/user_ring.h"

#include <linux/kfd_ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kfd/uapi_ext.h"
#include "memory/context.h"
#include "pm4/sdma.h"
#include "pm4/type3.h"
#include "queues/runtime.h"

namespace queues {

using Clock = spin::Clock;

base::Status UserRing::allocate(const mem::Gpu& gpu, const RingSetup& s) {
  mem::Context& ctx = rt_.memory();
  const uint32_t id = gpu.gpu_id;
  mem::AllocRequest rr = queue_buffer_request(mem::Heap::Gtt, mem::Coherence::Uncached, s.ring_bytes, id);
  // Command memory the engines fetch is mapped executable, as ROCr allocates its rings and PM4
  // IBs (AllocateExecutable) and kfdtest its queue buffers.
  rr.executable = true;
  KFD_ASSIGN(void* ring, ctx.allocate(rr));
  ring_ = static_cast<uint32_t*>(ring);
  KFD_ASSIGN(void* r, ctx.allocate(queue_buffer_request(mem::Heap::Gtt, mem::Coherence::Uncached,
                                                        mem::kPageSize, id)));
  rptr_ = static_cast<uint64_t*>(r);
  KFD_ASSIGN(void* w, ctx.allocate(queue_buffer_request(mem::Heap::Gtt, mem::Coherence::Uncached,
                                                        mem::kPageSize, id)));
  wptr_ = static_cast<uint64_t*>(w);
  std::memset(ring_, 0, s.ring_bytes);
  *rptr_ = 0;
  *wptr_ = 0;
  if (s.compute_buffers) KFD_TRY(allocate_compute_buffers(ctx, gpu, sizes_, &compute_));
  return {};
}

base::Status UserRing::create(const mem::Gpu& gpu, const RingSetup& s, const char* name) {
  name_ = name;
  kind_ = s.kind;
  gpu_id_ = gpu.gpu_id;
  dwords_ = s.ring_bytes / 4;
  // gfx9 and later take 64-bit write pointers and doorbells for both engines; older parts (32-bit
  // wrapping pointers) are not in the family table.
  if (!gpu.family || gpu.family->major < 9)
    return base::Error::of_kind(base::ErrorKind::NotSupported,
                                std::string(name) + ": GPU " + base::hex(gpu.gpu_id) +
                                    " (gfx_target_version " +
                                    std::to_string(gpu.props().gfx_target_version) +
                                    ") is older than gfx9", ENOTSUP);
  if (s.compute_buffers) sizes_ = pm4::queue_buffer_sizes(gpu.props());
  if (auto st = allocate(gpu, s); !st) {
    free_buffers();
    return st;
  }
  kfd::QueueArgs a;
  a.gpu_id = gpu_id_;
  a.queue_type = s.queue_type;
  a.ring_base_address = reinterpret_cast<uint64_t>(ring_);
  a.ring_size = s.ring_bytes;
  a.write_pointer_address = reinterpret_cast<uint64_t>(wptr_);
  a.read_pointer_address = reinterpret_cast<uint64_t>(rptr_);
  a.queue_percentage = s.percentage;
  a.queue_priority = s.priority;
  a.eop_buffer_address = reinterpret_cast<uint64_t>(compute_.eop);
  a.eop_buffer_size = compute_.eop ? sizes_.eop_size : 0;
  a.ctx_save_restore_address = reinterpret_cast<uint64_t>(compute_.cwsr);
  a.ctx_save_restore_size = compute_.cwsr ? sizes_.ctx_save_restore_size : 0;
  a.ctl_stack_size = compute_.cwsr ? sizes_.ctl_stack_size : 0;
  auto info = rt_.memory().kfd().create_queue(a);
  if (!info) {
    free_buffers();
    return info.error().context(std::string(name) + " on GPU " + base::hex(gpu_id_));
  }
  created_ = true;
  queue_id_ = info->queue_id;
  auto slice = rt_.doorbell_slice(gpu, info->doorbell_offset);
  if (!slice) {
    (void)destroy();
    return slice.error();
  }
  doorbell_ = reinterpret_cast<volatile uint64_t*>(
      *slice + (info->doorbell_offset & (kfd::uapi::kDoorbellSliceSize - 1)));
  return {};
}

void UserRing::free_buffers() {
  mem::Context& ctx = rt_.memory();
  for (void** p : {reinterpret_cast<void**>(&ring_), reinterpret_cast<void**>(&rptr_),
                   reinterpret_cast<void**>(&wptr_)}) {
    if (*p) (void)ctx.free(*p);
    *p = nullptr;
  }
  free_compute_buffers(ctx, &compute_);
}

base::Status UserRing::destroy() {
  base::Status st;
  if (created_) {
    st = rt_.memory().kfd().destroy_queue(queue_id_);
    created_ = false;
  }
  free_buffers();
  doorbell_ = nullptr;
  return st;
}

base::Status UserRing::check_alive(const char* op) const {
  if (created_) return {};
  return base::Error::msg(std::string(name_) + " " + op + ": the queue was destroyed", EINVAL);
}

base::Status UserRing::check_device() { return rt_.check_device(true); }

base::Status UserRing::known_faults() { return rt_.check_device(false); }

uint64_t UserRing::read_index() const {
  // The read pointer first: it never passes what was published before it was read, so the
  // distance below is the real one (less than the ring).
  const uint64_t r = kind_ == RingKind::Pm4
                         ? uint64_t(__atomic_load_n(reinterpret_cast<const uint32_t*>(rptr_), __ATOMIC_ACQUIRE))
                         : __atomic_load_n(rptr_, __ATOMIC_ACQUIRE) / 4;
  const uint64_t pub = published_index();
  // Works for the CP's wrapping 32-bit pointer and the SDMA engine's monotonic one alike.
  return pub - ((pub - r) & (uint64_t(dwords_) - 1));
}

void UserRing::write_nops(uint32_t* out, uint32_t dwords) const {
  // One NOP covers at most 2^14 dwords in either format (14-bit count fields).
  constexpr uint32_t kMaxNop = 1u << 14;
  while (dwords) {
    const uint32_t n = std::min(dwords, kMaxNop);
    if (kind_ == RingKind::Pm4)
      pm4::write_nop(out, n);
    else
      pm4::sdma::write_nop(out, n);
    out += n;
    dwords -= n;
  }
}

base::Status UserRing::wait_room(uint64_t end, Clock::time_point deadline) {
  if (end - cached_read_ <= uint64_t(dwords_) - 1) return {};
  cached_read_ = read_index();
  if (end - cached_read_ <= uint64_t(dwords_) - 1) return {};
  const auto start = Clock::now();
  return spin::poll(
      256, deadline, [&] { return end - (cached_read_ = read_index()) <= uint64_t(dwords_) - 1; },
      [&] { return check_device(); },
      [&](Clock::time_point now) -> base::Status {
        return base::Error::msg(std::string(name_) + " " + std::to_string(queue_id_) + " full for " +
                                    std::to_string(spin::ms_since(start, now)) + " ms (read index " +
                                    std::to_string(read_index()) + " dwords, waiting to write up to " +
                                    std::to_string(end) + " of a " + std::to_string(dwords_) +
                                    "-dword ring)", ETIMEDOUT);
      });
}

base::Result<uint32_t*> UserRing::reserve(uint32_t dwords, Clock::time_point deadline) {
  KFD_TRY(check_alive("reserve"));
  if (dwords == 0 || dwords > dwords_ - 1)
    return base::Error::msg(std::string(name_) + " reserve: " + std::to_string(dwords) +
                                " dwords do not fit a " + std::to_string(dwords_) +
                                "-dword ring (at most ring - 1 dwords in flight)", EINVAL);
  const uint32_t off = uint32_t(pending_ & (dwords_ - 1));
  if (off + dwords > dwords_) {
    const uint32_t pad = dwords_ - off;
    KFD_TRY(wait_room(pending_ + pad, deadline));
    write_nops(ring_ + off, pad);
    pending_ += pad;
    publish();  // the engine must consume the pad before the packet can have its room
  }
  KFD_TRY(wait_room(pending_ + dwords, deadline));
  return ring_ + (pending_ & (dwords_ - 1));
}

void UserRing::publish() {
  if (pending_ == published_) return;
  const uint64_t value = kind_ == RingKind::Pm4 ? pending_ : pending_ * 4;
  __atomic_store_n(wptr_, value, __ATOMIC_RELEASE);
  spin::ring_doorbell64(doorbell_, value);
  __atomic_store_n(&published_, pending_, __ATOMIC_RELEASE);
}

base::Status UserRing::wait_consumed(std::chrono::nanoseconds timeout) {
  KFD_TRY(check_alive("wait_consumed"));
  const auto start = Clock::now();
  const uint64_t target = published_index();
  return spin::poll(
      1024, spin::deadline_after(start, timeout), [&] { return read_index() >= target; },
      [&] { return check_device(); },
      [&](Clock::time_point now) -> base::Status {
        return base::Error::msg(std::string(name_) + " " + std::to_string(queue_id_) +
                                    " has not read its ring after " +
                                    std::to_string(spin::ms_since(start, now)) + " ms (read index " +
                                    std::to_string(read_index()) + ", write index " +
                                    std::to_string(target) + " dwords)", ETIMEDOUT);
      });
}

}  // namespace queues
