// SPDX-License-Identifier: MIT
// What the memory model reports after a dispatch: the kernel's name from its loaded code object, stale loads and cache instructions.
#include <cxxabi.h>
#include <elf.h>

#include <cstdio>
#include <cstdlib>

#include "emu/shader/cache.h"
#include "emu/shader/dispatch.h"

namespace emu::shader {

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMaxBack = 64ull << 20;  // how far below the descriptor the ELF header may be
constexpr uint16_t kEmAmdgpu = 224;         // EM_AMDGPU (LLVM BinaryFormat/ELF.h)

template <class T>
bool get(Memory& mem, uint64_t va, T* out) {
  const uint8_t* h = mem.translate(va, sizeof(T), false);
  if (!h) return false;
  std::memcpy(out, h, sizeof(T));
  return true;
}

bool is_amdgpu_elf(Memory& mem, uint64_t p) {
  Elf64_Ehdr eh;
  return get(mem, p, &eh) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_machine == kEmAmdgpu &&
         eh.e_ident[EI_CLASS] == ELFCLASS64;
}

// The loaded image whose start holds the ELF header (loaders copy PT_LOAD segments at base +
// p_vaddr, and lld puts the headers in the first segment): the start of va's mapping, or the
// nearest page below va that starts an AMDGPU shared object.
uint64_t image_base(Memory& mem, uint64_t va) {
  const Range r = mem.lookup(va);
  if (!r.host) return 0;
  if (is_amdgpu_elf(mem, r.begin)) return r.begin;
  const uint64_t floor = va - r.begin > kMaxBack ? va - kMaxBack : r.begin;
  for (uint64_t p = va & ~(kPage - 1); p >= floor && p >= r.begin; p -= kPage) {
    if (is_amdgpu_elf(mem, p)) return p;
    if (p < kPage) break;
  }
  return 0;
}

// The dynamic symbol table and string table of the image at base (PT_DYNAMIC's DT_SYMTAB,
// DT_STRTAB, DT_STRSZ; d_ptr values are image-relative).
bool dynamic_tables(Memory& mem, uint64_t base, uint64_t* symtab, uint64_t* strtab, uint64_t* strsz) {
  Elf64_Ehdr eh;
  if (!get(mem, base, &eh) || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64) return false;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!get(mem, base + eh.e_phoff + i * sizeof ph, &ph) || ph.p_type != PT_DYNAMIC) continue;
    *symtab = *strtab = *strsz = 0;
    for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= ph.p_memsz; o += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      if (!get(mem, base + ph.p_vaddr + o, &d) || d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_SYMTAB) *symtab = d.d_un.d_ptr;
      if (d.d_tag == DT_STRTAB) *strtab = d.d_un.d_ptr;
      if (d.d_tag == DT_STRSZ) *strsz = d.d_un.d_val;
    }
    return *symtab && *strtab && *strsz && *strtab > *symtab;
  }
  return false;
}

std::string symbol_at(Memory& mem, uint64_t base, uint64_t value) {
  uint64_t symtab, strtab, strsz;
  if (!dynamic_tables(mem, base, &symtab, &strtab, &strsz)) return {};
  const uint64_t count = std::min<uint64_t>((strtab - symtab) / sizeof(Elf64_Sym), 1u << 16);
  for (uint64_t i = 1; i < count; ++i) {
    Elf64_Sym s;
    if (!get(mem, base + symtab + i * sizeof s, &s)) break;
    if (s.st_value != value || s.st_name >= strsz) continue;
    std::string name;
    for (uint64_t o = s.st_name; o < strsz && name.size() < 256; ++o) {
      char c;
      if (!get(mem, base + strtab + o, &c) || c == 0) break;
      name += c;
    }
    if (!name.empty()) return name;
  }
  return {};
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

std::string kernel_name(Memory& mem, uint64_t kernel_object, uint64_t entry) {
  const uint64_t at = kernel_object ? kernel_object : entry;
  if (uint64_t base = image_base(mem, at)) {
    std::string n = symbol_at(mem, base, at - base);
    if (n.size() > 3 && n.ends_with(".kd")) n.resize(n.size() - 3);
    int status = -1;
    if (char* d = n.starts_with("_Z") ? abi::__cxa_demangle(n.c_str(), nullptr, nullptr, &status) : nullptr) {
      n = d;  // a C++ kernel: its source name and parameters
      std::free(d);
    }
    if (!n.empty()) return n;
  }
  return "kernel at " + hex(entry);
}

void report_memory(GpuCache& cache, Memory& mem, const Launch& l, MemoryReport& r) {
  const CacheConfig& c = cache.config();
  const uint64_t ops = r.wbl2 + r.invl2 + r.wbinvl1;
  const bool stale = c.report_stale && r.stale_loads;
  if (!c.report_stale && !(c.trace && ops)) return;
  r.kernel = kernel_name(mem, l.kernel_object, l.entry);
  if (c.report_stale) cache.note_writer(r.kernel);  // for host reads of what it left in the L2
  if (c.trace && ops)
    cache.trace("kernel %s executed buffer_wbl2 %llu, buffer_invl2 %llu, buffer_wbinvl1 %llu times (waves)",
                r.kernel.c_str(), static_cast<unsigned long long>(r.wbl2), static_cast<unsigned long long>(r.invl2),
                static_cast<unsigned long long>(r.wbinvl1));
  if (!stale) return;
  cache.trace("kernel %s: %llu lane loads returned stale data (a fence is missing unless the program "
              "expects that, e.g. a compare-swap loop's first guess)",
              r.kernel.c_str(), static_cast<unsigned long long>(r.stale_loads));
  for (uint8_t level : {uint8_t(1), uint8_t(2)}) {
    std::string lines;
    for (const auto& st : r.first)
      if (st.level == level) lines += (lines.empty() ? "" : ", ") + hex(st.va) + " (load at pc " + hex(st.pc) + ")";
    if (lines.empty()) continue;
    cache.trace("  %s: %s", level == 1 ? "a CU's L1 copy older than the L2 (another CU wrote the line), missing an "
                                         "agent-scope acquire (buffer_wbinvl1_vol: __threadfence(), an acquire atomic)"
                                       : "the L2's copy older than memory (the host, SDMA or another GPU wrote it), "
                                         "missing a system-scope acquire (buffer_invl2, an acquire fence at system scope)",
                lines.c_str());
  }
}

}  // namespace emu::shader
