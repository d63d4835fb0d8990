// SPDX-License-Identifier: MIT
// HIP streams and events: ordered packets on a shared AQL queue, a timeline signal, host operations.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "api/hip/runtime.h"
#include "queues/packets.h"

namespace hip {

// One hipEventRecord: a marker packet's completion signal (1 until the marker retires, which
// also stamps start_ts/end_ts). Shared by the event and the streams that wait on it.
struct EventRecord {
  Device* dev = nullptr;
  HwQueue* hw = nullptr;
  unsigned flags = 0;
  std::unique_ptr<queues::Signal> sig;
  ~EventRecord();
  bool done() const { return sig->load() == 0; }
};

class Event {
 public:
  explicit Event(unsigned flags) : flags_(flags) {}
  unsigned flags() const { return flags_; }
  std::shared_ptr<EventRecord> record() const;
  void set_record(std::shared_ptr<EventRecord> r);

 private:
  unsigned flags_;
  mutable std::mutex mu_;
  std::shared_ptr<EventRecord> rec_;
};

// The live event behind a handle; nullptr for null, unknown or destroyed handles (stream_api.cpp).
Event* find_event(hipEvent_t h);

// What a kernel launch puts in a dispatch packet.
struct Dispatch {
  uint64_t kernel_object = 0;
  uint32_t items[3] = {1, 1, 1};   // grid size in work-items; the last block may be partial
  uint16_t block[3] = {1, 1, 1};
  uint32_t group_segment = 0;      // static + dynamic LDS bytes
  uint32_t private_segment = 0;
  const uint8_t* kernarg = nullptr;
  size_t kernarg_size = 0;
  size_t kernarg_align = 16;
};

// A stream owns a timeline signal that every one of its packets decrements on completion: the
// n-th packet is done once the value is at most kStart - n. Host operations (copies, callbacks)
// are gated by a BARRIER_VALUE packet on a host-progress signal the host advances when done.
class Stream {
 public:
  static constexpr int64_t kStart = int64_t(1) << 60;
  using HostOp = std::function<hipError_t()>;

  static base::Result<std::shared_ptr<Stream>> create(Device& dev, HwQueue& hw, unsigned flags,
                                                     int priority, bool is_null);
  ~Stream();

  Device& device() { return dev_; }
  HwQueue& hw() { return hw_; }
  unsigned flags() const { return flags_; }
  int priority() const { return priority_; }
  bool is_null() const { return is_null_; }
  bool blocking() const { return (flags_ & hipStreamNonBlocking) == 0; }

  hipError_t launch(const Dispatch& d);
  // kfdrtStreamDispatchAql (kfdrt_ext_api.cpp): a caller's checked dispatch packet; `completion`, if
  // given, is recorded as completing with the dispatch itself.
  hipError_t dispatch_aql(queues::DispatchParams p, const uint8_t* kernarg, size_t kernarg_size,
                          Event* completion);
  hipError_t record(Event& e);
  // hipStreamWaitEvent: later packets wait for the record (no fence).
  hipError_t wait(const std::shared_ptr<EventRecord>& rec);
  // How a host operation runs: Sync on this thread, returning op's result; Async at once when
  // the stream is idle, else on the stream's worker thread; Worker always on the worker (stream
  // callbacks). A deferred op's failure is reported by the next synchronize.
  enum class Mode { Sync, Async, Worker };
  hipError_t host_op(HostOp op, Mode mode);
  // hipStreamSynchronize: waits for every packet and host op, with a system-scope release.
  hipError_t synchronize(const char* api);
  hipError_t query();

  // Packets completed / submitted (for other streams' dependencies).
  uint64_t submitted() const { return submitted_.load(std::memory_order_acquire); }
  uint64_t completed() const { return uint64_t(kStart - timeline_->load()); }
  bool pending() const { return completed() < submitted(); }
  const std::shared_ptr<queues::Signal>& timeline() const { return timeline_; }

 private:
  Stream(Device& dev, HwQueue& hw, unsigned flags, int priority, bool is_null)
      : dev_(dev), hw_(hw), flags_(flags), priority_(priority), is_null_(is_null) {}

  struct Retained {
    uint64_t count;  // released once this many packets completed
    std::shared_ptr<void> keep;
  };
  // All under mu_.
  void reap();
  void add_legacy_deps(std::vector<queues::Packet>& pkts);
  queues::Packet timeline_marker(pm4::aql::FenceScope release) const;
  hipError_t push(std::vector<queues::Packet>& pkts, int dispatch = -1, const uint8_t* kernarg = nullptr,
                  size_t kernarg_size = 0);
  hipError_t wait_for(uint64_t count, const char* api);
  bool device_released();
  void start_worker();
  void worker_loop();

  Device& dev_;
  HwQueue& hw_;
  const unsigned flags_;
  const int priority_;
  const bool is_null_;
  std::shared_ptr<queues::Signal> timeline_;
  std::unique_ptr<queues::Signal> host_progress_;

  std::mutex mu_;
  std::atomic<uint64_t> submitted_{0};
  uint64_t host_ops_ = 0;
  // The last packet is a timeline packet with a system-scope release (other streams read it).
  std::atomic<bool> tail_system_{true};
  std::deque<Retained> retained_;
  hipError_t async_error_ = hipSuccess;

  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::deque<std::function<void()>> work_;
  bool work_stop_ = false;
  std::thread worker_;
};

}  // namespace hip
