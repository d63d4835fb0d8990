// SPDX-License-Identifier: MIT
// Checks that a HIP test program runs on ROCm's own runtime (libamdhip64 and libhsa-runtime64),
// not on kfdrt: the rocm suite's programs are built with Debian's hipcc to prove just that.
#pragma once

#include <link.h>

#include <cstring>
#include <string>

#include "check.h"

namespace rocm_stack {

struct Loaded {
  bool amdhip = false, hsa = false, kfdrt = false;
};

// kfdrt builds a libamdhip64.so.5 of its own (api/compat, installed under <libdir>/kfdrt/hip5):
// that one, or libkfdrt itself, is not ROCm's runtime. ROCm's libamdhip64 runs on ROCr, which
// kfdrt never loads.
inline int note_library(dl_phdr_info* info, size_t, void* data) {
  auto* l = static_cast<Loaded*>(data);
  const char* name = info->dlpi_name ? info->dlpi_name : "";
  bool kfdrt_hip = std::strstr(name, "/kfdrt/hip5/") || std::strstr(name, "/api/compat/");
  l->amdhip |= std::strstr(name, "libamdhip64.so") != nullptr && !kfdrt_hip;
  l->hsa |= std::strstr(name, "libhsa-runtime64.so") != nullptr;
  l->kfdrt |= kfdrt_hip || std::strstr(name, "libkfdrt") != nullptr;
  return 0;
}

// Call after the first HIP call (ROCclr loads the HSA runtime then).
inline void expect_rocm_runtime() {
  Loaded l;
  dl_iterate_phdr(note_library, &l);
  CHECK(l.amdhip);  // ROCm's HIP runtime ...
  CHECK(l.hsa);     // ... on ROCm's HSA runtime ...
  CHECK(!l.kfdrt);  // ... and not kfdrt
}

}  // namespace rocm_stack
