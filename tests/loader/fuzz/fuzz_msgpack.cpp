// SPDX-License-Identifier: MIT
// libFuzzer target: the MessagePack reader and the metadata decoder on top of it.
#include <cstddef>
#include <cstdint>

#include "loader/metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  loader::Bytes in(data, size);
  auto v = loader::msgpack::parse(in);
  if (v.ok()) (void)v->find("amdhsa.kernels");
  (void)loader::parse_metadata(in, 0x100);
  return 0;
}
