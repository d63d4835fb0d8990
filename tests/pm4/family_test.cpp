// SPDX-License-Identifier: MIT
// The per-family table: one answer per question, for every generation kfdrt names.
#include <gtest/gtest.h>

#include "pm4/family.h"
#include "pm4/regs.h"

namespace {

TEST(Family, ParsesProcessorNames) {
  EXPECT_EQ(pm4::gfx_target_version_of("gfx90a"), 90010u);
  EXPECT_EQ(pm4::gfx_target_version_of("gfx942"), 90402u);
  EXPECT_EQ(pm4::gfx_target_version_of("gfx1100"), 110000u);
  EXPECT_EQ(pm4::gfx_target_version_of("gfx1030"), 100300u);
  EXPECT_EQ(pm4::gfx_target_version_of("gfx90c"), 90012u);
  EXPECT_EQ(pm4::gfx_target_version_of("gfx9"), 0u);
  EXPECT_EQ(pm4::gfx_target_version_of("gpu90a"), 0u);
  EXPECT_EQ(pm4::gfx_target_version_of("gfxZ0a"), 0u);
}

TEST(Family, EveryNamedGenerationHasARow) {
  for (const char* p : {"gfx906", "gfx908", "gfx90a", "gfx940", "gfx942", "gfx950", "gfx1010",
                        "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1151", "gfx1200"}) {
    const pm4::Family* f = pm4::family_for_processor(p);
    ASSERT_NE(f, nullptr) << p;
    EXPECT_TRUE(f->covers(pm4::gfx_target_version_of(p))) << p;
  }
  EXPECT_EQ(pm4::family_for(80003), nullptr);  // gfx803: not a family kfdrt supports
  EXPECT_EQ(pm4::family_for(0), nullptr);
}

TEST(Family, VgprGranulesHaveOneAnswer) {
  // gfx950 is gfx90a-class: unified VGPR/AGPR file in granules of 8 (LLVM
  // getVGPREncodingGranule: FeatureGFX90AInsts), not the gfx9 granule of 4.
  const pm4::Family* gfx950 = pm4::family_for_processor("gfx950");
  EXPECT_EQ(gfx950->vgpr_encode_granule_wave64, 8u);
  EXPECT_EQ(gfx950->vgpr_alloc_granule_wave64, 8u);
  EXPECT_EQ(gfx950->vgprs_wave64, 512u);
  EXPECT_EQ(pm4::family_for_processor("gfx906")->vgpr_encode_granule_wave64, 4u);
  const pm4::Family* gfx1100 = pm4::family_for_processor("gfx1100");
  EXPECT_EQ(gfx1100->vgprs_from_rsrc1_blocks(3, true), 32u);   // wave32 encodes in 8s
  EXPECT_EQ(gfx1100->vgprs_from_rsrc1_blocks(3, false), 16u);  // wave64 in 4s
  EXPECT_EQ(gfx1100->vgpr_alloc_granule_wave32, 24u);          // 1.5x VGPRs
  EXPECT_EQ(pm4::family_for_processor("gfx1102")->vgpr_alloc_granule_wave32, 16u);
}

TEST(Family, Rsrc3AndScratchLayoutsDiffer) {
  EXPECT_EQ(pm4::family_for_processor("gfx906")->compute_pgm_rsrc3_reg, 0u);
  EXPECT_EQ(pm4::family_for_processor("gfx90a")->compute_pgm_rsrc3_reg, pm4::reg::kComputePgmRsrc3Gfx90a);
  EXPECT_EQ(pm4::family_for_processor("gfx942")->rsrc3, pm4::Rsrc3Layout::Gfx90a);
  EXPECT_EQ(pm4::family_for_processor("gfx1030")->compute_pgm_rsrc3_reg, pm4::reg::kComputePgmRsrc3Gfx10);
  EXPECT_EQ(pm4::family_for_processor("gfx90a")->tmpring_wavesize_unit, 1024u);
  EXPECT_EQ(pm4::family_for_processor("gfx1100")->tmpring_wavesize_unit, 256u);
  EXPECT_EQ(pm4::family_for_processor("gfx1100")->tmpring_wavesize_bits, 15u);
  EXPECT_TRUE(pm4::family_for_processor("gfx942")->architected_flat_scratch);
  EXPECT_FALSE(pm4::family_for_processor("gfx90a")->architected_flat_scratch);
  EXPECT_TRUE(pm4::family_for_processor("gfx90a")->packed_work_item_ids);
  EXPECT_FALSE(pm4::family_for_processor("gfx908")->packed_work_item_ids);
}

TEST(Family, EnginesAndPacketForms) {
  EXPECT_EQ(pm4::family_for_processor("gfx90a")->sdma_version, 4u);
  EXPECT_EQ(pm4::family_for_processor("gfx1030")->sdma_version, 5u);
  EXPECT_EQ(pm4::family_for_processor("gfx1100")->sdma_version, 6u);
  EXPECT_EQ(pm4::family_for_processor("gfx90a")->sdma_count_bits, 22u);
  EXPECT_EQ(pm4::family_for_processor("gfx90a")->acquire_mem, pm4::AcquireMemForm::Gfx9);
  EXPECT_EQ(pm4::family_for_processor("gfx1010")->acquire_mem, pm4::AcquireMemForm::Gfx10);
  EXPECT_EQ(pm4::family_for_processor("gfx950")->lds_granule_bytes, 1280u);
  EXPECT_EQ(pm4::family_for_processor("gfx90a")->lds_granule_bytes, 512u);
}

TEST(Family, TargetFeaturesPerProcessor) {
  auto f = [](const char* p) { return pm4::target_features(pm4::gfx_target_version_of(p)); };
  EXPECT_TRUE(f("gfx906").sramecc && f("gfx906").xnack);
  EXPECT_TRUE(f("gfx90a").sramecc && f("gfx90a").xnack);
  EXPECT_TRUE(f("gfx942").sramecc && f("gfx942").xnack);
  EXPECT_FALSE(f("gfx900").sramecc);
  EXPECT_TRUE(f("gfx900").xnack);
  EXPECT_TRUE(f("gfx1010").xnack);
  EXPECT_FALSE(f("gfx1010").sramecc);
  EXPECT_FALSE(f("gfx1030").xnack || f("gfx1030").sramecc);
  EXPECT_FALSE(f("gfx1100").xnack || f("gfx1100").sramecc);
}

TEST(Family, WaveSlotsPerSimd) {
  EXPECT_EQ(pm4::family_for_processor("gfx906")->max_waves_per_simd, 10u);
  EXPECT_EQ(pm4::family_for_processor("gfx908")->max_waves_per_simd, 10u);
  EXPECT_EQ(pm4::family_for_processor("gfx90a")->max_waves_per_simd, 8u);
  EXPECT_EQ(pm4::family_for_processor("gfx942")->max_waves_per_simd, 8u);
}

static_assert(pm4::family_for(90010)->vgprs_wave64 == 512, "the table is usable at compile time");

}  // namespace
