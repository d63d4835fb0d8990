// SPDX-License-Identifier: MIT
// Device properties (HIP 6's and HIP 5.2's layouts) and hipDeviceGetAttribute from the KFD topology and the render node's GPU info.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "api/hip/props.h"
#include "api/hip/runtime.h"
#include "pm4/family.h"
#include "queues/blit_kernels.h"

namespace hip {
namespace {

// Node capability bits; Linux kfd_topology.h (HSA_CAP_SRAM_EDCSUPPORTED, HSA_CAP_ASIC_REVISION).
constexpr uint64_t kCapSramEccSupported = 0x04000000;
constexpr unsigned kCapAsicRevisionShift = 22;
constexpr uint64_t kCapAsicRevisionMask = 0xf;

uint64_t l2_cache_bytes(const gpu::Node& n) {
  uint64_t best = 0;
  for (const gpu::Cache& c : n.caches)
    if (c.level == 2) best = std::max<uint64_t>(best, uint64_t(c.size_kb) * 1024);
  return best;
}

void copy_name(char* dst, size_t cap, const std::string& s) {
  std::snprintf(dst, cap, "%s", s.c_str());
}

// HIP 5.2's layout of the same properties (every field it has is in HIP 6's but gcnArch).
void to_hip52(const hipDeviceProp_tR0600& d, int gcn_arch, hipDeviceProp_t* o) {
  std::memset(o, 0, sizeof *o);
  std::memcpy(o->name, d.name, sizeof o->name);
  o->totalGlobalMem = d.totalGlobalMem;
  o->sharedMemPerBlock = d.sharedMemPerBlock;
  o->regsPerBlock = d.regsPerBlock;
  o->warpSize = d.warpSize;
  o->maxThreadsPerBlock = d.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) o->maxThreadsDim[i] = d.maxThreadsDim[i], o->maxGridSize[i] = d.maxGridSize[i];
  o->clockRate = d.clockRate;
  o->memoryClockRate = d.memoryClockRate;
  o->memoryBusWidth = d.memoryBusWidth;
  o->totalConstMem = d.totalConstMem;
  o->major = d.major;
  o->minor = d.minor;
  o->multiProcessorCount = d.multiProcessorCount;
  o->l2CacheSize = d.l2CacheSize;
  o->maxThreadsPerMultiProcessor = d.maxThreadsPerMultiProcessor;
  o->computeMode = d.computeMode;
  o->clockInstructionRate = d.clockInstructionRate;
  o->arch = d.arch;
  o->concurrentKernels = d.concurrentKernels;
  o->pciDomainID = d.pciDomainID;
  o->pciBusID = d.pciBusID;
  o->pciDeviceID = d.pciDeviceID;
  o->maxSharedMemoryPerMultiProcessor = d.maxSharedMemoryPerMultiProcessor;
  o->isMultiGpuBoard = d.isMultiGpuBoard;
  o->canMapHostMemory = d.canMapHostMemory;
  o->gcnArch = gcn_arch;
  std::memcpy(o->gcnArchName, d.gcnArchName, sizeof o->gcnArchName);
  o->integrated = d.integrated;
  o->cooperativeLaunch = d.cooperativeLaunch;
  o->cooperativeMultiDeviceLaunch = d.cooperativeMultiDeviceLaunch;
  o->maxTexture1DLinear = d.maxTexture1DLinear;
  o->maxTexture1D = d.maxTexture1D;
  o->maxTexture2D[0] = d.maxTexture2D[0], o->maxTexture2D[1] = d.maxTexture2D[1];
  for (int i = 0; i < 3; ++i) o->maxTexture3D[i] = d.maxTexture3D[i];
  o->hdpMemFlushCntl = d.hdpMemFlushCntl;
  o->hdpRegFlushCntl = d.hdpRegFlushCntl;
  o->memPitch = d.memPitch;
  o->textureAlignment = d.textureAlignment;
  o->texturePitchAlignment = d.texturePitchAlignment;
  o->kernelExecTimeoutEnabled = d.kernelExecTimeoutEnabled;
  o->ECCEnabled = d.ECCEnabled;
  o->tccDriver = d.tccDriver;
  o->cooperativeMultiDeviceUnmatchedFunc = d.cooperativeMultiDeviceUnmatchedFunc;
  o->cooperativeMultiDeviceUnmatchedGridDim = d.cooperativeMultiDeviceUnmatchedGridDim;
  o->cooperativeMultiDeviceUnmatchedBlockDim = d.cooperativeMultiDeviceUnmatchedBlockDim;
  o->cooperativeMultiDeviceUnmatchedSharedMem = d.cooperativeMultiDeviceUnmatchedSharedMem;
  o->isLargeBar = d.isLargeBar;
  o->asicRevision = d.asicRevision;
  o->managedMemory = d.managedMemory;
  o->directManagedMemAccessFromHost = d.directManagedMemAccessFromHost;
  o->concurrentManagedAccess = d.concurrentManagedAccess;
  o->pageableMemoryAccess = d.pageableMemoryAccess;
  o->pageableMemoryAccessUsesHostPageTables = d.pageableMemoryAccessUsesHostPageTables;
}

// The HIP 5.2 layout binaries built with ROCm 5.x pass in (x86-64 LP64): size and a few offsets
// from hip_runtime_api.h of HIP 5.2.
static_assert(sizeof(hipDeviceProp_t) == 792);
static_assert(offsetof(hipDeviceProp_t, totalGlobalMem) == 256);
static_assert(offsetof(hipDeviceProp_t, multiProcessorCount) == 336);
static_assert(offsetof(hipDeviceProp_t, arch) == 356);
static_assert(offsetof(hipDeviceProp_t, gcnArchName) == 396);
static_assert(offsetof(hipDeviceProp_t, hdpMemFlushCntl) == 696);
static_assert(offsetof(hipDeviceProp_t, pageableMemoryAccessUsesHostPageTables) == 788);

}  // namespace

