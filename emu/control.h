// SPDX-License-Identifier: MIT
// Control interface of the emulated AMD GPU: configure devices before first use and inject faults.
//
// Environment variables (read once, at the first interposed call):
//   KFDEMU_GPUS=N         number of emulated GPUs (default 1, at most 8)
//   KFDEMU_TARGET=gfx90a  gfx target of every GPU (gfx90a, gfx908, gfx906, gfx942)
//   KFDEMU_VRAM_MB=N      VRAM per GPU in MiB (default 65536, an MI210)
//   KFDEMU_VISIBLE_VRAM_MB=N|all  host-visible VRAM (the BAR) per GPU in MiB (default 256: a
//                         small-BAR part; all: a large-BAR part). On a small-BAR part, as amdkfd
//                         treats one, VRAM allocations with PUBLIC fail (EINVAL) and the topology
//                         reports one private heap. On any part, a CPU mapping of VRAM allocated
//                         without PUBLIC is refused (EPERM) unless it is PROT_NONE.
//   KFDEMU_CUS=N          compute units per GPU (default 104)
//   KFDEMU_WORKERS=N      shader worker threads per GPU (default: one per host core)
//   KFDEMU_LOG=1          log unknown ioctls and device errors on stderr
//   KFDEMU_KFD_MINOR=N    KFD minor version to report (default 16)
//   KFDEMU_MEMORY_MODEL=strict|sc
//                         strict (default): each GPU has an L2 that keeps non-coherent data until
//                         the fence the ISA and the HSA scopes require, and per-CU L1s (see
//                         emu/shader/cache.h); sc: GPU memory is sequentially consistent host memory
//   KFDEMU_L2_LINES=N     strict: L2 capacity in 64-byte lines, evicting the oldest (default 0:
//                         unbounded, data leaves a cache only by a fence); for stress runs
//   KFDEMU_L1_LINES=N     strict: each CU's L1 capacity in lines (default 0: unbounded)
//   KFDEMU_TRACE_FENCES=1 print every cache write-back and invalidate and every fence with its
//                         scope on stderr
//   KFDEMU_REPORT_STALE=1 after each kernel, report the loads that returned stale data (kernel name,
//                         addresses, the fence that was missing); and the host's accesses to lines
//                         a GPU's L2 still holds after a completion signal (emu/host_watch.h)
//   KFDEMU_ARENA_GB=N     host address space for all emulated GPU memory (default 1024; pages
//                         exist only once touched). Allocations beyond it fail with ENOMEM.
//   KFDEMU_STATS=path     at exit, write the engines' statistics (kfdemu_get_stats) to `path` as a
//                         JSON object ("%p" in the path stands for the pid): which engines ran the
//                         process's work, for programs that cannot call kfdemu_get_stats
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kfdemu_config {
  int gpus;              // 1..8
  char target[16];       // e.g. "gfx90a"
  uint64_t vram_bytes;   // per GPU
  int cus;               // compute units per GPU
  int workers;           // 0 = one per host core
  int kfd_minor;         // reported KFD 1.x minor version
  int memory_model;      // KFDEMU_MEMORY_MODEL_STRICT (0, the default) or KFDEMU_MEMORY_MODEL_SC
  uint32_t l2_lines;     // strict: L2 capacity in 64-byte lines (0: unbounded)
  uint32_t l1_lines;     // strict: each CU's L1 capacity in lines (0: unbounded)
  int trace_fences;      // nonzero: trace cache actions and fences on stderr
  int report_stale;      // nonzero: report stale loads per kernel on stderr
};

enum { KFDEMU_MEMORY_MODEL_STRICT = 0, KFDEMU_MEMORY_MODEL_SC = 1 };

// Returns 1 when this process runs on the emulated device (libkfdemu.so is loaded).
int kfdemu_present(void);

// Replaces the configuration. Only allowed before /dev/kfd is first opened; returns 0 on success,
// -1 (with a message on stderr) when the device is already in use or the values are invalid.
int kfdemu_configure(const struct kfdemu_config* config);

