// SPDX-License-Identifier: MIT
// Image (MIMG) and typed buffer (MUBUF format) instructions on the emulated gfx90a: hand-written
// kernels (tests/isa/image.s) over linear images built here byte by byte and over swizzled
// surfaces (addresses from AMD's addrlib, below); expected values are worked out in the test
// from the formats' definitions, not by the emulator's code.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <vector>

#include "pm4/image_gfx9.h"
#include "tests/emu/isa_fixture.h"

using namespace emu_test;
using Kind = emu::shader::Outcome::Kind;
namespace ig = pm4::image_gfx9;

namespace {

uint32_t fbits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
constexpr uint32_t kOne = 0x3F800000u;  // 1.0f
constexpr uint32_t kBad = 0xBADBADu;    // a slot the kernel did not write

class Image : public IsaTest {
 protected:
  struct Lane {
    uint32_t addr[4];  // v[4:7]
    uint32_t data[4];  // v[8:11]
  };
  void SetUp() override { lanes = mem.alloc_array<Lane>(64); }

  emu::shader::Outcome run(const char* kernel) {
    Args a;
    a.add(reinterpret_cast<uint64_t>(lanes));
    for (uint32_t x : t) a.add(x);
    for (uint32_t x : s) a.add(x);
    for (uint32_t x : v) a.add(x);
    return run_isa("image.co", kernel, 64, 64, a);
  }
  // Texel memory: `bytes` zero-filled bytes, 256-byte aligned (HostMemory::alloc).
  uint8_t* texels(size_t bytes, uint8_t fill = 0) {
    uint8_t* p = mem.alloc(bytes);
    std::memset(p, fill, bytes);
    return p;
  }
  void set_image(const ig::Image& im) { ig::encode(im, t); }
  void set_sampler(const ig::Sampler& sm) { ig::encode(sm, s); }
  void coords(unsigned l, uint32_t x, uint32_t y = 0, uint32_t z = 0, uint32_t w = 0) {
    lanes[l].addr[0] = x; lanes[l].addr[1] = y; lanes[l].addr[2] = z; lanes[l].addr[3] = w;
  }
  void fcoords(unsigned l, float x, float y = 0, float z = 0) { coords(l, fbits(x), fbits(y), fbits(z)); }

  Lane* lanes = nullptr;
  uint32_t t[8] = {}, s[4] = {}, v[4] = {};
};

// ---- image_load ----

TEST_F(Image, LoadsRgba8UnormFromA2DImageWithPitchAndSwizzle) {
  // 5x4 texels, rows 64 texels (256 bytes) apart; the padding holds 0xEE and must never be read.
  uint8_t* p = texels(64 * 4 * 4, 0xEE);
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 5; ++x) {
      uint8_t* q = p + (y * 64 + x) * 4;
      q[0] = uint8_t(x * 10 + y); q[1] = uint8_t(255 - x); q[2] = uint8_t(y * 50); q[3] = 128;
    }
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt8_8_8_8; im.num_format = ig::kNumUnorm;
  im.width = 5; im.height = 4; im.pitch = 64;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, l % 8, l / 8);
  auto o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = l % 8, y = l / 8;
    if (x >= 5 || y >= 4) {  // outside the image: 0 in every component
      for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(slot(c, l), 0u) << "lane " << l;
      continue;
    }
    EXPECT_FLOAT_EQ(fslot(0, l), float(x * 10 + y) / 255.0f) << l;
    EXPECT_FLOAT_EQ(fslot(1, l), float(255 - x) / 255.0f) << l;
    EXPECT_FLOAT_EQ(fslot(2, l), float(y * 50) / 255.0f) << l;
    EXPECT_FLOAT_EQ(fslot(3, l), 128.0f / 255.0f) << l;
  }
  // DST_SEL = (Z, X, 0, 1)
  im.dst_sel[0] = ig::kSelZ; im.dst_sel[1] = ig::kSelX; im.dst_sel[2] = ig::kSel0; im.dst_sel[3] = ig::kSel1;
  set_image(im);
  o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 8 + 3), 50.0f / 255.0f);  // (3, 1): Z = 50
  EXPECT_FLOAT_EQ(fslot(1, 8 + 3), 31.0f / 255.0f);  // X = 3*10 + 1
  EXPECT_EQ(slot(2, 8 + 3), 0u);
  EXPECT_EQ(slot(3, 8 + 3), kOne);
}

TEST_F(Image, Loads32FloatFrom1DAndFillsMissingComponents) {
  float* p = reinterpret_cast<float*>(texels(60 * 4));
  for (int i = 0; i < 60; ++i) p[i] = 1.5f * float(i) - 7.0f;
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.type = ig::kType1D;
  im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
  im.width = 60;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, l, 1000, 1000);  // y, z ignored by a 1D image
  auto o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    if (l >= 60) { for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(slot(c, l), 0u) << l; continue; }
    EXPECT_EQ(fslot(0, l), 1.5f * float(l) - 7.0f) << l;
    EXPECT_EQ(slot(1, l), 0u);
    EXPECT_EQ(slot(2, l), 0u);
    EXPECT_EQ(slot(3, l), kOne) << l;  // a format without W reads W = 1
  }
}

TEST_F(Image, Loads16_16AsFloatAndAsUint) {
  uint16_t* p = reinterpret_cast<uint16_t*>(texels(2 * 256));  // 2x2, rows 256 bytes apart
  // f16: 1.5 = 0x3E00, -2 = 0xC000, 0.25 = 0x3400, 65504 = 0x7BFF
  const uint16_t h[8] = {0x3E00, 0xC000, 0x3400, 0x7BFF, 0x0001, 0x8000, 0xFFFF, 0x1234};
  std::memcpy(p, h, 8);
  std::memcpy(p + 128, h + 4, 8);
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt16_16; im.num_format = ig::kNumFloat;
  im.width = 2; im.height = 2; im.pitch = 64;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, l & 1, (l >> 1) & 1);
  auto o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(fslot(0, 0), 1.5f); EXPECT_EQ(fslot(1, 0), -2.0f);
  EXPECT_EQ(fslot(0, 1), 0.25f); EXPECT_EQ(fslot(1, 1), 65504.0f);
  EXPECT_EQ(fslot(0, 2), std::ldexp(1.0f, -24));  // smallest f16 denormal
  EXPECT_EQ(slot(1, 2), 0x80000000u);             // -0
  EXPECT_EQ(slot(2, 0), 0u); EXPECT_EQ(slot(3, 0), kOne);
  im.num_format = ig::kNumUint;
  set_image(im);
  o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 0), 0x3E00u); EXPECT_EQ(slot(1, 0), 0xC000u);
  EXPECT_EQ(slot(0, 3), 0xFFFFu); EXPECT_EQ(slot(1, 3), 0x1234u);
  EXPECT_EQ(slot(2, 3), 0u); EXPECT_EQ(slot(3, 3), 1u);  // integer formats: W = integer 1
  im.num_format = ig::kNumSint;
  set_image(im);
  o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 3), 0xFFFFFFFFu);  // sign-extended -1
  EXPECT_EQ(slot(1, 0), 0xFFFFC000u);
}

