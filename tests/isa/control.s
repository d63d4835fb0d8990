// SPDX-License-Identifier: MIT
// ISA tests: control flow, traps, messages, barriers, hardware registers, invalid code.
.include "kernel.inc"

// s_trap 2 aborts the dispatch (queue error).
KBEGIN k_trap
  s_trap 2
  s_endpgm
KEND k_trap

// s_trap 3 (debug trap) is a no-op without a debugger; the store after it happens.
KBEGIN k_debugtrap
  s_trap 3
  v_mov_b32 v1, 77
  STORE v1, 0
  s_endpgm
KEND k_debugtrap

// A matrix instruction whose broadcast controls the ISA leaves undefined (ABID 1 with CBSZ 0:
// no group to broadcast in): decoded, named and refused, a loud Unimplemented.
KBEGIN k_unimplemented
  v_mfma_f32_4x4x1f32 a[0:3], v1, v2, a[0:3] abid:1
  s_endpgm
KEND k_unimplemented

// v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7] with BLGP 1: gfx90a's f64 forms have no
// BLGP (llvm-mc refuses it, so the dwords are given): refused by name.
KBEGIN k_mfma_f64_blgp
  .long 0xd3ee0000, 0x24021508
  s_endpgm
KEND k_mfma_f64_blgp

// v_mfma_f32_4x4x1f32 a[0:3], 0, v2, a[0:3]: A is an inline constant, which the matrix
// instructions' operands cannot be (llvm-mc refuses it): refused by name.
KBEGIN k_mfma_const_a
  .long 0xd3c28000, 0x04020480
  s_endpgm
KEND k_mfma_const_a

// A buffer load into LDS (the lds bit, LDS DMA): not emulated, refused by name rather than run
// as a load into v0.
KBEGIN k_lds_dma
  buffer_load_dword off, s[4:7], 0 lds
  s_endpgm
KEND k_lds_dma

// A dword with an undefined encoding (bits 31:26 = 0x3f).
KBEGIN k_illegal
  .long 0xfc000000
  s_endpgm
KEND k_illegal

// MSG_INTERRUPT with M0 = 0x123456 (event id in M0[23:0]).
KBEGIN k_sendmsg
  s_mov_b32 m0, 0x123456
  s_sendmsg sendmsg(MSG_INTERRUPT)
  s_endpgm
KEND k_sendmsg

// Waves 1 and 3 end before the barrier; the others pass it (no deadlock) and
// store, after the barrier, what wave 0 wrote to LDS before it.
KBEGIN k_barrier_early_exit
  v_lshrrev_b32 v1, 6, v63               // wave index
  v_and_b32 v2, 1, v1
  v_cmp_eq_u32 vcc, 1, v2
  s_and_saveexec_b64 s[4:5], vcc
  s_cbranch_execz 1
  s_endpgm                                // odd waves: done
  s_or_b64 exec, exec, s[4:5]
  v_readfirstlane_b32 s6, v1
  s_cmp_eq_u32 s6, 0
  s_cbranch_scc0 2
  v_mov_b32 v3, 0x5a5a
  ds_write_b32 v62, v3                    // wave 0 fills LDS[0..255]
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_and_b32 v4, 0xfc, v62
  ds_read_b32 v5, v4
  s_waitcnt lgkmcnt(0)
  global_store_dword v62, v5, s[0:1]      // out[lane id within block]
  s_endpgm
KEND k_barrier_early_exit, lds=256

// Loop with SCC branches; a call through s_swappc_b64 and return with s_setpc_b64.
KBEGIN k_branches
  s_mov_b32 s4, 0
  s_mov_b32 s5, 0
loop:
  s_add_u32 s5, s5, s4
  s_add_u32 s4, s4, 1
  s_cmp_lt_u32 s4, 10
  s_cbranch_scc1 loop
  STORES s5, 0                             // 0+1+...+9 = 45
  s_getpc_b64 s[6:7]
.L_after_getpc:                            // s_getpc returns the next instruction's address
  s_add_u32 s6, s6, func - .L_after_getpc
  s_addc_u32 s7, s7, 0
  s_swappc_b64 s[8:9], s[6:7]
  STORES s10, 1                            // set by func
  v_mov_b32 v2, 9
  v_cmp_gt_u32 vcc, 8, v63                 // lanes 0..7
  s_and_saveexec_b64 s[12:13], vcc
  v_mov_b32 v2, 1
  s_cbranch_execz skip
  v_mov_b32 v2, 2
skip:
  s_mov_b64 exec, s[12:13]
  v_cmp_gt_u32 vcc, 0, v63                 // no lane
  s_and_saveexec_b64 s[12:13], vcc
  s_cbranch_execz skip2
  v_mov_b32 v2, 3                          // skipped
