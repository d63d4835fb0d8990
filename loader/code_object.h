// SPDX-License-Identifier: MIT
// An AMDGPU code object: checked ELF, target id, metadata, kernels with descriptors, global variables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "loader/bytes.h"
#include "loader/elf.h"
#include "pm4/kernel_descriptor.h"
#include "loader/metadata.h"
#include "loader/target.h"

namespace loader {

struct Kernel {
  KernelMeta meta;
  uint64_t descriptor_vaddr = 0;  // of the `<name>.kd` symbol, relative to the load base
  pm4::KernelDescriptor descriptor{};
  uint64_t entry_vaddr = 0;       // descriptor_vaddr + kernel_code_entry_byte_offset
};

struct GlobalVar {
  std::string name;
  uint64_t vaddr = 0, size = 0;
};

class CodeObject {
 public:
  // Parses and cross-checks an AMDGPU code object. `image` must outlive the CodeObject.
  static base::Result<CodeObject> parse(Bytes image);

  const ElfFile& elf() const { return elf_; }
  Bytes image() const { return elf_.image(); }
  // 4, 5 or 6, from e_ident[EI_ABIVERSION].
  unsigned version() const { return version_; }
  const TargetId& target() const { return target_; }
  const Metadata& metadata() const { return metadata_; }
  const std::vector<Kernel>& kernels() const { return kernels_; }
  const std::vector<GlobalVar>& globals() const { return globals_; }
  const Kernel* find_kernel(std::string_view name) const;  // by .name or .symbol
  const GlobalVar* find_global(std::string_view name) const;
  // Lowest PT_LOAD address and the span up to the end of the highest segment.
  uint64_t vaddr_min() const { return vaddr_min_; }
  uint64_t vaddr_span() const { return vaddr_span_; }

 private:
  base::Status check_header();
  base::Status check_segments();
  base::Status read_metadata();
  base::Status read_symbols();
  using SymbolIndex = std::unordered_map<std::string_view, const Symbol*>;
  base::Status bind_kernel(Kernel& k, const SymbolIndex& syms, size_t index);

  ElfFile elf_;
  unsigned version_ = 0;
  TargetId target_;
  Metadata metadata_;
  std::vector<Kernel> kernels_;
  std::vector<GlobalVar> globals_;
  uint64_t vaddr_min_ = 0, vaddr_span_ = 0;
};

// Register counts the descriptor's granulated fields allow (AMDGPUUsage compute_pgm_rsrc1), with
// the encoding granule of the target's row in the family table (pm4/family.h).
unsigned vgpr_granule(const TargetId& target, bool wave32);
unsigned vgprs_from_descriptor(const pm4::KernelDescriptor& kd, const TargetId& target);
// Targets whose RSRC3 holds ACCUM_OFFSET / TG_SPLIT (gfx90a, gfx94x, gfx950: unified VGPR/AGPR file).
bool is_gfx90a_family(const TargetId& target);

}  // namespace loader
