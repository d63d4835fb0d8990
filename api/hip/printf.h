// SPDX-License-Identifier: MIT
// Device printf: turns the message a kernel's printf sends over hostcall into the text it prints.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace hip {

// A device printf message, as ockl's __ockl_printf_* build it: element 0 names the stream (0
// stdout, 1 stderr), then the format string (NUL-terminated, 8 bytes per element, zero padded),
// then one element per argument: integers zero-extended from 32 or 64 bits, doubles as their
// bits, pointers as addresses, and each %s argument as a NUL-terminated string padded to whole
// elements. `*` widths and precisions take an argument of their own, as in C.
struct PrintfOutput {
  int stream = 0;     // 0 stdout, 1 stderr
  std::string text;   // what printf prints
  std::string error;  // non-empty when the message does not match its format
};

PrintfOutput format_device_printf(std::span<const uint64_t> message);

}  // namespace hip
