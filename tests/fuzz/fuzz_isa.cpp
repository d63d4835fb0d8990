// SPDX-License-Identifier: MIT
// libFuzzer target: the shader core's instruction decoder (emu/shader/decode.cpp) on every target, at every dword of the input.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "emu/shader/decode.h"
#include "emu/shader/shader.h"

namespace {

using emu::shader::Target;

[[noreturn]] void broken(const char* what, unsigned at, unsigned avail, const emu::shader::Inst& in) {
  std::fprintf(stderr, "decoder: %s at dword %u (%u available): %s size %u\n", what, at, avail, in.name,
               unsigned(in.size));
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The dwords in a buffer of exactly their size: a decoder reading past `avail` is an overflow.
  const size_t n = size / 4;
  if (n == 0) return 0;
  std::vector<uint32_t> dw(n);
  std::memcpy(dw.data(), data, n * 4);
  for (Target t : {Target::gfx906, Target::gfx908, Target::gfx90a, Target::gfx942}) {
    for (size_t i = 0; i < n; ++i) {
      const unsigned avail = unsigned(std::min<size_t>(n - i, 3));
      emu::shader::Inst in;
      const bool ok = emu::shader::decode(t, dw.data() + i, avail, in);
      if (!in.exec) broken("no handler", unsigned(i), avail, in);
      if (in.size % 4 != 0 || in.size == 0 || in.size > 12) broken("bad size", unsigned(i), avail, in);
      if (ok && in.size / 4 > avail) broken("instruction longer than its dwords", unsigned(i), avail, in);
      if (!in.name) broken("no name", unsigned(i), avail, in);
      uint32_t padded[3] = {};
      std::memcpy(padded, dw.data() + i, avail * 4);
      unsigned len = 0;
      (void)emu::shader::disassemble_name(t, padded, &len);
      if (len % 4 != 0 || len > 12) broken("disassemble_name length", unsigned(i), avail, in);
    }
  }
  return 0;
}
