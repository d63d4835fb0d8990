// SPDX-License-Identifier: MIT
// The opcode-name tables (one gfx9 base per encoding plus per-generation deltas) against the
// names the four per-target tables had before (tests/emu/data/opnames_expected.txt), and a
// sample of every encoding against llvm-mc-15's disassembler.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "emu/shader/decode.h"
#include "emu/shader/opnames.h"

namespace {

using emu::shader::Target;
using emu::shader::kMimgRow;
using emu::shader::kNameRows;

constexpr const char* kRowNames[kNameRows] = {"SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "SMEM",
                                              "VOP2", "VOP1", "VOPC", "VOP3", "VOP3P", "DS",
                                              "FLAT", "MUBUF", "SCRATCH", "GLOBAL", "MIMG"};
struct TargetName {
  Target t;
  const char* name;
  const char* mcpu;
};
constexpr TargetName kTargets[] = {{Target::gfx906, "gfx906", "gfx906"},
                                   {Target::gfx908, "gfx908", "gfx908"},
                                   {Target::gfx90a, "gfx90a", "gfx90a"},
                                   {Target::gfx942, "gfx942", "gfx940"}};

unsigned row_opcodes(unsigned row) { return row == kMimgRow ? emu::shader::kMimgOpcodes : emu::shader::kRowOpcodes; }

using Key = std::tuple<std::string, unsigned, unsigned>;  // target, row, opcode

std::map<Key, std::string> load_expected() {
  std::map<Key, std::string> out;
  std::ifstream in(EMU_OPNAMES_EXPECTED);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string target, row, name;
    unsigned op = 0;
    s >> target >> row >> op >> name;
    unsigned r = 0;
    while (r < kNameRows && row != kRowNames[r]) ++r;
    EXPECT_LT(r, kNameRows) << "bad row in: " << line;
    out[{target, r, op}] = name;
  }
  return out;
}

TEST(OpNames, EveryOpcodeOfEveryTargetKeepsItsName) {
  const auto expected = load_expected();
  ASSERT_GT(expected.size(), 6000u) << "expected data missing: " << EMU_OPNAMES_EXPECTED;
  size_t named = 0, wrong = 0;
  for (const TargetName& t : kTargets) {
    const emu::shader::OpTable& tab = emu::shader::op_table(t.t);
    for (unsigned r = 0; r < kNameRows; ++r) {
      for (unsigned op = 0; op < row_opcodes(r); ++op) {
        auto it = expected.find({t.name, r, op});
        std::string want = it == expected.end() ? "" : it->second;
        const char* got = emu::shader::op_name(t.t, r, op);
        const char* built = tab.name(r, op);
        std::string g = got ? got : "", b = built ? built : "";
        if (g != want || b != want) {
          if (++wrong <= 20)
            ADD_FAILURE() << t.name << " " << kRowNames[r] << " 0x" << std::hex << op << ": lookup '"
                          << g << "', decoder table '" << b << "', expected '" << want << "'";
        }
        named += !want.empty();
      }
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(named, expected.size());  // no expected entry lies outside the opcode ranges
}

// Each delta says something its parent does not: a rename or addition differs from the parent's
// name, a removal range removes at least one name.
TEST(OpNames, DeltasOnlyListDifferences) {
  for (const TargetName& t : kTargets) {
    const emu::shader::OpNameGeneration& g = emu::shader::op_name_generation(t.t);
    if (!g.parent) {
      EXPECT_TRUE(g.deltas.empty());
      continue;
    }
    for (const emu::shader::OpNameDelta& d : g.deltas) {
      ASSERT_LT(d.row, kNameRows);
      ASSERT_LE(d.first, d.last);
      ASSERT_LT(d.last, row_opcodes(d.row));
      if (d.name) {
        EXPECT_EQ(d.first, d.last) << t.name << " " << d.name;
        const char* p = emu::shader::op_name(g.parent->target, d.row, d.first);
        EXPECT_TRUE(!p || std::string(p) != d.name) << t.name << " repeats its parent: " << d.name;
      } else {
        bool removes = false;
        for (unsigned op = d.first; op <= d.last; ++op)
          removes |= emu::shader::op_name(g.parent->target, d.row, op) != nullptr;
        EXPECT_TRUE(removes) << t.name << " " << kRowNames[d.row] << " 0x" << std::hex << d.first;
      }
    }
  }
}

// The one-pass table a target's opcode table is built from answers what op_name answers.
TEST(OpNames, AllAtOnceAgreesWithOneByOne) {
  static const char* all[kNameRows][emu::shader::kRowOpcodes];
  for (const TargetName& t : kTargets) {
    emu::shader::op_names(t.t, all);
    unsigned named = 0;
    for (unsigned r = 0; r < kNameRows; ++r)
      for (unsigned op = 0; op < emu::shader::kRowOpcodes; ++op) {
        const char* one = emu::shader::op_name(t.t, r, op);
        ASSERT_EQ(all[r][op], one) << t.name << " " << kRowNames[r] << " " << op << ": "
                                   << (all[r][op] ? all[r][op] : "(none)") << " vs " << (one ? one : "(none)");
        named += one != nullptr;
      }
    EXPECT_GT(named, 1000u) << t.name;
  }
}

TEST(OpNames, RejectsOutOfRangeLookups) {
  EXPECT_EQ(emu::shader::op_name(Target::gfx90a, kNameRows, 0), nullptr);
  EXPECT_EQ(emu::shader::op_name(Target::gfx90a, 0, emu::shader::kRowOpcodes), nullptr);
  EXPECT_EQ(emu::shader::op_name(Target::gfx906, kMimgRow, emu::shader::kMimgOpcodes), nullptr);
  EXPECT_STREQ(emu::shader::op_name(Target::gfx906, kMimgRow, 0), "image_load");
}

}  // namespace