skip2:
  s_mov_b64 exec, s[12:13]
  STORE v2, 2
  s_endpgm
func:
  s_movk_i32 s10, 0x1234
  s_setpc_b64 s[8:9]
KEND k_branches

// Hardware registers: MODE (from the descriptor), and s_setreg round trip; s_memtime runs.
KBEGIN k_hwreg
  s_getreg_b32 s4, hwreg(HW_REG_MODE)
  STORES s4, 0
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0x3     // FP_DENORM: keep f32 denormals
  s_getreg_b32 s5, hwreg(HW_REG_MODE, 4, 4)
  STORES s5, 1
  s_memtime s[6:7]
  s_memrealtime s[8:9]
  s_waitcnt lgkmcnt(0)
  s_memtime s[10:11]
  s_waitcnt lgkmcnt(0)
  s_sub_u32 s12, s10, s6
  s_subb_u32 s13, s11, s7
  STORES s13, 2                             // high half of a tiny difference is 0
  s_sleep 1
  s_setprio 2
  s_nop 3
  v_mov_b32 v1, 0x00400000                  // f32 denormal: kept now that FP_DENORM is 3
  v_mul_f32 v2, 1.0, v1
  STORE v2, 3
  s_endpgm
KEND k_hwreg

// The two clocks read around a loop, nested both ways: s_memtime (shader clock) outside
// s_memrealtime (100 MHz reference clock), then inside it.
KBEGIN k_clocks
  s_memtime s[4:5]
  s_memrealtime s[6:7]
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s20, 100000
clock_loop_a:
  s_sub_u32 s20, s20, 1
  s_cmp_lg_u32 s20, 0
  s_cbranch_scc1 clock_loop_a
  s_memrealtime s[10:11]
  s_memtime s[8:9]
  s_waitcnt lgkmcnt(0)
  s_memrealtime s[14:15]
  s_memtime s[12:13]
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s20, 100000
clock_loop_b:
  s_sub_u32 s20, s20, 1
  s_cmp_lg_u32 s20, 0
  s_cbranch_scc1 clock_loop_b
  s_memtime s[16:17]
  s_memrealtime s[18:19]
  s_waitcnt lgkmcnt(0)
  STORES s4, 0
  STORES s5, 1
  STORES s6, 2
  STORES s7, 3
  STORES s8, 4
  STORES s9, 5
  STORES s10, 6
  STORES s11, 7
  STORES s12, 8
  STORES s13, 9
  STORES s14, 10
  STORES s15, 11
  STORES s16, 12
  STORES s17, 13
  STORES s18, 14
  STORES s19, 15
  s_endpgm
KEND k_clocks

// Round toward zero is not implemented: must stop loudly, not round to nearest.
KBEGIN k_round_mode
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xf
  s_endpgm
KEND k_round_mode

// Two kernels of identical length differing in one constant: the test copies k_const_b's code
// over k_const_a's to check that decoded instructions are revalidated when code changes.
KBEGIN k_const_a
  v_mov_b32 v1, 0x1111
  STORE v1, 0
  s_endpgm
KEND k_const_a

KBEGIN k_const_b
  v_mov_b32 v1, 0x2222
  STORE v1, 0
  s_endpgm
KEND k_const_b

// Wave 0 spins (no s_sleep, no barrier) on a global flag that wave 1 sets after a delay: only
// switching between the waves of a workgroup lets this finish. Arguments: out, flag pointer.
  .text
  .globl k_spin
  .p2align 8
  .type k_spin,@function
k_spin:
  s_mov_b64 s[4:5], s[0:1]
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63
  s_waitcnt lgkmcnt(0)
  v_lshrrev_b32 v1, 6, v63
  v_readfirstlane_b32 s6, v1                // wave index
  s_load_dwordx2 s[2:3], s[4:5], 0x8        // kernarg pointer was copied to s[4:5]
  v_mov_b32 v20, 0
  s_waitcnt lgkmcnt(0)
  s_cmp_eq_u32 s6, 0
  s_cbranch_scc0 .Lwriter
.Lspin:
  global_load_dword v2, v20, s[2:3] glc
  s_waitcnt vmcnt(0)
  v_readfirstlane_b32 s7, v2
  s_cmp_eq_u32 s7, 0
  s_cbranch_scc1 .Lspin
  STORE v2, 0
  s_endpgm
.Lwriter:
  s_mov_b32 s8, 50000
.Ldelay:
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 .Ldelay
  v_mov_b32 v3, 0x77
  global_store_dword v20, v3, s[2:3]
  s_endpgm
KEND k_spin
