// SPDX-License-Identifier: MIT
// Helpers for the loader tests: test data paths, running LLVM tools, a YAML subset, bundle writers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loader/msgpack.h"

namespace loader_test {

// Directory with the code objects built from tests/kernels (KFDRT_LOADER_DATA).
std::string data_dir();
std::vector<uint8_t> read_file(const std::string& path);
std::vector<uint8_t> read_data(const std::string& name);  // data_dir()/name
// Runs a shell command, returns its stdout; fails the current test when it exits non-zero.
std::string run(const std::string& cmd);
std::string tool(const char* env_name);  // path of an LLVM tool from the environment

// The YAML subset llvm-readelf prints for AMDGPU metadata: block maps, block sequences,
// flow sequences and plain or quoted scalars.
struct Yaml {
  enum Kind { Scalar, Map, Seq } kind = Scalar;
  std::string scalar;
  std::vector<std::pair<std::string, Yaml>> map;
  std::vector<Yaml> seq;
  const Yaml* find(const std::string& key) const;
};
Yaml parse_yaml(const std::string& text);
// The metadata documents `llvm-readelf --notes` prints, one per NT_AMDGPU_METADATA note.
std::vector<Yaml> readelf_metadata(const std::string& readelf, const std::string& path);
// Compares a YAML tree with a msgpack value; returns "" when equal, else where they differ.
std::string compare(const Yaml& y, const loader::msgpack::Value& v, const std::string& path);

// Writes an uncompressed offload bundle of (id, bytes) entries, entries 8-aligned after the table.
std::vector<uint8_t> make_bundle(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& entries);
// Wraps a bundle in a CCOB header of `version` (1..3) compressed with method 0 (zlib) or 1 (zstd).
std::vector<uint8_t> make_ccob(const std::vector<uint8_t>& bundle, int version, int method);

// The code objects the build makes: "<kernel>-<target>.co".
std::vector<std::string> built_code_objects();

template <class T>
void put_le(std::vector<uint8_t>& v, size_t off, T x) {
  for (size_t i = 0; i < sizeof(T); ++i) v[off + i] = uint8_t(uint64_t(x) >> (8 * i));
}

}  // namespace loader_test
