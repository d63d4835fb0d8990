// SPDX-License-Identifier: MIT
// LoadedCodeObject: copies PT_LOAD segments into one allocation and applies dynamic relocations.
#include "loader/load.h"

#include <cstring>
#include <utility>

#include "base/text.h"

namespace loader {
namespace {

constexpr uint16_t kShnAbs = 0xFFF1;  // ELF: symbol value is absolute, not relocated
constexpr uint8_t kStbWeak = 2;

// The largest p_align of the PT_LOAD segments, at least one page, so every segment keeps
// its alignment when the span moves to a new base.
uint64_t load_alignment(const ElfFile& elf) {
  uint64_t a = 4096;
  for (const ProgramHeader& ph : elf.segments())
    if (ph.type == kPtLoad && ph.align > a) a = ph.align;
  return a;
}

}  // namespace

base::Result<LoadedCodeObject> LoadedCodeObject::load(const CodeObject& co, SegmentMemory& memory) {
  uint64_t align = load_alignment(co.elf());
  if (align > (1u << 21)) return base::Error::msg("PT_LOAD p_align " + base::hex(align) + " exceeds 2 MiB");
  if (co.vaddr_span() == 0) return base::Error::msg("code object: PT_LOAD segments are empty");
  KFD_ASSIGN(Span span, memory.allocate(co.vaddr_span(), align, true));
  LoadedCodeObject lco(&memory, span, co.vaddr_min());  // frees the span on any early return
  lco.vaddr_span_ = co.vaddr_span();
  KFD_TRY(lco.copy_segments(co));
  KFD_TRY(lco.relocate(co));
  lco.kernels_.reserve(co.kernels().size());
  for (const Kernel& k : co.kernels()) lco.kernels_.push_back(Entry{k.meta.name, k.meta.symbol, k.descriptor_vaddr, 64});
  lco.globals_.reserve(co.globals().size());
  for (const GlobalVar& g : co.globals()) lco.globals_.push_back(Entry{g.name, g.name, g.vaddr, g.size});
  return lco;
}

LoadedCodeObject::LoadedCodeObject(LoadedCodeObject&& o) noexcept
    : mem_(o.mem_), span_(std::exchange(o.span_, Span{})), vaddr_min_(o.vaddr_min_), vaddr_span_(o.vaddr_span_),
      kernels_(std::move(o.kernels_)), globals_(std::move(o.globals_)) {}

LoadedCodeObject& LoadedCodeObject::operator=(LoadedCodeObject&& o) noexcept {
  if (this != &o) {
    if (span_.host) mem_->free(span_);
    mem_ = o.mem_;
    span_ = std::exchange(o.span_, Span{});
    vaddr_min_ = o.vaddr_min_;
    vaddr_span_ = o.vaddr_span_;
    kernels_ = std::move(o.kernels_);
    globals_ = std::move(o.globals_);
  }
  return *this;
}

LoadedCodeObject::~LoadedCodeObject() {
  if (span_.host) mem_->free(span_);
}

base::Status LoadedCodeObject::copy_segments(const CodeObject& co) {
  const ElfFile& elf = co.elf();
  for (const ProgramHeader& ph : elf.segments()) {
    if (ph.type != kPtLoad) continue;
    // Bounds were checked by ElfFile (file data) and CodeObject (span); memory is zero-filled.
    std::memcpy(span_.host + (ph.vaddr - vaddr_min_), elf.image().data() + ph.offset, ph.filesz);
  }
  return {};
}

base::Status LoadedCodeObject::relocate(const CodeObject& co) {
  const ElfFile& elf = co.elf();
  const Section* rs = elf.find_section(".rela.dyn");
  if (!rs || rs->size == 0) return {};
  if (rs->type != kShtRela) return base::Error::msg("section .rela.dyn is not SHT_RELA");
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
      if (s.shndx == 0 && s.binding != kStbWeak)
        return field_error(".rela.dyn r_info", r.file_offset + 8, "undefined symbol " + base::quoted(s.name));
      // ELF: an undefined weak symbol resolves to 0.
      uint64_t sym = s.shndx == 0 ? 0 : s.shndx == kShnAbs ? s.value : base() + s.value;
      value = sym + uint64_t(r.addend);
    } else {
      return field_error(".rela.dyn r_info", r.file_offset + 8,
                         "unsupported relocation type " + std::to_string(r.type) +
                             " (supported: R_AMDGPU_ABS64 3, R_AMDGPU_RELATIVE64 13)");
    }
    if (r.offset < vaddr_min_ || !in_bounds(r.offset - vaddr_min_, 8, vaddr_span_))
      return field_error(".rela.dyn r_offset", r.file_offset, base::hex(r.offset) + " is outside the loaded segments");
    std::memcpy(span_.host + (r.offset - vaddr_min_), &value, 8);
  }
  return {};
}

base::Result<uint64_t> LoadedCodeObject::kernel_object(std::string_view name) const {
  for (const Entry& k : kernels_)
    if (k.name == name || k.symbol == name) return address_of(k.vaddr);
  return base::Error::msg("code object has no kernel " + base::quoted(name));
}

base::Result<LoadedCodeObject::Global> LoadedCodeObject::global(std::string_view name) const {
  for (const Entry& g : globals_)
    if (g.name == name) return Global{address_of(g.vaddr), g.size};
  return base::Error::msg("code object has no global variable " + base::quoted(name));
}

}  // namespace loader
