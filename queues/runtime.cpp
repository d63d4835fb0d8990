// SPDX-License-Identifier: MIT
// queues::Runtime: opens the platform, the allocator, events and scratch windows; creates queues and signals.
#include "queues/runtime.h"
#include "queues/trace_hooks.h"

#include "queues/copy_engine.h"

namespace queues {

base::Result<std::unique_ptr<Runtime>> Runtime::open(const RuntimeOptions& opts) {
  std::unique_ptr<Runtime> rt(new Runtime());
  KFD_ASSIGN(rt->platform_, gpu::Platform::open(opts.platform));
  KFD_ASSIGN(rt->memory_, mem::Context::open(*rt->platform_, opts.memory));
  rt->scratch_ = std::make_unique<ScratchWindows>(*rt->memory_, opts.scratch_window);
  rt->events_ = std::make_unique<EventManager>(*rt->platform_, *rt->memory_,
                                               opts.max_interrupt_events, opts.wait);
  KFD_TRY(rt->events_->init());
  return rt;
}

Runtime::~Runtime() {
  trace_memory_closing(*memory_);  // before the memory of its probes goes
  copy_engines_.clear();  // their queues and buffers first
  events_.reset();
  memory_.reset();
  // After the allocator: scratch buffers live inside these reservations.
  scratch_.reset();
  platform_.reset();
}

base::Result<std::unique_ptr<AqlQueue>> Runtime::create_queue(const QueueOptions& opts) {
  KFD_ASSIGN(const gpu::Device* gpu, platform_->find(opts.gpu_id, "create_queue"));
  return AqlQueue::create(*gpu, *memory_, *events_, *scratch_, opts);
}

base::Result<std::unique_ptr<Pm4Queue>> Runtime::create_pm4_queue(const Pm4QueueOptions& opts) {
  KFD_ASSIGN(const gpu::Device* gpu, platform_->find(opts.gpu_id, "create PM4 queue"));
  return Pm4Queue::create(*gpu, *memory_, *events_, *scratch_, opts);
}

base::Result<std::unique_ptr<SdmaQueue>> Runtime::create_sdma_queue(const SdmaQueueOptions& opts) {
  KFD_ASSIGN(const gpu::Device* gpu, platform_->find(opts.gpu_id, "create SDMA queue"));
  return SdmaQueue::create(*gpu, *memory_, *events_, opts);
}

uint32_t Runtime::sdma_engines(uint32_t gpu_id, bool xgmi) const {
  const gpu::Device* g = gpu_id ? platform_->device(gpu_id) : platform_->devices().front().get();
  if (!g) return 0;
  return xgmi ? g->props().num_sdma_xgmi_engines : g->props().num_sdma_engines;
}

base::Result<CopyEngine*> Runtime::copy_engine(uint32_t gpu_id) {
  KFD_ASSIGN(const gpu::Device* g, platform_->find(gpu_id, "copy engine"));
  std::lock_guard lk(copy_mu_);
  auto& e = copy_engines_[g->gpu_id];
  if (!e) {
    KFD_ASSIGN(e, CopyEngine::create(*this, *g));
  }
  return e.get();
}

}  // namespace queues
