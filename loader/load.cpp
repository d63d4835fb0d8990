// SPDX-License-Identifier: MIT
// LoadedCodeObject: copies PT_LOAD segments into one allocation and applies dynamic relocations.
#include "loader/load.h"

#include <cstring>
#include <utility>

namespace loader {
namespace {

constexpr uint16_t kShnAbs = 0xFFF1;  // ELF: symbol value is absolute, not relocated

// The largest p_align of the PT_LOAD segments, at least one page, so every segment keeps
// its alignment when the span moves to a new base.
uint64_t load_alignment(const ElfFile& elf) {
  uint64_t a = 4096;
  for (const ProgramHeader& ph : elf.segments())
    if (ph.type == kPtLoad && ph.align > a) a = ph.align;
  return a;
}

}  // namespace

kfd::Result<LoadedCodeObject> LoadedCodeObject::load(const CodeObject& co, SegmentMemory& memory) {
  uint64_t align = load_alignment(co.elf());
  if (align > (1u << 21)) return kfd::Error::msg("PT_LOAD p_align " + kfd::hex(align) + " exceeds 2 MiB");
  if (co.vaddr_span() == 0) return kfd::Error::msg("code object: PT_LOAD segments are empty");
  KFD_ASSIGN(Span span, memory.allocate(co.vaddr_span(), align, true));
  LoadedCodeObject lco(&co, &memory, span);
  KFD_TRY(lco.copy_segments());
  KFD_TRY(lco.relocate());
  return lco;
}

LoadedCodeObject::LoadedCodeObject(LoadedCodeObject&& o) noexcept
    : co_(o.co_), mem_(o.mem_), span_(std::exchange(o.span_, Span{})) {}

LoadedCodeObject& LoadedCodeObject::operator=(LoadedCodeObject&& o) noexcept {
  if (this != &o) {
    if (span_.host) mem_->free(span_);
    co_ = o.co_;
    mem_ = o.mem_;
    span_ = std::exchange(o.span_, Span{});
  }
  return *this;
}

LoadedCodeObject::~LoadedCodeObject() {
  if (span_.host) mem_->free(span_);
}

kfd::Status LoadedCodeObject::copy_segments() {
  const ElfFile& elf = co_->elf();
  for (const ProgramHeader& ph : elf.segments()) {
    if (ph.type != kPtLoad) continue;
    // Bounds were checked by ElfFile (file data) and CodeObject (span); memory is zero-filled.
    std::memcpy(span_.host + (ph.vaddr - co_->vaddr_min()), elf.image().data() + ph.offset, ph.filesz);
  }
  return {};
}

kfd::Status LoadedCodeObject::relocate() {
  const ElfFile& elf = co_->elf();
  const Section* rs = elf.find_section(".rela.dyn");
  if (!rs || rs->size == 0) return {};
  if (rs->type != kShtRela) return kfd::Error::msg("section .rela.dyn is not SHT_RELA");
  KFD_ASSIGN(std::vector<Rela> relas, elf.relocations(*rs));
  std::vector<Symbol> syms;
  bool have_syms = false;
  for (const Rela& r : relas) {
    if (r.type == kRAmdgpuNone) continue;
    uint64_t value;
    if (r.type == kRAmdgpuRelative64) {
      value = base() + uint64_t(r.addend);
    } else if (r.type == kRAmdgpuAbs64) {
      if (!have_syms) {
        KFD_ASSIGN(syms, elf.symbols(elf.sections()[rs->link]));
        have_syms = true;
      }
      if (r.sym == 0 || r.sym >= syms.size())
        return field_error(".rela.dyn r_info", r.file_offset + 8, "symbol index " + std::to_string(r.sym) + " is not in the symbol table");
      const Symbol& s = syms[r.sym];
      if (s.shndx == 0)
        return field_error(".rela.dyn r_info", r.file_offset + 8, "undefined symbol '" + std::string(s.name) + "'");
      value = (s.shndx == kShnAbs ? s.value : base() + s.value) + uint64_t(r.addend);
    } else {
      return field_error(".rela.dyn r_info", r.file_offset + 8,
                         "unsupported relocation type " + std::to_string(r.type) +
                             " (supported: R_AMDGPU_ABS64 3, R_AMDGPU_RELATIVE64 13)");
    }
    if (r.offset < co_->vaddr_min() || !in_bounds(r.offset - co_->vaddr_min(), 8, co_->vaddr_span()))
      return field_error(".rela.dyn r_offset", r.file_offset, kfd::hex(r.offset) + " is outside the loaded segments");
    std::memcpy(span_.host + (r.offset - co_->vaddr_min()), &value, 8);
  }
  return {};
}

kfd::Result<uint64_t> LoadedCodeObject::kernel_object(std::string_view name) const {
  const Kernel* k = co_->find_kernel(name);
  if (!k) return kfd::Error::msg("code object has no kernel '" + std::string(name) + "'");
  return address_of(k->descriptor_vaddr);
}

kfd::Result<LoadedCodeObject::Global> LoadedCodeObject::global(std::string_view name) const {
  const GlobalVar* g = co_->find_global(name);
  if (!g) return kfd::Error::msg("code object has no global variable '" + std::string(name) + "'");
  return Global{address_of(g->vaddr), g->size};
}

}  // namespace loader
