// SPDX-License-Identifier: MIT
// Clang offload bundles (plain and CCOB-compressed), target selection, and HIP fat binaries in host ELFs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "loader/bytes.h"
#include "loader/target.h"

namespace loader {

// The triple of AMDGPU code objects; an id may add an environment ("amdgcn-amd-amdhsa-").
inline constexpr std::string_view kAmdgpuTriple = "amdgcn-amd-amdhsa";

struct BundleEntry {
  std::string id;      // "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"
  std::string kind;    // "hip", "hipv4", "host", "openmp", ...
  std::string triple;  // as the id writes it: "amdgcn-amd-amdhsa-", "amdgcn-amd-amdhsa", "x86_64-unknown-linux"
  TargetId target;     // empty processor for host entries
  uint64_t offset = 0, size = 0;  // inside the (decompressed) bundle
  Bytes data;          // views the input or the Bundle's decompressed storage
  bool is_amdgpu() const {
    return (kind == "hip" || kind == "hipv4") && triple.starts_with(kAmdgpuTriple) &&
           (triple.size() == kAmdgpuTriple.size() || triple[kAmdgpuTriple.size()] == '-');
  }
};

struct CompressedHeader {
  uint16_t version = 0, method = 0;  // method: 0 zlib, 1 zstd (llvm::compression::Format)
  uint64_t total_size = 0;           // 0 when the version has no such field (v1)
  uint64_t uncompressed_size = 0, hash = 0, header_size = 0;
};

// A parsed bundle. Move-only: entries view `storage` when the input was compressed.
class Bundle {
 public:
  Bundle() = default;
  Bundle(Bundle&&) = default;
  Bundle& operator=(Bundle&&) = default;
  Bundle(const Bundle&) = delete;
  Bundle& operator=(const Bundle&) = delete;

  std::vector<BundleEntry> entries;
  bool compressed = false;
  CompressedHeader compression;
  uint64_t size = 0;  // bytes of the (uncompressed) bundle the entries and header cover
  std::unique_ptr<std::vector<uint8_t>> storage;
};

inline constexpr char kBundleMagic[] = "__CLANG_OFFLOAD_BUNDLE__";  // 24 bytes, no NUL in the file
inline constexpr uint32_t kHipFatMagic = 0x48495046;                // "HIPF"

bool is_offload_bundle(Bytes b);
bool is_compressed_bundle(Bytes b);

// Parses a plain or compressed bundle. Trailing bytes after the last entry are allowed (a
// .hip_fatbin section is padded); the header, the entry table and every entry must fit.
base::Result<Bundle> parse_bundle(Bytes b);
// `b` must hold the whole compressed bundle: sizes are checked against it.
base::Result<CompressedHeader> parse_compressed_header(Bytes b);
// The total size a CCOB v2/v3 header states, from its first 32 bytes alone (for callers that hold
// only a pointer, like __hipRegisterFatBinary); v1 states none and is an error. Not validated
// against any data: parse_bundle() on that many bytes does that.
base::Result<uint64_t> compressed_bundle_size(Bytes header);
// Splits an id "kind-arch-vendor-os[-env][-target]" into the entry's fields, in every form real
// bundlers write (LLVM 15 and ROCm 5.x, LLVM 17+, older "hip-amdgcn-amd-amdhsa-gfx906"); the
// target is there when the id ends in a processor name (loader/target.h's table). An AMDGPU
// entry (kind hip or hipv4) must have one.
base::Status parse_bundle_id(BundleEntry& e);

// The best AMDGPU entry for a device: processor equal, every +/- feature of the entry equal to
// the device's, an omitted feature matching either; explicit matches preferred. Otherwise an
// error listing the bundle's targets and the device's.
base::Result<const BundleEntry*> select_code_object(const Bundle& b, const TargetId& device);

// The offload bundle embedded in a host ELF executable or shared library: the .hip_fatbin
// section, else what the .hipFatBinSegment wrapper (magic "HIPF") points at.
base::Result<Bytes> find_hip_fatbin(Bytes host_elf);
// Every bundle in a host ELF, one per translation unit that had device code: the .hip_fatbin
// section split at each bundle's end (zero padding may follow), else one per .hipFatBinSegment
// wrapper. Each view runs from its bundle's start to the end of the section.
base::Result<std::vector<Bytes>> find_hip_fatbins(Bytes host_elf);

}  // namespace loader
