// SPDX-License-Identifier: MIT
// System libraries opened when first needed (dlopen) instead of at process start.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

namespace base {

// Opens `soname` (RTLD_NOW | RTLD_LOCAL, never closed) and stores each named symbol's address
// in its slot. Returns "" on success, else what failed: the library (dlerror's words) or the
// first symbol it lacks. A library a program may never use (libdrm_amdgpu's queries, the
// decompressors of compressed offload bundles) costs its mapping and relocation in every
// process that links it, before main; opened here it costs that only where it is used.
std::string open_library(const char* soname, std::initializer_list<std::pair<const char*, void**>> symbols);

}  // namespace base
