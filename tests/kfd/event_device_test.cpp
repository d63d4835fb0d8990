// SPDX-License-Identifier: MIT
// Device tests of CREATE/DESTROY/SET/RESET/WAIT_EVENTS and of the per-GPU settings ioctls.
#include <sys/mman.h>

#include <chrono>

#include "tests/kfd/device.h"

namespace kfdtest {
namespace {

class Events : public DeviceTest {
 protected:
  uint32_t make_signal(bool auto_reset = false) {
    auto e = kfd().create_event(KFD_IOC_EVENT_SIGNAL, auto_reset);
    EXPECT_TRUE(e.ok()) << e.message();
    if (!e.ok()) return 0;
    EXPECT_NE(e->event_id, 0u);
    EXPECT_LT(e->event_slot_index, kfd::uapi::kEventSlots);
    created_.push_back(e->event_id);
    return e->event_id;
  }
  void TearDown() override {
    for (uint32_t id : created_) EXPECT_TRUE(kfd().destroy_event(id).ok()) << id;
  }
  base::Result<kfd::WaitResult> wait(uint32_t id, uint32_t timeout_ms) {
    kfd::EventData d{};
    d.event_id = id;
    return kfd().wait_events({&d, 1}, true, timeout_ms);
  }
  std::vector<uint32_t> created_;
};

TEST_F(Events, EventSignalAndWait) {
  uint32_t id = make_signal();
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(kfd().set_event(id).ok());
  auto r = wait(id, 1000);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(*r, kfd::WaitResult::Complete);
  // Not auto-reset: still signaled until RESET_EVENT.
  auto again = wait(id, 0);
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(*again, kfd::WaitResult::Complete);
  ASSERT_TRUE(kfd().reset_event(id).ok());
  auto after_reset = wait(id, 0);
  ASSERT_TRUE(after_reset.ok()) << after_reset.message();
  EXPECT_EQ(*after_reset, kfd::WaitResult::Timeout);
}

TEST_F(Events, WaitEventsTimesOut) {
  uint32_t id = make_signal();
  ASSERT_NE(id, 0u);
  auto t0 = std::chrono::steady_clock::now();
  auto r = wait(id, 50);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(*r, kfd::WaitResult::Timeout);
  EXPECT_GE(ms.count(), 40);
  EXPECT_LT(ms.count(), 5000);
}

TEST_F(Events, WaitAnyReturnsWhenOneIsSignaled) {
  uint32_t a = make_signal(), b = make_signal();
  ASSERT_TRUE(kfd().set_event(b).ok());
  kfd::EventData d[2] = {};
  d[0].event_id = a;
  d[1].event_id = b;
  auto any = kfd().wait_events(d, false, 1000);
  ASSERT_TRUE(any.ok()) << any.message();
  EXPECT_EQ(*any, kfd::WaitResult::Complete);
  auto all = kfd().wait_events(d, true, 10);
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(*all, kfd::WaitResult::Timeout);
}

TEST_F(Events, EventsPageMaps) {
  auto e = kfd().create_event(KFD_IOC_EVENT_SIGNAL, false);
  ASSERT_TRUE(e.ok()) << e.message();
  created_.push_back(e->event_id);
  EXPECT_EQ(e->event_page_offset & kfd::uapi::kMmapTypeMask, kfd::uapi::kMmapTypeEvents);
  auto page = kfd().mmap(nullptr, kfd::uapi::kEventPageSize, PROT_READ | PROT_WRITE, MAP_SHARED,
                         e->event_page_offset);
  ASSERT_TRUE(page.ok()) << page.message();
  munmap(*page, kfd::uapi::kEventPageSize);
}

TEST_F(Events, RejectBadArguments) {
  const uint32_t bad = 0xfffff0;
  EXPECT_TRUE(fails_with(kfd().destroy_event(bad), EINVAL, "AMDKFD_IOC_DESTROY_EVENT"));
  EXPECT_TRUE(fails_with(kfd().set_event(bad), EINVAL, "AMDKFD_IOC_SET_EVENT"));
  EXPECT_TRUE(fails_with(kfd().reset_event(bad), EINVAL, "AMDKFD_IOC_RESET_EVENT"));
  auto w = wait(bad, 0);
  EXPECT_TRUE(fails_with(w, EINVAL, "AMDKFD_IOC_WAIT_EVENTS"));
  EXPECT_NE(w.message().find("event_id[0]=16777200"), std::string::npos) << w.message();
  // An events-page handle naming an unknown GPU.
  auto c = kfd().create_event(KFD_IOC_EVENT_SIGNAL, false, 0, (uint64_t(kBadGpuId) << 32) | 1);
  EXPECT_TRUE(fails_with(c, EINVAL, "AMDKFD_IOC_CREATE_EVENT"));
  if (c.ok()) created_.push_back(c->event_id);
}

class Settings : public DeviceTest {};

TEST_F(Settings, SetMemoryPolicy) {
  auto r = kfd().set_memory_policy(gpu0().gpu_id, KFD_IOC_CACHE_POLICY_COHERENT,
                                   KFD_IOC_CACHE_POLICY_COHERENT);
  EXPECT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(fails_with(kfd().set_memory_policy(gpu0().gpu_id, 7, KFD_IOC_CACHE_POLICY_COHERENT),
                         EINVAL, "AMDKFD_IOC_SET_MEMORY_POLICY"));
  EXPECT_TRUE(fails_with(kfd().set_memory_policy(kBadGpuId, KFD_IOC_CACHE_POLICY_COHERENT,
                                                 KFD_IOC_CACHE_POLICY_COHERENT),
                         EINVAL, "AMDKFD_IOC_SET_MEMORY_POLICY"));
}

TEST_F(Settings, SetScratchBackingVa) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Vram, 1 << 20, 0, false);
  ASSERT_TRUE(b.ok()) << b.message();
  auto r = kfd().set_scratch_backing_va(gpu0().gpu_id, b->va());
  EXPECT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(fails_with(kfd().set_scratch_backing_va(kBadGpuId, b->va()), EINVAL,
                         "AMDKFD_IOC_SET_SCRATCH_BACKING_VA"));
}

