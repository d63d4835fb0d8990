// SPDX-License-Identifier: MIT
// ISA tests: vector ALU (VOP1/VOP2/VOPC/VOP3/VOP3P): EXEC masking, VCC carries, VOP3
// modifiers, NaN/denormal handling, conversions, f64 and packed math. Inputs come from an
// array `in` (second kernel argument): in[lane] as f32 bits, in[64+lane] as u32.
.include "kernel.inc"

.macro LOADIN
  s_load_dwordx2 s[2:3], s[4:5], 0x8      // in pointer (kernarg pointer kept in s[4:5])
  s_waitcnt lgkmcnt(0)
  global_load_dword v1, v62, s[2:3]                 // f32 input
  global_load_dword v2, v62, s[2:3] offset:256      // u32 input
  global_load_dword v3, v62, s[2:3] offset:512      // second u32 input
  s_waitcnt vmcnt(0)
.endm

// Kernels here keep the kernarg pointer: KBEGIN overwrote s[0:1]; reload it from s[4:5].
.macro KBEGIN2 name
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_mov_b64 s[4:5], s[0:1]
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63
  s_waitcnt lgkmcnt(0)
  LOADIN
.endm

KBEGIN2 k_vop_int
  v_add_co_u32 v4, vcc, v2, v3            // carry into VCC
  v_addc_co_u32 v5, vcc, 0, 0, vcc        // materializes the carry
  STORE v4, 0
  STORE v5, 1
  v_sub_co_u32 v6, s[6:7], v2, v3         // VOP3B borrow into s[6:7]
  v_cndmask_b32 v7, 0, 1, s[6:7]
  STORE v7, 2
  v_mad_u64_u32 v[8:9], s[6:7], v2, v3, v[2:3]
  STORE v8, 3
  STORE v9, 4
  v_mul_hi_i32 v10, v2, v3
  STORE v10, 5
  v_bfe_i32 v11, v2, 3, 5
  STORE v11, 6
  v_alignbit_b32 v12, v2, v3, 7
  STORE v12, 7
  s_mov_b32 s11, 0x0c07020d
  v_perm_b32 v13, v2, v3, s11              // selectors 0x0d, 0x02, 0x07, 0x0c
  STORE v13, 8
  v_mov_b32 v14, 0x77
  s_mov_b64 s[8:9], exec
  s_mov_b32 exec_lo, 0x55555555            // even lanes only
  s_mov_b32 exec_hi, 0x55555555
  v_mov_b32 v14, v63
  v_cmp_lt_u32 vcc, v2, v3                   // inactive lanes give 0
  s_mov_b64 exec, s[8:9]
  STORE v14, 9
  v_cndmask_b32 v15, 0, 1, vcc
  STORE v15, 10
  v_mbcnt_lo_u32_b32 v16, -1, 0
  v_mbcnt_hi_u32_b32 v16, -1, v16
  STORE v16, 11
  v_lshlrev_b64 v[18:19], 33, v[2:3]
  STORE v19, 12
  v_readlane_b32 s10, v2, 5
  STORES s10, 13
  v_mov_b32 v17, 0
  v_writelane_b32 v17, s10, 9
  STORE v17, 14
  v_add3_u32 v20, v2, v3, -1
  STORE v20, 15
  s_endpgm
KEND k_vop_int

KBEGIN2 k_vop_f32
  v_mov_b32 v4, 1.0
  v_max_f32 v5, v1, v4                      // NaN input -> the other operand (IEEE mode)
  STORE v5, 0
  v_min_f32 v6, v1, v4
  STORE v6, 1
  v_add_f32 v7, -v1, |v4|                   // VOP3 neg/abs
  STORE v7, 2
  v_mul_f32 v8, v1, 2.0 clamp               // clamp to [0,1]
  STORE v8, 3
  v_add_f32 v9, v1, v1 mul:2                // omod
  STORE v9, 4
  v_cvt_i32_f32 v10, v1                     // saturating, NaN -> 0
  STORE v10, 5
  v_rndne_f32 v11, v1
  STORE v11, 6
  v_fract_f32 v12, v1
  STORE v12, 7
  v_med3_f32 v13, v1, 0, 1.0
  STORE v13, 8
  v_cmp_class_f32 vcc, v1, 0x3                // NaN classes
  v_cndmask_b32 v14, 0, 1, vcc
  STORE v14, 9
  v_mul_f32 v15, v1, 0.5                     // f32 denormals flushed (descriptor default)
  STORE v15, 10
  v_fma_f32 v16, v1, v1, -v4
  STORE v16, 11
  v_cvt_f16_f32 v17, v1
  v_cvt_f32_f16 v18, v17
  STORE v18, 12
  v_frexp_mant_f32 v19, v1
  STORE v19, 13
  v_ldexp_f32 v20, v1, 3
  STORE v20, 14
  v_cmp_lt_f32 vcc, v1, v4
  v_cndmask_b32 v21, 0, 1, vcc
  STORE v21, 15
  s_add_u32 s0, s0, 4096                    // slots 16.. in the next 4 KiB
  s_addc_u32 s1, s1, 0
  v_mov_b32 v22, 0.5
  v_fmac_f32_e64 v22, -v1, v4               // VOP3 form: accumulates into v22 (0.5 - x)
  STORE v22, 0
  s_endpgm
