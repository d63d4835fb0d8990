// SPDX-License-Identifier: MIT
// Helpers of the copy engine tests: device-only and host buffers, engines on a forced path, patterns.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "queue_test_util.h"
#include "queues/copy_engine.h"

#define ASSERT_OK(expr)                          \
  do {                                           \
    const base::Status st_ = (expr);             \
    ASSERT_TRUE(st_.ok()) << st_.message();      \
  } while (0)
#define EXPECT_OK(expr)                          \
  do {                                           \
    const base::Status st_ = (expr);             \
    EXPECT_TRUE(st_.ok()) << st_.message();      \
  } while (0)

namespace ctest {

using qtest::rt;
using namespace std::chrono_literals;

inline const gpu::Device& gpu_dev(size_t i = 0) { return *rt().gpus()[i]; }

// A buffer of the memory context: device-only VRAM (no CPU mapping: the CPU cannot check it,
// only the engine can move it back), or host memory (GTT) the GPUs map.
class Mem {
 public:
  static Mem device(size_t bytes, size_t gpu_index = 0, bool map_all = false) {
    mem::AllocRequest r;
    r.heap = mem::Heap::Vram;
    r.size = bytes;
    r.owner_gpu = gpu_dev(gpu_index).gpu_id;
    r.map_all = map_all;
    return Mem(r);
  }
  static Mem host(size_t bytes) {
    mem::AllocRequest r;
    r.heap = mem::Heap::Gtt;
    r.coherence = mem::Coherence::Coherent;
    r.size = bytes;
    r.map_all = true;
    return Mem(r);
  }
  Mem(Mem&& o) noexcept : p_(std::exchange(o.p_, nullptr)), size_(o.size_) {}
  ~Mem() {
    if (p_) { EXPECT_TRUE(rt().memory().free(p_).ok()); }
  }
  uint64_t va(uint64_t off = 0) const { return reinterpret_cast<uint64_t>(p_) + off; }
  uint8_t* bytes() const { return static_cast<uint8_t*>(p_); }
  size_t size() const { return size_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  explicit Mem(const mem::AllocRequest& r) {
    auto p = rt().memory().allocate(r);
    EXPECT_TRUE(p.ok()) << p.message();
    if (p) {
      p_ = *p;
      size_ = r.size;
    }
  }
  void* p_ = nullptr;
  size_t size_ = 0;
};

// An engine of GPU `i` that sends everything it can down `path`.
inline std::unique_ptr<queues::CopyEngine> engine(queues::CopyPath path, size_t i = 0,
                                                  queues::CopyPolicy p = {}) {
  p.force = path;
  auto e = queues::CopyEngine::create(rt(), gpu_dev(i), p);
  EXPECT_TRUE(e.ok()) << e.message();
  return e ? std::move(e).value() : nullptr;
}

// Whether the engine has `path` (tests of a path the GPU or the build lacks skip).
inline bool has(const queues::CopyEngine& e, queues::CopyPath p) {
  return p == queues::CopyPath::Sdma ? e.has_sdma() : e.has_blit();
}

// A signal an operation completes (1 -> 0), waited for by the test.
struct Done {
  std::unique_ptr<queues::Signal> s = qtest::make_signal(1);
  queues::CopyOrder order(std::span<const queues::CopyWait> waits = {}) const {
    return queues::CopyOrder{waits, queues::signal_target(*s)};
  }
  base::Status wait(std::chrono::nanoseconds t = 120s) const {
    auto v = s->wait(queues::Cond::Lt, 1, t);
    if (!v) return v.error();
    return {};
  }
  queues::CopyWait after() const { return queues::CopyWait{s->handle(), queues::Cond::Eq, 0}; }
};

// Runs one operation and waits for it.
template <class Op>
base::Status run(Op&& op) {
  Done d;
  KFD_TRY(op(d.order()));
  return d.wait();
}

inline uint8_t pattern(uint64_t i, uint32_t seed) { return uint8_t((i * 2654435761u) >> 13 ^ seed); }
inline void fill_pattern(uint8_t* p, uint64_t n, uint32_t seed) {
  for (uint64_t i = 0; i < n; ++i) p[i] = pattern(i, seed);
}
// The first index where the bytes differ from the pattern, or n.
inline uint64_t first_mismatch(const uint8_t* p, uint64_t n, uint32_t seed) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i] != pattern(i, seed)) return i;
  return n;
}

inline std::string path_name(const testing::TestParamInfo<queues::CopyPath>& i) {
  return i.param == queues::CopyPath::Sdma ? "Sdma" : "Blit";
}

}  // namespace ctest
