// SPDX-License-Identifier: MIT
// amdkfd UAPI facts newer than Debian 12's <linux/kfd_ioctl.h> (1.11), shared by kfd/ and emu/.
#pragma once

#include <linux/kfd_ioctl.h>

#include <cstdint>

namespace kfd::uapi {

// Allocation flags added after 1.11 (bit numbers: kfd_ioctl.h of Linux 6.x).
constexpr uint32_t kAllocExtCoherent = 1u << 24;
constexpr uint32_t kAllocContiguous = 1u << 23;  // KFD >= 1.16

// AMDKFD_IOC_RUNTIME_ENABLE (KFD >= 1.13), nr 0x25.
struct RuntimeEnableArgs {
  uint64_t r_debug;            // to KFD: address of the loader's r_debug, 0 if none
  uint32_t mode_mask;          // to KFD: kRuntimeEnable*
  uint32_t capabilities_mask;  // from KFD
};
static_assert(sizeof(RuntimeEnableArgs) == 16);
constexpr uint32_t kRuntimeEnableModeEnable = 1u << 0;
constexpr uint32_t kRuntimeEnableModeTtmpSave = 1u << 1;
constexpr unsigned long kIocRuntimeEnable = AMDKFD_IOWR(0x25, RuntimeEnableArgs);

// Numbers of the newer ioctls kfdrt neither calls nor emulates (their arguments are not used).
constexpr unsigned kIocNrExportDmabuf = 0x24;  // AMDKFD_IOC_EXPORT_DMABUF, KFD >= 1.12
constexpr unsigned kIocNrDbgTrap = 0x26;       // AMDKFD_IOC_DBG_TRAP, KFD >= 1.13

// kfd_event_data's union gained signal_event_data.last_event_age in 1.14; same size.
struct SignalEventData {
  uint64_t last_event_age;
};
static_assert(sizeof(SignalEventData) <= sizeof(kfd_hsa_memory_exception_data));

// mmap offsets on /dev/kfd: type in bits 62..63, gpu_id from bit 46 (kfd_priv.h).
constexpr unsigned kMmapTypeShift = 62;
constexpr uint64_t kMmapTypeMask = 3ull << kMmapTypeShift;
constexpr uint64_t kMmapTypeDoorbell = 3ull << kMmapTypeShift;
constexpr uint64_t kMmapTypeEvents = 2ull << kMmapTypeShift;
constexpr uint64_t kMmapTypeReserved = 1ull << kMmapTypeShift;
constexpr uint64_t kMmapTypeMmio = 0ull << kMmapTypeShift;
constexpr unsigned kMmapGpuIdShift = 46;
constexpr uint64_t kMmapGpuIdMask = ((1ull << 16) - 1) << kMmapGpuIdShift;
constexpr uint64_t mmap_offset(uint64_t type, uint32_t gpu_id) {
  return type | (uint64_t(gpu_id) << kMmapGpuIdShift);
}
constexpr uint32_t mmap_gpu_id(uint64_t offset) {
  return uint32_t((offset & kMmapGpuIdMask) >> kMmapGpuIdShift);
}

// Doorbells: gfx9+ gives each process 1024 doorbells of 8 bytes (an 8 KiB slice; kfd_priv.h
// KFD_MAX_NUM_OF_QUEUES_PER_PROCESS, kfd_doorbell.c).
constexpr uint64_t kDoorbellSliceSize = 8192;
constexpr uint32_t kDoorbellSize = 8;

// The events page: 4096 slots of 8 bytes (kfd_ioctl.h KFD_SIGNAL_EVENT_LIMIT); slot 0 is reserved.
constexpr uint32_t kEventSlots = 4096;
constexpr uint64_t kEventPageSize = kEventSlots * 8;

}  // namespace kfd::uapi
