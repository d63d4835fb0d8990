// SPDX-License-Identifier: MIT
// A GPU's DRM render node (/dev/dri/renderD<minor>) and what libdrm_amdgpu reports about it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"

// From <amdgpu.h>; kept opaque here so users of this header need not include libdrm.
typedef struct amdgpu_device* amdgpu_device_handle;

namespace kfd {

// Facts from amdgpu_query_gpu_info / amdgpu_query_heap_info / amdgpu_get_marketing_name.
struct GpuInfo {
  uint32_t drm_major = 0;  // amdgpu DRM interface version
  uint32_t drm_minor = 0;
  uint32_t asic_id = 0;
  uint32_t chip_rev = 0;
  uint32_t chip_external_rev = 0;
  uint32_t family_id = 0;
  uint64_t max_engine_clk_khz = 0;
  uint64_t max_memory_clk_khz = 0;
  uint32_t num_shader_engines = 0;
  uint32_t num_shader_arrays_per_engine = 0;
  uint32_t gpu_counter_freq_khz = 0;
  uint64_t vram_size = 0;          // AMDGPU_GEM_DOMAIN_VRAM heap_size
  uint64_t visible_vram_size = 0;  // VRAM heap with AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED
  uint64_t gtt_size = 0;           // AMDGPU_GEM_DOMAIN_GTT heap_size
  std::string marketing_name;      // "" when libdrm's table has no entry
};

// An open render node. Move-only; closes on destruction. The fd is what ACQUIRE_VM takes and what
// BOs' mmap_offsets are mapped on. libdrm_amdgpu is initialised on it only when it is first asked
// something (query(), device()): amdgpu_device_initialize reads the DRM version, several
// AMDGPU_INFO queries, the device's sysfs entries and libdrm's whole amdgpu.ids table, none of which
// a process needs to run a kernel (ACQUIRE_VM and BO mappings need only the fd).
class RenderNode {
 public:
  // Opens /dev/dri/renderD<minor> (O_RDWR|O_CLOEXEC).
  static base::Result<RenderNode> open(uint32_t minor);

  RenderNode() = default;  // not open: fd() == -1
  RenderNode(RenderNode&& o) noexcept;
  RenderNode& operator=(RenderNode&& o) noexcept;
  RenderNode(const RenderNode&) = delete;
  RenderNode& operator=(const RenderNode&) = delete;
  ~RenderNode();

  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  uint32_t minor() const { return minor_; }
  // libdrm_amdgpu's handle, initialised on first use (thread-safe); its error when that failed.
  base::Result<amdgpu_device_handle> device() const;
  std::string path() const { return "/dev/dri/renderD" + std::to_string(minor_); }

  base::Result<GpuInfo> query() const;

  // mmap of a BO's mmap_offset on this node (MAP_SHARED; MAP_FIXED when addr is given).
  base::Result<void*> mmap(void* addr, size_t length, int prot, int flags, uint64_t offset) const;

 private:
  // libdrm_amdgpu's state, made on first use; on the heap so that the node stays movable.
  struct Amdgpu {
    std::once_flag once;
    amdgpu_device_handle dev = nullptr;
    int err = 0;  // amdgpu_device_initialize's errno when it failed
    uint32_t drm_major = 0;
    uint32_t drm_minor = 0;
  };
  RenderNode(int fd, uint32_t minor) : fd_(fd), minor_(minor), amdgpu_(std::make_unique<Amdgpu>()) {}
  void reset();

  int fd_ = -1;
  uint32_t minor_ = 0;
  std::unique_ptr<Amdgpu> amdgpu_;
};

}  // namespace kfd
