// SPDX-License-Identifier: MIT
// System libraries opened when first needed (dlopen) instead of at process start.
#pragma once

#include <cerrno>
#include <initializer_list>
#include <mutex>
#include <string>
#include <utility>

#include "base/result.h"

namespace base {

// Opens `soname` (RTLD_NOW | RTLD_LOCAL, never closed) and stores each named symbol's address
// in its slot. Returns "" on success, else what failed: the library (dlerror's words) or the
// first symbol it lacks. A library a program may never use (libdrm_amdgpu's queries, the
// decompressors of compressed offload bundles) costs its mapping and relocation in every
// process that links it, before main; opened here it costs that only where it is used.
std::string open_library(const char* soname, std::initializer_list<std::pair<const char*, void**>> symbols);

// A library's functions `Fns`, opened by `open(Fns&)` (which calls open_library and returns its
// text) on the first call from one call site, then kept: each call site's lambda is a type of its
// own, so each has its own functions, once flag and error. A failure is kept too, and every call
// returns it (ELIBACC) after `what`.
template <class Fns, class Open>
Result<const Fns*> open_once(Open open, const char* what = "") {
  static Fns fns;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [&] { error = open(fns); });
  if (!error.empty()) return Error::msg(what + error, ELIBACC);
  return &fns;
}

}  // namespace base
