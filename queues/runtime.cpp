// SPDX-License-Identifier: MIT
// queues::Runtime: opens the memory context and events, creates queues and signals, device errors.
#include "queues/runtime.h"
#include "queues/trace_hooks.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kfd/uapi_ext.h"
#include "queues/copy_engine.h"

namespace queues {

base::Result<std::unique_ptr<Runtime>> Runtime::open(const RuntimeOptions& opts) {
  std::unique_ptr<Runtime> rt(new Runtime());
  KFD_ASSIGN(rt->ctx_, mem::Context::open(opts.memory));
  rt->events_ = std::make_unique<EventManager>(*rt->ctx_, opts.max_interrupt_events);
  KFD_TRY(rt->events_->init());
  rt->policy_ = opts.wait;
  rt->scratch_window_size_ = opts.scratch_window;
  return rt;
}

Runtime::~Runtime() {
  trace_runtime_closing(*this);  // before the memory of its probes goes
  copy_engines_.clear();  // their queues and buffers first
  for (auto& [gpu, p] : doorbells_) munmap(p, kfd::uapi::kDoorbellSliceSize);
  events_.reset();
  ctx_.reset();
  // After the context: scratch buffers live inside these reservations.
  for (auto& [gpu, w] : scratch_) mem::release_va(w.va);
}

base::Result<aql::AmdSignal*> Runtime::make_signal_storage(int64_t initial, InterruptEvent* ev) {
  KFD_ASSIGN(void* mem, ctx_->allocate_signal_memory(sizeof(aql::AmdSignal)));
  auto* s = static_cast<aql::AmdSignal*>(mem);
  std::memset(static_cast<void*>(s), 0, sizeof *s);
  s->kind = aql::kSignalKindUser;
  s->value = initial;
  if (ev) {
    s->event_mailbox_ptr = ev->mailbox;
    s->event_id = ev->event_id;
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  return s;
}

void Runtime::destroy_signal_storage(aql::AmdSignal* sig, InterruptEvent* ev) {
  if (ev) events_->release(ev);
  (void)ctx_->free(sig);
}

base::Result<std::unique_ptr<Signal>> Runtime::create_signal(int64_t initial, SignalKind kind) {
  InterruptEvent* ev = kind == SignalKind::Interrupt ? events_->acquire() : nullptr;
  auto s = make_signal_storage(initial, ev);
  if (!s) {
    events_->release(ev);
    return s.error();
  }
  return std::unique_ptr<Signal>(new Signal(this, *s, ev));
}

base::Result<std::unique_ptr<AqlQueue>> Runtime::create_queue(const QueueOptions& opts) {
  return AqlQueue::create(*this, opts);
}

base::Result<std::unique_ptr<Pm4Queue>> Runtime::create_pm4_queue(const Pm4QueueOptions& opts) {
  return Pm4Queue::create(*this, opts);
}

base::Result<std::unique_ptr<SdmaQueue>> Runtime::create_sdma_queue(const SdmaQueueOptions& opts) {
  return SdmaQueue::create(*this, opts);
}

uint32_t Runtime::sdma_engines(uint32_t gpu_id, bool xgmi) const {
  const mem::Gpu* g = gpu_id ? ctx_->gpu(gpu_id) : ctx_->gpus().front().get();
  if (!g) return 0;
  return xgmi ? g->props().num_sdma_xgmi_engines : g->props().num_sdma_engines;
}

base::Result<CopyEngine*> Runtime::copy_engine(uint32_t gpu_id) {
  const mem::Gpu* g = gpu_id ? ctx_->gpu(gpu_id) : ctx_->gpus().front().get();
  if (!g) return base::Error::msg("copy engine: unknown GPU " + base::hex(gpu_id), ENODEV);
  std::lock_guard lk(copy_mu_);
  auto& e = copy_engines_[g->gpu_id];
  if (!e) {
    KFD_ASSIGN(e, CopyEngine::create(*this, *g));
  }
  return e.get();
}

base::Result<uint8_t*> Runtime::doorbell_slice(const mem::Gpu& gpu, uint64_t doorbell_offset) {
  std::lock_guard lk(mu_);
  auto it = doorbells_.find(gpu.gpu_id);
  if (it != doorbells_.end()) return static_cast<uint8_t*>(it->second);
  uint64_t off = doorbell_offset & ~(kfd::uapi::kDoorbellSliceSize - 1);
  KFD_ASSIGN(void* p, ctx_->kfd().mmap(nullptr, kfd::uapi::kDoorbellSliceSize,
                                       PROT_READ | PROT_WRITE, MAP_SHARED, off));
  doorbells_[gpu.gpu_id] = p;
  return static_cast<uint8_t*>(p);
}

void Runtime::register_queue(AqlQueue* q) {
  std::lock_guard lk(mu_);
  queues_.push_back(q);
}

void Runtime::unregister_queue(AqlQueue* q) {
  std::lock_guard lk(mu_);
  queues_.erase(std::remove(queues_.begin(), queues_.end(), q), queues_.end());
  // The queue-error event is manual reset: lower it once no live queue is in error.
  bool q_err = q->error_code() != 0;
  bool any = std::any_of(queues_.begin(), queues_.end(), [](AqlQueue* o) { return o->error_code() != 0; });
  if (q_err && !any) (void)events_->reset_queue_error_event();
}

base::Status Runtime::check_device(bool poll_kernel) {
  KFD_TRY(events_->fault());
  if (poll_kernel) KFD_TRY(events_->poll_faults());
  base::Status queue_error;
  {
    std::lock_guard lk(mu_);
    for (AqlQueue* q : queues_)
      if (auto e = q->error(); !e) {
        queue_error = e;
        break;
      }
  }
  if (queue_error.ok()) return {};
  // A queue stopped by a memory fault: prefer the kernel's fault report, which names the address.
  if (!poll_kernel) KFD_TRY(events_->poll_faults());
  return queue_error;
}

}  // namespace queues
