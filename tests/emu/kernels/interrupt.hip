// SPDX-License-Identifier: MIT
// Device-side signalling as the device libraries do it: decrement a signal, write its mailbox, raise the interrupt.
#include "kt.h"

// Waits (bounded, 30 s of the 100 MHz wall clock) until the host sets *go, then completes the
// signal whose value is at `value` the way ockl's signal store does: the value, the event id into
// the mailbox, then s_sendmsg(MSG_INTERRUPT) with M0 = the event id.
KERNEL void signal_from_device(int64_t* value, uint64_t* mailbox, uint32_t event_id,
                                              const uint32_t* go, uint32_t* status) {
  if (tid_x() != 0 || bid_x() != 0) return;
  const uint64_t t0 = __builtin_amdgcn_s_memrealtime();
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0) {
    if (__builtin_amdgcn_s_memrealtime() - t0 > 3000000000ull) {
      *status = 2;  // the host never said go
      return;
    }
    __builtin_amdgcn_s_sleep(10);
  }
  __hip_atomic_fetch_add(value, int64_t(-1), __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_store(mailbox, uint64_t(event_id), __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  __asm__ volatile("s_mov_b32 m0, %0\n\ts_nop 0\n\ts_sendmsg sendmsg(MSG_INTERRUPT)" : : "s"(event_id) : "memory");
  *status = 1;
}
