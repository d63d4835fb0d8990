// SPDX-License-Identifier: MIT
// ISA tests: VOP3 integer clamp (saturating add/sub, carry ops, 16-bit, dot), VOP3P packed
// math with clamp, op_sel/op_sel_hi and neg_lo/neg_hi, VOP3 op_sel writing the high half, and
// the VOP2 literal forms (v_madmk/v_madak) with the unfused f16 mad.
// Inputs: in[64+lane] and in[128+lane] (u32 patterns) from the second kernel argument.
.include "kernel.inc"

.macro KBEGIN_IN name
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx2 s[2:3], s[0:1], 0x8      // in pointer
  s_load_dwordx2 s[0:1], s[0:1], 0x0      // out pointer
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v62, s[2:3] offset:256
  global_load_dword v3, v62, s[2:3] offset:512
  s_waitcnt vmcnt(0)
.endm

KBEGIN_IN k_int_clamp
  v_add_u32 v4, v2, v3 clamp
  STORE v4, 0
  v_sub_u32 v5, v2, v3 clamp
  STORE v5, 1
  v_add_i32 v6, v2, v3 clamp
  STORE v6, 2
  v_sub_i32 v7, v2, v3 clamp
  STORE v7, 3
  v_add_co_u32 v8, s[6:7], v2, v3 clamp     // carry still reported
  STORE v8, 4
  v_cndmask_b32 v9, 0, 1, s[6:7]
  STORE v9, 5
  v_add_u16 v10, v2, v3 clamp
  STORE v10, 6
  v_sub_i16 v11, v2, v3 clamp
  STORE v11, 7
  v_pk_add_u16 v12, v2, v3 clamp
  STORE v12, 8
  v_pk_sub_i16 v13, v2, v3 clamp
  STORE v13, 9
  s_mov_b32 s8, 0x7ffffff0
  v_dot4_i32_i8 v14, v2, v3, s8 clamp       // saturates at INT32_MAX
  STORE v14, 10
  v_add_u32 v15, v2, v3                     // no clamp: wraps
  STORE v15, 11
  s_endpgm
KEND k_int_clamp

KBEGIN_IN k_packed
  v_pk_add_f16 v4, v2, v3 clamp             // each half to [0, 1], NaN -> 0
  STORE v4, 0
  v_pk_mul_f32 v[6:7], v[2:3], v[2:3] clamp
  STORE v6, 1
  STORE v7, 2
  // lo = -a.hi * b.lo + a.lo ; hi = a.lo * -b.hi + a.hi
  v_pk_fma_f16 v8, v2, v3, v2 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,1,0]
  STORE v8, 3
  v_mov_b32 v9, v2
  v_fma_f16 v9, v2, 1.0, v3 op_sel:[1,0,1,1]  // a.hi * 1 + b.hi into the high half
  STORE v9, 4
  v_pk_max_i16 v10, v2, v3 op_sel:[0,1] op_sel_hi:[1,0]  // lo = max(a.lo, b.hi), hi = max(a.hi, b.lo)
  STORE v10, 5
  s_endpgm
KEND k_packed

// Inline float constants as 16-bit packed operands: the binary16 value in the low half, the high
// half zero; op_sel_hi:0 feeds the low half to the high element.
KBEGIN_IN k_packed_const
  v_pk_add_f16 v4, v2, 1.0 op_sel_hi:[1,0]  // a + 1 in each half
  STORE v4, 0
  v_pk_mul_f16 v5, v2, 0.5                  // lo = a.lo * 0.5, hi = a.hi * (+0)
  STORE v5, 1
  v_pk_fma_f16 v6, v2, 2.0, -1.0 op_sel_hi:[1,0,0]  // a * 2 - 1 in each half
  STORE v6, 2
  v_dot2_f32_f16 v7, v2, 1.0, v3 op_sel_hi:[1,0,1]  // a.lo + a.hi + b (f32)
  STORE v7, 3
  v_mov_b32 v9, v3
  v_dot2c_f32_f16 v9, 0.5, v2               // VOP2: a.lo * 0.5 + a.hi * (+0) + b
  STORE v9, 4
  v_pk_add_u16 v8, v2, -1 op_sel_hi:[1,1]   // integer constants stay 32-bit: -1 in both halves
  STORE v8, 5
  s_endpgm
KEND k_packed_const

// VOP2 forms with a literal constant K (v_madmk: S0*K+S1, v_madak: S0*S1+K) and the unfused
// f16 mad: the product is rounded before the add.
KBEGIN_IN k_mad_literal
  v_madmk_f32 v4, v2, 0x40490fdb, v3
  STORE v4, 0
  v_madak_f32 v5, v2, v3, 0xc2f60000
  STORE v5, 1
  v_madmk_f16 v6, v2, 0x4248, v3
  STORE v6, 2
  v_madak_f16 v7, v2, v3, 0xbc00
  STORE v7, 3
  v_mad_f16 v8, v2, v3, v3
  STORE v8, 4
  v_fma_f16 v9, v2, v3, v3
  STORE v9, 5
  s_endpgm
KEND k_mad_literal
