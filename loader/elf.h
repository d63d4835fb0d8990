// SPDX-License-Identifier: MIT
// A bounds-checked ELF64 little-endian reader: headers, sections, segments, symbols, relocations, notes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "loader/bytes.h"

namespace loader {

// Constants from the System V ABI "ELF-64 Object File Format" and AMDGPUUsage.
inline constexpr uint16_t kEmAmdgpu = 224;
inline constexpr uint8_t kOsAbiAmdgpuHsa = 64;
inline constexpr uint32_t kPtLoad = 1, kPtDynamic = 2, kPtNote = 4;
inline constexpr uint32_t kPfX = 1, kPfW = 2, kPfR = 4;
inline constexpr uint32_t kShtNull = 0, kShtSymtab = 2, kShtStrtab = 3, kShtRela = 4,
                          kShtNote = 7, kShtNobits = 8, kShtDynsym = 11;
inline constexpr uint8_t kSttObject = 1, kSttFunc = 2;
inline constexpr uint32_t kNtAmdgpuMetadata = 32;

struct ElfHeader {
  uint8_t os_abi = 0;
  uint8_t abi_version = 0;
  uint16_t type = 0;
  uint16_t machine = 0;
  uint32_t flags = 0;
  uint64_t entry = 0, phoff = 0, shoff = 0;
  uint16_t phnum = 0, shnum = 0, shstrndx = 0;
};

struct ProgramHeader {
  uint32_t type = 0, flags = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0, align = 0;
};

struct Section {
  std::string_view name;
  uint32_t type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t addralign = 0, entsize = 0;
  uint64_t header_offset = 0;  // where this section's header is, for error messages
};

struct Symbol {
  std::string_view name;
  uint8_t type = 0, binding = 0, visibility = 0;
  uint16_t shndx = 0;
  uint64_t value = 0, size = 0;
};

struct Rela {
  uint64_t offset = 0;
  uint32_t type = 0, sym = 0;
  int64_t addend = 0;
  uint64_t file_offset = 0;  // of the entry itself, for error messages
};

struct Note {
  std::string_view owner;
  uint32_t type = 0;
  Bytes desc;
  uint64_t desc_offset = 0;  // file offset of desc
};

// A parsed ELF64 image; views point into the input, which must outlive it.
class ElfFile {
 public:
  // Checks identification, header, and every program and section header against the input.
  static base::Result<ElfFile> parse(Bytes image);

  const ElfHeader& header() const { return header_; }
  const std::vector<ProgramHeader>& segments() const { return segments_; }
  const std::vector<Section>& sections() const { return sections_; }
  Bytes image() const { return image_; }

  const Section* find_section(std::string_view name) const;
  // The bytes of a section (empty for SHT_NOBITS); bounds were checked by parse().
  Bytes section_data(const Section& s) const;
  // Symbols of a SHT_SYMTAB or SHT_DYNSYM section, names resolved through its sh_link.
  base::Result<std::vector<Symbol>> symbols(const Section& symtab) const;
  // The preferred symbol table: .symtab when present, else .dynsym, else none (empty).
  base::Result<std::vector<Symbol>> symbols() const;
  base::Result<std::vector<Rela>> relocations(const Section& rela) const;
  // Notes from every SHT_NOTE section.
  base::Result<std::vector<Note>> notes() const;
  // File offset of virtual address range [vaddr, vaddr+size) inside one PT_LOAD's file data.
  base::Result<uint64_t> file_offset_of(uint64_t vaddr, uint64_t size, std::string_view what) const;

 private:
  base::Status parse_header();
  base::Status parse_segments();
  base::Status parse_sections();
  base::Status check_section_overlap() const;

  Bytes image_;
  ElfHeader header_;
  std::vector<ProgramHeader> segments_;
  std::vector<Section> sections_;
};

}  // namespace loader
