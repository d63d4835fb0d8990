// SPDX-License-Identifier: MIT
// Unit tests of kfd error messages, ioctl names and version gates (no device needed).
#include <gtest/gtest.h>

#include <sys/ioctl.h>

#include <cerrno>
#include <set>
#include <string>

#include "kfd/kfd.h"

namespace {

TEST(KfdErrors, OpenMissingDeviceSaysWhy) {
  auto k = kfd::Kfd::open("/nonexistent/kfd");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.err(), ENOENT);
  EXPECT_NE(k.message().find("amdgpu driver"), std::string::npos) << k.message();
}

TEST(KfdErrors, IoctlOnNonKfdFileNamesIoctl) {
  auto k = kfd::Kfd::open("/dev/null");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.err(), ENOTTY);
  EXPECT_EQ(k.message().rfind("AMDKFD_IOC_GET_VERSION: ", 0), 0u) << k.message();
}

TEST(KfdErrors, IoctlNames) {
  EXPECT_STREQ(kfd::ioctl_name(kfd::ioctls::kCreateQueue.request), "AMDKFD_IOC_CREATE_QUEUE");
  EXPECT_STREQ(kfd::ioctl_name(kfd::uapi::kIocRuntimeEnable), "AMDKFD_IOC_RUNTIME_ENABLE");
  EXPECT_STREQ(kfd::ioctl_name(kfd::ioctls::kAvailableMemory.request), "AMDKFD_IOC_AVAILABLE_MEMORY");
  EXPECT_STREQ(kfd::ioctl_name(_IOWR(AMDKFD_IOCTL_BASE, 0x7e, kfd_ioctl_get_version_args)), "AMDKFD_IOC_UNKNOWN");
  EXPECT_STREQ(kfd::ioctl_name(_IOWR(AMDKFD_IOCTL_BASE, 0, kfd_ioctl_get_version_args)), "AMDKFD_IOC_UNKNOWN");
}

// The table has one row per number, named as the kernel header names it, and the name lookup
// of every row's request gives that row's name.
TEST(KfdIoctlTable, EveryNumberHasOneNamedRow) {
  ASSERT_GE(kfd::kIoctlCount, 0x27u);
  std::set<std::string> names;
  for (unsigned nr = 1; nr < kfd::kIoctlCount; ++nr) {
    const kfd::IoctlInfo* e = kfd::ioctl_info(nr);
    ASSERT_NE(e, nullptr) << nr;
    EXPECT_EQ(e->nr, nr);
    EXPECT_EQ(std::string(e->name).rfind("AMDKFD_IOC_", 0), 0u) << e->name;
    EXPECT_TRUE(names.insert(e->name).second) << "duplicate " << e->name;
    EXPECT_GE(e->min_minor, kfd::kInitialMinor) << e->name;
    if (e->request) {
      EXPECT_STREQ(kfd::ioctl_name(e->request), e->name);
      EXPECT_EQ(_IOC_SIZE(e->request), e->arg_size) << e->name;
    }
  }
  EXPECT_EQ(kfd::ioctl_info(0), nullptr);
  EXPECT_EQ(kfd::ioctl_info(kfd::kIoctlCount), nullptr);
}

// The version gates of the wrappers come from the table (Linux kfd_ioctl.h change log).
TEST(KfdIoctlTable, MinimumVersionsFollowTheKernelLog) {
  EXPECT_EQ(kfd::ioctls::kSetXnackMode.min_minor, 5u);
  EXPECT_EQ(kfd::ioctls::kSvm.min_minor, 5u);
  EXPECT_EQ(kfd::ioctls::kAvailableMemory.min_minor, 9u);
  EXPECT_EQ(kfd::ioctls::kRuntimeEnable.min_minor, 13u);
  EXPECT_EQ(kfd::ioctl_info(kfd::uapi::kIocNrExportDmabuf)->min_minor, 12u);
  EXPECT_EQ(kfd::minor::kXnackMode, kfd::ioctls::kSetXnackMode.min_minor);
  EXPECT_TRUE(kfd::ioctl_info(_IOC_NR(kfd::uapi::kIocRuntimeEnable))->request == kfd::uapi::kIocRuntimeEnable);
}

TEST(KfdErrors, ErrorFormat) {
  auto e = base::Error::from_errno("AMDKFD_IOC_CREATE_QUEUE", EINVAL,
                                  "ring_size=" + base::hex(0x1000) + ", gpu_id=" + base::hex(0x3d2f));
  EXPECT_EQ(e.message, "AMDKFD_IOC_CREATE_QUEUE: Invalid argument (ring_size=0x1000, gpu_id=0x3d2f)");
  EXPECT_EQ(e.err, EINVAL);
}

TEST(KfdVersion, Gates) {
  kfd::Version v{1, 11};
  EXPECT_TRUE(v.at_least(1, 9));
  EXPECT_FALSE(v.at_least(1, 13));
  EXPECT_EQ(v.str(), "1.11");
}

}  // namespace
