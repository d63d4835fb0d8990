// SPDX-License-Identifier: MIT
// Small helpers for base::Error messages.
#include "base/result.h"

#include <cerrno>
#include <cstdio>

namespace base {

const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Other: return "error";
    case ErrorKind::InvalidArgument: return "invalid argument";
    case ErrorKind::OutOfMemory: return "out of memory";
    case ErrorKind::DeviceFault: return "device fault";
    case ErrorKind::QueueError: return "queue error";
    case ErrorKind::NotSupported: return "not supported";
    case ErrorKind::NoDevice: return "no device";
    case ErrorKind::Timeout: return "timeout";
    case ErrorKind::Busy: return "busy";
    case ErrorKind::Io: return "I/O error";
    case ErrorKind::InvalidImage: return "invalid image";
  }
  return "error";
}

ErrorKind kind_of_errno(int e) {
  switch (e) {
    case 0: return ErrorKind::Other;
    case EINVAL: case ERANGE: case E2BIG: case EOVERFLOW: return ErrorKind::InvalidArgument;
    case ENOMEM: case ENOSPC: return ErrorKind::OutOfMemory;
    case ENOTSUP: case ENOTTY: case ENOSYS: return ErrorKind::NotSupported;
    case ENODEV: case ENXIO: return ErrorKind::NoDevice;
    case ETIMEDOUT: return ErrorKind::Timeout;
    case EBUSY: case EEXIST: return ErrorKind::Busy;
    case ENOEXEC: return ErrorKind::InvalidImage;
    default: return ErrorKind::Io;
  }
}

std::string hex(unsigned long long v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", v);
  return buf;
}

}  // namespace base
