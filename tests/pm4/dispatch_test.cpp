// SPDX-License-Identifier: MIT
// Kernels dispatched through PM4 queues: the registers and user SGPRs a real kernel needs, built from its descriptor.
#include "pm4_test_util.h"

namespace {

using namespace pm4test;
using queues::Cond;

const Kernels& kernels() {
  static Kernels k;
  return k;
}

class Pm4Dispatch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kernels().ok()) GTEST_SKIP() << kernels().why();
  }
  queues::Pm4Kernel kernel(const char* name) {
    auto k = kernels().kernel(name);
    EXPECT_TRUE(k.ok()) << k.message();
    return k.ok() ? *k : queues::Pm4Kernel{};
  }
  // A one-dimensional launch of `k` with its completion on `done`.
  static queues::Pm4Launch launch(const queues::Pm4Kernel& k, const Kernarg& args, uint32_t grid,
                                  uint16_t wg, queues::Signal* done) {
    queues::Pm4Launch l;
    l.kernel = &k;
    l.grid[0] = grid;
    l.workgroup[0] = wg;
    l.kernarg_address = args.va();
    l.kernarg = args.bytes();
    if (done) l.completion = queues::signal_target(*done);
    return l;
  }
};

TEST_F(Pm4Dispatch, EmptyDispatch) {
  auto q = make_pm4(64 << 10);
  auto done = make_signal(1);
  ASSERT_TRUE(q && done);
  auto k = kernel("empty_kernel");
  Kernarg args(0);
  auto st = q->dispatch(launch(k, args, 1, 1, done.get()));
  ASSERT_TRUE(st.ok()) << st.message();
  auto w = done->wait(Cond::Eq, 0, 30s);
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(q->completed_fence(), q->issued_fence());
  EXPECT_TRUE(q->wait_idle(10s).ok());
}

TEST_F(Pm4Dispatch, SimpleWriteDispatch) {
  auto q = make_pm4(64 << 10);
  Buffer src(4096), dst(4096);
  auto done = make_signal(1);
  ASSERT_TRUE(q && src && dst && done);
  src.as()[0] = 0x01010101;
  auto k = kernel("copy_dword");
  Kernarg args(16);
  args.set(0, src.va());
  args.set(8, dst.va());
  ASSERT_TRUE(q->dispatch(launch(k, args, 64, 64, done.get())).ok());
  auto w = done->wait(Cond::Eq, 0, 30s);
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(dst.as()[0], 0x01010101u);
}

// A 2-D grid that is not a multiple of the workgroup: partial workgroups cover the edges exactly
// (NUM_THREAD_PARTIAL), and the kernel's workgroup size comes from the dispatch packet.
TEST_F(Pm4Dispatch, CoversAPartialGridExactly) {
  auto q = make_pm4(64 << 10);
  const uint32_t w = 100, h = 3;
  Buffer out(4 * (w * h + 64));
  auto done = make_signal(1);
  ASSERT_TRUE(q && out && done);
  std::memset(out.as(), 0xEE, out.size());
  auto k = kernel("write_coords");
  Kernarg args(16);
  args.set(0, out.va());
  args.set(8, w);
  queues::Pm4Launch l = launch(k, args, w, 64, done.get());
  l.dims = 2;
  l.grid[1] = h;
  l.workgroup[1] = 2;
  ASSERT_TRUE(q->dispatch(l).ok());
  auto r = done->wait(Cond::Eq, 0, 30s);
  ASSERT_TRUE(r.ok()) << r.message();
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) ASSERT_EQ(out.as()[y * w + x], x | y << 16) << x << "," << y;
  for (uint32_t i = w * h; i < w * h + 64; ++i) EXPECT_EQ(out.as()[i], 0xEEEEEEEEu) << "past the grid at " << i;
}

// queue ptr -> the queue's amd_queue_t; dispatch id counts the queue's dispatches.
TEST_F(Pm4Dispatch, SeesItsQueueAndDispatchId) {
  auto q = make_pm4(64 << 10);
  Buffer out(4096);
  auto done = make_signal(2);
  ASSERT_TRUE(q && out && done);
  auto k = kernel("queue_and_dispatch_id");
  Kernarg a0(8), a1(8);
  a0.set(0, out.va());
  a1.set(0, out.va() + 16);
  queues::Pm4Launch l0 = launch(k, a0, 1, 1, nullptr);
  ASSERT_TRUE(q->dispatch(l0).ok());
  queues::Pm4Launch l1 = launch(k, a1, 1, 1, done.get());
  l1.completion_value = 0;
  ASSERT_TRUE(q->dispatch(l1).ok());
  ASSERT_TRUE(done->wait(Cond::Eq, 0, 30s).ok());
  const uint64_t* o = out.as<uint64_t>();
  EXPECT_EQ(o[0], q->queue_id());
  EXPECT_EQ(o[2], q->queue_id());
  EXPECT_EQ(o[3], o[1] + 1);
}

