// SPDX-License-Identifier: MIT
// ISA tests: DPP lane permutes (row shifts/rotates, quad_perm, mirrors, broadcasts, bound_ctrl,
// row/bank masks, inactive source lanes) and SDWA sub-dword selects.
.include "kernel.inc"

.macro OLD v
  v_mov_b32 \v, 0xaaaa
.endm

KBEGIN k_dpp
  v_mul_u32_u24 v1, 10, v63
  v_add_u32 v1, 1, v1                     // v1 = lane*10 + 1
  OLD v2
  v_mov_b32_dpp v2, v1 row_shr:1          // lane 0 of each row keeps the old value
  STORE v2, 0
  OLD v3
  v_mov_b32_dpp v3, v1 row_shr:1 bound_ctrl:0    // ... or gets 0 with BOUND_CTRL
  STORE v3, 1
  OLD v4
  v_mov_b32_dpp v4, v1 row_shl:2 bound_ctrl:0
  STORE v4, 2
  OLD v5
  v_mov_b32_dpp v5, v1 quad_perm:[3,2,1,0]
  STORE v5, 3
  OLD v6
  v_mov_b32_dpp v6, v1 row_mirror
  STORE v6, 4
  OLD v7
  v_mov_b32_dpp v7, v1 row_half_mirror
  STORE v7, 5
  OLD v8
  v_mov_b32_dpp v8, v1 row_ror:4
  STORE v8, 6
  OLD v9
  v_mov_b32_dpp v9, v1 wave_shr:1 bound_ctrl:0
  STORE v9, 7
  OLD v10
  v_mov_b32_dpp v10, v1 row_bcast:15 row_mask:0xa
  STORE v10, 8
  OLD v11
  v_mov_b32_dpp v11, v1 row_bcast:31 row_mask:0xc
  STORE v11, 9
  OLD v12
  v_add_u32_dpp v12, v1, v1 row_shl:1 bank_mask:0x5
  STORE v12, 10
  OLD v13
  s_mov_b32 exec_lo, 0x55555555
  s_mov_b32 exec_hi, 0x55555555
  v_mov_b32_dpp v13, v1 row_shr:1 bound_ctrl:0   // sources (odd lanes) are inactive
  s_mov_b64 exec, -1
  STORE v13, 11
  OLD v14
  v_mov_b32_dpp v14, v1 wave_rol:1
  STORE v14, 12
  s_endpgm
KEND k_dpp

KBEGIN k_sdwa
  v_mov_b32 v1, 0x12345678
  v_add_u32 v1, v1, v63                   // v1 = 0x12345678 + lane
  v_mul_u32_u24 v4, 0x01010101, v63       // v4 = lane replicated in each byte
  v_or_b32 v4, 0x80, v4                   // byte sign bits set
  OLD v2
  v_add_u32_sdwa v2, v1, v4 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0
  STORE v2, 0
  OLD v3
  v_mov_b32_sdwa v3, v4 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:BYTE_0
  STORE v3, 1
  OLD v5
  v_mov_b32_sdwa v5, v1 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1
  STORE v5, 2
  OLD v6
  v_and_b32_sdwa v6, v1, v4 dst_sel:DWORD src0_sel:WORD_1 src1_sel:DWORD
  STORE v6, 3
  v_cmp_lt_u32_sdwa s[6:7], v4, v1 src0_sel:BYTE_0 src1_sel:BYTE_0
  v_cndmask_b32 v7, 0, 1, s[6:7]
  STORE v7, 4
  OLD v8
  v_sub_u16_sdwa v8, sext(v4), v1 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:BYTE_0
  STORE v8, 5
  // A VOPC SDWA dword names its SGPR destination in bits 15:8 (SD, SDST), where VOP2's has
  // DST_SEL / DST_UNUSED: s[24:25] (0x98 there) must neither be read as those nor become VCC.
  v_mov_b32 v9, 0x2a0000                  // WORD_1 = 42
  s_mov_b64 vcc, 0
  v_cmp_eq_u16_sdwa s[24:25], v4, v9 src0_sel:BYTE_1 src1_sel:WORD_1
  v_cndmask_b32 v10, 0, 1, s[24:25]       // 1 in lane 42 only (v4's BYTE_1 is the lane)
  v_cndmask_b32 v11, 0, 2, vcc            // VCC untouched: 0
  v_or_b32 v10, v10, v11
  STORE v10, 6
  s_endpgm
KEND k_sdwa
