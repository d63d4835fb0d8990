// SPDX-License-Identifier: MIT
// Tests of the kfdobj tool's output: valid JSON text for any bytes, every bundle of a host library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "test_util.h"

namespace {

std::string kfdobj_json(const std::string& path) {
  return loader_test::run(loader_test::tool("KFDOBJ") + " --json '" + path + "'");
}

std::string write_temp(const std::string& name, const std::vector<uint8_t>& b) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  return path;
}

// Metadata strings are bytes; JSON text must be UTF-8. A kernel .name starting with 0xff (not
// UTF-8) was copied into the output as it was, which JSON parsers reject.
TEST(Kfdobj, WritesBytesThatAreNotUtf8AsReplacementCharacters) {
  auto b = loader_test::read_data("vector_add-gfx90a.co");
  std::string key = ".name";
  auto it = std::search(b.begin(), b.end(), key.begin(), key.end());
  ASSERT_NE(it, b.end());
  size_t value = (it - b.begin()) + key.size() + 1;  // past the key and the fixstr header
  ASSERT_EQ(std::string(b.begin() + value, b.begin() + value + 10), "vector_add");
  auto bad = b;
  bad[value] = 0xff;
  std::string out = kfdobj_json(write_temp("kfdobj_not_utf8.co", bad));
  EXPECT_NE(out.find("\".name\":\"\\ufffdector_add\""), std::string::npos) << out;
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
  // Well-formed UTF-8 (here U+00E9, two bytes) is kept as it is.
  auto good = b;
  good[value] = 0xC3;
  good[value + 1] = 0xA9;
  out = kfdobj_json(write_temp("kfdobj_utf8.co", good));
  EXPECT_NE(out.find("\".name\":\"\xC3\xA9" "ctor_add\""), std::string::npos) << out;
  std::remove((::testing::TempDir() + "/kfdobj_not_utf8.co").c_str());
  std::remove((::testing::TempDir() + "/kfdobj_utf8.co").c_str());
}

// A corrupt input's bytes quoted in kfdobj's text output (listing or error message) are escaped,
// never written raw: a terminal must not interpret an input's control sequences.
TEST(Kfdobj, QuotesCorruptInputWithControlBytesEscaped) {
  const std::string evil = std::string("hipv4-amdgcn-amd-amdhsa--gfx90a\x1b[2J") + '\x07' + '\x00' + "x";
  auto co = loader_test::read_data("vector_add-gfx90a.co");
  auto b = loader_test::make_bundle({{"host-x86_64-unknown-linux-gnu-", {}}, {evil, co}});
  const std::string path = write_temp("kfdobj_control_bytes.bundle", b);
  std::string out = loader_test::run(loader_test::tool("KFDOBJ") + " '" + path + "' 2>&1");
  EXPECT_NE(out.find("\\x1b[2J\\x07\\x00x"), std::string::npos) << out;
  EXPECT_TRUE(std::none_of(out.begin(), out.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n') || u == 0x7f;
  })) << "raw control bytes in kfdobj's output";
  std::remove(path.c_str());
}

TEST(Kfdobj, ListsEveryBundleOfHostLibrary) {
  std::string out = kfdobj_json(loader_test::data_dir() + "/libtwo_units.so");
  EXPECT_NE(out.find("\"kind\":\"host elf\""), std::string::npos) << out;
  for (const char* bundle : {"\"bundle\":0", "\"bundle\":1"}) EXPECT_NE(out.find(bundle), std::string::npos) << bundle;
  EXPECT_NE(out.find("\".name\":\"host_scale\""), std::string::npos);
  EXPECT_NE(out.find("\".name\":\"host_offset\""), std::string::npos);
}

}  // namespace