TEST_F(Image, LoadsPackedFormats) {
  uint32_t* p = reinterpret_cast<uint32_t*>(texels(256));
  // 2_10_10_10 (R10G10B10A2, R in bits 9:0): R 1023, G 0, B 512, A 1.
  p[0] = 1023u | 0u << 10 | 512u << 20 | 1u << 30;
  // 10_11_11 FLOAT (R11G11B10, R in bits 10:0): unsigned floats with a 5-bit exponent (bias 15):
  // R 1.0 (exponent 15, 6-bit mantissa 0), G 2.5 (16, 0b010000), B 0.5 (14, 5-bit mantissa 0).
  p[1] = (15u << 6) | ((16u << 6 | 0x10u) << 11) | (14u << 5) << 22;
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt2_10_10_10; im.num_format = ig::kNumUnorm;
  im.width = 1; im.height = 1;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, 0, 0);
  auto o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(fslot(0, 0), 1.0f);
  EXPECT_EQ(fslot(1, 0), 0.0f);
  EXPECT_FLOAT_EQ(fslot(2, 0), 512.0f / 1023.0f);
  EXPECT_FLOAT_EQ(fslot(3, 0), 1.0f / 3.0f);
  uint32_t* q = reinterpret_cast<uint32_t*>(texels(256));
  q[0] = p[1];
  im.base = reinterpret_cast<uint64_t>(q);
  im.data_format = ig::kFmt10_11_11; im.num_format = ig::kNumFloat;
  set_image(im);
  o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(fslot(0, 0), 1.0f);
  EXPECT_EQ(fslot(1, 0), 2.5f);
  EXPECT_EQ(fslot(2, 0), 0.5f);
  EXPECT_EQ(slot(3, 0), kOne);
}

TEST_F(Image, LoadsRgba32UintFromA3DImage) {
  // 3x2x4 texels, pitch 16 (256 bytes): slices are pitch * height = 32 texels apart.
  uint32_t* p = reinterpret_cast<uint32_t*>(texels(16 * 2 * 4 * 16));
  for (uint32_t z = 0; z < 4; ++z)
    for (uint32_t y = 0; y < 2; ++y)
      for (uint32_t x = 0; x < 3; ++x)
        for (uint32_t c = 0; c < 4; ++c) p[((z * 2 + y) * 16 + x) * 4 + c] = 1000 * z + 100 * y + 10 * x + c;
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.type = ig::kType3D;
  im.data_format = ig::kFmt32_32_32_32; im.num_format = ig::kNumUint;
  im.width = 3; im.height = 2; im.depth = 4; im.pitch = 16;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, l & 3, (l >> 2) & 1, l >> 3);
  auto o = run("k_load");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = l & 3, y = (l >> 2) & 1, z = l >> 3;
    for (uint32_t c = 0; c < 4; ++c)
      EXPECT_EQ(slot(c, l), x < 3 && z < 4 ? 1000 * z + 100 * y + 10 * x + c : 0u) << l << " " << c;
  }
}

TEST_F(Image, Loads2DArraySlices) {
  // 4x3 texels, pitch 64, 5 slices of 64*3 texels; 32 UINT.
  uint32_t* p = reinterpret_cast<uint32_t*>(texels(64 * 3 * 5 * 4));
  for (uint32_t i = 0; i < 64 * 3 * 5; ++i) p[i] = 0xA0000 + i;
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.type = ig::kType2DArray;
  im.data_format = ig::kFmt32; im.num_format = ig::kNumUint;
  im.width = 4; im.height = 3; im.pitch = 64; im.depth = 5; im.last_array = 4;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, l & 3, (l >> 2) % 4, l / 16 + (l & 16 ? 2 : 0));
  auto o = run("k_load_da");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = l & 3, y = (l >> 2) % 4, sl = l / 16 + (l & 16 ? 2 : 0);
    uint32_t want = y < 3 && sl < 5 ? 0xA0000 + (sl * 3 + y) * 64 + x : 0;
    EXPECT_EQ(slot(0, l), want) << l;
  }
  // The T#'s type, not the instruction's DA bit, decides the coordinates: an array kernel
  // (da = 1) on a 2-D T# reads x and y and ignores the slice VGPR, as gfx9 does (ROCm's image
  // blit kernels store to 2-D images with DA set).
  im.type = ig::kType2D;
  im.depth = 1;
  im.last_array = 0;
  set_image(im);
  o = run("k_load_da");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = l & 3, y = (l >> 2) % 4;
    EXPECT_EQ(slot(0, l), y < 3 ? 0xA0000 + y * 64 + x : 0) << l;
  }
}

TEST_F(Image, LoadsOnlyTheDmaskComponentsPacked) {
  uint8_t* p = texels(256);
  for (unsigned i = 0; i < 4; ++i) p[i] = uint8_t(10 + i);  // texel (0,0) = 10, 11, 12, 13 UINT
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt8_8_8_8; im.num_format = ig::kNumUint;
  im.width = 1; im.height = 1;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, 0, 0);
  auto o = run("k_load_dmask");  // dmask 0xa: Y then W into v0, v1
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 5), 11u);
  EXPECT_EQ(slot(1, 5), 13u);
  EXPECT_EQ(slot(2, 5), kBad);
  EXPECT_EQ(slot(3, 5), kBad);
  o = run("k_load_d16");  // d16 dmask 0xf: (X | Y << 16), (Z | W << 16)
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 5), 10u | 11u << 16);
  EXPECT_EQ(slot(1, 5), 12u | 13u << 16);
  EXPECT_EQ(slot(2, 5), kBad);
}

TEST_F(Image, LoadMipReadsLevelZeroAndZeroPastTheLastLevel) {
  uint32_t* p = reinterpret_cast<uint32_t*>(texels(256));
  p[1] = 77;
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt32; im.num_format = ig::kNumUint;
  im.width = 2; im.height = 1;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, 1, 0, l & 1);  // 2D: x, y, then the mip level
  auto o = run("k_load_mip");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 0), 77u);
  EXPECT_EQ(slot(0, 1), 0u);  // level 1 of a one-level image
}

// ---- image_store ----

TEST_F(Image, StoresRgba8UnormWithConversionAndDropsOutOfRange) {
  uint8_t* p = texels(64 * 3 * 4, 0xEE);
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt8_8_8_8; im.num_format = ig::kNumUnorm;
  im.width = 6; im.height = 2; im.pitch = 64;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) {
    coords(l, l % 8, l / 8);
    // 0.25 -> 63.75 -> 64; 2.0 clamps to 255; -1 clamps to 0; l/255 exactly l.
    lanes[l].data[0] = fbits(0.25f); lanes[l].data[1] = fbits(2.0f);
    lanes[l].data[2] = fbits(-1.0f); lanes[l].data[3] = fbits(float(l) / 255.0f);
  }
  auto o = run("k_store");
  ASSERT_TRUE(o.ok()) << o.message;
  for (uint32_t y = 0; y < 3; ++y)
    for (uint32_t x = 0; x < 64; ++x) {
      const uint8_t* q = p + (y * 64 + x) * 4;
      if (x >= 6 || y >= 2) {  // padding and the row past the image: untouched
        for (int c = 0; c < 4; ++c) EXPECT_EQ(q[c], 0xEE) << x << "," << y;
        continue;
      }
      EXPECT_EQ(q[0], 64); EXPECT_EQ(q[1], 255); EXPECT_EQ(q[2], 0);
      EXPECT_EQ(q[3], y * 8 + x) << x << "," << y;
    }
}

