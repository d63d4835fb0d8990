// SPDX-License-Identifier: MIT
// Unit tests of kfd error messages, ioctl names and version gates (no device needed).
#include <gtest/gtest.h>

#include <cerrno>

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
  EXPECT_STREQ(kfd::ioctl_name(AMDKFD_IOC_CREATE_QUEUE), "AMDKFD_IOC_CREATE_QUEUE");
  EXPECT_STREQ(kfd::ioctl_name(kfd::uapi::kIocRuntimeEnable), "AMDKFD_IOC_RUNTIME_ENABLE");
  EXPECT_STREQ(kfd::ioctl_name(AMDKFD_IOC_AVAILABLE_MEMORY), "AMDKFD_IOC_AVAILABLE_MEMORY");
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
