// SPDX-License-Identifier: MIT
// ISA tests: LDS (read2/write2, atomics, swizzle, permute, flat LDS aperture), scratch through
// MUBUF, scratch_* and the flat private aperture, global atomics, SMEM buffer loads.
.include "kernel.inc"

KBEGIN k_lds
  v_mul_u32_u24 v1, 10, v63
  v_add_u32 v1, 1, v1                         // v1 = lane*10 + 1
  v_not_b32 v2, v1
  ds_write2_b32 v62, v1, v2 offset1:64        // LDS[4l] = v1, LDS[256+4l] = ~v1
  s_waitcnt lgkmcnt(0)
  ds_read2_b32 v[4:5], v62 offset1:64
  s_waitcnt lgkmcnt(0)
  STORE v4, 0
  STORE v5, 1
  v_mov_b32 v20, 0
  v_mov_b32 v21, 1
  ds_write_b32 v20, v20 offset:512
  ds_add_rtn_u32 v6, v20, v21 offset:512       // every lane adds 1
  ds_read_b32 v22, v20 offset:512
  s_waitcnt lgkmcnt(0)
  STORE v6, 2
  STORE v22, 3
  ds_swizzle_b32 v7, v1 offset:swizzle(QUAD_PERM,1,0,3,2)
  s_waitcnt lgkmcnt(0)
  STORE v7, 4
  ds_swizzle_b32 v8, v1 offset:swizzle(BITMASK_PERM,"01pip")   // and/or/xor masks
  s_waitcnt lgkmcnt(0)
  STORE v8, 5
  v_add_u32 v9, 5, v63
  v_and_b32 v9, 63, v9
  v_lshlrev_b32 v9, 2, v9                      // address of lane (l+5)&63
  ds_bpermute_b32 v10, v9, v1
  ds_permute_b32 v11, v9, v1
  s_waitcnt lgkmcnt(0)
  STORE v10, 6
  STORE v11, 7
  v_add_u32 v12, 0x300, v62                    // LDS byte 768 + 4l through the flat aperture
  s_mov_b32 s6, src_shared_base
  v_mov_b32 v13, s6
  flat_store_dword v[12:13], v1
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_read_b32 v14, v62 offset:768
  s_waitcnt lgkmcnt(0)
  STORE v14, 8
  v_mov_b32 v15, 7
  ds_write_b32 v62, v15 offset:1024
  v_mov_b32 v16, 7                             // compare
  v_mov_b32 v17, 99                            // new value
  ds_cmpst_rtn_b32 v18, v62, v16, v17 offset:1024
  ds_read_b32 v19, v62 offset:1024
  s_waitcnt lgkmcnt(0)
  STORE v18, 9
  STORE v19, 10
  v_mov_b32 v23, 0x10000
  ds_read_b32 v24, v23                         // out of range LDS read returns 0
  s_waitcnt lgkmcnt(0)
  STORE v24, 11
  v_mov_b32 v25, -4
  ds_read_b32 v26, v25 offset:1028             // LDS address arithmetic wraps at 32 bits: 1024
  s_waitcnt lgkmcnt(0)
  STORE v26, 12
  ds_write_b32 v62, v63 offset:1280            // LDS[1280 + 4l] = l
  v_add_u32 v27, 2, v63
  ds_add_rtn_u32 v27, v62, v27 offset:1280     // the data register is the destination: returns l
  ds_read_b32 v28, v62 offset:1280             // 2l + 2
  s_waitcnt lgkmcnt(0)
  STORE v27, 13
  STORE v28, 14
  s_endpgm
KEND k_lds, lds=1536

// Private segment (run with 128 work-items; result k of work-item t at out[128k + t]):
// s[0:3] buffer V#, s[4:5] kernarg, s[6:7] flat scratch init, s8 workgroup id x, s9 wave offset.
  .text
  .globl k_scratch
  .p2align 8
  .type k_scratch,@function
