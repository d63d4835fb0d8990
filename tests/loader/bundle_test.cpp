// SPDX-License-Identifier: MIT
// Tests of offload bundles: clang-made plain and compressed bundles, selection, corrupt input, host ELFs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

#include "loader/bundle.h"
#include "loader/code_object.h"
#include "loader/elf.h"
#include "test_util.h"

using loader::Bundle;
using loader::TargetId;

namespace {

std::set<std::string> bundler_list(const std::string& name) {
  std::stringstream ss(loader_test::run(loader_test::tool("CLANG_OFFLOAD_BUNDLER_19") + " --list -type=o -input='" +
                                        loader_test::data_dir() + "/" + name + "'"));
  std::set<std::string> ids;
  std::string l;
  while (std::getline(ss, l))
    if (!l.empty()) ids.insert(l);
  return ids;
}

std::set<std::string> ids_of(const Bundle& b) {
  std::set<std::string> ids;
  for (const auto& e : b.entries) ids.insert(e.id);
  return ids;
}

std::string pick(const Bundle& b, const std::string& device) {
  auto r = loader::select_code_object(b, *TargetId::parse(device));
  return r.ok() ? (*r)->id : "error: " + r.message();
}

TEST(Bundle, ListsEntriesLikeClangOffloadBundler) {
  for (const char* name : {"multi.bundle", "multi.cbundle", "driver.bundle", "driver.cbundle"}) {
    auto bytes = loader_test::read_data(name);
    auto b = loader::parse_bundle(bytes);
    ASSERT_TRUE(b.ok()) << name << ": " << b.message();
    EXPECT_EQ(ids_of(*b), bundler_list(name)) << name;
    EXPECT_EQ(b->compressed, std::string(name).find(".cbundle") != std::string::npos) << name;
    for (const auto& e : b->entries) {
      if (!e.is_amdgpu()) continue;
      auto co = loader::CodeObject::parse(e.data);
      ASSERT_TRUE(co.ok()) << name << " " << e.id << ": " << co.message();
      EXPECT_EQ(co->target().processor, e.target.processor) << e.id;
    }
  }
}

TEST(Bundle, CompressedBundleHoldsTheSameBytes) {
  auto pb = loader_test::read_data("multi.bundle"), cb = loader_test::read_data("multi.cbundle");
  auto p = loader::parse_bundle(pb), c = loader::parse_bundle(cb);
  ASSERT_TRUE(p.ok() && c.ok()) << p.message() << c.message();
  EXPECT_EQ(c->compression.method, 1);  // zstd
  EXPECT_LT(cb.size(), pb.size());
  ASSERT_EQ(p->entries.size(), c->entries.size());
  for (size_t i = 0; i < p->entries.size(); ++i) {
    EXPECT_EQ(p->entries[i].id, c->entries[i].id);
    EXPECT_TRUE(std::equal(p->entries[i].data.begin(), p->entries[i].data.end(), c->entries[i].data.begin(),
                           c->entries[i].data.end()));
  }
}

TEST(Bundle, SelectsByTargetIdRules) {
  auto bytes = loader_test::read_data("multi.bundle");
  auto b = loader::parse_bundle(bytes);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(pick(*b, "gfx90a:sramecc+:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
  EXPECT_EQ(pick(*b, "gfx90a:sramecc-:xnack+"), "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
  EXPECT_EQ(pick(*b, "gfx908:sramecc+:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx908");
  EXPECT_EQ(pick(*b, "gfx1030"), "hipv4-amdgcn-amd-amdhsa--gfx1030");
  EXPECT_EQ(pick(*b, "gfx942:sramecc+:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(pick(*b, "gfx906:sramecc-:xnack-"), "hip-amdgcn-amd-amdhsa--gfx906");
  EXPECT_EQ(pick(*b, "gfx1100"),
            "error: bundle has gfx1030, gfx906, gfx908, gfx90a:xnack+, gfx90a:xnack-, gfx942; device is gfx1100");
}

TEST(Bundle, SelectsFromDriverBundle) {
  for (const char* name : {"driver.bundle", "driver.cbundle"}) {
    auto bytes = loader_test::read_data(name);
    auto b = loader::parse_bundle(bytes);
    ASSERT_TRUE(b.ok()) << b.message();
    EXPECT_EQ(pick(*b, "gfx90a:sramecc+:xnack+"), "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
    EXPECT_EQ(pick(*b, "gfx90a:sramecc+:xnack-"),
              "error: bundle has gfx1030, gfx90a:xnack+, gfx942; device is gfx90a:sramecc+:xnack-");
  }
}

TEST(Bundle, PrefersExactFeatureMatches) {
  auto any = loader_test::read_data("vector_add-gfx90a.co");
  auto xm = loader_test::read_data("vector_add-gfx90a-xnack-.co");
  auto sx = loader_test::read_data("vector_add-gfx90a-sramecc+-xnack-.co");
  auto bytes = loader_test::make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", any},
                                         {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", xm},
                                         {"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", sx}});
  auto b = loader::parse_bundle(bytes);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(pick(*b, "gfx90a:sramecc+:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
  EXPECT_EQ(pick(*b, "gfx90a:sramecc-:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
  EXPECT_EQ(pick(*b, "gfx90a:sramecc-:xnack+"), "hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(pick(*b, "gfx942"), "error: bundle has gfx90a, gfx90a:sramecc+:xnack-, gfx90a:xnack-; device is gfx942");
}

TEST(Bundle, FallsBackToGenericCodeObject) {
  auto g = loader_test::read_data("vector_add_v6-gfx9-generic.co");
  auto s = loader_test::read_data("vector_add-gfx906.co");
  auto gen_only = loader_test::make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx9-generic", g},
                                            {"hipv4-amdgcn-amd-amdhsa--gfx1030", s}});
  auto both = loader_test::make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx9-generic", g},
                                        {"hipv4-amdgcn-amd-amdhsa--gfx906", s}});
  auto b1 = loader::parse_bundle(gen_only), b2 = loader::parse_bundle(both);
  ASSERT_TRUE(b1.ok() && b2.ok());
  EXPECT_EQ(pick(*b1, "gfx906:sramecc+:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx9-generic");
  EXPECT_EQ(pick(*b2, "gfx906:sramecc+:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx906");
  EXPECT_EQ(pick(*b1, "gfx90a"), "error: bundle has gfx1030, gfx9-generic; device is gfx90a");
}

TEST(Bundle, DecodesEveryCompressedVersionAndMethod) {
  auto plain = loader_test::read_data("multi.bundle");
  auto ref = loader::parse_bundle(plain);
  ASSERT_TRUE(ref.ok());
  for (int version : {1, 2, 3}) {
    for (int method : {0, 1}) {
      auto c = loader_test::make_ccob(plain, version, method);
      auto b = loader::parse_bundle(c);
      ASSERT_TRUE(b.ok()) << "v" << version << " m" << method << ": " << b.message();
      EXPECT_EQ(b->compression.version, version);
      EXPECT_EQ(b->compression.method, method);
      EXPECT_EQ(ids_of(*b), ids_of(*ref));
      EXPECT_EQ(pick(*b, "gfx1030"), "hipv4-amdgcn-amd-amdhsa--gfx1030");
    }
  }
}

TEST(Bundle, RejectsCorruptPlainBundles) {
  auto any = loader_test::read_data("vector_add-gfx90a.co");
  auto good = loader_test::make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", any}, {"host-x86_64-unknown-linux-gnu-", {}}});
  auto msg = [](const std::vector<uint8_t>& b) { return loader::parse_bundle(b).message(); };
  ASSERT_EQ(msg(good), "");
  std::vector<uint8_t> b(good.begin(), good.begin() + 30);
  EXPECT_EQ(msg(b), "bundle entry count at offset 0x18: needs 8 bytes, input has 0x1e");
  b = good; loader_test::put_le<uint64_t>(b, 24, 1ull << 60);
  EXPECT_EQ(msg(b), "bundle entry count at offset 0x18: 1152921504606846976 entries cannot fit in " + base::hex(good.size()) + " bytes");
  uint64_t off0;
  std::memcpy(&off0, good.data() + 32, 8);
  b = good; loader_test::put_le<uint64_t>(b, 32 + 8, good.size());  // entry 0 size
  EXPECT_EQ(msg(b), "bundle entry 0 ('hipv4-amdgcn-amd-amdhsa--gfx90a') offset at offset " + base::hex(off0) +
                        ": range of " + base::hex(good.size()) + " bytes extends past the end (" + base::hex(good.size()) +
                        " bytes)");
  b = good; loader_test::put_le<uint64_t>(b, 32 + 16, 1ull << 40);  // id length
  EXPECT_EQ(msg(b), "bundle entry 0 id at offset 0x38: range of 0x10000000000 bytes extends past the end (" +
                        base::hex(good.size()) + " bytes)");
  b = good; loader_test::put_le<uint64_t>(b, 32, 8);  // entry data on top of the header
  loader_test::put_le<uint64_t>(b, 32 + 8, 16);
  EXPECT_EQ(msg(b), "bundle entry 'hipv4-amdgcn-amd-amdhsa--gfx90a' offset 0x8 overlaps the bundle header (ends at " +
                        base::hex(32 + 24 + 31 + 24 + 30) + ")");
  b = good; b[32 + 24 + 3] = 'X';  // "hipX-..." is not an AMDGPU kind and has no target: allowed, but...
  EXPECT_EQ(msg(b), "");
  b = good; b[32 + 24 + 31 - 1] = 'Q';  // "gfx90Q" is a processor the id may name; selection then fails
  auto sel = loader::parse_bundle(b);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(pick(*sel, "gfx90a"), "error: bundle has gfx90Q; device is gfx90a");
  b = good; std::memcpy(b.data() + 32 + 24 + 30, ":", 1);
  EXPECT_EQ(msg(b), "bundle entry id 'hipv4-amdgcn-amd-amdhsa--gfx90:': target id: feature '' must end in + or -");
}

TEST(Bundle, RejectsOverlappingEntries) {
  auto any = loader_test::read_data("vector_add-gfx90a.co");
  auto b = loader_test::make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", any}, {"hipv4-amdgcn-amd-amdhsa--gfx908", any}});
  uint64_t off0;
  std::memcpy(&off0, b.data() + 32, 8);
  size_t second = 32 + 24 + 31;
  loader_test::put_le<uint64_t>(b, second, off0 + 64);
  EXPECT_EQ(loader::parse_bundle(b).message(), "bundle entry 'hipv4-amdgcn-amd-amdhsa--gfx908' offset " + base::hex(off0 + 64) +
                                                   " overlaps entry 'hipv4-amdgcn-amd-amdhsa--gfx90a'");
}

TEST(Bundle, ReadsCompressedSizeFromHeaderAlone) {
  auto plain = loader_test::read_data("multi.bundle");
  for (int version : {2, 3}) {
    auto c = loader_test::make_ccob(plain, version, 1);
    auto n = loader::compressed_bundle_size(loader::Bytes(c.data(), 32));
    ASSERT_TRUE(n.ok()) << n.message();
    EXPECT_EQ(*n, c.size());
  }
  auto v1 = loader_test::make_ccob(plain, 1, 1);
  EXPECT_EQ(loader::compressed_bundle_size(loader::Bytes(v1.data(), 32)).message(),
            "CCOB version at offset 0x4: 1 has no total size (needs 2 or 3)");
  auto clang = loader_test::read_data("multi.cbundle");
  EXPECT_EQ(*loader::compressed_bundle_size(loader::Bytes(clang.data(), 32)), clang.size());
}

TEST(Bundle, RejectsCorruptCompressedBundles) {
  auto plain = loader_test::read_data("multi.bundle");
  auto good = loader_test::make_ccob(plain, 2, 1);
  auto msg = [](const std::vector<uint8_t>& b) { return loader::parse_bundle(b).message(); };
  auto b = good; b[4] = 7;
  EXPECT_EQ(msg(b), "CCOB version at offset 0x4: 7 is not 1, 2 or 3");
  b = good; b[6] = 5;
  EXPECT_EQ(msg(b), "CCOB method at offset 0x6: 5 is not 0 (zlib) or 1 (zstd)");
  b = good; loader_test::put_le<uint32_t>(b, 8, good.size() + 1);
  EXPECT_EQ(msg(b), "CCOB total size at offset 0x8: " + base::hex(good.size() + 1) + " is not within [header, input size " +
                        base::hex(good.size()) + "]");
  b = good; loader_test::put_le<uint32_t>(b, 12, 0xfffffff0u);
  EXPECT_EQ(msg(b), "CCOB uncompressed size at offset 0xc: 0xfffffff0 is 0 or above 1 GiB");
  b = good; loader_test::put_le<uint32_t>(b, 12, plain.size() + 8);
  EXPECT_EQ(msg(b), "CCOB uncompressed size at offset 0xc: " + base::hex(plain.size() + 8) + " disagrees with the zstd frame's " +
                        base::hex(plain.size()));
  auto z = loader_test::make_ccob(plain, 3, 0);
  b = z; loader_test::put_le<uint64_t>(b, 16, (z.size() - 32) * 2000);
  EXPECT_EQ(msg(b), "CCOB uncompressed size at offset 0x10: " + base::hex((z.size() - 32) * 2000) +
                        " is more than zlib can expand " + base::hex(z.size() - 32) + " bytes to");
  b = z; b[40] ^= 0xff;
  EXPECT_EQ(msg(b).substr(0, 31), "CCOB zlib data at offset 0x20: ");
  b = good; b[24] ^= 0x55;  // the zstd frame magic
  EXPECT_EQ(msg(b).substr(0, 32), "CCOB zstd frame at offset 0x18: ");
  std::vector<uint8_t> t(good.begin(), good.begin() + 10);
  EXPECT_EQ(msg(t), "CCOB total size at offset 0x8: needs 4 bytes, input has 0xa");
}

// A zstd CCOB whose payload is no zstd frame cannot bound its uncompressed size: rejected from the
// header, before the (here almost 1 GiB) output is allocated.
TEST(Bundle, RejectsUnboundedZstdSizeBeforeAllocating) {
  std::vector<uint8_t> b(32 + 64, 0x5a);
  std::memcpy(b.data(), "CCOB", 4);
  loader_test::put_le<uint16_t>(b, 4, 3);
  loader_test::put_le<uint16_t>(b, 6, 1);  // zstd
  loader_test::put_le<uint64_t>(b, 8, b.size());
  loader_test::put_le<uint64_t>(b, 16, 0x3ffff000);
  loader_test::put_le<uint64_t>(b, 24, 0);
  std::string want = "CCOB zstd frame at offset 0x20: not a complete zstd frame, so uncompressed size 0x3ffff000 "
                     "cannot be checked";
  EXPECT_EQ(loader::parse_compressed_header(b).message(), want);
  EXPECT_EQ(loader::parse_bundle(b).message(), want);
  // A real frame cut short: its block headers cannot be walked either.
  auto good = loader_test::make_ccob(loader_test::read_data("multi.bundle"), 3, 1);
  std::vector<uint8_t> cut(good.begin(), good.begin() + good.size() / 2);
  loader_test::put_le<uint64_t>(cut, 8, cut.size());
  uint64_t usize;
  std::memcpy(&usize, good.data() + 16, 8);
  EXPECT_EQ(loader::parse_bundle(cut).message(), "CCOB zstd frame at offset 0x20: not a complete zstd frame, so uncompressed size " +
                                                     base::hex(usize) + " cannot be checked");
}

TEST(Bundle, FindsFatBinaryInHostLibrary) {
  auto so = loader_test::read_data("libhost_launch.so");
  auto fat = loader::find_hip_fatbin(so);
  ASSERT_TRUE(fat.ok()) << fat.message();
  auto b = loader::parse_bundle(*fat);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(pick(*b, "gfx1030"), "hipv4-amdgcn-amd-amdhsa--gfx1030");
  auto e = loader::select_code_object(*b, *TargetId::parse("gfx90a:sramecc+:xnack-"));
  ASSERT_TRUE(e.ok()) << e.message();
  auto co = loader::CodeObject::parse((*e)->data);
  ASSERT_TRUE(co.ok()) << co.message();
  EXPECT_NE(co->find_kernel("host_scale"), nullptr);

  // Without the .hip_fatbin name, the .hipFatBinSegment wrapper leads there too.
  auto renamed = so;
  std::string name = ".hip_fatbin";
  auto it = std::search(renamed.begin(), renamed.end(), name.begin(), name.end() + 1);  // with its NUL
  ASSERT_NE(it, renamed.end());
  it[10] = 'X';
  auto fat2 = loader::find_hip_fatbin(renamed);
  ASSERT_TRUE(fat2.ok()) << fat2.message();
  EXPECT_EQ(fat2->data() - renamed.data(), fat->data() - so.data());
  // And with neither, the error says so.
  std::string seg = ".hipFatBinSegment";
  auto it2 = std::search(renamed.begin(), renamed.end(), seg.begin(), seg.end());
  ASSERT_NE(it2, renamed.end());
  it2[1] = 'X';
  EXPECT_EQ(loader::find_hip_fatbin(renamed).message(), "host ELF: no .hip_fatbin or .hipFatBinSegment section");
}

TEST(Bundle, FindsFatBinaryInExecutable) {
  const auto orig = loader_test::read_data("host_exe");
  auto fat = loader::find_hip_fatbin(orig);
  ASSERT_TRUE(fat.ok()) << fat.message();
  auto b = loader::parse_bundle(*fat);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(pick(*b, "gfx942:sramecc+:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx942");
  // Non-PIE: the wrapper's pointer is stored as a plain address, found without .hip_fatbin.
  auto exe = orig;
  std::string name = ".hip_fatbin";
  auto it = std::search(exe.begin(), exe.end(), name.begin(), name.end() + 1);
  ASSERT_NE(it, exe.end());
  it[1] = 'X';
  auto fat2 = loader::find_hip_fatbin(exe);
  ASSERT_TRUE(fat2.ok()) << fat2.message();
  EXPECT_EQ(fat2->data() - exe.data(), fat->data() - orig.data());
}

// Where find_hip_fatbins finds the bundles of `so`, as file offsets; empty on failure.
std::vector<uint64_t> fatbin_offsets(const std::vector<uint8_t>& so) {
  auto fats = loader::find_hip_fatbins(so);
  EXPECT_TRUE(fats.ok()) << fats.message();
  std::vector<uint64_t> out;
  if (fats.ok())
    for (loader::Bytes f : *fats) out.push_back(uint64_t(f.data() - so.data()));
  return out;
}

// Each translation unit with device code adds a bundle to .hip_fatbin and a wrapper to
// .hipFatBinSegment.
TEST(Bundle, FindsEveryBundleOfTwoUnitLibrary) {
  auto so = loader_test::read_data("libtwo_units.so");
  auto fats = loader::find_hip_fatbins(so);
  ASSERT_TRUE(fats.ok()) << fats.message();
  ASSERT_EQ(fats->size(), 2u);
  const char* kernels[] = {"host_scale", "host_offset"};
  for (size_t i = 0; i < 2; ++i) {
    auto b = loader::parse_bundle((*fats)[i]);
    ASSERT_TRUE(b.ok()) << i << ": " << b.message();
    auto e = loader::select_code_object(*b, *TargetId::parse("gfx1030"));
    ASSERT_TRUE(e.ok()) << e.message();
    auto co = loader::CodeObject::parse((*e)->data);
    ASSERT_TRUE(co.ok()) << co.message();
    ASSERT_EQ(co->kernels().size(), 1u);
    EXPECT_EQ(co->kernels()[0].meta.name, kernels[i]);
  }
  // The first bundle is also what find_hip_fatbin returns.
  EXPECT_EQ(loader::find_hip_fatbin(so)->data(), (*fats)[0].data());
  // Bytes between the bundles must be zero padding.
  auto b0 = loader::parse_bundle((*fats)[0]);
  ASSERT_TRUE(b0.ok());
  uint64_t pad = uint64_t((*fats)[0].data() - so.data()) + b0->size;
  ASSERT_LT((*fats)[0].data() + b0->size, (*fats)[1].data());
  auto junk = so;
  junk[pad] = 0x42;
  EXPECT_EQ(loader::find_hip_fatbins(junk).message(),
            ".hip_fatbin at offset " + base::hex(pad) + ": bytes after bundle 0 are neither zero padding nor a bundle");
}

// Without the .hip_fatbin name, the two wrappers lead to the same places.
TEST(Bundle, FollowsEveryWrapperOfTwoUnitLibrary) {
  auto so = loader_test::read_data("libtwo_units.so");
  std::vector<uint64_t> starts = fatbin_offsets(so);
  ASSERT_EQ(starts.size(), 2u);
  auto renamed = so;
  std::string name = ".hip_fatbin";
  auto it = std::search(renamed.begin(), renamed.end(), name.begin(), name.end() + 1);
  ASSERT_NE(it, renamed.end());
  it[10] = 'X';
  EXPECT_EQ(fatbin_offsets(renamed), starts);
  auto elf = loader::ElfFile::parse(renamed);
  ASSERT_TRUE(elf.ok()) << elf.message();
  const loader::Section* seg = elf->find_section(".hipFatBinSegment");
  ASSERT_NE(seg, nullptr);
  ASSERT_EQ(seg->size, 48u);
  // GNU ld writes each pointer into the section and its R_X86_64_RELATIVE relocation; lld leaves
  // the section's 0 and only the relocation's addend holds it. Both are found.
  auto zeroed = renamed;
  std::fill_n(zeroed.begin() + seg->offset + 8, 8, 0);
  std::fill_n(zeroed.begin() + seg->offset + 32, 8, 0);
  EXPECT_EQ(fatbin_offsets(zeroed), starts);
  // Two wrappers may not name one bundle.
  auto twice = renamed;
  std::copy_n(renamed.begin() + seg->offset + 8, 8, twice.begin() + seg->offset + 32);
  EXPECT_EQ(loader::find_hip_fatbins(twice).message(),
            ".hipFatBinSegment binary at offset " + base::hex(seg->offset) +
                ": two wrappers point at the bundle at file offset " + base::hex(starts[0]));
}

}  // namespace
