// SPDX-License-Identifier: MIT
// A small bounds-checked MessagePack reader producing a value tree (strings view the input).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "loader/bytes.h"

namespace loader::msgpack {

enum class Kind : uint8_t { Nil, Bool, Int, UInt, Float, Str, Bin, Array, Map };

struct MapEntry;

// One decoded value. Int is used for negative integers only; non-negative ones are UInt.
struct Value {
  Kind kind = Kind::Nil;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string_view s;                             // Str and Bin
  std::vector<Value> array;                       // Array
  std::vector<MapEntry> map;                      // Map, in input order
  uint64_t offset = 0;                            // where it starts in the input

  // Map lookup by string key; nullptr when absent or when this is not a map.
  const Value* find(std::string_view key) const;
  bool is_uint() const { return kind == Kind::UInt; }
  bool is_str() const { return kind == Kind::Str; }
};

// Declared after Value: std::pair<Value, Value> inside Value would need Value complete.
struct MapEntry {
  Value key;
  Value value;
};

const char* kind_name(Kind k);

// Decodes exactly one value spanning the whole input (trailing bytes are an error).
// Nesting deeper than `max_depth` is rejected, so hostile input cannot exhaust the stack.
// `base` is added to every offset (in values and messages): the input's place in its file.
base::Result<Value> parse(Bytes input, uint64_t base = 0, unsigned max_depth = 32);

}  // namespace loader::msgpack
