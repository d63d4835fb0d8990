// SPDX-License-Identifier: MIT
// ELF64 parsing with every offset, size, count and alignment checked against the input.
#include "loader/elf.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace loader {
namespace {

// Sizes of ELF64 records; System V ABI, ELF-64 Object File Format.
constexpr uint64_t kEhdrSize = 64, kPhdrSize = 56, kShdrSize = 64, kSymSize = 24, kRelaSize = 24;

std::string sec_label(size_t i, std::string_view name) {
  std::string s = "section " + std::to_string(i);
  if (!name.empty()) s += " (" + std::string(name) + ")";
  return s;
}

// A NUL-terminated string at `off` inside `table`, or an error naming the field.
base::Result<std::string_view> string_at(Bytes table, uint64_t table_off, uint64_t off,
                                        std::string_view field, uint64_t field_off) {
  if (off >= table.size())
    return field_error(field, field_off, "string index " + base::hex(off) +
                                             " is outside its string table (" +
                                             base::hex(table.size()) + " bytes at " +
                                             base::hex(table_off) + ")");
  const auto* p = reinterpret_cast<const char*>(table.data() + off);
  const void* nul = std::memchr(p, 0, table.size() - off);
  if (!nul) return field_error(field, field_off, "string is not NUL-terminated in its table");
  return std::string_view(p, static_cast<const char*>(nul) - p);
}

}  // namespace

base::Result<ElfFile> ElfFile::parse(Bytes image) {
  ElfFile f;
  f.image_ = image;
  KFD_TRY(f.parse_header());
  KFD_TRY(f.parse_segments());
  KFD_TRY(f.parse_sections());
  KFD_TRY(f.check_section_overlap());
  return f;
}

base::Status ElfFile::parse_header() {
  Bytes b = image_;
  if (b.size() < kEhdrSize)
    return field_error("ELF header", 0, "file has " + base::hex(b.size()) + " bytes, needs 0x40");
  static const uint8_t magic[4] = {0x7F, 'E', 'L', 'F'};
  if (std::memcmp(b.data(), magic, 4) != 0) return field_error("e_ident[EI_MAG]", 0, "not an ELF file");
  if (b[4] != 2) return field_error("e_ident[EI_CLASS]", 4, "class " + std::to_string(b[4]) + " is not ELFCLASS64");
  if (b[5] != 1) return field_error("e_ident[EI_DATA]", 5, "encoding " + std::to_string(b[5]) + " is not little-endian");
  if (b[6] != 1) return field_error("e_ident[EI_VERSION]", 6, "version " + std::to_string(b[6]) + " is not 1");
  ElfHeader& h = header_;
  h.os_abi = b[7];
  h.abi_version = b[8];
  const uint8_t* p = b.data();
  h.type = load_le<uint16_t>(p + 16);
  h.machine = load_le<uint16_t>(p + 18);
  h.entry = load_le<uint64_t>(p + 24);
  h.phoff = load_le<uint64_t>(p + 32);
  h.shoff = load_le<uint64_t>(p + 40);
  h.flags = load_le<uint32_t>(p + 48);
  uint16_t ehsize = load_le<uint16_t>(p + 52), phentsize = load_le<uint16_t>(p + 54);
  uint16_t shentsize = load_le<uint16_t>(p + 58);
  h.phnum = load_le<uint16_t>(p + 56);
  h.shnum = load_le<uint16_t>(p + 60);
  h.shstrndx = load_le<uint16_t>(p + 62);
  if (ehsize != kEhdrSize) return field_error("e_ehsize", 52, std::to_string(ehsize) + " is not 64");
  if (h.phnum && phentsize != kPhdrSize)
    return field_error("e_phentsize", 54, std::to_string(phentsize) + " is not 56");
  if (h.shnum && shentsize != kShdrSize)
    return field_error("e_shentsize", 58, std::to_string(shentsize) + " is not 64");
  if (h.phnum && !in_bounds(h.phoff, uint64_t(h.phnum) * kPhdrSize, b.size()))
    return field_error("e_phoff", 32, base::hex(h.phoff) + " + " + std::to_string(h.phnum) +
                                          " program headers extend past the end of the file (" +
                                          base::hex(b.size()) + " bytes)");
  if (h.shnum && !in_bounds(h.shoff, uint64_t(h.shnum) * kShdrSize, b.size()))
    return field_error("e_shoff", 40, base::hex(h.shoff) + " + " + std::to_string(h.shnum) +
                                          " section headers extend past the end of the file (" +
                                          base::hex(b.size()) + " bytes)");
  if (h.phnum && h.phoff % 8) return field_error("e_phoff", 32, base::hex(h.phoff) + " is not 8-byte aligned");
  if (h.shnum && h.shoff % 8) return field_error("e_shoff", 40, base::hex(h.shoff) + " is not 8-byte aligned");
  if (h.phnum && h.phoff < kEhdrSize) return field_error("e_phoff", 32, "program headers overlap the ELF header");
  if (h.shnum && h.shoff < kEhdrSize) return field_error("e_shoff", 40, "section headers overlap the ELF header");
  if (h.shnum && h.shstrndx >= h.shnum)
    return field_error("e_shstrndx", 62, std::to_string(h.shstrndx) + " is not below e_shnum " + std::to_string(h.shnum));
  return {};
}

