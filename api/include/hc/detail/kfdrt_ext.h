// SPDX-License-Identifier: MIT
// The kfdrt extension API that hc needs beyond public HIP (native handles, raw AQL dispatch, timestamps).
#pragma once

// These functions belong to libkfdrt's HIP layer (api/hip/ext_api.cpp and friends), which always
// exports them. All return hipSuccess or a hipError_t, never throw, and check every argument.
// "System ticks" are the HSA system timestamp (HSA_SYSTEM_INFO_TIMESTAMP): the system clock KFD
// reports in GET_CLOCK_COUNTERS (system_clock_counter at system_clock_freq Hz, nanoseconds since
// boot on Linux), the same for every device.

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>

extern "C" {

// Start and end of the work behind `event`, in system ticks: the start/end timestamps the
// command processor wrote into the event's completion signal (the device's GPU counter),
// converted through a fresh GET_CLOCK_COUNTERS sample. For an event recorded with
// hipEventRecord they are the marker's own (its start is when the work before it had finished);
// for kfdrtStreamDispatchAql's completion event they are the kernel's.
// Errors: hipErrorInvalidValue (null start or end), hipErrorInvalidHandle (bad event, event
// created with hipEventDisableTiming, never recorded), hipErrorNotReady (not completed yet),
// hipErrorNotSupported (the device wrote no timestamps).
hipError_t kfdrtEventGetTimestamps(hipEvent_t event, uint64_t* start, uint64_t* end);

// The current system tick count and its frequency in Hz (HSA_SYSTEM_INFO_TIMESTAMP[_FREQUENCY]).
// Errors: hipErrorInvalidValue (a null pointer), hipErrorNoDevice (no GPU).
hipError_t kfdrtGetSystemTicks(uint64_t* ticks, uint64_t* frequency_hz);

// Starts recording a trace of what kfdrt submits and waits for (every AQL, PM4 and copy engine
// packet with its device start/end converted to system time, HIP calls, host waits) into
// `path`, written as Chrome trace-event JSON (Perfetto, chrome://tracing) by kfdrtTraceStop or
// at exit. KFDRT_TRACE=path does the same from the start of the process.
// Errors: hipErrorInvalidValue (null or empty path, or a trace already recording).
hipError_t kfdrtTraceStart(const char* path);
// Ends the trace kfdrtTraceStart (or KFDRT_TRACE) began and writes its file.
// Errors: hipErrorInvalidValue (no trace recording), hipErrorUnknown (the file could not be written).
hipError_t kfdrtTraceStop(void);

// The signal (amd_signal_t*, an hsa_signal_t's handle) that the last record of `event`
// completes: its value is 1 until the recorded work is done, then 0. It stays valid until the
// event is recorded again or destroyed. Errors: hipErrorInvalidValue (null amd_signal),
// hipErrorInvalidHandle (bad or never-recorded event).
hipError_t kfdrtEventGetSignal(hipEvent_t event, void** amd_signal);

// The AQL queue (hsa_queue_t* / amd_queue_t*) behind `stream`.
// Errors: hipErrorInvalidValue (null queue), hipErrorInvalidHandle (bad stream).
hipError_t kfdrtStreamGetAqlQueue(hipStream_t stream, void** queue);

// The KFD gpu_id of `device` (kfdrt's agent handle) and its KFD topology node index (`node` may
// be null). Errors: hipErrorInvalidValue (null gpu_id), hipErrorInvalidDevice (bad index).
hipError_t kfdrtDeviceGetGpuId(int device, uint32_t* gpu_id, uint32_t* node);

// The kernel object (kernel descriptor address, for a dispatch packet's kernel_object) of a
// __global__ function (its host address, as given to hipLaunchKernel) on `device`, loading its
// code object there if needed, and the sizes a packet needs: the kernel-argument segment
// (explicit and hidden arguments), the static group segment and the private segment per
// work-item (each output but kernel_object may be null). Errors: hipErrorInvalidValue (null
// kernel_object), hipErrorInvalidDeviceFunction (not a registered kernel), hipErrorInvalidDevice,
// hipErrorNoBinaryForGpu (no code object for the device).
hipError_t kfdrtFuncGetKernelObject(const void* function, int device, uint64_t* kernel_object,
                                    uint32_t* kernarg_size, uint32_t* group_segment_size,
                                    uint32_t* private_segment_size);

// Enqueues one raw AQL kernel-dispatch packet on `stream`, ordered after the stream's earlier
// work (the runtime sets the barrier bit and adds the stream's dependencies). `packet` is 64
// bytes in the hsa_kernel_dispatch_packet_t layout: grid sizes in work-items (partial
// workgroups allowed), unused dimensions 1. The runtime copies `kernarg_size` bytes from
// `kernargs` into kernel-argument memory it owns and overwrites kernarg_address, uses the
// header's fence scopes, and ignores its completion_signal. If `completion` is not null it is
// recorded as completing with the dispatch (waited on and timed like any recorded event; its
// timestamps are the kernel's own).
// Errors: hipErrorInvalidValue (null packet; type not KERNEL_DISPATCH; reserved fence scope;
// kernel_object not a kernel descriptor the runtime loaded for the stream's device; kernargs
// null with a nonzero kernarg_size; kernarg_size above 64 KiB), hipErrorInvalidConfiguration
// (setup dimensions 0, a zero or too large workgroup or grid size, an unused dimension not 1,
// group segment above the device's shared memory per block, private segment above 131056
// bytes), hipErrorInvalidHandle (bad stream or completion event), hipErrorOutOfMemory.
hipError_t kfdrtStreamDispatchAql(hipStream_t stream, const void* packet, const void* kernargs,
                                  size_t kernarg_size, hipEvent_t completion);

// Address and size of a global variable by symbol name in the code objects loaded for
// `device` (for accelerator::get_symbol_address). hipErrorNotFound when no such symbol.
hipError_t kfdrtModuleGetGlobalByName(int device, const char* name, void** address, size_t* bytes);

} // extern "C"

// Minimal HSA packet types for dispatch_hsa_kernel, unless the real hsa.h is included first.
#ifndef HSA_RUNTIME_INC_HSA_H_
#ifndef KFDRT_HC_HSA_TYPES
#define KFDRT_HC_HSA_TYPES 1
typedef struct hsa_signal_s { uint64_t handle; } hsa_signal_t;
typedef struct hsa_agent_s { uint64_t handle; } hsa_agent_t;
// values: HSA runtime specification, "Packet header" and "Kernel dispatch packet".
typedef enum { HSA_PACKET_TYPE_KERNEL_DISPATCH = 2, HSA_PACKET_TYPE_BARRIER_AND = 3 } hsa_packet_type_t;
typedef enum {
  HSA_PACKET_HEADER_TYPE = 0,
  HSA_PACKET_HEADER_BARRIER = 8,
  HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE = 9,
  HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE = 11,
} hsa_packet_header_t;
typedef enum { HSA_FENCE_SCOPE_NONE = 0, HSA_FENCE_SCOPE_AGENT = 1, HSA_FENCE_SCOPE_SYSTEM = 2 } hsa_fence_scope_t;
typedef enum { HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS = 0 } hsa_kernel_dispatch_packet_setup_t;
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
