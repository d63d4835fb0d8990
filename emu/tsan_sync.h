// SPDX-License-Identifier: MIT
// What ThreadSanitizer cannot see between the process and the emulated GPU: a doorbell written through one mapping and read through another.
//
// The runtime rings a doorbell with a release store through its mapping of the doorbell page
// (mmap of /dev/kfd); the engines read it with an acquire load through the emulator's own mapping
// of the same memfd page. That pair orders everything the producer wrote before ringing (packets,
// and the events and buffers it set up through ioctls) before what the engine does next, as the
// doorbell write does on hardware. ThreadSanitizer tracks synchronisation per virtual address, so
// it cannot relate two mappings of one page: in a TSan build the engines also acquire at the
// address the process rang, which is recorded here when it maps the doorbell page. Elsewhere
// these functions do nothing.
//
// The same holds for AQL packets: the producer publishes a packet with a release store of its
// header, the CP reads the header with an acquire load, each through its own mapping. A runtime
// that maps GPU memory at its GPU address (kfdrt does, for every buffer) writes the header at the
// packet's GPU address, so there the CP acquires too. Every engine write a waiter may poll (an AQL
// completion signal's decrement, SDMA FENCE, WRITE and ATOMIC, PM4 WRITE_DATA, RELEASE_MEM, COPY_DATA
// and ATOMIC_MEM) also releases at its GPU address, where the process's acquire load reads it;
// every engine wait that passes (AQL barriers, SDMA POLL_REGMEM, PM4 WAIT_REG_MEM, the atomics)
// acquires there what the process released. Without that, two engines ordered through the host
// (engine A signals, the host sees it and submits to engine B) look unordered to TSan.
//
// Left undetected, and documented rather than modelled: the GPU's accesses to user memory (rings,
// signals, kernel arguments, buffers) go through the emulator's mapping, the process's through its
// own, so TSan never sees those pairs, racy or not.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SANITIZE_THREAD__)
#define KFDEMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KFDEMU_TSAN 1
#endif
#endif

namespace emu {

#ifdef KFDEMU_TSAN
// The process mapped `gpu_id`'s doorbell page at [addr, addr+len).
void tsan_doorbells_mapped(uint32_t gpu_id, const void* addr, size_t len);
// [addr, addr+len) was unmapped.
void tsan_unmapped(const void* addr, size_t len);
// An engine read doorbell `index` (8-byte slots) of `gpu_id`: acquire what its ringers released.
void tsan_doorbell_acquire(uint32_t gpu_id, uint32_t index);
// Acquire / release at a GPU address as the process sees it (same-address mappings).
void tsan_acquire_gpu(uint64_t va);
void tsan_release_gpu(uint64_t va);
#else
inline void tsan_doorbells_mapped(uint32_t, const void*, size_t) {}
inline void tsan_unmapped(const void*, size_t) {}
inline void tsan_doorbell_acquire(uint32_t, uint32_t) {}
inline void tsan_acquire_gpu(uint64_t) {}
inline void tsan_release_gpu(uint64_t) {}
#endif

}  // namespace emu
