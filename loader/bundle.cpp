// SPDX-License-Identifier: MIT
// Offload bundle parsing and decompression, code object selection, and the host-ELF fat binary.
#include "loader/bundle.h"

#define ZSTD_STATIC_LINKING_ONLY  // for ZSTD_decompressBound (exported by libzstd >= 1.4.10)
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "base/dynlib.h"
#include "base/text.h"
#include "loader/elf.h"

namespace loader {
namespace {

constexpr uint64_t kMagicSize = 24;
constexpr uint64_t kEntryMin = 24;                 // offset, size, id length: 3 x u64
constexpr uint64_t kMaxUncompressed = 1ull << 30;  // never allocate more than 1 GiB for one bundle
constexpr uint64_t kZlibMaxRatio = 1032;           // deflate cannot expand data by more (RFC 1951)

base::Status check_entry_layout(std::vector<BundleEntry>& es, uint64_t table_end) {
  std::vector<BundleEntry*> v;
  for (BundleEntry& e : es)
    if (e.size) v.push_back(&e);
  std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]->offset < table_end)
      return base::Error::msg("bundle entry " + base::quoted(v[i]->id) + " offset " + base::hex(v[i]->offset) +
                             " overlaps the bundle header (ends at " + base::hex(table_end) + ")");
    if (i && v[i - 1]->offset + v[i - 1]->size > v[i]->offset)
      return base::Error::msg("bundle entry " + base::quoted(v[i]->id) + " offset " + base::hex(v[i]->offset) +
                             " overlaps entry " + base::quoted(v[i - 1]->id));
  }
  return {};
}

base::Result<Bundle> parse_plain(Bytes b) {
  if (!is_offload_bundle(b)) return field_error("bundle magic", 0, "not __CLANG_OFFLOAD_BUNDLE__");
  KFD_ASSIGN(uint64_t count, read_le<uint64_t>(b, kMagicSize, "bundle entry count"));
  if (count > (b.size() - kMagicSize - 8) / kEntryMin)
    return field_error("bundle entry count", kMagicSize, std::to_string(count) + " entries cannot fit in " +
                                                              base::hex(b.size()) + " bytes");
  Bundle out;
  out.entries.reserve(count);
  uint64_t pos = kMagicSize + 8, end = pos;
  for (uint64_t i = 0; i < count; ++i) {
    BundleEntry e;
    std::string n = "bundle entry " + std::to_string(i);
    KFD_ASSIGN(e.offset, read_le<uint64_t>(b, pos, n + " offset"));
    KFD_ASSIGN(e.size, read_le<uint64_t>(b, pos + 8, n + " size"));
    KFD_ASSIGN(uint64_t idlen, read_le<uint64_t>(b, pos + 16, n + " id length"));
    KFD_ASSIGN(Bytes id, slice(b, pos + 24, idlen, n + " id"));
    e.id.assign(reinterpret_cast<const char*>(id.data()), id.size());
    KFD_ASSIGN(e.data, slice(b, e.offset, e.size, n + " (" + base::quoted(e.id) + ") offset"));
    KFD_TRY(parse_bundle_id(e));
    end = std::max(end, e.offset + e.size);
    pos += 24 + idlen;
    out.entries.push_back(std::move(e));
  }
  KFD_TRY(check_entry_layout(out.entries, pos));
  out.size = std::max(end, pos);
  return out;
}

// The decompressors, opened on the first compressed bundle (base::open_library): most programs
// carry uncompressed ones, and linking libz and libzstd cost every process their loading.
struct Zstd {
  decltype(&ZSTD_findFrameCompressedSize) frame_size = nullptr;
  decltype(&ZSTD_isError) is_error = nullptr;
  decltype(&ZSTD_getErrorName) error_name = nullptr;
  decltype(&ZSTD_decompress) decompress = nullptr;
  decltype(&ZSTD_getFrameContentSize) content_size = nullptr;
  decltype(&ZSTD_decompressBound) bound = nullptr;
};
struct Zlib {
  decltype(&uncompress2) uncompress = nullptr;
  decltype(&zError) error = nullptr;
};

