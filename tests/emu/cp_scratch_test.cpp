// SPDX-License-Identifier: MIT
// The emulated command processor gives a dispatch its queue's scratch: through kfdrt's queues and
// loader (real ioctls, the preloaded emulator), a kernel needing scratch stops a queue without any
// with queue error 6 and both sizes on stderr, and runs on a queue created with enough.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <vector>

#include "gpu_segments.h"
#include "loader/code_object.h"
#include "loader/load.h"
#include "pm4/queue_error.h"
#include "queues/packets.h"
#include "queues/runtime.h"

namespace {

using namespace std::chrono_literals;

using emutest::GpuSegments;

class CpScratch : public ::testing::Test {
 protected:
  void SetUp() override {
    // A real CP would let the waves fault on the missing scratch instead: emulator only.
    if (!dlsym(RTLD_DEFAULT, "kfdemu_present")) GTEST_SKIP() << "needs the emulated GPU";
    auto rt = queues::Runtime::open();
    ASSERT_TRUE(rt.ok()) << rt.message();
    rt_ = std::move(*rt);
    std::ifstream f(std::string(EMU_KERNEL_DIR) + "/scratch.co", std::ios::binary);
    image_.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    auto co = loader::CodeObject::parse(loader::Bytes(image_.data(), image_.size()));
    ASSERT_TRUE(co.ok()) << co.message();
    const loader::Kernel* k = co->find_kernel("private_array");
    ASSERT_NE(k, nullptr);
    private_bytes_ = uint32_t(k->meta.private_segment_fixed_size);
    ASSERT_GT(private_bytes_, 1000u);  // 300 words per work-item
    segments_ = std::make_unique<GpuSegments>(rt_->memory());
    auto lco = loader::LoadedCodeObject::load(*co, *segments_);
    ASSERT_TRUE(lco.ok()) << lco.message();
    code_ = std::make_unique<loader::LoadedCodeObject>(std::move(*lco));
    auto kd = code_->kernel_object("private_array");
    ASSERT_TRUE(kd.ok()) << kd.message();
    kernel_object_ = *kd;
  }
  void TearDown() override {
    for (void* p : buffers_) (void)rt_->memory().free(p);
    code_.reset();
  }

  template <class T>
  T* host_visible(size_t n) {
    mem::AllocRequest r;
    r.size = n * sizeof(T);
    auto p = rt_->memory().allocate(r);
    EXPECT_TRUE(p.ok()) << p.message();
    if (!p.ok()) return nullptr;
    buffers_.push_back(*p);
    std::memset(*p, 0, r.size);
    return static_cast<T*>(*p);
  }

  // private_array(idx, out, n) on `q` with 64-item workgroups; the signal completes it.
  base::Status dispatch(queues::AqlQueue& q, const unsigned* idx, unsigned* out, unsigned n,
                       queues::Signal& done) {
    auto* ka = static_cast<uint8_t*>(rt_->memory().allocate_kernarg(256).value());
    buffers_.push_back(ka);
    std::memset(ka, 0, 256);
    std::memcpy(ka, &idx, 8);
    std::memcpy(ka + 8, &out, 8);
    std::memcpy(ka + 16, &n, 4);
    queues::DispatchParams p;
    p.workgroup[0] = 64;
    p.grid[0] = n;
    p.private_segment_size = private_bytes_;
    p.kernel_object = kernel_object_;
    p.kernarg_address = reinterpret_cast<uint64_t>(ka);
    p.completion_signal = done.handle();
    KFD_ASSIGN(queues::Packet pk, queues::make_dispatch(p));
    return q.submit(pk);
  }

  std::unique_ptr<queues::Runtime> rt_;
  std::vector<uint8_t> image_;
  std::unique_ptr<GpuSegments> segments_;
  std::unique_ptr<loader::LoadedCodeObject> code_;
  uint64_t kernel_object_ = 0;
  uint32_t private_bytes_ = 0;
  std::vector<void*> buffers_;
};

TEST_F(CpScratch, StopsQueueWithoutScratchNamingTheBytes) {
  const unsigned n = 128;
  unsigned* idx = host_visible<unsigned>(n);
  unsigned* out = host_visible<unsigned>(n);
  queues::QueueOptions o;
  o.packets = 64;  // scratch_lane_bytes 0: no scratch
  auto q = rt_->create_queue(o);
  ASSERT_TRUE(q.ok()) << q.message();
  auto done = rt_->create_signal(1);
  ASSERT_TRUE(done.ok()) << done.message();
  testing::internal::CaptureStderr();
  ASSERT_TRUE(dispatch(**q, idx, out, n, **done).ok());
  auto waited = (*done)->wait(queues::Cond::Eq, 0, 20s);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(waited.ok()) << "the dispatch must not complete";
  EXPECT_EQ(uint64_t((*q)->error_code()), pm4::queue_error::kScratchWave64) << err;
  EXPECT_NE((*q)->error().message().find("insufficient scratch"), std::string::npos)
      << (*q)->error().message();
  EXPECT_NE(err.find("needs " + std::to_string(private_bytes_) + " bytes of scratch per work-item"),
            std::string::npos) << err;
  EXPECT_NE(err.find("available 0 bytes"), std::string::npos) << err;
  EXPECT_EQ(out[0], 0u);
}

TEST_F(CpScratch, RunsOnQueueCreatedWithEnoughScratch) {
  const unsigned n = 200;
  unsigned* idx = host_visible<unsigned>(n);
  unsigned* out = host_visible<unsigned>(n);
  std::mt19937 rng(11);
  for (unsigned i = 0; i < n; ++i) idx[i] = rng() % 1000;
  queues::QueueOptions o;
  o.packets = 64;
  o.scratch_lane_bytes = private_bytes_;
  auto q = rt_->create_queue(o);
  ASSERT_TRUE(q.ok()) << q.message();
  auto done = rt_->create_signal(1);
  ASSERT_TRUE(done.ok()) << done.message();
  ASSERT_TRUE(dispatch(**q, idx, out, n, **done).ok());
  auto waited = (*done)->wait(queues::Cond::Eq, 0, 60s);
  ASSERT_TRUE(waited.ok()) << waited.message();
  for (unsigned i = 0; i < n; ++i) {
    unsigned s = 0;
    for (unsigned k = 0; k < 16; ++k) s += ((idx[i] + k * 13) % 300) * 7 + i;
    ASSERT_EQ(out[i], s) << i;
  }
}

}  // namespace
