// SPDX-License-Identifier: MIT
// ISA tests of the queue's scratch: an access past the wave's slot, a dynamic-stack kernel.
.include "kernel.inc"

// Writes each lane's id at private offset 16 while declaring 16 private bytes: on a queue sized
// for the declaration that is the start of the next wave's slot.
// s[0:3] buffer V#, s4 workgroup id x, s5 wave offset.
  .text
  .globl k_scratch_past_slot
  .p2align 8
  .type k_scratch_past_slot,@function
k_scratch_past_slot:
  v_and_b32 v1, 0x3ff, v0
  v_mov_b32 v2, 16
  buffer_store_dword v1, v2, s[0:3], s5 offen
  s_waitcnt vmcnt(0)
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel k_scratch_past_slot
    .amdhsa_user_sgpr_private_segment_buffer 1
    .amdhsa_system_sgpr_private_segment_wavefront_offset 1
    .amdhsa_private_segment_fixed_size 16
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel

// A kernel with a dynamic stack and no fixed private size: stores id + 5 at private offset 1000
// of each lane, reads it back and writes it to out[id].
// s[0:3] buffer V#, s[4:5] kernarg, s6 workgroup id x, s7 wave offset.
  .text
  .globl k_dynamic_stack
  .p2align 8
  .type k_dynamic_stack,@function
k_dynamic_stack:
  s_load_dwordx2 s[10:11], s[4:5], 0x0
  v_and_b32 v1, 0x3ff, v0
  v_lshlrev_b32 v3, 2, v1
  v_add_u32 v4, 5, v1
  v_mov_b32 v2, 1000
  buffer_store_dword v4, v2, s[0:3], s7 offen
  s_waitcnt vmcnt(0)
  buffer_load_dword v5, v2, s[0:3], s7 offen
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_dword v3, v5, s[10:11]
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel k_dynamic_stack
    .amdhsa_user_sgpr_private_segment_buffer 1
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_system_sgpr_private_segment_wavefront_offset 1
    .amdhsa_uses_dynamic_stack 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
