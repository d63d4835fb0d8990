// SPDX-License-Identifier: MIT
// How many bytes can be read from a pointer into a mapping: bounds a registered fat binary whose size no one gives.
#include <link.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "api/hip/code.h"

namespace hip {
namespace {

struct Search {
  uintptr_t p = 0;
  size_t extent = 0;
  bool found = false;
};

// A loaded object's PT_LOAD segment holding the pointer (a fat binary is in its program's
// .hip_fatbin section): the bytes to the end of the segment's memory image.
int in_segment(dl_phdr_info* info, size_t, void* arg) {
  auto* s = static_cast<Search*>(arg);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_R)) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr, end = begin + ph.p_memsz;
    if (s->p >= begin && s->p < end) {
      s->extent = end - s->p;
      s->found = true;
      return 1;
    }
  }
  return 0;
}

// Any other readable mapping (an image a program built at run time): /proc/self/maps.
size_t in_mapping(uintptr_t p) {
  FILE* f = std::fopen("/proc/self/maps", "re");
  if (!f) return 0;
  size_t extent = 0;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    uintptr_t begin = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &begin, &end, perms) != 3) continue;
    if (p >= begin && p < end) {
      extent = perms[0] == 'r' ? end - p : 0;
      break;
    }
  }
  std::fclose(f);
  return extent;
}

}  // namespace

size_t mapped_extent(const void* p) {
  if (!p) return 0;
  Search s;
  s.p = reinterpret_cast<uintptr_t>(p);
  dl_iterate_phdr(in_segment, &s);
  return s.found ? s.extent : in_mapping(s.p);
}

}  // namespace hip
