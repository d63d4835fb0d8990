// SPDX-License-Identifier: MIT
// gfx9 swizzled (tiled) surfaces: where texel (x, y, z) of a single-level image lives.
//
// Facts (not code) from AMD's address library for gfx9 (addrlib, gfx9addrlib.cpp: the data
// equations HwlComputeBlock256Equation, HwlComputeThinEquation, HwlComputeThickEquation and
// HwlComputeSurfaceAddrFromCoordTiled; addrlib2.cpp: the block dimensions Block256_2d,
// Block1K_3d, the thin and thick block amplification and GetPipeXorBits; gfx9_gb_reg.h: the
// GB_ADDR_CONFIG fields):
//  - SW_MODE (T# word3) numbers: 1..3 256B_S/D/R, 4..7 4KB_Z/S/D/R, 8..11 64KB_Z/S/D/R,
//    16..19 64KB_*_T (PRT), 20..23 4KB_*_X, 24..27 64KB_*_X, 28/31 VAR_*_X.
//  - A surface is a grid of blocks (256 B, 4 KB or 64 KB) in row-major order: blocks of one row
//    of the padded pitch, then the rows of the padded height, then the slices. Inside a block,
//    each address bit is one bit of x, y or z (the equation): first the bytes of the element,
//    then a 256-byte micro tile (2-D) or 1 KB micro block (thick 3-D) ordered by the mode's
//    letter (Z morton, S standard, D display, R rotated), then alternating y/x bits (thin) or
//    z/y/x bits (thick) up to the block size.
//  - Thin: 2-D and 2-D array images in every mode; 3-D images in D modes (slices are one padded
//    slice apart; 3-D D modes use the S micro-tile order; addrlib defines no R or 256B mode for
//    3-D images). Thick: 3-D images in Z and S modes (blocks are 3-D: several slices share a
//    block).
//  - _X modes XOR the pipe and bank bits (address bits from the pipe interleave up) with higher
//    address bits of the same equation, thin ones also with the slice index, and with the
//    surface's pipe/bank xor, which drivers put in the low bits of the T#'s BASE_ADDRESS.
#pragma once

#include <cstdint>
#include <string>

namespace emu::shader::swizzle_gfx9 {

// GB_ADDR_CONFIG (gfx9 register; gfx9_gb_reg.h) fields the data layout depends on, as log2.
struct AddrConfig {
  unsigned pipes_log2 = 0;            // NUM_PIPES, bits 2:0
  unsigned pipe_interleave_log2 = 8;  // PIPE_INTERLEAVE_SIZE, bits 5:3 (256 B << field)
  unsigned banks_log2 = 0;            // NUM_BANKS, bits 14:12
  unsigned se_log2 = 0;               // NUM_SHADER_ENGINES, bits 20:19
};
AddrConfig decode_gb_addr_config(uint32_t gb_addr_config);

// One address bit's source: the coordinate (0 x, 1 y, 2 z) and its bit, or a byte-offset bit.
struct BitSrc {
  uint8_t coord;  // 0 x, 1 y, 2 z, 3 byte within the element
  uint8_t bit;
};

struct Layout {
  uint32_t sw_mode = 0;
  bool thick = false, xor_mode = false;
  unsigned elem_log2 = 0;   // log2 bytes per element
  unsigned block_log2 = 0;  // 8, 12 or 16
  uint32_t blk_w = 1, blk_h = 1, blk_d = 1;           // block dimensions in elements
  uint32_t pitch = 0, height = 0, depth = 0;          // padded dimensions in elements
  uint32_t pitch_blocks = 0, height_blocks = 0;
  unsigned interleave_log2 = 8, pipe_bits = 0, bank_bits = 0;
  unsigned nbits = 0;        // address bits described by `eq` (the block's and the xor sources')
  BitSrc eq[40] = {};
  uint64_t size = 0;         // bytes of the padded surface
};

// Builds the layout of a single-level surface: `tex3d` for a 3-D image (else 2-D or 2-D array),
// `slices` the 3-D depth or the array's slice count. Returns "" or why the mode is not
// implemented (the caller fails naming it).
std::string make_layout(const AddrConfig& cfg, uint32_t sw_mode, bool tex3d, unsigned elem_log2,
                        uint32_t width, uint32_t height, uint32_t slices, Layout& out);

// Byte offset of element (x, y, z) from the block-aligned base (z: the 3-D slice or the array
// slice), `pipe_bank_xor` the surface's xor (T# BASE_ADDRESS bits inside the block, _X modes).
// Coordinates must be inside the padded surface.
uint64_t offset(const Layout& l, uint32_t x, uint32_t y, uint32_t z, uint32_t pipe_bank_xor = 0);

// Whether `sw_mode` is a mode the T# may name on gfx9 (not reserved) and its name ("64KB_D_X").
const char* mode_name(uint32_t sw_mode);

}  // namespace emu::shader::swizzle_gfx9