TEST_F(Image, Stores32FloatAnd16_16UintAndReadsBack) {
  float* p = reinterpret_cast<float*>(texels(64 * 4));
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.type = ig::kType1D;
  im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
  im.width = 40;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) { coords(l, l); lanes[l].data[0] = fbits(0.5f * float(l) + 0.125f); }
  auto o = run("k_store_x");  // dmask 0x1: the one component of 32
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(p[i], i < 40 ? 0.5f * float(i) + 0.125f : 0.0f) << i;

  uint32_t* q = reinterpret_cast<uint32_t*>(texels(64 * 8 * 4));
  im.base = reinterpret_cast<uint64_t>(q);
  im.type = ig::kType2D;
  im.data_format = ig::kFmt16_16; im.num_format = ig::kNumUint;
  im.width = 8; im.height = 8; im.pitch = 64;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) {
    coords(l, l % 8, l / 8);
    lanes[l].data[0] = 0x10000u + l;  // the low 16 bits are stored
    lanes[l].data[1] = 3 * l;
  }
  o = run("k_store_load");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(q[(l / 8) * 64 + l % 8], l | (3 * l) << 16) << l;
    EXPECT_EQ(slot(0, l), l);  // read back by the same wave
    EXPECT_EQ(slot(1, l), 3 * l);
    EXPECT_EQ(slot(3, l), 1u);
  }
}

TEST_F(Image, StoresIntoA3DImageAndA2DArray) {
  uint32_t* p = reinterpret_cast<uint32_t*>(texels(16 * 2 * 3 * 16));
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.type = ig::kType3D;
  im.data_format = ig::kFmt32_32_32_32; im.num_format = ig::kNumUint;
  im.width = 2; im.height = 2; im.depth = 3; im.pitch = 16;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) {
    coords(l, l & 1, (l >> 1) & 1, l >> 2);  // z 0..15: only 0..2 exist
    for (unsigned c = 0; c < 4; ++c) lanes[l].data[c] = l * 4 + c;
  }
  auto o = run("k_store");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 12; ++l) {
    unsigned x = l & 1, y = (l >> 1) & 1, z = l >> 2;
    for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(p[((z * 2 + y) * 16 + x) * 4 + c], l * 4 + c);
  }

  uint32_t* a = reinterpret_cast<uint32_t*>(texels(64 * 2 * 5 * 4));
  im.base = reinterpret_cast<uint64_t>(a);
  im.type = ig::kType2DArray;
  im.data_format = ig::kFmt32; im.num_format = ig::kNumSint;
  im.width = 3; im.height = 2; im.pitch = 64; im.depth = 4; im.last_array = 3;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) { coords(l, l % 3, (l / 3) % 2, l / 6); lanes[l].data[0] = 0x100 + l; }
  o = run("k_store_da");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned sl = 0; sl < 5; ++sl)
    for (unsigned y = 0; y < 2; ++y)
      for (unsigned x = 0; x < 64; ++x) {
        uint32_t want = x < 3 && sl < 4 ? 0x100 + sl * 6 + y * 3 + x : 0;
        EXPECT_EQ(a[(sl * 2 + y) * 64 + x], want) << x << "," << y << "," << sl;
      }
}

TEST_F(Image, RefusesAPartialTexelStore) {
  uint8_t* p = texels(256);
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt8_8_8_8; im.num_format = ig::kNumUnorm;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, 0, 0);
  auto o = run("k_store_x");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("partial texel"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("image_store"), std::string::npos) << o.message;
}

// ---- image_get_resinfo ----

TEST_F(Image, ReportsSizesPerLevel) {
  ig::Image im;
  im.base = 0x1000;  // never read
  im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
  im.width = 5; im.height = 4; im.last_level = 2;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, l);
  auto o = run("k_resinfo");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 0), 5u); EXPECT_EQ(slot(1, 0), 4u); EXPECT_EQ(slot(3, 0), 3u);
  EXPECT_EQ(slot(0, 1), 2u); EXPECT_EQ(slot(1, 1), 2u);
  EXPECT_EQ(slot(0, 2), 1u); EXPECT_EQ(slot(1, 2), 1u);
  im.type = ig::kType3D; im.width = 8; im.height = 6; im.depth = 4; im.last_level = 0;
  set_image(im);
  o = run("k_resinfo");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 0), 8u); EXPECT_EQ(slot(1, 0), 6u); EXPECT_EQ(slot(2, 0), 4u); EXPECT_EQ(slot(3, 0), 1u);
}

// ---- image_sample ----

class Sample : public Image {
 protected:
  // A 4x4 single-channel 32 FLOAT image with f(x, y) = x + 10 y.
  void float_image_4x4() {
    float* p = reinterpret_cast<float*>(texels(64 * 4 * 4));
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) p[y * 64 + x] = float(x + 10 * y);
    im.base = reinterpret_cast<uint64_t>(p);
    im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
    im.width = 4; im.height = 4; im.pitch = 64;
    set_image(im);
  }
  static float f(int x, int y) { return float(x + 10 * y); }
  // Normalized coordinates of texel-space (tx, ty).
  void tex(unsigned l, float tx, float ty) { fcoords(l, tx / 4.0f, ty / 4.0f); }
  ig::Image im;
  ig::Sampler sm;
};

TEST_F(Sample, PointSamplesTexelCentresAndCorners) {
  float_image_4x4();
  set_sampler(sm);  // point, clamp to last texel, normalized
  for (unsigned l = 0; l < 16; ++l) tex(l, float(l % 4) + 0.5f, float(l / 4) + 0.5f);
  for (unsigned l = 16; l < 32; ++l) tex(l, float(l % 4) + 0.99f, float((l / 4) % 4) + 0.01f);
  for (unsigned l = 32; l < 64; ++l) tex(l, 0.5f, 0.5f);
  auto o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(fslot(0, l), f(l % 4, (l / 4) % 4)) << l;
    EXPECT_EQ(slot(1, l), 0u);
    EXPECT_EQ(slot(3, l), kOne);
  }
}

TEST_F(Sample, BilinearWeighsFourTexels) {
  float_image_4x4();
  sm.mag_filter = sm.min_filter = ig::kBilinear;
  set_sampler(sm);
  tex(0, 1.75f, 2.5f);   // a quarter of the way from texel 1 to 2 in x
  tex(1, 2.0f, 2.0f);    // the corner of four texels: their mean
  tex(2, 1.5f, 1.25f);   // three quarters of row 0, one of row 1 ... (y - 0.5 = 0.75)
  tex(3, 0.25f, 1.5f);   // clamp to the last texel on the left edge: texel 0 twice
  for (unsigned l = 4; l < 64; ++l) tex(l, 0.5f, 0.5f);
  auto o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 0.75f * f(1, 2) + 0.25f * f(2, 2));
  EXPECT_FLOAT_EQ(fslot(0, 1), (f(1, 1) + f(2, 1) + f(1, 2) + f(2, 2)) / 4);
  EXPECT_FLOAT_EQ(fslot(0, 2), 0.25f * f(1, 0) + 0.75f * f(1, 1));
  EXPECT_FLOAT_EQ(fslot(0, 3), f(0, 1));
  EXPECT_FLOAT_EQ(fslot(0, 4), f(0, 0));
}