KEND k_vop_f32

KBEGIN2 k_vop_f64
  v_cvt_f64_f32 v[4:5], v1
  v_mul_f64 v[6:7], v[4:5], v[4:5]
  v_fma_f64 v[8:9], v[4:5], 0.5, -v[6:7]
  STORE v8, 0
  STORE v9, 1
  v_cvt_f64_u32 v[10:11], v2
  v_sqrt_f64 v[12:13], v[10:11]
  STORE v12, 2
  STORE v13, 3
  v_cvt_u32_f64 v14, v[12:13]
  STORE v14, 4
  v_max_f64 v[26:27], v[4:5], 1.0
  STORE v27, 5
  v_cvt_f32_f64 v17, v[6:7]
  STORE v17, 6
  v_pk_mul_f32 v[18:19], v[2:3], v[2:3] op_sel_hi:[0,0]   // both halves use the low element
  STORE v18, 7
  STORE v19, 8
  v_pk_add_f32 v[20:21], v[2:3], v[2:3]
  STORE v21, 9                                           // in3 bits doubled as f32
  v_add_f16 v22, v2, v3
  STORE v22, 10
  v_pk_add_u16 v23, v2, v3
  STORE v23, 11
  v_lshrrev_b16 v24, 4, v2
  STORE v24, 12
  v_accvgpr_write_b32 a3, v2                // AGPR moves and AGPR memory operands
  v_accvgpr_mov_b32 a5, a3
  v_accvgpr_read_b32 v30, a5
  STORE v30, 13
  global_store_dword v62, a5, s[0:1] offset:(14 * 256)
  global_load_dword a6, v62, s[2:3] offset:512
  s_waitcnt vmcnt(0)
  v_accvgpr_read_b32 v31, a6
  STORE v31, 15
  s_endpgm
KEND k_vop_f64, vgprs=64


// GPR index mode: dynamic indexing of a VGPR array (what LLVM emits on gfx90a).
KBEGIN k_gpr_idx
  v_mov_b32 v10, 100
  v_mov_b32 v11, 101
  v_mov_b32 v12, 102
  v_mov_b32 v13, 103
  s_mov_b32 s4, 2
  s_set_gpr_idx_on s4, gpr_idx(SRC0)
  v_mov_b32 v20, v10                        // reads v12
  s_set_gpr_idx_off
  s_mov_b32 s4, 3
  s_set_gpr_idx_on s4, gpr_idx(DST)
  v_mov_b32 v10, v63                        // writes v13
  s_set_gpr_idx_off
  v_mov_b32 v21, v10                        // index mode off again: plain v10
  STORE v20, 0
  STORE v13, 1
  STORE v21, 2
  s_endpgm
KEND k_gpr_idx

// Dot products: VOP3P v_dot* and the accumulating VOP2 v_dot*c.
KBEGIN k_dot
  v_mul_u32_u24 v1, 0x01030507, v63         // lane-dependent packed elements
  v_mov_b32 v2, 0xfe02fd03
  v_mov_b32 v3, 1000
  v_dot4_i32_i8 v4, v1, v2, v3
  STORE v4, 0
  v_dot4_u32_u8 v5, v1, v2, v3
  STORE v5, 1
  v_dot2_i32_i16 v6, v1, v2, v3
  STORE v6, 2
  v_mov_b32 v7, 7
  v_dot4c_i32_i8 v7, v1, v2                 // accumulates into v7
  STORE v7, 3
  v_mov_b32 v8, 0x40003c00                  // f16 (1.0, 2.0)
  v_mov_b32 v9, 0x44004200                  // f16 (3.0, 4.0)
  v_mov_b32 v10, 0.5
  v_dot2_f32_f16 v11, v8, v9, v10           // 1*3 + 2*4 + 0.5
  STORE v11, 4
  s_endpgm
