// SPDX-License-Identifier: MIT
// Shared helpers of the pm4 device tests: the process's Runtime, host-visible buffers, PM4/SDMA queues, kernels.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../emu/gpu_segments.h"
#include "loader/code_object.h"
#include "loader/load.h"
#include "queues/pm4_commands.h"
#include "queues/runtime.h"
#include "queues/sdma_commands.h"

namespace pm4test {

using namespace std::chrono_literals;

// One runtime per process (KFD binds each GPU VM to one render-node fd per process).
inline queues::Runtime& rt() {
  static std::unique_ptr<queues::Runtime> r = [] {
    queues::RuntimeOptions o;
    o.max_interrupt_events = 64;
    auto x = queues::Runtime::open(o);
    if (!x) {
      std::fprintf(stderr, "%s\n", x.message().c_str());
      std::abort();
    }
    return std::move(x).value();
  }();
  return *r;
}

inline const mem::Gpu& gpu() { return *rt().gpus().front(); }
inline const pm4::Family& family() { return *gpu().family; }

// Threads the machine can run at once, for tests scaled to it (at least 1).
inline unsigned cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// Host memory the GPU reads and writes (system memory, uncached: the host sees device writes
// without a release), freed with the owner.
class Buffer {
 public:
  explicit Buffer(size_t bytes, mem::Coherence c = mem::Coherence::Uncached, mem::Heap h = mem::Heap::Gtt,
                  bool executable = false) {
    mem::AllocRequest r;
    r.heap = h;
    r.coherence = c;
    r.size = bytes;
    r.executable = executable;  // command buffers (IBs), as ROCr allocates them
    auto p = rt().memory().allocate(r);
    EXPECT_TRUE(p.ok()) << p.message();
    if (p.ok()) {
      p_ = *p;
      size_ = bytes;
      if (h != mem::Heap::Vram || r.host_access) std::memset(p_, 0, bytes);
    }
  }
  ~Buffer() {
    if (p_) (void)rt().memory().free(p_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  template <class T = uint32_t>
  T* as() const { return static_cast<T*>(p_); }
  uint64_t va() const { return reinterpret_cast<uint64_t>(p_); }
  size_t size() const { return size_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  void* p_ = nullptr;
  size_t size_ = 0;
};

inline std::unique_ptr<queues::Pm4Queue> make_pm4(uint32_t ring_bytes = 4096, uint32_t scratch = 0) {
  queues::Pm4QueueOptions o;
  o.ring_bytes = ring_bytes;
  o.scratch_lane_bytes = scratch;
  auto q = rt().create_pm4_queue(o);
  EXPECT_TRUE(q.ok()) << q.message();
  return q.ok() ? std::move(q).value() : nullptr;
}

inline std::unique_ptr<queues::SdmaQueue> make_sdma(uint32_t ring_bytes = 4096, bool xgmi = false) {
  queues::SdmaQueueOptions o;
  o.ring_bytes = ring_bytes;
  o.xgmi = xgmi;
  auto q = rt().create_sdma_queue(o);
  EXPECT_TRUE(q.ok()) << q.message();
  return q.ok() ? std::move(q).value() : nullptr;
}

inline std::unique_ptr<queues::Signal> make_signal(int64_t v,
                                                   queues::SignalKind k = queues::SignalKind::Interrupt) {
  auto s = rt().create_signal(v, k);
  EXPECT_TRUE(s.ok()) << s.message();
  return s.ok() ? std::move(s).value() : nullptr;
}

// Polls a dword the device writes until it holds `v` (kfdtest's WaitOnValue), up to `t`.
inline bool wait_value(const volatile uint32_t* p, uint32_t v, std::chrono::milliseconds t = 10s) {
  const auto end = std::chrono::steady_clock::now() + t;
  while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != v) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

// One WRITE_DATA of `value` to `address`.
inline std::vector<uint32_t> write_data(uint64_t address, uint32_t value) {
  std::vector<uint32_t> p(queues::pm4_write_memory_dwords(1));
  queues::write_pm4_write_memory(p.data(), address, std::span(&value, 1));
  return p;
}

// "gfx90a" for 90010: the processor name of a gfx_target_version.
inline std::string processor_name(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "gfx%u%x%x", v / 10000, (v / 100) % 100, v % 100);
  return buf;
}

// The test kernels (tests/pm4/kernels/pm4_kernels.hip) loaded for this GPU's processor, built
// at build time for the processors in tests/pm4/meson.build. ok() is false (with why()) when
// there is no build for this GPU.
class Kernels {
 public:
  // `set`: "pm4_kernels", or "pm4_preload" (the same kernels preloading their first arguments).
  explicit Kernels(const std::string& set = "pm4_kernels") {
    const std::string cpu = processor_name(gpu().props().gfx_target_version);
    const std::string path = std::string(PM4_KERNEL_DIR) + "/" + set + "-" + cpu + ".co";
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      why_ = "no test kernels built for " + cpu + " (" + path + ")";
      return;
    }
    image_.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    auto co = loader::CodeObject::parse(loader::Bytes(image_.data(), image_.size()));
    if (!co) {
      why_ = co.message();
      return;
    }
    co_ = std::make_unique<loader::CodeObject>(std::move(*co));
    segments_ = std::make_unique<emutest::GpuSegments>(rt().memory());
    auto lco = loader::LoadedCodeObject::load(*co_, *segments_);
    if (!lco) {
      why_ = lco.message();
      return;
    }
    code_ = std::make_unique<loader::LoadedCodeObject>(std::move(*lco));
  }
  bool ok() const { return code_ != nullptr; }
  const std::string& why() const { return why_; }

  // The PM4 view of a kernel, by name.
  base::Result<queues::Pm4Kernel> kernel(const std::string& name) const {
    const loader::Kernel* k = co_->find_kernel(name);
    if (!k) return base::Error::msg("no kernel " + name, ENOENT);
    KFD_ASSIGN(uint64_t object, code_->kernel_object(name));
    return queues::make_pm4_kernel(k->descriptor, object, family());
  }
  const pm4::KernelDescriptor* descriptor(const std::string& name) const {
    const loader::Kernel* k = co_ ? co_->find_kernel(name) : nullptr;
    return k ? &k->descriptor : nullptr;
  }

 private:
  std::vector<uint8_t> image_;
  std::unique_ptr<loader::CodeObject> co_;
  std::unique_ptr<emutest::GpuSegments> segments_;
  std::unique_ptr<loader::LoadedCodeObject> code_;
  std::string why_;
};

// Kernel arguments in kernarg memory (uncached GTT, visible to every GPU).
class Kernarg {
 public:
  explicit Kernarg(size_t bytes) {
    auto p = rt().memory().allocate_kernarg(std::max<size_t>(bytes, 256));
    EXPECT_TRUE(p.ok()) << p.message();
    if (p.ok()) {
      p_ = static_cast<uint8_t*>(*p);
      size_ = std::max<size_t>(bytes, 256);
      std::memset(p_, 0, size_);
    }
  }
  ~Kernarg() {
    if (p_) (void)rt().memory().free(p_);
  }
  template <class T>
  void set(size_t offset, const T& v) { std::memcpy(p_ + offset, &v, sizeof v); }
  uint64_t va() const { return reinterpret_cast<uint64_t>(p_); }
  std::span<const uint8_t> bytes() const { return {p_, size_}; }

 private:
  uint8_t* p_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pm4test