TEST_F(Sample, RoundsCoordinatesToAn8BitSubTexelGrid) {
  // A 25x1 image of 32 FLOAT: texel i holds i.
  float* p = reinterpret_cast<float*>(texels(64 * 4));
  for (int i = 0; i < 25; ++i) p[i] = float(i);
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
  im.width = 25; im.height = 1;
  set_image(im);
  set_sampler(sm);  // point
  // AMD's device library on gfx90a snaps point samples to i * (1 / width): in float that is a
  // hair below texel i for some i; the texel read must still be i.
  bool some_below = false;
  for (unsigned l = 0; l < 64; ++l) {
    volatile float r = 1.0f / 25.0f;  // (volatile: rounded as the GPU rounds, no folding)
    volatile float c = float(l % 25) * r;
    volatile float back = c * 25.0f;
    some_below |= back < float(l % 25);  // l % 25 == 5: 0.2f * 25 < 5
    fcoords(l, c, 0.5f);
  }
  ASSERT_TRUE(some_below) << "the test needs a coordinate that lands below its texel";
  auto o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(fslot(0, l), float(l % 25)) << l;
  // Bilinear: a third of the way from texel 2 to 3 weighs texel 3 by 85/256 (8-bit fraction).
  sm.mag_filter = sm.min_filter = ig::kBilinear;
  set_sampler(sm);
  for (unsigned l = 0; l < 64; ++l) fcoords(l, (2.5f + 1.0f / 3.0f) / 25.0f, 0.5f);
  o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 2.0f * (171.0f / 256) + 3.0f * (85.0f / 256));
}

TEST_F(Sample, AppliesAddressModesAtTheEdges) {
  float_image_4x4();
  // Point samples at x = -0.5 (texel -1) and x = 4.5 (texel 4), row 1; and x = -3.5 (texel -4).
  for (unsigned l = 0; l < 64; ++l) tex(l, 0.5f, 1.5f);
  tex(0, -0.5f, 1.5f);
  tex(1, 4.5f, 1.5f);
  tex(2, -3.5f, 1.5f);
  tex(3, 6.5f, 1.5f);   // texel 6
  struct Case { ig::Clamp c; float want[4]; };
  const Case cases[] = {
      {ig::kWrap, {f(3, 1), f(0, 1), f(0, 1), f(2, 1)}},
      {ig::kMirror, {f(0, 1), f(3, 1), f(3, 1), f(1, 1)}},
      {ig::kClampLastTexel, {f(0, 1), f(3, 1), f(0, 1), f(3, 1)}},
      {ig::kMirrorOnceLastTexel, {f(0, 1), f(3, 1), f(3, 1), f(3, 1)}},
      {ig::kClampBorder, {0, 0, 0, 0}},
  };
  for (const Case& k : cases) {
    sm.clamp_x = k.c;
    set_sampler(sm);
    auto o = run("k_sample");
    ASSERT_TRUE(o.ok()) << o.message;
    for (unsigned l = 0; l < 4; ++l) EXPECT_EQ(fslot(0, l), k.want[l]) << "clamp " << int(k.c) << " lane " << l;
    EXPECT_EQ(fslot(0, 4), f(0, 1));
    if (k.c == ig::kClampBorder) { EXPECT_EQ(slot(3, 0), 0u); }  // transparent black: W = 0 too
  }
  // Opaque white border, bilinear: half a texel from the left edge weighs border and texel 0.
  sm.clamp_x = ig::kClampBorder;
  sm.border = ig::kOpaqueWhite;
  sm.mag_filter = sm.min_filter = ig::kBilinear;
  set_sampler(sm);
  tex(0, 0.25f, 1.5f);  // x - 0.5 = -0.25: texel -1 (border) weight 0.25, texel 0 weight 0.75
  auto o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 0.25f * 1.0f + 0.75f * f(0, 1));
  EXPECT_FLOAT_EQ(fslot(3, 0), 1.0f);
  EXPECT_FLOAT_EQ(fslot(0, 1), 1.0f);  // x = 4.5: both taps in the border
  // Opaque black border: W is 1, the rest 0.
  sm.border = ig::kOpaqueBlack;
  sm.mag_filter = sm.min_filter = ig::kPoint;
  set_sampler(sm);
  o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 1), 0u);
  EXPECT_EQ(slot(3, 1), kOne);
}

TEST_F(Sample, TakesUnnormalizedCoordinatesFromTheInstructionOrTheSampler) {
  float_image_4x4();
  sm.mag_filter = sm.min_filter = ig::kBilinear;
  set_sampler(sm);
  for (unsigned l = 0; l < 64; ++l) fcoords(l, 1.75f, 2.5f);  // texel space
  auto o = run("k_sample_unorm");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 0.75f * f(1, 2) + 0.25f * f(2, 2));
  sm.force_unnormalized = true;
  set_sampler(sm);
  o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 0.75f * f(1, 2) + 0.25f * f(2, 2));
  // Wrap is not defined for unnormalized coordinates: refused.
  sm.clamp_x = ig::kWrap;
  set_sampler(sm);
  o = run("k_sample");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("unnormalized"), std::string::npos) << o.message;
}

TEST_F(Sample, FiltersRgba8UnormWithSwizzleAnd1DAnd3D) {
  uint8_t* p = texels(256);
  const uint8_t t0[4] = {0, 100, 200, 255}, t1[4] = {255, 0, 100, 51};
  std::memcpy(p, t0, 4);
  std::memcpy(p + 4, t1, 4);
  im.base = reinterpret_cast<uint64_t>(p);
  im.type = ig::kType1D;
  im.data_format = ig::kFmt8_8_8_8; im.num_format = ig::kNumUnorm;
  im.width = 2; im.height = 1;
  im.dst_sel[0] = ig::kSelW; im.dst_sel[1] = ig::kSelZ; im.dst_sel[2] = ig::kSelY; im.dst_sel[3] = ig::kSel1;
  set_image(im);
  sm.mag_filter = sm.min_filter = ig::kBilinear;
  set_sampler(sm);
  for (unsigned l = 0; l < 64; ++l) fcoords(l, 0.5f);  // halfway between the two centres
  auto o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), (255.0f / 255 + 51.0f / 255) / 2);  // W
  EXPECT_FLOAT_EQ(fslot(1, 0), (200.0f / 255 + 100.0f / 255) / 2);  // Z
  EXPECT_FLOAT_EQ(fslot(2, 0), (100.0f / 255 + 0.0f) / 2);          // Y
  EXPECT_EQ(slot(3, 0), kOne);

  // 3D, 2x2x2 of 32 FLOAT: the centre is the mean of all eight texels.
  float* q = reinterpret_cast<float*>(texels(64 * 4 * 4));  // rows of 64 texels
  for (int i = 0; i < 8; ++i) q[(i >> 1) * 64 + (i & 1)] = float(1 << i);
  ig::Image v3;
  v3.base = reinterpret_cast<uint64_t>(q);
  v3.type = ig::kType3D;
  v3.data_format = ig::kFmt32; v3.num_format = ig::kNumFloat;
  v3.width = v3.height = v3.depth = 2;
  v3.pitch = 64;
  set_image(v3);
  for (unsigned l = 0; l < 64; ++l) fcoords(l, 0.5f, 0.5f, 0.5f);
  fcoords(1, 0.25f, 0.25f, 0.75f);  // texel centres: (0, 0, 1) exactly
  o = run("k_sample");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 255.0f / 8);
  EXPECT_FLOAT_EQ(fslot(0, 1), 16.0f);
}

