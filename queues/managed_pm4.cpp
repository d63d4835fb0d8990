// SPDX-License-Identifier: MIT
// The PM4 backend of ManagedQueue: dispatches and barriers as PM4 commands, kernarg slots by fence, scratch swapped per dispatch.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "pm4/kernel_descriptor.h"
#include "queues/managed_backends.h"
#include "queues/pm4_queue.h"

namespace queues {
namespace {

constexpr uint32_t kKernargSlots = 1024;

class Pm4Managed final : public ManagedQueue {
 public:
  Pm4Managed(const gpu::Device& gpu, mem::Context& memory, ScratchWindows& scratch)
      : ManagedQueue(Engine::Pm4, gpu), mem_(memory), scratch_(scratch) {}
  ~Pm4Managed() override;
  base::Status init(EventManager& events, const ManagedQueueOptions& o);

  uint64_t queue_address() const override { return reinterpret_cast<uint64_t>(q_->amd_queue()); }
  uint32_t queue_id() const override { return q_->queue_id(); }
  base::Status submit(std::span<const Command> cmds) override;
  base::Status release_scratch() override;

 private:
  struct BigArgs {
    uint32_t seq;  // freed once the fence passed the dispatch that read them
    void* mem;
  };
  base::Status check(const Command& c);
  base::Result<const Pm4Kernel*> kernel(uint64_t kernel_object);
  base::Status barrier(const Command& c);
  base::Status dispatch(const Command& c);
  base::Status ensure_scratch(const Pm4Kernel& k, const KernelLaunch& l);
  void reap_big();

