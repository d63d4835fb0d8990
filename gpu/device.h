// SPDX-License-Identifier: MIT
// gpu::Platform and gpu::Device: the process's amdkfd connection and each GPU's facts, owned once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "kfd/kfd.h"
#include "kfd/render_node.h"
#include "kfd/topology.h"
#include "pm4/family.h"

namespace gpu {

// The driver's records, named by the device root for the layers above it (memory/, queues/,
// loader/ and api/ take these from gpu/, never from a kfd/ header).
using Node = kfd::Node;
using NodeProperties = kfd::NodeProperties;
using Cache = kfd::Cache;
using MemBank = kfd::MemBank;
using Apertures = kfd::Apertures;
using DriverInfo = kfd::GpuInfo;          // what the render node's amdgpu driver reports
using ClockCounters = kfd::ClockCounters;  // one GET_CLOCK_COUNTERS sample

class Platform;

// One GPU of the process: its topology node, render node (holding the GPU VM), apertures, the
// generation's facts and the driver's answers about it. Created by Platform::open, which owns it;
// every layer above refers to it, none copies its facts.
class Device {
 public:
  Device(const kfd::Kfd& kfd, kfd::RenderNode rn) : render(std::move(rn)), kfd_(&kfd) {}
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  uint32_t index = 0;      // 0-based among the GPUs
  uint32_t gpu_id = 0;     // KFD gpu_id
  uint32_t node_id = 0;    // KFD topology node index
  const Node* node = nullptr;
  kfd::RenderNode render;
  Apertures apertures{};
  uint64_t vram_size = 0;  // the VRAM heap
  // The generation's hardware facts, chosen once from gfx_target_version (nullptr: not in the table).
  const pm4::Family* family = nullptr;

  const NodeProperties& props() const { return node->props; }
  // The driver handle queue and memory calls go through (the process's /dev/kfd).
  const kfd::Kfd& kfd() const { return *kfd_; }
  // amdgpu's answers (marketing name, counter frequency, visible VRAM), asked once, on the first
  // call (libdrm_amdgpu is initialised then: nothing a kernel launch needs); the query's error
  // when it failed. Thread-safe.
  const base::Result<DriverInfo>& driver_info() const;
  // AVAILABLE_MEMORY (KFD >= 1.9): VRAM bytes this process can still allocate.
  base::Result<uint64_t> available_vram() const { return kfd_->available_memory(gpu_id); }
  // A GET_CLOCK_COUNTERS sample: the GPU timestamp counter beside the system clock.
  base::Result<ClockCounters> clock_counters() const { return kfd_->get_clock_counters(gpu_id); }
  // The CPU address of the doorbell at `doorbell_offset` (CREATE_QUEUE's answer): the process's
  // doorbell slice of this GPU is mapped from /dev/kfd on first use and kept.
  base::Result<volatile uint64_t*> doorbell(uint64_t doorbell_offset) const;

 private:
  friend class Platform;
  const kfd::Kfd* kfd_;
  mutable std::once_flag info_once_;
  mutable base::Result<DriverInfo> info_ = DriverInfo{};
  mutable std::mutex doorbell_mu_;
  mutable void* doorbells_ = nullptr;  // the mapped slice
};

struct PlatformOptions {
  const char* kfd_path = kfd::Kfd::kPath;
  bool runtime_enable = true;  // RUNTIME_ENABLE when KFD >= 1.13
};

// The process's view of the GPUs: /dev/kfd, the topology and one Device per GPU. Opened once per
// process (KFD binds each GPU VM to one render-node fd per process) and outlives everything that
// refers to it: the allocator (memory/), queues, signals and the HIP runtime.
class Platform {
 public:
  // Opens /dev/kfd, reads the topology, opens each GPU's render node, fetches the apertures,
  // ACQUIRE_VMs each GPU and (KFD >= 1.13) RUNTIME_ENABLEs, in the thunk's order (libhsakmt
  // openclose.c); asks each render node for its driver info.
  static base::Result<std::unique_ptr<Platform>> open(const PlatformOptions& opts = {});
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const kfd::Kfd& kfd() const { return kfd_; }
  const kfd::Topology& topology() const { return topo_; }
  std::span<const std::unique_ptr<Device>> devices() const { return devices_; }
  const Device* device(uint32_t gpu_id) const;  // nullptr if unknown
  // The GPU `gpu_id` names, the first one for 0; NoDevice (ENODEV) naming `what` otherwise.
  base::Result<const Device*> find(uint32_t gpu_id, const char* what) const;
  // System memory (the GTT / USERPTR heap): the CPU nodes' memory banks.
  uint64_t system_memory_size() const { return system_mem_; }
  // The process's XNACK mode (SET_XNACK_MODE query).
  base::Result<bool> xnack_enabled() const { return kfd_.get_xnack_mode(); }
  bool runtime_enabled() const { return runtime_enabled_; }

 private:
  explicit Platform(kfd::Kfd k) : kfd_(std::move(k)) {}
  base::Status init(const PlatformOptions& opts);

  kfd::Kfd kfd_;
  kfd::Topology topo_;
  std::vector<std::unique_ptr<Device>> devices_;
  uint64_t system_mem_ = 0;
  bool runtime_enabled_ = false;
};

}  // namespace gpu