// Private arrays live in the queue's scratch; a queue without enough refuses the dispatch.
TEST_F(Pm4Dispatch, UsesTheQueueScratch) {
  auto k = kernel("private_array");
  ASSERT_GT(k.private_segment_fixed_size, 0u);
  auto none = make_pm4(64 << 10);
  ASSERT_TRUE(none);
  Kernarg args(16);
  auto refused = none->dispatch(launch(k, args, 64, 64, nullptr));
  EXPECT_EQ(refused.err(), EINVAL);
  EXPECT_NE(refused.message().find("scratch"), std::string::npos) << refused.message();
  auto q = make_pm4(64 << 10, 1024);
  const uint32_t n = 256, salt = 5;
  Buffer out(4 * n);
  auto done = make_signal(1);
  ASSERT_TRUE(q && out && done);
  ASSERT_GE(q->scratch_lane_bytes(), k.private_segment_fixed_size);
  args.set(0, out.va());
  args.set(8, salt);
  auto st = q->dispatch(launch(k, args, n, 64, done.get()));
  ASSERT_TRUE(st.ok()) << st.message();
  auto w = done->wait(Cond::Eq, 0, 30s);
  ASSERT_TRUE(w.ok()) << w.message();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t t = i % 64;
    ASSERT_EQ(out.as()[i], ((t * 7 + salt) % 96) * salt + t) << i;
  }
  // Growing it between dispatches keeps the queue working.
  ASSERT_TRUE(q->grow_scratch(2048, 30s).ok());
  done->store(1);
  ASSERT_TRUE(q->dispatch(launch(k, args, n, 64, done.get())).ok());
  ASSERT_TRUE(done->wait(Cond::Eq, 0, 30s).ok());
}

// Dynamic group memory: RSRC2.LDS_SIZE covers fixed + dynamic bytes.
TEST_F(Pm4Dispatch, UsesDynamicLds) {
  auto q = make_pm4(64 << 10);
  const uint32_t wg = 64, groups = 3;
  Buffer out(4 * wg * groups);
  auto done = make_signal(1);
  ASSERT_TRUE(q && out && done);
  auto k = kernel("reverse_in_lds");
  Kernarg args(8);
  args.set(0, out.va());
  queues::Pm4Launch l = launch(k, args, wg * groups, wg, done.get());
  l.dynamic_group_bytes = wg * 4;
  ASSERT_TRUE(q->dispatch(l).ok());
  ASSERT_TRUE(done->wait(Cond::Eq, 0, 30s).ok());
  for (uint32_t i = 0; i < wg * groups; ++i) EXPECT_EQ(out.as()[i], (wg - 1 - i % wg) * 3 + 1) << i;
}

// Fence::barrier: the second dispatch starts only after the first one finished.
TEST_F(Pm4Dispatch, BarrierWaitsForThePreviousDispatch) {
  auto q = make_pm4(64 << 10);
  Buffer go(4096), flag(4096), seen(4096);
  auto done = make_signal(1);
  ASSERT_TRUE(q && go && flag && seen && done);
  auto spin = kernel("wait_for_go"), copy = kernel("copy_dword");
  Kernarg a0(16), a1(16);
  a0.set(0, go.va());
  a0.set(8, flag.va());
  a1.set(0, flag.va());
  a1.set(8, seen.va());
  queues::Pm4Launch first = launch(spin, a0, 1, 1, nullptr);
  queues::Pm4Launch second = launch(copy, a1, 1, 1, done.get());
  second.fence.barrier = true;
  ASSERT_TRUE(q->dispatch(first).ok());
  ASSERT_TRUE(q->dispatch(second).ok());
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(done->load(), 1);  // held behind the spinning kernel
  __atomic_store_n(go.as(), 1u, __ATOMIC_RELEASE);
  auto w = done->wait(Cond::Eq, 0, 30s);
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(seen.as()[0], 1u);  // the first kernel's result, not the 0 before it
}

