// SPDX-License-Identifier: MIT
// Fuzzing the emulated GPU's engines: one raw queue per input on the emulated amdkfd, fed the input's packets.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fuzz {

// GPU addresses the inputs may name: one 64 KiB buffer of GPU-visible, writable memory at a fixed
// address, so that packets in the seed corpus (and their mutations) reach mapped memory. Its first
// bytes come from the input; the rest is zero.
constexpr uint64_t kDataVa = 0x500000000000ull;
constexpr uint64_t kDataBytes = 64 << 10;
// Ring size of each queue; inputs longer than a ring are cut there.
constexpr uint32_t kRingBytes = 4096;

// One input on a fresh queue of `queue_type` (KFD_IOC_QUEUE_TYPE_*): bytes [2, 2 + n) go into the
// ring (n = the first two bytes, little endian, clamped to the input and the ring), the rest into
// the data buffer. The write pointer covers the ring bytes, rounded down to the queue's unit (AQL:
// packets of 64 bytes, PM4 and SDMA: dwords). Waits until the engine has consumed them, stopped
// the queue, or 20 ms have passed (a packet may wait on memory for ever), then destroys the queue:
// the engine must let go of it (an engine stuck in a packet is a hang, caught by the fuzzer's
// -timeout). Aborts, naming the cause, when the device cannot be set up.
void run_queue_input(uint32_t queue_type, const uint8_t* data, size_t size);

}  // namespace fuzz
