// SPDX-License-Identifier: MIT
// Corpus: clang builtins that map to single instructions (sad, lerp, cube, packed conversions,
// fmed3 and frexp on halves, saturating arithmetic, packed half math, ds_append/consume, DPP).
#include "kt.h"

typedef _Float16 half2_t __attribute__((ext_vector_type(2)));
typedef short short2_t __attribute__((ext_vector_type(2)));
typedef unsigned short ushort2_t __attribute__((ext_vector_type(2)));

// 16 results per work-item, bit patterns in out[16 * i + k].
KERNEL void int_builtins(const unsigned* a, const unsigned* b, unsigned* out) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  unsigned x = a[i], y = b[i];
  unsigned* o = out + 16 * i;
  o[0] = __builtin_amdgcn_sad_u8(x, y, 7u);
  o[1] = __builtin_amdgcn_msad_u8(x, y, 9u);
  o[2] = __builtin_amdgcn_sad_hi_u8(x, y, 11u);
  o[3] = __builtin_amdgcn_sad_u16(x, y, 13u);
  o[4] = __builtin_amdgcn_lerp(x, y, 0x03020100u);
  o[5] = (unsigned)__builtin_elementwise_add_sat((int)x, (int)y);
  o[6] = (unsigned)__builtin_elementwise_sub_sat((int)x, (int)y);
  o[7] = __builtin_elementwise_add_sat(x, y);
  o[8] = __builtin_elementwise_sub_sat(x, y);
  ushort2_t ua = {(unsigned short)x, (unsigned short)(x >> 16)}, ub = {(unsigned short)y, (unsigned short)(y >> 16)};
  ushort2_t ud = __builtin_elementwise_add_sat(ua, ub);
  o[9] = ud.x | ((unsigned)ud.y << 16);
  short2_t sx = {(short)x, (short)(x >> 16)}, sy = {(short)y, (short)(y >> 16)};
  short2_t ss = __builtin_elementwise_add_sat(sx, sy);
  o[10] = (unsigned short)ss.x | ((unsigned)(unsigned short)ss.y << 16);
  ushort2_t ux = {(unsigned short)x, (unsigned short)(x >> 16)}, uy = {(unsigned short)y, (unsigned short)(y >> 16)};
  ushort2_t us = __builtin_elementwise_sub_sat(ux, uy);
  o[11] = us.x | ((unsigned)us.y << 16);
  o[12] = __builtin_amdgcn_alignbyte(x, y, i & 3);
  o[13] = __builtin_amdgcn_ubfe(x, i & 31, 5);
  o[14] = (unsigned)__builtin_amdgcn_sbfe((int)y, (i * 3) & 15, 7);
  o[15] = __builtin_amdgcn_perm(x, y, 0x07050301u);
}

KERNEL void float_builtins(const float* a, const float* b, unsigned* out) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  float x = a[i], y = b[i];
  unsigned* o = out + 16 * i;
  o[0] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cubeid(x, y, 0.5f));
  o[1] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cubesc(x, y, 0.5f));
  o[2] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cubetc(x, y, 0.5f));
  o[3] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cubema(x, y, 0.5f));
  short2_t pn = __builtin_amdgcn_cvt_pknorm_i16(x, y);
  o[4] = __builtin_bit_cast(unsigned, pn);
  ushort2_t pu = __builtin_amdgcn_cvt_pknorm_u16(x, y);
  o[5] = __builtin_bit_cast(unsigned, pu);
  o[6] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cvt_pk_i16((int)(x * 70000.0f), (int)(y * 70000.0f)));
  o[7] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cvt_pk_u16((unsigned)__builtin_fabsf(x * 70000.0f),
                                                                  (unsigned)__builtin_fabsf(y * 90000.0f)));
  o[8] = __builtin_amdgcn_cvt_pk_u8_f32(x * 200.0f, i & 3, 0x11223344u);
  _Float16 hx = (_Float16)x, hy = (_Float16)y;
  o[9] = __builtin_bit_cast(unsigned short, __builtin_amdgcn_fmed3h(hx, hy, (_Float16)0.25f));
  o[10] = __builtin_bit_cast(unsigned short, __builtin_amdgcn_frexp_manth(hx));
  o[11] = (unsigned)(int)__builtin_amdgcn_frexp_exph(hx);
  o[12] = __builtin_bit_cast(unsigned, __builtin_amdgcn_frexp_mantf(x));
  o[13] = (unsigned)__builtin_amdgcn_frexp_expf(x);
  half2_t h2 = {hx, hy};
  half2_t r2 = h2 * (half2_t){hy, hx} + (half2_t){(_Float16)1.0f, (_Float16)-2.0f};
  o[14] = __builtin_bit_cast(unsigned, r2);
  o[15] = __builtin_bit_cast(unsigned, __builtin_amdgcn_fmed3f(x, y, 0.5f));
}

// ds_append / ds_consume on two LDS counters: each odd work-item records the value its wave
// got back (the wave's base); the block's final counter values go to counts.
KERNEL void append_consume(const unsigned* in, unsigned* out, unsigned* counts) {
  __shared__ int counters[2];
  unsigned t = tid_x(), i = bid_x() * bdim_x() + t;
  if (t == 0) { counters[0] = 0; counters[1] = 1000; }
  syncthreads();
  unsigned r = ~0u;
  if (in[i] & 1) {
    r = (unsigned)__builtin_amdgcn_ds_append(&counters[0]);
    __builtin_amdgcn_ds_consume(&counters[1]);
  }
  out[i] = r;
  syncthreads();
  if (t == 0) { counts[2 * bid_x()] = (unsigned)counters[0]; counts[2 * bid_x() + 1] = (unsigned)counters[1]; }
}

// Row-wise DPP (update_dpp/mov_dpp) and ds_swizzle, as warp-reduction libraries use them.
KERNEL void dpp_ops(const int* in, int* out) {
  unsigned i = bid_x() * bdim_x() + tid_x();
  int v = in[i];
  int* o = out + 8 * i;
  o[0] = __builtin_amdgcn_update_dpp(-1, v, 0x111, 0xf, 0xf, false);   // row_shr:1
  o[1] = __builtin_amdgcn_update_dpp(-1, v, 0x101, 0xf, 0xf, true);    // row_shl:1 bound_ctrl
  o[2] = __builtin_amdgcn_mov_dpp(v, 0x1b, 0xf, 0xf, false);           // quad_perm [3,2,1,0]
  o[3] = __builtin_amdgcn_update_dpp(-7, v, 0x142, 0xa, 0xf, false);   // row_bcast:15, rows 1 and 3
  o[4] = __builtin_amdgcn_ds_swizzle(v, 0x041f);                       // xor lane ^ 1 (bitmask mode)
  o[5] = __builtin_amdgcn_readlane(v, 17);
  o[6] = __builtin_amdgcn_update_dpp(0, v, 0x13c, 0xf, 0xf, false) + v; // wave_ror:1
  o[7] = __builtin_amdgcn_ds_permute((int)((tid_x() ^ 5) << 2), v);
}
