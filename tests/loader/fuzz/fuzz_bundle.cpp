// SPDX-License-Identifier: MIT
// libFuzzer target: plain and compressed offload bundles, selection, and host-ELF fat binary lookup.
#include <cstddef>
#include <cstdint>

#include "loader/bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  loader::Bytes in(data, size);
  auto b = loader::parse_bundle(in);
  if (b.ok()) {
    for (const char* dev : {"gfx90a:sramecc+:xnack-", "gfx1030", "gfx942:sramecc+:xnack+"})
      (void)loader::select_code_object(*b, *loader::TargetId::parse(dev));
  }
  auto fat = loader::find_hip_fatbin(in);
  if (fat.ok()) (void)loader::parse_bundle(*fat);
  auto fats = loader::find_hip_fatbins(in);
  if (fats.ok())
    for (loader::Bytes f : *fats) (void)loader::parse_bundle(f);
  return 0;
}
