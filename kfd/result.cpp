// SPDX-License-Identifier: MIT
// Small helpers for kfd::Error messages.
#include "kfd/result.h"

#include <cstdio>

namespace kfd {

std::string hex(unsigned long long v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", v);
  return buf;
}

}  // namespace kfd
