// SPDX-License-Identifier: MIT
// libFuzzer target with a planted crash behind the MessagePack parser: CI's check that the fuzzing step finds and fails.
//
// The crash sits where a parser bug would: reachable only through input the real parser accepts
// (a two-element array whose first element is the string "kfd"), so libFuzzer must navigate the
// parser to it, as it must to reach a real bug. tools/fuzz.sh gives it one seed, a well-formed
// near miss (["kfe", 1]), so that it is found within seconds whatever libFuzzer's seed. `tools/fuzz.sh N fuzz_selftest` has to print
// FOUND and exit non-zero; .ci/run fails when it does not (a fuzzing step that cannot fail proves
// nothing). It is never among the targets CI runs for findings.
#include <cstddef>
#include <cstdint>

#include "loader/msgpack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto v = loader::msgpack::parse(loader::Bytes(data, size));
  if (v.ok() && v->kind == loader::msgpack::Kind::Array && v->array.size() == 2 &&
      v->array[0].is_str() && v->array[0].s == "kfd")
    __builtin_trap();  // the planted finding
  return 0;
}