base::Result<const Zstd*> zstd() {
  return base::open_once<Zstd>(
      [](Zstd& z) {
        return base::open_library("libzstd.so.1",
                                  {{"ZSTD_findFrameCompressedSize", reinterpret_cast<void**>(&z.frame_size)},
                                   {"ZSTD_isError", reinterpret_cast<void**>(&z.is_error)},
                                   {"ZSTD_getErrorName", reinterpret_cast<void**>(&z.error_name)},
                                   {"ZSTD_decompress", reinterpret_cast<void**>(&z.decompress)},
                                   {"ZSTD_getFrameContentSize", reinterpret_cast<void**>(&z.content_size)},
                                   {"ZSTD_decompressBound", reinterpret_cast<void**>(&z.bound)}});
      },
      "compressed offload bundle: ");
}

base::Result<const Zlib*> zlib() {
  return base::open_once<Zlib>(
      [](Zlib& z) {
        return base::open_library("libz.so.1", {{"uncompress2", reinterpret_cast<void**>(&z.uncompress)},
                                                {"zError", reinterpret_cast<void**>(&z.error)}});
      },
      "compressed offload bundle: ");
}

base::Status decompress_into(const CompressedHeader& h, Bytes payload, std::vector<uint8_t>& out) {
  out.resize(h.uncompressed_size);
  if (h.method == 1) {
    KFD_ASSIGN(const Zstd* z, zstd());
    size_t frame = z->frame_size(payload.data(), payload.size());
    if (z->is_error(frame)) return field_error("CCOB zstd frame", h.header_size, z->error_name(frame));
    size_t n = z->decompress(out.data(), out.size(), payload.data(), frame);
    if (z->is_error(n)) return field_error("CCOB zstd data", h.header_size, z->error_name(n));
    if (n != out.size())
      return field_error("CCOB uncompressed size", 8, "header says " + base::hex(out.size()) + ", data has " + base::hex(n));
    return {};
  }
  KFD_ASSIGN(const Zlib* z, zlib());
  uLongf n = out.size();
  uLong consumed = payload.size();
  int rc = z->uncompress(out.data(), &n, payload.data(), &consumed);
  if (rc != Z_OK) return field_error("CCOB zlib data", h.header_size, std::string("inflate failed: ") + z->error(rc));
  if (n != out.size())
    return field_error("CCOB uncompressed size", 8, "header says " + base::hex(out.size()) + ", data has " + base::hex(uint64_t(n)));
  return {};
}

base::Result<Bundle> parse_compressed(Bytes b) {
  KFD_ASSIGN(CompressedHeader h, parse_compressed_header(b));
  uint64_t end = h.total_size ? h.total_size : b.size();
  Bytes payload = b.subspan(h.header_size, end - h.header_size);
  auto storage = std::make_unique<std::vector<uint8_t>>();
  KFD_TRY(decompress_into(h, payload, *storage));
  auto inner = parse_plain(*storage);
  if (!inner) return inner.error().context("decompressed bundle");
  Bundle out = std::move(inner).value();
  out.compressed = true;
  out.compression = h;
  out.storage = std::move(storage);  // entries view the vector's heap buffer, which moves with it
  return out;
}

// The triple and the target id of an entry id after its "kind-"; target empty when there is none.
struct IdParts {
  std::string_view triple, target;
};

bool is_processor(std::string_view name) { return mach_from_name(name) != 0; }

IdParts split_triple_target(std::string_view rest) {
  std::string_view head = rest.substr(0, rest.find(':'));
  for (size_t p = head.find('-'); p != std::string_view::npos; p = head.find('-', p + 1))
    if (is_processor(head.substr(p + 1))) return {rest.substr(0, p), rest.substr(p + 1)};
  // A processor newer than the table: after an AMDGPU triple, "--name" (the empty environment
  // every clang since ROCm 4 writes) or "-name" without a further '-' is still a target. Such an
  // entry is never selected, but it does not make the whole bundle unreadable.
  const size_t n = kAmdgpuTriple.size();
  if (!head.starts_with(kAmdgpuTriple) || head.size() < n + 2 || head[n] != '-') return {head, {}};
  if (head[n + 1] == '-') return head.size() > n + 2 ? IdParts{rest.substr(0, n + 1), rest.substr(n + 2)} : IdParts{head, {}};
  if (head.find('-', n + 1) == std::string_view::npos) return {rest.substr(0, n), rest.substr(n + 1)};
  return {head, {}};
}

// arch-vendor-os, each non-empty, then anything (an environment, possibly empty, or more parts:
// LLVM 19 writes "x86_64-unknown-linux--" for a 3-part host triple).
bool triple_well_formed(std::string_view t) {
  for (int k = 0; k < 3; ++k) {
    size_t d = t.find('-');
    std::string_view part = t.substr(0, d);
    if (part.empty()) return false;
    if (k < 2 && d == std::string_view::npos) return false;
    t = d == std::string_view::npos ? std::string_view{} : t.substr(d + 1);
  }
  return true;
}