TEST_F(Settings, SetTrapHandler) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, 2 * kPage, KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE);
  ASSERT_TRUE(b.ok()) << b.message();
  auto r = kfd().set_trap_handler(gpu0().gpu_id, b->va(), b->va() + kPage);
  EXPECT_TRUE(r.ok()) << r.message();
  auto bad = kfd().set_trap_handler(kBadGpuId, b->va(), b->va() + kPage);
  EXPECT_TRUE(fails_with(bad, EINVAL, "AMDKFD_IOC_SET_TRAP_HANDLER"));
  EXPECT_NE(bad.message().find("gpu_id=0xdead"), std::string::npos) << bad.message();
}

TEST_F(Settings, XnackModeQueryMatchesSet) {
  if (!kfd().has_minor(kfd::minor::kXnackMode)) {
    EXPECT_EQ(kfd().get_xnack_mode().err(), ENOTSUP);
    return;
  }
  auto mode = kfd().get_xnack_mode();
  ASSERT_TRUE(mode.ok()) << mode.message();
  auto set = kfd().set_xnack_mode(*mode);
  EXPECT_TRUE(set.ok()) << set.message();
  auto again = kfd().get_xnack_mode();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *mode);
}

class MultiGpu : public DeviceTest {};

TEST_F(MultiGpu, TwoGpusHaveDistinctIds) {
  if (dev().gpus.size() < 2) GTEST_SKIP() << "one GPU (emulator: KFDEMU_GPUS=2)";
  Gpu& a = dev().gpus[0];
  Gpu& b = dev().gpus[1];
  EXPECT_NE(a.gpu_id, b.gpu_id);
  EXPECT_NE(a.node->props.drm_render_minor, b.node->props.drm_render_minor);
  EXPECT_NE(a.node->index, b.node->index);
  // One allocation on GPU a, mapped to both GPUs, then unmapped from both.
  auto buf = Buffer::make(dev(), a, Buffer::Kind::Gtt, kPage);
  ASSERT_TRUE(buf.ok()) << buf.message();
  const uint32_t both[] = {a.gpu_id, b.gpu_id};
  auto m = kfd().map_memory(buf->handle(), both);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(*m, 2u);
  const uint32_t only_b[] = {b.gpu_id};
  auto u = kfd().unmap_memory(buf->handle(), only_b);
  ASSERT_TRUE(u.ok()) << u.message();
  EXPECT_EQ(*u, 1u);
}

}  // namespace
}  // namespace kfdtest
