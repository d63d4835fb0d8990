// SPDX-License-Identifier: MIT
// Parsing an AMDGPU code object and checking its ELF, metadata and kernel descriptors agree.
#include "loader/code_object.h"

#include <algorithm>
#include <cstring>

#include "base/text.h"
#include "pm4/family.h"

namespace loader {
namespace {

// Largest address span a code object may claim; real ones are a few MiB.
constexpr uint64_t kMaxSpan = 1ull << 32;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

base::Result<CodeObject> CodeObject::parse(Bytes image) {
  CodeObject co;
  KFD_ASSIGN(co.elf_, ElfFile::parse(image));
  KFD_TRY(co.check_header());
  KFD_TRY(co.check_segments());
  KFD_TRY(co.read_metadata());
  KFD_TRY(co.read_symbols());
  return co;
}

base::Status CodeObject::check_header() {
  const ElfHeader& h = elf_.header();
  if (h.machine != kEmAmdgpu)
    return field_error("e_machine", 18, std::to_string(h.machine) + " is not EM_AMDGPU (224)");
  if (h.os_abi != kOsAbiAmdgpuHsa)
    return field_error("e_ident[EI_OSABI]", 7, std::to_string(h.os_abi) + " is not ELFOSABI_AMDGPU_HSA (64)");
  if (h.type != 3) return field_error("e_type", 16, std::to_string(h.type) + " is not ET_DYN (3)");
  KFD_ASSIGN(target_, target_from_e_flags(h.flags, h.abi_version));
  version_ = h.abi_version + 2u;  // AMDGPUUsage: ABI version 2 = v4, 3 = v5, 4 = v6
  return {};
}

// PT_LOAD segments: sorted, non-overlapping, and together no larger than kMaxSpan.
base::Status CodeObject::check_segments() {
  std::vector<const ProgramHeader*> loads;
  for (const ProgramHeader& ph : elf_.segments())
    if (ph.type == kPtLoad) loads.push_back(&ph);
  if (loads.empty()) return base::Error::msg("program headers: no PT_LOAD segment");
  std::sort(loads.begin(), loads.end(), [](auto* a, auto* b) { return a->vaddr < b->vaddr; });
  for (size_t i = 1; i < loads.size(); ++i) {
    if (loads[i - 1]->vaddr + loads[i - 1]->memsz > loads[i]->vaddr) {
      size_t idx = loads[i] - elf_.segments().data();
      return field_error("program header " + std::to_string(idx) + " p_vaddr", elf_.header().phoff + idx * 56 + 16,
                         base::hex(loads[i]->vaddr) + " overlaps the previous PT_LOAD segment");
    }
  }
  vaddr_min_ = loads.front()->vaddr;
  uint64_t end = 0;
  for (const ProgramHeader* ph : loads) end = std::max(end, ph->vaddr + ph->memsz);
  vaddr_span_ = end - vaddr_min_;
  if (vaddr_span_ > kMaxSpan)
    return base::Error::msg("program headers: PT_LOAD segments span " + base::hex(vaddr_span_) + " bytes (limit 4 GiB)");
  return {};
}

base::Status CodeObject::read_metadata() {
  KFD_ASSIGN(auto notes, elf_.notes());
  const Note* found = nullptr;
  for (const Note& n : notes) {
    if (n.owner != "AMDGPU" || n.type != kNtAmdgpuMetadata) continue;
    if (found) return field_error("note NT_AMDGPU_METADATA", n.desc_offset, "appears twice");
    found = &n;
  }
  if (!found) return base::Error::msg("notes: no NT_AMDGPU_METADATA note (owner AMDGPU, type 32)");
  KFD_ASSIGN(metadata_, parse_metadata(found->desc, found->desc_offset));
  std::string expected = "amdgcn-amd-amdhsa--" + target_.str();
  if (!metadata_.target.empty() && metadata_.target != expected)
    return field_error("amdhsa.target", found->desc_offset,
                       base::quoted(metadata_.target) + " disagrees with e_flags (" + base::quoted(expected) + ")");
  return {};
}

base::Status CodeObject::bind_kernel(Kernel& k, const SymbolIndex& syms, size_t index) {
  std::string path = "amdhsa.kernels[" + std::to_string(index) + "] .symbol";
  auto found = syms.find(k.meta.symbol);
  if (found == syms.end()) return base::Error::msg(path + ": no defined symbol " + base::quoted(k.meta.symbol));
  const Symbol* it = found->second;
  if (it->size != sizeof(pm4::KernelDescriptor))
    return base::Error::msg(path + ": symbol " + base::quoted(k.meta.symbol) + " has size " + std::to_string(it->size) + ", not 64");
  if (it->value % 64)
    return base::Error::msg(path + ": descriptor address " + base::hex(it->value) + " is not 64-byte aligned");
  KFD_ASSIGN(uint64_t off, elf_.file_offset_of(it->value, sizeof(pm4::KernelDescriptor), "kernel descriptor " + k.meta.symbol));
  std::memcpy(&k.descriptor, elf_.image().data() + off, sizeof(pm4::KernelDescriptor));
  k.descriptor_vaddr = it->value;
  k.entry_vaddr = it->value + uint64_t(k.descriptor.kernel_code_entry_byte_offset);
  uint64_t entry_rel = k.entry_vaddr - vaddr_min_;
  if (k.entry_vaddr < vaddr_min_ || entry_rel >= vaddr_span_ || k.entry_vaddr % 256)
    return field_error("kernel descriptor " + k.meta.symbol + " kernel_code_entry_byte_offset", off + 16,
                       "entry " + base::hex(k.entry_vaddr) + " is outside the image or not 256-byte aligned");
  return {};
}

base::Status CodeObject::read_symbols() {
  KFD_ASSIGN(std::vector<Symbol> syms, elf_.symbols());
  // By name, the first defined symbol of each: lookups stay linear in kernels plus symbols.
  SymbolIndex by_name;
  by_name.reserve(syms.size());
  for (const Symbol& s : syms)
    if (s.shndx != 0) by_name.emplace(s.name, &s);
  kernels_.reserve(metadata_.kernels.size());
  for (size_t i = 0; i < metadata_.kernels.size(); ++i) {
    Kernel k;
    k.meta = metadata_.kernels[i];
    KFD_TRY(bind_kernel(k, by_name, i));
    kernels_.push_back(std::move(k));
  }
  for (const Symbol& s : syms) {
    if (s.type != kSttObject || s.shndx == 0 || s.binding == 0 || ends_with(s.name, ".kd")) continue;
    if (s.value < vaddr_min_ || !in_bounds(s.value - vaddr_min_, s.size, vaddr_span_))
      return base::Error::msg("symbol " + base::quoted(s.name) + ": [" + base::hex(s.value) + ", +" +
                             base::hex(s.size) + ") is outside the loaded segments");
    globals_.push_back(GlobalVar{std::string(s.name), s.value, s.size});
  }
  return {};
}

const Kernel* CodeObject::find_kernel(std::string_view name) const {
  for (const Kernel& k : kernels_)
    if (k.meta.name == name || k.meta.symbol == name) return &k;
  return nullptr;
}

const GlobalVar* CodeObject::find_global(std::string_view name) const {
  for (const GlobalVar& g : globals_)
    if (g.name == name) return &g;
  return nullptr;
}

bool is_gfx90a_family(const TargetId& t) {
  const pm4::Family* f = pm4::family_for_processor(t.processor);
  return f && f->rsrc3 == pm4::Rsrc3Layout::Gfx90a;
}

unsigned vgpr_granule(const TargetId& t, bool wave32) {
  const pm4::Family* f = pm4::family_for_processor(t.processor);
  if (!f) return wave32 ? 8 : 4;  // AMDGPUUsage: 4 (wave64) / 8 (wave32) outside the table's rows
  const unsigned g = wave32 ? f->vgpr_encode_granule_wave32 : f->vgpr_encode_granule_wave64;
  return g ? g : f->vgpr_encode_granule_wave64;
}

unsigned vgprs_from_descriptor(const pm4::KernelDescriptor& kd, const TargetId& t) {
  bool wave32 = pm4::decode_code_properties(kd.kernel_code_properties).wavefront_size32;
  return (pm4::decode_rsrc1(kd.compute_pgm_rsrc1).granulated_workitem_vgpr_count + 1) * vgpr_granule(t, wave32);
}

}  // namespace loader
