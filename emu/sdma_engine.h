// SPDX-License-Identifier: MIT
// An emulated SDMA engine: its own thread serving the SDMA queues amdkfd assigned to it, executing SDMA v4 packets.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "emu/command_processor.h"

namespace emu {

// What an SDMA engine keeps per queue: the indirect buffer in progress (a POLL_REGMEM in it
// resumes where it stopped) and a packet gathered across the ring's end.
struct SdmaState {
  bool in_ib = false;
  uint64_t ib_va = 0;
  uint32_t ib_dwords = 0, ib_pos = 0;
  std::vector<uint32_t> wrapped;
};

// SDMA queues (KFD_IOC_QUEUE_TYPE_SDMA / SDMA_XGMI; kfdtest SDMAQueue.cpp, ROCr amd_blit_sdma.cpp):
// the doorbell holds the 64-bit write pointer in bytes, the engine writes its 64-bit read pointer
// in bytes to read_pointer_address; both only grow, the ring offset is the pointer modulo the
// ring size, and packets may wrap around the ring's end. The engine round-robins over its queues
// a few packets (and at most a few MiB of copying) at a time. A bad address stops that queue with
// a MEMORY event naming it (the VM fault amdkfd reports for any engine); an SDMA queue has no
// error signal, so a packet the engine cannot execute stops the queue, says so on stderr and
// sets HW_EXCEPTION events (what the driver's hang recovery would eventually report).
class SdmaEngine final : public EngineThread {
 public:
  SdmaEngine(Process& p, DeviceState& d, uint32_t index);
  ~SdmaEngine() override;

 private:
  bool service(Queue& q) override;
  // Keeps the engine's thread off the CPU its creator (the host thread that made the engine's
  // first queue) ran on, when the process may use at least two CPUs.
  void warm_up() override;
  // Dwords of the packet at `p` (the `avail` dwords published from it), 0 after stopping the
  // queue when the op is unknown, ~0u when more dwords must be published first.
  uint32_t packet_dwords(Queue& q, const uint32_t* p, uint32_t avail, uint64_t va);
  void count(const uint32_t* p) const;
  Step packet(Queue& q, const uint32_t* p, uint32_t n, uint64_t va, bool in_ib, uint64_t* budget);
  Step run_ib(Queue& q, SdmaState& s, uint64_t* budget);
  Step copy_linear(Queue& q, const uint32_t* p, uint64_t* budget);
  Step copy_rect(Queue& q, const uint32_t* p, uint64_t* budget);
  Step write_untiled(Queue& q, const uint32_t* p, uint32_t n);
  Step poll_regmem(Queue& q, const uint32_t* p);
  Step atomic(Queue& q, const uint32_t* p);
  Step const_fill(Queue& q, const uint32_t* p, uint64_t* budget);
  Step timestamp(Queue& q, const uint32_t* p);
  Step indirect(Queue& q, const uint32_t* p, bool in_ib, uint64_t* budget);

  bool range(Queue& q, uint64_t va, uint64_t size, bool write, const char* what, std::vector<HostSpan>* out);
  uint8_t* mem(Queue& q, uint64_t va, uint64_t size, bool write, const char* what);
  Step error(Queue& q, const std::string& why);

  uint32_t index_;
  // The host pieces of a packet's source and destination (kept: no allocation per packet).
  std::vector<HostSpan> src_spans_, dst_spans_;
  // The address ranges (source and destination) of the engine's last copies: the bytes they and
  // a new copy touch decide whether it streams past the host's caches.
  struct Touched {
    uint64_t begin = 0, end = 0;
  };
  static constexpr size_t kRecentRanges = 32;  // 16 copies
  std::array<Touched, kRecentRanges> recent_{};
  size_t recent_next_ = 0;
  uint64_t footprint_with(uint64_t src, uint64_t dst, uint64_t bytes) const;
  void remember(uint64_t src, uint64_t dst, uint64_t bytes);
  std::string where() const;  // "SDMA COPY_LINEAR at 0x...": the packet being executed
  bool where_set_ = false;
  uint32_t where_dw0_ = 0;
  uint64_t where_va_ = 0;
};

SdmaState& sdma_state(Queue& q);

}  // namespace emu
