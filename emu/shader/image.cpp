// SPDX-License-Identifier: MIT
// MIMG execution: image loads, stores, size queries and sampling through a T# (and S#) on
// linear (SW_LINEAR) and swizzled (the gfx9 4KB/64KB/256B modes, swizzle_gfx9.h) images;
// texels are read and written through the memory model like global memory. What the core does
// not implement fails as such, naming the feature.
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "emu/shader/memops.h"
#include "emu/shader/swizzle_gfx9.h"
#include "emu/shader/texel.h"
#include "pm4/image_gfx9.h"

namespace emu::shader {

namespace {

namespace ig = pm4::image_gfx9;
namespace sw = swizzle_gfx9;

// MIMG fields (AMD Vega ISA, "MIMG" microcode format): DMASK 11:8, UNORM 12, GLC 13, DA 14,
// R128/A16 15, TFE 16, LWE 17, OP 24:18, SLC 25; VADDR 39:32, VDATA 47:40, SRSRC 52:48 (in
// units of 4 SGPRs), SSAMP 57:53, D16 63. On gfx90a bit 16 is ACC (AGPR data) and there is no
// TFE or R128 (LLVM's MIMG encoding for gfx90a; llvm-mc-15 -mcpu=gfx90a rejects tfe and r128).
struct Mimg {
  unsigned dmask;
  bool unorm, da, a16, tfe, lwe, d16;
};

Mimg fields(const Wave& w, const Inst& in) {
  const uint32_t d0 = in.raw[0], d1 = in.raw[1];
  const Target t = w.group->ctx->target;
  const bool acc_bit = t == Target::gfx90a || t == Target::gfx942;
  return {(d0 >> 8) & 15, ((d0 >> 12) & 1) != 0, ((d0 >> 14) & 1) != 0, ((d0 >> 15) & 1) != 0,
          !acc_bit && ((d0 >> 16) & 1), ((d0 >> 17) & 1) != 0, ((d1 >> 31) & 1) != 0};
}

bool fail(Wave& w, const Inst& in, const std::string& what) { return fail_unimplemented(w, in, what); }

unsigned coords_of(ig::ImageType t) {
  switch (t) {
    case ig::kType1D: return 1;
    case ig::kType2D: case ig::kType1DArray: return 2;
    default: return 3;  // 3D, 2D array
  }
}

// What every image instruction checks and reads: the instruction's modifiers and the T#.
struct Op {
  Mimg m;
  ig::Image im;
  uint32_t bpt = 0;       // bytes per texel
  bool integer = false;   // UINT/SINT: components are raw integers
  unsigned ncoord = 1;
  uint32_t slices = 1;    // 3D: depth; arrays: slices base_array..last_array; else 1
  bool swizzled = false;  // SW_MODE != 0: `lay` and the block-aligned base apply
  uint64_t block_base = 0;
  uint32_t pipe_bank_xor = 0;
  sw::Layout lay;
};

// A swizzled surface (T# SW_MODE != 0): its layout from the mode, the texel size and the T#'s
// dimensions. Hardware pads a single-level surface to whole blocks on its own (AMD addrlib,
// Gfx9Lib::HwlComputeSurfaceInfoTiled: pitch and height aligned to the block, 3-D depth to the
// block's depth for thick modes); the T# PITCH field only describes linear rows. The low bits of
// BASE_ADDRESS inside the block are the surface's pipe/bank xor in _X modes (addrlib's
// ApplyCustomerPipeBankXor, folded into the base by the drivers); any other low bit is a base
// not aligned to the block, which only non-xor modes allow (addrlib's
// ComputeSurfaceBaseAlignTiled: 256 bytes for those).
bool swizzled_layout(Wave& w, const Inst& in, Op& op) {
  const ig::Image& im = op.im;
  // Named only when something is refused (this runs for every image instruction).
  auto mode = [&] { return "image SW_MODE " + std::to_string(im.sw_mode) + " (" + sw::mode_name(im.sw_mode) + ")"; };
  if (im.type == ig::kType1D || im.type == ig::kType1DArray)
    return fail(w, in, mode() + " of a 1-D image not implemented (gfx9 1-D images are linear, AMD addrlib)");
  if (im.last_level != 0 || im.max_mip != 0)
    return fail(w, in, mode() + " with mip levels (LAST_LEVEL " + std::to_string(im.last_level) + ", MAX_MIP " +
                           std::to_string(im.max_mip) + ": a mip chain's layout) not implemented");
  if (!std::has_single_bit(op.bpt))
    return fail(w, in, mode() + " with " + std::to_string(op.bpt) + "-byte texels not implemented (gfx9 swizzles power-of-two elements)");
  const bool tex3d = im.type == ig::kType3D;
  const uint32_t slices = tex3d ? im.depth : ig::is_array(im.type) ? im.last_array + 1 : 1;
  const std::string why = sw::make_layout(sw::decode_gb_addr_config(w.group->ctx->gb_addr_config), im.sw_mode, tex3d,
                                          static_cast<unsigned>(std::countr_zero(op.bpt)), im.width, im.height,
                                          slices, op.lay);
  if (!why.empty()) return fail(w, in, "image " + why + " not implemented");
  const uint64_t mask = (uint64_t{1} << op.lay.block_log2) - 1;
  const uint64_t low = im.base & mask;
  op.block_base = im.base;  // non-xor modes: blocks follow a 256-byte aligned base
  if (op.lay.xor_mode) {
    const uint64_t xor_bits = ((uint64_t{1} << (op.lay.pipe_bits + op.lay.bank_bits)) - 1) << op.lay.interleave_log2;
    if (low & ~xor_bits) {
      char b[256];
      std::snprintf(b, sizeof b, " T# BASE_ADDRESS 0x%llx not aligned to the %u-byte block (low bits 0x%llx; only the pipe/bank xor 0x%llx may be set)",
                    static_cast<unsigned long long>(im.base), 1u << op.lay.block_log2,
                    static_cast<unsigned long long>(low), static_cast<unsigned long long>(xor_bits));
      return fail(w, in, mode() + b);
    }
    op.pipe_bank_xor = static_cast<uint32_t>(low >> op.lay.interleave_log2);
    op.block_base = im.base & ~mask;
  }
  op.swizzled = true;
  return true;
}

bool prologue(Wave& w, const Inst& in, Op& op, bool store, bool needs_format) {
  op.m = fields(w, in);
  if (op.m.tfe || op.m.lwe) return fail(w, in, "MIMG tfe/lwe (texel fail / LOD warning results) not implemented");
  if (op.m.a16) return fail(w, in, "MIMG a16/r128 (16-bit addresses, 128-bit T#) not implemented");
  if (op.m.dmask == 0) return fail(w, in, "MIMG dmask 0 not implemented");
  if (in.srsrc + 8 > 106) return fail(w, in, "MIMG T# past the SGPRs");
  op.im = ig::decode_image(&w.s[in.srsrc]);
  const ig::Image& im = op.im;
  if (im.type < ig::kType1D || im.type > ig::kType2DArray || im.type == ig::kTypeCube)
    return fail(w, in, "image type " + std::to_string(im.type) +
                           " not implemented (1D, 2D, 3D, 1D array and 2D array are)");
  // The T#'s type decides the coordinates (x; y; then the slice or z), not the instruction's DA
  // bit: ROCm's image blit kernels (ROCclr's, compiled for arrays) store to 2-D images with DA
  // set and run on gfx9 GPUs, which read x and y and ignore the slice VGPR.
  if (im.base_level != 0)
    return fail(w, in, "image BASE_LEVEL " + std::to_string(im.base_level) + " (mip levels) not implemented");
  if (w.s[in.srsrc + 6] & (1u << ig::kCompressionEnBit))
    return fail(w, in, "image COMPRESSION_EN (DCC) not implemented");
  op.ncoord = coords_of(im.type);
  op.slices = im.type == ig::kType3D ? im.depth
              : ig::is_array(im.type) ? (im.last_array >= im.base_array ? im.last_array - im.base_array + 1 : 0)
                                      : 1;
  if (!needs_format) return true;
  if (std::string u = texel::unsupported(im.data_format, im.num_format, store); !u.empty())
    return fail(w, in, "image " + u + " not implemented");
  if (std::string u = texel::bad_sel(im.dst_sel); !store && !u.empty()) return fail(w, in, "image " + u);
  op.bpt = ig::bytes_per_texel(im.data_format);
  op.integer = texel::is_integer(im.num_format);
  if (im.sw_mode != 0) return swizzled_layout(w, in, op);
  // gfx9 linear surfaces have rows 256-byte aligned (AMD's gfx9 surface layout (addrlib): a
  // SW_LINEAR block is 256 bytes wide, pitch a multiple of 256 / bytes-per-element); a T#
  // describing another layout is not one hardware is documented to read.
  if ((im.height > 1 || op.slices > 1) && (uint64_t{im.pitch} * op.bpt) % 256 != 0)
    return fail(w, in, "image PITCH of " + std::to_string(im.pitch) + " texels (" +
                           std::to_string(uint64_t{im.pitch} * op.bpt) +
                           " bytes) not a multiple of 256 bytes, as gfx9 SW_LINEAR rows are");
  return true;
}

// Texel address of integer coordinates (x, y, slice or z) or false when outside the image.
// Linear layout: rows `pitch` texels apart, slices (3D and arrays) pitch * height texels apart;
// array slice s is the T#'s BASE_ARRAY + s. Swizzled layouts: swizzle_gfx9's offset of the
// texel (the slice that the _X modes' xor folds in is the resource's, BASE_ARRAY + s).
bool texel_addr(const Op& op, uint32_t x, uint32_t y, uint32_t z, uint64_t& addr) {
  const ig::Image& im = op.im;
  const bool arr = ig::is_array(im.type);
  if (im.type == ig::kType1DArray) { z = y; y = 0; }
  if (x >= im.width || y >= im.height || z >= op.slices) return false;
  if (arr) z += im.base_array;
  if (op.swizzled) {
    if (z >= op.lay.depth) return false;  // (not reached: slices end at the T#'s last one)
    addr = op.block_base + sw::offset(op.lay, x, y, z, op.pipe_bank_xor);
    return true;
  }
  addr = im.base + ((uint64_t{z} * im.height + y) * im.pitch + x) * op.bpt;
  return true;
}

// Writes the dmask-selected components to consecutive data VGPRs (d16: two per VGPR, low half
// first; a last odd half leaves the VGPR's high half as it was).
void write_result(Wave& w, const Inst& in, const Mimg& m, unsigned l, const uint32_t v[4], bool integer) {
  unsigned k = 0;
  for (unsigned c = 0; c < 4; ++c) {
    if (!((m.dmask >> c) & 1)) continue;
    if (!m.d16) {
      data_row(w, in, in.vdata + k)[l] = v[c];
    } else {
      uint32_t& r = data_row(w, in, in.vdata + k / 2)[l];
      uint32_t h = texel::to_d16(v[c], integer);
      r = (k & 1) ? (r & 0xFFFFu) | (h << 16) : (r & 0xFFFF0000u) | h;
    }
    ++k;
  }
}

uint32_t addr_vgpr(const Wave& w, const Inst& in, unsigned i, unsigned l) {
  return w.v[(in.vaddr + i) & 255][l];
}

// image_load / image_load_mip: integer coordinates (then the mip level). Outside the image
// (or past the last level) a load returns 0 in every component (AMD Vega ISA: out-of-range
// image reads return zero). Only level 0 of a linear image is implemented.
template <bool Mip>
void image_load(Wave& w, const Inst& in) {
  Op op;
  if (!prologue(w, in, op, false, true)) return;
  const uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint32_t c[3] = {0, 0, 0};
    for (unsigned i = 0; i < op.ncoord; ++i) c[i] = addr_vgpr(w, in, i, l);
    uint32_t out[4] = {0, 0, 0, 0};
    uint64_t a;
    bool in_range = texel_addr(op, c[0], c[1], c[2], a);
    if (Mip) {
      uint32_t mip = addr_vgpr(w, in, op.ncoord, l);
      if (mip > op.im.last_level - op.im.base_level) in_range = false;
      else if (mip != 0 && in_range) { fail(w, in, "image_load_mip of level " + std::to_string(mip) + " (mip levels of linear images) not implemented"); return; }
    }
    if (in_range) {
      uint8_t buf[16];
      if (!lane_read(w, {Space::Global, a, 0}, l, buf, op.bpt, in.flags)) return;
      uint32_t t[4];
      texel::unpack(buf, op.im.data_format, op.im.num_format, t);
      texel::swizzle(t, op.im.dst_sel, op.integer, out);
    }
    write_result(w, in, op.m, l, out, op.integer);
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// image_store / image_store_mip: the dmask's components from the data VGPRs, converted to the
// T#'s format (DST_SEL does not apply to writes). Stores outside the image are dropped.
template <bool Mip>
void image_store(Wave& w, const Inst& in) {
  Op op;
  if (!prologue(w, in, op, true, true)) return;
  const unsigned need = (1u << ig::components(op.im.data_format)) - 1;
  if ((op.m.dmask & need) != need)
    return (void)fail(w, in, "image_store with dmask 0x" + std::to_string(op.m.dmask) +
                                 " not covering every component of the format (partial texel writes) not implemented");
  const uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint32_t c[3] = {0, 0, 0};
    for (unsigned i = 0; i < op.ncoord; ++i) c[i] = addr_vgpr(w, in, i, l);
    uint64_t a;
    bool in_range = texel_addr(op, c[0], c[1], c[2], a);
    if (Mip) {
      uint32_t mip = addr_vgpr(w, in, op.ncoord, l);
      if (mip > op.im.last_level - op.im.base_level) in_range = false;
      else if (mip != 0 && in_range) { fail(w, in, "image_store_mip of level " + std::to_string(mip) + " (mip levels of linear images) not implemented"); return; }
    }
    if (!in_range) continue;
    uint32_t v[4] = {0, 0, 0, 0};
    unsigned k = 0;
    for (unsigned i = 0; i < 4; ++i) {
      if (!((op.m.dmask >> i) & 1)) continue;
      uint32_t r = data_row(w, in, in.vdata + (op.m.d16 ? k / 2 : k))[l];
      v[i] = op.m.d16 ? texel::from_d16(static_cast<uint16_t>((k & 1) ? r >> 16 : r), op.im.num_format) : r;
      ++k;
    }
    uint8_t buf[16];
    texel::pack(v, op.im.data_format, op.im.num_format, buf);
    if (!lane_write(w, {Space::Global, a, 0}, l, buf, op.bpt, in.flags)) return;
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// image_get_resinfo: the mip level in the address VGPR; returns width, height, depth (3D) or
// slices (arrays; 1D arrays in the second component) and the number of levels, as integers.
void image_get_resinfo(Wave& w, const Inst& in) {
  Op op;
  if (!prologue(w, in, op, false, false)) return;
  const ig::Image& im = op.im;
  const uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    uint32_t mip = addr_vgpr(w, in, 0, l);
    auto at = [&](uint32_t n) { return mip >= 32 ? 1u : std::max(1u, n >> mip); };
    uint32_t out[4] = {at(im.width), at(im.height), 0, im.last_level - im.base_level + 1};
    if (im.type == ig::kType3D) out[2] = at(im.depth);
    else if (im.type == ig::kType2DArray) out[2] = op.slices;
    else if (im.type == ig::kType1DArray) out[1] = op.slices;
    if (im.type == ig::kType1D || im.type == ig::kType1DArray) out[2] = 0;
    if (im.type == ig::kType1D) out[1] = 0;
    write_result(w, in, op.m, l, out, true);
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

// ---- sampling ----

enum class Lod : uint8_t { Implicit, Bias, Zero, Explicit };

bool is_border(ig::Clamp c) { return c == ig::kClampBorder || c == ig::kMirrorOnceBorder; }

// Texel index `i` under an address mode (AMD Vega ISA, "Image Sampler": SQ_TEX_CLAMP); false
// when it reads the border color.
bool address(int64_t i, int64_t n, ig::Clamp c, int64_t& out) {
  switch (c) {
    case ig::kWrap: out = ((i % n) + n) % n; return true;
    case ig::kMirror: {
      int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
      out = m < n ? m : 2 * n - 1 - m;
      return true;
    }
    case ig::kClampLastTexel: out = std::clamp<int64_t>(i, 0, n - 1); return true;
    case ig::kMirrorOnceLastTexel: out = std::clamp<int64_t>(i < 0 ? -1 - i : i, 0, n - 1); return true;
    case ig::kClampBorder: out = i; return i >= 0 && i < n;
    case ig::kMirrorOnceBorder: out = i < 0 ? -1 - i : i; return out < n;
    default: out = 0; return false;  // half-border modes: refused before (sampler_checks)
  }
}

// One axis of a sample: one tap (point) or two (linear) with their weights. Texel centres are
// at +0.5. The texel-space coordinate is first converted to fixed point with kSubTexelBits
// fraction bits, rounded to nearest: point sampling takes its integer part, bilinear filtering
// takes the taps and weights from it (so weights have 8-bit precision). This is a model, not
// taken from an AMD document: D3D11's functional spec asks for at least 16.8 fixed point, AMD's
// Vulkan drivers report 8 subtexel bits, the S# has TRUNC_COORD to truncate instead of round,
// and AMD's device library on gfx90a snaps point-sample coordinates to i / width (which lands
// a hair below texel i in float) and relies on the hardware reading texel i.
constexpr unsigned kSubTexelBits = 8;

struct Axis {
  int64_t i[2] = {0, 0};
  float wgt[2] = {1, 0};
  bool inside[2] = {true, true};
  unsigned taps = 1;
};

int64_t fixed_coord(float u) {
  if (std::isnan(u)) return 0;
  const double lim = double(int64_t{1} << 40);
  return static_cast<int64_t>(std::nearbyint(std::clamp(double(u) * (1 << kSubTexelBits), -lim, lim)));
}

Axis make_axis(float u, uint32_t n, ig::Clamp c, bool linear) {
  Axis a;
  const int64_t q = fixed_coord(u);
  if (!linear) {
    a.inside[0] = address(q >> kSubTexelBits, n, c, a.i[0]);  // >> of a negative: floor (C++20)
    return a;
  }
  const int64_t t = q - (int64_t{1} << (kSubTexelBits - 1));  // minus half a texel
  const int64_t i0 = t >> kSubTexelBits;
  const float fr = float(t & ((1 << kSubTexelBits) - 1)) / float(1 << kSubTexelBits);
  a.taps = 2;
  a.wgt[0] = 1.0f - fr;
  a.wgt[1] = fr;
  a.inside[0] = address(i0, n, c, a.i[0]);
  a.inside[1] = address(i0 + 1, n, c, a.i[1]);
  return a;
}

// Axes filtered in space (the array slice is not one).
unsigned spatial_axes(ig::ImageType t) {
  return t == ig::kType3D ? 3 : t == ig::kType1D || t == ig::kType1DArray ? 1 : 2;
}

// Refuses the sampler states the core does not implement; true when the rest may go on.
bool sampler_checks(Wave& w, const Inst& in, const Op& op, const ig::Sampler& s, bool normalized) {
  if (s.mag_filter > ig::kBilinear || s.min_filter > ig::kBilinear || s.max_aniso != 0)
    return fail(w, in, "anisotropic filtering (S# XY filter " + std::to_string(s.mag_filter) + "/" +
                           std::to_string(s.min_filter) + ", MAX_ANISO_RATIO " + std::to_string(s.max_aniso) + ") not implemented");
  if (s.filter_mode != 0) return fail(w, in, "S# FILTER_MODE " + std::to_string(s.filter_mode) + " (min/max reduction) not implemented");
  if (s.trunc_coord) return fail(w, in, "S# TRUNC_COORD not implemented");
  const ig::Clamp cl[3] = {s.clamp_x, s.clamp_y, s.clamp_z};
  const unsigned axes = spatial_axes(op.im.type);
  for (unsigned a = 0; a < axes; ++a) {
    if (cl[a] == ig::kClampHalfBorder || cl[a] == ig::kMirrorOnceHalfBorder)
      return fail(w, in, "S# CLAMP_" + std::string(1, "XYZ"[a]) + " " + std::to_string(cl[a]) + " (half border) not implemented");
    if (is_border(cl[a]) && s.border == ig::kRegister)
      return fail(w, in, "S# BORDER_COLOR_TYPE REGISTER (the border color table) not implemented");
    if (!normalized && cl[a] != ig::kClampLastTexel && cl[a] != ig::kClampBorder)
      return fail(w, in, "unnormalized coordinates with S# CLAMP_" + std::string(1, "XYZ"[a]) + " " +
                             std::to_string(cl[a]) + " (only clamp modes are defined for them)");
  }
  return true;
}

// One lane's sample once the filter is known: the taps of each axis (border taps read the
// border colour), weighted in single precision, then DST_SEL. False after a fault.
struct Footprint {
  Axis ax[3];
  unsigned spatial = 2;
  uint32_t slice = 0;
};

bool filter_taps(Wave& w, const Inst& in, const Op& op, const Footprint& fp, const uint32_t border[4],
                 unsigned l, uint32_t out[4]) {
  const ig::Image& im = op.im;
  const unsigned sp = fp.spatial;
  const unsigned tz = sp == 3 ? fp.ax[2].taps : 1, ty = sp >= 2 ? fp.ax[1].taps : 1, tx = fp.ax[0].taps;
  float acc[4] = {0, 0, 0, 0};
  uint32_t t[4];
  for (unsigned k = 0; k < tz; ++k)
    for (unsigned j = 0; j < ty; ++j)
      for (unsigned i = 0; i < tx; ++i) {
        const bool inside = fp.ax[0].inside[i] && (sp < 2 || fp.ax[1].inside[j]) && (sp < 3 || fp.ax[2].inside[k]);
        if (!inside) {
          std::memcpy(t, border, sizeof t);
        } else {
          uint32_t x = uint32_t(fp.ax[0].i[i]), y = sp >= 2 ? uint32_t(fp.ax[1].i[j]) : 0;
          uint32_t z = sp == 3 ? uint32_t(fp.ax[2].i[k]) : fp.slice;
          if (im.type == ig::kType1DArray) y = fp.slice;
          uint64_t a = 0;
          texel_addr(op, x, y, z, a);  // inside by construction
          uint8_t buf[16];
          if (!lane_read(w, {Space::Global, a, 0}, l, buf, op.bpt, in.flags)) return false;
          texel::unpack(buf, im.data_format, im.num_format, t);
        }
        if (tx * ty * tz == 1) break;
        const float wgt = fp.ax[0].wgt[i] * (sp >= 2 ? fp.ax[1].wgt[j] : 1.0f) * (sp == 3 ? fp.ax[2].wgt[k] : 1.0f);
        for (unsigned c = 0; c < 4; ++c) acc[c] += wgt * std::bit_cast<float>(t[c]);
      }
  if (tx * ty * tz > 1)
    for (unsigned c = 0; c < 4; ++c) t[c] = std::bit_cast<uint32_t>(acc[c]);
  texel::swizzle(t, im.dst_sel, op.integer, out);
  return true;
}

// Whether the lane's LOD minifies; fails (false in `ok`) when the LOD needs a level past 0.
template <Lod L>
bool minifies(Wave& w, const Inst& in, const ig::Sampler& s, bool mips, float lod_vgpr, bool& ok) {
  ok = true;
  if (L != Lod::Explicit) return false;  // LOD 0 (lz) or one filter (implicit, checked)
  float lod = std::clamp(lod_vgpr + s.lod_bias, s.min_lod, s.max_lod);
  if (mips && (s.mip_filter == ig::kMipLinear ? lod > 0.0f : std::nearbyint(lod) >= 1.0f)) {
    ok = fail(w, in, "sampling level " + std::to_string(lod) + " of a mipmapped linear image not implemented");
    return false;
  }
  return lod > 0.0f;
}

// image_sample (implicit LOD), _b (bias VGPR first), _lz (LOD 0), _l (LOD VGPR last): float
// coordinates, normalized unless UNORM or the S#'s FORCE_UNNORMALIZED; level 0 only.
template <Lod L>
void image_sample(Wave& w, const Inst& in) {
  Op op;
  if (!prologue(w, in, op, false, true)) return;
  if (in.saddr + 4 > 106) return (void)fail(w, in, "MIMG S# past the SGPRs");
  const ig::Sampler s = ig::decode_sampler(&w.s[in.saddr]);
  const ig::Image& im = op.im;
  const bool normalized = !(op.m.unorm || s.force_unnormalized);
  if (!sampler_checks(w, in, op, s, normalized)) return;
  const bool mips = im.last_level > im.base_level && s.mip_filter != ig::kMipNone;
  if (L == Lod::Implicit || L == Lod::Bias) {
    // The implicit LOD (from the quad's derivatives) only picks the minification or
    // magnification filter and the level; with one filter and one level it does not matter.
    if (s.mag_filter != s.min_filter)
      return (void)fail(w, in, "implicit-LOD sampling with different min and mag filters (quad derivatives) not implemented");
    if (mips) return (void)fail(w, in, "implicit-LOD sampling of a mipmapped image (quad derivatives) not implemented");
  }
  Footprint fp;
  fp.spatial = spatial_axes(im.type);
  const uint32_t size[3] = {im.width, im.height, im.type == ig::kType3D ? im.depth : 1};
  const ig::Clamp cl[3] = {s.clamp_x, s.clamp_y, s.clamp_z};
  // Border colours (SQ_TEX_BORDER_COLOR), as texel values before DST_SEL.
  const float bw = s.border == ig::kOpaqueWhite ? 1.0f : 0.0f, ba = s.border == ig::kTransBlack ? 0.0f : 1.0f;
  const float bf[4] = {bw, bw, bw, ba};
  uint32_t border[4];
  for (unsigned c = 0; c < 4; ++c) border[c] = op.integer ? static_cast<uint32_t>(bf[c]) : std::bit_cast<uint32_t>(bf[c]);
  const uint64_t ex = w.exec();
  for (unsigned l = 0; l < 64; ++l) {
    if (!((ex >> l) & 1)) continue;
    const unsigned r = L == Lod::Bias ? 1 : 0;  // the bias VGPR comes first
    float u[3] = {0, 0, 0};
    for (unsigned i = 0; i < op.ncoord; ++i) u[i] = std::bit_cast<float>(addr_vgpr(w, in, r + i, l));
    bool ok;
    const bool minify = minifies<L>(w, in, s, mips, std::bit_cast<float>(addr_vgpr(w, in, r + op.ncoord, l)), ok);
    if (!ok) return;
    const ig::Filter xy = minify ? s.min_filter : s.mag_filter;
    const bool zlin = s.z_filter == ig::kMipNone ? xy == ig::kBilinear : s.z_filter == ig::kMipLinear;
    if (op.integer && (xy == ig::kBilinear || (fp.spatial == 3 && zlin)))
      return (void)fail(w, in, "linear filtering of an integer (UINT/SINT) format");
    for (unsigned a = 0; a < fp.spatial; ++a)
      fp.ax[a] = make_axis(normalized ? u[a] * float(size[a]) : u[a], size[a], cl[a], a == 2 ? zlin : xy == ig::kBilinear);
    if (ig::is_array(im.type)) {  // the slice: rounded to nearest even, clamped to the array
      const float sl = u[fp.spatial], last = float(op.slices ? op.slices - 1 : 0);
      fp.slice = static_cast<uint32_t>(std::isnan(sl) ? 0.0f : std::nearbyint(std::clamp(sl, 0.0f, last)));
    }
    uint32_t out[4];
    if (!filter_taps(w, in, op, fp, border, l, out)) return;
    write_result(w, in, op.m, l, out, op.integer);
  }
  w.lane_ops += static_cast<unsigned>(std::popcount(ex));
}

const HandlerEntry kMimg[] = {
    {"image_load", image_load<false>},         {"image_load_mip", image_load<true>},
    {"image_store", image_store<false>},       {"image_store_mip", image_store<true>},
    {"image_get_resinfo", image_get_resinfo},  {"image_sample", image_sample<Lod::Implicit>},
    {"image_sample_b", image_sample<Lod::Bias>}, {"image_sample_lz", image_sample<Lod::Zero>},
    {"image_sample_l", image_sample<Lod::Explicit>},
};

}  // namespace

HandlerList mimg_handlers() { return {std::begin(kMimg), std::end(kMimg)}; }

}  // namespace emu::shader