std::string amdgpu_targets(const Bundle& b) {
  std::set<std::string> names;
  for (const BundleEntry& e : b.entries)
    if (e.is_amdgpu()) names.insert(e.target.str());
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

bool is_offload_bundle(Bytes b) {
  return b.size() >= kMagicSize && std::memcmp(b.data(), kBundleMagic, kMagicSize) == 0;
}

bool is_compressed_bundle(Bytes b) { return b.size() >= 4 && std::memcmp(b.data(), "CCOB", 4) == 0; }

// layout: clang OffloadBundler "CompressedOffloadBundle": magic, u16 version, u16 method, then
// v1: u32 uncompressed, u64 hash; v2: u32 total, u32 uncompressed, u64 hash; v3: u64 x 3.
base::Result<CompressedHeader> parse_compressed_header(Bytes b) {
  if (!is_compressed_bundle(b)) return field_error("CCOB magic", 0, "not a compressed bundle");
  CompressedHeader h;
  KFD_ASSIGN(h.version, read_le<uint16_t>(b, 4, "CCOB version"));
  KFD_ASSIGN(h.method, read_le<uint16_t>(b, 6, "CCOB method"));
  if (h.version == 1) {
    KFD_ASSIGN(uint32_t u, read_le<uint32_t>(b, 8, "CCOB uncompressed size"));
    KFD_ASSIGN(h.hash, read_le<uint64_t>(b, 12, "CCOB hash"));
    h.uncompressed_size = u;
    h.header_size = 20;
  } else if (h.version == 2) {
    KFD_ASSIGN(uint32_t t, read_le<uint32_t>(b, 8, "CCOB total size"));
    KFD_ASSIGN(uint32_t u, read_le<uint32_t>(b, 12, "CCOB uncompressed size"));
    KFD_ASSIGN(h.hash, read_le<uint64_t>(b, 16, "CCOB hash"));
    h.total_size = t;
    h.uncompressed_size = u;
    h.header_size = 24;
  } else if (h.version == 3) {
    KFD_ASSIGN(h.total_size, read_le<uint64_t>(b, 8, "CCOB total size"));
    KFD_ASSIGN(h.uncompressed_size, read_le<uint64_t>(b, 16, "CCOB uncompressed size"));
    KFD_ASSIGN(h.hash, read_le<uint64_t>(b, 24, "CCOB hash"));
    h.header_size = 32;
  } else {
    return field_error("CCOB version", 4, std::to_string(h.version) + " is not 1, 2 or 3");
  }
  if (h.method > 1) return field_error("CCOB method", 6, std::to_string(h.method) + " is not 0 (zlib) or 1 (zstd)");
  if (h.version >= 2 && (h.total_size < h.header_size || h.total_size > b.size()))
    return field_error("CCOB total size", 8, base::hex(h.total_size) + " is not within [header, input size " +
                                                 base::hex(b.size()) + "]");
  uint64_t payload = (h.total_size ? h.total_size : b.size()) - h.header_size;
  uint64_t usize_at = h.version == 1 ? 8 : h.version == 2 ? 12 : 16;
  if (h.uncompressed_size == 0 || h.uncompressed_size > kMaxUncompressed)
    return field_error("CCOB uncompressed size", usize_at, base::hex(h.uncompressed_size) + " is 0 or above 1 GiB");
  if (h.method == 0 && h.uncompressed_size / kZlibMaxRatio > payload)
    return field_error("CCOB uncompressed size", usize_at, base::hex(h.uncompressed_size) +
                                                               " is more than zlib can expand " + base::hex(payload) + " bytes to");
  if (h.method == 1) {
    // A zstd frame states its content size; it must agree (RFC 8878 Frame_Content_Size).
    KFD_ASSIGN(const Zstd* z, zstd());
    unsigned long long fcs = z->content_size(b.data() + h.header_size, payload);
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != ZSTD_CONTENTSIZE_ERROR && fcs != h.uncompressed_size)
      return field_error("CCOB uncompressed size", usize_at, base::hex(h.uncompressed_size) +
                                                                 " disagrees with the zstd frame's " + base::hex(fcs));
    // Without a stated size, the block headers still bound what the data can expand to; data
    // whose block headers cannot be walked is rejected here, before anything is allocated.
    // Only the first frame counts: a v1 bundle has no total size, so padding may follow it.
    size_t frame = z->frame_size(b.data() + h.header_size, payload);
    unsigned long long bound = z->is_error(frame) ? ZSTD_CONTENTSIZE_ERROR : z->bound(b.data() + h.header_size, frame);
    if (bound == ZSTD_CONTENTSIZE_ERROR)
      return field_error("CCOB zstd frame", h.header_size, "not a complete zstd frame, so uncompressed size " +
                                                               base::hex(h.uncompressed_size) + " cannot be checked");
    if (h.uncompressed_size > bound)
      return field_error("CCOB uncompressed size", usize_at, base::hex(h.uncompressed_size) +
                                                                 " is more than the zstd data can expand to (" +
                                                                 base::hex(bound) + ")");
  }
  return h;
}

