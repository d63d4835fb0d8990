// SPDX-License-Identifier: MIT
// Helpers for the engine tests: raw PM4, SDMA and AQL queues, signal events and code objects, all through the kfd ioctls alone.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <linux/kfd_ioctl.h>

#include "tests/kfd/device.h"

namespace engtest {

using kfdtest::Buffer;
using kfdtest::Device;
using kfdtest::Gpu;
using Kind = kfdtest::Buffer::Kind;
using namespace std::chrono_literals;

// A user-mode queue made with CREATE_QUEUE and driven by hand: its ring, read and write pointers
// (and, for compute queues, EOP and CWSR buffers) and its doorbell.
//  - PM4 (KFD_IOC_QUEUE_TYPE_COMPUTE): wptr 64-bit in dwords, rptr 32-bit dwords wrapping at the ring size.
//  - SDMA / SDMA_XGMI: wptr and rptr 64-bit in bytes, monotonic.
//  - AQL: the pointers are amd_queue_t's write/read_dispatch_id (in packets); see aql().
class RawQueue {
 public:
  static base::Result<std::unique_ptr<RawQueue>> create(Device& d, Gpu& g, uint32_t type, uint32_t ring_bytes);
  ~RawQueue();

  uint32_t id() const { return info_.queue_id; }
  uint32_t* ring() const { return static_cast<uint32_t*>(ring_.ptr()); }
  uint64_t ring_va() const { return ring_.va(); }
  uint32_t ring_dwords() const { return ring_bytes_ / 4; }
  uint64_t wptr() const { return wptr_; }  // units of the queue type (dwords, bytes, packets)

  // PM4 / SDMA: copies dwords at the write pointer (wrapping around the ring end) and publishes them.
  void submit(std::span<const uint32_t> dw);
  void write(std::span<const uint32_t> dw);  // copies without publishing
  void publish();                            // write pointer memory, then the doorbell
  // Rings the doorbell with any value (tests of bad write pointers).
  void ring_doorbell(uint64_t v);
  // What the engine says it has consumed, in the queue's units (PM4: 32-bit dwords in the ring).
  uint64_t rptr() const;
  bool consumed() const;  // rptr has caught up with the published wptr
  bool wait_consumed(std::chrono::milliseconds timeout = 10s) const;

  // AQL: amd_queue_t at the start of the pointer page; write a 64-byte packet and publish it
  // (header last).
  void* amd_queue() const { return ptrs_.ptr(); }
  void submit_aql(const void* packet64);

 private:
  RawQueue() = default;
  Device* dev_ = nullptr;
  uint32_t type_ = 0;
  uint32_t ring_bytes_ = 0;
  Buffer ring_, ptrs_, eop_, cwsr_;
  uint64_t* rptr_ = nullptr;
  uint64_t* wptr_mem_ = nullptr;
  kfd::QueueInfo info_{};
  uint64_t* doorbell_ = nullptr;
  void* doorbell_map_ = nullptr;
  uint64_t wptr_ = 0;
};

// A KFD signal event with its slot in the events page (what a runtime's interrupt signal has).
struct SignalEvent {
  uint32_t id = 0;
  uint64_t* slot = nullptr;  // the event's mailbox: writing the id there marks it signaled
  uint64_t slot_va() const { return reinterpret_cast<uint64_t>(slot); }
};

// A fixture with the device, buffers and events that are released after each test.
class EngineTest : public kfdtest::DeviceTest {
 protected:
  void TearDown() override;
  // A same-address GTT (default) or VRAM buffer, CPU-visible, zeroed.
  Buffer& buffer(size_t size, Kind kind = Kind::Gtt, uint32_t flags = 0);
  // Memory the host and the engines share while they run: fine-grained (COHERENT), as runtimes
  // allocate signals and polled data; non-coherent memory is cached by the GPU's L2 (MTYPE NC).
  template <class T>
  T* host(size_t n, Kind kind = Kind::Gtt, uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_COHERENT) {
    return static_cast<T*>(buffer(n * sizeof(T), kind, flags).ptr());
  }
  RawQueue& queue(uint32_t type, uint32_t ring_bytes = 4096);
  SignalEvent signal_event();
  uint32_t memory_event();  // a KFD_IOC_EVENT_MEMORY event
  uint32_t hw_exception_event();
  // WAIT_EVENTS on one event: Complete, Timeout or Fail.
  kfd::WaitResult wait_event(uint32_t id, uint32_t timeout_ms);
  // WAIT_EVENTS on a MEMORY event, returning its exception data.
  bool wait_memory_event(uint32_t id, uint32_t timeout_ms, kfd_hsa_memory_exception_data* data);
  // An address no buffer is mapped at (reserved, never allocated).
  uint64_t unmapped_va();
  // Waits until pred() holds (or the timeout passes); returns pred().
  static bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 10s);

  std::vector<std::unique_ptr<RawQueue>> queues_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::vector<uint32_t> events_;
  std::vector<void*> reserved_;
};

// An AMDGPU code object loaded into one executable VRAM buffer the CPU can see (PT_LOAD segments,
// RELATIVE64 relocations), for dispatches the test programs by hand.
class GpuCode {
 public:
  std::string load(const std::string& path, Device& d, Gpu& g);
  uint64_t kernel_descriptor(const std::string& name) const;  // `<name>.kd`, 0 if absent
 private:
  std::unique_ptr<Buffer> buf_;
  std::map<std::string, uint64_t> symbols_;
};

std::string kernel_path(const std::string& file);  // built code objects directory + file

// The private segment V# a gfx9 runtime gives a queue (AMD Vega ISA "Buffer Resource": swizzled,
// ADD_TID, 4-byte elements, index stride 64) over the backing store at `base`.
void scratch_vsharp(uint64_t base, uint32_t out[4]);
// COMPUTE_TMPRING_SIZE on gfx9 for `waves` slots of `lane_bytes` per lane (rounded up to 1 KiB per wave).
uint32_t tmpring_gfx9(uint32_t waves, uint32_t lane_bytes);

}  // namespace engtest
