// SPDX-License-Identifier: MIT
// The storage behind hc::array and hc::array_view: host and device copies, which is current, and the capture scope.
#pragma once

// Design (automatic synchronisation under clang, where kernels capture by value):
// - Every array and array_view points at one refcounted `buffer` holding a host copy and a
//   device copy and two flags saying which is current. Views of one buffer share the flags.
// - parallel_for_each opens a thread-local `capture_scope` and copies the user's functor once.
//   array_view's (and array's) copy constructor, run on the host inside that scope, registers
//   its buffer (read-only for array_view<const T>) and stores the buffer's device address in
//   the copy, which is what the kernel receives. Outside a scope a copy just adds a reference.
// - Before the launch each captured buffer is made current on the device (one host-to-device
//   copy if the host copy is newer and the data was not discarded) and the view's stream waits
//   for earlier device users on other streams. After the launch a written buffer's host copy is
//   marked stale, with the kernel recorded as the device copy's writer; a read-only one just
//   records the kernel as a reader.
// - Host access (operator[], data(), synchronize) waits for the writer and copies back only if
//   the host copy is stale; a non-const host access marks the device copy stale. Const views
//   never mark anything stale and are never copied back. synchronize_async enqueues the copy
//   on the writer's own queue, so no queue waits on another for it.
// - The last reference to a buffer over user memory copies back a stale host copy and waits
//   for pending device work before freeing the device memory.

#include "accelerator.hpp"

#include <atomic>

namespace hc::detail {

// Counters the tests use to see that copies happen only when needed.
struct transfer_stats {
  std::atomic<uint64_t> to_device{0};
  std::atomic<uint64_t> to_host{0};
  static transfer_stats& get() {
    static transfer_stats s;
    return s;
  }
};

struct buffer;

// Device allocations of live buffers by address, so that an array built over another array's
// accelerator_pointer() shares that array's buffer (and so its synchronisation state).
struct device_registry {
  std::mutex m;
  std::map<void*, buffer*> by_dev;
  static device_registry& get() {
    static device_registry* r = new device_registry;  // outlives static destruction
    return *r;
  }
  void add(void* dev, buffer* b) {
    std::lock_guard<std::mutex> lock(m);
    by_dev[dev] = b;
  }
  void remove(void* dev, buffer* b) {
    std::lock_guard<std::mutex> lock(m);
    auto it = by_dev.find(dev);
    if (it != by_dev.end() && it->second == b) by_dev.erase(it);
  }
  // The live buffer whose device copy starts at `dev`, with a reference taken; null if none.
  buffer* acquire(void* dev, int device, size_t bytes);
};

struct buffer {
  std::atomic<int> refs{1};
  std::mutex m;
  size_t bytes = 0;
  void* host = nullptr;
  bool owns_host = false;
  void* dev = nullptr;
  int dev_device = -1;
  bool owns_dev = true;  // false: memory the program allocated (array over a device pointer)
  bool host_valid = false;
  bool dev_valid = false;
  bool discarded = false;
  std::atomic<bool> host_readable{false};  // host current and no copy touching it in flight
  std::atomic<bool> host_exclusive{false}; // ... and the device copy already marked stale
  std::vector<completion_future> dev_users;  // writer first, then readers since
  completion_future writer;                   // last operation that wrote the device copy
  completion_future host_io;                  // last async copy reading/writing `host`
  std::shared_ptr<view_state> home;           // the view copies are enqueued on

