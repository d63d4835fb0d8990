// SPDX-License-Identifier: MIT
// ISA tests: 64-bit VALU operations on VGPR pairs, SGPR pairs and inline constants: f64
// arithmetic with abs/neg on any source, a partly active wave, rounding, reciprocals, compares
// (every condition, NaN operands), v_cmp_class_f64, conversions to 32-bit at the edges,
// v_ldexp_f64, v_div_fmas_f64 with VCC lanes, 64-bit shifts; and v_exp_f32 / v_log_f32.
// Inputs (second kernel argument): in[64+lane] = a, in[128+lane] = b, u32 patterns; X = the
// pair (a, b) as an f64 (any bit pattern), Y = the pair (b, a).
.include "kernel.inc"

.macro KBEGIN_XY name
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
  v_mov_b32 v4, v3                        // Y = v[4:5]
  v_mov_b32 v5, v2
.endm

// Arithmetic: slots 0..15 are the low and high dwords of eight f64 results.
KBEGIN_XY k_f64_arith
  s_mov_b32 s10, 0x9999999a                // s[10:11] = 0.1
  s_mov_b32 s11, 0x3fb99999
  v_fma_f64 v[6:7], -v[2:3], |v[4:5]|, s[10:11]
  STORE v6, 0
  STORE v7, 1
  v_mov_b32 v8, 0x11111111
  v_mov_b32 v9, 0x22222222
  s_mov_b64 s[12:13], exec
  s_mov_b32 exec_lo, 0x0f0f0f0f             // a partly active wave keeps the others
  s_mov_b32 exec_hi, 0xf0f0f0f0
  v_add_f64 v[8:9], |v[2:3]|, -v[4:5]
  s_mov_b64 exec, s[12:13]
  STORE v8, 2
  STORE v9, 3
  v_mov_b32 v10, v2
  v_mov_b32 v11, v3
  v_fmac_f64 v[10:11], 0.5, v[4:5]          // inline constant as a broadcast source
  STORE v10, 4
  STORE v11, 5
  v_mul_f64 v[12:13], s[10:11], -v[2:3]
  STORE v12, 6
  STORE v13, 7
  v_rndne_f64 v[14:15], v[2:3]
  STORE v14, 8
  STORE v15, 9
  v_floor_f64 v[16:17], -v[4:5]
  STORE v16, 10
  STORE v17, 11
  v_rsq_f64 v[18:19], |v[2:3]|
  STORE v18, 12
  STORE v19, 13
  v_div_fixup_f64 v[20:21], v[2:3], v[4:5], v[2:3]   // S2 / S1
  STORE v20, 14
  STORE v21, 15
  s_endpgm
KEND k_f64_arith

// Compares and classes: slots 0..15 hold bit masks built lane by lane (1 per true condition).
KBEGIN_XY k_f64_cmp
  v_cmp_lt_f64 vcc, v[2:3], v[4:5]
  v_cndmask_b32 v6, 0, 1, vcc
  STORE v6, 0
  v_cmp_nge_f64 vcc, v[2:3], v[4:5]
  v_cndmask_b32 v6, 0, 1, vcc
  STORE v6, 1
  v_cmp_lg_f64 vcc, v[2:3], v[4:5]
  v_cndmask_b32 v6, 0, 1, vcc
  STORE v6, 2
  v_cmp_nlg_f64 vcc, v[2:3], v[4:5]
  v_cndmask_b32 v6, 0, 1, vcc
  STORE v6, 3
  v_cmp_u_f64 vcc, v[2:3], v[4:5]
  v_cndmask_b32 v6, 0, 1, vcc
  STORE v6, 4
  v_cmp_neq_f64_e64 s[10:11], -v[2:3], 1.0
  v_cndmask_b32 v6, 0, 1, s[10:11]
  STORE v6, 5
  v_cmp_ge_f64_e64 s[10:11], |v[2:3]|, |v[4:5]|
  v_cndmask_b32 v6, 0, 1, s[10:11]
  STORE v6, 6
  v_cmp_class_f64 vcc, v[2:3], v3           // the class mask from b's bits
  v_cndmask_b32 v6, 0, 1, vcc
  STORE v6, 7
  v_cmp_class_f64_e64 vcc, -|v[2:3]|, v2
  v_cndmask_b32 v6, 0, 1, vcc
  STORE v6, 8
  v_cvt_i32_f64 v7, v[2:3]                  // saturating, NaN -> 0
  STORE v7, 9
  v_cvt_u32_f64 v8, v[4:5]
  STORE v8, 10
  v_cvt_f32_f64 v9, v[2:3]
  STORE v9, 11
  v_and_b32 v10, 0x7ff, v2
  v_subrev_u32 v10, 0x400, v10              // -1024 .. 1023
  v_ldexp_f64 v[12:13], v[4:5], v10
  STORE v12, 12
  STORE v13, 13
  v_ldexp_f64 v[14:15], v[4:5], v2          // any 32-bit exponent
  STORE v14, 14
  STORE v15, 15
  s_endpgm