// Fills `config` with the configuration in force.
void kfdemu_get_config(struct kfdemu_config* config);

// What this process holds in the emulated amdkfd right now, as the driver would count it (leak
// tests compare these before and after create/destroy loops).
struct kfdemu_counts {
  uint32_t bos;             // live buffer objects of every kind (ALLOC_MEMORY_OF_GPU)
  uint32_t bos_vram, bos_gtt, bos_userptr, bos_doorbell, bos_mmio;
  uint64_t vram_bytes;      // VRAM allocated, all GPUs
  uint64_t gtt_bytes;       // GTT allocated, all GPUs
  uint32_t queues;          // live user-mode queues of every type (CREATE_QUEUE)
  uint32_t queues_aql, queues_pm4, queues_sdma;  // SDMA counts SDMA_XGMI too
  uint32_t events;          // live KFD events of every type (CREATE_EVENT)
  uint32_t signal_events;   // of which SIGNAL events (the 4096-slot budget)
  uint32_t doorbell_pages;  // GPUs whose doorbell page is allocated (one 8 KiB slice per GPU)
  uint32_t doorbells;       // queue doorbells in use (one per live queue)
  uint32_t gpu_mappings;    // GPU mappings of BOs (a BO mapped to two GPUs counts twice)
  uint32_t svm_ranges;      // SVM ranges with attributes set
  // Work the engines did since the process started (kfdemu_get_stats has the details; tests
  // compare these before and after to see which engine a copy took):
  uint64_t sdma_copies;     // SDMA COPY_LINEAR and COPY_LINEAR_RECT packets executed
  uint64_t sdma_copy_bytes; // bytes they moved
  uint64_t sdma_fills;      // SDMA CONSTANT_FILL packets executed
  uint64_t dispatches;      // kernel dispatches run (AQL dispatch packets and PM4 DISPATCH_DIRECT)
  // The host's calls into the driver since /dev/kfd was opened, from every thread (a device-side
  // chain of work makes none):
  uint64_t ioctls;          // /dev/kfd ioctls
  uint64_t event_waits;     // of which AMDKFD_IOC_WAIT_EVENTS
};

// Fills `counts`; returns 0, or -1 when /dev/kfd is not open in this process (all counts 0).
int kfdemu_get_counts(struct kfdemu_counts* counts);

// What the engines did since the process started (never reset): queues created by type and the
// packets each engine executed. Tests use it to know that work ran where it should (SDMA copies
// on an SDMA engine, kernels on PM4 queues), which the results alone cannot tell.
struct kfdemu_stats {
  uint64_t queues_aql, queues_pm4, queues_sdma, queues_sdma_xgmi;  // CREATE_QUEUE successes
  uint64_t aql_packets, aql_dispatches;     // AQL packets the command processor executed
  uint64_t pm4_packets, pm4_dispatches;     // PM4 packets (DISPATCH_DIRECTs) it executed
  uint64_t sdma_packets, sdma_copies;       // SDMA packets; COPY_LINEAR/COPY_LINEAR_RECT among them
  uint64_t sdma_copy_bytes, sdma_fills;     // bytes those copies moved; CONSTANT_FILLs
  uint64_t sdma_streamed_bytes;             // of those bytes, copied past the host's caches
};
void kfdemu_get_stats(struct kfdemu_stats* stats);

// Fault injection; both need /dev/kfd open in this process. Return 0, or -1 with a message on
// stderr (unknown gpu_id, device not open, a range that wraps around).

// Makes every later GPU access to [va, va+size) on gpu_id fault as if unmapped: the queue stops
// and MEMORY events report the address. size 0 clears all injected faults of gpu_id.
int kfdemu_inject_fault(uint32_t gpu_id, uint64_t va, uint64_t size);

// Signals a reset of gpu_id the way amdkfd does after a GPU hang: every HW_EXCEPTION event is set
// with reset_type 0 (whole GPU), reset_cause 0 (hang) and memory_lost. Queues are not stopped.
int kfdemu_inject_hw_exception(uint32_t gpu_id, int memory_lost);

#ifdef __cplusplus
}
#endif
