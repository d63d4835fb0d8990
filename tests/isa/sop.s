// SPDX-License-Identifier: MIT
// ISA tests: scalar ALU (SOP2/SOPK/SOP1/SOPC) with carries, overflow, bit-field edge cases.
.include "kernel.inc"

// SCC materialized with s_cselect_b32 s, 1, 0.
.macro SCC_TO s
  s_cselect_b32 \s, 1, 0
.endm

KBEGIN k_sop_arith
  s_mov_b32 s4, 0xffffffff
  s_add_u32 s5, s4, 2                    // 1, carry
  SCC_TO s6
  s_addc_u32 s7, 0, 0                     // 0 + 0 + carry = 1
  s_sub_u32 s8, 1, 2                      // 0xffffffff, borrow
  SCC_TO s9
  s_brev_b32 s10, 1                       // 0x80000000
  s_add_i32 s11, s10, -1                  // INT_MIN + -1: overflow
  SCC_TO s12
  s_lshl_b32 s13, s5, s6
  STORES s5, 0
  STORES s6, 1
  STORES s7, 2
  STORES s8, 3
  STORES s9, 4
  STORES s11, 5
  STORES s12, 6
  s_min_i32 s14, -5, 3                    // signed
  STORES s14, 7
  s_min_u32 s15, -5, 3                    // unsigned
  STORES s15, 8
  s_mul_hi_i32 s16, s10, 3                // INT_MIN*3 >> 32 = -2
  STORES s16, 9
  s_mul_hi_u32 s17, s4, s4                // 0xfffffffe
  STORES s17, 10
  s_movk_i32 s18, 0x8000                  // sign-extended: 0xffff8000
  STORES s18, 11
  s_mov_b32 s19, 100
  s_addk_i32 s19, 0xffff                  // 100 + (-1)
  STORES s19, 12
  s_cmpk_lt_u32 s19, 0xffff               // unsigned compare with zero-extended imm: 99 < 65535
  SCC_TO s20
  STORES s20, 13
  s_absdiff_i32 s21, -7, 5
  STORES s21, 14
  s_lshl2_add_u32 s22, 3, 5               // (3 << 2) + 5
  STORES s22, 15
  s_endpgm
KEND k_sop_arith

KBEGIN k_sop_bits
  s_mov_b32 s4, 0xf0f0
  s_bfe_u32 s5, s4, 0x80004               // offset 4, width 8: 0x0f
  STORES s5, 0
  s_bfe_i32 s6, s4, 0x40004               // offset 4, width 4: 0xf sign-extended = -1
  STORES s6, 1
  s_ff1_i32_b32 s7, 0                     // no bit: -1
  STORES s7, 2
  s_ff1_i32_b32 s8, s4                    // 4
  STORES s8, 3
  s_flbit_i32_b32 s9, s4                  // 16
  STORES s9, 4
  s_flbit_i32 s10, -2                     // leading sign bits of 0xfffffffe: 31
  STORES s10, 5
  s_bcnt1_i32_b64 s11, -1                 // 64
  STORES s11, 6
  s_mov_b64 s[12:13], 1
  s_lshl_b64 s[12:13], s[12:13], 40
  STORES s13, 7                           // 1 << 8 in the high half
  s_ashr_i32 s14, 0x80000000, 31
  STORES s14, 8
  s_not_b32 s15, 0
  SCC_TO s16
  STORES s16, 9                           // not(0) != 0 -> SCC 1
  s_and_b32 s17, s4, 0xf00
  STORES s17, 10
  s_sext_i32_i16 s18, 0x8001
  STORES s18, 11
  s_mov_b32 s23, 0xabcd0000
  s_pack_lh_b32_b16 s19, 0x1234, s23
  STORES s19, 12
  s_bitset1_b32 s20, 5
  s_mov_b32 s20, 0
  s_bitset1_b32 s20, 31
  STORES s20, 13
  s_bfm_b32 s21, 4, 8                     // 0xf00
  STORES s21, 14
  s_cmp_eq_u64 s[12:13], s[12:13]
  SCC_TO s22
  STORES s22, 15
  s_endpgm
KEND k_sop_bits

// 64-bit operands take inline float constants as f64 values.
KBEGIN k_sop_const64
  s_mov_b64 s[4:5], 1.0
  STORES s4, 0
  STORES s5, 1
  s_mov_b64 s[6:7], -4.0
  STORES s7, 2
  s_mov_b64 s[8:9], -16
  STORES s9, 3
  s_endpgm
KEND k_sop_const64
