// SPDX-License-Identifier: MIT
// hc::accelerator (a HIP device) and hc::accelerator_view (a queue on it): queries, markers, copies, raw AQL dispatch.
#pragma once

#include "runtime.hpp"

#include <initializer_list>
#include <string>

namespace hc {

class accelerator_view;

// A GPU as HIP numbers it. get_all() lists the GPUs only (hcc also listed a CPU accelerator).
class accelerator {
public:
  static inline const wchar_t* const default_accelerator = L"default";
  static inline const wchar_t* const cpu_accelerator = L"cpu";

  accelerator() : dev_(default_index()) {}
  explicit accelerator(const std::wstring& path) : dev_(index_of(path)) {}
  explicit accelerator(int hip_device) : dev_(hip_device) { (void)detail::runtime::get().device(hip_device); }

  static std::vector<accelerator> get_all() {
    std::vector<accelerator> all;
    const int n = static_cast<int>(detail::runtime::get().devices.size());
    for (int i = 0; i < n; ++i) all.push_back(accelerator(i));
    return all;
  }

  // Chooses the default accelerator; false once the default has been used (or path unknown).
  static bool set_default(const std::wstring& path) {
    auto& rt = detail::runtime::get();
    std::lock_guard<std::mutex> lock(rt.m);
    if (rt.default_used) return false;
    for (size_t i = 0; i < rt.devices.size(); ++i)
      if (path == accelerator(static_cast<int>(i)).get_device_path()) {
        rt.default_device = static_cast<int>(i);
        return true;
      }
    return false;
  }

  static accelerator_view get_auto_selection_view();
  accelerator_view get_default_view() const;
  // The default view and every view create_view made that is still in use, oldest first.
  std::vector<accelerator_view> get_all_views() const;
  accelerator_view create_view(execute_order order = execute_in_order,
                               queuing_mode mode = queuing_mode_automatic,
                               queue_priority priority = priority_normal);

  std::wstring get_device_path() const { return L"kfdrt:" + std::to_wstring(dev_); }
  std::wstring get_description() const {
    hipDeviceProp_t p{};
    detail::check(hipGetDeviceProperties(&p, dev_), "hipGetDeviceProperties");
    std::string d = std::string("AMD ") + p.gcnArchName + " (" + p.name + ", kfdrt)";
    return std::wstring(d.begin(), d.end());
  }
  // (major << 16) | minor of the GFX IP, e.g. 0x90000 for gfx90a.
  unsigned int get_version() const {
    return (static_cast<unsigned>(attr(hipDeviceAttributeComputeCapabilityMajor)) << 16) |
           static_cast<unsigned>(attr(hipDeviceAttributeComputeCapabilityMinor));
  }
  // Dedicated (device) memory in KiB, as C++ AMP reports it.
  size_t get_dedicated_memory() const {
    hipDeviceProp_t p{};
    detail::check(hipGetDeviceProperties(&p, dev_), "hipGetDeviceProperties");
    return p.totalGlobalMem / 1024;
  }
  bool get_supports_cpu_shared_memory() const { return true; }
  bool get_is_debug() const { return false; }
  bool get_is_emulated() const { return false; }
  bool get_has_display() const { return false; }
  bool get_supports_double_precision() const { return true; }
  bool get_supports_limited_double_precision() const { return true; }
  size_t get_max_tile_static_size() const {
    return static_cast<size_t>(attr(hipDeviceAttributeMaxSharedMemoryPerBlock));
  }
  unsigned int get_max_workgroup_size() const {
    return static_cast<unsigned>(attr(hipDeviceAttributeMaxThreadsPerBlock));
  }
  unsigned int get_cu_count() const {
    return static_cast<unsigned>(attr(hipDeviceAttributeMultiprocessorCount));
  }
  int get_seqnum() const { return dev_; }
  bool is_hsa_accelerator() const { return true; }
  hcAgentProfile get_profile() const {
    return attr(hipDeviceAttributeIntegrated) ? hcAgentProfileFull : hcAgentProfileBase;
  }
  access_type get_default_cpu_access_type() const { return access_type_none; }
  bool set_default_cpu_access_type(access_type) { return false; }

  bool get_is_peer(const accelerator& other) const {
    if (other.dev_ == dev_) return false;
    int can = 0;
    detail::check(hipDeviceCanAccessPeer(&can, dev_, other.dev_), "hipDeviceCanAccessPeer");
    return can != 0;
  }
  std::vector<accelerator> get_peers() const {
    std::vector<accelerator> peers;
    for (const accelerator& a : get_all())
      if (get_is_peer(a)) peers.push_back(a);
    return peers;
  }