loader::TargetId device_target(const gpu::Node& node, bool xnack_on) {
  loader::TargetId t;
  t.processor = node.gfx_name();
  const pm4::TargetFeatures f = pm4::target_features(node.props.gfx_target_version);
  if (f.sramecc)
    t.sramecc = (node.props.capability & kCapSramEccSupported) ? loader::Feature::On : loader::Feature::Off;
  if (f.xnack) t.xnack = xnack_on ? loader::Feature::On : loader::Feature::Off;
  return t;
}

void Device::fill_props() {
  const gpu::Node& n = *gpu_.node;
  const gpu::NodeProperties& p = n.props;
  // An amdkfd without the query (before 1.10: ENOTTY) means XNACK off, as ROCr takes it; any
  // other failure is unexpected and said once on stderr, with its cause, before going on.
  bool xnack = false;
  if (auto x = rt_.platform().xnack_enabled(); x) {
    xnack = *x;
  } else if (x.kind() == base::ErrorKind::NotSupported) {
    debug_log("device properties", "XNACK mode unknown, taken as off: " + x.message());
  } else {
    warn_once("device properties", "XNACK mode query failed, taken as off: " + x.message());
  }
  target_ = device_target(n, xnack);

  // name and isLargeBar come from the render node's driver, asked on the first props() call
  // (complete_props); until then the name is the generic one and isLargeBar 0.
  hipDeviceProp_tR0600& d = props_;
  std::memset(&d, 0, sizeof d);
  copy_name(d.name, sizeof d.name, "AMD Radeon Graphics (" + target_.processor + ")");
  copy_name(d.gcnArchName, sizeof d.gcnArchName, target_.str());
  for (int i = 0; i < 8; ++i) d.uuid.bytes[i] = char(p.unique_id >> (8 * i));
  d.totalGlobalMem = gpu_.vram_size ? gpu_.vram_size : n.vram_size();
  d.sharedMemPerBlock = size_t(p.lds_size_in_kb) * 1024;
  d.regsPerBlock = 65536;
  d.warpSize = int(p.wave_front_size ? p.wave_front_size : 64);
  d.memPitch = INT_MAX;
  d.maxThreadsPerBlock = 1024;
  d.maxThreadsDim[0] = d.maxThreadsDim[1] = d.maxThreadsDim[2] = 1024;
  d.maxGridSize[0] = d.maxGridSize[1] = d.maxGridSize[2] = INT_MAX;
  d.clockRate = int(p.max_engine_clk_fcompute * 1000);
  d.totalConstMem = INT_MAX;
  d.major = int(p.gfx_target_version / 10000);
  d.minor = int(p.gfx_target_version / 100 % 100);
  d.textureAlignment = 256;
  d.texturePitchAlignment = 256;
  // The image unit's limits as kfdrt builds descriptors: a T# holds width and height - 1 in 14
  // bits and depth - 1 in 13 (AMD Vega ISA, image resource); linear textures are typed buffers
  // of at most 2^27 elements (kfdrt's bound, as ROCm reports for gfx9). gfx942 has no image
  // instructions: no textures there.
  if (p.gfx_target_version < 90400) {
    d.maxTexture1D = d.maxTexture2D[0] = d.maxTexture2D[1] = 16384;
    d.maxTexture1DLinear = 1 << 27;
    d.maxTexture3D[0] = d.maxTexture3D[1] = 16384;
    d.maxTexture3D[2] = 8192;
  }
  d.deviceOverlap = 1;
  d.multiProcessorCount = int(n.cu_count());
  d.integrated = p.cpu_cores_count > 0 ? 1 : 0;
  d.canMapHostMemory = 1;
  d.concurrentKernels = 1;
  d.ECCEnabled = target_.sramecc == loader::Feature::On;
  d.pciDomainID = int(p.domain);
  d.pciBusID = int((p.location_id >> 8) & 0xff);
  d.pciDeviceID = int((p.location_id >> 3) & 0x1f);
  d.asyncEngineCount = int(p.num_sdma_engines);
  d.unifiedAddressing = 1;
  if (!n.mem_banks.empty()) {
    d.memoryClockRate = int(n.mem_banks[0].mem_clk_max * 1000);
    d.memoryBusWidth = int(n.mem_banks[0].width);
  }
  d.l2CacheSize = int(l2_cache_bytes(n));
  d.maxThreadsPerMultiProcessor = int(p.max_waves_per_simd * p.simd_per_cu * uint32_t(d.warpSize));
  if (d.maxThreadsPerMultiProcessor == 0) d.maxThreadsPerMultiProcessor = 2048;
  d.streamPrioritiesSupported = 1;
  d.globalL1CacheSupported = 1;
  d.localL1CacheSupported = 1;
  d.sharedMemPerMultiprocessor = d.sharedMemPerBlock;
  d.regsPerMultiprocessor = 65536;
  d.managedMemory = 1;
  d.concurrentManagedAccess = 1;
  d.directManagedMemAccessFromHost = 1;
  d.canUseHostPointerForRegisteredMem = 1;
  d.sharedMemPerBlockOptin = d.sharedMemPerBlock;
  d.maxBlocksPerMultiProcessor = 32;
  // Grid barriers are the global wave sync (ROCm's __ockl_grid_sync: ds_gws_barrier), which
  // cooperative launches need the topology to offer (ROCr: HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES),
  // and kfdrt's blit kernels for the processor (their kfdrt_gws_init sets the barrier's count).
  d.cooperativeLaunch = p.num_gws > 0 &&
                        queues::blit::image_for(queues::blit::processor_name(p.gfx_target_version)) != nullptr;
  // hipLaunchCooperativeKernelMultiDevice: one such launch per device, the grids meeting at a
  // counter in host memory (cooperative.cpp).
  d.cooperativeMultiDeviceLaunch = d.cooperativeLaunch;
  d.hostRegisterSupported = 1;
  d.maxSharedMemoryPerMultiProcessor = d.sharedMemPerBlock;
  d.clockInstructionRate = d.clockRate;
  d.arch = hipDeviceArch_t{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0};
  d.asicRevision = int((p.capability >> kCapAsicRevisionShift) & kCapAsicRevisionMask);
  // HIP's deprecated gcnArch: major * 100 + minor * 10 + stepping, 910 for gfx90a (hipamd
  // hip_device.cpp of ROCm 5.2).
  uint32_t v = p.gfx_target_version;
  to_hip52(d, int(v / 10000 * 100 + v / 100 % 100 * 10 + v % 100), &props52_);
}

