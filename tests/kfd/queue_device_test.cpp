// SPDX-License-Identifier: MIT
// Device tests of CREATE/DESTROY/UPDATE_QUEUE with the buffers Linux 6.12 validates, plus XNACK/runtime gates.
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "tests/kfd/device.h"

namespace kfdtest {
namespace {

constexpr uint32_t kRingSize = 0x10000;  // 1024 AQL packets

// The buffers of one AQL queue: ring (one mapping of ring_size), rptr and wptr each at the start
// of their own one-page mapping, EOP and CWSR sized by pm4::queue_buffer_sizes.
struct QueueBuffers {
  Buffer ring, rptr, wptr, eop, cwsr;

  static base::Result<QueueBuffers> make(Device& d, Gpu& g) {
    QueueBuffers q;
    KFD_ASSIGN(q.ring, Buffer::make(d, g, Buffer::Kind::Gtt, kRingSize, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
    KFD_ASSIGN(q.rptr, Buffer::make(d, g, Buffer::Kind::Gtt, kPage, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
    KFD_ASSIGN(q.wptr, Buffer::make(d, g, Buffer::Kind::Gtt, kPage, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
    KFD_ASSIGN(q.eop, Buffer::make(d, g, Buffer::Kind::Vram, g.sizes.eop_size, 0, false));
    KFD_ASSIGN(q.cwsr, Buffer::make(d, g, Buffer::Kind::Vram, g.sizes.cwsr_total, 0, false));
    // Every AQL header starts INVALID (type 1).
    auto* ring = static_cast<uint16_t*>(q.ring.ptr());
    for (size_t i = 0; i < kRingSize / 64; ++i) ring[i * 32] = 1;
    return q;
  }

  kfd::QueueArgs args(const Gpu& g) const {
    kfd::QueueArgs a;
    a.gpu_id = g.gpu_id;
    a.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
    a.ring_base_address = ring.va();
    a.ring_size = kRingSize;
    a.read_pointer_address = rptr.va();
    a.write_pointer_address = wptr.va();
    a.eop_buffer_address = eop.va();
    a.eop_buffer_size = g.sizes.eop_size;
    a.ctx_save_restore_address = cwsr.va();
    a.ctx_save_restore_size = g.sizes.ctx_save_restore_size;
    a.ctl_stack_size = g.sizes.ctl_stack_size;
    return a;
  }
};

class Queue : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (HasFatalFailure()) return;
    auto q = QueueBuffers::make(dev(), gpu0());
    ASSERT_TRUE(q.ok()) << q.message();
    bufs_.emplace(std::move(q).value());
  }
  std::optional<QueueBuffers> bufs_;
};

TEST_F(Queue, CreateDestroyAqlQueue) {
  auto q = kfd().create_queue(bufs_->args(gpu0()));
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(q->doorbell_offset & kfd::uapi::kMmapTypeMask, kfd::uapi::kMmapTypeDoorbell);
  EXPECT_EQ(kfd::uapi::mmap_gpu_id(q->doorbell_offset), gpu0().gpu_id);
  // The process's doorbell slice maps; this queue's doorbell lies inside it.
  uint64_t slice = q->doorbell_offset & ~(kfd::uapi::kDoorbellSliceSize - 1);
  auto db = kfd().mmap(nullptr, kfd::uapi::kDoorbellSliceSize, PROT_READ | PROT_WRITE, MAP_SHARED, slice);
  EXPECT_TRUE(db.ok()) << db.message();
  if (db.ok()) munmap(*db, kfd::uapi::kDoorbellSliceSize);
  EXPECT_TRUE(kfd().update_queue(q->queue_id, bufs_->ring.va(), kRingSize, 50, 9).ok());
  auto d = kfd().destroy_queue(q->queue_id);
  EXPECT_TRUE(d.ok()) << d.message();
  EXPECT_TRUE(fails_with(kfd().destroy_queue(q->queue_id), EINVAL, "AMDKFD_IOC_DESTROY_QUEUE"));
}

TEST_F(Queue, RejectsWrongCtlStackSize) {
  auto a = bufs_->args(gpu0());
  a.ctl_stack_size += kPage;
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  EXPECT_NE(q.message().find("ctl_stack_size="), std::string::npos) << q.message();
  if (q.ok()) (void)kfd().destroy_queue(q->queue_id);
}

TEST_F(Queue, RejectsWrongEopSize) {
  auto a = bufs_->args(gpu0());
  a.eop_buffer_size = a.eop_buffer_size * 2;
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  if (q.ok()) (void)kfd().destroy_queue(q->queue_id);
}

// The kernel compares GPU page numbers: rptr/wptr may sit anywhere in the first page of their
// one-page mapping (amd_queue_t.read_dispatch_id is at byte 128).
TEST_F(Queue, AcceptsRptrWptrInsideTheirPage) {
  auto a = bufs_->args(gpu0());
  a.read_pointer_address += 128;
  a.write_pointer_address += 56;
  auto q = kfd().create_queue(a);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_TRUE(kfd().destroy_queue(q->queue_id).ok());
}

TEST_F(Queue, RejectsRptrNotInOnePageMapping) {
  auto two = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, 2 * kPage);
  ASSERT_TRUE(two.ok()) << two.message();
  auto a = bufs_->args(gpu0());
  a.read_pointer_address = two->va();  // start of a two-page mapping
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  if (q.ok()) (void)kfd().destroy_queue(q->queue_id);
  a.read_pointer_address = two->va() + kPage;  // not in the mapping's first page
  q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  if (q.ok()) (void)kfd().destroy_queue(q->queue_id);
}

TEST_F(Queue, RejectsRingSmallerThanItsMapping) {
  auto a = bufs_->args(gpu0());
  a.ring_size = kRingSize / 2;
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  if (q.ok()) (void)kfd().destroy_queue(q->queue_id);
}

TEST_F(Queue, RejectsWrongCwsrSize) {
  auto a = bufs_->args(gpu0());
  a.ctx_save_restore_size -= kPage;
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  if (q.ok()) (void)kfd().destroy_queue(q->queue_id);
}

// Linux 6.12 looks the CWSR area up as one GPU mapping of exactly
// (ctx_save_restore_size + debug area) * num_xcc bytes, page aligned (kfd_queue_acquire_buffers).
TEST_F(Queue, RejectsCwsrMappingOfWrongSize) {
  auto big = Buffer::make(dev(), gpu0(), Buffer::Kind::Vram, gpu0().sizes.cwsr_total + kPage, 0, false);
  ASSERT_TRUE(big.ok()) << big.message();
  auto a = bufs_->args(gpu0());
  a.ctx_save_restore_address = big->va();
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  if (q.ok()) (void)kfd().destroy_queue(q->queue_id);
}

// set_queue_properties_from_user raises a ring_size under KFD_MIN_QUEUE_RING_SIZE (1 KiB) to it,
// and kfd_queue_buffer_get checks no length for a ring under a page.
TEST_F(Queue, RaisesSmallRingSizeToTheMinimum) {
  auto a = bufs_->args(gpu0());
  a.ring_size = 256;
  auto q = kfd().create_queue(a);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_TRUE(kfd().destroy_queue(q->queue_id).ok());
}

// kfd_queue_acquire_buffers: ctx_save_restore_size must be at least the node's, not equal to it
// (the mapping's size comes from the node, not from this field).
TEST_F(Queue, AcceptsLargerCwsrSize) {
  auto a = bufs_->args(gpu0());
  a.ctx_save_restore_size += kPage;
  auto q = kfd().create_queue(a);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_TRUE(kfd().destroy_queue(q->queue_id).ok());
}

// Queue buffers are looked up among the GPU's VM mappings: an allocated but unmapped ring is EINVAL.
TEST_F(Queue, RejectsUnmappedRing) {
  void* va = mmap(nullptr, kRingSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(va, MAP_FAILED);
  auto bo = kfd().alloc_memory(gpu0().gpu_id, reinterpret_cast<uintptr_t>(va), kRingSize,
                               KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE);
  ASSERT_TRUE(bo.ok()) << bo.message();
  auto a = bufs_->args(gpu0());
  a.ring_base_address = reinterpret_cast<uintptr_t>(va);
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  if (q.ok()) {
    EXPECT_TRUE(kfd().destroy_queue(q->queue_id).ok());
  }
  EXPECT_TRUE(kfd().free_memory(bo->handle).ok());
  munmap(va, kRingSize);
}

// pqm_update_queue_properties takes a reference on the new ring and drops the old one, which can
// then be unmapped and freed while the queue lives.
TEST_F(Queue, UpdateQueueReleasesTheOldRing) {
  auto q = kfd().create_queue(bufs_->args(gpu0()));
  ASSERT_TRUE(q.ok()) << q.message();
  auto ring2 = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, kRingSize, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED);
  ASSERT_TRUE(ring2.ok()) << ring2.message();
  auto u = kfd().update_queue(q->queue_id, ring2->va(), kRingSize, 100, 7);
  EXPECT_TRUE(u.ok()) << u.message();
  bufs_->ring = std::move(ring2).value();  // unmaps and frees the old ring (EXPECTs inside)
  EXPECT_TRUE(kfd().destroy_queue(q->queue_id).ok());
}

TEST_F(Queue, CreateRejectsBadArguments) {
  auto a = bufs_->args(gpu0());
  a.ring_size = kRingSize - 1;  // not a power of two
  auto q = kfd().create_queue(a);
  EXPECT_TRUE(fails_with(q, EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  EXPECT_NE(q.message().find("ring_size=0xffff"), std::string::npos) << q.message();
  a = bufs_->args(gpu0());
  a.gpu_id = kBadGpuId;
  EXPECT_TRUE(fails_with(kfd().create_queue(a), EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  a = bufs_->args(gpu0());
  a.queue_percentage = 101;
  EXPECT_TRUE(fails_with(kfd().create_queue(a), EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
  a = bufs_->args(gpu0());
  a.queue_priority = 16;
  EXPECT_TRUE(fails_with(kfd().create_queue(a), EINVAL, "AMDKFD_IOC_CREATE_QUEUE"));
}

TEST_F(Queue, DestroyAndUpdateRejectBadArguments) {
  EXPECT_TRUE(fails_with(kfd().destroy_queue(4000), EINVAL, "AMDKFD_IOC_DESTROY_QUEUE"));
  EXPECT_TRUE(fails_with(kfd().update_queue(0, bufs_->ring.va(), kRingSize, 101, 7), EINVAL,
                         "AMDKFD_IOC_UPDATE_QUEUE"));
  EXPECT_TRUE(fails_with(kfd().update_queue(0, bufs_->ring.va(), kRingSize, 100, 16), EINVAL,
                         "AMDKFD_IOC_UPDATE_QUEUE"));
}

TEST_F(Queue, XnackModeIsLockedWhileAQueueExists) {
  if (!kfd().has_minor(kfd::minor::kXnackMode)) GTEST_SKIP() << "KFD older than 1.5";
  auto mode = kfd().get_xnack_mode();
  ASSERT_TRUE(mode.ok()) << mode.message();
  auto q = kfd().create_queue(bufs_->args(gpu0()));
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_TRUE(fails_with(kfd().set_xnack_mode(*mode), EBUSY, "AMDKFD_IOC_SET_XNACK_MODE"));
  ASSERT_TRUE(kfd().destroy_queue(q->queue_id).ok());
  auto again = kfd().set_xnack_mode(*mode);
  EXPECT_TRUE(again.ok()) << again.message();
}

TEST_F(Queue, RuntimeEnableBeforeQueues) {
  if (!kfd().has_minor(kfd::minor::kRuntimeEnable)) {
    auto r = kfd().runtime_enable();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.err(), ENOTSUP);
    EXPECT_NE(r.message().find("AMDKFD_IOC_RUNTIME_ENABLE: not supported by KFD 1."), std::string::npos);
    return;
  }
  // Disabled with a queue alive: EEXIST (kfd_chardev.c runtime_enable checks the state first,
  // then the queues).
  auto q = kfd().create_queue(bufs_->args(gpu0()));
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_TRUE(fails_with(kfd().runtime_enable(), EEXIST, "AMDKFD_IOC_RUNTIME_ENABLE"));
  ASSERT_TRUE(kfd().destroy_queue(q->queue_id).ok());
  auto caps = kfd().runtime_enable();
  ASSERT_TRUE(caps.ok()) << caps.message();
  EXPECT_TRUE(fails_with(kfd().runtime_enable(), EBUSY, "AMDKFD_IOC_RUNTIME_ENABLE"));
  // Enabled, with a queue: still EBUSY; disabling needs no queue check.
  auto q2 = kfd().create_queue(bufs_->args(gpu0()));
  ASSERT_TRUE(q2.ok()) << q2.message();
  EXPECT_TRUE(fails_with(kfd().runtime_enable(), EBUSY, "AMDKFD_IOC_RUNTIME_ENABLE"));
  auto off = kfd().runtime_disable();
  EXPECT_TRUE(off.ok()) << off.message();
  EXPECT_TRUE(kfd().destroy_queue(q2->queue_id).ok());
  if (!off.ok()) (void)kfd().runtime_disable();
}

// kfd_ioctl_set_cu_mask: the bit count must be a non-zero multiple of 32 (EINVAL); the mask must
// be readable (EFAULT), but past 1024 bits only the first 1024 are read; an unknown queue is
// EFAULT (pqm_update_mqd).
TEST_F(Queue, SetCuMaskChecksItsArguments) {
  auto q = kfd().create_queue(bufs_->args(gpu0()));
  ASSERT_TRUE(q.ok()) << q.message();
  // 128 bytes (1024 bits) of mask end exactly where a PROT_NONE page starts.
  auto* pages = static_cast<uint8_t*>(mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(pages + kPage, kPage, PROT_NONE), 0);
  uint8_t* mask = pages + kPage - 128;
  std::memset(mask, 0xff, 128);
  auto set = [&](uint32_t qid, uint32_t bits, const void* p) {
    kfd_ioctl_set_cu_mask_args a{};
    a.queue_id = qid;
    a.num_cu_mask = bits;
    a.cu_mask_ptr = reinterpret_cast<uint64_t>(p);
    return ::ioctl(kfd().fd(), kfd::ioctls::kSetCuMask.request, &a) == 0 ? 0 : errno;
  };
  EXPECT_EQ(set(q->queue_id, 64, mask), 0);
  EXPECT_EQ(set(q->queue_id, 1024, mask), 0);
  EXPECT_EQ(set(q->queue_id, 4096, mask), 0);  // cut to 1024 bits: nothing past them is read
  EXPECT_EQ(set(q->queue_id, 1024, mask + 4), EFAULT);
  EXPECT_EQ(set(q->queue_id, 0, mask), EINVAL);
  EXPECT_EQ(set(q->queue_id, 33, mask), EINVAL);
  EXPECT_EQ(set(q->queue_id + 1000, 64, mask), EFAULT);
  munmap(pages, 2 * kPage);
  EXPECT_TRUE(kfd().destroy_queue(q->queue_id).ok());
}

// kfd_ioctl_alloc_queue_gws with pqm_set_gws: the GPU's global wave sync belongs to one queue of
// the process at a time; num_gws 0 gives it back (EINVAL when none is held); destroying the
// holder gives it back too (pqm_destroy_queue); an unknown queue is EINVAL.
TEST_F(Queue, GwsGoesToOneQueueAtATime) {
  if (gpu0().node->props.num_gws == 0) GTEST_SKIP() << "the GPU has no GWS (topology num_gws 0)";
  auto other = QueueBuffers::make(dev(), gpu0());
  ASSERT_TRUE(other.ok()) << other.message();
  auto q1 = kfd().create_queue(bufs_->args(gpu0()));
  auto q2 = kfd().create_queue(other->args(gpu0()));
  ASSERT_TRUE(q1.ok() && q2.ok());
  uint32_t first = 77;
  auto gws = [&](uint32_t qid, uint32_t n) {
    kfd_ioctl_alloc_queue_gws_args a{};
    a.queue_id = qid;
    a.num_gws = n;
    a.first_gws = 77;
    int r = ::ioctl(kfd().fd(), kfd::ioctls::kAllocQueueGws.request, &a) == 0 ? 0 : errno;
    first = a.first_gws;
    return r;
  };
  EXPECT_EQ(gws(q1->queue_id, 0), EINVAL);
  EXPECT_EQ(gws(q1->queue_id, 1), 0);
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(gws(q2->queue_id, 1), EBUSY);
  EXPECT_EQ(gws(q1->queue_id + q2->queue_id + 100, 1), EINVAL);
  EXPECT_EQ(gws(q1->queue_id, 0), 0);
  EXPECT_EQ(gws(q2->queue_id, 1), 0);
  EXPECT_TRUE(kfd().destroy_queue(q2->queue_id).ok());
  EXPECT_EQ(gws(q1->queue_id, 1), 0);
  EXPECT_EQ(gws(q1->queue_id, 0), 0);
  EXPECT_TRUE(kfd().destroy_queue(q1->queue_id).ok());
}

}  // namespace
}  // namespace kfdtest
