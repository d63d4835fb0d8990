// SPDX-License-Identifier: MIT
// Opens a GPU's render node and queries it through libdrm_amdgpu (GPU info, heaps, marketing name).
#include "kfd/render_node.h"

#include <amdgpu.h>
#include <amdgpu_drm.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "base/dynlib.h"

namespace kfd {

namespace {

// libdrm_amdgpu, opened on the first query (base::open_library): a process that only runs
// kernels never maps it (nor libdrm under it).
struct Drm {
  decltype(&amdgpu_device_initialize) initialize = nullptr;
  decltype(&amdgpu_device_deinitialize) deinitialize = nullptr;
  decltype(&amdgpu_query_gpu_info) query_gpu_info = nullptr;
  decltype(&amdgpu_query_heap_info) query_heap_info = nullptr;
  decltype(&amdgpu_get_marketing_name) marketing_name = nullptr;
};

base::Result<const Drm*> drm() {
  return base::open_once<Drm>([](Drm& d) {
    return base::open_library("libdrm_amdgpu.so.1",
                              {{"amdgpu_device_initialize", reinterpret_cast<void**>(&d.initialize)},
                               {"amdgpu_device_deinitialize", reinterpret_cast<void**>(&d.deinitialize)},
                               {"amdgpu_query_gpu_info", reinterpret_cast<void**>(&d.query_gpu_info)},
                               {"amdgpu_query_heap_info", reinterpret_cast<void**>(&d.query_heap_info)},
                               {"amdgpu_get_marketing_name", reinterpret_cast<void**>(&d.marketing_name)}});
  });
}

}  // namespace

base::Result<RenderNode> RenderNode::open(uint32_t minor) {
  const std::string path = "/dev/dri/renderD" + std::to_string(minor);
  if (minor < 128 || minor > 255)
    return base::Error::msg("render node minor " + std::to_string(minor) + " outside 128..255", EINVAL);
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    std::string why = (e == EACCES || e == EPERM) ? "add the user to the 'render' group" : "";
    return base::Error::from_errno("open " + path, e, why);
  }
  return RenderNode(fd, minor);
}

RenderNode::RenderNode(RenderNode&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), minor_(o.minor_), amdgpu_(std::move(o.amdgpu_)) {}

RenderNode& RenderNode::operator=(RenderNode&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = std::exchange(o.fd_, -1);
    minor_ = o.minor_;
    amdgpu_ = std::move(o.amdgpu_);
  }
  return *this;
}

RenderNode::~RenderNode() { reset(); }

void RenderNode::reset() {
  if (amdgpu_ && amdgpu_->dev) (*drm())->deinitialize(amdgpu_->dev);  // dev: drm() succeeded
  amdgpu_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

base::Result<amdgpu_device_handle> RenderNode::device() const {
  if (fd_ < 0 || !amdgpu_) return base::Error::msg("render node not open", EBADF);
  Amdgpu& a = *amdgpu_;
  KFD_ASSIGN(const Drm* d, drm());
  std::call_once(a.once, [&] {
    const int r = d->initialize(fd_, &a.drm_major, &a.drm_minor, &a.dev);
    if (r != 0) {
      a.dev = nullptr;
      a.err = -r;
    }
  });
  if (!a.dev) return base::Error::from_errno("amdgpu_device_initialize " + path(), a.err ? a.err : EIO);
  return a.dev;
}

base::Result<GpuInfo> RenderNode::query() const {
  KFD_ASSIGN(amdgpu_device_handle dev, device());
  GpuInfo g;
  g.drm_major = amdgpu_->drm_major;
  g.drm_minor = amdgpu_->drm_minor;
  amdgpu_gpu_info info{};
  const Drm* d = *drm();  // device() succeeded
  int r = d->query_gpu_info(dev, &info);
  if (r != 0) return base::Error::from_errno("amdgpu_query_gpu_info " + path(), -r);
  g.asic_id = info.asic_id;
  g.chip_rev = info.chip_rev;
  g.chip_external_rev = info.chip_external_rev;
  g.family_id = info.family_id;
  g.max_engine_clk_khz = info.max_engine_clk;
  g.max_memory_clk_khz = info.max_memory_clk;
  g.num_shader_engines = info.num_shader_engines;
  g.num_shader_arrays_per_engine = info.num_shader_arrays_per_engine;
  g.gpu_counter_freq_khz = info.gpu_counter_freq;

  amdgpu_heap_info heap{};
  r = d->query_heap_info(dev, AMDGPU_GEM_DOMAIN_VRAM, 0, &heap);
  if (r != 0) return base::Error::from_errno("amdgpu_query_heap_info(VRAM) " + path(), -r);
  g.vram_size = heap.heap_size;
  r = d->query_heap_info(dev, AMDGPU_GEM_DOMAIN_VRAM, AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED,
                             &heap);
  if (r != 0) return base::Error::from_errno("amdgpu_query_heap_info(visible VRAM) " + path(), -r);
  g.visible_vram_size = heap.heap_size;
  r = d->query_heap_info(dev, AMDGPU_GEM_DOMAIN_GTT, 0, &heap);
  if (r != 0) return base::Error::from_errno("amdgpu_query_heap_info(GTT) " + path(), -r);
  g.gtt_size = heap.heap_size;

  if (const char* name = d->marketing_name(dev)) g.marketing_name = name;
  return g;
}

base::Result<void*> RenderNode::mmap(void* addr, size_t length, int prot, int flags,
                               uint64_t offset) const {
  void* p = ::mmap(addr, length, prot, flags, fd_, off_t(offset));
  if (p == MAP_FAILED)
    return base::Error::from_errno("mmap " + path(), errno,
                             "offset=" + base::hex(offset) + ", length=" + base::hex(length) +
                                 ", addr=" + base::hex(reinterpret_cast<uintptr_t>(addr)));
  return p;
}

}  // namespace kfd
