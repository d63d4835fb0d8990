// SPDX-License-Identifier: MIT
// ISA tests for gfx942 (MI300; assembled with -mcpu=gfx940): the 64-bit moves and shifted adds
// gfx940 added (v_mov_b64 in its VOP1 and VOP3 forms, v_lshl_add_u64), which LLVM emits for
// address arithmetic, on VGPR pairs, SGPR pairs, inline constants and literals.
// Its own target and descriptor (kernel.inc's are gfx90a's; gfx940 has architected flat scratch
// and no private segment buffer): the same slots, out[k*64 + lane].
.amdgcn_target "amdgcn-amd-amdhsa--gfx940"

.macro STORE v, k
  global_store_dword v62, \v, s[0:1] offset:(\k * 256)
.endm

  .text
  .globl k_b64
  .p2align 8
  .type k_b64,@function
k_b64:
  s_load_dwordx2 s[0:1], s[0:1], 0x0      // out pointer
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63
  s_waitcnt lgkmcnt(0)
  v_mul_u32_u24 v2, 0x10001, v63          // v[2:3] = (lane * 0x10001, ~lane)
  v_not_b32 v3, v63
  v_mov_b64 v[4:5], v[2:3]                // VOP1
  STORE v4, 0
  STORE v5, 1
  s_mov_b32 s10, 0x89abcdef
  s_mov_b32 s11, 0x01234567
  v_mov_b64_e64 v[6:7], s[10:11]          // VOP3, an SGPR pair
  STORE v6, 2
  STORE v7, 3
  v_mov_b64 v[8:9], -1                    // inline constant: all ones
  STORE v8, 4
  STORE v9, 5
  v_lshl_add_u64 v[10:11], v[2:3], 3, s[10:11]   // (x << 3) + s, a carry into the high dword
  STORE v10, 6
  STORE v11, 7
  v_lshl_add_u64 v[12:13], s[10:11], 0, v[2:3]   // shift 0: a 64-bit add
  STORE v12, 8
  STORE v13, 9
  v_lshl_add_u64 v[14:15], v[2:3], 4, 1
  STORE v14, 10
  STORE v15, 11
  s_endpgm

  .rodata
  .p2align 6
  .amdhsa_kernel k_b64
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 72
    .amdhsa_next_free_sgpr 64
    .amdhsa_accum_offset 64
  .end_amdhsa_kernel
