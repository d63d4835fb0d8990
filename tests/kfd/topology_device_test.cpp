// SPDX-License-Identifier: MIT
// Device tests of the topology, version, apertures, render node and per-GPU query ioctls.
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "tests/kfd/device.h"

namespace kfdtest {
namespace {

class Topology : public DeviceTest {};

TEST_F(Topology, TopologyHasGpuNode) {
  const kfd::Topology& t = dev().topo;
  ASSERT_FALSE(t.gpus().empty());
  bool has_cpu = false;
  for (const kfd::Node& n : t.nodes) has_cpu |= !n.is_gpu();
  EXPECT_TRUE(has_cpu) << "a KFD topology always has a CPU node";
  for (const kfd::Node* g : t.gpus()) {
    EXPECT_NE(g->gpu_id, 0u);
    EXPECT_FALSE(g->gfx_name().empty());
    EXPECT_GT(g->cu_count(), 0u);
    EXPECT_GT(g->props.wave_front_size, 0u);
    EXPECT_GE(g->props.drm_render_minor, 128u);
    EXPECT_LE(g->props.drm_render_minor, 255u);
    EXPECT_GE(g->props.num_xcc, 1u);
    EXPECT_EQ(g->mem_banks.size(), g->props.mem_banks_count);
    EXPECT_EQ(g->caches.size(), g->props.caches_count);
    EXPECT_EQ(g->io_links.size(), g->props.io_links_count);
    EXPECT_EQ(t.find_gpu(g->gpu_id), g);
  }
}

TEST_F(Topology, GenerationIdIsStable) {
  auto a = kfd::read_topology();
  auto b = kfd::read_topology();
  ASSERT_TRUE(a.ok()) << a.message();
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(a->generation_id, b->generation_id);
  ASSERT_EQ(a->nodes.size(), b->nodes.size());
  for (size_t i = 0; i < a->nodes.size(); ++i) {
    EXPECT_EQ(a->nodes[i].gpu_id, b->nodes[i].gpu_id);
    EXPECT_EQ(a->nodes[i].raw, b->nodes[i].raw);
  }
}

TEST_F(Topology, QueueSizesAreDefinedForEveryGpu) {
  for (const Gpu& g : dev().gpus) {
    EXPECT_TRUE(g.sizes.cwsr) << g.node->gfx_name();
    EXPECT_EQ(g.sizes.eop_size, 4096u);
    EXPECT_EQ(g.sizes.ctl_stack_size % kPage, 0u);
    EXPECT_GT(g.sizes.cwsr_total, g.sizes.ctx_save_restore_size);
  }
}

TEST_F(Topology, GetVersionIsOneDotSomething) {
  auto v = kfd().get_version();
  ASSERT_TRUE(v.ok()) << v.message();
  EXPECT_EQ(v->major, 1u);
  EXPECT_GE(v->minor, 11u) << "kfdrt needs KFD 1.11 (Linux 6.1) or newer";
  EXPECT_EQ(v->minor, kfd().version().minor);
}

TEST_F(Topology, ProcessAperturesCoverEveryGpu) {
  auto aps = kfd().get_process_apertures();
  ASSERT_TRUE(aps.ok()) << aps.message();
  ASSERT_EQ(aps->size(), dev().gpus.size());
  for (const Gpu& g : dev().gpus) {
    bool found = false;
    for (const auto& a : *aps) {
      if (a.gpu_id != g.gpu_id) continue;
      found = true;
      EXPECT_LT(a.gpuvm_base, a.gpuvm_limit);
      EXPECT_LT(a.lds_base, a.lds_limit);
      EXPECT_LT(a.scratch_base, a.scratch_limit);
    }
    EXPECT_TRUE(found) << "no apertures for gpu_id " << g.gpu_id;
  }
}

TEST_F(Topology, RenderNodeReportsHeaps) {
  for (const Gpu& g : dev().gpus) {
    auto info = g.render.query();
    ASSERT_TRUE(info.ok()) << info.message();
    EXPECT_GT(info->vram_size, 0u);
    EXPECT_GT(info->visible_vram_size, 0u);
    EXPECT_LE(info->visible_vram_size, info->vram_size);
    EXPECT_GT(info->gtt_size, 0u);
    EXPECT_EQ(info->drm_major, 3u);
  }
}

TEST_F(Topology, RenderNodeRejectsNonRenderMinor) {
  auto rn = kfd::RenderNode::open(5);
  ASSERT_FALSE(rn.ok());
  EXPECT_EQ(rn.err(), EINVAL);
}

TEST_F(Topology, ClockCountersAdvance) {
  auto a = kfd().get_clock_counters(gpu0().gpu_id);
  ASSERT_TRUE(a.ok()) << a.message();
  usleep(2000);
  auto b = kfd().get_clock_counters(gpu0().gpu_id);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_GT(b->system_clock_counter, a->system_clock_counter);
  EXPECT_GE(b->gpu_clock_counter, a->gpu_clock_counter);
  EXPECT_GT(a->system_clock_freq, 0u);
}

// The kernel answers GET_CLOCK_COUNTERS for an unknown gpu_id with success and a zero GPU counter.
TEST_F(Topology, ClockCountersOfUnknownGpuAreZero) {
  auto c = kfd().get_clock_counters(kBadGpuId);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->gpu_clock_counter, 0u);
}

TEST_F(Topology, AvailableMemory) {
  if (!kfd().has_minor(kfd::minor::kAvailableMemory)) {
    auto r = kfd().available_memory(gpu0().gpu_id);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.err(), ENOTSUP);
    EXPECT_NE(r.message().find("not supported by KFD 1."), std::string::npos) << r.message();
    return;
  }
  auto r = kfd().available_memory(gpu0().gpu_id);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_GT(*r, 0u);
  EXPECT_LE(*r, gpu0().node->vram_size() ? gpu0().node->vram_size() : *r);
  EXPECT_TRUE(fails_with(kfd().available_memory(kBadGpuId), EINVAL, "AMDKFD_IOC_AVAILABLE_MEMORY"));
}

