// SPDX-License-Identifier: MIT
// Device tests of AMDKFD_IOC_SVM (shared virtual memory ranges, ROCm's managed memory) as Linux
// kfd_chardev.c kfd_ioctl_svm and kfd_svm.c define it: attributes set, split and queried.
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "tests/kfd/device.h"

namespace kfdtest {
namespace {

using Attr = kfd_ioctl_svm_attribute;
constexpr uint32_t kUndefined = KFD_IOCTL_SVM_LOCATION_UNDEFINED;

class Svm : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (HasFatalFailure()) return;
    mem_ = static_cast<uint8_t*>(mmap(nullptr, 16 * kPage, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(mem_, MAP_FAILED);
    auto x = kfd().get_xnack_mode();
    ASSERT_TRUE(x.ok()) << x.message();
    xnack_ = *x;
  }
  void TearDown() override {
    if (mem_ && mem_ != MAP_FAILED) munmap(mem_, 16 * kPage);
  }
  // The ioctl as libhsakmt issues it: the attribute array added to the command's size.
  int svm(uint32_t op, const void* start, uint64_t size, std::vector<Attr>& attrs) {
    std::vector<uint64_t> buf((sizeof(kfd_ioctl_svm_args) + attrs.size() * sizeof(Attr) + 7) / 8);
    auto* a = reinterpret_cast<kfd_ioctl_svm_args*>(buf.data());
    a->start_addr = reinterpret_cast<uint64_t>(start);
    a->size = size;
    a->op = op;
    a->nattr = uint32_t(attrs.size());
    if (!attrs.empty()) std::memcpy(a->attrs, attrs.data(), attrs.size() * sizeof(Attr));
    unsigned long cmd = kfd::ioctls::kSvm.request + ((attrs.size() * sizeof(Attr)) << _IOC_SIZESHIFT);
    int r = ::ioctl(kfd().fd(), cmd, a) == 0 ? 0 : errno;
    if (!attrs.empty()) std::memcpy(attrs.data(), a->attrs, attrs.size() * sizeof(Attr));
    return r;
  }
  int set(const void* start, uint64_t size, std::vector<Attr> attrs) {
    return svm(KFD_IOCTL_SVM_OP_SET_ATTR, start, size, attrs);
  }
  // Every queryable attribute of the range; ACCESS asks about GPU 0.
  struct Got {
    uint32_t preferred, prefetch, access_type, set_flags, clr_flags, granularity;
  };
  int get(const void* start, uint64_t size, Got* g) {
    std::vector<Attr> a = {{KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0}, {KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, 0},
                           {KFD_IOCTL_SVM_ATTR_ACCESS, gpu0().gpu_id}, {KFD_IOCTL_SVM_ATTR_SET_FLAGS, 0},
                           {KFD_IOCTL_SVM_ATTR_CLR_FLAGS, 0}, {KFD_IOCTL_SVM_ATTR_GRANULARITY, 0}};
    int r = svm(KFD_IOCTL_SVM_OP_GET_ATTR, start, size, a);
    *g = Got{a[0].value, a[1].value, a[2].type, a[3].value, a[4].value, a[5].value};
    return r;
  }
  uint8_t* page(int i) { return mem_ + i * kPage; }
  uint8_t* mem_ = nullptr;
  bool xnack_ = false;
};

// Memory no SVM call has named reads as the defaults (svm_range_set_default_attributes).
TEST_F(Svm, UnknownRangeReadsAsDefaults) {
  Got g{};
  ASSERT_EQ(get(page(0), 4 * kPage, &g), 0);
  EXPECT_EQ(g.preferred, kUndefined);
  EXPECT_EQ(g.prefetch, kUndefined);
  EXPECT_EQ(g.set_flags, uint32_t(KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT));
  EXPECT_EQ(g.clr_flags, ~uint32_t(KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT));
  EXPECT_EQ(g.granularity, 9u);
  EXPECT_EQ(g.access_type, uint32_t(xnack_ ? KFD_IOCTL_SVM_ATTR_ACCESS : KFD_IOCTL_SVM_ATTR_NO_ACCESS));
}

// Set attributes on pages 4..7, then change pages 6..9: ranges split, and a query over several
// ranges gives what they share (locations only when equal, access only when all grant it, the
// smallest granularity); pages without a range do not count.
TEST_F(Svm, SplitsRangesAndIntersectsAttributes) {
  const uint32_t gpu = gpu0().gpu_id;
  ASSERT_EQ(set(page(4), 4 * kPage, {{KFD_IOCTL_SVM_ATTR_ACCESS, gpu}, {KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, gpu},
                                     {KFD_IOCTL_SVM_ATTR_SET_FLAGS, KFD_IOCTL_SVM_FLAG_GPU_RO},
                                     {KFD_IOCTL_SVM_ATTR_GRANULARITY, 4}}),
            0);
  Got g{};
  ASSERT_EQ(get(page(4), 4 * kPage, &g), 0);
  EXPECT_EQ(g.preferred, gpu);
  EXPECT_EQ(g.prefetch, kUndefined);
  EXPECT_EQ(g.access_type, uint32_t(KFD_IOCTL_SVM_ATTR_ACCESS));
  const uint32_t flags = KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT | KFD_IOCTL_SVM_FLAG_GPU_RO;
  EXPECT_EQ(g.set_flags, flags);
  EXPECT_EQ(g.clr_flags, ~flags);
  EXPECT_EQ(g.granularity, 4u);
  ASSERT_EQ(get(page(0), 8 * kPage, &g), 0);  // pages 0..3 have no range
  EXPECT_EQ(g.preferred, gpu);
  EXPECT_EQ(g.granularity, 4u);

  ASSERT_EQ(set(page(6), 4 * kPage, {{KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE, gpu},
                                     {KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, KFD_IOCTL_SVM_LOCATION_SYSMEM},
                                     {KFD_IOCTL_SVM_ATTR_CLR_FLAGS, KFD_IOCTL_SVM_FLAG_COHERENT}}),
            0);
  ASSERT_EQ(get(page(4), 2 * kPage, &g), 0);  // untouched part of the first range
  EXPECT_EQ(g.preferred, gpu);
  EXPECT_EQ(g.access_type, uint32_t(KFD_IOCTL_SVM_ATTR_ACCESS));
  ASSERT_EQ(get(page(6), 2 * kPage, &g), 0);  // both changes
  EXPECT_EQ(g.preferred, uint32_t(KFD_IOCTL_SVM_LOCATION_SYSMEM));
  EXPECT_EQ(g.access_type, uint32_t(KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE));
  EXPECT_EQ(g.granularity, 4u);
  EXPECT_EQ(g.set_flags, uint32_t(KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_GPU_RO));
  ASSERT_EQ(get(page(8), 2 * kPage, &g), 0);  // a new range: defaults plus the second change
  EXPECT_EQ(g.granularity, 9u);
  EXPECT_EQ(g.set_flags, uint32_t(KFD_IOCTL_SVM_FLAG_HOST_ACCESS));
  ASSERT_EQ(get(page(4), 6 * kPage, &g), 0);  // all three
  EXPECT_EQ(g.preferred, kUndefined);
  EXPECT_EQ(g.access_type, uint32_t(KFD_IOCTL_SVM_ATTR_NO_ACCESS));
  EXPECT_EQ(g.granularity, 4u);
  EXPECT_EQ(g.set_flags, uint32_t(KFD_IOCTL_SVM_FLAG_HOST_ACCESS));
  EXPECT_EQ(g.clr_flags, ~uint32_t(KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT |
                                   KFD_IOCTL_SVM_FLAG_GPU_RO));
}

// Argument checks: alignment and emptiness, attribute types and GPUs (EINVAL), queries of the
// set-only access types (EINVAL), an unknown operation (EINVAL), memory that is not mapped
// (EFAULT), and the VA of a BO mapped to a GPU (EADDRINUSE) -- and no BO over an SVM range.
TEST_F(Svm, RejectsBadArguments) {
  const uint32_t gpu = gpu0().gpu_id;
  EXPECT_EQ(set(page(0) + 8, kPage, {}), EINVAL);
  EXPECT_EQ(set(page(0), kPage + 8, {}), EINVAL);
  EXPECT_EQ(set(page(0), 0, {}), EINVAL);
  EXPECT_EQ(set(nullptr, kPage, {}), EINVAL);
  EXPECT_EQ(set(page(0), kPage, {{0x99, 0}}), EINVAL);
  EXPECT_EQ(set(page(0), kPage, {{KFD_IOCTL_SVM_ATTR_ACCESS, kBadGpuId}}), EINVAL);
  EXPECT_EQ(set(page(0), kPage, {{KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, kUndefined}}), EINVAL);
  std::vector<Attr> q = {{KFD_IOCTL_SVM_ATTR_NO_ACCESS, gpu}};
  EXPECT_EQ(svm(KFD_IOCTL_SVM_OP_GET_ATTR, page(0), kPage, q), EINVAL);
  q = {{KFD_IOCTL_SVM_ATTR_ACCESS, kBadGpuId}};
  EXPECT_EQ(svm(KFD_IOCTL_SVM_OP_GET_ATTR, page(0), kPage, q), EINVAL);
  q = {};
  EXPECT_EQ(svm(7, page(0), kPage, q), EINVAL);
  ASSERT_EQ(munmap(page(15), kPage), 0);
  EXPECT_EQ(set(page(14), 2 * kPage, {{KFD_IOCTL_SVM_ATTR_ACCESS, gpu}}), EFAULT);

  auto b = Buffer::make(dev(), gpu0(), Buffer::Kind::Gtt, 2 * kPage);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(set(b->ptr(), kPage, {{KFD_IOCTL_SVM_ATTR_ACCESS, gpu}}), EADDRINUSE);

  ASSERT_EQ(set(page(0), 2 * kPage, {{KFD_IOCTL_SVM_ATTR_ACCESS, gpu}}), 0);
  auto bo = kfd().alloc_memory(gpu, reinterpret_cast<uint64_t>(page(1)), kPage, KFD_IOC_ALLOC_MEM_FLAGS_GTT);
  EXPECT_TRUE(fails_with(bo, EADDRINUSE, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU"));
}

// Unmapping the memory ends its SVM ranges (the MMU notifier): new memory at the same address
// reads as the defaults again.
TEST_F(Svm, UnmappingEndsTheRange) {
  ASSERT_EQ(set(page(2), 2 * kPage, {{KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, gpu0().gpu_id}}), 0);
  Got g{};
  ASSERT_EQ(get(page(2), 2 * kPage, &g), 0);
  EXPECT_EQ(g.preferred, gpu0().gpu_id);
  ASSERT_EQ(munmap(page(2), 2 * kPage), 0);
  ASSERT_EQ(mmap(page(2), 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
            page(2));
  ASSERT_EQ(get(page(2), 2 * kPage, &g), 0);
  EXPECT_EQ(g.preferred, kUndefined);
}

}  // namespace
}  // namespace kfdtest
