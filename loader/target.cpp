// SPDX-License-Identifier: MIT
// The EF_AMDGPU_MACH table and target id parsing, printing and matching.
#include "loader/target.h"

#include <cstring>

#include "base/text.h"

namespace loader {
namespace {

// EF_AMDGPU_MACH values; AMDGPUUsage "AMDGPU EF_AMDGPU_MACH Values", checked against
// llvm-readelf-19 by tests/loader (MachTableAgreesWithReadelf).
constexpr MachEntry kMach[] = {
    {0x20, "gfx600"},  {0x21, "gfx601"},  {0x22, "gfx700"},  {0x23, "gfx701"},  {0x24, "gfx702"},
    {0x25, "gfx703"},  {0x26, "gfx704"},  {0x28, "gfx801"},  {0x29, "gfx802"},  {0x2a, "gfx803"},
    {0x2b, "gfx810"},  {0x2c, "gfx900"},  {0x2d, "gfx902"},  {0x2e, "gfx904"},  {0x2f, "gfx906"},
    {0x30, "gfx908"},  {0x31, "gfx909"},  {0x32, "gfx90c"},  {0x33, "gfx1010"}, {0x34, "gfx1011"},
    {0x35, "gfx1012"}, {0x36, "gfx1030"}, {0x37, "gfx1031"}, {0x38, "gfx1032"}, {0x39, "gfx1033"},
    {0x3a, "gfx602"},  {0x3b, "gfx705"},  {0x3c, "gfx805"},  {0x3d, "gfx1035"}, {0x3e, "gfx1034"},
    {0x3f, "gfx90a"},  {0x40, "gfx940"},  {0x41, "gfx1100"}, {0x42, "gfx1013"}, {0x43, "gfx1150"},
    {0x44, "gfx1103"}, {0x45, "gfx1036"}, {0x46, "gfx1101"}, {0x47, "gfx1102"}, {0x48, "gfx1200"},
    {0x4a, "gfx1151"}, {0x4b, "gfx941"},  {0x4c, "gfx942"},  {0x4e, "gfx1201"},
    {0x51, "gfx9-generic"}, {0x52, "gfx10-1-generic"}, {0x53, "gfx10-3-generic"},
    {0x54, "gfx11-generic"}, {0x55, "gfx1152"}, {0x59, "gfx12-generic"},
    {0, nullptr},
};

const char* feature_suffix(Feature f) { return f == Feature::On ? "+" : "-"; }

// Generic processors and the processors their code runs on; AMDGPUUsage "Generic Processors".
struct GenericFamily {
  const char* generic;
  const char* members[9];
};
constexpr GenericFamily kGeneric[] = {
    {"gfx9-generic", {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}},
    {"gfx9-4-generic", {"gfx940", "gfx941", "gfx942", "gfx950"}},
    {"gfx10-1-generic", {"gfx1010", "gfx1011", "gfx1012", "gfx1013"}},
    {"gfx10-3-generic", {"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"}},
    {"gfx11-generic", {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"}},
    {"gfx12-generic", {"gfx1200", "gfx1201"}},
};

// Whether code for processor `code` runs on processor `device`: equal, or a generic family member.
bool processor_runs_on(std::string_view code, std::string_view device) {
  if (code == device) return true;
  for (const GenericFamily& g : kGeneric) {
    if (code != g.generic) continue;
    for (const char* m : g.members)
      if (m && device == m) return true;
  }
  return false;
}

}  // namespace

const MachEntry* mach_table() { return kMach; }

const char* mach_name(uint32_t mach) {
  for (const MachEntry* e = kMach; e->name; ++e)
    if (e->mach == mach) return e->name;
  return nullptr;
}

uint32_t mach_from_name(std::string_view name) {
  for (const MachEntry* e = kMach; e->name; ++e)
    if (name == e->name) return e->mach;
  return 0;
}

std::string TargetId::str() const {
  std::string s = processor;
  if (sramecc != Feature::Any) s += std::string(":sramecc") + feature_suffix(sramecc);
  if (xnack != Feature::Any) s += std::string(":xnack") + feature_suffix(xnack);
  return s;
}

base::Result<TargetId> TargetId::parse(std::string_view s) {
  TargetId t;
  size_t colon = s.find(':');
  t.processor = std::string(s.substr(0, colon));
  if (t.processor.empty()) return base::Error::msg("target id " + base::quoted(s) + ": empty processor");
  while (colon != std::string_view::npos) {
    s = s.substr(colon + 1);
    colon = s.find(':');
    std::string_view feat = s.substr(0, colon);
    if (feat.size() < 2 || (feat.back() != '+' && feat.back() != '-'))
      return base::Error::msg("target id: feature " + base::quoted(feat) + " must end in + or -");
    Feature v = feat.back() == '+' ? Feature::On : Feature::Off;
    std::string_view name = feat.substr(0, feat.size() - 1);
    Feature* slot = name == "xnack" ? &t.xnack : name == "sramecc" ? &t.sramecc : nullptr;
    if (!slot) return base::Error::msg("target id: unknown feature " + base::quoted(name));
    if (*slot != Feature::Any) return base::Error::msg("target id: feature " + base::quoted(name) + " given twice");
    *slot = v;
  }
  return t;
}

base::Result<TargetId> target_from_e_flags(uint32_t flags, uint8_t abi_version) {
  if (abi_version < 2 || abi_version > 4)
    return base::Error::msg("e_ident[EI_ABIVERSION] at offset 0x8: " + std::to_string(abi_version) +
                           " is not a supported code object version (2 = v4, 3 = v5, 4 = v6)");
  uint32_t mach = flags & kEfMachMask;
  const char* name = mach_name(mach);
  if (!name) return base::Error::msg("e_flags at offset 0x30: unknown EF_AMDGPU_MACH " + base::hex(mach));
  TargetId t;
  t.processor = name;
  switch (flags & kEfXnackMask) {
    case 0: t.xnack = Feature::Any; break;  // 0 = "unsupported": the processor has no xnack
    case kEfXnackAny: t.xnack = Feature::Any; break;
    case kEfXnackOff: t.xnack = Feature::Off; break;
    default: t.xnack = Feature::On; break;
  }
  switch (flags & kEfSrameccMask) {
    case 0: case kEfSrameccAny: t.sramecc = Feature::Any; break;
    case kEfSrameccOff: t.sramecc = Feature::Off; break;
    default: t.sramecc = Feature::On; break;
  }
  return t;
}

bool target_compatible(const TargetId& code, const TargetId& device) {
  if (!processor_runs_on(code.processor, device.processor)) return false;
  if (code.xnack != Feature::Any && code.xnack != device.xnack) return false;
  if (code.sramecc != Feature::Any && code.sramecc != device.sramecc) return false;
  return true;
}

int target_match_score(const TargetId& code, const TargetId& device) {
  if (!target_compatible(code, device)) return -1;
  // The exact processor beats any generic one; then each explicitly matching feature counts.
  return (code.processor == device.processor ? 4 : 0) + (code.xnack != Feature::Any ? 1 : 0) +
         (code.sramecc != Feature::Any ? 1 : 0);
}

}  // namespace loader
