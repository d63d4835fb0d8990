// SPDX-License-Identifier: MIT
// hc's host-side runtime state: the devices HIP reports, their default views and per-view queues (streams).
#pragma once

#include "future.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

namespace hc {

enum execute_order { execute_in_order = 0, execute_any_order = 1 };
enum queuing_mode { queuing_mode_immediate = 0, queuing_mode_automatic = 1 };
enum queue_priority { priority_high = 0, priority_normal = 1, priority_low = 2 };
enum hcAgentProfile { hcAgentProfileNone = 0, hcAgentProfileBase = 1, hcAgentProfileFull = 2 };
enum access_type {
  access_type_none = 0,
  access_type_read = 1,
  access_type_write = 2,
  access_type_read_write = 3,
  access_type_auto = 4,
};

namespace detail {

// hipPointerGetAttributes for memory HIP may not know: HIP 5.2 answers hipErrorInvalidValue for
// it and records that as the thread's last error, which is no error of the program's; it is
// cleared again unless an earlier one was pending.
inline bool pointer_attributes(const void* p, hipPointerAttribute_t* a) {
  const hipError_t pending = hipPeekAtLastError();
  if (hipPointerGetAttributes(a, p) == hipSuccess) return true;
  if (pending == hipSuccess) (void)hipGetLastError();
  return false;
}

// Streams of finished accelerator_views, kept for reuse (as hcc kept a queue pool): creating an
// AQL queue is costly, and programs that create a view per task would otherwise churn queues.
class stream_pool {
public:
  static stream_pool& get() {
    static stream_pool* p = new stream_pool;  // never destroyed: see `runtime`
    return *p;
  }
  hipStream_t take(int device, int priority) {
    std::lock_guard<std::mutex> lock(m_);
    auto& v = free_[{device, priority}];
    if (v.empty()) return nullptr;
    hipStream_t s = v.back();
    v.pop_back();
    return s;
  }
  // Keeps an idle stream (the caller synchronised it); false when the pool is full.
  bool give(int device, int priority, hipStream_t s) {
    std::lock_guard<std::mutex> lock(m_);
    auto& v = free_[{device, priority}];
    if (v.size() >= 16) return false;
    v.push_back(s);
    return true;
  }

private:
  std::mutex m_;
  std::map<std::pair<int, int>, std::vector<hipStream_t>> free_;
};

// One accelerator_view: a HIP stream on one device plus the operations still in flight on it.
struct view_state : std::enable_shared_from_this<view_state> {
  int device = 0;
  hipStream_t stream = nullptr;
  execute_order order = execute_in_order;
  queuing_mode mode = queuing_mode_automatic;
  queue_priority priority = priority_normal;
  bool is_default = false;
  int hip_priority = 0;
  std::mutex m;
  std::vector<std::shared_ptr<op_state>> ops;

  view_state(int dev, execute_order o, queuing_mode qm, queue_priority p)
      : device(dev), order(o), mode(qm), priority(p) {
    device_guard g(dev);
    // HIP: a lower number is a higher priority; normal is 0 clamped into the range.
    int least = 0, greatest = 0;
    if (hipDeviceGetStreamPriorityRange(&least, &greatest) != hipSuccess) least = greatest = 0;
    const int normal = std::clamp(0, std::min(least, greatest), std::max(least, greatest));
    hip_priority = p == priority_high ? greatest : p == priority_low ? least : normal;
    stream = stream_pool::get().take(dev, hip_priority);
    if (!stream)
      check(hipStreamCreateWithPriority(&stream, hipStreamDefault, hip_priority),
            "hipStreamCreateWithPriority");
  }
  view_state(const view_state&) = delete;
  view_state& operator=(const view_state&) = delete;
  ~view_state() {
    if (!stream) return;
    if (hipStreamSynchronize(stream) == hipSuccess && stream_pool::get().give(device, hip_priority, stream))
      return;
    (void)hipStreamDestroy(stream);
  }

