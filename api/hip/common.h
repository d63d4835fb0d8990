// SPDX-License-Identifier: MIT
// Shared helpers of the HIP runtime: error recording, base::Error -> hipError_t, export macro.
#pragma once

#include <cstdio>
#include <string>

#include "hip/hip_runtime_api.h"
#include "base/result.h"

// Every public entry point is extern "C" with default visibility.
#define HIP_EXPORT extern "C" __attribute__((visibility("default")))
// The few that HIP declares as C++ functions (hip_ext.h), exported under their C++ names.
#define HIP_EXPORT_CXX __attribute__((visibility("default")))

namespace hip {

// Records `e` as the calling thread's last error when it is a failure (hipGetLastError reads
// and clears it; success never overwrites a recorded failure) and returns it. With
// HIP_KFDRT_DEBUG=1 a failure is also printed with the entry point that returned it (`api`
// defaults to the calling function's name, the HIP_EXPORT function itself).
hipError_t record_error(hipError_t e, const char* api);
inline hipError_t ret(hipError_t e, const char* api = __builtin_FUNCTION()) {
  if (e == hipSuccess) [[likely]] return e;
  return record_error(e, api);
}

// The last error of this thread (hipPeekAtLastError) and its reset (hipGetLastError).
hipError_t peek_last_error();
hipError_t take_last_error();

// Maps a lower layer's error to HIP's code: GPU memory faults -> hipErrorIllegalAddress, other
// device errors -> hipErrorLaunchFailure, ENOMEM -> hipErrorOutOfMemory, ENOENT/ENODEV ->
// hipErrorNoDevice, otherwise `fallback`.
hipError_t from_error(const base::Error& e, hipError_t fallback);

// Reports a device-side failure once per process on stderr ("kfdrt: <api>: <message>").
void report_device_error(const char* api, const base::Error& e);

// HIP_KFDRT_DEBUG=1 prints the cause of every failing call on stderr.
void debug_log(const char* api, const std::string& why);
// Says `why` on stderr the first time this `why` comes (a degraded but working state whose cause
// the user should see without HIP_KFDRT_DEBUG).
void warn_once(const char* api, const std::string& why);

const char* error_name(hipError_t e);
const char* error_string(hipError_t e);
bool find_known(hipError_t e);

}  // namespace hip
