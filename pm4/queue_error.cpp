// SPDX-License-Identifier: MIT
// Names of the command processor's queue error bits.
#include "pm4/queue_error.h"

#include <cstdio>

namespace pm4::queue_error {

std::string describe(uint64_t value) {
  struct Bit {
    uint64_t bit;
    const char* name;
  };
  static constexpr Bit kBits[] = {
      {kScratchWave64, "insufficient scratch (wave64)"},
      {kInvalidDim, "invalid dimensions"},
      {kInvalidGroupMemory, "invalid group memory size"},
      {kInvalidCode, "invalid kernel code object"},
      {kInvalidPacketFormat, "invalid packet format"},
      {kGroupTooLarge, "workgroup too large"},
      {kOutOfVgprs, "out of VGPRs"},
      {kInvalidVendorPacket, "invalid vendor packet format"},
      {kReclaimLargeScratch, "large scratch reclaim"},
      {kScratchWave32, "insufficient scratch (wave32)"},
      {kMemoryViolation, "memory aperture violation"},
      {kIllegalInstruction, "illegal instruction"},
      {kDebugTrap, "trap (abort)"},
      {kRuntimeTerminating, "queue terminating"},
  };
  std::string out;
  uint64_t rest = value;
  for (const Bit& b : kBits) {
    if (!(value & b.bit)) continue;
    char hex[32];
    std::snprintf(hex, sizeof hex, " (0x%llx)", static_cast<unsigned long long>(b.bit));
    if (!out.empty()) out += " | ";
    out += b.name;
    out += hex;
    rest &= ~b.bit;
  }
  if (rest) {
    char hex[48];
    std::snprintf(hex, sizeof hex, "unknown bits 0x%llx", static_cast<unsigned long long>(rest));
    if (!out.empty()) out += " | ";
    out += hex;
  }
  return out.empty() ? "no error (0)" : out;
}

}  // namespace pm4::queue_error
