// SPDX-License-Identifier: MIT
// The gfx9 T#/S#/typed-V# encoders against hand-computed dwords, and encode/decode round trips.
#include <gtest/gtest.h>

#include "pm4/image_gfx9.h"

namespace {

namespace ig = pm4::image_gfx9;

TEST(ImageGfx9, EncodesImageFieldsAtDocumentedBits) {
  ig::Image im;
  im.base = 0x12'3456'7800;  // 256-byte aligned
  im.type = ig::kType2D;
  im.data_format = ig::kFmt8_8_8_8;
  im.num_format = ig::kNumUnorm;
  im.width = 100;
  im.height = 7;
  im.pitch = 128;
  uint32_t t[8];
  ig::encode(im, t);
  EXPECT_EQ(t[0], 0x12345678u);                       // BASE_ADDRESS = base >> 8
  EXPECT_EQ(t[1], 0x00u | 10u << 20 | 0u << 26);      // BASE_HI 0, DATA_FORMAT 10, NUM_FORMAT 0
  EXPECT_EQ(t[2], 99u | 6u << 14);                    // WIDTH-1, HEIGHT-1
  EXPECT_EQ(t[3], (4u | 5u << 3 | 6u << 6 | 7u << 9) | 9u << 28);  // X,Y,Z,W; SW_MODE 0; TYPE 2D
  EXPECT_EQ(t[4], 0u | 127u << 13);                   // DEPTH-1 = 0, PITCH-1 = 127
  EXPECT_EQ(t[5], 0u);
  im.base = uint64_t{0xAB} << 40;
  ig::encode(im, t);
  EXPECT_EQ(t[0], 0u);
  EXPECT_EQ(t[1] & 0xFF, 0xABu);
}

TEST(ImageGfx9, RoundTripsImages) {
  ig::Image im;
  im.base = 0x7F'FFFF'FF00;
  im.type = ig::kType2DArray;
  im.data_format = ig::kFmt32_32_32_32;
  im.num_format = ig::kNumUint;
  im.width = 16384;
  im.height = 3;
  im.pitch = 65536;
  im.dst_sel[0] = ig::kSelZ; im.dst_sel[1] = ig::kSel0; im.dst_sel[2] = ig::kSel1; im.dst_sel[3] = ig::kSelX;
  im.base_level = 2; im.last_level = 5; im.base_array = 3; im.last_array = 8; im.sw_mode = 9; im.max_mip = 6;
  uint32_t t[8];
  ig::encode(im, t);
  ig::Image d = ig::decode_image(t);
  EXPECT_EQ(d.base, im.base);
  EXPECT_EQ(d.type, im.type);
  EXPECT_EQ(d.data_format, im.data_format);
  EXPECT_EQ(d.num_format, im.num_format);
  EXPECT_EQ(d.width, 16384u);
  EXPECT_EQ(d.height, 3u);
  EXPECT_EQ(d.pitch, 65536u);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(d.dst_sel[c], im.dst_sel[c]);
  EXPECT_EQ(d.base_level, 2u); EXPECT_EQ(d.last_level, 5u);
  EXPECT_EQ(d.base_array, 3u); EXPECT_EQ(d.last_array, 8u); EXPECT_EQ(d.depth, 9u);
  EXPECT_EQ(d.sw_mode, 9u); EXPECT_EQ(d.max_mip, 6u);
  EXPECT_EQ(t[4] & 0x1FFF, 8u);  // arrays: WORD4.DEPTH is the last slice
  // 3D: WORD4.DEPTH is depth - 1; pitch 0 means width.
  ig::Image v;
  v.type = ig::kType3D; v.width = 5; v.height = 6; v.depth = 7; v.data_format = ig::kFmt32; v.num_format = ig::kNumFloat;
  ig::encode(v, t);
  EXPECT_EQ(t[4], 6u | 4u << 13);
  d = ig::decode_image(t);
  EXPECT_EQ(d.depth, 7u); EXPECT_EQ(d.pitch, 5u); EXPECT_EQ(d.last_array, 0u);
  EXPECT_EQ(t[1], 4u << 20 | 7u << 26);
}

TEST(ImageGfx9, EncodesSamplerFieldsAtDocumentedBits) {
  ig::Sampler s;
  s.clamp_x = ig::kWrap; s.clamp_y = ig::kMirror; s.clamp_z = ig::kClampBorder;
  s.force_unnormalized = true;
  s.mag_filter = ig::kBilinear; s.min_filter = ig::kPoint; s.mip_filter = ig::kMipLinear;
  s.border = ig::kOpaqueWhite;
  s.min_lod = 1.5f; s.max_lod = 4.0f; s.lod_bias = -1.25f;
  uint32_t w[4];
  ig::encode(s, w);
  EXPECT_EQ(w[0], 0u | 1u << 3 | 6u << 6 | 1u << 15);
  EXPECT_EQ(w[1], 0x180u | 0x400u << 12);             // u4.8: 1.5 = 0x180, 4.0 = 0x400
  EXPECT_EQ(w[2], (0x4000u - 0x140u) | 1u << 20 | 2u << 26);  // s5.8 -1.25 = -0x140
  EXPECT_EQ(w[3], 2u << 30);
  ig::Sampler d = ig::decode_sampler(w);
  EXPECT_EQ(d.clamp_x, ig::kWrap); EXPECT_EQ(d.clamp_y, ig::kMirror); EXPECT_EQ(d.clamp_z, ig::kClampBorder);
  EXPECT_TRUE(d.force_unnormalized);
  EXPECT_EQ(d.mag_filter, ig::kBilinear); EXPECT_EQ(d.min_filter, ig::kPoint);
  EXPECT_EQ(d.mip_filter, ig::kMipLinear); EXPECT_EQ(d.border, ig::kOpaqueWhite);
  EXPECT_FLOAT_EQ(d.min_lod, 1.5f); EXPECT_FLOAT_EQ(d.max_lod, 4.0f); EXPECT_FLOAT_EQ(d.lod_bias, -1.25f);
}

TEST(ImageGfx9, EncodesTypedBufferWord3) {
  ig::BufferFormat f;
  f.data_format = ig::kFmt16_16; f.num_format = ig::kNumFloat;
  f.dst_sel[2] = ig::kSel0; f.dst_sel[3] = ig::kSel1;
  uint32_t v[4] = {0, 0, 0, ig::encode_buffer_word3(f, 0xFFFFFFFFu)};
  EXPECT_EQ(v[3] & 0x7FFFFu, 4u | 5u << 3 | 0u << 6 | 1u << 9 | 7u << 12 | 5u << 15);
  EXPECT_EQ(v[3] >> 19, 0xFFFFFFFFu >> 19);  // the other V# bits are kept
  ig::BufferFormat d = ig::decode_buffer_format(v);
  EXPECT_EQ(d.data_format, ig::kFmt16_16); EXPECT_EQ(d.num_format, ig::kNumFloat);
  EXPECT_EQ(d.dst_sel[0], ig::kSelX); EXPECT_EQ(d.dst_sel[3], ig::kSel1);
}

TEST(ImageGfx9, SizesFormats) {
  EXPECT_EQ(ig::bytes_per_texel(ig::kFmt8), 1u);
  EXPECT_EQ(ig::bytes_per_texel(ig::kFmt16_16), 4u);
  EXPECT_EQ(ig::bytes_per_texel(ig::kFmt32_32_32), 12u);
  EXPECT_EQ(ig::bytes_per_texel(ig::kFmt32_32_32_32), 16u);
  EXPECT_EQ(ig::bytes_per_texel(ig::kFmtInvalid), 0u);
  EXPECT_EQ(ig::components(ig::kFmt8_8_8_8), 4u);
  EXPECT_EQ(ig::components(ig::kFmt11_11_10), 3u);
  EXPECT_EQ(ig::components(ig::kFmt16_16), 2u);
}

}  // namespace