// More dispatches in flight than dispatch packet slots: slots are reused only after their
// dispatch retired, so every kernel sees its own packet.
TEST_F(Pm4Dispatch, ReusesDispatchPacketSlotsSafely) {
  auto q = make_pm4(256 << 10);
  const uint32_t count = 160, base = 64;
  Buffer out(4 * count * (base + 8));
  auto done = make_signal(count);
  ASSERT_TRUE(q && out && done);
  auto k = kernel("write_coords");
  std::vector<std::unique_ptr<Kernarg>> args;
  for (uint32_t i = 0; i < count; ++i) {
    args.push_back(std::make_unique<Kernarg>(16));
    args.back()->set(0, out.va() + 4ull * i * (base + 8));
    args.back()->set(8, base + 8);
    queues::Pm4Launch l = launch(k, *args.back(), base + i % 8, 32, done.get());
    l.completion_value = int64_t(count - 1 - i);
    auto st = q->dispatch(l);
    ASSERT_TRUE(st.ok()) << i << ": " << st.message();
  }
  auto w = done->wait(Cond::Eq, 0, 60s);
  ASSERT_TRUE(w.ok()) << w.message();
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t* o = out.as() + i * (base + 8);
    const uint32_t n = base + i % 8;
    EXPECT_EQ(o[n - 1], n - 1) << "dispatch " << i;
    EXPECT_EQ(o[n], 0u) << "dispatch " << i << " wrote past its grid";
  }
}

// A dispatch waits on another queue's signal (WAIT_REG_MEM on both halves of the value).
TEST_F(Pm4Dispatch, WaitsForASignalFromTheHost) {
  auto q = make_pm4(64 << 10);
  Buffer src(4096), dst(4096);
  auto gate = make_signal(1), done = make_signal(1);
  ASSERT_TRUE(q && src && dst && gate && done);
  src.as()[0] = 42;
  uint32_t wait[queues::kPm4WaitSignalDwords];
  auto n = queues::write_pm4_wait_signal(wait, reinterpret_cast<uint64_t>(&gate->amd()->value), Cond::Eq, 0);
  ASSERT_TRUE(n.ok());
  ASSERT_TRUE(q->submit(std::span(wait, *n)).ok());
  auto k = kernel("copy_dword");
  Kernarg args(16);
  args.set(0, src.va());
  args.set(8, dst.va());
  ASSERT_TRUE(q->dispatch(launch(k, args, 1, 1, done.get())).ok());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(dst.as()[0], 0u);
  gate->store(0);
  ASSERT_TRUE(done->wait(Cond::Eq, 0, 30s).ok());
  EXPECT_EQ(dst.as()[0], 42u);
}

// A kernel that preloads its first kernargs into SGPRs: the launcher copies them into USER_DATA
// and starts 256 bytes past the entry, whose prologue traps (AMDGPUUsage; LLVM 18+ emits it).
TEST(Pm4DispatchPreload, PreloadsKernargsIntoSgprs) {
  Kernels preload("pm4_preload");
  if (!preload.ok()) GTEST_SKIP() << preload.why();
  const pm4::KernelDescriptor* kd = preload.descriptor("copy_dword");
  ASSERT_NE(kd, nullptr);
  ASSERT_GT(pm4::kernarg_preload_length(kd->kernarg_preload), 0u) << "the build did not preload";
  auto k = preload.kernel("copy_dword");
  ASSERT_TRUE(k.ok()) << k.message();
  auto q = make_pm4(64 << 10);
  Buffer src(4096), dst(4096);
  auto done = make_signal(1);
  ASSERT_TRUE(q && src && dst && done);
  src.as()[0] = 0x5EED;
  Kernarg args(16);
  args.set(0, src.va());
  args.set(8, dst.va());
  queues::Pm4Launch l;
  l.kernel = &*k;
  l.grid[0] = l.workgroup[0] = 64;
  l.kernarg_address = args.va();
  l.completion = queues::signal_target(*done);
  auto missing = q->dispatch(l);  // no host view of the arguments: refused, nothing queued
  EXPECT_EQ(missing.err(), EINVAL) << missing.message();
  l.kernarg = args.bytes();
  ASSERT_TRUE(q->dispatch(l).ok());
  auto w = done->wait(Cond::Eq, 0, 30s);
  ASSERT_TRUE(w.ok()) << w.message();
  EXPECT_EQ(dst.as()[0], 0x5EEDu);
}

}  // namespace