  buffer(size_t n, void* host_mem, std::shared_ptr<view_state> v)
      : bytes(n), host(host_mem), home(std::move(v)) {
    host_valid = host_mem != nullptr;
    host_readable = host_valid;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  void wait_dev_users_locked() {
    for (auto& f : dev_users) f.wait();
    dev_users.clear();
  }

  // Allocates (or moves) the device copy to `device`; returns its address.
  void* device_ptr(int device) {
    std::lock_guard<std::mutex> lock(m);
    return device_ptr_locked(device);
  }
  void* device_ptr_locked(int device) {
    if (dev && dev_device == device) return dev;
    if (dev && !owns_dev)
      throw runtime_exception("hc: an array over a device pointer of accelerator " +
                                  std::to_string(dev_device) + " cannot be used on accelerator " +
                                  std::to_string(device), -1);
    if (dev) {  // another device: bring the data home first, then reallocate
      make_host_current_locked();
      wait_dev_users_locked();
      device_registry::get().remove(dev, this);
      device_guard g(dev_device);
      (void)hipFree(dev);
      dev = nullptr;
      dev_valid = false;
    }
    device_guard g(device);
    check(hipMalloc(&dev, bytes ? bytes : 1), "hipMalloc (array storage)");
    dev_device = device;
    device_registry::get().add(dev, this);
    if (!home || home->device != device)
      home = runtime::get().device(device).get_default_view();
    return dev;
  }

  void ensure_host_storage_locked() {
    if (host) return;
    host = ::operator new(bytes ? bytes : 1);
    owns_host = true;
  }

  // Makes the host copy current (device-to-host copy if it is stale). Does not mark anything.
  void make_host_current_locked() {
    host_io.wait();
    if (host_valid) return;
    ensure_host_storage_locked();
    if (dev && dev_valid) {
      for (auto& f : dev_users) f.wait();  // the writer (readers don't change it)
      device_guard g(dev_device);
      check(hipMemcpy(host, dev, bytes, hipMemcpyDeviceToHost), "hipMemcpy (to host)");
      transfer_stats::get().to_host++;
    }
    host_valid = true;
  }

  // Host access; `write` marks the device copy stale.
  void host_access(bool write) {
    std::lock_guard<std::mutex> lock(m);
    make_host_current_locked();
    host_readable = true;
    if (write) {
      dev_valid = false;
      discarded = false;
      host_exclusive = true;
    }
  }

  // Before a kernel on `v` uses the buffer: device copy current, ordered after earlier users.
  void before_device_use(view_state& v) {
    std::lock_guard<std::mutex> lock(m);
    device_ptr_locked(v.device);
    device_guard g(v.device);
    for (auto& f : dev_users)
      if (f.valid()) check(hipStreamWaitEvent(v.stream, f.get_hip_event(), 0), "hipStreamWaitEvent");
    if (!dev_valid && host_valid && !discarded) {
      auto op = v.record(hcMemcpyHostToDevice, false, [&](hipStream_t s) {
        check(hipMemcpyAsync(dev, host, bytes, hipMemcpyHostToDevice, s), "hipMemcpyAsync (to device)");
      });
      host_io = completion_future(op);
      host_readable = false;
      transfer_stats::get().to_device++;
    }
    dev_valid = true;
    discarded = false;
  }

  // After a kernel (`f`) was enqueued that reads, or with `write` writes, the device copy.
  void after_device_use(const completion_future& f, bool write) {
    std::lock_guard<std::mutex> lock(m);
    host_exclusive = false;
    if (write) {
      dev_users.clear();
      host_valid = false;
      host_readable = false;
      writer = f;
    }
    dev_users.push_back(f);
  }

  // Host copy current now (waits for the writer, then a blocking copy if needed).
  void synchronize() {
    std::lock_guard<std::mutex> lock(m);
    make_host_current_locked();
    host_readable = true;
  }

  // Host copy current, asynchronously: the copy is enqueued on the writer's own queue, so it
  // needs no cross-queue wait. Returns its future (empty when nothing was needed or the
  // writer's view is gone, in which case the copy was done at once).
  completion_future synchronize_async() {
    std::lock_guard<std::mutex> lock(m);
    if (host_valid || !dev || !dev_valid) return host_io;
    auto wv = writer.valid() ? writer.state()->view.lock() : nullptr;
    if (!wv || wv->device != dev_device) {
      make_host_current_locked();
      return completion_future();
    }
    ensure_host_storage_locked();
    auto op = wv->record(hcMemcpyDeviceToHost, false, [&](hipStream_t s) {
      check(hipMemcpyAsync(host, dev, bytes, hipMemcpyDeviceToHost, s), "hipMemcpyAsync (to host)");
    });
    transfer_stats::get().to_host++;
    host_io = completion_future(op);
    host_valid = true;
    return host_io;
  }

  // Device copy current on `v`'s device, asynchronously.
  completion_future synchronize_to_async(view_state& v) {
    before_device_use(v);
    std::lock_guard<std::mutex> lock(m);
    return host_io;
  }

  void discard() {
    std::lock_guard<std::mutex> lock(m);
    discarded = true;
  }

  // The host data changed behind the views' back: the device copy is stale.
  void refresh() {
    std::lock_guard<std::mutex> lock(m);
    make_host_current_locked();
    dev_valid = false;
  }

  ~buffer() {
    try {
      std::lock_guard<std::mutex> lock(m);
      if (host && !owns_host && !host_valid) make_host_current_locked();
      host_io.wait();
      wait_dev_users_locked();
    } catch (...) {
    }
    if (dev) device_registry::get().remove(dev, this);
    if (dev && owns_dev) {
      int prev = 0;
      (void)hipGetDevice(&prev);
      (void)hipSetDevice(dev_device);
      (void)hipFree(dev);
      (void)hipSetDevice(prev);
    }
    if (owns_host) ::operator delete(host);
  }
};

inline buffer* device_registry::acquire(void* dev, int device, size_t bytes) {
  std::lock_guard<std::mutex> lock(m);
  auto it = by_dev.find(dev);
  if (it == by_dev.end()) return nullptr;
  buffer* b = it->second;
  if (b->dev_device != device || b->bytes < bytes) return nullptr;
  // A buffer whose last reference is being dropped is not revived.
  for (int r = b->refs.load(); r > 0;)
    if (b->refs.compare_exchange_weak(r, r + 1)) return b;
  return nullptr;
}

// A buffer for `bytes` of device memory at `dev` on `view`'s device: the live buffer that
// allocated it if there is one, else a new buffer that uses (and never frees) that memory.
inline buffer* buffer_over_device_memory(void* dev, size_t bytes, std::shared_ptr<view_state> view) {
  if (!dev) throw runtime_exception("hc: array over a null device pointer", -1);
  if (buffer* b = device_registry::get().acquire(dev, view->device, bytes)) return b;
  auto* b = new buffer(bytes, nullptr, view);
  b->dev = dev;
  b->dev_device = b->home->device;
  b->owns_dev = false;
  b->dev_valid = true;
  return b;
}

inline void retain(buffer* b) {
  if (b) b->refs.fetch_add(1, std::memory_order_relaxed);
}
inline void release(buffer* b) {
  if (b && b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b;
}

// Opened by parallel_for_each around the one copy of the functor it makes (see the top).
class capture_scope {
public:
  struct entry {
    buffer* buf;
    bool write;
  };
  explicit capture_scope(int device) : device_(device), prev_(current()) { current() = this; }
  ~capture_scope() { current() = prev_; }
  capture_scope(const capture_scope&) = delete;
  capture_scope& operator=(const capture_scope&) = delete;

  static capture_scope*& current() {
    static thread_local capture_scope* c = nullptr;
    return c;
  }
  // Records `b` and returns its device address on the scope's device.
  void* capture(buffer* b, bool write) {
    for (auto& e : entries_)
      if (e.buf == b) {
        e.write = e.write || write;
        return b->device_ptr(device_);
      }
    entries_.push_back({b, write});
    return b->device_ptr(device_);
  }
  const std::vector<entry>& entries() const { return entries_; }
  void close() { current() = prev_; }

private:
  int device_;
  capture_scope* prev_;
  std::vector<entry> entries_;
};

} // namespace hc::detail
