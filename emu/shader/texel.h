// SPDX-License-Identifier: MIT
// Typed memory elements (image texels, format buffer elements): unpacking a DATA_FORMAT /
// NUM_FORMAT element into four 32-bit components, packing components back, and DST_SEL.
#pragma once

#include <cstdint>
#include <string>

#include "pm4/image_gfx9.h"

namespace emu::shader::texel {

using pm4::image_gfx9::DataFormat;
using pm4::image_gfx9::NumFormat;
using pm4::image_gfx9::Sel;

// UINT and SINT components are raw integers; every other number format gives f32 bits.
constexpr bool is_integer(NumFormat n) {
  return n == pm4::image_gfx9::kNumUint || n == pm4::image_gfx9::kNumSint;
}

// Empty when the shader core implements the combination for a read (`store` false) or a
// write; else what is not implemented, named ("DATA_FORMAT 8 (10_10_10_2)").
std::string unsupported(DataFormat d, NumFormat n, bool store);
// Empty when every selector is one the hardware defines (0, 1, X, Y, Z, W), else a message.
std::string bad_sel(const Sel sel[4]);

// The element at p (bytes_per_texel(d) bytes) as four components; components the format lacks
// read (0, 0, 0, 1) (1.0 or integer 1).
void unpack(const uint8_t* p, DataFormat d, NumFormat n, uint32_t out[4]);
// The element for components in[0..components(d)) (f32 bits, or integers for UINT/SINT).
void pack(const uint32_t in[4], DataFormat d, NumFormat n, uint8_t* p);
// DST_SEL applied to unpacked components.
void swizzle(const uint32_t in[4], const Sel sel[4], bool integer, uint32_t out[4]);

// A component as 16 bits (d16 instructions): f16 for float results, the low half for integers;
// and back (f16 to f32, or zero/sign extension).
uint16_t to_d16(uint32_t c, bool integer);
uint32_t from_d16(uint16_t h, NumFormat n);

}  // namespace emu::shader::texel
