// SPDX-License-Identifier: MIT
// The kfdrt extension API that hc needs beyond public HIP (native handles, raw AQL dispatch, timestamps).
#pragma once

// These functions belong to libkfdrt's HIP layer. hc declares them weak, so a program links and
// runs against a libkfdrt that lacks them; each caller checks the address and falls back or
// reports "not supported". All return hipSuccess or a hipError_t and never throw.

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>

extern "C" {

// Start and end of the work behind `event` (recorded with timing enabled), in the device's
// system timestamp domain (the HSA system clock, the one kfdrtGetSystemTicks reads).
__attribute__((weak)) hipError_t kfdrtEventGetTimestamps(hipEvent_t event, uint64_t* start,
                                                         uint64_t* end);

// The current system timestamp and its frequency in Hz (HSA_SYSTEM_INFO_TIMESTAMP[_FREQUENCY]).
__attribute__((weak)) hipError_t kfdrtGetSystemTicks(uint64_t* ticks, uint64_t* frequency_hz);

// The signal (amd_signal_t*) that completes `event`, for completion_future::get_native_handle.
__attribute__((weak)) hipError_t kfdrtEventGetSignal(hipEvent_t event, void** amd_signal);

// The AQL queue (hsa_queue_t* / amd_queue_t*) behind `stream`.
__attribute__((weak)) hipError_t kfdrtStreamGetAqlQueue(hipStream_t stream, void** queue);

// The KFD gpu_id of `device` (kfdrt's agent handle) and its KFD node index.
__attribute__((weak)) hipError_t kfdrtDeviceGetGpuId(int device, uint32_t* gpu_id,
                                                     uint32_t* node);

// Enqueues one raw AQL kernel-dispatch packet on `stream`, ordered after the stream's earlier
// work (the runtime sets the barrier bit or inserts a barrier-AND). `packet` is 64 bytes in the
// hsa_kernel_dispatch_packet_t layout; the runtime copies `kernarg_size` bytes from `kernargs`
// into kernarg memory it owns and overwrites kernarg_address, copies the packet, uses its
// header's fence scopes, and ignores its completion_signal. If `completion` is not null it is
// recorded as completing with the dispatch (so it can be waited on and timed).
// Errors: hipErrorInvalidValue (null packet, type not KERNEL_DISPATCH, kernel_object 0),
// hipErrorInvalidHandle (bad stream), hipErrorOutOfMemory (kernarg space).
__attribute__((weak)) hipError_t kfdrtStreamDispatchAql(hipStream_t stream, const void* packet,
                                                        const void* kernargs,
                                                        size_t kernarg_size,
                                                        hipEvent_t completion);

// Address and size of a global variable by symbol name in the code objects loaded for
// `device` (for accelerator::get_symbol_address). hipErrorNotFound when no such symbol.
__attribute__((weak)) hipError_t kfdrtModuleGetGlobalByName(int device, const char* name,
                                                            void** address, size_t* bytes);

} // extern "C"

// Minimal HSA packet types for dispatch_hsa_kernel, unless the real hsa.h is included first.
#ifndef HSA_RUNTIME_INC_HSA_H_
#ifndef KFDRT_HC_HSA_TYPES
#define KFDRT_HC_HSA_TYPES 1
typedef struct hsa_signal_s { uint64_t handle; } hsa_signal_t;
// layout: HSA runtime specification, "Kernel dispatch packet" (64 bytes).
typedef struct hsa_kernel_dispatch_packet_s {
  uint16_t header;
  uint16_t setup;
  uint16_t workgroup_size_x;
  uint16_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t reserved0;
  uint32_t grid_size_x;
  uint32_t grid_size_y;
  uint32_t grid_size_z;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  void* kernarg_address;
  uint64_t reserved2;
  hsa_signal_t completion_signal;
} hsa_kernel_dispatch_packet_t;
static_assert(sizeof(hsa_kernel_dispatch_packet_t) == 64, "AQL packets are 64 bytes");
#endif
#endif