base::Status ElfFile::parse_segments() {
  segments_.reserve(header_.phnum);  // bounded: phnum * 56 bytes fit in the file
  for (uint64_t i = 0; i < header_.phnum; ++i) {
    uint64_t at = header_.phoff + i * kPhdrSize;
    const uint8_t* p = image_.data() + at;
    ProgramHeader ph;
    ph.type = load_le<uint32_t>(p);
    ph.flags = load_le<uint32_t>(p + 4);
    ph.offset = load_le<uint64_t>(p + 8);
    ph.vaddr = load_le<uint64_t>(p + 16);
    ph.filesz = load_le<uint64_t>(p + 32);
    ph.memsz = load_le<uint64_t>(p + 40);
    ph.align = load_le<uint64_t>(p + 48);
    std::string label = "program header " + std::to_string(i);
    if (ph.type == kPtLoad || ph.type == kPtNote || ph.type == kPtDynamic) {
      if (!in_bounds(ph.offset, ph.filesz, image_.size()))
        return field_error(label + " p_offset", at + 8, "[" + base::hex(ph.offset) + ", +" + base::hex(ph.filesz) +
                                                            ") extends past the end of the file (" +
                                                            base::hex(image_.size()) + " bytes)");
    }
    if (ph.type == kPtLoad) {
      if (ph.filesz > ph.memsz)
        return field_error(label + " p_filesz", at + 32, base::hex(ph.filesz) + " exceeds p_memsz " + base::hex(ph.memsz));
      if (ph.align > 1 && !is_pow2(ph.align))
        return field_error(label + " p_align", at + 48, base::hex(ph.align) + " is not a power of two");
      if (ph.align > 1 && (ph.vaddr % ph.align) != (ph.offset % ph.align))
        return field_error(label + " p_vaddr", at + 16, base::hex(ph.vaddr) + " and p_offset " + base::hex(ph.offset) +
                                                            " disagree modulo p_align " + base::hex(ph.align));
      if (ph.vaddr + ph.memsz < ph.vaddr)
        return field_error(label + " p_memsz", at + 40, base::hex(ph.memsz) + " wraps the address space");
    }
    segments_.push_back(ph);
  }
  return {};
}

