// SPDX-License-Identifier: MIT
// Decoder oracle: every instruction llvm-objdump-15 finds in the built kernels must decode to
// the same length and mnemonic (without _e32/_e64/_dpp/_sdwa suffixes) in our tables.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "emu/shader/shader.h"
#include "tests/emu/harness.h"

namespace {

std::string normalize(std::string m) {
  for (const char* suf : {"_e32", "_e64", "_dpp", "_sdwa"}) {
    std::string s = suf;
    if (m.size() > s.size() && m.compare(m.size() - s.size(), s.size(), s) == 0) return m.substr(0, m.size() - s.size());
  }
  return m;
}

struct Line { std::string mnemonic; std::vector<uint32_t> words; std::string text; };

std::vector<Line> objdump(const std::string& file) {
  std::vector<Line> out;
  std::string cmd = std::string(EMU_OBJDUMP) + " -d --mcpu=gfx90a " + file;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string s = buf;
    if (s.empty() || s[0] != '\t') continue;
    size_t c = s.find("// ");
    if (c == std::string::npos) continue;
    Line l;
    l.text = s;
    std::istringstream ins(s.substr(0, c));
    ins >> l.mnemonic;
    std::string rest = s.substr(s.find(':', c) + 1);
    std::istringstream hex(rest);
    std::string wtok;
    while (hex >> wtok && wtok.size() == 8 && wtok.find_first_not_of("0123456789ABCDEFabcdef") == std::string::npos)
      l.words.push_back(static_cast<uint32_t>(std::stoul(wtok, nullptr, 16)));
    if (!l.words.empty()) out.push_back(l);
  }
  pclose(p);
  return out;
}

// Checks every instruction of one code object; returns how many were checked. Everything clang
// emitted must also execute (`must_run`; control.co has deliberate gaps).
unsigned check_file(const std::string& path, bool must_run) {
  auto lines = objdump(path);
  EXPECT_GT(lines.size(), 10u) << "no objdump output for " << path;
  unsigned checked = 0;
  for (const Line& l : lines) {
    if (l.mnemonic.empty() || l.mnemonic[0] == '.' || l.mnemonic[0] == '<') continue;  // data words
    uint32_t dw[3] = {l.words[0], l.words.size() > 1 ? l.words[1] : 0, l.words.size() > 2 ? l.words[2] : 0};
    unsigned len = 0;
    std::string name = emu::shader::disassemble_name(emu::shader::Target::gfx90a, dw, &len);
    EXPECT_EQ(len, 4 * l.words.size()) << path << ": " << l.text;
    EXPECT_EQ(name, normalize(l.mnemonic)) << path << ": " << l.text;
    if (must_run) { EXPECT_TRUE(emu::shader::implemented(name)) << path << ": " << l.text; }
    ++checked;
  }
  return checked;
}

class Oracle : public ::testing::TestWithParam<const char*> {};

TEST_P(Oracle, DecodesLikeObjdump) {
  EXPECT_GT(check_file(emu_test::kernel_path(GetParam()), std::string(GetParam()) != "control.co"), 10u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Oracle,
                         ::testing::Values("basic.co", "lds.co", "lanes.co", "math.co", "scratch.co", "more.co",
                                           "intrin.co", "buffer.co", "ocml.co", "basic.O0.co", "more.O0.co",
                                           "ocml.O0.co",
                                           "sop.co", "vop.co", "dpp_sdwa.co", "mem.co", "control.co"));

// The project's other HIP sources at -O0..-O3 (EMU_ORACLE_WIDE: ';'-separated code objects in
// the kernel directory; empty when kfdcc is not built).
TEST(OracleWide, DecodesEveryProjectKernelAtEveryOptimizationLevel) {
  std::string list = EMU_ORACLE_WIDE;
  if (list.empty()) { GTEST_SKIP() << "kfdcc not built: no wide oracle corpus"; }
  unsigned files = 0, checked = 0;
  for (size_t p = 0; p < list.size();) {
    size_t q = list.find(';', p);
    std::string f = list.substr(p, q == std::string::npos ? std::string::npos : q - p);
    p = q == std::string::npos ? list.size() : q + 1;
    if (f.empty()) continue;
    checked += check_file(emu_test::kernel_path(f), true);
    ++files;
  }
  EXPECT_GT(files, 40u);
  EXPECT_GT(checked, 10000u);
}

}  // namespace

namespace {

using emu::shader::Target;

TEST(OpTables, AreKeyedByTarget) {
  // VOP2 opcode 0x04 (v_fmac_f64 on gfx90a/gfx942, v_mul_legacy_f32 before), as llvm-mc says.
  uint32_t vop2_04[3] = {(0x04u << 25) | (1u << 9) | 256u, 0, 0};
  unsigned len = 0;
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx90a, vop2_04, &len), "v_fmac_f64");
  EXPECT_EQ(len, 4u);
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx942, vop2_04, &len), "v_fmac_f64");
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx908, vop2_04, &len), "v_mul_legacy_f32");
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx906, vop2_04, &len), "v_mul_legacy_f32");
  // gfx942's v_mov_b64 (VOP1 0x38) does not exist on gfx90a.
  uint32_t mov_b64[3] = {0x7e007102u, 0, 0};
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx942, mov_b64, &len), "v_mov_b64");
  EXPECT_NE(emu::shader::disassemble_name(Target::gfx90a, mov_b64, &len), "v_mov_b64");
}

TEST(OpTables, NameTheLiteralFormsOfVop2) {
  // VOP2 0x17 with its 32-bit K: v_madmk_f32 before gfx940, v_fmamk_f32 on gfx942.
  uint32_t madmk[3] = {(0x17u << 25) | (3u << 17) | (2u << 9) | 257u, 0x3f800000u, 0};
  unsigned len = 0;
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx90a, madmk, &len), "v_madmk_f32");
  EXPECT_EQ(len, 8u);
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx906, madmk, &len), "v_madmk_f32");
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx942, madmk, &len), "v_fmamk_f32");
  EXPECT_EQ(len, 8u);
  uint32_t madak16[3] = {(0x25u << 25) | (3u << 17) | (2u << 9) | 257u, 0x3c00u, 0};
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx90a, madak16, &len), "v_madak_f16");
  for (const char* n : {"v_madmk_f32", "v_madak_f32", "v_fmamk_f32", "v_fmaak_f32", "v_madmk_f16", "v_madak_f16"})
    EXPECT_TRUE(emu::shader::implemented(n)) << n;
}

TEST(OpTables, RejectsUndefinedEncodings) {
  uint32_t bad[3] = {0xfc000000u, 0, 0};
  unsigned len = 99;
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx90a, bad, &len), "<invalid>");
  EXPECT_EQ(len, 0u);
  uint32_t mtbuf[3] = {0xe8000000u, 0, 0};  // MTBUF: named, not executed
  EXPECT_EQ(emu::shader::disassemble_name(Target::gfx90a, mtbuf, &len), "tbuffer_load_format_x");
  EXPECT_FALSE(emu::shader::implemented("tbuffer_load_format_x"));
  EXPECT_TRUE(emu::shader::implemented("v_add_f32"));
}

}  // namespace
