// SPDX-License-Identifier: MIT
// gfx9 swizzled surface addressing (see swizzle_gfx9.h for the sources of the facts).
#include "emu/shader/swizzle_gfx9.h"

#include <algorithm>

namespace emu::shader::swizzle_gfx9 {

namespace {

enum Letter : uint8_t { Z, S, D, R };

struct Mode {
  const char* name;
  uint8_t block_log2;  // 0: not a mode the core implements (reserved, PRT, VAR)
  Letter letter;
  bool xor_mode;
};

// AddrSwizzleMode numbering of AMD's addrlib (addrtypes.h), the values of T# SW_MODE on gfx9.
const Mode kModes[32] = {
    {"LINEAR", 0, Z, false},     {"256B_S", 8, S, false},     {"256B_D", 8, D, false},
    {"256B_R", 8, R, false},     {"4KB_Z", 12, Z, false},     {"4KB_S", 12, S, false},
    {"4KB_D", 12, D, false},     {"4KB_R", 12, R, false},     {"64KB_Z", 16, Z, false},
    {"64KB_S", 16, S, false},    {"64KB_D", 16, D, false},    {"64KB_R", 16, R, false},
    {"reserved", 0, Z, false},   {"reserved", 0, Z, false},   {"reserved", 0, Z, false},
    {"reserved", 0, Z, false},   {"64KB_Z_T", 0, Z, true},    {"64KB_S_T", 0, S, true},
    {"64KB_D_T", 0, D, true},    {"64KB_R_T", 0, R, true},    {"4KB_Z_X", 12, Z, true},
    {"4KB_S_X", 12, S, true},    {"4KB_D_X", 12, D, true},    {"4KB_R_X", 12, R, true},
    {"64KB_Z_X", 16, Z, true},   {"64KB_S_X", 16, S, true},   {"64KB_D_X", 16, D, true},
    {"64KB_R_X", 16, R, true},   {"VAR_Z_X", 0, Z, true},     {"reserved", 0, Z, false},
    {"reserved", 0, Z, false},   {"VAR_R_X", 0, R, true},
};

constexpr BitSrc X(uint8_t b) { return {0, b}; }
constexpr BitSrc Y(uint8_t b) { return {1, b}; }
constexpr BitSrc Zc(uint8_t b) { return {2, b}; }
constexpr BitSrc kNone{0xFF, 0};

// The 256-byte micro tile of thin modes: address bits elem_log2..7 (addrlib's 256B equations,
// per element size 1, 2, 4, 8, 16 bytes). R has no 16-byte form.
const BitSrc kMicroS[5][8] = {
    {X(0), X(1), X(2), X(3), Y(0), Y(1), Y(2), Y(3)},
    {X(0), X(1), X(2), Y(0), Y(1), Y(2), X(3)},
    {X(0), X(1), Y(0), Y(1), Y(2), X(2)},
    {X(0), Y(0), Y(1), X(1), X(2)},
    {Y(0), Y(1), X(0), X(1)},
};
const BitSrc kMicroD[5][8] = {
    {X(0), X(1), X(2), Y(1), Y(0), Y(2), X(3), Y(3)},
    {X(0), X(1), X(2), Y(0), Y(1), Y(2), X(3)},
    {X(0), X(1), Y(0), X(2), Y(1), Y(2)},
    {X(0), Y(0), X(1), X(2), Y(1)},
    {X(0), Y(0), X(1), Y(1)},
};
const BitSrc kMicroR[4][8] = {
    {Y(0), Y(1), Y(2), X(1), X(0), X(2), X(3), Y(3)},
    {Y(0), Y(1), Y(2), X(0), X(1), X(2), X(3)},
    {Y(0), Y(1), X(0), Y(2), X(1), X(2)},
    {Y(0), X(0), Y(1), X(1), X(2)},
};
// The 1 KB micro block of thick (3-D Z and S) modes: address bits elem_log2..9.
const BitSrc kThickZ[5][10] = {
    {X(0), Y(0), X(1), Y(1), Zc(0), Zc(1), X(2), Zc(2), Y(2), X(3)},
    {X(0), Y(0), X(1), Y(1), Zc(0), Zc(1), Zc(2), Y(2), X(2)},
    {X(0), Y(0), X(1), Zc(0), Y(1), Zc(1), Y(2), X(2)},
    {X(0), Y(0), Zc(0), X(1), Zc(1), Y(1), X(2)},
    {X(0), Y(0), Zc(0), Zc(1), Y(1), X(1)},
};
const BitSrc kThickS[5][10] = {
    {X(0), X(1), X(2), X(3), Y(0), Y(1), Zc(0), Zc(1), Zc(2), Y(2)},
    {X(0), X(1), X(2), Y(0), Y(1), Zc(0), Zc(1), Zc(2), Y(2)},
    {X(0), X(1), Y(0), Y(1), Zc(0), Zc(1), Y(2), X(2)},
    {X(0), Y(0), Y(1), Zc(0), Zc(1), X(1), X(2)},
    {Y(0), Y(1), Zc(0), Zc(1), X(0), X(1)},
};

uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace

AddrConfig decode_gb_addr_config(uint32_t v) {
  AddrConfig c;
  c.pipes_log2 = v & 7;
  c.pipe_interleave_log2 = 8 + ((v >> 3) & 7);
  c.banks_log2 = (v >> 12) & 7;
  c.se_log2 = (v >> 19) & 3;
  return c;
}

const char* mode_name(uint32_t sw_mode) { return sw_mode < 32 ? kModes[sw_mode].name : "?"; }

std::string make_layout(const AddrConfig& cfg, uint32_t sw_mode, bool tex3d, unsigned e,
                        uint32_t width, uint32_t height, uint32_t slices, Layout& l) {
  const std::string name = "SW_MODE " + std::to_string(sw_mode) + " (" + mode_name(sw_mode) + ")";
  if (sw_mode >= 32 || kModes[sw_mode].block_log2 == 0)
    return name + (sw_mode == 0 ? " is linear" : " (PRT, VAR or reserved modes)");
  if (e > 4) return name + " with elements of more than 16 bytes";
  const Mode& m = kModes[sw_mode];
  l = Layout{};
  l.sw_mode = sw_mode;
  l.elem_log2 = e;
  l.block_log2 = m.block_log2;
  l.xor_mode = m.xor_mode;
  // gfx9: 3-D images are thick (3-D blocks) in Z and S modes, thin in D and R modes.
  l.thick = tex3d && (m.letter == Z || m.letter == S);
  // addrlib (Gfx9Lib::ValidateSwModeParams) defines neither 256-byte blocks nor R modes for
  // 3-D images.
  if (tex3d && (m.block_log2 == 8 || m.letter == R)) return name + " for a 3-D image";

  BitSrc eq[40];
  std::fill(std::begin(eq), std::end(eq), kNone);
  for (unsigned i = 0; i < e; ++i) eq[i] = {3, uint8_t(i)};
  unsigned xi = 0, yi = 0, zi = 0, low = 0;
  auto count = [&](const BitSrc* t, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      eq[e + i] = t[i];
      unsigned& c = t[i].coord == 0 ? xi : t[i].coord == 1 ? yi : zi;
      c = std::max(c, unsigned(t[i].bit) + 1);
    }
  };
  if (l.thick) {
    count(m.letter == Z ? kThickZ[e] : kThickS[e], 10 - e);
    low = 10;
  } else if (m.letter == Z) {
    // Thin Z: x and y bits alternate from the element size up to bit 5 (addrlib's thin
    // equation has no form for 16-byte elements).
    if (e == 4) return name + " with 16-byte elements";
    for (unsigned i = e; i < 6; ++i) eq[i] = ((i - e) & 1) == 0 ? X(uint8_t(xi++)) : Y(uint8_t(yi++));
    low = 6;
  } else {
    // 3-D images in D modes use the S micro tile (addrlib: HwlIsStandardSwizzle).
    const Letter mt = tex3d && m.letter == D ? S : m.letter;
    if (mt == R && e == 4) return name + " with 16-byte elements";
    count(mt == S ? kMicroS[e] : mt == D ? kMicroD[e] : kMicroR[e], 8 - e);
    low = 8;
  }
  l.interleave_log2 = cfg.pipe_interleave_log2;
  if (l.xor_mode) {
    l.pipe_bits = std::min(l.block_log2 - cfg.pipe_interleave_log2, cfg.pipes_log2 + cfg.se_log2);
    l.bank_bits = std::min(l.block_log2 - l.pipe_bits - cfg.pipe_interleave_log2, cfg.banks_log2);
  }
  const unsigned k = l.thick ? 3 : 2;  // how many bits above the pipe/bank bits each one folds
  unsigned top = l.block_log2;
  if (l.xor_mode)
    top = std::max({top, l.interleave_log2 + k * l.pipe_bits, l.interleave_log2 + l.pipe_bits + k * l.bank_bits});
  if (top > 40) return name + ": an address equation past 40 bits";
  // Above the micro tile: thin blocks alternate y (even address bits) and x (odd); thick ones
  // take x, z, y in turn (bit % 3 == 0, 1, 2). The bits past the block only feed the xor.
  for (unsigned i = low; i < top; ++i) {
    if (!l.thick) eq[i] = (i & 1) == 0 ? Y(uint8_t(yi++)) : X(uint8_t(xi++));
    else eq[i] = i % 3 == 0 ? X(uint8_t(xi++)) : i % 3 == 1 ? Zc(uint8_t(zi++)) : Y(uint8_t(yi++));
  }
  l.nbits = top;
  std::copy(eq, eq + top, l.eq);
  // The block's extent: the bits of x, y and z below block_log2 (as addrlib's
  // ComputeThinBlockDimension / ComputeThickBlockDimension amplify the micro tile).
  unsigned bx = 0, by = 0, bz = 0;
  for (unsigned i = e; i < l.block_log2; ++i) (eq[i].coord == 0 ? bx : eq[i].coord == 1 ? by : bz)++;
  l.blk_w = 1u << bx;
  l.blk_h = 1u << by;
  l.blk_d = 1u << bz;
  l.pitch = align_up(width, l.blk_w);
  l.height = align_up(height, l.blk_h);
  l.depth = align_up(slices, l.blk_d);
  l.pitch_blocks = l.pitch / l.blk_w;
  l.height_blocks = l.height / l.blk_h;
  l.size = (uint64_t{l.pitch_blocks} * l.height_blocks * (l.depth / l.blk_d)) << l.block_log2;
  return "";
}

uint64_t offset(const Layout& l, uint32_t x, uint32_t y, uint32_t z, uint32_t pipe_bank_xor) {
  const uint32_t c[3] = {x, y, z};
  auto bit = [&](unsigned i) -> uint32_t {
    const BitSrc s = l.eq[i];
    return s.coord < 3 ? (c[s.coord] >> s.bit) & 1u : 0u;
  };
  uint32_t off = 0;
  for (unsigned i = l.elem_log2; i < l.block_log2; ++i) off |= bit(i) << i;
  if (l.xor_mode) {
    const unsigned pi = l.interleave_log2, P = l.pipe_bits, B = l.bank_bits, bs = pi + P;
    uint32_t x1 = 0;
    if (!l.thick) {
      // Thin: pipe bit i folds in address bit pi+2P-1-i and slice bit P-1-i; bank bit i folds
      // in address bit bs+2B-1-i and slice bit P+B-1-i (the slice bits reversed).
      for (unsigned i = 0; i < P; ++i) x1 |= (bit(pi + 2 * P - 1 - i) ^ ((z >> (P - 1 - i)) & 1u)) << (pi + i);
      for (unsigned i = 0; i < B; ++i) x1 |= (bit(bs + 2 * B - 1 - i) ^ ((z >> (P + B - 1 - i)) & 1u)) << (bs + i);
    } else {
      // Thick: each pipe/bank bit folds in two address bits, from 3P-1-2i and 3P-2-2i above.
      for (unsigned i = 0; i < P; ++i)
        x1 |= (bit(pi + 3 * P - 1 - 2 * i) ^ bit(pi + 3 * P - 2 - 2 * i)) << (pi + i);
      for (unsigned i = 0; i < B; ++i)
        x1 |= (bit(bs + 3 * B - 1 - 2 * i) ^ bit(bs + 3 * B - 2 - 2 * i)) << (bs + i);
    }
    off ^= x1 ^ ((pipe_bank_xor & ((1u << (P + B)) - 1u)) << pi);
  }
  const uint64_t zb = l.thick ? z / l.blk_d : z;
  const uint64_t block = (zb * l.height_blocks + y / l.blk_h) * l.pitch_blocks + x / l.blk_w;
  return (block << l.block_log2) | off;
}

}  // namespace emu::shader::swizzle_gfx9