  // Device address of a global variable by symbol name (kfdrt extension; null if unknown).
  void* get_symbol_address(const char* name) const {
    void* p = nullptr;
    size_t bytes = 0;
    if (!name) return nullptr;
    detail::device_guard g(dev_);
    if (kfdrtModuleGetGlobalByName(dev_, name, &p, &bytes) != hipSuccess) return nullptr;
    return p;
  }
  void memcpy_symbol(const char* name, void* host, size_t count, size_t offset = 0,
                     hcCommandKind kind = hcMemcpyHostToDevice) {
    void* sym = get_symbol_address(name);
    if (!sym) throw runtime_exception(std::string("hc: symbol not found: ") + (name ? name : "(null)"), -1);
    memcpy_symbol(sym, host, count, offset, kind);
  }
  void memcpy_symbol(void* symbol_address, void* host, size_t count, size_t offset = 0,
                     hcCommandKind kind = hcMemcpyHostToDevice) {
    char* sym = static_cast<char*>(symbol_address) + offset;
    detail::device_guard g(dev_);
    if (kind == hcMemcpyHostToDevice)
      detail::check(hipMemcpy(sym, host, count, hipMemcpyHostToDevice), "hipMemcpy (to symbol)");
    else if (kind == hcMemcpyDeviceToHost)
      detail::check(hipMemcpy(host, sym, count, hipMemcpyDeviceToHost), "hipMemcpy (from symbol)");
    else
      throw runtime_exception("hc: memcpy_symbol needs hcMemcpyHostToDevice or hcMemcpyDeviceToHost", -1);
  }

  // As with hcc, a pointer to the device's hsa_agent_t; kfdrt's agent handle is the KFD gpu_id.
  // The pointer stays valid for the life of the process.
  void* get_hsa_agent() const {
    detail::device_state& d = detail::runtime::get().device(dev_);
    std::call_once(d.agent_once, [&d] {
      uint32_t id = 0;
      detail::check(kfdrtDeviceGetGpuId(d.id, &id, nullptr), "kfdrtDeviceGetGpuId");
      d.agent.handle = id;
    });
    return &d.agent;
  }
  int get_hip_device() const { return dev_; }

  bool operator==(const accelerator& o) const { return dev_ == o.dev_; }
  bool operator!=(const accelerator& o) const { return dev_ != o.dev_; }

private:
  int attr(hipDeviceAttribute_t a) const {
    int v = 0;
    detail::check(hipDeviceGetAttribute(&v, a, dev_), "hipDeviceGetAttribute");
    return v;
  }
  static int default_index() {
    auto& rt = detail::runtime::get();
    (void)rt.device(rt.default_device);
    return rt.default_device;
  }
  static int index_of(const std::wstring& path) {
    if (path == default_accelerator) return default_index();
    const int n = static_cast<int>(detail::runtime::get().devices.size());
    for (int i = 0; i < n; ++i)
      if (path == L"kfdrt:" + std::to_wstring(i)) return i;
    throw runtime_exception("hc: no accelerator with that device path", -1);
  }
  int dev_;
};

// A queue of work on one accelerator (a HIP stream). Copies share the underlying queue.
class accelerator_view {
public:
  accelerator get_accelerator() const { return accelerator(st_->device); }
  execute_order get_execute_order() const { return st_->order; }
  queuing_mode get_queuing_mode() const { return st_->mode; }
  queue_priority get_queue_priority() const { return st_->priority; }
  bool get_is_debug() const { return false; }
  bool get_is_auto_selection() const { return false; }
  unsigned int get_version() const { return get_accelerator().get_version(); }
  size_t get_max_tile_static_size() const { return get_accelerator().get_max_tile_static_size(); }
  bool is_hsa_accelerator() const { return true; }
  // Whether the view is an HSA (AQL) queue: kfdrt's streams always are.
  bool get_hsa_interop() const { return true; }

  // Waits for everything enqueued so far; Active spins on the queue instead of sleeping.
  void wait(hcWaitMode mode = hcWaitModeBlocked) const {
    detail::device_guard g(st_->device);
    if (mode == hcWaitModeActive) {
      for (;;) {
        hipError_t e = hipStreamQuery(st_->stream);
        if (e != hipErrorNotReady) return detail::check(e, "hipStreamQuery");
        std::this_thread::yield();
      }
    }
    detail::check(hipStreamSynchronize(st_->stream), "hipStreamSynchronize");
  }
  // Work is submitted as it is enqueued (doorbells are rung at once), so nothing to flush.
  void flush() const {}

  completion_future create_marker(memory_scope = system_scope) const {
    return completion_future(st_->record(hcCommandMarker, false, [](hipStream_t) {}));
  }
  completion_future create_blocking_marker(const completion_future& dep,
                                           memory_scope scope = system_scope) const {
    return create_blocking_marker(&dep, &dep + 1, scope);
  }
  completion_future create_blocking_marker(std::initializer_list<completion_future> deps,
                                           memory_scope scope = system_scope) const {
    return create_blocking_marker(deps.begin(), deps.end(), scope);
  }
  // A marker that completes after all of [first, last); any number of dependencies (HIP
  // stream waits, so no 5-signal barrier packet limit to chain around).
  template <class It>
  completion_future create_blocking_marker(It first, It last, memory_scope = system_scope) const {
    return completion_future(st_->record(hcCommandMarker, false, [&](hipStream_t s) {
      for (It it = first; it != last; ++it) {
        const completion_future& f = *it;
        if (f.valid())
          detail::check(hipStreamWaitEvent(s, f.get_hip_event(), 0), "hipStreamWaitEvent");
      }
    }));
  }

