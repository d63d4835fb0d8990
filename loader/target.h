// SPDX-License-Identifier: MIT
// AMDGPU target ids ("gfx90a:sramecc+:xnack-"): e_flags decoding, the processor table, matching.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace loader {

// A target feature's setting: omitted ("any"), "-" or "+". AMDGPUUsage "Target ID".
enum class Feature : uint8_t { Any, Off, On };

struct TargetId {
  std::string processor;  // "gfx90a"
  Feature sramecc = Feature::Any;
  Feature xnack = Feature::Any;

  // Canonical form: processor, then features in alphabetical order ("gfx90a:sramecc+:xnack-").
  std::string str() const;
  // Accepts "gfx90a", "gfx90a:xnack+", "gfx90a:sramecc-:xnack+" (features in any order, once each).
  static base::Result<TargetId> parse(std::string_view s);
  bool operator==(const TargetId&) const = default;
};

// e_flags fields; AMDGPUUsage "AMDGPU ELF Header" (code object v4 and later).
inline constexpr uint32_t kEfMachMask = 0xFF;
inline constexpr uint32_t kEfXnackMask = 0x300, kEfXnackAny = 0x100, kEfXnackOff = 0x200, kEfXnackOn = 0x300;
inline constexpr uint32_t kEfSrameccMask = 0xC00, kEfSrameccAny = 0x400, kEfSrameccOff = 0x800,
                          kEfSrameccOn = 0xC00;

// The processor name for an EF_AMDGPU_MACH value, or nullptr when unknown.
const char* mach_name(uint32_t mach);
// The EF_AMDGPU_MACH value for a processor name, or 0 when unknown.
uint32_t mach_from_name(std::string_view name);
// Every (mach, name) pair the table knows, for tools and tests; ends with {0, nullptr}.
struct MachEntry {
  uint32_t mach;
  const char* name;
};
const MachEntry* mach_table();

// The target id e_flags encode for a code object of the given ELF ABI version (2 = v4, 3 = v5, 4 = v6).
base::Result<TargetId> target_from_e_flags(uint32_t flags, uint8_t abi_version);

// Whether code built for `code` can run on `device`: same processor (or a generic processor whose
// family holds the device's, code object v6), and each feature `code` sets (+/-) equal to the
// device's; an omitted feature matches either. AMDGPUUsage "Generic Processors".
bool target_compatible(const TargetId& code, const TargetId& device);
// How well a compatible code target fits (-1: not at all): the exact processor outranks a generic
// one, then one point per feature set explicitly and equal.
int target_match_score(const TargetId& code, const TargetId& device);

}  // namespace loader
