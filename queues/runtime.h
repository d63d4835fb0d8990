// SPDX-License-Identifier: MIT
// queues::Runtime: the process-level object (memory context, events, queues, signals) HIP builds on.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "base/result.h"
#include "memory/context.h"
#include "queues/aql_queue.h"
#include "queues/events.h"
#include "queues/pm4_queue.h"
#include "queues/sdma_queue.h"
#include "queues/signal.h"

namespace queues {

struct RuntimeOptions {
  mem::ContextOptions memory;
  // KFD SIGNAL events created for interrupt signals; more signals share them (the events page
  // has 4096 slots per process, and other libraries in the process may need some).
  uint32_t max_interrupt_events = 256;
  WaitPolicy wait;  // default wait policy of Signal::wait
  // VA reserved per GPU (on first use) for the scratch of every queue: the process scratch
  // backing the kernel is told about (SET_SCRATCH_BACKING_VA); queues take 64 KiB-aligned
  // slices of it. Only reserved address space: VRAM is allocated per slice.
  uint64_t scratch_window = uint64_t(16) << 30;
};

using ScratchSlice = scratch::Slice;

class CopyEngine;

// Owns the memory context (kfd, topology, render nodes, VMs), the events page and the process's
// events. Queues and signals it creates must be destroyed before it. Thread-safe.
class Runtime {
 public:
  static base::Result<std::unique_ptr<Runtime>> open(const RuntimeOptions& opts = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  mem::Context& memory() { return *ctx_; }
  const mem::Context& memory() const { return *ctx_; }
  std::span<const std::unique_ptr<mem::Gpu>> gpus() const { return ctx_->gpus(); }
  EventManager& events() { return *events_; }

  const WaitPolicy& wait_policy() const { return policy_; }
  void set_wait_policy(const WaitPolicy& p) { policy_ = p; }

  // A signal with `initial` value. Interrupt signals get a (possibly shared) KFD event and fall
  // back to polling when none can be had.
  base::Result<std::unique_ptr<Signal>> create_signal(int64_t initial = 0,
                                                     SignalKind kind = SignalKind::Interrupt);
  base::Result<std::unique_ptr<AqlQueue>> create_queue(const QueueOptions& opts = {});
  // A PM4 compute queue (KFD_IOC_QUEUE_TYPE_COMPUTE).
  base::Result<std::unique_ptr<Pm4Queue>> create_pm4_queue(const Pm4QueueOptions& opts = {});
  // An SDMA queue (KFD_IOC_QUEUE_TYPE_SDMA, or _SDMA_XGMI with SdmaQueueOptions::xgmi); ENODEV
  // (NotSupported) when the topology reports no such engine.
  base::Result<std::unique_ptr<SdmaQueue>> create_sdma_queue(const SdmaQueueOptions& opts = {});
  // SDMA engines of a GPU (0: the first) per the topology; `xgmi` counts the XGMI-optimized ones.
  uint32_t sdma_engines(uint32_t gpu_id = 0, bool xgmi = false) const;
  // The copy engine of a GPU (0: the first), created on first use with CopyPolicy::from_env()
  // and shared by every caller; destroyed with the Runtime.
  base::Result<CopyEngine*> copy_engine(uint32_t gpu_id = 0);

  // The device's error state, as every wait sees it: a GPU fault (sticky) or a live queue in
  // error. poll_kernel also asks the kernel (zero-timeout WAIT_EVENTS on the fault events).
  base::Status check_device(bool poll_kernel);

  // --- for AqlQueue and Signal ---
  // The CPU mapping of the process's doorbell slice on a GPU (mmap of /dev/kfd, cached).
  base::Result<uint8_t*> doorbell_slice(const mem::Gpu& gpu, uint64_t doorbell_offset);
  void register_queue(AqlQueue* q);
  void unregister_queue(AqlQueue* q);
  void destroy_signal_storage(aql::AmdSignal* sig, InterruptEvent* ev);
  base::Result<aql::AmdSignal*> make_signal_storage(int64_t initial, InterruptEvent* ev);
  // Device-only VRAM for a queue's scratch inside the GPU's window; release_scratch frees it.
  base::Result<ScratchSlice> acquire_scratch(const mem::Gpu& gpu, uint64_t bytes);
  void release_scratch(uint32_t gpu_id, const ScratchSlice& s);
  // A queue's scratch of `lane_bytes` per work-item: sized, allocated (fewer slots under memory
  // pressure) and encoded; nothing installed. 0 gives the empty store.
  base::Result<scratch::Prepared> prepare_scratch(const mem::Gpu& gpu, uint32_t lane_bytes);

 private:
  Runtime() = default;

  std::unique_ptr<mem::Context> ctx_;
  std::unique_ptr<EventManager> events_;
  WaitPolicy policy_;
  std::mutex mu_;
  std::vector<AqlQueue*> queues_;
  std::map<uint32_t, void*> doorbells_;  // gpu_id -> mapped slice
  struct ScratchWindow {
    mem::VaRange va;
    std::map<uint64_t, uint64_t> used;  // offset -> size of live slices
  };
  base::Result<ScratchWindow*> scratch_window(const mem::Gpu& gpu);  // mu_ held
  uint64_t scratch_window_size_ = 0;
  std::map<uint32_t, ScratchWindow> scratch_;  // gpu_id -> window
  std::mutex copy_mu_;
  std::map<uint32_t, std::unique_ptr<CopyEngine>> copy_engines_;  // gpu_id -> engine
};

}  // namespace queues
