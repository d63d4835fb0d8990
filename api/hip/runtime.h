// SPDX-License-Identifier: MIT
// The HIP runtime's process object and devices: queues::Runtime, visible GPUs, their managed queues, signals.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/hip/common.h"
#include "loader/target.h"
#include "memory/context.h"
#include "queues/managed_queue.h"
#include "queues/runtime.h"
#include "queues/signal.h"
#include "trace/trace.h"

namespace hip {

class Device;
class Hostcall;
class Stream;

// Per-work-item stack a kernel with a dynamic stack (recursion, indirect calls) gets beyond its
// private_segment_fixed_size: HIP's default stack size limit (hipLimitStackSize, 1 KiB).
constexpr uint32_t kDynamicStackBytes = 1024;
// Scratch per work-item a kernel needs: its fixed private segment, plus the stack allowance when
// it uses a dynamic stack.
inline uint64_t scratch_per_item(uint32_t private_fixed, bool dynamic_stack) {
  return uint64_t(private_fixed) + (dynamic_stack ? kDynamicStackBytes : 0);
}

// Ends the peer access `device` enabled and the access others enabled to it (a device reset;
// device_api.cpp keeps the table hipDeviceEnablePeerAccess answers from).
void forget_peer_access(int device);

// Recycles signals whose last use completed (value 0); a signal still pending when released is
// left alone for good, since a packet may still write it.
class SignalPool {
 public:
  explicit SignalPool(queues::Runtime& rt) : rt_(rt) {}
  ~SignalPool();
  base::Result<std::unique_ptr<queues::Signal>> acquire(int64_t value);
  void release(std::unique_ptr<queues::Signal> s);

 private:
  queues::Runtime& rt_;
  std::mutex mu_;
  std::vector<std::unique_ptr<queues::Signal>> free_;
  // Signals released before they completed (work cut short by a fault or a GPU reset): a packet
  // may still complete them, so they are neither reused nor freed while the pool lives.
  std::vector<std::unique_ptr<queues::Signal>> abandoned_;
};

class Device {
 public:
  Device(queues::Runtime& rt, int index, const gpu::Device& gpu, queues::Engine engine);
  ~Device();
  base::Status init();

  int index() const { return index_; }
  const gpu::Device& gpu() const { return gpu_; }
  uint32_t gpu_id() const { return gpu_.gpu_id; }
  // Every property kfdrt knows, in HIP 6's layout (a superset of HIP 5.2's). The first call asks
  // the render node's driver for the name and the BAR size (complete_props).
  const hipDeviceProp_tR0600& props() const {
    if (!driver_done_.load(std::memory_order_acquire)) complete_props();
    return props_;
  }
  // The same in HIP 5.2's layout, as hipGetDeviceProperties returns them.
  const hipDeviceProp_t& props_hip52() const {
    if (!driver_done_.load(std::memory_order_acquire)) complete_props();
    return props52_;
  }
  // The properties from the topology (limits, counts, sizes) without the driver's answers: what
  // launches, occupancy and the runtime's own set-up read, so that no kernel waits for
  // libdrm_amdgpu's initialisation. Its name and isLargeBar are not to be read (props() has them).
  const hipDeviceProp_tR0600& limits() const { return props_; }
  const loader::TargetId& target() const { return target_; }
  queues::Runtime& qrt() { return rt_; }
  mem::Context& memory() { return rt_.memory(); }
  SignalPool& signals() { return signals_; }
  uint64_t timestamp_hz() const {
    if (!driver_done_.load(std::memory_order_acquire)) complete_props();
    return timestamp_hz_;
  }
  uint64_t lds_aperture_hi() const { return gpu_.apertures.lds_base >> 32; }
  uint64_t scratch_aperture_hi() const { return gpu_.apertures.scratch_base >> 32; }

  // hipSetDeviceFlags: the scheduling policy host waits use.
  void set_flags(unsigned f) { flags_.store(f); }
  unsigned flags() const { return flags_.load(); }
  queues::WaitPolicy wait_policy(bool blocking_sync = false) const;

  // The engine every queue of the device submits to (KFDRT_HIP_QUEUE: aql, the default, or pm4).
  queues::Engine engine() const { return engine_; }
  // Queue 0 serves the null stream; other streams share queues 1.. round robin.
  base::Result<queues::ManagedQueue*> queue_for_stream(bool null_stream);
  // The null (legacy default) stream, created on first use.
  base::Result<Stream*> null_stream();
  base::Result<std::shared_ptr<Stream>> create_stream(unsigned flags, int priority);
  // hipExtStreamCreateWithCUMask: a stream on a queue of its own whose dispatches run on the CUs
  // `mask` enables (ManagedQueue::set_cu_mask); the queue serves the next such stream after it.
  base::Result<std::shared_ptr<Stream>> create_stream_with_cu_mask(std::span<const uint32_t> mask);
  // The CU mask the stream's queue applies (empty: none, every CU).
  std::vector<uint32_t> stream_cu_mask(const Stream* s);
  hipError_t destroy_stream(Stream* s);
  std::vector<std::shared_ptr<Stream>> streams();  // every live stream incl. the null stream
  // Whether `pred(stream)` holds for every live stream, under the device's lock (no copy).
  template <class P>
  bool all_streams(P&& pred) {
    std::lock_guard lk(mu_);
    for (const auto& s : streams_)
      if (!pred(*s)) return false;
    return true;
  }
  Stream* null_stream_if_created() { return null_.load(std::memory_order_acquire); }

