// SPDX-License-Identifier: MIT
// ISA tests for gfx906 (and gfx908): the explicit-LOD samples gfx90a lacks (image_sample_lz,
// image_sample_l, image_sample_b) and tfe. Same arguments as image.s: out, a per-lane table
// (32 bytes a lane: v[4:7] then v[8:11]), T# (s[4:11]), S# (s[12:15]), V# (s[16:19]).
.amdgcn_target "amdgcn-amd-amdhsa--gfx906"

.macro IBEGIN name
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx2 s[2:3], s[0:1], 0x8
  s_load_dwordx8 s[4:11], s[0:1], 0x10
  s_load_dwordx4 s[12:15], s[0:1], 0x30
  s_load_dwordx4 s[16:19], s[0:1], 0x40
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63
  v_lshlrev_b32 v60, 5, v63
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[4:7], v60, s[2:3]
  global_load_dwordx4 v[8:11], v60, s[2:3] offset:16
  s_waitcnt vmcnt(0)
  v_mov_b32 v0, 0xBADBAD
  v_mov_b32 v1, 0xBADBAD
  v_mov_b32 v2, 0xBADBAD
  v_mov_b32 v3, 0xBADBAD
.endm

.macro IEND name
  global_store_dword v62, v0, s[0:1]
  global_store_dword v62, v1, s[0:1] offset:256
  global_store_dword v62, v2, s[0:1] offset:512
  global_store_dword v62, v3, s[0:1] offset:768
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 72
    .amdhsa_next_free_sgpr 64
  .end_amdhsa_kernel
.endm

IBEGIN k_sample_lz
  image_sample_lz v[0:3], v[4:5], s[4:11], s[12:15] dmask:0xf
  s_waitcnt vmcnt(0)
IEND k_sample_lz

IBEGIN k_sample_l
  image_sample_l v[0:3], v[4:6], s[4:11], s[12:15] dmask:0xf   // x, y, lod
  s_waitcnt vmcnt(0)
IEND k_sample_l

IBEGIN k_sample_b
  image_sample_b v[0:3], v[4:6], s[4:11], s[12:15] dmask:0xf   // bias, x, y
  s_waitcnt vmcnt(0)
IEND k_sample_b

IBEGIN k_load_tfe
  image_load v[0:4], v[4:5], s[4:11] dmask:0xf unorm tfe
  s_waitcnt vmcnt(0)
IEND k_load_tfe

// A buffer load with TFE (bit 55; ACC on gfx90a): refused by name, not run as a load into AGPRs.
IBEGIN k_buffer_tfe
  buffer_load_dword v0, off, s[16:19], 0 tfe
  s_waitcnt vmcnt(0)
IEND k_buffer_tfe
