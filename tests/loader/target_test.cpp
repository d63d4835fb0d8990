// SPDX-License-Identifier: MIT
// Tests of target ids: e_flags decoding, the processor table (against llvm-readelf), matching rules.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "loader/target.h"
#include "test_util.h"

using loader::Feature;
using loader::TargetId;

namespace {

TEST(TargetId, DecodesEFlags) {
  auto t = loader::target_from_e_flags(0x3f | 0xC00 | 0x200, 2);
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->str(), "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(loader::target_from_e_flags(0x4c | 0x100 | 0x400, 3)->str(), "gfx942");
  EXPECT_EQ(loader::target_from_e_flags(0x30 | 0x300 | 0x800, 2)->str(), "gfx908:sramecc-:xnack+");
  EXPECT_EQ(loader::target_from_e_flags(0x36, 2)->str(), "gfx1030");
  EXPECT_EQ(loader::target_from_e_flags(0x27, 2).message(), "e_flags at offset 0x30: unknown EF_AMDGPU_MACH 0x27");
  EXPECT_EQ(loader::target_from_e_flags(0x3f, 1).message(),
            "e_ident[EI_ABIVERSION] at offset 0x8: 1 is not a supported code object version (2 = v4, 3 = v5, 4 = v6)");
}

TEST(TargetId, ParsesAndPrints) {
  auto t = TargetId::parse("gfx90a:xnack+:sramecc-");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->processor, "gfx90a");
  EXPECT_EQ(t->xnack, Feature::On);
  EXPECT_EQ(t->sramecc, Feature::Off);
  EXPECT_EQ(t->str(), "gfx90a:sramecc-:xnack+");  // canonical order: alphabetical
  EXPECT_EQ(TargetId::parse("gfx1100")->str(), "gfx1100");
  EXPECT_EQ(TargetId::parse("gfx90a:xnack").message(), "target id: feature 'xnack' must end in + or -");
  EXPECT_EQ(TargetId::parse("gfx90a:foo+").message(), "target id: unknown feature 'foo'");
  EXPECT_EQ(TargetId::parse("gfx90a:xnack+:xnack-").message(), "target id: feature 'xnack' given twice");
  EXPECT_EQ(TargetId::parse(":xnack+").message(), "target id ':xnack+': empty processor");
}

TEST(TargetId, MatchesByReferenceRules) {
  TargetId dev = *TargetId::parse("gfx90a:sramecc+:xnack-");
  EXPECT_TRUE(loader::target_compatible(*TargetId::parse("gfx90a"), dev));
  EXPECT_TRUE(loader::target_compatible(*TargetId::parse("gfx90a:xnack-"), dev));
  EXPECT_TRUE(loader::target_compatible(*TargetId::parse("gfx90a:sramecc+"), dev));
  EXPECT_FALSE(loader::target_compatible(*TargetId::parse("gfx90a:xnack+"), dev));
  EXPECT_FALSE(loader::target_compatible(*TargetId::parse("gfx90a:sramecc-"), dev));
  EXPECT_FALSE(loader::target_compatible(*TargetId::parse("gfx908"), dev));
  EXPECT_LT(loader::target_match_score(*TargetId::parse("gfx90a"), dev),
            loader::target_match_score(*TargetId::parse("gfx90a:xnack-"), dev));
  EXPECT_LT(loader::target_match_score(*TargetId::parse("gfx90a:xnack-"), dev),
            loader::target_match_score(*TargetId::parse("gfx90a:sramecc+:xnack-"), dev));
}

TEST(TargetId, MatchesGenericProcessors) {
  TargetId g9 = *TargetId::parse("gfx9-generic");
  EXPECT_TRUE(loader::target_compatible(g9, *TargetId::parse("gfx906:sramecc+:xnack-")));
  EXPECT_TRUE(loader::target_compatible(g9, *TargetId::parse("gfx900")));
  EXPECT_FALSE(loader::target_compatible(g9, *TargetId::parse("gfx90a")));  // not in the family
  EXPECT_FALSE(loader::target_compatible(g9, *TargetId::parse("gfx1030")));
  EXPECT_TRUE(loader::target_compatible(*TargetId::parse("gfx10-3-generic"), *TargetId::parse("gfx1032")));
  EXPECT_TRUE(loader::target_compatible(*TargetId::parse("gfx11-generic"), *TargetId::parse("gfx1151")));
  EXPECT_FALSE(loader::target_compatible(*TargetId::parse("gfx906"), *TargetId::parse("gfx9-generic")));
  // The exact processor wins over the generic one even when the generic one sets more features.
  TargetId dev = *TargetId::parse("gfx906:sramecc+:xnack-");
  EXPECT_GT(loader::target_match_score(*TargetId::parse("gfx906"), dev),
            loader::target_match_score(*TargetId::parse("gfx9-generic:sramecc+:xnack-"), dev));
}

TEST(TargetId, MachTableHasCommonProcessors) {
  for (const char* n : {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010",
                        "gfx1030", "gfx1100", "gfx1101", "gfx1200"}) {
    uint32_t m = loader::mach_from_name(n);
    ASSERT_NE(m, 0u) << n;
    EXPECT_STREQ(loader::mach_name(m), n);
  }
  EXPECT_EQ(loader::mach_name(0xff), nullptr);
}

// Writes an AMDGPU ELF header with each table entry's e_flags and asks llvm-readelf-19 to name it.
TEST(TargetId, MachTableAgreesWithReadelf) {
  if (!std::getenv("LLVM_READELF_19")) GTEST_SKIP() << "llvm-readelf-19 not found at configure time";
  std::string readelf = loader_test::tool("LLVM_READELF_19");
  std::string path = ::testing::TempDir() + "/kfdrt_mach_header.elf";
  int checked = 0;
  for (const loader::MachEntry* e = loader::mach_table(); e->name; ++e) {
    std::vector<uint8_t> h(64, 0);
    const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 64, 2};
    std::copy(ident, ident + 16, h.begin());
    loader_test::put_le<uint16_t>(h, 16, 3);
    loader_test::put_le<uint16_t>(h, 18, 224);
    loader_test::put_le<uint32_t>(h, 20, 1);
    loader_test::put_le<uint32_t>(h, 48, e->mach);
    loader_test::put_le<uint16_t>(h, 52, 64);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(h.data()), h.size());
    std::string out = loader_test::run(readelf + " -h '" + path + "' 2>/dev/null");
    EXPECT_NE(out.find(std::string(", ") + e->name + "\n"), std::string::npos)
        << "mach " << e->mach << " " << e->name << ":\n" << out;
    ++checked;
  }
  EXPECT_GT(checked, 40);
  std::remove(path.c_str());
}

}  // namespace
