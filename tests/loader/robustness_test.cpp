// SPDX-License-Identifier: MIT
// Bit flips and truncations of every test input: parsing returns an error or a valid result, never crashes.
#include <gtest/gtest.h>

#include <random>

#include "loader/bundle.h"
#include "loader/load.h"
#include "test_util.h"

namespace {

// Exercises everything a runtime would do with the bytes; returns whether all of it succeeded.
bool try_code_object(const std::vector<uint8_t>& b) {
  auto co = loader::CodeObject::parse(b);
  if (!co) {
    EXPECT_FALSE(co.message().empty());
    return false;
  }
  loader::HostSegmentMemory mem(64u << 20);  // a mutated p_memsz may ask for gigabytes
  auto lco = loader::LoadedCodeObject::load(*co, mem);
  if (!lco) return false;
  for (const auto& k : co->kernels()) EXPECT_TRUE(lco->kernel_object(k.meta.name).ok());
  return true;
}

bool try_bundle(const std::vector<uint8_t>& b) {
  auto bundle = loader::parse_bundle(b);
  if (!bundle) {
    EXPECT_FALSE(bundle.message().empty());
    return false;
  }
  auto e = loader::select_code_object(*bundle, *loader::TargetId::parse("gfx90a:sramecc+:xnack-"));
  if (e.ok()) (void)loader::CodeObject::parse((*e)->data);
  return true;
}

template <class F>
void mutate_all(const std::vector<uint8_t>& good, F try_it, unsigned seed) {
  std::mt19937 rng(seed);
  // Every byte of the first 4 KiB (headers, tables, notes live there) gets one flip...
  size_t head = std::min<size_t>(good.size(), 4096);
  for (size_t pos = 0; pos < head; pos += 5) {
    auto b = good;
    b[pos] ^= uint8_t(1u << (rng() % 8));
    try_it(b);
  }
  // ...plus random multi-byte damage anywhere, and truncations at many lengths.
  for (int i = 0; i < 200; ++i) {
    auto b = good;
    for (int k = 0; k < 4; ++k) b[rng() % b.size()] = uint8_t(rng());
    try_it(b);
  }
  for (size_t len = 0; len < good.size(); len += std::max<size_t>(1, good.size() / 150)) {
    std::vector<uint8_t> t(good.begin(), good.begin() + len);
    try_it(t);
  }
}

TEST(Robustness, SurvivesDamagedCodeObjects) {
  auto names = loader_test::built_code_objects();
  ASSERT_FALSE(names.empty());
  unsigned seed = 1;
  for (const auto& n : names) {
    if (n.find("gfx90a.co") == std::string::npos && n.find("gfx942.co") == std::string::npos) continue;
    SCOPED_TRACE(n);
    auto good = loader_test::read_data(n);
    ASSERT_TRUE(try_code_object(good));
    mutate_all(good, try_code_object, seed++);
  }
}

TEST(Robustness, SurvivesDamagedBundles) {
  for (const char* n : {"multi.bundle", "multi.cbundle", "driver.cbundle"}) {
    SCOPED_TRACE(n);
    auto good = loader_test::read_data(n);
    ASSERT_TRUE(try_bundle(good));
    mutate_all(good, try_bundle, 77);
  }
  auto so = loader_test::read_data("libhost_launch.so");
  mutate_all(so, [](const std::vector<uint8_t>& b) { (void)loader::find_hip_fatbin(b); return true; }, 5);
  auto two = loader_test::read_data("libtwo_units.so");
  mutate_all(two, [](const std::vector<uint8_t>& b) {
    auto fats = loader::find_hip_fatbins(b);
    if (!fats) {
      EXPECT_FALSE(fats.message().empty());
      return false;
    }
    for (loader::Bytes f : *fats) (void)try_bundle(std::vector<uint8_t>(f.begin(), f.end()));
    return true;
  }, 9);
}

}  // namespace
