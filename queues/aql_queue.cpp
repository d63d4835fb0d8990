// SPDX-License-Identifier: MIT
// AQL queue creation (Linux 6.12 buffer rules), amd_queue_t and scratch set-up, teardown.
#include "queues/aql_queue.h"

#include <linux/kfd_ioctl.h>

#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "memory/context.h"
#include "pm4/queue_error.h"
#include "queues/queue_memory.h"
#include "queues/runtime.h"

namespace queues {
namespace {

// amd_signal_t kind of a doorbell signal; its value field holds the hardware doorbell pointer.
constexpr int64_t kSignalKindDoorbell = -1;
constexpr uint32_t kHsaQueueTypeMulti = 0;
constexpr uint32_t kHsaQueueFeatureKernelDispatch = 1;

}  // namespace

base::Result<std::unique_ptr<AqlQueue>> AqlQueue::create(Runtime& rt, const QueueOptions& opts) {
  const mem::Gpu* gpu = opts.gpu_id ? rt.memory().gpu(opts.gpu_id) : rt.gpus().front().get();
  if (!gpu) return base::Error::msg("create_queue: unknown GPU " + base::hex(opts.gpu_id), ENODEV);
  // ring_size is a u32 byte count in CREATE_QUEUE: 2^25 packets (2 GiB) is the largest ring.
  if (!std::has_single_bit(opts.packets) || opts.packets < 16 || opts.packets > (1u << 25))
    return base::Error::msg("create_queue: ring size " + std::to_string(opts.packets) +
                           " packets is not a power of two in 16..2^25", EINVAL);
  if (opts.priority > 15 || opts.percentage == 0 || opts.percentage > 100)
    return base::Error::msg("create_queue: priority " + std::to_string(opts.priority) +
                           " or percentage " + std::to_string(opts.percentage) + " out of range",
                           EINVAL);
  std::unique_ptr<AqlQueue> q(new AqlQueue(rt));
  if (auto s = q->init(*gpu, opts); !s) return s.error();
  return q;
}

base::Status AqlQueue::allocate_buffers(const mem::Gpu& gpu) {
  mem::Context& ctx = rt_.memory();
  const uint32_t id = gpu.gpu_id;
  KFD_ASSIGN(void* ring, ctx.allocate(queue_buffer_request(mem::Heap::Gtt, mem::Coherence::Uncached,
                                                           size_t(size_) * aql::kPacketSize, id)));
  ring_ = static_cast<Packet*>(ring);
  // amd_queue_t alone in a one-page buffer: Linux 6.12 wants rptr and wptr each in the first
  // page of a mapping of exactly one page (kfd_queue_buffer_get compares page numbers), and
  // read_dispatch_id (@128) and write_dispatch_id (@56) both lie in that page.
  KFD_ASSIGN(void* q, ctx.allocate(queue_buffer_request(mem::Heap::Gtt, mem::Coherence::Uncached,
                                                        mem::kPageSize, id)));
  amdq_ = static_cast<aql::AmdQueue*>(q);
  KFD_TRY(allocate_compute_buffers(ctx, gpu, sizes_, &compute_));
  KFD_ASSIGN(inactive_, rt_.make_signal_storage(0, rt_.events().queue_error_event()));
  KFD_ASSIGN(doorbell_signal_, rt_.make_signal_storage(0, nullptr));
  return {};
}

base::Result<AqlQueue::PreparedScratch> AqlQueue::prepare_scratch(uint32_t lane_bytes) {
  return rt_.prepare_scratch(*gpu_, lane_bytes);
}

void AqlQueue::commit_scratch(const PreparedScratch& p) {
  scratch::apply(*amdq_, p.fields);
  __atomic_thread_fence(__ATOMIC_RELEASE);  // the CP reads the fields at the next dispatch
  rt_.release_scratch(gpu_id_, scratch_slice_);
  scratch_slice_ = p.slice;
  scratch_layout_ = p.layout;
}

void AqlQueue::discard_scratch(const PreparedScratch& p) { rt_.release_scratch(gpu_id_, p.slice); }

// Sizes, allocates and encodes the scratch (ROCr AqlQueue::InitScratchSRD); 0 clears it. The
// queue is idle (creation, grow_scratch), so the old backing store goes first and the new one
// may take its room in the window. When the new one cannot be had, the queue gets its old size
// back (failing that, no scratch) and the error is returned.
base::Status AqlQueue::setup_scratch(uint32_t lane_bytes) {
  KFD_TRY(scratch::layout(gpu_->props(), lane_bytes));  // a size the family cannot take: no change
  const uint32_t old_lane_bytes = scratch_layout_.lane_bytes;
  commit_scratch(PreparedScratch{});
  auto p = prepare_scratch(lane_bytes);
  if (!p) {
    if (old_lane_bytes)
      if (auto back = prepare_scratch(old_lane_bytes)) commit_scratch(*back);
    return p.error();
  }
  commit_scratch(*p);
  return {};
}

base::Status AqlQueue::grow_scratch(uint32_t lane_bytes) {
  if (!created_) return base::Error::msg("grow_scratch: the queue was destroyed", EINVAL);
  if (read_index() != write_index())
    return base::Error::msg("grow_scratch: AQL queue " + std::to_string(queue_id_) +
                           " is busy (read index " + std::to_string(read_index()) +
                           ", write index " + std::to_string(write_index()) + ")", EBUSY);
  return setup_scratch(lane_bytes);
}

void AqlQueue::init_amd_queue(const mem::Gpu& gpu) {
  std::memset(static_cast<void*>(amdq_), 0, sizeof *amdq_);
  for (uint32_t i = 0; i < size_; ++i) {
    ring_[i] = Packet{};
    ring_[i].dw[0] = aql::kTypeInvalid;  // all headers start INVALID
  }
  auto& h = amdq_->hsa_queue;
  h.type = kHsaQueueTypeMulti;
  h.features = kHsaQueueFeatureKernelDispatch;
  h.base_address = reinterpret_cast<uint64_t>(ring_);
  h.doorbell_signal = reinterpret_cast<uint64_t>(doorbell_signal_);
  h.size = size_;
  init_amd_queue_device_fields(*amdq_, gpu);
  amdq_->read_dispatch_id_field_base_byte_offset =
      uint32_t(offsetof(aql::AmdQueue, read_dispatch_id) - offsetof(aql::AmdQueue, hsa_queue));
  amdq_->queue_properties = scratch::kPropIsPtr64;
  amdq_->queue_inactive_signal = reinterpret_cast<uint64_t>(inactive_);
  doorbell_signal_->kind = kSignalKindDoorbell;
  doorbell_signal_->queue_ptr = reinterpret_cast<uint64_t>(amdq_);
}

base::Status AqlQueue::init(const mem::Gpu& gpu, const QueueOptions& opts) {
  gpu_id_ = gpu.gpu_id;
  size_ = opts.packets;
  mask_ = size_ - 1;
  gpu_ = &gpu;
  sizes_ = pm4::queue_buffer_sizes(gpu.props());
  KFD_TRY(allocate_buffers(gpu));
  init_amd_queue(gpu);
  if (opts.profiling) amdq_->queue_properties |= scratch::kPropEnableProfiling;
  // amd_queue_t complete before CREATE_QUEUE: a debugger may read it once the queue exists.
  KFD_TRY(setup_scratch(opts.scratch_lane_bytes));

  kfd::QueueArgs a;
  a.gpu_id = gpu_id_;
  a.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
  a.ring_base_address = reinterpret_cast<uint64_t>(ring_);
  a.ring_size = uint32_t(size_ * aql::kPacketSize);
  a.write_pointer_address = reinterpret_cast<uint64_t>(&amdq_->write_dispatch_id);
  a.read_pointer_address = reinterpret_cast<uint64_t>(&amdq_->read_dispatch_id);
  a.queue_percentage = opts.percentage;
  a.queue_priority = opts.priority;
  a.eop_buffer_address = reinterpret_cast<uint64_t>(compute_.eop);
  a.eop_buffer_size = compute_.eop ? sizes_.eop_size : 0;
  a.ctx_save_restore_address = reinterpret_cast<uint64_t>(compute_.cwsr);
  a.ctx_save_restore_size = compute_.cwsr ? sizes_.ctx_save_restore_size : 0;
  a.ctl_stack_size = compute_.cwsr ? sizes_.ctl_stack_size : 0;
  KFD_ASSIGN(kfd::QueueInfo info, rt_.memory().kfd().create_queue(a));
  created_ = true;
  queue_id_ = info.queue_id;
  amdq_->hsa_queue.id = info.queue_id;
  KFD_ASSIGN(uint8_t* slice, rt_.doorbell_slice(gpu, info.doorbell_offset));
  doorbell_ = reinterpret_cast<volatile uint64_t*>(
      slice + (info.doorbell_offset & (kfd::uapi::kDoorbellSliceSize - 1)));
  // hardware_doorbell_ptr shares the value field of a doorbell signal.
  doorbell_signal_->value = int64_t(reinterpret_cast<uintptr_t>(doorbell_));
  rt_.register_queue(this);
  registered_ = true;
  return {};
}

AqlQueue::~AqlQueue() { (void)destroy(); }

void AqlQueue::free_buffers() {
  mem::Context& ctx = rt_.memory();
  for (void** p : {reinterpret_cast<void**>(&ring_), reinterpret_cast<void**>(&amdq_)}) {
    if (*p) (void)ctx.free(*p);
    *p = nullptr;
  }
  free_compute_buffers(ctx, &compute_);
  rt_.release_scratch(gpu_id_, scratch_slice_);
  scratch_slice_ = {};
  if (inactive_) rt_.destroy_signal_storage(inactive_, nullptr);
  if (doorbell_signal_) rt_.destroy_signal_storage(doorbell_signal_, nullptr);
  inactive_ = doorbell_signal_ = nullptr;
}

base::Status AqlQueue::destroy() {
  base::Status st;
  if (registered_) {
    rt_.unregister_queue(this);
    registered_ = false;
  }
  if (created_) {
    st = rt_.memory().kfd().destroy_queue(queue_id_);
    created_ = false;
  }
  free_buffers();
  return st;
}

base::Status AqlQueue::error() const {
  if (!inactive_) return {};
  int64_t code = error_code();
  if (code == 0) return {};
  return base::Error::of_kind(base::ErrorKind::QueueError, "AQL queue " + std::to_string(queue_id_) + " on GPU " + base::hex(gpu_id_) +
                         " stopped: " + pm4::queue_error::describe(uint64_t(code)) +
                         " (queue_inactive_signal=" + base::hex(uint64_t(code)) + ", read index " + std::to_string(read_index()) +
                         ", write index " + std::to_string(write_index()) + ")", EIO);
}

}  // namespace queues
