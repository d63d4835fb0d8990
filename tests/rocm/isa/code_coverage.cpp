// SPDX-License-Identifier: MIT
// Checks that the shader core decodes and implements every instruction of the given AMDGPU code
// objects (or of the gfx90a code objects embedded in a library, such as ROCr's blit kernels):
// prints each unimplemented or undecodable instruction and exits non-zero when there is one.
#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "emu/shader/decode.h"
#include "emu/shader/opnames.h"
#include "emu/shader/shader.h"

namespace {

using emu::shader::Target;

constexpr uint16_t kEmAmdgpu = 224;        // EM_AMDGPU (ELF machine)
constexpr uint32_t kMachMask = 0xff;       // EF_AMDGPU_MACH
constexpr uint32_t kMachGfx90a = 0x3f;     // EF_AMDGPU_MACH_AMDGCN_GFX90A (AMDGPUUsage)

struct Report {
  std::map<std::string, int> missing;  // mnemonic (or raw words) -> count
  size_t instructions = 0, objects = 0;
};

// The size of the ELF image starting at p (up to its section header table's end), or 0.
size_t elf_size(const uint8_t* p, size_t avail) {
  if (avail < sizeof(Elf64_Ehdr)) return 0;
  Elf64_Ehdr eh;
  std::memcpy(&eh, p, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return 0;
  if (eh.e_machine != kEmAmdgpu || eh.e_shentsize != sizeof(Elf64_Shdr)) return 0;
  size_t end = eh.e_shoff + size_t(eh.e_shnum) * sizeof(Elf64_Shdr);
  return end <= avail ? end : 0;
}

// Walks every executable section of one gfx90a code object, instruction by instruction.
void scan_object(const uint8_t* p, size_t size, const std::string& what, Report& r) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, p, sizeof eh);
  if ((eh.e_flags & kMachMask) != kMachGfx90a) return;
  ++r.objects;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, p + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_offset + sh.sh_size > size)
      continue;
    std::vector<uint32_t> words(sh.sh_size / 4 + 3, 0);
    std::memcpy(words.data(), p + sh.sh_offset, sh.sh_size);
    size_t n = sh.sh_size / 4;
    for (size_t at = 0; at < n;) {
      emu::shader::Inst in;
      bool ok = emu::shader::decode(Target::gfx90a, &words[at], unsigned(n - at), in);
      ++r.instructions;
      const auto& tab = emu::shader::op_table(Target::gfx90a);
      // MIMG decodes outside the encoding rows (its opcodes are in the image row).
      const bool mimg = ok && in.enc == emu::shader::Enc::Invalid && (words[at] >> 26) == 0x3C;
      bool implemented = ok && (in.enc == emu::shader::Enc::MTBUF ||
                                tab.fn(mimg ? emu::shader::kMimgRow : unsigned(in.enc), in.op));
      if (!implemented) {
        char key[128];
        std::snprintf(key, sizeof key, "%s (%08x) in %s", in.name ? in.name : "?", words[at], what.c_str());
        ++r.missing[key];
      }
      at += in.size ? in.size / 4 : 1;
    }
  }
}

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE... (code objects, or libraries with embedded ones)\n", argv[0]);
    return 2;
  }
  Report r;
  for (int a = 1; a < argc; ++a) {
    std::vector<uint8_t> data = read_file(argv[a]);
    if (data.empty()) {
      std::fprintf(stderr, "cannot read %s\n", argv[a]);
      return 2;
    }
    size_t found = 0;
    for (size_t off = 0; off + 4 <= data.size(); ++off) {
      if (data[off] != 0x7f || data[off + 1] != 'E' || data[off + 2] != 'L' || data[off + 3] != 'F') continue;
      size_t sz = elf_size(&data[off], data.size() - off);
      if (!sz) continue;
      scan_object(&data[off], sz, std::string(argv[a]) + "+" + std::to_string(off), r);
      ++found;
      off += sz - 1;
    }
    std::printf("%s: %zu AMDGPU code object(s)\n", argv[a], found);
  }
  for (const auto& [what, count] : r.missing) std::printf("NOT IMPLEMENTED: %s x%d\n", what.c_str(), count);
  std::printf("%zu gfx90a code objects, %zu instructions, %zu kinds missing\n", r.objects, r.instructions,
              r.missing.size());
  return r.objects == 0 ? 3 : (r.missing.empty() ? 0 : 1);
}
