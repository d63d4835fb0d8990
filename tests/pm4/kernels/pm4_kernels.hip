// SPDX-License-Identifier: MIT
// Kernels the pm4 suite dispatches through PM4 queues: each exercises one part of the initial wave state.
#include "kt.h"

// Nothing: a dispatch that only has to start and end (kfdtest EmptyDispatch).
KERNEL void empty_kernel() {}

// One dword from src to dst (kfdtest SimpleWriteDispatch's CopyDwordIsa).
KERNEL void copy_dword(const uint32_t* src, uint32_t* dst) {
  if (tid_x() == 0 && bid_x() == 0) *dst = *src;
}

// Every work-item of a 2-D grid writes its coordinates, with the workgroup size read from the
// dispatch packet (dispatch ptr): partial workgroups at the edges must not write past the grid.
KERNEL void write_coords(uint32_t* out, uint32_t width) {
  const uint32_t x = bid_x() * bdim_x() + tid_x();
  const uint32_t y = bid_y() * bdim_y() + tid_y();
  out[y * width + x] = (x & 0xFFFF) | y << 16;
}

// llvm.amdgcn.dispatch.id has no clang builtin in LLVM 15: bind it by name.
extern "C" __device__ uint64_t kt_dispatch_id() __asm("llvm.amdgcn.dispatch.id");

// The queue ptr and the dispatch id as the kernel sees them.
KERNEL void queue_and_dispatch_id(uint64_t* out) {
  if (tid_x() != 0 || bid_x() != 0) return;
  const uint64_t* q = (const uint64_t*)__builtin_amdgcn_queue_ptr();
  out[0] = q[4];  // hsa_queue_t.id (byte 32)
  out[1] = kt_dispatch_id();
}

// Private memory indexed at run time (scratch through the private segment buffer).
KERNEL void private_array(uint32_t* out, uint32_t salt) {
  volatile uint32_t a[96];
  const uint32_t t = tid_x();
  for (uint32_t i = 0; i < 96; ++i) a[i] = i * salt + t;
  out[bid_x() * bdim_x() + t] = a[(t * 7 + salt) % 96];
}

// Dynamic LDS: each work-item stores its id, reads its mirror's after a barrier.
extern __shared__ uint32_t dynamic_lds[];
KERNEL void reverse_in_lds(uint32_t* out) {
  const uint32_t t = tid_x(), n = bdim_x();
  dynamic_lds[t] = t * 3 + 1;
  syncthreads();
  out[bid_x() * n + t] = dynamic_lds[n - 1 - t];
}

// Spins until *go is set (bounded: 2^26 polls, seconds on any device; no real-time counter
// builtin exists on every target), then writes 1: keeps a queue busy for ordering tests.
KERNEL void wait_for_go(const uint32_t* go, uint32_t* done) {
  if (tid_x() != 0 || bid_x() != 0) return;
  for (uint32_t n = 0; __hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0; ++n) {
    if (n == (1u << 26)) {
      *done = 2;
      return;
    }
    __builtin_amdgcn_s_sleep(10);
  }
  __hip_atomic_store(done, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