TEST_F(Sample, PicksTheRoundedArraySliceAndReturnsIntegersForUint) {
  uint32_t* p = reinterpret_cast<uint32_t*>(texels(64 * 2 * 3 * 4));
  for (uint32_t sl = 0; sl < 3; ++sl)
    for (uint32_t i = 0; i < 4; ++i) p[(sl * 2 + i / 2) * 64 + i % 2] = 100 * sl + i;  // 2x2 slices
  im.base = reinterpret_cast<uint64_t>(p);
  im.type = ig::kType2DArray;
  im.data_format = ig::kFmt32; im.num_format = ig::kNumUint;
  im.width = 2; im.height = 2; im.pitch = 64; im.depth = 3; im.last_array = 2;
  set_image(im);
  set_sampler(sm);
  for (unsigned l = 0; l < 64; ++l) fcoords(l, 0.75f, 0.25f, 0.0f);  // texel (1, 0)
  fcoords(1, 0.75f, 0.25f, 1.4f);
  fcoords(2, 0.75f, 0.25f, 1.6f);
  fcoords(3, 0.75f, 0.25f, 7.0f);   // clamped to the last slice
  fcoords(4, 0.75f, 0.25f, -3.0f);  // clamped to slice 0
  auto o = run("k_sample_da");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 0), 1u);
  EXPECT_EQ(slot(0, 1), 101u);
  EXPECT_EQ(slot(0, 2), 201u);
  EXPECT_EQ(slot(0, 3), 201u);
  EXPECT_EQ(slot(0, 4), 1u);
  EXPECT_EQ(slot(3, 0), 1u);  // integer W = 1
  // Bilinear filtering of an integer format is refused.
  sm.mag_filter = sm.min_filter = ig::kBilinear;
  set_sampler(sm);
  o = run("k_sample_da");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("integer"), std::string::npos) << o.message;
}

TEST_F(Sample, RefusesSamplerStatesItDoesNotModel) {
  float_image_4x4();
  for (unsigned l = 0; l < 64; ++l) tex(l, 0.5f, 0.5f);
  struct Case { const char* what; ig::Sampler s; };
  ig::Sampler aniso; aniso.max_aniso = 2;
  ig::Sampler reg; reg.clamp_y = ig::kClampBorder; reg.border = ig::kRegister;
  ig::Sampler minmag; minmag.min_filter = ig::kBilinear;
  ig::Sampler half; half.clamp_x = ig::kClampHalfBorder;
  for (const Case& k : {Case{"MAX_ANISO", aniso}, Case{"REGISTER", reg}, Case{"min and mag", minmag},
                        Case{"half border", half}}) {
    set_sampler(k.s);
    auto o = run("k_sample");
    EXPECT_EQ(o.kind, Kind::Unimplemented) << k.what;
    EXPECT_NE(o.message.find(k.what), std::string::npos) << o.message;
    EXPECT_NE(o.message.find("image_sample"), std::string::npos) << o.message;
  }
}

// ---- swizzled (tiled) surfaces ----
//
// Each case stores a distinct value into every texel of a swizzled surface with image_store,
// checks the raw bytes at a table of addresses, that no byte outside the padded surface changed,
// that every texel landed in its own slot, then loads (and samples) every texel back. The
// address tables come from AMD's address library (addrlib, as ROCm 5.2's ROCr ships it:
// Addr2ComputeSurfaceAddrFromCoord for the gfx9 family with GB_ADDR_CONFIG 0x22014042, the
// emulated gfx906/gfx908/gfx90a value, texture surfaces, one mip level): byte offsets from the
// block-aligned base, the pipe/bank xor included. The padded sizes are addrlib's too (surfSize).

struct SwzPoint { uint32_t x, y, z, offset; };
struct SwzCase {
  const char* name;
  uint32_t sw_mode;
  ig::ImageType type;
  ig::DataFormat format;
  uint32_t bpt;            // bytes per texel
  uint32_t w, h, d;        // d: 3-D depth or array slices
  uint32_t pipe_bank_xor;  // T# BASE_ADDRESS bits 8 and up inside the block
  uint32_t block;          // block bytes (the base's alignment)
  uint64_t size;           // padded surface bytes
  SwzPoint pts[12];
};

void PrintTo(const SwzCase& c, std::ostream* os) { *os << c.name; }

const SwzCase kSwzCases[] = {
    // padded 128x128, block 128x128
    {"2D 64KB_D_X 32-bit", 26, ig::kType2D, ig::kFmt32, 4, 37, 21, 1, 0x2d, 65536, 65536,
     {{0, 0, 0, 0x2d00}, {1, 0, 0, 0x2d04}, {0, 1, 0, 0x2d10}, {5, 3, 0, 0x2d74}, {8, 0, 0, 0x2f00},
      {16, 16, 0, 0x2200}, {36, 20, 0, 0xba0}, {31, 7, 0, 0x26fc}, {2, 19, 0, 0x2b58}, {33, 1, 0, 0xd14},
      {12, 12, 0, 0x2ea0}, {20, 5, 0, 0x24b0}}},
    // padded 128x64x3, block 128x64: slices one 64 KB block apart, each with its slice xor
    {"2D array 64KB_D_X 64-bit", 26, ig::kType2DArray, ig::kFmt32_32, 8, 20, 9, 3, 0x13, 65536, 196608,
     {{0, 0, 0, 0x1300}, {0, 0, 1, 0x11100}, {0, 0, 2, 0x21200}, {1, 1, 0, 0x1318}, {19, 8, 0, 0x1c28},
      {19, 8, 2, 0x21d28}, {7, 3, 1, 0x111f8}, {3, 7, 2, 0x213b8}, {10, 0, 1, 0x11320}, {0, 8, 1, 0x11700},
      {15, 4, 2, 0x21168}, {4, 4, 0, 0x1240}}},
    // padded 128x64x2, block 64x32: 2x2 blocks a slice
    {"2D array 4KB_D_X 16-bit", 22, ig::kType2DArray, ig::kFmt16, 2, 70, 40, 2, 0x9, 4096, 32768,
     {{0, 0, 0, 0x900}, {0, 0, 1, 0x4b00}, {69, 39, 1, 0x777a}, {63, 31, 0, 0x5fe}, {64, 0, 0, 0x1d00},
      {0, 32, 1, 0x6300}, {17, 9, 0, 0xa12}, {40, 35, 1, 0x6ab0}, {66, 2, 1, 0x5f24}, {5, 33, 0, 0x211a},
      {31, 16, 1, 0x4f8e}, {48, 24, 0, 0x500}}},
    // thick: padded 32x32x16, one 32x32x16 block holding all six slices
    {"3D 64KB_Z_X 32-bit", 24, ig::kType3D, ig::kFmt32, 4, 20, 10, 6, 0x3e, 65536, 65536,
     {{0, 0, 0, 0x3e00}, {0, 0, 1, 0x3e20}, {1, 0, 0, 0x3e04}, {0, 1, 0, 0x3e08}, {19, 9, 5, 0x923c},
      {7, 7, 3, 0x3dfc}, {8, 0, 0, 0x2f00}, {0, 8, 0, 0x3400}, {0, 0, 4, 0x3800}, {13, 2, 5, 0x2b64},
      {3, 9, 2, 0x349c}, {16, 5, 1, 0x9f28}}},
    // thick: padded 12x8x8, blocks 4x8x8
    {"3D 4KB_Z_X 128-bit", 20, ig::kType3D, ig::kFmt32_32_32_32, 16, 9, 5, 3, 0x6, 4096, 12288,
     {{0, 0, 0, 0x600}, {1, 0, 0, 0x610}, {0, 1, 0, 0x620}, {0, 0, 1, 0x640}, {4, 0, 0, 0x1f00},
      {8, 4, 2, 0x2880}, {3, 3, 1, 0x570}, {5, 2, 2, 0x1e90}, {0, 4, 0, 0xc00}, {7, 1, 1, 0x1d70},
      {2, 4, 2, 0xe80}, {6, 3, 0, 0x1c20}}},
    // thin 3-D (D modes): padded 512x256x2, blocks 256x256, S micro tiles
    {"3D 64KB_D_X 8-bit", 26, ig::kType3D, ig::kFmt8, 1, 300, 5, 2, 0x21, 65536, 262144,
     {{0, 0, 0, 0x2100}, {1, 0, 0, 0x2101}, {0, 1, 0, 0x2110}, {0, 0, 1, 0x22300}, {256, 0, 0, 0x12500},
      {299, 4, 1, 0x32e4b}, {255, 4, 0, 0x9a4f}, {100, 2, 1, 0x20a24}, {17, 3, 0, 0x2331}, {260, 1, 1, 0x32714},
      {128, 4, 1, 0x2b340}, {64, 0, 0, 0x100}}},
};

