// SPDX-License-Identifier: MIT
// Opening the platform (topology, render nodes, apertures, ACQUIRE_VM, RUNTIME_ENABLE) and per-GPU driver queries.
#include "gpu/device.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "kfd/uapi_ext.h"

namespace gpu {

Device::~Device() {
  if (doorbells_) munmap(doorbells_, kfd::uapi::kDoorbellSliceSize);
}

base::Result<volatile uint64_t*> Device::doorbell(uint64_t doorbell_offset) const {
  std::lock_guard lk(doorbell_mu_);
  if (!doorbells_) {
    const uint64_t off = doorbell_offset & ~(kfd::uapi::kDoorbellSliceSize - 1);
    KFD_ASSIGN(doorbells_, kfd_->mmap(nullptr, kfd::uapi::kDoorbellSliceSize, PROT_READ | PROT_WRITE,
                                      MAP_SHARED, off));
  }
  return reinterpret_cast<volatile uint64_t*>(
      static_cast<uint8_t*>(doorbells_) + (doorbell_offset & (kfd::uapi::kDoorbellSliceSize - 1)));
}

const base::Result<DriverInfo>& Device::driver_info() const {
  std::call_once(info_once_, [this] { info_ = render.query(); });
  return info_;
}

base::Result<std::unique_ptr<Platform>> Platform::open(const PlatformOptions& opts) {
  KFD_ASSIGN(kfd::Kfd k, kfd::Kfd::open(opts.kfd_path));
  std::unique_ptr<Platform> p(new Platform(std::move(k)));
  KFD_TRY(p->init(opts));
  return p;
}

base::Status Platform::init(const PlatformOptions& opts) {
  KFD_ASSIGN(topo_, kfd::read_topology());
  for (const auto& n : topo_.nodes)
    if (!n.is_gpu())
      for (const auto& b : n.mem_banks) system_mem_ += b.size_in_bytes;
  if (system_mem_ == 0) system_mem_ = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));

  for (const kfd::Node* n : topo_.gpus()) {
    auto rn = kfd::RenderNode::open(n->props.drm_render_minor);
    if (!rn) return rn.error().context("GPU " + base::hex(n->gpu_id));
    auto d = std::make_unique<Device>(kfd_, std::move(rn).value());
    d->index = uint32_t(devices_.size());
    d->gpu_id = n->gpu_id;
    d->node_id = n->index;
    d->node = n;
    d->vram_size = n->vram_size() ? n->vram_size() : n->props.local_mem_size;
    d->family = pm4::family_for(n->props.gfx_target_version);
    devices_.push_back(std::move(d));
  }
  if (devices_.empty()) return base::Error::of_kind(base::ErrorKind::NoDevice, "no GPU in the KFD topology", ENODEV);

  KFD_ASSIGN(auto aps, kfd_.get_process_apertures());
  for (auto& d : devices_) {
    bool found = false;
    for (const auto& a : aps)
      if (a.gpu_id == d->gpu_id) {
        d->apertures = a;
        found = true;
      }
    if (!found)
      return base::Error::msg("GET_PROCESS_APERTURES_NEW: no apertures for GPU " + base::hex(d->gpu_id), ENODEV);
    KFD_TRY(kfd_.acquire_vm(d->gpu_id, d->render.fd()));
  }
  if (opts.runtime_enable && kfd_.has_minor(kfd::minor::kRuntimeEnable)) {
    auto r = kfd_.runtime_enable();
    // EBUSY/EEXIST: another runtime in this process already enabled it; that is fine.
    if (!r && r.err() != EEXIST && r.err() != EBUSY) return r.error();
    runtime_enabled_ = true;
  }
  return {};
}

Platform::~Platform() = default;

const Device* Platform::device(uint32_t gpu_id) const {
  for (const auto& d : devices_)
    if (d->gpu_id == gpu_id) return d.get();
  return nullptr;
}

base::Result<const Device*> Platform::find(uint32_t gpu_id, const char* what) const {
  const Device* d = gpu_id ? device(gpu_id) : devices_.front().get();
  if (!d)
    return base::Error::of_kind(base::ErrorKind::NoDevice, std::string(what) + ": unknown GPU " + base::hex(gpu_id), ENODEV);
  return d;
}

}  // namespace gpu
