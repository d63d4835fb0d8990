// SPDX-License-Identifier: MIT
// Tests that the loader reads what real toolchains write: LLVM 15's and LLVM 19's offload bundlers,
// kfdcc with each, and Debian's hipcc (ROCm 5.2); a toolchain that is not installed is skipped.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

#include "loader/bundle.h"
#include "loader/code_object.h"
#include "test_util.h"

using loader::Bundle;
using loader::TargetId;

namespace {

bool have(const char* env_name) {
  const char* v = std::getenv(env_name);
  return v && std::string(v) == "1";
}

std::set<std::string> ids_of(const Bundle& b) {
  std::set<std::string> ids;
  for (const auto& e : b.entries) ids.insert(e.id);
  return ids;
}

std::set<std::string> bundler_list(const char* bundler_env, const std::string& path) {
  std::stringstream ss(loader_test::run(loader_test::tool(bundler_env) + " --list -type=o -input='" + path + "'"));
  std::set<std::string> ids;
  for (std::string l; std::getline(ss, l);)
    if (!l.empty()) ids.insert(l);
  return ids;
}

// The code object selected for `device`, parsed; its kernel count, or -1 with a test failure.
int kernels_for(const Bundle& b, const char* device, const std::string& where) {
  auto e = loader::select_code_object(b, *TargetId::parse(device));
  if (!e.ok()) {
    ADD_FAILURE() << where << " " << device << ": " << e.message();
    return -1;
  }
  auto co = loader::CodeObject::parse((*e)->data);
  if (!co.ok()) {
    ADD_FAILURE() << where << " " << (*e)->id << ": " << co.message();
    return -1;
  }
  EXPECT_EQ(co->target().processor, (*e)->target.processor) << where << " " << (*e)->id;
  return int(co->kernels().size());
}

// A bundle of three vector_add code objects under the ids clang-15 passes its bundler.
void check_three_target_bundle(const std::string& name, const std::set<std::string>& want_ids) {
  auto bytes = loader_test::read_data(name);
  auto b = loader::parse_bundle(bytes);
  ASSERT_TRUE(b.ok()) << name << ": " << b.message();
  EXPECT_EQ(ids_of(*b), want_ids) << name;
  EXPECT_EQ(ids_of(*b), bundler_list("CLANG_OFFLOAD_BUNDLER_19", loader_test::data_dir() + "/" + name)) << name;
  EXPECT_EQ(kernels_for(*b, "gfx90a:sramecc+:xnack-", name), 2);
  EXPECT_EQ(kernels_for(*b, "gfx908:sramecc+:xnack-", name), 2);
  EXPECT_EQ(kernels_for(*b, "gfx906:sramecc-:xnack-", name), 2);
  EXPECT_FALSE(loader::select_code_object(*b, *TargetId::parse("gfx908:sramecc+:xnack+")).ok());
}

TEST(Toolchain, ReadsLlvm15BundlerOutput) {
  if (!have("KFDRT_HAVE_BUNDLER15")) GTEST_SKIP() << "clang-offload-bundler-15 is not installed";
  check_three_target_bundle("llvm15.bundle",
                            {"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx90a",
                             "hipv4-amdgcn-amd-amdhsa--gfx908:xnack-", "hip-amdgcn-amd-amdhsa-gfx906"});
}

// LLVM 19's bundler given the same ids writes them normalised: the host triple padded with "--",
// the old device id with the empty environment.
TEST(Toolchain, ReadsLlvm19BundlerOutputOfLlvm15Ids) {
  for (const char* name : {"llvm19.bundle", "llvm19.cbundle"}) {
    check_three_target_bundle(name, {"host-x86_64-unknown-linux--", "hipv4-amdgcn-amd-amdhsa--gfx90a",
                                     "hipv4-amdgcn-amd-amdhsa--gfx908:xnack-", "hip-amdgcn-amd-amdhsa--gfx906"});
  }
  auto c = loader::parse_bundle(loader_test::read_data("llvm19.cbundle"));
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_TRUE(c->compressed);
}

// A host object from kfdcc with the bundler named: the .hip_fatbin of a relocatable ELF.
void check_kfdcc_object(const std::string& name, const std::string& host_id) {
  auto bytes = loader_test::read_data(name);
  auto fats = loader::find_hip_fatbins(bytes);
  ASSERT_TRUE(fats.ok()) << name << ": " << fats.message();
  ASSERT_EQ(fats->size(), 1u) << name;
  auto b = loader::parse_bundle(fats->front());
  ASSERT_TRUE(b.ok()) << name << ": " << b.message();
  EXPECT_EQ(ids_of(*b), (std::set<std::string>{host_id, "hipv4-amdgcn-amd-amdhsa--gfx90a",
                                               "hipv4-amdgcn-amd-amdhsa--gfx1030"}))
      << name;
  EXPECT_EQ(kernels_for(*b, "gfx90a:sramecc-:xnack-", name), 1);
  EXPECT_EQ(kernels_for(*b, "gfx1030", name), 1);
}

TEST(Toolchain, ReadsKfdccObjectWithLlvm15Bundler) {
  if (!have("KFDRT_HAVE_BUNDLER15")) GTEST_SKIP() << "clang-offload-bundler-15 is not installed";
  check_kfdcc_object("kfdcc_bundler15.o", "host-x86_64-unknown-linux");
}

TEST(Toolchain, ReadsKfdccObjectWithLlvm19Bundler) {
  check_kfdcc_object("kfdcc_bundler19.o", "host-x86_64-unknown-linux--");
}

// Debian's hipcc (ROCm 5.2) with two --offload-arch: an object and a linked executable.
TEST(Toolchain, ReadsHipccObjectAndExecutable) {
  if (!have("KFDRT_HAVE_HIPCC")) GTEST_SKIP() << "hipcc is not installed";
  for (const char* name : {"hipcc_vector_add.o", "hipcc_vector_add"}) {
    auto bytes = loader_test::read_data(name);
    auto fats = loader::find_hip_fatbins(bytes);
    ASSERT_TRUE(fats.ok()) << name << ": " << fats.message();
    ASSERT_EQ(fats->size(), 1u) << name;
    auto b = loader::parse_bundle(fats->front());
    ASSERT_TRUE(b.ok()) << name << ": " << b.message();
    std::set<std::string> amdgpu;
    for (const auto& e : b->entries)
      if (e.is_amdgpu()) amdgpu.insert(e.target.str());
    EXPECT_EQ(amdgpu, (std::set<std::string>{"gfx908", "gfx90a"})) << name;
    EXPECT_EQ(kernels_for(*b, "gfx90a:sramecc-:xnack-", name), 2);
    EXPECT_EQ(kernels_for(*b, "gfx908:sramecc+:xnack-", name), 2);
  }
}

}  // namespace
