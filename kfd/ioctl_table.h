// SPDX-License-Identifier: MIT
// The amdkfd ioctl table: number, name, argument struct and the KFD version that introduced each
// ioctl, for kfd::Kfd's wrappers and the emulator's dispatch (numbers: <linux/kfd_ioctl.h>).
#pragma once

#include <linux/kfd_ioctl.h>

#include <cstddef>
#include <cstdint>

#include "kfd/uapi_ext.h"

namespace kfd {

// KFD 1.x minor versions of the ioctls (Linux kfd_ioctl.h KFD_IOCTL_MINOR_VERSION change log).
// kInitialMinor: present before the log started gating ioctls (1.1, the initial version).
constexpr uint32_t kInitialMinor = 1;

// One row of the table, type-erased: what a name lookup and the emulator's dispatch need.
struct IoctlInfo {
  unsigned nr = 0;             // _IOC_NR of the request
  unsigned long request = 0;   // the full request; 0 when the table does not describe its arguments
  const char* name = nullptr;  // "AMDKFD_IOC_..." as the kernel header spells it
  size_t arg_size = 0;         // the kernel's argument struct size (0: not described here)
  uint32_t min_minor = 0;      // first KFD 1.minor that knows it
  bool deprecated = false;     // the DBG_* ioctls of the old debugger: the kernel answers EPERM
};

// One ioctl with its argument struct, for typed calls: Args is what the request's size encodes.
template <class A>
struct Ioctl {
  using Args = A;
  unsigned long request;
  const char* name;
  uint32_t min_minor;
  constexpr unsigned nr() const { return _IOC_NR(request); }
  constexpr IoctlInfo info() const { return {nr(), request, name, sizeof(Args), min_minor, false}; }
};

#define KFDRT_IOCTL(NAME) AMDKFD_IOC_##NAME, "AMDKFD_IOC_" #NAME

namespace ioctls {
inline constexpr Ioctl<kfd_ioctl_get_version_args> kGetVersion{KFDRT_IOCTL(GET_VERSION), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_create_queue_args> kCreateQueue{KFDRT_IOCTL(CREATE_QUEUE), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_destroy_queue_args> kDestroyQueue{KFDRT_IOCTL(DESTROY_QUEUE), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_set_memory_policy_args> kSetMemoryPolicy{KFDRT_IOCTL(SET_MEMORY_POLICY),
                                                                          kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_get_clock_counters_args> kGetClockCounters{KFDRT_IOCTL(GET_CLOCK_COUNTERS),
                                                                            kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_get_process_apertures_args> kGetProcessApertures{
    KFDRT_IOCTL(GET_PROCESS_APERTURES), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_update_queue_args> kUpdateQueue{KFDRT_IOCTL(UPDATE_QUEUE), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_create_event_args> kCreateEvent{KFDRT_IOCTL(CREATE_EVENT), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_destroy_event_args> kDestroyEvent{KFDRT_IOCTL(DESTROY_EVENT), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_set_event_args> kSetEvent{KFDRT_IOCTL(SET_EVENT), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_reset_event_args> kResetEvent{KFDRT_IOCTL(RESET_EVENT), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_wait_events_args> kWaitEvents{KFDRT_IOCTL(WAIT_EVENTS), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_set_scratch_backing_va_args> kSetScratchBackingVa{
    KFDRT_IOCTL(SET_SCRATCH_BACKING_VA), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_get_tile_config_args> kGetTileConfig{KFDRT_IOCTL(GET_TILE_CONFIG), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_set_trap_handler_args> kSetTrapHandler{KFDRT_IOCTL(SET_TRAP_HANDLER),
                                                                        kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_get_process_apertures_new_args> kGetProcessAperturesNew{
    KFDRT_IOCTL(GET_PROCESS_APERTURES_NEW), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_acquire_vm_args> kAcquireVm{KFDRT_IOCTL(ACQUIRE_VM), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_alloc_memory_of_gpu_args> kAllocMemoryOfGpu{KFDRT_IOCTL(ALLOC_MEMORY_OF_GPU),
                                                                            kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_free_memory_of_gpu_args> kFreeMemoryOfGpu{KFDRT_IOCTL(FREE_MEMORY_OF_GPU),
                                                                          kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_map_memory_to_gpu_args> kMapMemoryToGpu{KFDRT_IOCTL(MAP_MEMORY_TO_GPU),
                                                                         kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_unmap_memory_from_gpu_args> kUnmapMemoryFromGpu{
    KFDRT_IOCTL(UNMAP_MEMORY_FROM_GPU), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_set_cu_mask_args> kSetCuMask{KFDRT_IOCTL(SET_CU_MASK), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_get_queue_wave_state_args> kGetQueueWaveState{
    KFDRT_IOCTL(GET_QUEUE_WAVE_STATE), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_get_dmabuf_info_args> kGetDmabufInfo{KFDRT_IOCTL(GET_DMABUF_INFO), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_import_dmabuf_args> kImportDmabuf{KFDRT_IOCTL(IMPORT_DMABUF), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_alloc_queue_gws_args> kAllocQueueGws{KFDRT_IOCTL(ALLOC_QUEUE_GWS), kInitialMinor};
inline constexpr Ioctl<kfd_ioctl_smi_events_args> kSmiEvents{KFDRT_IOCTL(SMI_EVENTS), 3};
inline constexpr Ioctl<kfd_ioctl_svm_args> kSvm{KFDRT_IOCTL(SVM), 5};
inline constexpr Ioctl<kfd_ioctl_set_xnack_mode_args> kSetXnackMode{KFDRT_IOCTL(SET_XNACK_MODE), 5};
inline constexpr Ioctl<kfd_ioctl_criu_args> kCriuOp{KFDRT_IOCTL(CRIU_OP), 7};
inline constexpr Ioctl<kfd_ioctl_get_available_memory_args> kAvailableMemory{KFDRT_IOCTL(AVAILABLE_MEMORY), 9};
// Newer than Debian 12's header: the request is in uapi_ext.h.
inline constexpr Ioctl<uapi::RuntimeEnableArgs> kRuntimeEnable{uapi::kIocRuntimeEnable,
                                                               "AMDKFD_IOC_RUNTIME_ENABLE", 13};
}  // namespace ioctls

#undef KFDRT_IOCTL

// A row of the old debugger's ioctls (deprecated; their argument structs are not used).
#define KFDRT_DEPRECATED_IOCTL(NAME) \
  IoctlInfo { _IOC_NR(AMDKFD_IOC_##NAME), 0, "AMDKFD_IOC_" #NAME, 0, kInitialMinor, true }

// Every ioctl number amdkfd defines, indexed by number (row 0 is unused).
inline constexpr IoctlInfo kIoctlTable[] = {
    IoctlInfo{},
    ioctls::kGetVersion.info(),
    ioctls::kCreateQueue.info(),
    ioctls::kDestroyQueue.info(),
    ioctls::kSetMemoryPolicy.info(),
    ioctls::kGetClockCounters.info(),
    ioctls::kGetProcessApertures.info(),
    ioctls::kUpdateQueue.info(),
    ioctls::kCreateEvent.info(),
    ioctls::kDestroyEvent.info(),
    ioctls::kSetEvent.info(),
    ioctls::kResetEvent.info(),
    ioctls::kWaitEvents.info(),
    KFDRT_DEPRECATED_IOCTL(DBG_REGISTER_DEPRECATED),
    KFDRT_DEPRECATED_IOCTL(DBG_UNREGISTER_DEPRECATED),
    KFDRT_DEPRECATED_IOCTL(DBG_ADDRESS_WATCH_DEPRECATED),
    KFDRT_DEPRECATED_IOCTL(DBG_WAVE_CONTROL_DEPRECATED),
    ioctls::kSetScratchBackingVa.info(),
    ioctls::kGetTileConfig.info(),
    ioctls::kSetTrapHandler.info(),
    ioctls::kGetProcessAperturesNew.info(),
    ioctls::kAcquireVm.info(),
    ioctls::kAllocMemoryOfGpu.info(),
    ioctls::kFreeMemoryOfGpu.info(),
    ioctls::kMapMemoryToGpu.info(),
    ioctls::kUnmapMemoryFromGpu.info(),
    ioctls::kSetCuMask.info(),
    ioctls::kGetQueueWaveState.info(),
    ioctls::kGetDmabufInfo.info(),
    ioctls::kImportDmabuf.info(),
    ioctls::kAllocQueueGws.info(),
    ioctls::kSmiEvents.info(),
    ioctls::kSvm.info(),
    ioctls::kSetXnackMode.info(),
    ioctls::kCriuOp.info(),
    ioctls::kAvailableMemory.info(),
    IoctlInfo{uapi::kIocNrExportDmabuf, 0, "AMDKFD_IOC_EXPORT_DMABUF", 0, 12, false},
    ioctls::kRuntimeEnable.info(),
    IoctlInfo{uapi::kIocNrDbgTrap, 0, "AMDKFD_IOC_DBG_TRAP", 0, 13, false},
};
constexpr unsigned kIoctlCount = sizeof(kIoctlTable) / sizeof(kIoctlTable[0]);

#undef KFDRT_DEPRECATED_IOCTL

// The table's rows sit at their numbers, and a request's size is its argument struct's.
constexpr bool ioctl_table_is_consistent() {
  for (unsigned i = 1; i < kIoctlCount; ++i) {
    const IoctlInfo& e = kIoctlTable[i];
    if (e.nr != i || !e.name) return false;
    if (e.request && (_IOC_NR(e.request) != i || _IOC_TYPE(e.request) != AMDKFD_IOCTL_BASE ||
                      _IOC_SIZE(e.request) != e.arg_size))
      return false;
  }
  return true;
}
static_assert(ioctl_table_is_consistent());

// The row of an ioctl number, or nullptr when amdkfd defines no such number.
constexpr const IoctlInfo* ioctl_info(unsigned nr) {
  return nr > 0 && nr < kIoctlCount ? &kIoctlTable[nr] : nullptr;
}

}  // namespace kfd
