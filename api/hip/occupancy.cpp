// SPDX-License-Identifier: MIT
// Occupancy API: how many blocks of a kernel a compute unit holds, and the block size that fills it best.
#include <algorithm>
#include <cerrno>

#include "api/hip/cooperative.h"
#include "api/hip/launch.h"

using namespace hip;

namespace {

// What limits the blocks resident on one compute unit: wave slots per SIMD, the register files
// (per SIMD lane, allocated in granules; AMDGPUUsage "Register allocation"), LDS, and the
// hardware's block limit.
struct CuLimits {
  int simds = 4, waves_per_simd = 8, wave = 64;
  int vgprs = 256, vgpr_granule = 4;  // the family table's, per wave size
  int sgprs = 800, sgpr_granule = 16;  // sgprs 0: SGPRs do not limit occupancy (gfx10+)
  size_t lds = 65536;
  int max_blocks = 32;
};

CuLimits limits_of(Device& dev) {
  CuLimits l;
  const hipDeviceProp_tR0600& p = dev.limits();
  const gpu::NodeProperties& n = dev.gpu().props();
  if (n.simd_per_cu) l.simds = int(n.simd_per_cu);
  if (n.max_waves_per_simd) l.waves_per_simd = int(n.max_waves_per_simd);
  l.wave = p.warpSize;
  if (const pm4::Family* f = dev.gpu().family) {
    const bool wave32 = l.wave == 32 && f->vgprs_wave32;
    l.vgprs = wave32 ? f->vgprs_wave32 : f->vgprs_wave64;
    l.vgpr_granule = wave32 ? f->vgpr_alloc_granule_wave32 : f->vgpr_alloc_granule_wave64;
    l.sgprs = f->sgprs, l.sgpr_granule = f->sgpr_alloc_granule;
  }
  l.lds = p.sharedMemPerMultiprocessor;
  l.max_blocks = p.maxBlocksPerMultiProcessor;
  return l;
}

int round_up(int v, int to) { return (v + to - 1) / to * to; }

// Blocks of `block` threads of kernel `k` one compute unit holds, with `dyn` bytes of dynamic LDS.
int blocks_per_cu(const CuLimits& l, const KernelInfo& k, int block, size_t dyn) {
  if (block <= 0 || uint32_t(block) > k.max_workgroup) return 0;
  int waves_per_simd = l.waves_per_simd;
  if (k.vgprs) waves_per_simd = std::min(waves_per_simd, l.vgprs / round_up(int(k.vgprs), l.vgpr_granule));
  if (k.sgprs && l.sgprs) waves_per_simd = std::min(waves_per_simd, l.sgprs / round_up(int(k.sgprs), l.sgpr_granule));
  int blocks = waves_per_simd * l.simds / ((block + l.wave - 1) / l.wave);
  if (size_t lds = k.group_segment + dyn) blocks = std::min<int>(blocks, int(l.lds / lds));
  return std::min(blocks, l.max_blocks);
}

hipError_t kernel_on_current(Function* f, Device** dev, const KernelInfo** k) {
  if (!f) return hipErrorInvalidDeviceFunction;
  HIP_INIT(rt);
  *dev = &rt->current();
  auto ki = f->info(**dev);
  if (!ki) return ki.error().err == ENOEXEC ? hipErrorNoBinaryForGpu : hipErrorInvalidDeviceFunction;
  *k = *ki;
  return hipSuccess;
}

// Tries every block size (whole waves, up to the kernel's and the caller's limit) and keeps the
// one with the most resident threads, the larger on a tie; the grid fills every compute unit.
hipError_t potential_block_size(Function* f, size_t dyn, int limit, int* grid, int* block) {
  if (!grid || !block || limit < 0) return hipErrorInvalidValue;
  Device* dev;
  const KernelInfo* k;
  if (hipError_t e = kernel_on_current(f, &dev, &k); e != hipSuccess) return e;
  CuLimits l = limits_of(*dev);
  int top = int(std::min<uint32_t>(k->max_workgroup, uint32_t(dev->limits().maxThreadsPerBlock)));
  if (limit > 0) top = std::min(top, limit);
  int best = 0, best_blocks = 0;
  for (int bs = std::max(l.wave, top / l.wave * l.wave); bs > 0; bs -= l.wave) {
    int n = blocks_per_cu(l, *k, std::min(bs, top), dyn);
    if (n * std::min(bs, top) > best_blocks * best) best = std::min(bs, top), best_blocks = n;
  }
  if (best_blocks == 0) return hipErrorInvalidValue;  // the dynamic LDS alone does not fit
  *block = best;
  *grid = best_blocks * dev->limits().multiProcessorCount;
  return hipSuccess;
}

}  // namespace

namespace hip {
int max_blocks_per_cu(Device& dev, const KernelInfo& k, int block, size_t dyn) {
  return blocks_per_cu(limits_of(dev), k, block, dyn);
}
}  // namespace hip

HIP_EXPORT hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* fn,
                                                                   int block_size, size_t dyn) {
  if (!blocks || block_size <= 0) return ret(hipErrorInvalidValue);
  Function* f = fn ? Registry::get().function(fn) : nullptr;
  Device* dev;
  const KernelInfo* k;
  if (hipError_t e = kernel_on_current(f, &dev, &k); e != hipSuccess) return ret(e);
  *blocks = blocks_per_cu(limits_of(*dev), *k, block_size, dyn);
  return hipSuccess;
}

// The variants with flags: HIP 5.2 defines hipOccupancyDefault (0) only; other flags are refused.
HIP_EXPORT hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* fn, int block_size,
                                                                            size_t dyn, unsigned int flags) {
  if (flags != hipOccupancyDefault) return ret(hipErrorInvalidValue);
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn, block_size, dyn);
}

HIP_EXPORT hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, hipFunction_t f, int block_size,
                                                                         size_t dyn) {
  if (!blocks || !f || block_size <= 0) return ret(hipErrorInvalidValue);
  Device* dev;
  const KernelInfo* k;
  if (hipError_t e = kernel_on_current(reinterpret_cast<Function*>(f), &dev, &k); e != hipSuccess) return ret(e);
  *blocks = blocks_per_cu(limits_of(*dev), *k, block_size, dyn);
  return hipSuccess;
}

HIP_EXPORT hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, hipFunction_t f,
                                                                                  int block_size, size_t dyn,
                                                                                  unsigned int flags) {
  if (flags != hipOccupancyDefault) return ret(hipErrorInvalidValue);
  return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block_size, dyn);
}

HIP_EXPORT hipError_t hipOccupancyMaxPotentialBlockSize(int* grid, int* block, const void* fn, size_t dyn,
                                                        int limit) {
  if (!fn) return ret(hipErrorInvalidValue);  // no kernel at all (HIP 5.2; an unknown one: invalid function)
  Function* f = Registry::get().function(fn);
  return ret(potential_block_size(f, dyn, limit, grid, block));
}

HIP_EXPORT hipError_t hipModuleOccupancyMaxPotentialBlockSize(int* grid, int* block, hipFunction_t f,
                                                              size_t dyn, int limit) {
  if (!f) return ret(hipErrorInvalidValue);
  return ret(potential_block_size(reinterpret_cast<Function*>(f), dyn, limit, grid, block));
}

HIP_EXPORT hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int* grid, int* block, hipFunction_t f,
                                                                       size_t dyn, int limit, unsigned int flags) {
  if (flags != hipOccupancyDefault) return ret(hipErrorInvalidValue);
  return hipModuleOccupancyMaxPotentialBlockSize(grid, block, f, dyn, limit);
}