TEST_F(Topology, AcquireVmRejectsBadArguments) {
  EXPECT_TRUE(fails_with(kfd().acquire_vm(kBadGpuId, gpu0().render.fd()), EINVAL,
                         "AMDKFD_IOC_ACQUIRE_VM"));
  EXPECT_TRUE(fails_with(kfd().acquire_vm(gpu0().gpu_id, -1), EINVAL, "AMDKFD_IOC_ACQUIRE_VM"));
  // The same DRM file again is accepted; another DRM file for a bound VM is EBUSY.
  EXPECT_TRUE(kfd().acquire_vm(gpu0().gpu_id, gpu0().render.fd()).ok());
  auto other = kfd::RenderNode::open(gpu0().node->props.drm_render_minor);
  ASSERT_TRUE(other.ok()) << other.message();
  EXPECT_TRUE(fails_with(kfd().acquire_vm(gpu0().gpu_id, other->fd()), EBUSY,
                         "AMDKFD_IOC_ACQUIRE_VM"));
}

// Runs `body` in a forked child and returns its exit status (0 = all checks passed).
template <class F>
int in_child(F body) {
  pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST_F(Topology, ForkedChildGetsEbadfWithClearMessage) {
  const kfd::Kfd& k = kfd();
  int rc = in_child([&] {
    auto v = k.get_version();
    if (v.ok()) return 1;
    if (v.err() != EBADF) return 2;
    if (v.message().find("AMDKFD_IOC_GET_VERSION") != 0) return 3;
    if (v.message().find("forked child must open /dev/kfd") == std::string::npos) return 4;
    auto a = k.get_process_apertures();
    if (a.ok() || a.err() != EBADF) return 5;
    return 0;
  });
  EXPECT_EQ(rc, 0) << "1: succeeded, 2: wrong errno, 3/4: message, 5: apertures";
}

TEST_F(Topology, ForkedChildCanOpenItsOwnKfd) {
  int rc = in_child([] {
    auto k = kfd::Kfd::open();
    if (!k.ok()) return 1;
    return k->get_version().ok() ? 0 : 2;
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace kfdtest
