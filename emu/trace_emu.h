// SPDX-License-Identifier: MIT
// The emulator's view in kfdrt's trace file: doorbells seen, packets executed, workgroups, cache actions.
#pragma once

// With KFDRT_TRACE=path (or KFDEMU_TRACE=path) in the environment the emulator records what its
// engines did and, at exit, merges those events into the same file as kfdrt's trace (either
// may write first; trace/trace_file.cpp merges per process). Its tracks are separate processes
// named "emulator GPU n (emulator-only)", every event has "emulator_only":true: a real GPU
// has no such view. Off, each hook is one predictable branch.

#include <atomic>
#include <cstdint>
#include <string>

namespace emu::trace_emu {

namespace detail {
extern std::atomic<bool> g_on;
}
inline bool on() { return __builtin_expect(detail::g_on.load(std::memory_order_relaxed), false); }

uint64_t now_ns();  // CLOCK_BOOTTIME, as kfdrt's trace and amdkfd's system clock

// The command processor read a doorbell value it had not seen for this queue.
void doorbell(uint32_t gpu, uint32_t queue, uint64_t value);
// A packet (or SDMA / PM4 command) executed on the CP or an engine, [t0, now].
void packet(uint32_t gpu, uint32_t queue, const char* kind, uint64_t index, uint64_t t0);
// A workgroup ran on shader worker `worker`, [t0, t1].
void workgroup(uint32_t gpu, uint64_t kernel_object, const uint32_t id[3], unsigned worker, uint64_t t0, uint64_t t1);
// A cache action or fence of the memory model (the KFDEMU_TRACE_FENCES line).
void cache(uint32_t gpu, const std::string& line);

}  // namespace emu::trace_emu