class Swizzled : public Image, public ::testing::WithParamInterface<SwzCase> {
 protected:
  static constexpr uint8_t kSentinel = 0xA5;
  // The value of component c of texel (x, y, z): distinct per texel and never all-sentinel bytes
  // (its low byte is never 0xA5).
  static uint32_t value(const SwzCase& k, uint32_t x, uint32_t y, uint32_t z, unsigned c) {
    const uint32_t i = (z * k.h + y) * k.w + x;
    if (k.bpt == 1) return 1 + (i * 37 + c) % 0xA4;  // 1..0xA4 (not unique: 8 bits)
    if (k.bpt == 2) return i + 1;                      // below 0xA5A5 for the cases here
    return (i << 8 | 0x5A) + (c << 28);
  }
  static unsigned comps(const SwzCase& k) { return k.bpt == 16 ? 4 : k.bpt == 8 ? 2 : 1; }
  // Runs `kernel` over every texel of the case, 64 lanes at a time; `per_lane` fills a lane.
  template <class F> void each_texel(const SwzCase& k, const char* kernel, F per_lane, bool check = true) {
    const uint32_t n = k.w * k.h * k.d;
    for (uint32_t first = 0; first < n; first += 64) {
      for (unsigned l = 0; l < 64; ++l) {
        const uint32_t i = first + l;
        if (i >= n) { coords(l, k.w, 0, 0); continue; }  // outside the image
        const uint32_t x = i % k.w, y = i / k.w % k.h, z = i / (k.w * k.h);
        if (k.type == ig::kType1DArray) coords(l, x, z); else coords(l, x, y, z);
        per_lane(l, x, y, z);
      }
      auto o = run(kernel);
      ASSERT_TRUE(o.ok()) << o.message;
      if (check)
        for (unsigned l = 0; l < 64 && first + l < n; ++l) {
          const uint32_t i = first + l, x = i % k.w, y = i / k.w % k.h, z = i / (k.w * k.h);
          const uint32_t mask = k.bpt == 1 ? 0xFF : k.bpt == 2 ? 0xFFFF : 0xFFFFFFFF;
          for (unsigned c = 0; c < comps(k); ++c)
            ASSERT_EQ(slot(c, l), value(k, x, y, z, c) & mask) << k.name << " " << kernel << " (" << x << "," << y << "," << z << ") c" << c;
        }
    }
  }
};

TEST_P(Swizzled, StoresEveryTexelAtAddrlibsAddressesAndReadsThemBack) {
  const SwzCase& k = GetParam();
  // The surface at a block-aligned address with a block of sentinel bytes on either side.
  const size_t total = k.size + 3 * size_t{k.block};
  uint8_t* buf = texels(total, kSentinel);
  uint8_t* p = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(buf) + 2 * k.block - 1) & ~uintptr_t{k.block - 1});
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p) + (uint64_t{k.pipe_bank_xor} << 8);
  im.type = k.type;
  im.data_format = k.format; im.num_format = ig::kNumUint;
  im.width = k.w; im.height = k.h; im.depth = k.d;
  if (ig::is_array(k.type)) im.last_array = k.d - 1;
  im.sw_mode = k.sw_mode;
  set_image(im);
  const bool arr = ig::is_array(k.type);
  each_texel(k, arr ? "k_store_da" : "k_store", [&](unsigned l, uint32_t x, uint32_t y, uint32_t z) {
    for (unsigned c = 0; c < 4; ++c) lanes[l].data[c] = value(k, x, y, z, c);
  }, false);
  // The table's texels at addrlib's addresses.
  for (const SwzPoint& q : k.pts) {
    ASSERT_LT(q.offset + k.bpt, k.size);
    for (unsigned c = 0; c < comps(k); ++c) {
      uint32_t got = 0;
      std::memcpy(&got, p + q.offset + c * std::min(k.bpt, 4u), std::min(k.bpt, 4u));
      const uint32_t mask = k.bpt == 1 ? 0xFF : k.bpt == 2 ? 0xFFFF : 0xFFFFFFFF;
      EXPECT_EQ(got, value(k, q.x, q.y, q.z, c) & mask)
          << k.name << ": texel (" << q.x << "," << q.y << "," << q.z << ") c" << c << " at offset 0x" << std::hex << q.offset;
    }
  }
  // Nothing outside the padded surface was written; inside, one slot per texel.
  size_t outside = 0, written = 0;
  for (uint8_t* b = buf; b < p; ++b) outside += *b != kSentinel;
  for (uint8_t* b = p + k.size; b < buf + total; ++b) outside += *b != kSentinel;
  for (uint64_t off = 0; off < k.size; off += k.bpt) {
    bool any = false;
    for (unsigned b = 0; b < k.bpt; ++b) any |= p[off + b] != kSentinel;
    written += any;
  }
  EXPECT_EQ(outside, 0u) << k.name;
  EXPECT_EQ(written, size_t{k.w} * k.h * k.d) << k.name;
  // image_load of every texel (and 0 outside, lanes past the last texel: x = width).
  each_texel(k, arr ? "k_load_da" : "k_load", [](unsigned, uint32_t, uint32_t, uint32_t) {});
  // Point samples at texel centres, unnormalized coordinates.
  ig::Sampler sm;
  set_sampler(sm);
  const uint32_t n = k.w * k.h * k.d;
  for (uint32_t first = 0; first < n; first += 64 * 7) {  // every 7th chunk: sampling is the same path
    for (unsigned l = 0; l < 64; ++l) {
      const uint32_t i = std::min(first + l, n - 1), x = i % k.w, y = i / k.w % k.h, z = i / (k.w * k.h);
      if (k.type == ig::kType3D) fcoords(l, x + 0.5f, y + 0.5f, z + 0.5f);
      else coords(l, fbits(x + 0.5f), fbits(y + 0.5f), fbits(float(z)));
    }
    auto o = run(arr ? "k_sample_unorm_da" : "k_sample_unorm");
    ASSERT_TRUE(o.ok()) << o.message;
    for (unsigned l = 0; l < 64; ++l) {
      const uint32_t i = std::min(first + l, n - 1), x = i % k.w, y = i / k.w % k.h, z = i / (k.w * k.h);
      const uint32_t mask = k.bpt == 1 ? 0xFF : k.bpt == 2 ? 0xFFFF : 0xFFFFFFFF;
      ASSERT_EQ(slot(0, l), value(k, x, y, z, 0) & mask) << k.name << " sample (" << x << "," << y << "," << z << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gfx9, Swizzled, ::testing::ValuesIn(kSwzCases), [](const auto& info) {
  std::string s = info.param.name;
  for (char& c : s) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
});

// The first texels of a 64KB_D_X 32-bit surface without xor, from the D micro tile's definition
// (addrlib's 256-byte display equation for 4-byte elements: address bits 2..7 = x0 x1 y0 x2 y1
// y2): x steps 4 bytes within pairs, y0 16 bytes, x2 32 bytes.
TEST_F(Image, SwizzledDisplayMicroTileOrder) {
  uint8_t* buf = texels(2 * 65536);
  uint8_t* p = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(buf) + 65535) & ~uintptr_t{65535});
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt32; im.num_format = ig::kNumUint;
  im.width = 8; im.height = 8;
  im.sw_mode = 26;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) { coords(l, l % 8, l / 8); lanes[l].data[0] = 1000 + l; }
  auto o = run("k_store");
  ASSERT_TRUE(o.ok()) << o.message;
  const uint32_t* u = reinterpret_cast<const uint32_t*>(p);
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 8; ++x) {
      // bits 2..7 of the byte offset: x0 x1 y0 x2 y1 y2 (the pipe/bank bits 8.. are 0 in an 8x8 corner)
      const uint32_t off = (x & 1) << 2 | (x >> 1 & 1) << 3 | (y & 1) << 4 | (x >> 2 & 1) << 5 | (y >> 1 & 1) << 6 | (y >> 2 & 1) << 7;
      EXPECT_EQ(u[off / 4], 1000 + y * 8 + x) << x << "," << y;
    }
}

