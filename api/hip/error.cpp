// SPDX-License-Identifier: MIT
// Error codes of the HIP runtime: per-thread last error, names and descriptions, error mapping.
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <mutex>
#include <set>

#include "api/hip/common.h"

namespace hip {
namespace {

thread_local hipError_t t_last_error = hipSuccess;

struct ErrorText {
  hipError_t code;
  const char* name;
  const char* text;
};

// Descriptions in HIP's spirit (hipGetErrorString); names are the enumerator spellings.
constexpr ErrorText kErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "driver shutting down"},
    {hipErrorProfilerDisabled, "hipErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {hipErrorProfilerNotInitialized, "hipErrorProfilerNotInitialized", "profiler is not initialized"},
    {hipErrorProfilerAlreadyStarted, "hipErrorProfilerAlreadyStarted", "profiler already started"},
    {hipErrorProfilerAlreadyStopped, "hipErrorProfilerAlreadyStopped", "profiler already stopped"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid configuration argument"},
    {hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue", "invalid pitch argument"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol", "invalid device symbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
    {hipErrorMissingConfiguration, "hipErrorMissingConfiguration", "__global__ function call is not configured"},
    {hipErrorPriorLaunchFailure, "hipErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction", "invalid device function"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid device context"},
    {hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent", "context is already current context"},
    {hipErrorMapFailed, "hipErrorMapFailed", "mapping of buffer object failed"},
    {hipErrorUnmapFailed, "hipErrorUnmapFailed", "unmapping of buffer object failed"},
    {hipErrorArrayIsMapped, "hipErrorArrayIsMapped", "array is mapped"},
    {hipErrorAlreadyMapped, "hipErrorAlreadyMapped", "resource already mapped"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device"},
    {hipErrorAlreadyAcquired, "hipErrorAlreadyAcquired", "resource already acquired"},
    {hipErrorNotMapped, "hipErrorNotMapped", "resource not mapped"},
    {hipErrorNotMappedAsArray, "hipErrorNotMappedAsArray", "resource not mapped as array"},
    {hipErrorNotMappedAsPointer, "hipErrorNotMappedAsPointer", "resource not mapped as pointer"},
    {hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable", "uncorrectable ECC error encountered"},
    {hipErrorUnsupportedLimit, "hipErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse", "exclusive-thread device already in use by a different thread"},
    {hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported", "peer access is not supported between these two devices"},
    {hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile", "invalid kernel file"},
    {hipErrorInvalidGraphicsContext, "hipErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context"},
    {hipErrorInvalidSource, "hipErrorInvalidSource", "device kernel image is invalid"},
    {hipErrorFileNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorSharedObjectSymbolNotFound, "hipErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed", "shared object initialization failed"},
    {hipErrorOperatingSystem, "hipErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorIllegalState, "hipErrorIllegalState", "the operation cannot be performed in the present state"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut", "the launch timed out and was terminated"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed", "context is destroyed"},
    {hipErrorAssert, "hipErrorAssert", "device-side assert triggered"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorCooperativeLaunchTooLarge, "hipErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {hipErrorStreamCaptureInvalidated, "hipErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {hipErrorStreamCaptureMerge, "hipErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"},
    {hipErrorStreamCaptureUnmatched, "hipErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"},
    {hipErrorStreamCaptureUnjoined, "hipErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {hipErrorStreamCaptureIsolation, "hipErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"},
    {hipErrorStreamCaptureImplicit, "hipErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream"},
    {hipErrorCapturedEvent, "hipErrorCapturedEvent", "operation not permitted on an event last recorded in a capturing stream"},
    {hipErrorStreamCaptureWrongThread, "hipErrorStreamCaptureWrongThread", "attempt to terminate a thread-local capture sequence from another thread"},
    {hipErrorGraphExecUpdateFailure, "hipErrorGraphExecUpdateFailure", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {hipErrorInvalidChannelDescriptor, "hipErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {hipErrorInvalidTexture, "hipErrorInvalidTexture", "invalid texture"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
    {hipErrorRuntimeMemory, "hipErrorRuntimeMemory", "runtime memory call returned error"},
    {hipErrorRuntimeOther, "hipErrorRuntimeOther", "runtime call other than memory returned error"},
};

const ErrorText* find(hipError_t e) {
  for (const ErrorText& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}

}  // namespace

hipError_t record_error(hipError_t e, const char* api) {
  t_last_error = e;
  debug_log(api, std::string("returns ") + error_name(e) + " (" + error_string(e) + ")");
  return e;
}

hipError_t peek_last_error() { return t_last_error; }

hipError_t take_last_error() {
  hipError_t e = t_last_error;
  t_last_error = hipSuccess;
  return e;
}

hipError_t from_error(const base::Error& e, hipError_t fallback) {
  using base::ErrorKind;
  switch (e.kind) {
    // A page fault (EFAULT) is an illegal address; a GPU reset ends the launch.
    case ErrorKind::DeviceFault: return e.err == EFAULT ? hipErrorIllegalAddress : hipErrorLaunchFailure;
    case ErrorKind::QueueError: return hipErrorLaunchFailure;
    case ErrorKind::OutOfMemory: return hipErrorOutOfMemory;
    case ErrorKind::NoDevice: return hipErrorNoDevice;
    default: return fallback;
  }
}

void report_device_error(const char* api, const base::Error& e) {
  static std::atomic<bool> reported{false};
  if (reported.exchange(true)) return;
  std::fprintf(stderr, "kfdrt: %s: %s\n", api, e.message.c_str());
}

void warn_once(const char* api, const std::string& why) {
  static std::mutex mu;
  static std::set<std::string>* said = new std::set<std::string>;  // kept for the process's life
  std::lock_guard lk(mu);
  if (said->insert(why).second) std::fprintf(stderr, "kfdrt: warning: %s: %s\n", api, why.c_str());
}

void debug_log(const char* api, const std::string& why) {
  static const bool on = [] {
    const char* v = std::getenv("HIP_KFDRT_DEBUG");
    return v && *v && *v != '0';
  }();
  if (on) std::fprintf(stderr, "kfdrt: %s: %s\n", api, why.c_str());
}

const char* error_name(hipError_t e) {
  const ErrorText* t = find(e);
  return t ? t->name : "hipErrorUnknown";
}

const char* error_string(hipError_t e) {
  const ErrorText* t = find(e);
  return t ? t->text : "unknown error";
}

bool find_known(hipError_t e) { return find(e) != nullptr; }

}  // namespace hip

HIP_EXPORT hipError_t hipGetLastError(void) { return hip::take_last_error(); }
HIP_EXPORT hipError_t hipPeekAtLastError(void) { return hip::peek_last_error(); }
HIP_EXPORT const char* hipGetErrorName(hipError_t e) { return hip::error_name(e); }
HIP_EXPORT const char* hipGetErrorString(hipError_t e) { return hip::error_string(e); }

HIP_EXPORT hipError_t hipDrvGetErrorName(hipError_t e, const char** s) {
  if (!s) return hip::ret(hipErrorInvalidValue);
  const char* n = hip::error_name(e);
  *s = n;
  return hip::find_known(e) ? hipSuccess : hip::ret(hipErrorInvalidValue);
}

HIP_EXPORT hipError_t hipDrvGetErrorString(hipError_t e, const char** s) {
  if (!s) return hip::ret(hipErrorInvalidValue);
  *s = hip::error_string(e);
  return hip::find_known(e) ? hipSuccess : hip::ret(hipErrorInvalidValue);
}