k_scratch:
  s_add_u32 flat_scratch_lo, s6, s9
  s_addc_u32 flat_scratch_hi, s7, 0
  s_load_dwordx2 s[10:11], s[4:5], 0x0
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63
  v_mul_u32_u24 v5, 3, v63
  v_add_u32 v5, 7, v5                          // v5 = 3l + 7
  buffer_store_dword v5, off, s[0:3], s9 offset:16
  v_mov_b32 v7, 16
  scratch_load_dword v6, v7, off               // same private dword through scratch_*
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_dword v62, v6, s[10:11]
  v_add_u32 v9, 1, v5
  v_mov_b32 v10, 32
  s_mov_b32 s12, src_private_base
  v_mov_b32 v11, s12
  flat_store_dword v[10:11], v9                // private aperture, offset 32
  s_waitcnt vmcnt(0) lgkmcnt(0)
  buffer_load_dword v12, off, s[0:3], s9 offset:32
  s_waitcnt vmcnt(0)
  global_store_dword v62, v12, s[10:11] offset:512
  v_mov_b32 v13, 40
  scratch_store_dwordx2 v13, v[4:5], off offset:4   // dwords at private 44 and 48
  v_mov_b32 v14, 48
  buffer_load_dword v15, v14, s[0:3], s9 offen
  s_waitcnt vmcnt(0)
  global_store_dword v62, v15, s[10:11] offset:1024
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel k_scratch
    .amdhsa_user_sgpr_private_segment_buffer 1
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_flat_scratch_init 1
    .amdhsa_system_sgpr_private_segment_wavefront_offset 1
    .amdhsa_private_segment_fixed_size 64
    .amdhsa_next_free_vgpr 64
    .amdhsa_next_free_sgpr 32
    .amdhsa_accum_offset 64
  .end_amdhsa_kernel

// Global atomics with return values, and an SMEM buffer load through a V# built here.
// Arguments: out, p (p[0] counter, p[1] cmpswap target, p[2:3] umax_x2, p[4] add_f32).
  .text
  .globl k_atomics
  .p2align 8
  .type k_atomics,@function
k_atomics:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63
  s_waitcnt lgkmcnt(0)
  s_mov_b64 s[0:1], s[4:5]
  v_mov_b32 v1, 1
  v_mov_b32 v2, 0
  global_atomic_add v3, v2, v1, s[6:7] glc     // returns the old counter
  s_waitcnt vmcnt(0)
  STORE v3, 0
  v_mov_b32 v6, v63
  v_mov_b32 v7, v63
  global_atomic_umax_x2 v2, v[6:7], s[6:7] offset:8
  v_mov_b32 v20, 0.5
  global_atomic_add_f32 v2, v20, s[6:7] offset:16
  s_mov_b64 s[20:21], exec
  s_mov_b64 exec, 1
  v_mov_b32 v8, 5                              // new value
  v_mov_b32 v9, 0                              // compare
  global_atomic_cmpswap v10, v2, v[8:9], s[6:7] offset:4 glc
  s_waitcnt vmcnt(0)
  v_mov_b32 v8, 9
  global_atomic_cmpswap v11, v2, v[8:9], s[6:7] offset:4 glc   // fails: p[1] is 5
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, s[20:21]
  v_readfirstlane_b32 s22, v10
  v_readfirstlane_b32 s23, v11
  STORES s22, 1
  STORES s23, 2
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_mov_b32 s10, 16                            // num_records: 16 bytes
  s_mov_b32 s11, 0
  s_buffer_load_dword s12, s[8:11], 0x4
  s_buffer_load_dword s13, s[8:11], 0x20       // past num_records: 0
  s_waitcnt lgkmcnt(0)
  STORES s12, 3
  STORES s13, 4
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel k_atomics
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 64
    .amdhsa_next_free_sgpr 32
    .amdhsa_accum_offset 64
  .end_amdhsa_kernel

// The counter kernels' inputs: slot 8 = lane + 1000 (v10), slot 9 = lane + 2000 (v11), stored
// and waited for.
.macro SLOTS89
  v_add_u32 v10, 1000, v63
  STORE v10, 8
  v_add_u32 v11, 2000, v63
  STORE v11, 9
  s_waitcnt vmcnt(0)
.endm

