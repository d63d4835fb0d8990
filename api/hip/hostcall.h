// SPDX-License-Identifier: MIT
// Hostcall: the buffer through which kernels call the host (device printf), and its service thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "api/hip/runtime.h"

namespace hip {

// The layout ockl's __ockl_hostcall_internal uses (ROCm device libraries, ockl hostcall_impl):
// packets are headers plus 64-lane payloads; free and ready packets are kept in two lock-free
// stacks of tagged indices (index = pointer & index_mask, the bits above are a tag against ABA,
// which the device advances by index_mask + 1 when it frees a packet); the device adds 1 to the
// doorbell signal after pushing a ready packet, then spins until the host clears READY.
namespace hostcall {
struct Header {
  uint64_t next;
  uint64_t activemask;
  uint32_t service;
  uint32_t control;  // bit 0: READY (set by the device, cleared by the host when it answered)
};
struct Payload {
  uint64_t slots[64][8];
};
struct Buffer {
  uint64_t headers;   // Header*
  uint64_t payloads;  // Payload*
  uint64_t doorbell;  // hsa_signal_t (amd_signal_t address)
  uint64_t free_stack;
  uint64_t ready_stack;
  uint64_t index_mask;  // packets - 1 (a power of two less one)
};
static_assert(sizeof(Header) == 24 && sizeof(Payload) == 4096 && sizeof(Buffer) == 48);

enum Service : uint32_t { kDefault = 0, kFunctionCall = 1, kPrintf = 2 };
}  // namespace hostcall

// One device's hostcall buffer, created on the first launch of a kernel that has a
// hidden_hostcall_buffer argument, and served by a thread of its own for the rest of the process.
class Hostcall {
 public:
  static base::Result<Hostcall*> create(Device& dev);
  uint64_t address() const { return reinterpret_cast<uint64_t>(buf_); }

  // One pass over the ready stack: answers every packet in it (public for tests' sake: the
  // service thread calls it after each doorbell ring and on a timer).
  void serve_ready();

 private:
  explicit Hostcall(Device& dev) : dev_(dev) {}
  void run();
  void serve_packet(hostcall::Header& h, hostcall::Payload& p);
  void serve_message(uint32_t service, uint64_t* slot);

  Device& dev_;
  hostcall::Buffer* buf_ = nullptr;
  std::unique_ptr<queues::Signal> doorbell_;
  uint32_t packets_ = 0;
  // Messages being assembled (printf), by id.
  std::map<uint64_t, std::vector<uint64_t>> messages_;
  uint64_t next_id_ = 1;
};

}  // namespace hip
