// SPDX-License-Identifier: MIT
// The opcode-name tables against llvm-mc-15's disassembler (the source they were made from): every
// opcode of every encoding row, encoded with plain register operands, per target.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "emu/shader/opnames.h"

namespace {

using emu::shader::Target;

// How opcode `op` of a row is encoded (the ISA manuals' microcode formats of Vega and CDNA):
// fixed bits, the opcode's shift, and operand fields (v0/v2/v4/v6, s[2:..], s4/s6, zero offsets).
// Each opcode is tried with those operands, bare (operand fields zero, as the forms without
// operands require) and bare with extra bits (DS: gds); llvm-mc's first valid decoding counts.
struct RowEncoding {
  unsigned row;
  const char* name;
  unsigned ops;
  bool eight;  // 64-bit encoding
  uint32_t fixed;
  unsigned shift;
  uint32_t operands0;
  uint32_t operands1;
  uint32_t bare_extra = 0;  // bits of the bare try only
};

constexpr uint32_t kVop3Srcs = 0x100u | (0x102u << 9) | (0x104u << 18);  // v0, v2, v4
const RowEncoding kRows[] = {
    {0, "SOP2", 0x60, false, 0x80000000u, 23, 2u << 16 | 4u << 8, 0},  // 0x60.. are SOPK..SOPP
    {1, "SOPK", 0x1D, false, 0xB0000000u, 23, 2u << 16, 0},            // 0x1D.. are SOP1/SOPC/SOPP
    {2, "SOP1", 256, false, 0xBE800000u, 8, 2u << 16 | 4u, 0},
    {3, "SOPC", 128, false, 0xBF000000u, 16, 2u << 8, 0},
    {4, "SOPP", 128, false, 0xBF800000u, 16, 0, 0},
    {5, "SMEM", 256, true, 0xC0000000u, 18, 1u << 17 | 6u << 6 | 2u, 0},
    {6, "VOP2", 0x3E, false, 0, 25, 6u << 17 | 2u << 9 | 0x100u, 0},  // 0x3E.. are VOPC/VOP1
    {7, "VOP1", 256, false, 0x7E000000u, 9, 6u << 17 | 0x100u, 0},
    {8, "VOPC", 256, false, 0x7C000000u, 17, 2u << 9 | 0x100u, 0},
    {9, "VOP3", 0x380, true, 0xD0000000u, 16, 6u, kVop3Srcs},  // 0x380.. are VOP3P
    {10, "VOP3P", 128, true, 0xD3800000u, 16, 6u, kVop3Srcs},
    {11, "DS", 256, true, 0xD8000000u, 17, 0, 0x06040200u, 1u << 16},  // bare with gds (GWS forms)
    {12, "FLAT", 128, true, 0xDC000000u, 18, 0, 0x067f0200u},
    {13, "MUBUF", 128, true, 0xE0000000u, 18, 0, 0x80000602u},
    {14, "SCRATCH", 128, true, 0xDC000000u | 1u << 14, 18, 0, 0x067f0200u},
    {15, "GLOBAL", 128, true, 0xDC000000u | 2u << 14, 18, 0, 0x067f0200u},
    {16, "MIMG", 128, true, 0xF0000000u, 18, 0xF00u, 0x00020400u},
};

// Where the tables knowingly differ from llvm-mc-15 (kept: the decoder's names must not change):
// VOP3 forms the tables name that llvm-mc-15 does not decode with these operands (VOP2-only dot*c
// and v_pk_fmac, v_swap_b32, v_accvgpr_mov_b32, v_readfirstlane_b32; v_mov_b32 one row early at
// 0x13f and no v_nop at 0x140), the VINTRP forms in VOP3 (0x270..0x272) and GDS-only
// ds_ordered_count (DS 0xbf), which the tables lack.
struct KnownDifference {
  unsigned row;
  unsigned first, last;
};
const KnownDifference kKnown[] = {{9, 0x137, 0x13c}, {9, 0x13f, 0x140}, {9, 0x142, 0x142},
                                  {9, 0x191, 0x192}, {9, 0x270, 0x272},
                                  {11, 0xbf, 0xbf}};
bool known_difference(unsigned row, unsigned op) {
  for (const KnownDifference& k : kKnown)
    if (k.row == row && op >= k.first && op <= k.last) return true;
  return false;
}

std::string strip_suffix(std::string m) {
  for (const char* suf : {"_e32", "_e64", "_dpp", "_sdwa"}) {
    std::string s = suf;
    if (m.size() > s.size() && m.compare(m.size() - s.size(), s.size(), s) == 0) return m.substr(0, m.size() - s.size());
  }
  return m;
}

void put_word(std::ostream& o, uint32_t w) {
  for (int i = 0; i < 4; ++i) o << (i ? "," : "") << "0x" << std::hex << ((w >> (8 * i)) & 0xff) << std::dec;
}

// Disassembles one instruction per opcode, each followed by "s_nop 0x1234" as a separator; returns
// the mnemonic llvm-mc printed first for each opcode ("" when it found the encoding invalid). A
// 32-bit encoding is followed by "s_nop 0x4321", which the forms with a literal take as theirs.
constexpr uint32_t kFiller = 0xBF804321u;
constexpr unsigned kTries = 3;  // with operands, bare, bare with the row's extra bits
std::vector<std::string> llvm_names(const char* mcpu, const RowEncoding& e, const std::string& dir) {
  const std::string in = dir + "/in.txt", out = dir + "/out.txt";
  {
    std::ofstream f(in);
    for (unsigned op = 0; op < e.ops; ++op) {
      for (unsigned k = 0; k < kTries; ++k) {
        const bool bare = k > 0;
        put_word(f, e.fixed | op << e.shift | (k == 0 ? e.operands0 : k == 2 ? e.bare_extra : 0));
        f << ",";
        put_word(f, e.eight ? (bare ? 0 : e.operands1) : kFiller);  // a 32-bit form's literal, if any
        f << "\n";
        put_word(f, 0xBF801234u);
        f << "\n";
      }
    }
  }
  std::string cmd = std::string(EMU_LLVM_MC) + " -disassemble -triple=amdgcn-amd-amdhsa -mcpu=" + mcpu + " " + in +
                    " > " + out + " 2> " + out + ".err";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  // Input lines whose first word llvm-mc found invalid (it goes on with the next word).
  std::set<unsigned> invalid;
  {
    std::ifstream f(out + ".err");
    std::string line, tag = in + ":";
    while (std::getline(f, line)) {
      if (line.rfind(tag, 0) != 0 || line.find("invalid instruction encoding") == std::string::npos) continue;
      unsigned ln = 0, col = 0;
      if (std::sscanf(line.c_str() + tag.size(), "%u:%u", &ln, &col) == 2 && col == 1) invalid.insert(ln);
    }
  }
  std::vector<std::string> groups;  // first mnemonic per instruction line
  std::ifstream f(out);
  std::string line, current;
  bool have = false;
  while (std::getline(f, line)) {
    std::istringstream s(line);
    std::string m, arg;
    s >> m >> arg;
    if (m.empty() || m[0] == '.' || (m == "s_nop" && arg == "0x4321")) continue;
    if (m == "s_nop" && arg == "0x1234") {
      groups.push_back(have ? current : "");
      have = false;
      continue;
    }
    if (!have) { current = strip_suffix(m); have = true; }
  }
  std::vector<std::string> names;
  for (unsigned op = 0; op < e.ops && kTries * op + kTries - 1 < groups.size(); ++op) {
    std::string name;
    for (unsigned k = 0; k < kTries && name.empty(); ++k)
      if (!invalid.count(2 * (kTries * op + k) + 1)) name = groups[kTries * op + k];
    names.push_back(name);
  }
  std::remove((out + ".err").c_str());
  return names;
}

TEST(OpNamesOracle, EveryEncodingAgreesWithLlvmMc) {
  if (std::string(EMU_LLVM_MC).empty()) GTEST_SKIP() << "llvm-mc-15 not found";
  char tmpl[] = "/tmp/opnames_oracle_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  struct T { Target t; const char* mcpu; } targets[] = {
      {Target::gfx906, "gfx906"}, {Target::gfx908, "gfx908"}, {Target::gfx90a, "gfx90a"}, {Target::gfx942, "gfx940"}};
  unsigned compared = 0, mismatches = 0;
  for (const T& t : targets) {
    for (const RowEncoding& e : kRows) {
      std::vector<std::string> llvm = llvm_names(t.mcpu, e, dir);
      ASSERT_EQ(llvm.size(), e.ops) << t.mcpu << " " << e.name;
      for (unsigned op = 0; op < e.ops; ++op) {
        const char* ours = emu::shader::op_name(t.t, e.row, op);
        std::string o = ours ? ours : "";
        if (known_difference(e.row, op)) continue;
        ++compared;
        if (o != llvm[op] && ++mismatches <= 40)
          ADD_FAILURE() << t.mcpu << " " << e.name << " 0x" << std::hex << op << ": ours '" << o << "', llvm-mc '"
                        << llvm[op] << "'";
      }
    }
  }
  std::remove((dir + "/in.txt").c_str());
  std::remove((dir + "/out.txt").c_str());
  rmdir(dir.c_str());
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(compared, 10000u);
}

}  // namespace