// The memory counters (s_waitcnt): a load's result reaches its VGPR once a wait proves it
// returned, and vector memory returns in issue order. Slot 8 holds lane + 1000.
KBEGIN k_waitcnt_vm
  SLOTS89
  v_mov_b32 v1, 7
  v_mov_b32 v2, 8
  global_load_dword v1, v62, s[0:1] offset:2048
  global_load_dword v2, v62, s[0:1] offset:2048
  v_mov_b32 v3, v1                        // no wait yet: 7
  s_waitcnt vmcnt(1)
  v_mov_b32 v4, v1                        // the older load returned: lane + 1000
  v_mov_b32 v5, v2                        // the newer one is not proved: 8
  s_waitcnt vmcnt(0)
  STORE v3, 0
  STORE v4, 1
  STORE v5, 2
  STORE v2, 3                             // lane + 1000
  s_endpgm
KEND k_waitcnt_vm

// LGKM_CNT: LDS returns in order, scalar memory in any order. Of an s_load and two ds_reads,
// lgkmcnt(1) proves only the first ds_read (the s_load may be the other one returned).
KBEGIN k_waitcnt_lgkm
  ds_write_b32 v62, v63                   // LDS[lane] = lane
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, 5
  v_mov_b32 v1, 0x77
  v_mov_b32 v2, 0x88
  s_load_dword s8, s[0:1], 0x0            // out[0]: 0xBADBAD
  ds_read_b32 v1, v62
  ds_read_b32 v2, v62
  s_waitcnt lgkmcnt(1)
  v_mov_b32 v3, v1                        // lane
  v_mov_b32 v4, v2                        // 0x88
  s_mov_b32 s10, s8                       // 5
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s11, s8                       // 0xBADBAD
  STORE v3, 1
  STORE v4, 2
  STORES s10, 3
  STORES s11, 4
  STORE v2, 5                             // lane
  s_endpgm
KEND k_waitcnt_lgkm, lds=256

// VM_CNT has 6 bits: the emulator never counts more than 63 outstanding, and takes the oldest
// as returned when a 64th issues. A load and 63 stores: the load's result is there; and 62: not.
KBEGIN k_waitcnt_full
  SLOTS89
  v_mov_b32 v1, 7
  global_load_dword v1, v62, s[0:1] offset:2048
  .rept 63
  STORE v10, 9
  .endr
  v_mov_b32 v3, v1                        // lane + 1000
  s_waitcnt vmcnt(0)
  v_mov_b32 v1, 7
  global_load_dword v1, v62, s[0:1] offset:2048
  .rept 62
  STORE v10, 9
  .endr
  v_mov_b32 v4, v1                        // 7
  s_waitcnt vmcnt(0)
  STORE v3, 0
  STORE v4, 1
  STORE v1, 2                             // lane + 1000
  s_endpgm
KEND k_waitcnt_full

// A wait right after a load proves it only with a count of 0: vmcnt(1) after a second load
// proves the first.
KBEGIN k_waitcnt_next
  SLOTS89
  v_mov_b32 v1, 7
  v_mov_b32 v2, 8
  global_load_dword v1, v62, s[0:1] offset:2048
  global_load_dword v2, v62, s[0:1] offset:2048
  s_waitcnt vmcnt(1)
  v_mov_b32 v3, v2                        // 8
  v_mov_b32 v4, v1                        // lane + 1000
  global_load_dword v2, v62, s[0:1] offset:2048
  s_waitcnt vmcnt(0)
  STORE v3, 0
  STORE v4, 1
  STORE v2, 2                             // lane + 1000
  s_endpgm
KEND k_waitcnt_next

// Writing a load's destination before the wait that proves it: the load's result lands at the
// wait, over what the VALU wrote (the order LLVM's waits rule out; the emulator's choice).
KBEGIN k_waitcnt_waw
  SLOTS89
  global_load_dword v1, v62, s[0:1] offset:2048
  v_mov_b32 v1, 5
  v_mov_b32 v3, v1                        // 5
  s_waitcnt vmcnt(0)
  STORE v3, 0
  STORE v1, 1                             // lane + 1000
  s_endpgm
KEND k_waitcnt_waw

// Two loads of one kind into one register land in order; FLAT returns in any order within
// VM_CNT; LDS and messages in any order with each other; a call ends the look-ahead.
// Slot 8 = lane+1000, slot 9 = lane+2000 in memory (out + 2048, out + 2304).

