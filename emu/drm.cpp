// SPDX-License-Identifier: MIT
// Emulated DRM_IOCTL_VERSION and DRM_IOCTL_AMDGPU_INFO for the render nodes of the emulated GPUs.
#include "emu/drm.h"

#include <libdrm/amdgpu_drm.h>
#include <libdrm/drm.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "emu/device_model.h"
#include "emu/kfd_process.h"
#include "emu/user_copy.h"

namespace emu {

namespace {

bool put_string(char* dst, size_t cap, const char* s) {
  size_t n = std::strlen(s);
  return cap == 0 || !dst || copy_to_user(dst, s, std::min(cap, n));
}

int version(drm_version* v) {
  static const char kName[] = "amdgpu", kDate[] = "20150101", kDesc[] = "AMD GPU (kfdrt emulator)";
  if (!put_string(v->name, v->name_len, kName) || !put_string(v->date, v->date_len, kDate) ||
      !put_string(v->desc, v->desc_len, kDesc))
    return -EFAULT;
  v->version_major = 3;
  v->version_minor = 57;
  v->version_patchlevel = 0;
  v->name_len = sizeof kName - 1;
  v->date_len = sizeof kDate - 1;
  v->desc_len = sizeof kDesc - 1;
  return 0;
}

drm_amdgpu_info_device dev_info(const GpuModel& g) {
  drm_amdgpu_info_device d{};
  const TargetInfo& t = *g.target;
  d.device_id = t.device_id;
  d.pci_rev = t.pci_rev;
  d.external_rev = 0x3c;
  d.family = t.drm_family;
  d.num_shader_engines = t.shader_engines;
  d.num_shader_arrays_per_engine = 1;
  d.gpu_counter_freq = 100000;  // KHz: the 100 MHz GPU timestamp
  d.max_engine_clock = uint64_t(t.max_engine_clk_mhz) * 1000;
  d.max_memory_clock = 1600000;
  d.cu_active_number = g.cus;
  uint32_t per_se = (g.cus + t.shader_engines - 1) / t.shader_engines;
  for (uint32_t se = 0, left = g.cus; se < t.shader_engines && se < 16; ++se) {
    uint32_t n = std::min(per_se, left);
    d.cu_bitmap[se % 4][se / 4] = n >= 32 ? ~0u : ((1u << n) - 1);
    left -= n;
  }
  d.enabled_rb_pipes_mask = 0;
  d.num_rb_pipes = 0;
  d.virtual_address_offset = 2ull << 20;
  d.virtual_address_max = 1ull << 47;
  d.virtual_address_alignment = 4096;
  d.pte_fragment_size = 2u << 20;
  d.gart_page_size = 4096;
  d.vram_type = AMDGPU_VRAM_TYPE_HBM;
  d.vram_bit_width = 4096;
  d.wave_front_size = 64;
  d.num_shader_visible_vgprs = 512;
  d.num_cu_per_sh = per_se;
  d.num_tcc_blocks = 16;
  d.high_va_offset = 0xffff800000000000ull;
  d.high_va_max = 0xfffffffffff00000ull;
  return d;
}

drm_amdgpu_heap_info heap(uint64_t total, uint64_t used) {
  drm_amdgpu_heap_info h{};
  h.total_heap_size = total;
  h.usable_heap_size = total;
  h.heap_usage = used;
  h.max_allocation = total * 3 / 4;
  return h;
}

// GB_ADDR_CONFIG's dword offset on soc15 parts: the GC block's segment-0 base 0x2000 plus
// mmGB_ADDR_CONFIG 0x063e (Linux vega20_ip_offset.h, gc_9_0_offset.h); libdrm reads it there.
constexpr uint32_t kGbAddrConfigReg = 0x263e;
constexpr uint32_t kMaxSe = 4, kMaxShPerSe = 2;  // AMDGPU_GFX_MAX_SE, AMDGPU_GFX_MAX_SH_PER_SE

// amdgpu_kms.c AMDGPU_INFO_READ_MMR_REG: the SE/SH selectors and the count are checked, then
// each register must be on soc15.c's allowed list, else the whole read is EFAULT. Of that list
// the emulator has GB_ADDR_CONFIG (the driver answers it from its cached value); the status
// registers of engines it does not model are refused by name in the log.
int read_mmr_reg(const GpuModel& g, const drm_amdgpu_info* q, void* out) {
  uint32_t se = (q->read_mmr_reg.instance >> AMDGPU_INFO_MMR_SE_INDEX_SHIFT) & AMDGPU_INFO_MMR_SE_INDEX_MASK;
  uint32_t sh = (q->read_mmr_reg.instance >> AMDGPU_INFO_MMR_SH_INDEX_SHIFT) & AMDGPU_INFO_MMR_SH_INDEX_MASK;
  if (se != AMDGPU_INFO_MMR_SE_INDEX_MASK && se >= kMaxSe) return -EINVAL;
  if (sh != AMDGPU_INFO_MMR_SH_INDEX_MASK && sh >= kMaxShPerSe) return -EINVAL;
  uint32_t count = q->read_mmr_reg.count;
  if (count > 128) return -EINVAL;
  uint32_t regs[128] = {};
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t reg = q->read_mmr_reg.dword_offset + i;
    if (reg != kGbAddrConfigReg) {
      log("AMDGPU_INFO_READ_MMR_REG: register 0x%x is not emulated (only GB_ADDR_CONFIG 0x%x): EFAULT",
          reg, kGbAddrConfigReg);
      return -EFAULT;
    }
    regs[i] = g.target->gb_addr_config;
  }
  size_t n = std::min<size_t>(q->return_size, count * sizeof(uint32_t));
  return copy_to_user(out, regs, n) ? 0 : -EFAULT;
}

int info(const GpuModel& g, drm_amdgpu_info* q) {
  void* out = reinterpret_cast<void*>(q->return_pointer);
  auto reply = [&](const void* data, size_t n) {
    return copy_to_user(out, data, std::min<size_t>(n, q->return_size)) ? 0 : -EFAULT;
  };
  switch (q->query) {
    case AMDGPU_INFO_ACCEL_WORKING: {
      uint32_t v = 1;
      return reply(&v, sizeof v);
    }
    case AMDGPU_INFO_DEV_INFO: {
      drm_amdgpu_info_device d = dev_info(g);
      return reply(&d, sizeof d);
    }
    case AMDGPU_INFO_VRAM_GTT: {
      drm_amdgpu_info_vram_gtt v{g.vram_bytes, g.visible_vram_bytes, g.gtt_bytes};
      return reply(&v, sizeof v);
    }
    case AMDGPU_INFO_MEMORY: {
      drm_amdgpu_memory_info m{};
      m.vram = heap(g.vram_bytes, 0);
      m.cpu_accessible_vram = heap(g.visible_vram_bytes, 0);
      m.gtt = heap(g.gtt_bytes, 0);
      return reply(&m, sizeof m);
    }
    case AMDGPU_INFO_VRAM_USAGE:
    case AMDGPU_INFO_VIS_VRAM_USAGE:
    case AMDGPU_INFO_GTT_USAGE: {
      uint64_t v = 0;
      return reply(&v, sizeof v);
    }
    case AMDGPU_INFO_READ_MMR_REG:
      return read_mmr_reg(g, q, out);
    case AMDGPU_INFO_FW_VERSION: {
      drm_amdgpu_info_firmware f{78, 0};
      return reply(&f, sizeof f);
    }
    case AMDGPU_INFO_HW_IP_COUNT: {
      uint32_t v = q->query_hw_ip.type == AMDGPU_HW_IP_COMPUTE || q->query_hw_ip.type == AMDGPU_HW_IP_DMA;
      return reply(&v, sizeof v);
    }
    case AMDGPU_INFO_HW_IP_INFO: {
      drm_amdgpu_info_hw_ip ip{};
      ip.hw_ip_version_major = 9;
      ip.hw_ip_version_minor = 4;
      ip.ib_start_alignment = 32;
      ip.ib_size_alignment = 32;
      bool has = q->query_hw_ip.type == AMDGPU_HW_IP_COMPUTE || q->query_hw_ip.type == AMDGPU_HW_IP_DMA;
      ip.available_rings = has ? 0xf : 0;
      return reply(&ip, sizeof ip);
    }
    default:
      log("AMDGPU_INFO query 0x%x is not implemented by the emulator: EINVAL", q->query);
      return -EINVAL;
  }
}

}  // namespace

int drm_ioctl(unsigned minor, int fd, unsigned long request, void* arg) {
  (void)fd;
  const GpuModel* g = gpu_by_minor(minor);
  if (!g) return -ENODEV;
  if (request == DRM_IOCTL_VERSION) {
    drm_version v;
    if (!copy_from_user(&v, arg, sizeof v)) return -EFAULT;
    int r = version(&v);
    if (r == 0 && !copy_to_user(arg, &v, sizeof v)) return -EFAULT;
    return r;
  }
  if (request == DRM_IOCTL_AMDGPU_INFO) {
    drm_amdgpu_info q;
    if (!copy_from_user(&q, arg, sizeof q)) return -EFAULT;
    int r = info(*g, &q);
    trace("AMDGPU_INFO query 0x%x on renderD%u -> %d", q.query, minor, r);
    return r;
  }
  log("DRM ioctl 0x%lx (nr 0x%x) on renderD%u is not implemented by the emulator: EINVAL",
      request, unsigned(_IOC_NR(request)), minor);
  return -EINVAL;
}

}  // namespace emu
