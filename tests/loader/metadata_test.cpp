// SPDX-License-Identifier: MIT
// Checks the parsed metadata of every built code object against `llvm-readelf --notes`.
#include <gtest/gtest.h>

#include "loader/code_object.h"
#include "test_util.h"

using loader_test::Yaml;

namespace {

uint64_t yaml_uint(const Yaml& m, const std::string& key) {
  const Yaml* v = m.find(key);
  EXPECT_NE(v, nullptr) << key;
  return v ? std::stoull(v->scalar) : ~0ull;
}

// The typed model must carry what readelf shows, key by key.
void expect_kernel_matches(const loader::KernelMeta& k, const Yaml& y) {
  EXPECT_EQ(k.name, y.find(".name")->scalar);
  EXPECT_EQ(k.symbol, y.find(".symbol")->scalar);
  EXPECT_EQ(k.kernarg_segment_size, yaml_uint(y, ".kernarg_segment_size"));
  EXPECT_EQ(k.kernarg_segment_align, yaml_uint(y, ".kernarg_segment_align"));
  EXPECT_EQ(k.group_segment_fixed_size, yaml_uint(y, ".group_segment_fixed_size"));
  EXPECT_EQ(k.private_segment_fixed_size, yaml_uint(y, ".private_segment_fixed_size"));
  EXPECT_EQ(k.wavefront_size, yaml_uint(y, ".wavefront_size"));
  EXPECT_EQ(k.sgpr_count, yaml_uint(y, ".sgpr_count"));
  EXPECT_EQ(k.vgpr_count, yaml_uint(y, ".vgpr_count"));
  EXPECT_EQ(k.max_flat_workgroup_size, yaml_uint(y, ".max_flat_workgroup_size"));
  if (y.find(".agpr_count")) { EXPECT_EQ(k.agpr_count.value_or(~0ull), yaml_uint(y, ".agpr_count")); }
  if (const Yaml* u = y.find(".uses_dynamic_stack")) { EXPECT_EQ(k.uses_dynamic_stack.value_or(!(u->scalar == "true")), u->scalar == "true"); }
  const Yaml* args = y.find(".args");
  ASSERT_EQ(k.args.size(), args ? args->seq.size() : 0u) << k.name;
  for (size_t i = 0; i < k.args.size(); ++i) {
    const Yaml& a = args->seq[i];
    const loader::KernelArg& m = k.args[i];
    EXPECT_EQ(m.offset, yaml_uint(a, ".offset")) << k.name << " arg " << i;
    EXPECT_EQ(m.size, yaml_uint(a, ".size")) << k.name << " arg " << i;
    EXPECT_EQ(loader::value_kind_name(m.value_kind), a.find(".value_kind")->scalar) << k.name << " arg " << i;
    if (const Yaml* as = a.find(".address_space")) EXPECT_EQ(m.address_space.value_or(""), as->scalar);
    else EXPECT_FALSE(m.address_space.has_value());
    if (const Yaml* n = a.find(".name")) { EXPECT_EQ(m.name.value_or(""), n->scalar); }
    if (const Yaml* t = a.find(".type_name")) { EXPECT_EQ(m.type_name.value_or(""), t->scalar); }
    if (a.find(".align")) { EXPECT_EQ(m.alignment.value_or(0), yaml_uint(a, ".align")); }
  }
}

class MetadataVsReadelf : public ::testing::TestWithParam<std::string> {};

TEST_P(MetadataVsReadelf, MatchesReadelfNotes) {
  std::string path = loader_test::data_dir() + "/" + GetParam();
  std::vector<uint8_t> bytes = loader_test::read_file(path);
  auto co = loader::CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  std::vector<Yaml> docs = loader_test::readelf_metadata(loader_test::tool("LLVM_READELF_15"), path);
  ASSERT_EQ(docs.size(), 1u);
  const Yaml& doc = docs[0];
  // The whole map, generically: every key, every value, in every nesting.
  EXPECT_EQ(loader_test::compare(doc, co->metadata().raw, ""), "");
  EXPECT_EQ(co->metadata().target, doc.find("amdhsa.target")->scalar);
  const Yaml* ver = doc.find("amdhsa.version");
  ASSERT_NE(ver, nullptr);
  EXPECT_EQ(co->metadata().version_major, std::stoull(ver->seq.at(0).scalar));
  EXPECT_EQ(co->metadata().version_minor, std::stoull(ver->seq.at(1).scalar));
  const Yaml* ks = doc.find("amdhsa.kernels");
  ASSERT_NE(ks, nullptr);
  ASSERT_EQ(co->kernels().size(), ks->seq.size());
  for (size_t i = 0; i < ks->seq.size(); ++i) expect_kernel_matches(co->kernels()[i].meta, ks->seq[i]);
}

INSTANTIATE_TEST_SUITE_P(BuiltObjects, MetadataVsReadelf, ::testing::ValuesIn(loader_test::built_code_objects()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '+') c = 'P';
    else if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(Metadata, FoundEveryBuiltObject) {
  // 6 kernels x 4 targets, plus feature variants of vector_add.
  EXPECT_GE(loader_test::built_code_objects().size(), 29u);
}

TEST(Metadata, HasHiddenArgumentsOfBothVersions) {
  auto v4 = loader_test::read_data("hidden_args-gfx90a.co");
  auto v5 = loader_test::read_data("hidden_args-gfx942.co");
  auto c4 = loader::CodeObject::parse(v4);
  auto c5 = loader::CodeObject::parse(v5);
  ASSERT_TRUE(c4.ok()) << c4.message();
  ASSERT_TRUE(c5.ok()) << c5.message();
  EXPECT_EQ(c4->version(), 4u);
  EXPECT_EQ(c5->version(), 5u);
  auto has = [](const loader::CodeObject& co, loader::ValueKind k) {
    for (const auto& a : co.kernels().at(0).meta.args)
      if (a.value_kind == k) return true;
    return false;
  };
  EXPECT_TRUE(has(*c4, loader::ValueKind::HiddenGlobalOffsetX));
  EXPECT_TRUE(has(*c5, loader::ValueKind::HiddenBlockCountX));
  EXPECT_TRUE(has(*c5, loader::ValueKind::HiddenGroupSizeX));
  EXPECT_TRUE(has(*c5, loader::ValueKind::HiddenGridDims));
  EXPECT_FALSE(has(*c4, loader::ValueKind::HiddenBlockCountX));
}

TEST(Metadata, RejectsNonStringKeys) {
  // {1: 2}: a map whose only key is an integer.
  const uint8_t top[] = {0x81, 0x01, 0x02};
  EXPECT_EQ(loader::parse_metadata(loader::Bytes(top, sizeof top), 0x100).message(),
            "metadata key at offset 0x101: expected str, found uint");
}

}  // namespace