// two loads into the same VGPR, no wait between (valid on gfx9: same-type VMEM WAW in order,
// SIInsertWaitcnts). The second (newer) value must win.
KBEGIN k_waitcnt_waw_loads
  SLOTS89
  v_mov_b32 v1, 5
  global_load_dword v1, v62, s[0:1] offset:2048   // A: lane+1000
  global_load_dword v1, v62, s[0:1] offset:2304   // B: lane+2000
  s_waitcnt vmcnt(0)
  STORE v1, 0                                     // expect lane+2000
  s_endpgm
KEND k_waitcnt_waw_loads

// both held (a branch stops B's look-ahead); B loads the value v1 had before A.
KBEGIN k_waitcnt_waw_held
  SLOTS89
  v_add_u32 v1, 2000, v63                         // v1 = lane+2000 before A
  global_load_dword v1, v62, s[0:1] offset:2048   // A: lane+1000
  global_load_dword v1, v62, s[0:1] offset:2304   // B: lane+2000 (== old value)
  s_branch 0
  s_waitcnt vmcnt(0)
  STORE v1, 0                                     // expect lane+2000
  s_endpgm
KEND k_waitcnt_waw_held

// divergent WAW: A all lanes, B only lanes < 32 (the phi pattern).
KBEGIN k_waitcnt_waw_divergent
  SLOTS89
  v_mov_b32 v1, 5
  global_load_dword v1, v62, s[0:1] offset:2048   // A
  v_cmp_gt_u32 vcc, 32, v63
  s_and_saveexec_b64 s[4:5], vcc
  global_load_dword v1, v62, s[0:1] offset:2304   // B (lanes < 32)
  s_or_b64 exec, exec, s[4:5]
  s_waitcnt vmcnt(0)
  STORE v1, 0                                     // expect l<32: lane+2000, else lane+1000
  s_endpgm
KEND k_waitcnt_waw_divergent

// same with LDS (in-order LGKM): ds_read twice into v1.
KBEGIN k_waitcnt_waw_lds
  v_add_u32 v10, 1000, v63
  v_add_u32 v11, 2000, v63
  ds_write_b32 v62, v10
  ds_write_b32 v62, v11 offset:256
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v1, 5
  ds_read_b32 v1, v62
  ds_read_b32 v1, v62 offset:256
  s_waitcnt lgkmcnt(0)
  STORE v1, 0                                     // expect lane+2000
  s_endpgm
KEND k_waitcnt_waw_lds, lds=512

// FLAT newer than a global load; vmcnt(1) "proves" the global load on gfx9 a pending FLAT makes only vmcnt(0) meaningful (ISA 10.2.2; SIInsertWaitcnts hasPendingFlat).
KBEGIN k_waitcnt_flat_order
  SLOTS89
  v_mov_b32 v1, 7
  global_load_dword v1, v62, s[0:1] offset:2048
  v_add_co_u32 v20, vcc, s0, v62
  v_mov_b32 v21, s1
  v_addc_co_u32 v21, vcc, 0, v21, vcc
  flat_load_dword v2, v[20:21] offset:2048
  s_waitcnt vmcnt(1)
  v_mov_b32 v3, v1                                // not proved: 7
  s_waitcnt vmcnt(0) lgkmcnt(0)
  STORE v3, 0
  s_endpgm
KEND k_waitcnt_flat_order

// LDS and a message in LGKM_CNT: different types return out of order.
KBEGIN k_waitcnt_lgkm_kinds
  ds_write_b32 v62, v63
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v1, 0x77
  ds_read_b32 v1, v62
  s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)
  s_waitcnt lgkmcnt(1)
  v_mov_b32 v3, v1                                // not proved: 0x77
  s_waitcnt lgkmcnt(0)
  STORE v3, 0
  s_endpgm
KEND k_waitcnt_lgkm_kinds, lds=256

// s_call_b64 is not treated as control flow by the look-ahead.
KBEGIN k_waitcnt_call
  SLOTS89
  v_mov_b32 v1, 7
  global_load_dword v1, v62, s[0:1] offset:2048
  s_call_b64 s[30:31], k_waitcnt_callee
  s_waitcnt vmcnt(0)
  STORE v3, 0                                     // k_waitcnt_callee read v1 with no wait: hw/emu should see 7
  s_endpgm
k_waitcnt_callee:
  v_mov_b32 v3, v1
  s_setpc_b64 s[30:31]
KEND k_waitcnt_call