KEND k_f64_cmp

// The division helpers and reciprocal: slots 0..5.
KBEGIN_XY k_f64_div
  s_mov_b32 vcc_lo, 0x96696996              // lanes scaled by 2^64
  s_mov_b32 vcc_hi, 0x69969669
  v_div_fmas_f64 v[6:7], v[2:3], 0.5, v[4:5]
  STORE v6, 0
  STORE v7, 1
  v_div_scale_f64 v[8:9], s[10:11], -v[2:3], v[4:5], v[2:3]
  STORE v8, 2
  STORE v9, 3
  v_rcp_f64 v[10:11], v[4:5]
  STORE v10, 4
  STORE v11, 5
  s_endpgm
KEND k_f64_div

// 64-bit shifts and conversions from 32-bit: slots 0..15.
KBEGIN_XY k_b64_shift
  v_lshlrev_b64 v[6:7], v2, v[4:5]          // count = a & 63
  STORE v6, 0
  STORE v7, 1
  v_lshrrev_b64 v[8:9], 37, v[2:3]
  STORE v8, 2
  STORE v9, 3
  s_mov_b64 s[10:11], exec
  s_mov_b32 exec_lo, 0x33333333
  s_mov_b32 exec_hi, 0xcccccccc
  v_lshrrev_b64 v[8:9], v3, s[10:11]        // an SGPR pair shifted, a partly active wave
  s_mov_b64 exec, s[10:11]
  STORE v8, 4
  STORE v9, 5
  v_cvt_f64_i32 v[10:11], v2
  STORE v10, 6
  STORE v11, 7
  v_cvt_f64_u32 v[12:13], v3
  STORE v12, 8
  STORE v13, 9
  v_trunc_f64 v[14:15], v[2:3]
  STORE v14, 10
  STORE v15, 11
  v_ceil_f64 v[16:17], v[4:5]
  STORE v16, 12
  STORE v17, 13
  v_sqrt_f64 v[18:19], |v[4:5]|
  STORE v18, 14
  STORE v19, 15
  s_endpgm
KEND k_b64_shift

// v_exp_f32 / v_log_f32 (computed in double on the host) on in[64+lane] as f32, in a kernel that
// keeps f32 denormals (FLOAT_DENORM_MODE_32 = 3): the instructions themselves do not support
// them (results below 2^-126 are +0, denormal inputs of v_log_f32 count as zero).
KBEGIN_XY k_f32_exp_log
  v_exp_f32 v6, v2
  STORE v6, 0
  v_log_f32 v7, v2
  STORE v7, 1
  v_exp_f32_e64 v8, -v2
  STORE v8, 2
  v_log_f32_e64 v9, |v2|
  STORE v9, 3
  s_mov_b64 s[10:11], exec
  s_mov_b32 exec_lo, 0x55555555
  s_mov_b32 exec_hi, 0x55555555
  v_exp_f32 v3, v2                        // a partly active wave keeps the odd lanes' b
  s_mov_b64 exec, s[10:11]
  STORE v3, 4
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel k_f32_exp_log
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 72
    .amdhsa_next_free_sgpr 64
    .amdhsa_accum_offset 64
    .amdhsa_float_denorm_mode_32 3
  .end_amdhsa_kernel
