// SPDX-License-Identifier: MIT
// SDMA command sequences: chunked copies and fills, signal completion with interrupt, waits, timestamps.
#include "queues/sdma_commands.h"

#include <algorithm>
#include <cerrno>
#include <string>

namespace queues {
namespace {

constexpr uint32_t lo32(uint64_t v) { return uint32_t(v); }
constexpr uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }

}  // namespace

size_t write_sdma_copy(uint32_t* out, const pm4::Family& f, uint64_t dst, uint64_t src, uint64_t bytes) {
  size_t n = 0;
  while (bytes) {
    const uint32_t chunk = uint32_t(std::min<uint64_t>(bytes, f.sdma_max_copy_bytes));
    n += pm4::sdma::write_copy_linear(out + n, pm4::sdma::CopyLinear{src, dst, chunk});
    src += chunk;
    dst += chunk;
    bytes -= chunk;
  }
  return n;
}

base::Result<size_t> write_sdma_fill(uint32_t* out, const pm4::Family& f, uint64_t dst, uint32_t value,
                                     uint64_t bytes) {
  if (dst % 4 || bytes % 4)
    return base::Error::msg("SDMA fill: destination " + base::hex(dst) + " and size " +
                                std::to_string(bytes) + " must be multiples of 4", EINVAL);
  size_t n = 0;
  while (bytes) {
    pm4::sdma::ConstFill c;
    c.dst = dst;
    c.data = value;
    c.bytes = uint32_t(std::min<uint64_t>(bytes, f.sdma_max_copy_bytes));  // a multiple of 32
    n += pm4::sdma::write_const_fill(out + n, c);
    dst += c.bytes;
    bytes -= c.bytes;
  }
  return n;
}

uint32_t sdma_signal_dwords(const SdmaCompletion& c) {
  uint32_t n = 0;
  if (c.signal.value_address)
    n += c.decrement ? pm4::sdma::kAtomicDwords : 2 * pm4::sdma::kFenceDwords;
  if (c.signal.mailbox) n += pm4::sdma::kFenceDwords + pm4::sdma::kTrapDwords;
  return n;
}

size_t write_sdma_signal(uint32_t* out, const SdmaCompletion& c) {
  size_t n = 0;
  const uint64_t v = c.signal.value_address;
  if (v && c.decrement) {
    pm4::sdma::Atomic a;
    a.op = pm4::kAtomicAddRtn64;
    a.address = v;
    a.src = ~uint64_t(0);  // + (-1)
    n += pm4::sdma::write_atomic(out + n, a);
  } else if (v) {
    n += pm4::sdma::write_fence(out + n, v + 4, hi32(uint64_t(c.value)));
    n += pm4::sdma::write_fence(out + n, v, lo32(uint64_t(c.value)));
  }
  if (c.signal.mailbox) {
    n += pm4::sdma::write_fence(out + n, c.signal.mailbox, c.signal.event_id);
    n += pm4::sdma::write_trap(out + n, c.signal.event_id);
  }
  return n;
}

base::Result<size_t> write_sdma_wait_signal(uint32_t* out, uint64_t value_address, Cond cond,
                                            int64_t operand) {
  // The PM4 form decides the split and validates; its fields carry over to POLL_REGMEM (same
  // compare function numbering).
  uint32_t pm4_form[kPm4WaitSignalDwords];
  KFD_TRY(write_pm4_wait_signal(pm4_form, value_address, cond, operand));
  size_t n = 0;
  for (int i = 0; i < 2; ++i) {
    const pm4::WaitRegMem w = pm4::decode_wait_reg_mem(pm4_form + i * pm4::kWaitRegMemDwords);
    pm4::sdma::PollRegMem p;
    p.function = w.function;
    p.address = w.address;
    p.value = w.reference;
    p.mask = w.mask;
    p.interval = 4;
    p.retry = 0xFFF;  // forever
    n += pm4::sdma::write_poll_regmem(out + n, p);
  }
  return n;
}

base::Result<size_t> write_sdma_timestamp(uint32_t* out, uint64_t address) {
  if (address == 0 || address % 32)
    return base::Error::msg("SDMA timestamp: address " + base::hex(address) + " is not 32-byte aligned",
                            EINVAL);
  return pm4::sdma::write_timestamp(out, pm4::sdma::kSubTimestampGetGlobal, address);
}

}  // namespace queues