base::Status ElfFile::parse_sections() {
  sections_.reserve(header_.shnum);  // bounded: shnum * 64 bytes fit in the file
  for (uint64_t i = 0; i < header_.shnum; ++i) {
    uint64_t at = header_.shoff + i * kShdrSize;
    const uint8_t* p = image_.data() + at;
    Section s;
    s.header_offset = at;
    s.type = load_le<uint32_t>(p + 4);
    s.flags = load_le<uint64_t>(p + 8);
    s.addr = load_le<uint64_t>(p + 16);
    s.offset = load_le<uint64_t>(p + 24);
    s.size = load_le<uint64_t>(p + 32);
    s.link = load_le<uint32_t>(p + 40);
    s.info = load_le<uint32_t>(p + 44);
    s.addralign = load_le<uint64_t>(p + 48);
    s.entsize = load_le<uint64_t>(p + 56);
    std::string label = sec_label(i, {});
    if (s.type != kShtNobits && s.type != kShtNull && !in_bounds(s.offset, s.size, image_.size()))
      return field_error(label + " sh_offset", at + 24, "[" + base::hex(s.offset) + ", +" + base::hex(s.size) +
                                                            ") extends past the end of the file (" +
                                                            base::hex(image_.size()) + " bytes)");
    if (s.addralign > 1 && !is_pow2(s.addralign))
      return field_error(label + " sh_addralign", at + 48, base::hex(s.addralign) + " is not a power of two");
    if (s.link >= header_.shnum && (s.type == kShtSymtab || s.type == kShtDynsym || s.type == kShtRela))
      return field_error(label + " sh_link", at + 40, std::to_string(s.link) + " is not a section index");
    sections_.push_back(s);
  }
  if (sections_.empty()) return {};
  const Section& strs = sections_[header_.shstrndx];
  if (strs.type != kShtStrtab)
    return field_error("e_shstrndx", 62, "section " + std::to_string(header_.shstrndx) + " is not a string table");
  Bytes table = section_data(strs);
  for (size_t i = 0; i < sections_.size(); ++i) {
    uint32_t name_off = load_le<uint32_t>(image_.data() + sections_[i].header_offset);
    KFD_ASSIGN(sections_[i].name, string_at(table, strs.offset, name_off, sec_label(i, {}) + " sh_name",
                                            sections_[i].header_offset));
  }
  return {};
}

// Sections with file data must not share bytes with each other or with the ELF header.
base::Status ElfFile::check_section_overlap() const {
  std::vector<const Section*> v;
  v.reserve(sections_.size());
  for (const Section& s : sections_)
    if (s.type != kShtNobits && s.type != kShtNull && s.size) v.push_back(&s);
  std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]->offset < kEhdrSize)
      return field_error("section " + std::string(v[i]->name) + " sh_offset", v[i]->header_offset + 24,
                         "overlaps the ELF header");
    if (i && v[i - 1]->offset + v[i - 1]->size > v[i]->offset)
      return field_error("section " + std::string(v[i]->name) + " sh_offset", v[i]->header_offset + 24,
                         "overlaps section " + std::string(v[i - 1]->name));
  }
  return {};
}

