// SPDX-License-Identifier: MIT
// libFuzzer target: ELF and code object parsing, then loading into host memory.
#include <cstddef>
#include <cstdint>

#include "loader/load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  loader::Bytes in(data, size);
  auto elf = loader::ElfFile::parse(in);
  if (elf.ok()) {
    (void)elf->symbols();
    (void)elf->notes();
    for (const auto& s : elf->sections())
      if (s.type == loader::kShtRela) (void)elf->relocations(s);
  }
  auto co = loader::CodeObject::parse(in);
  if (!co.ok()) return 0;
  loader::HostSegmentMemory mem(64u << 20);  // a mutated p_memsz may ask for gigabytes
  auto lco = loader::LoadedCodeObject::load(*co, mem);
  if (lco.ok())
    for (const auto& k : co->kernels()) (void)lco->kernel_object(k.meta.name);
  return 0;
}