void Device::complete_props() const {
  std::call_once(driver_once_, [this] {
    gpu::DriverInfo info;
    if (const auto& q = gpu_.driver_info(); q) info = *q;
    else warn_once("device properties", "no GPU info from the render node (name, timer and BAR size left default): " + q.message());
    if (info.gpu_counter_freq_khz) timestamp_hz_ = uint64_t(info.gpu_counter_freq_khz) * 1000;
    if (!info.marketing_name.empty()) {
      copy_name(props_.name, sizeof props_.name, info.marketing_name);
      copy_name(props52_.name, sizeof props52_.name, info.marketing_name);
    }
    // Large BAR: the CPU reaches all of VRAM (amdgpu's vram_cpu_accessible_size covers it).
    props_.isLargeBar = props52_.isLargeBar = info.visible_vram_size >= info.vram_size ? 1 : 0;
    driver_done_.store(true, std::memory_order_release);
  });
}

hipError_t device_attribute(const Device& dev, hipDeviceAttribute_t a, int* v) {
  const hipDeviceProp_tR0600& p = dev.props();
  switch (a) {
    case hipDeviceAttributeEccEnabled: *v = p.ECCEnabled; break;
    case hipDeviceAttributeAsyncEngineCount: *v = p.asyncEngineCount; break;
    case hipDeviceAttributeCanMapHostMemory: *v = p.canMapHostMemory; break;
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem: *v = p.canUseHostPointerForRegisteredMem; break;
    case hipDeviceAttributeClockRate: *v = p.clockRate; break;
    case hipDeviceAttributeComputeMode: *v = p.computeMode; break;
    case hipDeviceAttributeConcurrentKernels: *v = p.concurrentKernels; break;
    case hipDeviceAttributeConcurrentManagedAccess: *v = p.concurrentManagedAccess; break;
    case hipDeviceAttributeCooperativeLaunch: *v = p.cooperativeLaunch; break;
    case hipDeviceAttributeCooperativeMultiDeviceLaunch: *v = p.cooperativeMultiDeviceLaunch; break;
    case hipDeviceAttributeDeviceOverlap: *v = p.deviceOverlap; break;
    case hipDeviceAttributeDirectManagedMemAccessFromHost: *v = p.directManagedMemAccessFromHost; break;
    case hipDeviceAttributeGlobalL1CacheSupported: *v = p.globalL1CacheSupported; break;
    case hipDeviceAttributeIntegrated: *v = p.integrated; break;
    case hipDeviceAttributeIsMultiGpuBoard: *v = p.isMultiGpuBoard; break;
    case hipDeviceAttributeKernelExecTimeout: *v = p.kernelExecTimeoutEnabled; break;
    case hipDeviceAttributeL2CacheSize: *v = p.l2CacheSize; break;
    case hipDeviceAttributeLocalL1CacheSupported: *v = p.localL1CacheSupported; break;
    case hipDeviceAttributeComputeCapabilityMajor: *v = p.major; break;
    case hipDeviceAttributeComputeCapabilityMinor: *v = p.minor; break;
    case hipDeviceAttributeManagedMemory: *v = p.managedMemory; break;
    case hipDeviceAttributeMaxBlocksPerMultiProcessor: *v = p.maxBlocksPerMultiProcessor; break;
    case hipDeviceAttributeMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case hipDeviceAttributeMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case hipDeviceAttributeMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case hipDeviceAttributeMaxGridDimX: *v = p.maxGridSize[0]; break;
    case hipDeviceAttributeMaxGridDimY: *v = p.maxGridSize[1]; break;
    case hipDeviceAttributeMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case hipDeviceAttributeMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case hipDeviceAttributeMaxPitch: *v = int(p.memPitch); break;
    case hipDeviceAttributeMemoryBusWidth: *v = p.memoryBusWidth; break;
    case hipDeviceAttributeMemoryClockRate: *v = p.memoryClockRate; break;
    case hipDeviceAttributeMultiprocessorCount: *v = p.multiProcessorCount; break;
    case hipDeviceAttributePciBusId: *v = p.pciBusID; break;
    case hipDeviceAttributePciDeviceId: *v = p.pciDeviceID; break;
    case hipDeviceAttributePciDomainID: *v = p.pciDomainID; break;
    case hipDeviceAttributeMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    case hipDeviceAttributeMaxRegistersPerMultiprocessor: *v = p.regsPerMultiprocessor; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: *v = int(p.sharedMemPerBlock); break;
    case hipDeviceAttributeSharedMemPerBlockOptin: *v = int(p.sharedMemPerBlockOptin); break;
    case hipDeviceAttributeSharedMemPerMultiprocessor: *v = int(p.sharedMemPerMultiprocessor); break;
    case hipDeviceAttributeStreamPrioritiesSupported: *v = p.streamPrioritiesSupported; break;
    case hipDeviceAttributeTextureAlignment: *v = int(p.textureAlignment); break;
    case hipDeviceAttributeTexturePitchAlignment: *v = int(p.texturePitchAlignment); break;
    case hipDeviceAttributeTotalConstantMemory: *v = int(p.totalConstMem); break;
    case hipDeviceAttributeTotalGlobalMem: *v = int(std::min<size_t>(p.totalGlobalMem, INT_MAX)); break;
    case hipDeviceAttributeUnifiedAddressing: *v = p.unifiedAddressing; break;
    case hipDeviceAttributeWarpSize: *v = p.warpSize; break;
    case hipDeviceAttributeHostRegisterSupported: *v = p.hostRegisterSupported; break;
    case hipDeviceAttributeMemoryPoolsSupported:
    case hipDeviceAttributeVirtualMemoryManagementSupported:
    case hipDeviceAttributePageableMemoryAccess:
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables:
    case hipDeviceAttributeCanUseStreamWaitValue: *v = 0; break;
    // Texture and surface objects work where the GPU has image instructions (not on gfx940+).
    case hipDeviceAttributeImageSupport: *v = p.maxTexture1D > 0; break;
    case hipDeviceAttributeClockInstructionRate: *v = p.clockInstructionRate; break;
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor: *v = int(p.maxSharedMemoryPerMultiProcessor); break;
    case hipDeviceAttributeIsLargeBar: *v = p.isLargeBar; break;
    case hipDeviceAttributeAsicRevision: *v = p.asicRevision; break;
    case hipDeviceAttributePhysicalMultiProcessorCount: *v = p.multiProcessorCount; break;
    case hipDeviceAttributeFineGrainSupport: *v = 1; break;
    case hipDeviceAttributeWallClockRate: *v = int(dev.timestamp_hz() / 1000); break;
    default: return hipErrorInvalidValue;
  }
  return hipSuccess;
}

}  // namespace hip
