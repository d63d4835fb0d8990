// SPDX-License-Identifier: MIT
// Typed element conversions for image and format-buffer instructions (AMD Vega ISA, chapter 8
// "Vector Memory Operations": data formats, number formats, DST_SEL; MI200 ISA the same).
#include "emu/shader/texel.h"

#include <cmath>
#include <cstring>

#include "emu/shader/valu.h"

namespace emu::shader::texel {

namespace ig = pm4::image_gfx9;

namespace {

// Component widths, packed from bit 0 upwards (X lowest). Formats whose component order the
// shader core has not established (10_10_10_2, 11_11_10) have none and fail as unimplemented.
struct Layout {
  unsigned n;
  unsigned bits[4];
};
Layout layout(DataFormat d) {
  switch (d) {
    case ig::kFmt8: return {1, {8}};
    case ig::kFmt16: return {1, {16}};
    case ig::kFmt8_8: return {2, {8, 8}};
    case ig::kFmt32: return {1, {32}};
    case ig::kFmt16_16: return {2, {16, 16}};
    case ig::kFmt10_11_11: return {3, {11, 11, 10}};  // R11G11B10: X in bits 10:0
    case ig::kFmt2_10_10_10: return {4, {10, 10, 10, 2}};  // R10G10B10A2: X in bits 9:0
    case ig::kFmt8_8_8_8: return {4, {8, 8, 8, 8}};
    case ig::kFmt32_32: return {2, {32, 32}};
    case ig::kFmt16_16_16_16: return {4, {16, 16, 16, 16}};
    case ig::kFmt32_32_32: return {3, {32, 32, 32}};
    case ig::kFmt32_32_32_32: return {4, {32, 32, 32, 32}};
    default: return {0, {}};
  }
}

const char* data_format_name(DataFormat d) {
  static const char* const names[16] = {"INVALID", "8", "16", "8_8", "32", "16_16", "10_11_11",
                                        "11_11_10", "10_10_10_2", "2_10_10_10", "8_8_8_8",
                                        "32_32", "16_16_16_16", "32_32_32", "32_32_32_32", "?"};
  return d < 15 ? names[d] : "?";
}
const char* num_format_name(NumFormat n) {
  static const char* const names[16] = {"UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT",
                                        "RESERVED_6", "FLOAT", "RESERVED_8", "SRGB", "?", "?",
                                        "?", "?", "?", "?"};
  return names[n & 15];
}

uint32_t sext(uint32_t x, unsigned bits) {
  return bits >= 32 ? x : static_cast<uint32_t>(static_cast<int32_t>(x << (32 - bits)) >> (32 - bits));
}

// Unsigned floats of the packed float formats: 5-bit exponent (bias 15), no sign, `m` mantissa
// bits (11-bit: 6, 10-bit: 5), as binary16 without its sign and low mantissa bits.
float small_float(uint32_t x, unsigned bits) {
  unsigned m = bits - 5;
  return f16_to_f32(static_cast<uint16_t>(x << (10 - m)));
}

float srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

uint32_t one(bool integer) { return integer ? 1u : 0x3F800000u; }

}  // namespace

std::string unsupported(DataFormat d, NumFormat n, bool store) {
  Layout l = layout(d);
  std::string what = std::string("DATA_FORMAT ") + std::to_string(d) + " (" + data_format_name(d) +
                     ") with NUM_FORMAT " + std::to_string(n) + " (" + num_format_name(n) + ")";
  if (l.n == 0) return what;
  const unsigned b = l.bits[0];
  bool packed_float = d == ig::kFmt10_11_11;
  switch (n) {
    case ig::kNumUnorm: case ig::kNumSnorm:
      if (b > 16 || packed_float) return what;
      break;
    case ig::kNumUscaled: case ig::kNumSscaled:
      if (store || packed_float) return what + (store ? " for a store" : "");
      break;
    case ig::kNumUint: case ig::kNumSint:
      if (packed_float) return what;
      break;
    case ig::kNumFloat:
      if (packed_float) { if (store) return what + " for a store"; break; }
      if (b != 16 && b != 32) return what;
      break;
    case ig::kNumSrgb:
      if (store || b != 8) return what + (store ? " for a store" : "");
      break;
    default: return what;
  }
  return {};
}

std::string bad_sel(const Sel sel[4]) {
  for (unsigned c = 0; c < 4; ++c)
    if (sel[c] == 2 || sel[c] == 3 || sel[c] > 7)
      return "DST_SEL_" + std::string(1, "XYZW"[c]) + " = " + std::to_string(sel[c]) + " (reserved)";
  return {};
}

void unpack(const uint8_t* p, DataFormat d, NumFormat n, uint32_t out[4]) {
  Layout l = layout(d);
  uint32_t w[4] = {};
  std::memcpy(w, p, ig::bytes_per_texel(d));
  const bool integer = is_integer(n);
  unsigned bit = 0;
  for (unsigned c = 0; c < 4; ++c) {
    if (c >= l.n) { out[c] = c == 3 ? one(integer) : 0; continue; }
    const unsigned b = l.bits[c];
    uint32_t x = b == 32 ? w[bit / 32] : (w[bit / 32] >> (bit % 32)) & ((1u << b) - 1);
    bit += b;
    float f = 0;
    switch (n) {
      case ig::kNumUnorm: f = float(x) / float((1u << b) - 1); break;
      case ig::kNumSnorm:
        f = std::fmax(float(static_cast<int32_t>(sext(x, b))) / float((1u << (b - 1)) - 1), -1.0f);
        break;
      case ig::kNumUscaled: f = float(x); break;
      case ig::kNumSscaled: f = float(static_cast<int32_t>(sext(x, b))); break;
      case ig::kNumUint: out[c] = x; continue;
      case ig::kNumSint: out[c] = sext(x, b); continue;
      case ig::kNumFloat:
        if (b == 32) { out[c] = x; continue; }
        f = b == 16 ? f16_to_f32(static_cast<uint16_t>(x)) : small_float(x, b);
        break;
      case ig::kNumSrgb:
        f = float(x) / 255.0f;
        if (c < 3) f = srgb_to_linear(f);
        break;
      default: break;
    }
    out[c] = u32(f);
  }
}

void pack(const uint32_t in[4], DataFormat d, NumFormat n, uint8_t* p) {
  Layout l = layout(d);
  uint32_t w[4] = {};
  unsigned bit = 0;
  for (unsigned c = 0; c < l.n; ++c) {
    const unsigned b = l.bits[c];
    const uint32_t mask = b == 32 ? ~0u : (1u << b) - 1;
    uint32_t x = in[c];
    float f = f32(x);
    switch (n) {
      case ig::kNumUnorm: {  // clamp to [0, 1] (NaN to 0), round to nearest even
        float v = std::isnan(f) ? 0.0f : std::fmin(std::fmax(f, 0.0f), 1.0f);
        x = static_cast<uint32_t>(std::nearbyint(v * float(mask)));
        break;
      }
      case ig::kNumSnorm: {
        float v = std::isnan(f) ? 0.0f : std::fmin(std::fmax(f, -1.0f), 1.0f);
        x = static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(v * float((1u << (b - 1)) - 1))));
        break;
      }
      case ig::kNumFloat: x = b == 32 ? x : f32_to_f16(f); break;
      default: break;  // UINT, SINT: the component's low bits
    }
    x &= mask;
    if (b == 32) w[bit / 32] = x;
    else w[bit / 32] |= x << (bit % 32);
    bit += b;
  }
  std::memcpy(p, w, ig::bytes_per_texel(d));
}

void swizzle(const uint32_t in[4], const Sel sel[4], bool integer, uint32_t out[4]) {
  for (unsigned c = 0; c < 4; ++c)
    out[c] = sel[c] >= ig::kSelX ? in[sel[c] - ig::kSelX] : sel[c] == ig::kSel1 ? one(integer) : 0;
}

uint16_t to_d16(uint32_t c, bool integer) {
  return integer ? static_cast<uint16_t>(c) : f32_to_f16(f32(c));
}

uint32_t from_d16(uint16_t h, NumFormat n) {
  if (n == ig::kNumUint) return h;
  if (n == ig::kNumSint) return sext(h, 16);
  return u32(f16_to_f32(h));
}

}  // namespace emu::shader::texel