base::Result<uint64_t> compressed_bundle_size(Bytes b) {
  if (!is_compressed_bundle(b)) return field_error("CCOB magic", 0, "not a compressed bundle");
  KFD_ASSIGN(uint16_t version, read_le<uint16_t>(b, 4, "CCOB version"));
  if (version == 2) {
    KFD_ASSIGN(uint32_t t, read_le<uint32_t>(b, 8, "CCOB total size"));
    return uint64_t(t);
  }
  if (version == 3) return read_le<uint64_t>(b, 8, "CCOB total size");
  return field_error("CCOB version", 4, std::to_string(version) + " has no total size (needs 2 or 3)");
}

// Entry ids are "kind-triple[-target]". Which toolchain wrote them decides the triple's shape:
//   LLVM 15 / ROCm 5.x:  host-x86_64-unknown-linux          hipv4-amdgcn-amd-amdhsa--gfx90a
//   LLVM 17 and later:   host-x86_64-unknown-linux-gnu      hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-
//   LLVM 19 given a 3-part host triple:  host-x86_64-unknown-linux--
//   older toolchains:    hip-amdgcn-amd-amdhsa-gfx906 (no environment component)
// As clang's bundler does, the id ends in a target when its last '-'-separated part (before any
// ':' features) names a processor; generic processors contain a '-' ("gfx9-generic"), so the
// longest such suffix counts.
base::Status parse_bundle_id(BundleEntry& e) {
  auto bad = [&](const std::string& why) { return base::Error::msg("bundle entry id " + base::quoted(e.id) + ": " + why); };
  std::string_view id = e.id;
  size_t dash = id.find('-');
  if (dash == std::string_view::npos) return bad("no '-' after the kind");
  if (dash == 0) return bad("empty kind");
  e.kind = std::string(id.substr(0, dash));
  IdParts parts = split_triple_target(id.substr(dash + 1));
  e.triple = std::string(parts.triple);
  if (!triple_well_formed(parts.triple))
    return bad("triple " + base::quoted(e.triple) + " is not arch-vendor-os[-environment]");
  if (parts.target.empty() && parts.triple.size() + dash + 1 < id.size())
    return bad("features " + base::quoted(id.substr(dash + 1 + parts.triple.size())) + " follow no processor");
  if (!e.is_amdgpu()) return {};
  if (parts.target.empty()) {
    std::string_view tail = parts.triple.substr(kAmdgpuTriple.size());
    if (tail.find_first_not_of('-') == std::string_view::npos) return bad("no target id");
    return bad(base::quoted(tail.substr(1)) + " after " + std::string(kAmdgpuTriple) + " names no known processor");
  }
  auto t = TargetId::parse(parts.target);
  if (!t) return t.error().context("bundle entry id " + base::quoted(e.id));
  e.target = std::move(t).value();
  return {};
}

base::Result<Bundle> parse_bundle(Bytes b) {
  if (is_compressed_bundle(b)) return parse_compressed(b);
  return parse_plain(b);
}

base::Result<const BundleEntry*> select_code_object(const Bundle& b, const TargetId& device) {
  const BundleEntry* best = nullptr;
  int best_score = -1;
  for (const BundleEntry& e : b.entries) {
    if (!e.is_amdgpu() || e.size == 0) continue;
    int s = target_match_score(e.target, device);
    if (s > best_score) {
      best = &e;
      best_score = s;
    }
  }
  if (best) return best;
  std::string have = amdgpu_targets(b);
  if (have.empty()) return base::Error::msg("bundle has no AMDGPU code objects; device is " + device.str());
  return base::Error::msg("bundle has " + have + "; device is " + device.str());
}

}  // namespace loader