TEST_F(Image, RefusesASwizzledBaseNotAlignedToItsBlock) {
  uint8_t* buf = texels(3 * 65536);
  uint8_t* p = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(buf) + 65535) & ~uintptr_t{65535});
  ig::Image im;
  im.data_format = ig::kFmt32; im.num_format = ig::kNumUint;
  im.width = 8; im.height = 8;
  im.sw_mode = 26;  // 64KB_D_X: pipe/bank xor in address bits 8..13 (4 pipes, 16 banks)
  for (unsigned l = 0; l < 64; ++l) coords(l, 0, 0);
  im.base = reinterpret_cast<uint64_t>(p) + 0x3F00;  // every xor bit: fine
  set_image(im);
  auto o = run("k_load");
  EXPECT_TRUE(o.ok()) << o.message;
  im.base = reinterpret_cast<uint64_t>(p) + 0x4000;  // bit 14: inside the block, not an xor bit
  set_image(im);
  o = run("k_load");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("not aligned to the 65536-byte block"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("SW_MODE 26 (64KB_D_X)"), std::string::npos) << o.message;
}

// ---- faults and refusals ----

TEST_F(Image, RefusesASwizzledSurfaceNamingItsMode) {
  uint8_t* buf = texels(2 * 65536);
  uint8_t* p = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(buf) + 65535) & ~uintptr_t{65535});
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
  im.width = 8; im.height = 8;
  for (unsigned l = 0; l < 64; ++l) coords(l, 0, 0);
  // PRT (_T) and VAR modes, a 2-D R mode with 16-byte texels (addrlib defines none), a
  // swizzled 1-D image, a mip chain.
  struct { uint32_t mode; ig::ImageType type; ig::DataFormat fmt; uint32_t last_level; const char* what; } cases[] = {
      {17, ig::kType2D, ig::kFmt32, 0, "SW_MODE 17 (64KB_S_T)"},
      {28, ig::kType2D, ig::kFmt32, 0, "SW_MODE 28 (VAR_Z_X)"},
      {27, ig::kType2D, ig::kFmt32_32_32_32, 0, "SW_MODE 27 (64KB_R_X) with 16-byte elements"},
      {26, ig::kType1D, ig::kFmt32, 0, "SW_MODE 26 (64KB_D_X) of a 1-D image"},
      {26, ig::kType2D, ig::kFmt32, 1, "SW_MODE 26 (64KB_D_X) with mip levels"},
  };
  for (const auto& c : cases) {
    im.sw_mode = c.mode; im.type = c.type; im.data_format = c.fmt; im.last_level = c.last_level;
    set_image(im);
    auto o = run("k_load");
    EXPECT_EQ(o.kind, Kind::Unimplemented) << c.what;
    EXPECT_NE(o.message.find(c.what), std::string::npos) << o.message;
    EXPECT_NE(o.message.find("image_load"), std::string::npos) << o.message;
  }
}

TEST_F(Image, RefusesARowPitchThatIsNotA256ByteMultiple) {
  uint8_t* p = texels(4096);
  ig::Image im;
  im.base = reinterpret_cast<uint64_t>(p);
  im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
  im.width = 8; im.height = 8; im.pitch = 8;  // 32-byte rows
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, 0, 0);
  auto o = run("k_load");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("PITCH of 8 texels (32 bytes)"), std::string::npos) << o.message;
  im.pitch = 64;  // 256-byte rows
  set_image(im);
  o = run("k_load");
  EXPECT_TRUE(o.ok()) << o.message;
  im.height = 1; im.pitch = 8;  // one row: the pitch is never used
  set_image(im);
  o = run("k_load");
  EXPECT_TRUE(o.ok()) << o.message;
}

TEST_F(Image, FaultsOnAnUnmappedTexelLikeAGlobalLoad) {
  const uint64_t base = 0x100000;  // no GPU mapping there (the test's memory maps only its buffers)
  ig::Image im;
  im.base = base;
  im.data_format = ig::kFmt32; im.num_format = ig::kNumUint;
  im.width = 64; im.height = 1;
  set_image(im);
  for (unsigned l = 0; l < 64; ++l) coords(l, 3 + (l & 1), 0);
  auto o = run("k_load");
  ASSERT_EQ(o.kind, Kind::MemoryFault) << o.message;
  EXPECT_EQ(o.fault_va, base + 12);
}

// ---- buffer_load_format / buffer_store_format ----

TEST_F(Image, LoadsFormattedBufferElementsByIndexWithAStride) {
  // 10 elements of 8_8_8_8 UNORM, 8 bytes apart (4 bytes of element, 4 of other data).
  uint8_t* p = texels(16 * 8, 0x77);
  for (unsigned i = 0; i < 10; ++i) { p[i * 8] = uint8_t(i); p[i * 8 + 1] = uint8_t(2 * i); p[i * 8 + 2] = 255; p[i * 8 + 3] = 0; }
  ig::BufferFormat f;
  f.data_format = ig::kFmt8_8_8_8; f.num_format = ig::kNumUnorm;
  f.dst_sel[3] = ig::kSel1;
  uint64_t base = reinterpret_cast<uint64_t>(p);
  v[0] = static_cast<uint32_t>(base);
  v[1] = static_cast<uint32_t>(base >> 32) | 8u << 16;  // stride 8
  v[2] = 10;                                             // num_records: elements
  v[3] = ig::encode_buffer_word3(f);
  for (unsigned l = 0; l < 64; ++l) coords(l, l);
  auto o = run("k_buf_load_fmt");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    if (l >= 10) { for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(slot(c, l), 0u) << l; continue; }
    EXPECT_FLOAT_EQ(fslot(0, l), float(l) / 255.0f);
    EXPECT_FLOAT_EQ(fslot(1, l), float(2 * l) / 255.0f);
    EXPECT_EQ(slot(2, l), kOne);
    EXPECT_EQ(slot(3, l), kOne);  // DST_SEL_W = 1
  }
  // buffer_load_format_x of 32 FLOAT elements 12 bytes apart.
  float* q = reinterpret_cast<float*>(texels(64 * 12));
  for (unsigned i = 0; i < 64; ++i) q[i * 3] = float(i) * -0.5f;
  base = reinterpret_cast<uint64_t>(q);
  f = {};
  f.data_format = ig::kFmt32; f.num_format = ig::kNumFloat;
  v[0] = static_cast<uint32_t>(base);
  v[1] = static_cast<uint32_t>(base >> 32) | 12u << 16;
  v[2] = 64;
  v[3] = ig::encode_buffer_word3(f);
  o = run("k_buf_load_fmt_x");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(fslot(0, l), float(l) * -0.5f) << l;
  EXPECT_EQ(slot(1, 0), kBad);
}

