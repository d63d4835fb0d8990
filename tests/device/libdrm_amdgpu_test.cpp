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

// GB_ADDR_CONFIG through the render node, as libdrm reads it (dword 0x263e on soc15 parts).
TEST(RenderNode, ReadsGbAddrConfigAndRejectsBadSelectors) {
  int fd = open_amdgpu_render_node();
  ASSERT_GE(fd, 0);
  uint32_t regs[2] = {0, 0};
  drm_amdgpu_info q{};
  q.return_pointer = reinterpret_cast<uint64_t>(regs);
  q.return_size = sizeof regs;
  q.query = AMDGPU_INFO_READ_MMR_REG;
  q.read_mmr_reg.dword_offset = 0x263e;
  q.read_mmr_reg.count = 1;
  q.read_mmr_reg.instance = 0xffffffff;
  ASSERT_EQ(ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q), 0) << std::strerror(errno);
  EXPECT_NE(regs[0], 0u);
  EXPECT_EQ(regs[1], 0u) << "wrote past the count";
  uint32_t maj = 0, min = 0;
  amdgpu_device_handle dev = nullptr;
  ASSERT_EQ(amdgpu_device_initialize(fd, &maj, &min, &dev), 0);
  amdgpu_gpu_info info{};
  ASSERT_EQ(amdgpu_query_gpu_info(dev, &info), 0);
  EXPECT_EQ(info.gb_addr_cfg, regs[0]);
  EXPECT_EQ(amdgpu_device_deinitialize(dev), 0);
  // amdgpu_kms.c: more than 128 registers, an SE index >= 4 or an SH index >= 2 (other than the
  // all-ones broadcast) is EINVAL; a register off soc15.c's allowed list is EFAULT.
  q.read_mmr_reg.count = 129;
  EXPECT_EQ(ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q), -1);
  EXPECT_EQ(errno, EINVAL);
  q.read_mmr_reg.count = 1;
  q.read_mmr_reg.instance = 4;
  EXPECT_EQ(ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q), -1);
  EXPECT_EQ(errno, EINVAL);
  q.read_mmr_reg.instance = 2u << AMDGPU_INFO_MMR_SH_INDEX_SHIFT;
  EXPECT_EQ(ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q), -1);
  EXPECT_EQ(errno, EINVAL);
  q.read_mmr_reg.instance = 0xffffffff;
  q.read_mmr_reg.dword_offset = 0x10;  // an MMIO register no user may read
  EXPECT_EQ(ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q), -1);
  EXPECT_EQ(errno, EFAULT);
  close(fd);
}

// gpu_id of the first GPU node of the KFD topology, or 0.
uint32_t first_gpu_id() {
  for (int node = 0; node < 64; ++node) {
    std::string path = "/sys/class/kfd/kfd/topology/nodes/" + std::to_string(node) + "/gpu_id";
    FILE* f = std::fopen(path.c_str(), "re");
    if (!f) break;
    unsigned id = 0;
    int n = std::fscanf(f, "%u", &id);
    std::fclose(f);
    if (n == 1 && id != 0) return id;
  }
  return 0;
}

// kfd_ioctl_get_tile_config (ROCr's image support asks it at start-up): GB_ADDR_CONFIG as the
// render node reads it; the counts clamped to the driver's arrays (32 tile modes, 16 macro tile
// modes, all zero from gfx9 on, as are num_banks and num_ranks); an unknown GPU is EINVAL and a
// bad array pointer EFAULT with its count zeroed.
TEST(Kfd, GetTileConfigMatchesTheRenderNode) {
  int kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  ASSERT_GE(kfd, 0) << std::strerror(errno);
  uint32_t gpu_id = first_gpu_id();
  ASSERT_NE(gpu_id, 0u);
  uint32_t tiles[40], macro[40];
  std::memset(tiles, 0xab, sizeof tiles);
  std::memset(macro, 0xab, sizeof macro);
  kfd_ioctl_get_tile_config_args a{};
  a.gpu_id = gpu_id;
  a.tile_config_ptr = reinterpret_cast<uint64_t>(tiles);
  a.macro_tile_config_ptr = reinterpret_cast<uint64_t>(macro);
  a.num_tile_configs = 40;
  a.num_macro_tile_configs = 40;
  ASSERT_EQ(ioctl(kfd, AMDKFD_IOC_GET_TILE_CONFIG, &a), 0) << std::strerror(errno);
  EXPECT_EQ(a.num_tile_configs, 32u);
  EXPECT_EQ(a.num_macro_tile_configs, 16u);
  EXPECT_EQ(tiles[31], 0u);
  EXPECT_EQ(tiles[32], 0xababababu) << "wrote past the driver's 32 tile modes";
  EXPECT_EQ(macro[15], 0u);
  EXPECT_EQ(macro[16], 0xababababu) << "wrote past the driver's 16 macro tile modes";
  EXPECT_EQ(a.num_banks, 0u);
  EXPECT_EQ(a.num_ranks, 0u);
  int fd = open_amdgpu_render_node();
  ASSERT_GE(fd, 0);
  uint32_t gb = 0;
  drm_amdgpu_info q{};
  q.return_pointer = reinterpret_cast<uint64_t>(&gb);
  q.return_size = sizeof gb;
  q.query = AMDGPU_INFO_READ_MMR_REG;
  q.read_mmr_reg.dword_offset = 0x263e;
  q.read_mmr_reg.count = 1;
  q.read_mmr_reg.instance = 0xffffffff;
  ASSERT_EQ(ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &q), 0);
  EXPECT_EQ(a.gb_addr_config, gb);
  close(fd);

  kfd_ioctl_get_tile_config_args bad = a;
  bad.gpu_id = gpu_id ^ 0x8000;
  EXPECT_EQ(ioctl(kfd, AMDKFD_IOC_GET_TILE_CONFIG, &bad), -1);
  EXPECT_EQ(errno, EINVAL);
  bad = a;
  bad.num_tile_configs = 4;
  bad.num_macro_tile_configs = 4;
  bad.macro_tile_config_ptr = 8;  // unmapped
  EXPECT_EQ(ioctl(kfd, AMDKFD_IOC_GET_TILE_CONFIG, &bad), -1);
  EXPECT_EQ(errno, EFAULT);
  EXPECT_EQ(bad.num_tile_configs, 4u);
  EXPECT_EQ(bad.num_macro_tile_configs, 0u);
  close(kfd);
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
