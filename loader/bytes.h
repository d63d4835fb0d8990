// SPDX-License-Identifier: MIT
// Bounds-checked little-endian reads from an input buffer; errors name the field and its offset.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"

namespace loader {

using Bytes = std::span<const uint8_t>;

// "<field> at offset 0x40: <problem>": the one shape every parser error in loader/ has.
inline base::Error field_error(std::string_view field, uint64_t offset, const std::string& problem) {
  return base::Error::msg(std::string(field) + " at offset " + base::hex(offset) + ": " + problem);
}

// True when [off, off+size) lies inside a buffer of `total` bytes (no overflow).
constexpr bool in_bounds(uint64_t off, uint64_t size, uint64_t total) {
  return off <= total && size <= total - off;
}

// Reads a little-endian unsigned integer of sizeof(T) bytes at `off`.
template <class T>
base::Result<T> read_le(Bytes b, uint64_t off, std::string_view field) {
  if (!in_bounds(off, sizeof(T), b.size()))
    return field_error(field, off, "needs " + std::to_string(sizeof(T)) + " bytes, input has " +
                                       base::hex(b.size()));
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));  // hosts are little-endian (x86-64, aarch64)
  return v;
}

// Unchecked read for callers that already checked the whole record's bounds.
template <class T>
T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// The sub-range [off, off+size), or an error naming the field when it does not fit.
inline base::Result<Bytes> slice(Bytes b, uint64_t off, uint64_t size, std::string_view field) {
  if (!in_bounds(off, size, b.size()))
    return field_error(field, off, "range of " + base::hex(size) + " bytes extends past the end (" +
                                       base::hex(b.size()) + " bytes)");
  return b.subspan(off, size);
}

constexpr bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace loader
