// SPDX-License-Identifier: MIT
// Finding the HIP fat binary (an offload bundle) inside a host ELF executable or shared library.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "loader/bundle.h"
#include "loader/elf.h"

namespace loader {
namespace {

constexpr uint32_t kRX86_64Relative = 8;  // x86-64 psABI: B + A

// Sections with file data and an address, sorted by address, for looking up wrapper pointers
// (one binary search each: a file may hold thousands of wrappers and of sections).
std::vector<const Section*> by_address(const ElfFile& elf) {
  std::vector<const Section*> v;
  for (const Section& s : elf.sections())
    if (s.type != kShtNobits && s.type != kShtNull && s.addr != 0 && s.size != 0) v.push_back(&s);
  std::sort(v.begin(), v.end(), [](const Section* a, const Section* b) { return a->addr < b->addr; });
  return v;
}

// The bytes from vaddr to the end of the section that holds it.
base::Result<Bytes> bytes_at_vaddr(const ElfFile& elf, const std::vector<const Section*>& sorted, uint64_t vaddr) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), vaddr,
                             [](uint64_t v, const Section* s) { return v < s->addr; });
  if (it != sorted.begin()) {
    const Section& s = **(it - 1);
    if (vaddr - s.addr < s.size) return elf.section_data(s).subspan(vaddr - s.addr);
  }
  return base::Error::msg(".hipFatBinSegment: binary pointer " + base::hex(vaddr) + " is not inside any section");
}

// Where R_X86_64_RELATIVE relocations write (r_offset) what (the addend), from every SHT_RELA
// section; read once, so many wrappers cost one pass over the relocations.
using RelativeRelocs = std::unordered_map<uint64_t, uint64_t>;
base::Result<RelativeRelocs> relative_relocs(const ElfFile& elf) {
  RelativeRelocs out;
  for (const Section& rs : elf.sections()) {
    if (rs.type != kShtRela) continue;
    KFD_ASSIGN(auto relas, elf.relocations(rs));
    for (const Rela& r : relas)
      if (r.type == kRX86_64Relative) out.emplace(r.offset, uint64_t(r.addend));
  }
  return out;
}

// The `binary` field of the wrapper at byte `at` of the section. In a PIE or shared library an
// R_X86_64_RELATIVE relocation whose addend is the address sets it; GNU ld also writes the address
// into the file, lld leaves 0 there.
base::Result<uint64_t> wrapper_pointer(const Section& seg, Bytes d, uint64_t at, const RelativeRelocs& relocs) {
  KFD_ASSIGN(uint32_t magic, read_le<uint32_t>(d, at, ".hipFatBinSegment magic"));
  if (magic != kHipFatMagic)
    return field_error(".hipFatBinSegment magic", seg.offset + at, base::hex(magic) + " is not 0x48495046 (HIPF)");
  KFD_ASSIGN(uint64_t ptr, read_le<uint64_t>(d, at + 8, ".hipFatBinSegment binary"));
  if (ptr) return ptr;
  if (auto it = relocs.find(seg.addr + at + 8); it != relocs.end()) return it->second;
  return field_error(".hipFatBinSegment binary", seg.offset + at + 8, "null and not relocated");
}

// Bytes a bundle at the start of `b` covers: a plain bundle's header and entries, a compressed
// one's stated total size (v1 states none and takes the rest).
base::Result<uint64_t> bundle_extent(Bytes b) {
  if (is_compressed_bundle(b)) {
    auto n = compressed_bundle_size(b.first(std::min<size_t>(b.size(), 32)));
    if (!n) {
      KFD_ASSIGN(uint16_t version, read_le<uint16_t>(b, 4, "CCOB version"));
      if (version == 1) return uint64_t(b.size());
      return n.error();
    }
    if (*n == 0 || *n > b.size())
      return field_error("CCOB total size", 8, base::hex(*n) + " is not within (0, " + base::hex(b.size()) + "]");
    return *n;
  }
  KFD_ASSIGN(Bundle bundle, parse_bundle(b));
  return bundle.size;
}

