// SPDX-License-Identifier: MIT
// queues::Runtime: one bundle of what queues and signals are created with (platform, allocator, events, scratch windows).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>

#include "base/result.h"
#include "gpu/device.h"
#include "memory/context.h"
#include "queues/aql_queue.h"
#include "queues/events.h"
#include "queues/pm4_queue.h"
#include "queues/scratch_window.h"
#include "queues/sdma_queue.h"
#include "queues/signal.h"

namespace queues {

struct RuntimeOptions {
  gpu::PlatformOptions platform;
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

class CopyEngine;

// Owns, in dependency order, the device root (gpu::Platform), the allocator (mem::Context), the
// events and signal memory (EventManager) and the scratch windows, and creates queues and
// signals by handing each exactly the parts it needs. Queues and signals never call back into
// it (the copy engines, which it owns, use it to create their queues and signals). Everything it
// creates must be destroyed before it. Thread-safe.
class Runtime {
 public:
  static base::Result<std::unique_ptr<Runtime>> open(const RuntimeOptions& opts = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const gpu::Platform& platform() const { return *platform_; }
  std::span<const std::unique_ptr<gpu::Device>> gpus() const { return platform_->devices(); }
  mem::Context& memory() { return *memory_; }
  const mem::Context& memory() const { return *memory_; }
  EventManager& events() { return *events_; }
  ScratchWindows& scratch() { return *scratch_; }

  const WaitPolicy& wait_policy() const { return events_->wait_policy(); }
  void set_wait_policy(const WaitPolicy& p) { events_->set_wait_policy(p); }

  // A signal with `initial` value (EventManager::create_signal).
  base::Result<std::unique_ptr<Signal>> create_signal(int64_t initial = 0,
                                                     SignalKind kind = SignalKind::Interrupt) {
    return events_->create_signal(initial, kind);
  }
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

  // The device's error state, as every wait sees it (EventManager::check_device).
  base::Status check_device(bool poll_kernel) { return events_->check_device(poll_kernel); }
  // A GPU fault this process already knows of (one atomic load while there is none).
  base::Status known_fault() const { return events_->fault(); }

 private:
  Runtime() = default;

  std::unique_ptr<gpu::Platform> platform_;
  std::unique_ptr<mem::Context> memory_;
  std::unique_ptr<ScratchWindows> scratch_;
  std::unique_ptr<EventManager> events_;
  std::mutex copy_mu_;
  std::map<uint32_t, std::unique_ptr<CopyEngine>> copy_engines_;  // gpu_id -> engine
};

}  // namespace queues