  // Copies `bytes` from src to dst (host or device memory, either way), ordered after the work
  // already enqueued on this view. copy() returns when the copy is done.
  void copy(const void* src, void* dst, size_t bytes) const { copy_async(src, dst, bytes).wait(); }
  completion_future copy_async(const void* src, void* dst, size_t bytes) const {
    return completion_future(st_->record(copy_kind(src, dst), false, [&](hipStream_t s) {
      detail::check(hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, s), "hipMemcpyAsync");
    }));
  }
  // Orders this view after `dep` (used by the copy helpers).
  void wait_for(const completion_future& dep) const {
    if (!dep.valid()) return;
    detail::device_guard g(st_->device);
    detail::check(hipStreamWaitEvent(st_->stream, dep.get_hip_event(), 0), "hipStreamWaitEvent");
  }

  int get_pending_async_ops() const { return st_->pending(); }
  bool get_is_empty() const { return st_->pending() == 0; }

  // Enqueues a raw AQL kernel dispatch packet (kfdrtStreamDispatchAql) after the view's earlier
  // work; `cf`, if given, receives a future that completes with the kernel and whose ticks are
  // the kernel's own. Throws hc::runtime_exception (with the hipError_t) for a bad packet.
  void dispatch_hsa_kernel(const hsa_kernel_dispatch_packet_t* aql, const void* args,
                           size_t argsize, completion_future* cf = nullptr,
                           const char* kernel_name = nullptr) const;

  // Native handles: the AQL queue (kfdrt extension) and the HIP stream (kfdrt addition).
  void* get_hsa_queue() const {
    void* q = nullptr;
    if (kfdrtStreamGetAqlQueue(st_->stream, &q) != hipSuccess) return nullptr;
    return q;
  }
  void* get_hsa_agent() const { return get_accelerator().get_hsa_agent(); }
  hipStream_t get_hip_stream() const { return st_->stream; }
  bool set_cu_mask(const std::vector<bool>&) { return false; }

  bool operator==(const accelerator_view& o) const { return st_ == o.st_; }
  bool operator!=(const accelerator_view& o) const { return st_ != o.st_; }

  // Internal: the shared state (used by parallel_for_each, array and array_view).
  const std::shared_ptr<detail::view_state>& state() const { return st_; }
  explicit accelerator_view(std::shared_ptr<detail::view_state> s) : st_(std::move(s)) {}

private:
  // The direction of a copy, from HIP's pointer attributes (unknown memory counts as host).
  static hcCommandKind copy_kind(const void* src, const void* dst) {
    auto on_device = [](const void* p) {
      hipPointerAttribute_t a{};
      return detail::pointer_attributes(p, &a) && a.memoryType == hipMemoryTypeDevice;
    };
    const bool s = on_device(src), d = on_device(dst);
    return s ? (d ? hcMemcpyDeviceToDevice : hcMemcpyDeviceToHost)
             : (d ? hcMemcpyHostToDevice : hcMemcpyHostToHost);
  }
  std::shared_ptr<detail::view_state> st_;
};

inline accelerator_view accelerator::get_default_view() const {
  auto& rt = detail::runtime::get();
  {
    std::lock_guard<std::mutex> lock(rt.m);
    rt.default_used = true;
  }
  return accelerator_view(rt.device(dev_).get_default_view());
}

inline accelerator_view accelerator::get_auto_selection_view() {
  return accelerator().get_default_view();
}

inline accelerator_view accelerator::create_view(execute_order order, queuing_mode mode,
                                                 queue_priority priority) {
  auto v = std::make_shared<detail::view_state>(dev_, order, mode, priority);
  detail::runtime::get().device(dev_).add_view(v);
  return accelerator_view(std::move(v));
}

inline std::vector<accelerator_view> accelerator::get_all_views() const {
  std::vector<accelerator_view> r;
  for (auto& v : detail::runtime::get().device(dev_).all_views()) r.emplace_back(std::move(v));
  return r;
}

inline void accelerator_view::dispatch_hsa_kernel(const hsa_kernel_dispatch_packet_t* aql,
                                                  const void* args, size_t argsize,
                                                  completion_future* cf,
                                                  const char* kernel_name) const {
  const std::string what = std::string("kfdrtStreamDispatchAql (dispatch_hsa_kernel of ") +
                           (kernel_name ? kernel_name : "an unnamed kernel") + ")";
  auto op = st_->record_ending(hcCommandKernel, false, [&](hipStream_t s, hipEvent_t end) {
    detail::check(kfdrtStreamDispatchAql(s, aql, args, argsize, end), what.c_str());
  });
  if (cf) *cf = completion_future(op);
}

} // namespace hc
