// SPDX-License-Identifier: MIT
// kfdrtTraceStart / kfdrtTraceStop: the extension API over the trace recorder (trace/trace.h).
#include "api/hip/runtime.h"
#include "trace/trace.h"

using namespace hip;

HIP_EXPORT hipError_t kfdrtTraceStart(const char* path) {
  if (!path || !*path) return ret(hipErrorInvalidValue);
  if (auto st = trace::start(path); !st) {
    debug_log("kfdrtTraceStart", st.error().message);
    return ret(hipErrorInvalidValue);
  }
  return hipSuccess;
}

HIP_EXPORT hipError_t kfdrtTraceStop(void) {
  if (auto st = trace::stop(); !st) {
    debug_log("kfdrtTraceStop", st.error().message);
    return ret(st.error().kind == base::ErrorKind::Io ? hipErrorUnknown : hipErrorInvalidValue);
  }
  return hipSuccess;
}
