// SPDX-License-Identifier: MIT
// ISA tests of the memory model: buffer_wbl2, buffer_invl2, buffer_wbinvl1_vol, glc loads (kernel arguments: out, buf, flags).
.include "kernel.inc"

// Arguments: s[0:1] = out (result slots), s[4:5] = buf (the data under test), s[6:7] = flags.
.macro MBEGIN name
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx2 s[4:5], s[0:1], 0x8
  s_load_dwordx2 s[6:7], s[0:1], 0x10
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_and_b32 v63, 0x3ff, v0
  v_lshlrev_b32 v62, 2, v63                   // this lane's byte offset
  s_waitcnt lgkmcnt(0)
.endm

// buf[lane] = 100 + lane, no fence: the stores stay in the L2 (RW/NC memory).
MBEGIN k_mm_store
  v_add_u32 v1, 100, v63
  global_store_dword v62, v1, s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm
KEND k_mm_store

// The same, then buffer_wbl2: the L2 writes them back (a system-scope release).
MBEGIN k_mm_store_wbl2
  v_add_u32 v1, 100, v63
  global_store_dword v62, v1, s[4:5]
  s_waitcnt vmcnt(0)
  buffer_wbl2
  s_waitcnt vmcnt(0)
  s_endpgm
KEND k_mm_store_wbl2

// out slot 0 = buf[lane] (a plain load).
MBEGIN k_mm_load
  global_load_dword v1, v62, s[4:5]
  s_waitcnt vmcnt(0)
  STORE v1, 0
  s_endpgm
KEND k_mm_load

// buffer_invl2 (a system-scope acquire) first, then the plain load.
MBEGIN k_mm_load_invl2
  buffer_invl2
  s_waitcnt vmcnt(0)
  global_load_dword v1, v62, s[4:5]
  s_waitcnt vmcnt(0)
  STORE v1, 0
  s_endpgm
KEND k_mm_load_invl2

// Two workgroups on two CUs. Workgroup 0 reads buf (its L1 holds the line), tells workgroup 1
// (flags[0] = 1), waits for its store (flags[1] == 1), then reads buf again: a plain load (slot
// 1: the stale L1 copy), a glc load (slot 2: past the L1), and after buffer_wbinvl1_vol a plain
// load (slot 3). Workgroup 1 waits for flags[0], stores buf[lane] = 200 + lane and sets flags[1].
// Waits give up after about 2^26 polls (slot 4 = 0xdead) rather than hang.
MBEGIN k_mm_l1
  v_mov_b32 v10, 0
  v_mov_b32 v11, 1
  s_mov_b32 s10, 0x4000000                    // poll budget
  s_cmp_eq_u32 s2, 0                          // workgroup id x
  s_cbranch_scc0 writer
  global_load_dword v1, v62, s[4:5]           // first read: the line enters this CU's L1
  s_waitcnt vmcnt(0)
  STORE v1, 0
  global_store_dword v10, v11, s[6:7]         // flags[0] = 1
  s_waitcnt vmcnt(0)
wait_store:
  global_load_dword v2, v10, s[6:7] offset:4 glc
  s_waitcnt vmcnt(0)
  v_readfirstlane_b32 s11, v2
  s_sub_u32 s10, s10, 1
  s_cmp_eq_u32 s10, 0
  s_cbranch_scc1 gave_up
  s_cmp_eq_u32 s11, 1
  s_cbranch_scc0 wait_store
  global_load_dword v3, v62, s[4:5]           // plain: this CU's L1 copy
  s_waitcnt vmcnt(0)
  STORE v3, 1
  global_load_dword v4, v62, s[4:5] glc       // glc: past the L1
  s_waitcnt vmcnt(0)
  STORE v4, 2
  buffer_wbinvl1_vol                          // agent-scope acquire: the L1 is emptied
  global_load_dword v5, v62, s[4:5]
  s_waitcnt vmcnt(0)
  STORE v5, 3
  s_endpgm
writer:
  global_load_dword v2, v10, s[6:7] glc
  s_waitcnt vmcnt(0)
  v_readfirstlane_b32 s11, v2
  s_sub_u32 s10, s10, 1
  s_cmp_eq_u32 s10, 0
  s_cbranch_scc1 gave_up
  s_cmp_eq_u32 s11, 1
  s_cbranch_scc0 writer
  v_add_u32 v6, 200, v63
  global_store_dword v62, v6, s[4:5]
  s_waitcnt vmcnt(0)
  global_store_dword v10, v11, s[6:7] offset:4   // flags[1] = 1
  s_waitcnt vmcnt(0)
  s_endpgm
gave_up:
  v_mov_b32 v7, 0xdead
  STORE v7, 4
  s_endpgm
KEND k_mm_l1

// Whole-wave atomics whose lanes share addresses and lines. buf's first lines are in this CU's
// L1 first (a plain load). Then lane l adds l + 1 to buf[(9 * l) & 31] (32 dwords, two lines
// visited in turn, two lanes per dword) and adds (1 << 32) + l to the qword at byte
// 256 + 8 * ((5 * l) & 15) (two more lines, four lanes per qword); out slot 0 = the dword
// atomic's old value, slot 1 = a plain load of that dword afterwards (the L1's copy), slots 2
// and 3 = the qword atomic's old value (low, high).
MBEGIN k_mm_atomics
  global_load_dword v5, v62, s[4:5]
  s_waitcnt vmcnt(0)
  v_mul_u32_u24 v1, 9, v63
  v_and_b32 v1, 31, v1
  v_lshlrev_b32 v1, 2, v1
  v_add_u32 v3, 1, v63
  global_atomic_add v4, v1, v3, s[4:5] glc
  s_waitcnt vmcnt(0)
  STORE v4, 0
  global_load_dword v6, v1, s[4:5]
  s_waitcnt vmcnt(0)
  STORE v6, 1
  v_mul_u32_u24 v7, 5, v63
  v_and_b32 v7, 15, v7
  v_lshlrev_b32 v7, 3, v7
  v_add_u32 v7, 256, v7
  v_mov_b32 v8, v63
  v_mov_b32 v9, 1
  global_atomic_add_x2 v[10:11], v7, v[8:9], s[4:5] glc
  s_waitcnt vmcnt(0)
  STORE v10, 2
  STORE v11, 3
  s_endpgm
KEND k_mm_atomics

// Instruction forms with the cache-policy bits (gfx90a: glc, slc): a glc slc store and load
// (nontemporal), a returning atomic; out slot 0 = buf[lane] (read after the store), slot 1 = the
// atomic's old value.
MBEGIN k_mm_bits
  v_add_u32 v1, 300, v63
  global_store_dword v62, v1, s[4:5] glc slc
  s_waitcnt vmcnt(0)
  global_load_dword v2, v62, s[4:5] glc slc
  s_waitcnt vmcnt(0)
  STORE v2, 0
  v_mov_b32 v3, 1
  global_atomic_add v4, v62, v3, s[4:5] glc
  s_waitcnt vmcnt(0)
  STORE v4, 1
  buffer_wbl2
  s_waitcnt vmcnt(0)
  s_endpgm
KEND k_mm_bits
