// SPDX-License-Identifier: MIT
// The render node through libdrm_amdgpu alone, as a program that knows nothing of kfdrt would use it.
#include <amdgpu.h>
#include <amdgpu_drm.h>
#include <xf86drm.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <linux/kfd_ioctl.h>
#include <sys/ioctl.h>

namespace {

// First render node that the amdgpu driver answers on, or -1.
int open_amdgpu_render_node() {
  for (int minor = 128; minor < 192; ++minor) {
    std::string path = "/dev/dri/renderD" + std::to_string(minor);
    int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    drmVersionPtr v = drmGetVersion(fd);
    bool amd = v && std::strcmp(v->name, "amdgpu") == 0;
    drmFreeVersion(v);
    if (amd) return fd;
    close(fd);
  }
  return -1;
}

TEST(RenderNode, InitialisesAndQueriesThroughLibdrmAmdgpu) {
  int fd = open_amdgpu_render_node();
  ASSERT_GE(fd, 0) << "no amdgpu render node";
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(major(st.st_rdev), 226u);
  EXPECT_GE(minor(st.st_rdev), 128u);

  uint32_t maj = 0, min = 0;
  amdgpu_device_handle dev = nullptr;
  ASSERT_EQ(amdgpu_device_initialize(fd, &maj, &min, &dev), 0);
  EXPECT_EQ(maj, 3u);

  amdgpu_gpu_info info{};
  ASSERT_EQ(amdgpu_query_gpu_info(dev, &info), 0);
  EXPECT_NE(info.asic_id, 0u);
  EXPECT_GT(info.cu_active_number, 0u);

  amdgpu_heap_info vram{}, gtt{};
  ASSERT_EQ(amdgpu_query_heap_info(dev, AMDGPU_GEM_DOMAIN_VRAM, 0, &vram), 0);
  ASSERT_EQ(amdgpu_query_heap_info(dev, AMDGPU_GEM_DOMAIN_GTT, 0, &gtt), 0);
  EXPECT_GT(vram.heap_size, 0u);
  EXPECT_GT(gtt.heap_size, 0u);

  const char* name = amdgpu_get_marketing_name(dev);
  ASSERT_NE(name, nullptr);
  EXPECT_NE(std::string(name).find("AMD"), std::string::npos) << name;

  EXPECT_EQ(amdgpu_device_deinitialize(dev), 0);
  close(fd);
}

TEST(RenderNode, UnknownInfoQueryIsRejected) {
  int fd = open_amdgpu_render_node();
  ASSERT_GE(fd, 0);
  drm_amdgpu_info q{};
  uint64_t out = 0;
  q.return_pointer = reinterpret_cast<uint64_t>(&out);
  q.return_size = sizeof out;
  q.query = 0x7f;  // no such query
  EXPECT_EQ(ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q), -1);
  EXPECT_EQ(errno, EINVAL);
  close(fd);
}

TEST(Kfd, ForkedChildGetsEbadfOnParentsFd) {
  int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  kfd_ioctl_get_version_args v{};
  ASSERT_EQ(ioctl(fd, AMDKFD_IOC_GET_VERSION, &v), 0);
  EXPECT_EQ(v.major_version, 1u);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    kfd_ioctl_get_version_args c{};
    int r = ioctl(fd, AMDKFD_IOC_GET_VERSION, &c);
    _exit(r == -1 && errno == EBADF ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child's ioctl on the parent's fd did not fail with EBADF";
  close(fd);
}

TEST(Kfd, UnknownIoctlIsRejected) {
  int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  unsigned long bogus = _IOWR('K', 0x7e, kfd_ioctl_get_version_args);
  kfd_ioctl_get_version_args v{};
  EXPECT_EQ(ioctl(fd, bogus, &v), -1);
  EXPECT_EQ(errno, ENOTTY);  // kfd_ioctl: a number past the ioctl table
  close(fd);
}

}  // namespace

namespace {

// Runtimes (rocminfo, the thunk) check that the amdgpu module is loaded before opening /dev/kfd.
TEST(Driver, AmdgpuModuleIsListed) {
  FILE* f = std::fopen("/proc/modules", "re");
  ASSERT_NE(f, nullptr) << "cannot read /proc/modules";
  char line[512];
  bool found = false;
  while (std::fgets(line, sizeof line, f)) found |= std::strncmp(line, "amdgpu ", 7) == 0;
  std::fclose(f);
  EXPECT_TRUE(found);
}

}  // namespace

namespace {

// ROCm's own stack (rocminfo on libhsa-runtime64 and libhsakmt, Debian's ROCm 5.2) walks the same
// topology, opens the same device files and issues its own ioctl sequence: it must enumerate the
// GPU and finish. Skipped where Debian's rocminfo package is not installed.
TEST(ForeignRuntime, RocminfoEnumeratesTheGpu) {
  if (access("/usr/bin/rocminfo", X_OK) != 0) GTEST_SKIP() << "rocminfo is not installed";
  FILE* p = popen("/usr/bin/rocminfo 2>&1", "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out.substr(0, 2000);
  EXPECT_NE(out.find("Device Type:             GPU"), std::string::npos) << out.substr(0, 2000);
  EXPECT_NE(out.find("amdgcn-amd-amdhsa--gfx"), std::string::npos);
  EXPECT_NE(out.find("*** Done ***"), std::string::npos);
}

}  // namespace