const Section* ElfFile::find_section(std::string_view name) const {
  for (const Section& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Bytes ElfFile::section_data(const Section& s) const {
  if (s.type == kShtNobits || s.type == kShtNull) return {};
  return image_.subspan(s.offset, s.size);
}

base::Result<std::vector<Symbol>> ElfFile::symbols(const Section& st) const {
  std::string label = "section " + std::string(st.name);
  // parse_sections() checked sh_link (below, the string table's index) only for symbol and
  // relocation tables, and a caller may hand in whatever a .rela.dyn's sh_link names.
  if (st.type != kShtSymtab && st.type != kShtDynsym)
    return field_error(label + " sh_type", st.header_offset + 4, std::to_string(st.type) + " is not SHT_SYMTAB or SHT_DYNSYM");
  if (st.entsize != kSymSize)
    return field_error(label + " sh_entsize", st.header_offset + 56, std::to_string(st.entsize) + " is not 24");
  if (st.size % kSymSize) return field_error(label + " sh_size", st.header_offset + 32, base::hex(st.size) + " is not a multiple of 24");
  if (st.offset % 8) return field_error(label + " sh_offset", st.header_offset + 24, base::hex(st.offset) + " is not 8-byte aligned");
  const Section& strs = sections_[st.link];
  if (strs.type != kShtStrtab)
    return field_error(label + " sh_link", st.header_offset + 40, "section " + std::to_string(st.link) + " is not a string table");
  Bytes table = section_data(strs), data = section_data(st);
  std::vector<Symbol> out;
  out.reserve(st.size / kSymSize);  // bounded by the section's bytes in the file
  for (uint64_t off = 0; off < data.size(); off += kSymSize) {
    const uint8_t* p = data.data() + off;
    Symbol s;
    uint8_t info = p[4];
    s.type = info & 0xF;
    s.binding = info >> 4;
    s.visibility = p[5] & 3;
    s.shndx = load_le<uint16_t>(p + 6);
    s.value = load_le<uint64_t>(p + 8);
    s.size = load_le<uint64_t>(p + 16);
    KFD_ASSIGN(s.name, string_at(table, strs.offset, load_le<uint32_t>(p), label + " st_name", st.offset + off));
    out.push_back(s);
  }
  return out;
}

base::Result<std::vector<Symbol>> ElfFile::symbols() const {
  const Section* st = nullptr;
  for (const Section& s : sections_)
    if (s.type == kShtSymtab) st = &s;
  if (!st)
    for (const Section& s : sections_)
      if (s.type == kShtDynsym) st = &s;
  if (!st) return std::vector<Symbol>{};
  return symbols(*st);
}

base::Result<std::vector<Rela>> ElfFile::relocations(const Section& rs) const {
  std::string label = "section " + std::string(rs.name);
  if (rs.entsize != kRelaSize)
    return field_error(label + " sh_entsize", rs.header_offset + 56, std::to_string(rs.entsize) + " is not 24");
  if (rs.size % kRelaSize) return field_error(label + " sh_size", rs.header_offset + 32, base::hex(rs.size) + " is not a multiple of 24");
  if (rs.offset % 8) return field_error(label + " sh_offset", rs.header_offset + 24, base::hex(rs.offset) + " is not 8-byte aligned");
  Bytes data = section_data(rs);
  std::vector<Rela> out;
  out.reserve(rs.size / kRelaSize);  // bounded by the section's bytes in the file
  for (uint64_t off = 0; off < data.size(); off += kRelaSize) {
    const uint8_t* p = data.data() + off;
    uint64_t info = load_le<uint64_t>(p + 8);
    out.push_back(Rela{load_le<uint64_t>(p), uint32_t(info & 0xFFFFFFFFu), uint32_t(info >> 32),
                       load_le<int64_t>(p + 16), rs.offset + off});
  }
  return out;
}

base::Result<std::vector<Note>> ElfFile::notes() const {
  std::vector<Note> out;
  for (const Section& s : sections_) {
    if (s.type != kShtNote) continue;
    Bytes d = section_data(s);
    uint64_t off = 0;
    while (off < d.size()) {
      uint64_t at = s.offset + off;
      if (!in_bounds(off, 12, d.size())) return field_error("note header", at, "truncated (needs 12 bytes)");
      uint32_t namesz = load_le<uint32_t>(d.data() + off), descsz = load_le<uint32_t>(d.data() + off + 4);
      uint32_t type = load_le<uint32_t>(d.data() + off + 8);
      uint64_t name_off = off + 12, desc_off = name_off + ((uint64_t(namesz) + 3) & ~uint64_t(3));
      uint64_t next = desc_off + ((uint64_t(descsz) + 3) & ~uint64_t(3));
      if (!in_bounds(name_off, namesz, d.size()) || !in_bounds(desc_off, descsz, d.size()))
        return field_error("note n_descsz", at + 4, "name " + base::hex(namesz) + " and desc " + base::hex(descsz) +
                                                        " bytes extend past section " + std::string(s.name));
      std::string_view owner(reinterpret_cast<const char*>(d.data() + name_off), namesz);
      if (!owner.empty() && owner.back() == '\0') owner.remove_suffix(1);
      out.push_back(Note{owner, type, d.subspan(desc_off, descsz), s.offset + desc_off});
      off = std::min<uint64_t>(next, d.size());
    }
  }
  return out;
}

base::Result<uint64_t> ElfFile::file_offset_of(uint64_t vaddr, uint64_t size, std::string_view what) const {
  for (const ProgramHeader& ph : segments_) {
    if (ph.type != kPtLoad || vaddr < ph.vaddr) continue;
    uint64_t rel = vaddr - ph.vaddr;
    if (in_bounds(rel, size, ph.filesz)) return ph.offset + rel;
  }
  return base::Error::msg(std::string(what) + ": address " + base::hex(vaddr) + " (+" + base::hex(size) +
                         ") is not inside the file data of any PT_LOAD segment");
}

}  // namespace loader
