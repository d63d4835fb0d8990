// SPDX-License-Identifier: MIT
// System libraries opened when first needed.
#include "base/dynlib.h"

#include <dlfcn.h>

namespace base {

std::string open_library(const char* soname, std::initializer_list<std::pair<const char*, void**>> symbols) {
  void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    return std::string("cannot open ") + soname + (why ? std::string(": ") + why : std::string());
  }
  for (const auto& [name, slot] : symbols) {
    void* p = dlsym(h, name);
    if (!p) return std::string(soname) + " has no symbol " + name;
    *slot = p;
  }
  return {};
}

}  // namespace base