  // The device's hostcall buffer (device printf), set up with its service thread on first use.
  base::Result<uint64_t> hostcall_buffer();

  // Waits for every stream of the device (system-scope release, as hipDeviceSynchronize).
  hipError_t synchronize(const char* api);
  // hipDeviceReset (and hipDevicePrimaryCtxReset): synchronises, destroys the device's streams,
  // frees its queues' scratch and ends its peer access.
  hipError_t reset();

 private:
  void fill_props();
  void complete_props() const;  // the driver's part of the properties, once

  queues::Runtime& rt_;
  int index_;
  const gpu::Device& gpu_;
  // The driver's fields (name, isLargeBar, timestamp_hz_) are completed by complete_props.
  mutable hipDeviceProp_tR0600 props_{};
  mutable hipDeviceProp_t props52_{};
  loader::TargetId target_;
  mutable uint64_t timestamp_hz_ = 100000000;
  mutable std::once_flag driver_once_;
  mutable std::atomic<bool> driver_done_{false};
  SignalPool signals_;
  std::atomic<unsigned> flags_{0};

  const queues::Engine engine_;
  std::mutex mu_;
  std::vector<std::unique_ptr<queues::ManagedQueue>> queues_;
  uint32_t max_queues_ = 4;
  uint32_t next_queue_ = 0;
  // Queues of CU-masked streams: each serves one live stream (masked_) or waits for the next.
  std::vector<std::unique_ptr<queues::ManagedQueue>> masked_queues_;
  std::vector<std::pair<const Stream*, queues::ManagedQueue*>> masked_;
  std::vector<queues::ManagedQueue*> masked_free_;
  std::vector<std::shared_ptr<Stream>> streams_;
  std::atomic<Stream*> null_{nullptr};
  std::mutex hostcall_mu_;
  Hostcall* hostcall_ = nullptr;  // never freed: its thread serves the device until exit
};

// The process's HIP runtime: opened on first use, never destroyed (kernels may still reference
// its memory while static destructors run).
class Runtime {
 public:
  // The runtime, opening it on first use; nullptr with *err set when no device is usable (or in
  // a forked child of the process that opened it).
  static Runtime* get(hipError_t* err) {
    if (Runtime* r = ready_.load(std::memory_order_acquire)) [[likely]] return r;
    return get_slow(err);
  }
  queues::Runtime& qrt() { return *qrt_; }
  mem::Context& memory() { return qrt_->memory(); }
  int device_count() const { return int(devices_.size()); }
  Device* device(int i) { return i >= 0 && i < device_count() ? devices_[i].get() : nullptr; }
  Device* device_of_gpu(uint32_t gpu_id);

  // The calling thread's current device (hipSetDevice).
  Device& current();
  int current_index() const;
  void set_current(int i);

  // Streams and events by handle; the null handle, hipStreamLegacy and hipStreamPerThread all
  // mean the current device's null stream. InvalidHandle for unknown handles.
  hipError_t stream(hipStream_t h, std::shared_ptr<Stream>* out);
  // The same without taking a reference, for the launch path: a per-thread cache answers
  // repeated handles without a lock. The stream stays valid until hipStreamDestroy, which must
  // not race with the stream's use (as in HIP).
  hipError_t stream_ref(hipStream_t h, Stream** out);
  void add_stream_handle(const std::shared_ptr<Stream>& s);
  void remove_stream_handle(Stream* s);

 private:
  Runtime() = default;
  static hipError_t open(Runtime** out);
  static Runtime* get_slow(hipError_t* err);
  // The opened runtime, published once open() succeeded: every later call reads it with one load
  // (std::call_once costs a pthread_once and thread-local bookkeeping per call).
  static inline std::atomic<Runtime*> ready_{nullptr};
  base::Status add_devices();

  std::unique_ptr<queues::Runtime> qrt_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::mutex handles_mu_;
  std::unordered_map<Stream*, std::weak_ptr<Stream>> stream_handles_;
  // Bumped by every handle removal: a cached handle is valid while this is unchanged.
  std::atomic<uint64_t> handles_gen_{0};
};

// Runs `expr`'s usual prologue: the runtime, or return its error from the API function.
#define HIP_INIT(rt) HIP_INIT_NAMED(rt, __func__)
// The same in a helper that knows which entry point it serves (`api`: the name the trace shows).
#define HIP_INIT_NAMED(rt, api)                   \
  ::trace::ApiScope rt##_trace_(api);             \
  hipError_t rt##_err_ = hipSuccess;              \
  ::hip::Runtime* rt = ::hip::Runtime::get(&rt##_err_); \
  if (!rt) return ::hip::ret(rt##_err_)

// Parses HIP_VISIBLE_DEVICES-style lists: indices in order, up to the first invalid one.
std::vector<int> parse_visible_devices(const char* spec, int physical_count);
// Parses ROCR_VISIBLE_DEVICES (ROCm's runtime-level list, which HIP_VISIBLE_DEVICES then indexes):
// GPU indices or UUIDs ("GPU-" and the 16 hex digits of the KFD unique_id, as rocminfo prints
// them), in order, up to the first invalid or repeated one. unique_ids[i]: GPU i's.
std::vector<int> parse_rocr_visible_devices(const char* spec, const std::vector<uint64_t>& unique_ids);

}  // namespace hip