  // Creates an op whose end event is recorded on this stream once `enqueue` has run;
  // with `timed`, a begin event is recorded before it.
  template <class Enqueue>
  std::shared_ptr<op_state> record(hcCommandKind kind, bool timed, Enqueue&& enqueue) {
    return record_ending(kind, timed, [&](hipStream_t s, hipEvent_t end) {
      enqueue(s);
      check(hipEventRecord(end, s), "hipEventRecord");
    });
  }

  // Creates an op whose end event `enqueue(stream, end)` records itself (a raw dispatch makes
  // it complete with the kernel).
  template <class Enqueue>
  std::shared_ptr<op_state> record_ending(hcCommandKind kind, bool timed, Enqueue&& enqueue) {
    auto op = std::make_shared<op_state>();
    op->device = device;
    op->kind = kind;
    op->view = weak_from_this();
    device_guard g(device);
    if (timed) {
      check(hipEventCreate(&op->begin), "hipEventCreate");
      check(hipEventRecord(op->begin, stream), "hipEventRecord");
    }
    // A completed hc operation's results are visible to the host, as hcc's kernels released at
    // system scope: the end event releases to the system (a HIP event alone is device scope).
    check(hipEventCreateWithFlags(&op->end, hipEventReleaseToSystem), "hipEventCreateWithFlags");
    enqueue(stream, op->end);
    std::lock_guard<std::mutex> lock(m);
    prune_locked();
    ops.push_back(op);
    return op;
  }

  int pending() {
    std::lock_guard<std::mutex> lock(m);
    prune_locked();
    return static_cast<int>(ops.size());
  }

  void prune_locked() {
    ops.erase(std::remove_if(ops.begin(), ops.end(),
                             [](const std::shared_ptr<op_state>& o) { return o->ready(); }),
              ops.end());
  }
};

// What hc knows about one HIP device.
struct device_state {
  int id = 0;
  // accelerator::get_hsa_agent's hsa_agent_t (handle = the KFD gpu_id), made on first use.
  std::once_flag agent_once;
  hsa_agent_t agent{0};
  std::once_flag view_once;
  std::shared_ptr<view_state> default_view;

  std::mutex views_m;
  std::vector<std::weak_ptr<view_state>> created;  // create_view's views, oldest first

  std::shared_ptr<view_state> get_default_view() {
    std::call_once(view_once, [this] {
      default_view = std::make_shared<view_state>(id, execute_in_order, queuing_mode_automatic,
                                                  priority_normal);
      default_view->is_default = true;
    });
    return default_view;
  }
  void add_view(const std::shared_ptr<view_state>& v) {
    std::lock_guard<std::mutex> lock(views_m);
    std::erase_if(created, [](const std::weak_ptr<view_state>& w) { return w.expired(); });
    created.push_back(v);
  }
  // The default view, then the views made by create_view that are still alive, in order.
  std::vector<std::shared_ptr<view_state>> all_views() {
    std::vector<std::shared_ptr<view_state>> all{get_default_view()};
    std::lock_guard<std::mutex> lock(views_m);
    for (const auto& w : created)
      if (auto v = w.lock()) all.push_back(std::move(v));
    return all;
  }
};

// The process-wide device list. Deliberately never destroyed: streams must not be torn down
// after the HIP runtime during static destruction.
struct runtime {
  std::vector<device_state*> devices;
  int default_device = 0;
  bool default_used = false;
  std::mutex m;

  static runtime& get() {
    static runtime* r = [] {
      auto* rt = new runtime;
      int n = 0;
      if (hipGetDeviceCount(&n) != hipSuccess) n = 0;
      for (int i = 0; i < n; ++i) {
        auto* d = new device_state;
        d->id = i;
        rt->devices.push_back(d);
      }
      return rt;
    }();
    return *r;
  }

  device_state& device(int id) {
    if (id < 0 || id >= static_cast<int>(devices.size()))
      throw runtime_exception("hc: no such accelerator (no GPU found by the HIP runtime?)", -1);
    return *devices[id];
  }
};

} // namespace detail
} // namespace hc
