// SPDX-License-Identifier: MIT
// Control interface of the emulated AMD GPU: configure devices before first use and inject faults.
//
// Environment variables (read once, at the first interposed call):
//   KFDEMU_GPUS=N         number of emulated GPUs (default 1, at most 8)
//   KFDEMU_TARGET=gfx90a  gfx target of every GPU (gfx90a, gfx908, gfx906, gfx942)
//   KFDEMU_VRAM_MB=N      VRAM per GPU in MiB (default 65536, an MI210)
//   KFDEMU_VISIBLE_VRAM_MB=N|all  host-visible VRAM (the BAR) per GPU in MiB (default all: a
//                         large-BAR part). Less than the VRAM makes a small-BAR part, as amdkfd
//                         treats one: VRAM allocations with PUBLIC fail (EINVAL), the topology
//                         reports one private heap, and a CPU mapping of VRAM is refused (EPERM)
//                         once the mapped buffers would exceed N MiB (0: any CPU mapping).
//   KFDEMU_CUS=N          compute units per GPU (default 104)
//   KFDEMU_WORKERS=N      shader worker threads per GPU (default: one per host core)
//   KFDEMU_LOG=1          log unknown ioctls and device errors on stderr
//   KFDEMU_KFD_MINOR=N    KFD minor version to report (default 16)
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
};

// Returns 1 when this process runs on the emulated device (libkfdemu.so is loaded).
int kfdemu_present(void);

// Replaces the configuration. Only allowed before /dev/kfd is first opened; returns 0 on success,
// -1 (with a message on stderr) when the device is already in use or the values are invalid.
int kfdemu_configure(const struct kfdemu_config* config);

// Fills `config` with the configuration in force.
void kfdemu_get_config(struct kfdemu_config* config);

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