// Splits a .hip_fatbin section (at file offset `base`) into its bundles.
base::Result<std::vector<Bytes>> split_fatbin(Bytes sec, uint64_t base) {
  std::vector<Bytes> out;
  uint64_t pos = 0;
  while (pos < sec.size()) {
    Bytes rest = sec.subspan(pos);
    if (!is_offload_bundle(rest) && !is_compressed_bundle(rest))
      return field_error(".hip_fatbin", base + pos, out.empty() ? "no offload bundle magic" :
                         "bytes after bundle " + std::to_string(out.size() - 1) + " are neither zero padding nor a bundle");
    auto n = bundle_extent(rest);
    if (!n) return n.error().context(".hip_fatbin bundle " + std::to_string(out.size()) + " at offset " + base::hex(base + pos));
    out.push_back(rest);
    pos += *n;
    while (pos < sec.size() && sec[pos] == 0) ++pos;
  }
  if (out.empty()) return field_error(".hip_fatbin", base, "section is empty or all zero");
  return out;
}

}  // namespace

base::Result<Bytes> find_hip_fatbin(Bytes host_elf) {
  auto parsed = ElfFile::parse(host_elf);
  if (!parsed) return parsed.error().context("host ELF");
  const ElfFile& elf = *parsed;
  if (const Section* s = elf.find_section(".hip_fatbin"); s && s->type != kShtNobits && s->size)
    return elf.section_data(*s);
  const Section* seg = elf.find_section(".hipFatBinSegment");
  if (!seg) return base::Error::msg("host ELF: no .hip_fatbin or .hipFatBinSegment section");
  KFD_ASSIGN(RelativeRelocs relocs, relative_relocs(elf));
  KFD_ASSIGN(uint64_t ptr, wrapper_pointer(*seg, elf.section_data(*seg), 0, relocs));
  return bytes_at_vaddr(elf, by_address(elf), ptr);
}

base::Result<std::vector<Bytes>> find_hip_fatbins(Bytes host_elf) {
  auto parsed = ElfFile::parse(host_elf);
  if (!parsed) return parsed.error().context("host ELF");
  const ElfFile& elf = *parsed;
  if (const Section* s = elf.find_section(".hip_fatbin"); s && s->type != kShtNobits && s->size)
    return split_fatbin(elf.section_data(*s), s->offset);
  const Section* seg = elf.find_section(".hipFatBinSegment");
  if (!seg) return base::Error::msg("host ELF: no .hip_fatbin or .hipFatBinSegment section");
  // One 24-byte wrapper {u32 magic, u32 version, binary pointer, unused pointer} per translation unit.
  if (seg->size == 0 || seg->size % 24)
    return field_error(".hipFatBinSegment sh_size", seg->header_offset + 32, base::hex(seg->size) + " is not a multiple of 24");
  KFD_ASSIGN(RelativeRelocs relocs, relative_relocs(elf));
  std::vector<const Section*> sorted = by_address(elf);
  std::vector<Bytes> starts;  // each to the end of its section
  starts.reserve(seg->size / 24);
  for (uint64_t at = 0; at < seg->size; at += 24) {
    KFD_ASSIGN(uint64_t ptr, wrapper_pointer(*seg, elf.section_data(*seg), at, relocs));
    KFD_ASSIGN(Bytes b, bytes_at_vaddr(elf, sorted, ptr));
    starts.push_back(b);
  }
  // In file order, each view ending where the next bundle starts: bundles may not share bytes, so
  // the work for N wrappers stays proportional to the file, however the pointers lie.
  std::sort(starts.begin(), starts.end(), [](Bytes a, Bytes b) { return a.data() < b.data(); });
  for (size_t i = 1; i < starts.size(); ++i) {
    if (starts[i].data() == starts[i - 1].data())
      return field_error(".hipFatBinSegment binary", seg->offset,
                         "two wrappers point at the bundle at file offset " + base::hex(starts[i].data() - host_elf.data()));
    const uint8_t* end = starts[i - 1].data() + starts[i - 1].size();
    if (starts[i].data() < end) starts[i - 1] = starts[i - 1].first(starts[i].data() - starts[i - 1].data());
  }
  return starts;
}

}  // namespace loader