TEST_F(Image, StoresFormattedBufferElementsAndDropsOutOfRange) {
  // 16_16_16_16 UINT elements 12 bytes apart, 20 records.
  uint8_t* p = texels(64 * 12, 0xEE);
  ig::BufferFormat f;
  f.data_format = ig::kFmt16_16_16_16; f.num_format = ig::kNumUint;
  uint64_t base = reinterpret_cast<uint64_t>(p);
  v[0] = static_cast<uint32_t>(base);
  v[1] = static_cast<uint32_t>(base >> 32) | 12u << 16;
  v[2] = 20;
  v[3] = ig::encode_buffer_word3(f);
  for (unsigned l = 0; l < 64; ++l) {
    coords(l, l);
    for (unsigned c = 0; c < 4; ++c) lanes[l].data[c] = 0xAB0000u + l * 4 + c;
  }
  auto o = run("k_buf_store_fmt");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned i = 0; i < 64; ++i) {
    uint16_t e[4];
    std::memcpy(e, p + i * 12, 8);
    for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(e[c], i < 20 ? uint16_t(i * 4 + c) : 0xEEEE) << i;
    for (unsigned b = 8; b < 12; ++b) EXPECT_EQ(p[i * 12 + b], 0xEE) << i;  // the gap is untouched
  }
  // d16 load of 16_16_16_16 FLOAT: the halves come back packed.
  uint16_t* h = reinterpret_cast<uint16_t*>(texels(64 * 8));
  for (unsigned i = 0; i < 64; ++i) { h[4 * i] = 0x3C00; h[4 * i + 1] = 0xC000; h[4 * i + 2] = 0x3800; h[4 * i + 3] = 0x0000; }
  f.data_format = ig::kFmt16_16_16_16; f.num_format = ig::kNumFloat;
  base = reinterpret_cast<uint64_t>(h);
  v[0] = static_cast<uint32_t>(base);
  v[1] = static_cast<uint32_t>(base >> 32) | 8u << 16;
  v[2] = 64;
  v[3] = ig::encode_buffer_word3(f);
  o = run("k_buf_load_fmt_d16");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 9), 0x3C00u | 0xC000u << 16);
  EXPECT_EQ(slot(1, 9), 0x3800u);
  EXPECT_EQ(slot(2, 9), kBad);
}

TEST_F(Image, RefusesAnUnimplementedBufferFormat) {
  uint8_t* p = texels(256);
  ig::BufferFormat f;
  f.data_format = ig::kFmt10_10_10_2; f.num_format = ig::kNumUnorm;
  uint64_t base = reinterpret_cast<uint64_t>(p);
  v[0] = static_cast<uint32_t>(base);
  v[1] = static_cast<uint32_t>(base >> 32) | 4u << 16;
  v[2] = 4;
  v[3] = ig::encode_buffer_word3(f);
  for (unsigned l = 0; l < 64; ++l) coords(l, 0);
  auto o = run("k_buf_load_fmt");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("10_10_10_2"), std::string::npos) << o.message;
}

}  // namespace

namespace {

// gfx906: the explicit-LOD samples (gfx90a has only image_sample) and tfe.
class ImageGfx906 : public IsaTest {
 protected:
  ImageGfx906() : IsaTest(emu::shader::Target::gfx906) {}
  struct Lane {
    uint32_t addr[4];
    uint32_t data[4];
  };
  void SetUp() override {
    lanes = mem.alloc_array<Lane>(64);
    float* p = reinterpret_cast<float*>(mem.alloc(64 * 4 * 4));
    for (int i = 0; i < 16; ++i) p[(i / 4) * 64 + i % 4] = float(i % 4 + 10 * (i / 4));  // f(x, y) = x + 10 y, 4x4
    im.base = reinterpret_cast<uint64_t>(p);
    im.data_format = ig::kFmt32; im.num_format = ig::kNumFloat;
    im.width = 4; im.height = 4; im.pitch = 64;
  }
  emu::shader::Outcome run(const char* kernel) {
    ig::encode(im, t);
    ig::encode(sm, s);
    Args a;
    a.add(reinterpret_cast<uint64_t>(lanes));
    for (uint32_t x : t) a.add(x);
    for (uint32_t x : s) a.add(x);
    for (uint32_t x : v) a.add(x);
    return run_isa("image_gfx906.co", kernel, 64, 64, a);
  }
  void set(unsigned l, float a0, float a1, float a2) {
    lanes[l].addr[0] = fbits(a0); lanes[l].addr[1] = fbits(a1); lanes[l].addr[2] = fbits(a2);
  }
  Lane* lanes = nullptr;
  ig::Image im;
  ig::Sampler sm;
  uint32_t t[8] = {}, s[4] = {}, v[4] = {};
};

// Texel space (1.75, 2.5): a quarter of the way from texel (1, 2) to (2, 2) = 21.25 bilinear, 21 point.
constexpr float kU = 1.75f / 4, kV = 2.5f / 4;

TEST_F(ImageGfx906, SampleLzMagnifies) {
  sm.mag_filter = ig::kBilinear;  // LOD 0 is magnification
  sm.min_filter = ig::kPoint;
  for (unsigned l = 0; l < 64; ++l) set(l, kU, kV, 0);
  auto o = run("k_sample_lz");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 21.25f);
  EXPECT_EQ(slot(3, 0), kOne);
}

TEST_F(ImageGfx906, SampleLPicksTheFilterByLod) {
  sm.mag_filter = ig::kBilinear;
  sm.min_filter = ig::kPoint;
  for (unsigned l = 0; l < 64; ++l) set(l, kU, kV, l & 1 ? 1.0f : 0.0f);  // x, y, lod
  auto o = run("k_sample_l");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_FLOAT_EQ(fslot(0, 0), 21.25f);  // LOD 0: magnified, bilinear
  EXPECT_EQ(fslot(0, 1), 21.0f);         // LOD 1: minified, point (one level: level 0)
  // A mipmapped image sampled past level 0 is refused, naming the level.
  im.last_level = 2;
  sm.mip_filter = ig::kMipPoint;
  o = run("k_sample_l");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("sampling level 1"), std::string::npos) << o.message;
}

TEST_F(ImageGfx906, SampleBReadsTheBiasBeforeTheCoordinates) {
  for (unsigned l = 0; l < 64; ++l) set(l, 3.0f, kU, kV);  // bias, x, y
  auto o = run("k_sample_b");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(fslot(0, 0), 21.0f);  // point
}

TEST_F(ImageGfx906, RefusesTfe) {
  for (unsigned l = 0; l < 64; ++l) { lanes[l].addr[0] = 0; lanes[l].addr[1] = 0; }
  auto o = run("k_load_tfe");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("tfe"), std::string::npos) << o.message;
}

TEST_F(ImageGfx906, BufferTfeIsRefusedByName) {
  auto o = run("k_buffer_tfe");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("TFE"), std::string::npos) << o.message;
}

}  // namespace