  mem::Context& mem_;
  ScratchWindows& scratch_;
  bool profile_ = true;
  std::unique_ptr<Pm4Queue> q_;
  std::mutex mu_;
  std::unordered_map<uint64_t, Pm4Kernel> kernels_;  // by kernel object (mu_)
  uint8_t* kernarg_ = nullptr;
  std::vector<uint32_t> slot_seq_;  // the fence of each slot's last dispatch (mu_)
  uint64_t dispatches_ = 0;         // (mu_)
  std::deque<BigArgs> big_;         // (mu_)
};

base::Status Pm4Managed::init(EventManager& events, const ManagedQueueOptions& o) {
  profile_ = o.profiling;
  Pm4QueueOptions po;
  po.gpu_id = gpu().gpu_id;
  po.ring_bytes = o.pm4_ring_bytes;
  po.priority = o.priority;
  KFD_ASSIGN(q_, Pm4Queue::create(gpu(), mem_, events, scratch_, po));
  KFD_ASSIGN(void* ka, mem_.allocate_kernarg(size_t(kKernargSlots) * ManagedQueueOptions::kKernargSlot, 4096));
  kernarg_ = static_cast<uint8_t*>(ka);
  slot_seq_.assign(kKernargSlots, 0);
  return {};
}

Pm4Managed::~Pm4Managed() {
  if (q_) (void)q_->destroy();  // first: the CP may still read arguments
  for (const BigArgs& b : big_) (void)mem_.free(b.mem);
  if (kernarg_) (void)mem_.free(kernarg_);
}

// Everything a command needs is checked before any of the submission is written.
base::Status Pm4Managed::check(const Command& c) {
  if (c.kind == Command::Kind::Dispatch) {
    if (!c.launch) return base::Error::msg("dispatch command without a launch", EINVAL);
    KFD_TRY(check_launch(*c.launch));
    KFD_ASSIGN(const Pm4Kernel* k, kernel(c.launch->kernel_object));
    (void)k;
    return {};
  }
  if (c.wait_count > Command::kMaxWaits || (c.wait_count && !c.waits))
    return base::Error::msg("barrier: " + std::to_string(c.wait_count) + " conditions (at most " +
                                std::to_string(Command::kMaxWaits) + ", given)", EINVAL);
  for (uint32_t i = 0; i < c.wait_count; ++i) {
    const WaitCondition& w = c.waits[i];
    if (!w.signal) return base::Error::msg("barrier: condition without a signal", EINVAL);
    uint32_t scratch[kPm4WaitSignalDwords];
    KFD_TRY(write_pm4_wait_signal(scratch, reinterpret_cast<uint64_t>(&w.signal->amd()->value), w.cond, w.value));
  }
  return {};
}

base::Result<const Pm4Kernel*> Pm4Managed::kernel(uint64_t kernel_object) {
  if (auto it = kernels_.find(kernel_object); it != kernels_.end()) return &it->second;
  if (kernel_object % 64)
    return base::Error::msg("PM4 dispatch: kernel object " + base::hex(kernel_object) + " is not 64-byte aligned", EINVAL);
  // The descriptor lives in host-visible code memory (the loader wrote it there).
  pm4::KernelDescriptor kd;
  std::memcpy(&kd, reinterpret_cast<const void*>(uintptr_t(kernel_object)), sizeof kd);
  KFD_ASSIGN(Pm4Kernel k, make_pm4_kernel(kd, kernel_object, *gpu().family));
  return &kernels_.emplace(kernel_object, k).first->second;
}

base::Status Pm4Managed::barrier(const Command& c) {
  Pm4Queue::Wait waits[Command::kMaxWaits];
  for (uint32_t i = 0; i < c.wait_count; ++i)
    waits[i] = {reinterpret_cast<uint64_t>(&c.waits[i].signal->amd()->value), c.waits[i].cond, c.waits[i].value};
  Pm4Queue::Barrier b;
  b.waits = std::span<const Pm4Queue::Wait>(waits, c.wait_count);
  b.fence = c.fence;
  if (const Signal* s = c.completion.signal) {
    b.completion = signal_target(*s);
    b.completion_decrement = !c.completion.value_known;
    b.completion_value = c.completion.value_after;
    b.profile = profile_;
  }
  return q_->barrier(b);
}

// A dispatch needing more scratch than the queue has gets a larger store from now on; the
// running dispatches keep the old one until their fence passes (Pm4Queue::replace_scratch).
base::Status Pm4Managed::ensure_scratch(const Pm4Kernel& k, const KernelLaunch& l) {
  const uint32_t lane = (std::max(k.private_segment_fixed_size, l.private_segment_bytes) + 3u) & ~3u;
  const bool need = lane > 0 || (k.properties & pm4::kUsesDynamicStack);
  if (!need || (q_->scratch_lane_bytes() && lane <= q_->scratch_lane_bytes())) return {};
  auto p = scratch_.prepare(gpu(), std::max(lane, 4u));
  if (!p) {
    base::Error e = base::Error::msg("no scratch for a kernel needing " + std::to_string(lane) +
                                         " bytes per work-item on PM4 queue " + std::to_string(q_->queue_id()) +
                                         " (it has " + std::to_string(q_->scratch_lane_bytes()) + "): " +
                                         p.error().message, ENOMEM);
    std::fprintf(stderr, "kfdrt: %s\n", e.message.c_str());
    return e;
  }
  q_->replace_scratch(*p);
  return {};
}

void Pm4Managed::reap_big() {
  while (!big_.empty() && int32_t(q_->completed_fence() - big_.front().seq) >= 0) {
    (void)mem_.free(big_.front().mem);
    big_.pop_front();
  }
}

base::Status Pm4Managed::dispatch(const Command& c) {
  const KernelLaunch& l = *c.launch;
  KFD_ASSIGN(const Pm4Kernel* k, kernel(l.kernel_object));
  KFD_TRY(ensure_scratch(*k, l));
  uint8_t* args = nullptr;
  void* big = nullptr;
  const uint32_t slot = uint32_t(dispatches_ % kKernargSlots);
  if (l.kernarg_size > ManagedQueueOptions::kKernargSlot) {
    KFD_ASSIGN(big, mem_.allocate_kernarg(l.kernarg_size, std::max<size_t>(l.kernarg_align, 64)));
    args = static_cast<uint8_t*>(big);
  } else {
    // The slot's last dispatch may still read it: reuse it once that dispatch's fence passed.
    if (slot_seq_[slot]) KFD_TRY(q_->wait_fence(slot_seq_[slot]));
    args = kernarg_ + size_t(slot) * ManagedQueueOptions::kKernargSlot;
  }
  write_kernarg(l, args);
  Pm4Launch pl;
  pl.kernel = k;
  pl.dims = l.dims;
  for (int i = 0; i < 3; ++i) pl.grid[i] = l.grid[i], pl.workgroup[i] = l.block[i];
  pl.dynamic_group_bytes = l.group_segment_bytes > k->group_segment_fixed_size
                               ? l.group_segment_bytes - k->group_segment_fixed_size : 0;
  pl.private_segment_bytes = l.private_segment_bytes;
  pl.kernarg_address = reinterpret_cast<uint64_t>(args);
  pl.kernarg = std::span<const uint8_t>(args, l.kernarg_size);
  pl.fence = Fence{true, c.fence.acquire, c.fence.release};
  if (const Signal* s = c.completion.signal) {
    pl.completion = signal_target(*s);
    pl.completion_decrement = !c.completion.value_known;
    pl.completion_value = c.completion.value_after;
    pl.profile = profile_;
  }
  if (auto st = q_->dispatch(pl); !st) {
    if (big) (void)mem_.free(big);
    return st;
  }
  const uint32_t seq = q_->issued_fence();
  if (big) big_.push_back({seq, big});
  else slot_seq_[slot] = seq;
  ++dispatches_;
  return {};
}

base::Status Pm4Managed::submit(std::span<const Command> cmds) {
  std::lock_guard lk(mu_);
  for (const Command& c : cmds) KFD_TRY(check(c));
  if (!big_.empty()) reap_big();
  for (const Command& c : cmds) KFD_TRY(c.kind == Command::Kind::Dispatch ? dispatch(c) : barrier(c));
  return {};
}

base::Status Pm4Managed::release_scratch() {
  std::lock_guard lk(mu_);
  if (q_->scratch_lane_bytes() == 0) return {};
  return q_->grow_scratch(0, std::chrono::seconds(1));
}

}  // namespace

base::Result<std::unique_ptr<ManagedQueue>> make_pm4_managed(const gpu::Device& gpu, mem::Context& memory,
                                                             EventManager& events, ScratchWindows& scratch,
                                                             const ManagedQueueOptions& opts) {
  if (!gpu.family)
    return base::Error::of_kind(base::ErrorKind::NotSupported,
                                "PM4 managed queue: GPU " + base::hex(gpu.gpu_id) + " (gfx_target_version " +
                                    std::to_string(gpu.props().gfx_target_version) + ") has no family entry",
                                ENOTSUP);
  auto q = std::make_unique<Pm4Managed>(gpu, memory, scratch);
  KFD_TRY(q->init(events, opts));
  return std::unique_ptr<ManagedQueue>(std::move(q));
}

}  // namespace queues
