// SPDX-License-Identifier: MIT
// Finding the HIP fat binary (an offload bundle) inside a host ELF executable or shared library.
#include <cstring>

#include "loader/bundle.h"
#include "loader/elf.h"

namespace loader {
namespace {

constexpr uint32_t kRX86_64Relative = 8;  // x86-64 psABI: B + A

// The bytes from vaddr to the end of the section that holds it.
kfd::Result<Bytes> bytes_at_vaddr(const ElfFile& elf, uint64_t vaddr) {
  for (const Section& s : elf.sections()) {
    if (s.type == kShtNobits || s.type == kShtNull || s.addr == 0) continue;
    if (vaddr >= s.addr && vaddr - s.addr < s.size) return elf.section_data(s).subspan(vaddr - s.addr);
  }
  return kfd::Error::msg(".hipFatBinSegment: binary pointer " + kfd::hex(vaddr) + " is not inside any section");
}

// The wrapper's `binary` field; in a PIE or shared library it is 0 in the file and set by an
// R_X86_64_RELATIVE relocation whose addend is the address.
kfd::Result<uint64_t> wrapper_pointer(const ElfFile& elf, const Section& seg) {
  Bytes d = elf.section_data(seg);
  KFD_ASSIGN(uint32_t magic, read_le<uint32_t>(d, 0, ".hipFatBinSegment magic"));
  if (magic != kHipFatMagic)
    return field_error(".hipFatBinSegment magic", seg.offset, kfd::hex(magic) + " is not 0x48495046 (HIPF)");
  KFD_ASSIGN(uint64_t ptr, read_le<uint64_t>(d, 8, ".hipFatBinSegment binary"));
  if (ptr) return ptr;
  for (const Section& rs : elf.sections()) {
    if (rs.type != kShtRela) continue;
    KFD_ASSIGN(auto relas, elf.relocations(rs));
    for (const Rela& r : relas)
      if (r.offset == seg.addr + 8 && r.type == kRX86_64Relative) return uint64_t(r.addend);
  }
  return field_error(".hipFatBinSegment binary", seg.offset + 8, "null and not relocated");
}

}  // namespace

kfd::Result<Bytes> find_hip_fatbin(Bytes host_elf) {
  auto parsed = ElfFile::parse(host_elf);
  if (!parsed) return parsed.error().context("host ELF");
  const ElfFile& elf = *parsed;
  if (const Section* s = elf.find_section(".hip_fatbin"); s && s->type != kShtNobits && s->size)
    return elf.section_data(*s);
  const Section* seg = elf.find_section(".hipFatBinSegment");
  if (!seg) return kfd::Error::msg("host ELF: no .hip_fatbin or .hipFatBinSegment section");
  KFD_ASSIGN(uint64_t ptr, wrapper_pointer(elf, *seg));
  return bytes_at_vaddr(elf, ptr);
}

}  // namespace loader
