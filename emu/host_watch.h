// SPDX-License-Identifier: MIT
// KFDEMU_REPORT_STALE on the host side: a host access to a line a GPU's L2 still holds dirty after a completion signal released below system scope is reported, naming the kernel that wrote it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace emu {

struct DeviceState;
namespace shader { class CachedRange; }

// How it works. Host (CPU) accesses go to memory, never to a GPU's L2 (LLVM AMDGPUUsage, "Memory
// Model GFX90A": coarse-grained memory is made visible to other agents only by a release at system
// scope, which writes the L2 back). When a packet whose release is below system scope completes
// with a completion signal (the host may now wake and read what the kernel wrote), the program's
// pages holding lines that are still dirty in that GPU's L2 are made inaccessible (mprotect
// PROT_NONE on the program's own mapping; the emulated GPU reaches the memory through a mapping
// of its own). The program's first access to such a page faults; the emulator's SIGSEGV handler
// reports it when the accessed line is still dirty (stale for a read; for a write, a later
// write-back overwrites the kernel's bytes of it), gives the page back its protection and lets the
// access run as it would on hardware: a read gets memory's (stale) bytes. Other faults go to the
// handler installed before (or the default action). Only the program's CPU mappings of GPU buffers
// (the render node's mmaps: GTT and host-visible VRAM) are watched, not userptr or SVM memory
// (the program's own pages, which the emulator reads through the same mapping). A system call
// given a watched page (write(2) of the buffer) fails with EFAULT instead: reading such data is
// the bug being reported. Active only with KFDEMU_REPORT_STALE=1 under the strict model.

// The program mapped [cpu, cpu+len) of the buffer at GPU address gpu_va with `prot`
// (Process::mmap_render).
void host_watch_view(uint64_t gpu_va, void* cpu, size_t len, int prot);
// The program unmapped [cpu, cpu+len): views and watches there end (interposed munmap).
void host_watch_unmapped(void* cpu, size_t len);
// The buffer at [gpu_va, +size) is freed: its views end.
void host_watch_freed(uint64_t gpu_va, uint64_t size);
// GPU d has caches (from its first mapping until the process's GPUs go away).
void host_watch_gpu(DeviceState& d);
void host_watch_gpu_gone(DeviceState& d);
// GPU d completed a packet (`what` at `where`) with completion signal `signal`: the host may wake
// now, so the program's pages of lines still dirty in any GPU's L2 are watched.
void host_watch_arm(DeviceState& d, const char* what, uint64_t where, uint64_t signal);
// Removes `r` from d's caches, ending its watches first (replaces GpuCache::remove for mappings).
void host_watch_uncache(DeviceState& d, shader::CachedRange* r);

}  // namespace emu
