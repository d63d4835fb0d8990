// SPDX-License-Identifier: MIT
// Device tests of amdkfd behaviour the kernel (Linux 6.12 kfd_chardev.c, kfd_events.c, kfd_queue.c) defines and the emulator must match.
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tests/kfd/device.h"

namespace kfdtest {
namespace {

class Conformance : public DeviceTest {
 protected:
  void TearDown() override {
    for (uint32_t id : events_) EXPECT_TRUE(kfd().destroy_event(id).ok()) << id;
  }
  kfd::EventInfo make_event(uint32_t type, bool auto_reset = false) {
    auto e = kfd().create_event(type, auto_reset);
    EXPECT_TRUE(e.ok()) << e.message();
    if (!e.ok()) return {};
    events_.push_back(e->event_id);
    return *e;
  }
  kfd::WaitResult poll(std::span<kfd::EventData> d, bool all) {
    auto r = kfd().wait_events(d, all, 0);
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? *r : kfd::WaitResult::Fail;
  }
  // A raw ioctl: -errno or 0, for results the typed wrappers do not expose.
  int raw(unsigned long request, void* args) {
    return ::ioctl(kfd().fd(), request, args) == 0 ? 0 : -errno;
  }
  std::vector<uint32_t> events_;
};

// kfd_event_create: trigger data is the event id for every type; only signal-type events get the
// EVENTS mmap type in event_page_offset, others get 0.
TEST_F(Conformance, CreateEventReportsTriggerDataAndPageOffset) {
  kfd::EventInfo s = make_event(KFD_IOC_EVENT_SIGNAL);
  EXPECT_EQ(s.event_trigger_data, s.event_id);
  EXPECT_EQ(s.event_slot_index, s.event_id);
  EXPECT_EQ(s.event_page_offset, kfd::uapi::kMmapTypeEvents);
  for (uint32_t type : {KFD_IOC_EVENT_MEMORY, KFD_IOC_EVENT_HW_EXCEPTION}) {
    kfd::EventInfo o = make_event(type);
    EXPECT_EQ(o.event_trigger_data, o.event_id) << type;
    EXPECT_EQ(o.event_page_offset, 0u) << type;
  }
}

// kfd_set_event / kfd_reset_event: only SIGNAL events can be set from the CPU, not DEBUG ones.
TEST_F(Conformance, SetEventRejectsDebugEvent) {
  kfd::EventInfo dbg = make_event(KFD_IOC_EVENT_DEBUG_EVENT);
  ASSERT_NE(dbg.event_id, 0u);
  EXPECT_TRUE(fails_with(kfd().set_event(dbg.event_id), EINVAL, "AMDKFD_IOC_SET_EVENT"));
  EXPECT_TRUE(fails_with(kfd().reset_event(dbg.event_id), EINVAL, "AMDKFD_IOC_RESET_EVENT"));
}

TEST_F(Conformance, WaitOnNoEventsCompletes) {
  auto r = kfd().wait_events({}, true, 0);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(*r, kfd::WaitResult::Complete);
}

// kfd_ioctl copies the arguments back even when the handler fails: wait_result says FAIL.
TEST_F(Conformance, FailedWaitReportsFail) {
  kfd_event_data d{};
  d.event_id = 0xfffff0;
  kfd_ioctl_wait_events_args a{};
  a.events_ptr = reinterpret_cast<uintptr_t>(&d);
  a.num_events = 1;
  a.wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT;
  EXPECT_EQ(raw(kfd::ioctls::kWaitEvents.request, &a), -EINVAL);
  EXPECT_EQ(a.wait_result, uint32_t(KFD_IOC_WAIT_RESULT_FAIL));
}

// init_event_waiter consumes a signaled auto-reset event even when a wait-for-all over it and an
// unsignaled event times out.
TEST_F(Conformance, AutoResetEventIsConsumedByAnIncompleteWait) {
  uint32_t a = make_event(KFD_IOC_EVENT_SIGNAL, true).event_id;
  uint32_t b = make_event(KFD_IOC_EVENT_SIGNAL).event_id;
  ASSERT_TRUE(kfd().set_event(a).ok());
  kfd::EventData both[2] = {};
  both[0].event_id = a;
  both[1].event_id = b;
  EXPECT_EQ(poll(both, true), kfd::WaitResult::Timeout);
  kfd::EventData one{};
  one.event_id = a;
  EXPECT_EQ(poll({&one, 1}, true), kfd::WaitResult::Timeout);
}

// copy_signaled_event_data writes last_event_age back only to callers that passed one.
TEST_F(Conformance, WaitReturnsEventAgeOnlyWhenAsked) {
  if (!kfd().has_minor(kfd::minor::kLastEventAge)) GTEST_SKIP() << "KFD " << kfd().version().str();
  uint32_t id = make_event(KFD_IOC_EVENT_SIGNAL).event_id;
  ASSERT_TRUE(kfd().set_event(id).ok());
  // Debian's <linux/kfd_ioctl.h> (1.11) predates the field: it is the first 8 bytes of the union.
  auto age = [](const kfd::EventData& e) {
    uint64_t v;
    std::memcpy(&v, &e, sizeof v);
    return v;
  };
  kfd::EventData d{};
  d.event_id = id;
  EXPECT_EQ(poll({&d, 1}, true), kfd::WaitResult::Complete);
  EXPECT_EQ(age(d), 0u);
  const uint64_t first = 1;  // the age of a new event: one set later it is 2
  std::memcpy(&d, &first, sizeof first);
  EXPECT_EQ(poll({&d, 1}, true), kfd::WaitResult::Complete);
  EXPECT_EQ(age(d), 2u);
}

// kfd_event_mmap maps up to the page's size; more is EINVAL.
TEST_F(Conformance, EventsPageMapsPartly) {
  kfd::EventInfo s = make_event(KFD_IOC_EVENT_SIGNAL);
  auto small = kfd().mmap(nullptr, kPage, PROT_READ, MAP_SHARED, s.event_page_offset);
  ASSERT_TRUE(small.ok()) << small.message();
  munmap(*small, kPage);
  auto big = kfd().mmap(nullptr, 2 * kfd::uapi::kEventPageSize, PROT_READ, MAP_SHARED,
                        s.event_page_offset);
  EXPECT_FALSE(big.ok());
  // Map the whole page again: the last mapping sets how many slots events may use.
  auto full = kfd().mmap(nullptr, kfd::uapi::kEventPageSize, PROT_READ, MAP_SHARED, s.event_page_offset);
  ASSERT_TRUE(full.ok()) << full.message();
  munmap(*full, kfd::uapi::kEventPageSize);
}

// A doorbell mmap naming no GPU: kfd_mmap returns ENODEV.
TEST_F(Conformance, DoorbellMmapOfUnknownGpuIsEnodev) {
  uint64_t off = kfd::uapi::mmap_offset(kfd::uapi::kMmapTypeDoorbell, kBadGpuId);
  void* p = ::mmap(nullptr, kfd::uapi::kDoorbellSliceSize, PROT_READ, MAP_SHARED, kfd().fd(), off_t(off));
  EXPECT_EQ(p, MAP_FAILED);
  EXPECT_EQ(errno, ENODEV);
  if (p != MAP_FAILED) munmap(p, kfd::uapi::kDoorbellSliceSize);
}

// The old GET_PROCESS_APERTURES fills a fixed array of NUM_OF_SUPPORTED_GPUS entries (400 bytes
// of arguments, more than any other ioctl) with the same GPUs as the _NEW one.
TEST_F(Conformance, OldGetProcessAperturesListsTheGpus) {
  kfd_ioctl_get_process_apertures_args a{};
  ASSERT_EQ(raw(kfd::ioctls::kGetProcessApertures.request, &a), 0);
  auto fresh = kfd().get_process_apertures();
  ASSERT_TRUE(fresh.ok()) << fresh.message();
  ASSERT_EQ(a.num_of_nodes, fresh->size());
  for (uint32_t i = 0; i < a.num_of_nodes; ++i) {
    EXPECT_EQ(a.process_apertures[i].gpu_id, (*fresh)[i].gpu_id);
    EXPECT_EQ(a.process_apertures[i].gpuvm_limit, (*fresh)[i].gpuvm_limit);
  }
}

// drm_gem_mmap looks a BO up by the exact start of its mmap offset: a mapping that starts inside
// the BO, or runs past its end, is EINVAL.
TEST_F(Conformance, RenderMmapNeedsTheBoOffsetExactly) {
  void* va = ::mmap(nullptr, 2 * kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(va, MAP_FAILED);
  auto bo = kfd().alloc_memory(gpu0().gpu_id, reinterpret_cast<uintptr_t>(va), 2 * kPage,
                               KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE);
  ASSERT_TRUE(bo.ok()) << bo.message();
  int fd = gpu0().render.fd();
  void* whole = ::mmap(nullptr, 2 * kPage, PROT_READ, MAP_SHARED, fd, off_t(bo->mmap_offset));
  EXPECT_NE(whole, MAP_FAILED) << std::strerror(errno);
  if (whole != MAP_FAILED) munmap(whole, 2 * kPage);
  void* inside = ::mmap(nullptr, kPage, PROT_READ, MAP_SHARED, fd, off_t(bo->mmap_offset + kPage));
  EXPECT_EQ(inside, MAP_FAILED);
  if (inside != MAP_FAILED) munmap(inside, kPage);
  void* longer = ::mmap(nullptr, 3 * kPage, PROT_READ, MAP_SHARED, fd, off_t(bo->mmap_offset));
  EXPECT_EQ(longer, MAP_FAILED);
  if (longer != MAP_FAILED) munmap(longer, 3 * kPage);
  EXPECT_TRUE(kfd().free_memory(bo->handle).ok());
  munmap(va, 2 * kPage);
}

// mmap(2) refuses an offset that is not page aligned: a doorbell_offset with the queue's slot
// bits still in it does not map (mask them off first).
TEST_F(Conformance, DoorbellMmapNeedsAPageAlignedOffset) {
  uint64_t off = kfd::uapi::mmap_offset(kfd::uapi::kMmapTypeDoorbell, gpu0().gpu_id) | 8;
  void* p = ::mmap(nullptr, kfd::uapi::kDoorbellSliceSize, PROT_READ, MAP_SHARED, kfd().fd(), off_t(off));
  EXPECT_EQ(p, MAP_FAILED);
  EXPECT_EQ(errno, EINVAL);
  if (p != MAP_FAILED) munmap(p, kfd::uapi::kDoorbellSliceSize);
}

// kfd_ioctl: the deprecated DBG_REGISTER .. DBG_WAVE_CONTROL (the table's deprecated rows) are
// EPERM, whatever argument size the caller encodes.
TEST_F(Conformance, DeprecatedDebugIoctlsAreEperm) {
  uint64_t args[8] = {};
  unsigned deprecated = 0;
  for (const kfd::IoctlInfo& e : kfd::kIoctlTable) {
    if (!e.deprecated) continue;
    ++deprecated;
    EXPECT_EQ(raw(_IOW(AMDKFD_IOCTL_BASE, e.nr, uint64_t[2]), args), -EPERM) << e.name;
    EXPECT_EQ(raw(_IOW(AMDKFD_IOCTL_BASE, e.nr, uint64_t[8]), args), -EPERM) << e.name;
  }
  EXPECT_EQ(deprecated, 4u);
}

// MAP_MEMORY_TO_GPU failing part way reports how many devices were done in n_success (the
// kernel copies the arguments back on failure too).
TEST_F(Conformance, MapReportsProgressOnFailure) {
  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, kPage);
  ASSERT_TRUE(b.ok()) << b.message();
  const uint32_t then_bad[] = {gpu0().gpu_id, kBadGpuId};
  auto r = kfd().map_memory(b->handle(), then_bad);
  EXPECT_TRUE(fails_with(r, EINVAL, "AMDKFD_IOC_MAP_MEMORY_TO_GPU"));
  EXPECT_NE(r.message().find("n_success=0x1"), std::string::npos) << r.message();
}

// In a process that has not done ACQUIRE_VM, the per-GPU ioctls fail in kfd_bind_process_to_device:
// ENODEV for ALLOC and SET_SCRATCH_BACKING_VA, ESRCH for CREATE_QUEUE and SET_TRAP_HANDLER.
TEST_F(Conformance, IoctlsBeforeAcquireVmFail) {
  uint32_t gpu_id = gpu0().gpu_id;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto k = kfd::Kfd::open();
    if (!k.ok()) _exit(10);
    int code = 0;
    auto alloc = k->alloc_memory(gpu_id, 0x7f0000000000ull, kPage, KFD_IOC_ALLOC_MEM_FLAGS_GTT);
    if (alloc.ok() || alloc.error().err != ENODEV) code |= 1;
    kfd::QueueArgs q;
    q.gpu_id = gpu_id;
    q.ring_size = 0x1000;
    auto queue = k->create_queue(q);
    if (queue.ok() || queue.error().err != ESRCH) code |= 2;
    auto scratch = k->set_scratch_backing_va(gpu_id, 0x7f0000000000ull);
    if (scratch.ok() || scratch.error().err != ENODEV) code |= 4;
    auto trap = k->set_trap_handler(gpu_id, 0, 0);
    if (trap.ok() || trap.error().err != ESRCH) code |= 8;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bit 0 ALLOC, 1 CREATE_QUEUE, 2 SCRATCH, 3 TRAP; 10: no /dev/kfd";
}

}  // namespace
}  // namespace kfdtest