KEND k_dot

// Carry chains: carry-in from a lane pattern (VCC for VOP2, an SGPR pair for VOP3), carry-outs
// materialized, clamp, operands that wrap with the carry-in, and a partly active wave (inactive
// lanes keep their value and give carry 0).
KBEGIN2 k_vop_carry
  s_mov_b32 s6, 0x5a5a5a5a                   // carry-in lanes
  s_mov_b32 s7, 0x0ff00ff0
  s_mov_b64 vcc, s[6:7]
  v_addc_co_u32 v4, vcc, v2, v3, vcc         // a + b + cin
  v_cndmask_b32 v5, 0, 1, vcc
  STORE v4, 0
  STORE v5, 1
  v_subb_co_u32 v6, s[8:9], v2, v3, s[6:7]   // a - b - cin
  v_cndmask_b32 v7, 0, 1, s[8:9]
  STORE v6, 2
  STORE v7, 3
  v_subbrev_co_u32 v8, s[8:9], v2, v3, s[6:7]  // b - a - cin
  v_cndmask_b32 v9, 0, 1, s[8:9]
  STORE v8, 4
  STORE v9, 5
  v_subrev_co_u32 v10, s[8:9], v2, v3        // b - a
  v_cndmask_b32 v11, 0, 1, s[8:9]
  STORE v10, 6
  STORE v11, 7
  v_add_co_u32 v12, s[8:9], v2, v3 clamp     // saturates at 0xffffffff
  STORE v12, 8
  v_sub_co_u32 v13, s[8:9], v2, v3 clamp     // saturates at 0
  STORE v13, 9
  v_mov_b32 v14, 0x77
  s_mov_b64 s[10:11], exec
  s_mov_b32 exec_lo, 0xaaaaaaaa              // odd lanes only
  s_mov_b32 exec_hi, 0xaaaaaaaa
  v_addc_co_u32 v14, vcc, v2, v3, s[6:7]
  s_mov_b64 exec, s[10:11]
  v_cndmask_b32 v15, 0, 1, vcc
  STORE v14, 10
  STORE v15, 11
  v_mov_b32 v20, -1
  v_subb_co_u32 v21, s[8:9], v2, v20, s[6:7]   // b + cin wraps
  v_cndmask_b32 v22, 0, 1, s[8:9]
  STORE v22, 12
  v_addc_co_u32 v23, s[8:9], v20, 0, s[6:7]   // carries only through the carry-in
  v_cndmask_b32 v23, 0, 1, s[8:9]
  STORE v23, 13
  v_subbrev_co_u32 v24, s[8:9], v20, v3, s[6:7]  // a + cin wraps
  v_cndmask_b32 v25, 0, 1, s[8:9]
  STORE v25, 14
  STORE v21, 15
  s_endpgm
KEND k_vop_carry

// Conversions and ldexp at the edges: saturation, NaN, exponents far out of range.
KBEGIN2 k_vop_cvt
  v_cvt_u32_f32 v4, v1
  STORE v4, 0
  v_cvt_i32_f32 v5, v1
  STORE v5, 1
  v_ldexp_f32 v6, v1, v2                     // exponents anywhere in the 32-bit range
  STORE v6, 2
  v_and_b32 v7, 0xff, v2
  v_subrev_u32 v7, 0x80, v7                  // -128 .. 127
  v_ldexp_f32 v8, v1, v7
  STORE v8, 3
  s_mov_b32 s12, 0x7f7fffff
  v_ldexp_f32 v9, s12, v7                    // the largest f32 scaled both ways
  STORE v9, 4
  v_mov_b32 v10, v3                          // 64-bit compares: X = v[2:3], Y = (b, a)
  v_mov_b32 v11, v2
  v_cmp_lt_i64 vcc, v[2:3], v[10:11]
  v_cndmask_b32 v12, 0, 1, vcc
  STORE v12, 5
  v_cmp_gt_u64 vcc, v[2:3], v[10:11]
  v_cndmask_b32 v12, 0, 1, vcc
  STORE v12, 6
  v_cmp_le_i64 vcc, v[2:3], v[2:3]
  v_cndmask_b32 v12, 0, 1, vcc
  STORE v12, 7
  v_cmp_ne_u64 vcc, v[2:3], v[10:11]
  v_cndmask_b32 v12, 0, 1, vcc
  STORE v12, 8
  v_cmp_ge_i64 vcc, v[2:3], v[10:11]
  v_cndmask_b32 v12, 0, 1, vcc
  STORE v12, 9
  s_endpgm
KEND k_vop_cvt
