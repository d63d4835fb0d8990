// SPDX-License-Identifier: MIT
// ISA tests: image (MIMG) loads, stores, size queries and samples through a T# and S#, and
// typed MUBUF loads/stores (buffer_*_format_*) through a V#. Kernel arguments: out, a per-lane
// table (32 bytes a lane: dwords 0..3 the address VGPRs v[4:7], 4..7 the data VGPRs v[8:11]),
// T# (8 dwords, s[4:11]), S# (4, s[12:15]), V# (4, s[16:19]).
.include "kernel.inc"

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

.macro STORE4
  STORE v0, 0
  STORE v1, 1
  STORE v2, 2
  STORE v3, 3
  s_endpgm
.endm

IBEGIN k_load
  image_load v[0:3], v[4:6], s[4:11] dmask:0xf unorm
  s_waitcnt vmcnt(0)
  STORE4
KEND k_load

IBEGIN k_load_da
  image_load v[0:3], v[4:6], s[4:11] dmask:0xf unorm da
  s_waitcnt vmcnt(0)
  STORE4
KEND k_load_da

IBEGIN k_load_dmask
  image_load v[0:1], v[4:6], s[4:11] dmask:0xa unorm        // Y and W only
  s_waitcnt vmcnt(0)
  STORE4
KEND k_load_dmask

IBEGIN k_load_d16
  image_load v[0:1], v[4:6], s[4:11] dmask:0xf unorm d16
  s_waitcnt vmcnt(0)
  STORE4
KEND k_load_d16

IBEGIN k_load_mip
  image_load_mip v[0:3], v[4:7], s[4:11] dmask:0xf unorm
  s_waitcnt vmcnt(0)
  STORE4
KEND k_load_mip

IBEGIN k_store
  image_store v[8:11], v[4:6], s[4:11] dmask:0xf unorm
  s_waitcnt vmcnt(0)
  s_endpgm
KEND k_store

IBEGIN k_store_da
  image_store v[8:11], v[4:6], s[4:11] dmask:0xf unorm da
  s_waitcnt vmcnt(0)
  s_endpgm
KEND k_store_da

IBEGIN k_store_x
  image_store v8, v[4:6], s[4:11] dmask:0x1 unorm
  s_waitcnt vmcnt(0)
  s_endpgm
KEND k_store_x

// Stores then loads the same texel in one kernel (the store is visible to the wave's own load).
IBEGIN k_store_load
  image_store v[8:11], v[4:6], s[4:11] dmask:0xf unorm
  s_waitcnt vmcnt(0)
  image_load v[0:3], v[4:6], s[4:11] dmask:0xf unorm
  s_waitcnt vmcnt(0)
  STORE4
KEND k_store_load

IBEGIN k_resinfo
  image_get_resinfo v[0:3], v4, s[4:11] dmask:0xf
  s_waitcnt vmcnt(0)
  STORE4
KEND k_resinfo

IBEGIN k_sample
  image_sample v[0:3], v[4:6], s[4:11], s[12:15] dmask:0xf
  s_waitcnt vmcnt(0)
  STORE4
KEND k_sample

IBEGIN k_sample_unorm
  image_sample v[0:3], v[4:6], s[4:11], s[12:15] dmask:0xf unorm
  s_waitcnt vmcnt(0)
  STORE4
KEND k_sample_unorm

IBEGIN k_sample_unorm_da
  image_sample v[0:3], v[4:6], s[4:11], s[12:15] dmask:0xf unorm da
  s_waitcnt vmcnt(0)
  STORE4
KEND k_sample_unorm_da

IBEGIN k_sample_da
  image_sample v[0:3], v[4:6], s[4:11], s[12:15] dmask:0xf da
  s_waitcnt vmcnt(0)
  STORE4
KEND k_sample_da

IBEGIN k_buf_load_fmt
  buffer_load_format_xyzw v[0:3], v4, s[16:19], 0 idxen
  s_waitcnt vmcnt(0)
  STORE4
KEND k_buf_load_fmt

IBEGIN k_buf_load_fmt_x
  buffer_load_format_x v0, v4, s[16:19], 0 idxen
  s_waitcnt vmcnt(0)
  STORE4
KEND k_buf_load_fmt_x

IBEGIN k_buf_store_fmt
  buffer_store_format_xyzw v[8:11], v4, s[16:19], 0 idxen
  s_waitcnt vmcnt(0)
  s_endpgm
KEND k_buf_store_fmt

IBEGIN k_buf_load_fmt_d16
  buffer_load_format_d16_xyzw v[0:1], v4, s[16:19], 0 idxen
  s_waitcnt vmcnt(0)
  STORE4
KEND k_buf_load_fmt_d16
