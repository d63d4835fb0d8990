// SPDX-License-Identifier: MIT
// gfx9 image resource (T#), sampler (S#) and typed-buffer format fields: one header for the
// runtime's encoder and the emulated shader core's decoder.
//
// Sources of the layouts (facts, not code): AMD "Vega" Instruction Set Architecture reference,
// chapter "Vector Memory Operations" (the Image Resource, Image Sampler and Buffer Resource
// tables, and the data and number format lists); AMD "MI200 (CDNA2)" ISA reference, same
// chapter; AMD's gfx9 register descriptions of SQ_IMG_RSRC_WORD0..7, SQ_IMG_SAMP_WORD0..3 and
// SQ_BUF_RSRC_WORD3 (the bit positions below).
//
// Linear images for gfx9 hardware (AMD's gfx9 surface layout, SW_LINEAR): base 256-byte aligned,
// rows a multiple of 256 bytes apart (pitch a multiple of 256 / bytes_per_texel texels), slices
// (3D, arrays) pitch * height texels apart.
#pragma once

#include <cstdint>

#include "pm4/scratch_regs.h"

namespace pm4::image_gfx9 {

// IMG_DATA_FORMAT / BUF_DATA_FORMAT (the values 0..14 are common to both; images have more, past
// 15, that neither side here uses).
enum DataFormat : uint32_t {
  kFmtInvalid = 0, kFmt8 = 1, kFmt16 = 2, kFmt8_8 = 3, kFmt32 = 4, kFmt16_16 = 5,
  kFmt10_11_11 = 6, kFmt11_11_10 = 7, kFmt10_10_10_2 = 8, kFmt2_10_10_10 = 9, kFmt8_8_8_8 = 10,
  kFmt32_32 = 11, kFmt16_16_16_16 = 12, kFmt32_32_32 = 13, kFmt32_32_32_32 = 14,
};
// IMG_NUM_FORMAT (4 bits) / BUF_NUM_FORMAT (3 bits: SRGB is image-only). 6 is reserved on gfx9.
enum NumFormat : uint32_t {
  kNumUnorm = 0, kNumSnorm = 1, kNumUscaled = 2, kNumSscaled = 3, kNumUint = 4, kNumSint = 5,
  kNumFloat = 7, kNumSrgb = 9,
};
// SQ_RSRC_IMG_* resource types (T# word3 TYPE); 0 is a buffer (V#).
enum ImageType : uint32_t {
  kType1D = 8, kType2D = 9, kType3D = 10, kTypeCube = 11, kType1DArray = 12, kType2DArray = 13,
  kType2DMsaa = 14, kType2DMsaaArray = 15,
};
// SQ_SEL_*: DST_SEL_X/Y/Z/W of T# and V#.
enum Sel : uint8_t { kSel0 = 0, kSel1 = 1, kSelX = 4, kSelY = 5, kSelZ = 6, kSelW = 7 };
// SQ_TEX_CLAMP: S# CLAMP_X/Y/Z.
enum Clamp : uint8_t {
  kWrap = 0, kMirror = 1, kClampLastTexel = 2, kMirrorOnceLastTexel = 3, kClampHalfBorder = 4,
  kMirrorOnceHalfBorder = 5, kClampBorder = 6, kMirrorOnceBorder = 7,
};
// SQ_TEX_XY_FILTER: S# XY_MAG_FILTER / XY_MIN_FILTER.
enum Filter : uint8_t { kPoint = 0, kBilinear = 1, kAnisoPoint = 2, kAnisoBilinear = 3 };
// SQ_TEX_Z_FILTER: S# Z_FILTER and MIP_FILTER.
enum MipFilter : uint8_t { kMipNone = 0, kMipPoint = 1, kMipLinear = 2 };
// SQ_TEX_BORDER_COLOR: S# BORDER_COLOR_TYPE (REGISTER reads the border color table).
enum BorderColor : uint8_t { kTransBlack = 0, kOpaqueBlack = 1, kOpaqueWhite = 2, kRegister = 3 };

// T# (8 dwords) field positions, gfx9 (SQ_IMG_RSRC_WORDn).
// word0: BASE_ADDRESS[31:0] = address bits 39:8 (the base is 256-byte aligned)
// word1
constexpr unsigned kBaseHiShift = 0, kBaseHiBits = 8;         // address bits 47:40
constexpr unsigned kMinLodShift = 8, kMinLodBits = 12;        // u4.8
constexpr unsigned kDataFormatShift = 20, kDataFormatBits = 6;
constexpr unsigned kNumFormatShift = 26, kNumFormatBits = 4;
// word2: WIDTH-1, HEIGHT-1
constexpr unsigned kWidthShift = 0, kHeightShift = 14, kSizeBits = 14;
// word3
constexpr unsigned kDstSelShift = 0;  // 3 bits each: X 2:0, Y 5:3, Z 8:6, W 11:9
constexpr unsigned kBaseLevelShift = 12, kLastLevelShift = 16, kLevelBits = 4;
constexpr unsigned kSwModeShift = 20, kSwModeBits = 5;        // 0 = SW_LINEAR
constexpr unsigned kTypeShift = 28, kTypeBits = 4;
// word4: DEPTH = depth-1 (3D) or the last array slice (arrays, cube); PITCH = pitch-1 in texels
constexpr unsigned kDepthShift = 0, kDepthBits = 13;
constexpr unsigned kPitchShift = 13, kPitchBits = 16;
// word5
constexpr unsigned kBaseArrayShift = 0, kBaseArrayBits = 13;
constexpr unsigned kArrayPitchShift = 13, kArrayPitchBits = 4;
constexpr unsigned kMaxMipShift = 28, kMaxMipBits = 4;
// word6 COMPRESSION_EN (a compressed (DCC) surface)
constexpr unsigned kCompressionEnBit = 21;

// S# (4 dwords) field positions, gfx9 (SQ_IMG_SAMP_WORDn).
// word0
constexpr unsigned kClampXShift = 0, kClampYShift = 3, kClampZShift = 6;  // 3 bits each
constexpr unsigned kMaxAnisoShift = 9, kMaxAnisoBits = 3;
constexpr unsigned kDepthCompareShift = 12, kDepthCompareBits = 3;
constexpr unsigned kForceUnnormalizedBit = 15;
constexpr unsigned kForceDegammaBit = 20;
constexpr unsigned kTruncCoordBit = 27;
constexpr unsigned kFilterModeShift = 29, kFilterModeBits = 2;  // 0 = blend; 1 min, 2 max
// word1: MIN_LOD, MAX_LOD u4.8
constexpr unsigned kSampMinLodShift = 0, kSampMaxLodShift = 12, kLodBits = 12;
// word2
constexpr unsigned kLodBiasShift = 0, kLodBiasBits = 14;  // s5.8
constexpr unsigned kMagFilterShift = 20, kMinFilterShift = 22, kZFilterShift = 24,
                   kMipFilterShift = 26;  // 2 bits each
// word3
constexpr unsigned kBorderColorPtrShift = 0, kBorderColorPtrBits = 12;
constexpr unsigned kBorderColorTypeShift = 30;  // 2 bits

namespace detail {
constexpr uint32_t field(uint32_t w, unsigned shift, unsigned bits) {
  return (w >> shift) & ((bits >= 32 ? 0u : 1u << bits) - 1u);
}
constexpr uint32_t put(uint32_t v, unsigned shift, unsigned bits) {
  return (v & ((1u << bits) - 1u)) << shift;
}
// LOD values are fixed point with 8 fraction bits (u4.8 MIN/MAX_LOD, s5.8 LOD_BIAS).
constexpr uint32_t lod_fixed(float v, unsigned bits, bool is_signed) {
  float lo = is_signed ? -float(1u << (bits - 9)) : 0.0f;
  float hi = float(1u << (bits - (is_signed ? 9 : 8))) - 1.0f / 256;
  v = v < lo ? lo : v > hi ? hi : v;
  int32_t f = static_cast<int32_t>(v * 256.0f + (v < 0 ? -0.5f : 0.5f));
  return static_cast<uint32_t>(f) & ((1u << bits) - 1u);
}
constexpr float lod_float(uint32_t f, unsigned bits, bool is_signed) {
  int32_t v = static_cast<int32_t>(f);
  if (is_signed && (f >> (bits - 1)) & 1) v -= int32_t(1u << bits);
  return float(v) / 256.0f;
}
}  // namespace detail

constexpr bool is_array(ImageType t) {
  return t == kType1DArray || t == kType2DArray || t == kTypeCube || t == kType2DMsaaArray;
}

struct Image {
  uint64_t base = 0;  // 256-byte aligned (T# BASE_ADDRESS holds base >> 8)
  ImageType type = kType2D;
  DataFormat data_format = kFmt8_8_8_8;
  NumFormat num_format = kNumUnorm;
  uint32_t width = 1, height = 1;
  // 3D: the depth. Arrays: the number of slices; the T# has no such field on gfx9 (WORD4.DEPTH
  // holds the last slice), so encode() writes last_array when it is set, else depth - 1.
  uint32_t depth = 1;
  uint32_t pitch = 0;  // texels per row; 0 = width
  Sel dst_sel[4] = {kSelX, kSelY, kSelZ, kSelW};
  uint32_t base_level = 0, last_level = 0;
  uint32_t base_array = 0, last_array = 0;
  uint32_t sw_mode = 0;  // 0 = linear (SW_LINEAR)
  uint32_t min_lod = 0;  // T# MIN_LOD, raw u4.8
  uint32_t max_mip = 0;  // T# MAX_MIP: number of levels of the resource - 1
};

constexpr void encode(const Image& im, uint32_t t[8]) {
  using detail::put;
  uint64_t a = im.base >> 8;
  t[0] = static_cast<uint32_t>(a);
  t[1] = put(static_cast<uint32_t>(a >> 32), kBaseHiShift, kBaseHiBits) |
         put(im.min_lod, kMinLodShift, kMinLodBits) |
         put(im.data_format, kDataFormatShift, kDataFormatBits) |
         put(im.num_format, kNumFormatShift, kNumFormatBits);
  t[2] = put(im.width - 1, kWidthShift, kSizeBits) | put(im.height - 1, kHeightShift, kSizeBits);
  t[3] = put(im.dst_sel[0], kDstSelShift, 3) | put(im.dst_sel[1], kDstSelShift + 3, 3) |
         put(im.dst_sel[2], kDstSelShift + 6, 3) | put(im.dst_sel[3], kDstSelShift + 9, 3) |
         put(im.base_level, kBaseLevelShift, kLevelBits) |
         put(im.last_level, kLastLevelShift, kLevelBits) |
         put(im.sw_mode, kSwModeShift, kSwModeBits) | put(im.type, kTypeShift, kTypeBits);
  uint32_t depth_field = is_array(im.type) ? (im.last_array ? im.last_array : im.depth - 1)
                                           : im.depth - 1;
  t[4] = put(depth_field, kDepthShift, kDepthBits) |
         put((im.pitch ? im.pitch : im.width) - 1, kPitchShift, kPitchBits);
  t[5] = put(im.base_array, kBaseArrayShift, kBaseArrayBits) |
         put(im.max_mip, kMaxMipShift, kMaxMipBits);
  t[6] = 0;
  t[7] = 0;
}

constexpr Image decode_image(const uint32_t t[8]) {
  using detail::field;
  Image im;
  im.base = (uint64_t{t[0]} | uint64_t{field(t[1], kBaseHiShift, kBaseHiBits)} << 32) << 8;
  im.min_lod = field(t[1], kMinLodShift, kMinLodBits);
  im.data_format = static_cast<DataFormat>(field(t[1], kDataFormatShift, kDataFormatBits));
  im.num_format = static_cast<NumFormat>(field(t[1], kNumFormatShift, kNumFormatBits));
  im.width = field(t[2], kWidthShift, kSizeBits) + 1;
  im.height = field(t[2], kHeightShift, kSizeBits) + 1;
  for (unsigned c = 0; c < 4; ++c) im.dst_sel[c] = static_cast<Sel>(field(t[3], kDstSelShift + 3 * c, 3));
  im.base_level = field(t[3], kBaseLevelShift, kLevelBits);
  im.last_level = field(t[3], kLastLevelShift, kLevelBits);
  im.sw_mode = field(t[3], kSwModeShift, kSwModeBits);
  im.type = static_cast<ImageType>(field(t[3], kTypeShift, kTypeBits));
  uint32_t d = field(t[4], kDepthShift, kDepthBits);
  im.depth = d + 1;
  if (is_array(im.type)) im.last_array = d;
  im.pitch = field(t[4], kPitchShift, kPitchBits) + 1;
  im.base_array = field(t[5], kBaseArrayShift, kBaseArrayBits);
  im.max_mip = field(t[5], kMaxMipShift, kMaxMipBits);
  return im;
}

struct Sampler {
  Clamp clamp_x = kClampLastTexel, clamp_y = kClampLastTexel, clamp_z = kClampLastTexel;
  bool force_unnormalized = false;
  Filter mag_filter = kPoint, min_filter = kPoint;
  MipFilter z_filter = kMipNone;   // filter between 3D slices (NONE: the XY filter applies)
  MipFilter mip_filter = kMipNone;
  BorderColor border = kTransBlack;
  uint32_t border_color_ptr = 0;   // index into the border color table (kRegister)
  uint8_t max_aniso = 0;           // log2 of the ratio
  uint8_t depth_compare = 0;       // SQ_TEX_DEPTH_COMPARE; 0 = never (no compare)
  uint8_t filter_mode = 0;         // 0 = blend (min/max reductions: 1, 2)
  bool trunc_coord = false;
  float min_lod = 0.0f, max_lod = 15.0f, lod_bias = 0.0f;  // stored as u4.8, u4.8, s5.8
};

constexpr void encode(const Sampler& s, uint32_t w[4]) {
  using detail::put;
  w[0] = put(s.clamp_x, kClampXShift, 3) | put(s.clamp_y, kClampYShift, 3) |
         put(s.clamp_z, kClampZShift, 3) | put(s.max_aniso, kMaxAnisoShift, kMaxAnisoBits) |
         put(s.depth_compare, kDepthCompareShift, kDepthCompareBits) |
         put(s.force_unnormalized, kForceUnnormalizedBit, 1) |
         put(s.trunc_coord, kTruncCoordBit, 1) |
         put(s.filter_mode, kFilterModeShift, kFilterModeBits);
  w[1] = put(detail::lod_fixed(s.min_lod, kLodBits, false), kSampMinLodShift, kLodBits) |
         put(detail::lod_fixed(s.max_lod, kLodBits, false), kSampMaxLodShift, kLodBits);
  w[2] = put(detail::lod_fixed(s.lod_bias, kLodBiasBits, true), kLodBiasShift, kLodBiasBits) |
         put(s.mag_filter, kMagFilterShift, 2) | put(s.min_filter, kMinFilterShift, 2) |
         put(s.z_filter, kZFilterShift, 2) | put(s.mip_filter, kMipFilterShift, 2);
  w[3] = put(s.border_color_ptr, kBorderColorPtrShift, kBorderColorPtrBits) |
         put(s.border, kBorderColorTypeShift, 2);
}

constexpr Sampler decode_sampler(const uint32_t w[4]) {
  using detail::field;
  Sampler s;
  s.clamp_x = static_cast<Clamp>(field(w[0], kClampXShift, 3));
  s.clamp_y = static_cast<Clamp>(field(w[0], kClampYShift, 3));
  s.clamp_z = static_cast<Clamp>(field(w[0], kClampZShift, 3));
  s.max_aniso = static_cast<uint8_t>(field(w[0], kMaxAnisoShift, kMaxAnisoBits));
  s.depth_compare = static_cast<uint8_t>(field(w[0], kDepthCompareShift, kDepthCompareBits));
  s.force_unnormalized = field(w[0], kForceUnnormalizedBit, 1);
  s.trunc_coord = field(w[0], kTruncCoordBit, 1);
  s.filter_mode = static_cast<uint8_t>(field(w[0], kFilterModeShift, kFilterModeBits));
  s.min_lod = detail::lod_float(field(w[1], kSampMinLodShift, kLodBits), kLodBits, false);
  s.max_lod = detail::lod_float(field(w[1], kSampMaxLodShift, kLodBits), kLodBits, false);
  s.lod_bias = detail::lod_float(field(w[2], kLodBiasShift, kLodBiasBits), kLodBiasBits, true);
  s.mag_filter = static_cast<Filter>(field(w[2], kMagFilterShift, 2));
  s.min_filter = static_cast<Filter>(field(w[2], kMinFilterShift, 2));
  s.z_filter = static_cast<MipFilter>(field(w[2], kZFilterShift, 2));
  s.mip_filter = static_cast<MipFilter>(field(w[2], kMipFilterShift, 2));
  s.border_color_ptr = field(w[3], kBorderColorPtrShift, kBorderColorPtrBits);
  s.border = static_cast<BorderColor>(field(w[3], kBorderColorTypeShift, 2));
  return s;
}

// Bytes of one element and number of components of a data format (0 for invalid/unknown).
constexpr uint32_t bytes_per_texel(DataFormat f) {
  switch (f) {
    case kFmt8: return 1;
    case kFmt16: case kFmt8_8: return 2;
    case kFmt32: case kFmt16_16: case kFmt10_11_11: case kFmt11_11_10: case kFmt10_10_10_2:
    case kFmt2_10_10_10: case kFmt8_8_8_8: return 4;
    case kFmt32_32: case kFmt16_16_16_16: return 8;
    case kFmt32_32_32: return 12;
    case kFmt32_32_32_32: return 16;
    default: return 0;
  }
}
constexpr unsigned components(DataFormat f) {
  switch (f) {
    case kFmt8: case kFmt16: case kFmt32: return 1;
    case kFmt8_8: case kFmt16_16: case kFmt32_32: return 2;
    case kFmt10_11_11: case kFmt11_11_10: case kFmt32_32_32: return 3;
    case kFmt10_10_10_2: case kFmt2_10_10_10: case kFmt8_8_8_8: case kFmt16_16_16_16:
    case kFmt32_32_32_32: return 4;
    default: return 0;
  }
}

// Typed buffers: the format fields of a V#'s word3 (positions in vsharp_gfx9). word3 also
// carries the other V# bits, which these leave alone.
struct BufferFormat {
  DataFormat data_format = kFmt32;
  NumFormat num_format = kNumUint;  // 3 bits: UNORM..FLOAT, no SRGB
  Sel dst_sel[4] = {kSelX, kSelY, kSelZ, kSelW};
};
constexpr uint32_t encode_buffer_word3(const BufferFormat& f, uint32_t word3 = 0) {
  namespace vs = pm4::vsharp_gfx9;
  word3 &= ~((0xFFFu << vs::kDstSelXShift) | (7u << vs::kNumFormatShift) |
             (15u << vs::kDataFormatShift));
  return word3 | detail::put(f.dst_sel[0], vs::kDstSelXShift, 3) |
         detail::put(f.dst_sel[1], vs::kDstSelYShift, 3) |
         detail::put(f.dst_sel[2], vs::kDstSelZShift, 3) |
         detail::put(f.dst_sel[3], vs::kDstSelWShift, 3) |
         detail::put(f.num_format, vs::kNumFormatShift, 3) |
         detail::put(f.data_format, vs::kDataFormatShift, 4);
}
constexpr BufferFormat decode_buffer_format(const uint32_t v[4]) {
  namespace vs = pm4::vsharp_gfx9;
  BufferFormat f;
  f.dst_sel[0] = static_cast<Sel>(detail::field(v[3], vs::kDstSelXShift, 3));
  f.dst_sel[1] = static_cast<Sel>(detail::field(v[3], vs::kDstSelYShift, 3));
  f.dst_sel[2] = static_cast<Sel>(detail::field(v[3], vs::kDstSelZShift, 3));
  f.dst_sel[3] = static_cast<Sel>(detail::field(v[3], vs::kDstSelWShift, 3));
  f.num_format = static_cast<NumFormat>(detail::field(v[3], vs::kNumFormatShift, 3));
  f.data_format = static_cast<DataFormat>(detail::field(v[3], vs::kDataFormatShift, 4));
  return f;
}

}  // namespace pm4::image_gfx9
