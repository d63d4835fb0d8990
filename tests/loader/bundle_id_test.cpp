// SPDX-License-Identifier: MIT
// Tests of offload bundle entry ids: every form real bundlers write, and malformed ones rejected.
#include <gtest/gtest.h>

#include <string>

#include "loader/bundle.h"
#include "test_util.h"

namespace {

struct Parsed {
  std::string kind, triple, target, error;
  bool amdgpu = false;
};

Parsed parse(const std::string& id) {
  loader::BundleEntry e;
  e.id = id;
  auto s = loader::parse_bundle_id(e);
  Parsed p;
  if (!s.ok()) {
    p.error = s.message();
    return p;
  }
  p.kind = e.kind;
  p.triple = e.triple;
  p.target = e.target.str();
  p.amdgpu = e.is_amdgpu();
  return p;
}

// What LLVM 15's clang-offload-bundler (and every ROCm 5.x toolchain) writes for a HIP program.
TEST(BundleId, AcceptsLlvm15Ids) {
  Parsed h = parse("host-x86_64-unknown-linux");
  EXPECT_EQ(h.error, "");
  EXPECT_EQ(h.kind, "host");
  EXPECT_EQ(h.triple, "x86_64-unknown-linux");
  EXPECT_FALSE(h.amdgpu);
  Parsed d = parse("hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.kind, "hipv4");
  EXPECT_EQ(d.triple, "amdgcn-amd-amdhsa-");
  EXPECT_EQ(d.target, "gfx90a");
  EXPECT_TRUE(d.amdgpu);
  EXPECT_EQ(parse("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-").target, "gfx90a:sramecc+:xnack-");
}

// LLVM 17 and later normalise the host triple; LLVM 19 given a 3-part one pads it with "--".
TEST(BundleId, AcceptsNormalisedIds) {
  Parsed h = parse("host-x86_64-unknown-linux-gnu");
  EXPECT_EQ(h.error, "");
  EXPECT_EQ(h.triple, "x86_64-unknown-linux-gnu");
  Parsed p = parse("host-x86_64-unknown-linux--");
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.kind, "host");
  EXPECT_EQ(p.target, "");
  Parsed d = parse("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.target, "gfx90a:xnack-");
  EXPECT_EQ(parse("hip-amdgcn-amd-amdhsa--gfx906").target, "gfx906");
}

// Older toolchains wrote no environment component at all.
TEST(BundleId, AcceptsIdsWithoutEnvironment) {
  Parsed d = parse("hip-amdgcn-amd-amdhsa-gfx906");
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.kind, "hip");
  EXPECT_EQ(d.triple, "amdgcn-amd-amdhsa");
  EXPECT_EQ(d.target, "gfx906");
  EXPECT_TRUE(d.amdgpu);
  EXPECT_EQ(parse("hipv4-amdgcn-amd-amdhsa-gfx1030:xnack-").target, "gfx1030:xnack-");
}

// Generic processors have a '-' in their name; a processor newer than the table still parses
// (its entry is never selected), in both the "--name" and the "-name" form.
TEST(BundleId, AcceptsGenericAndUnknownProcessors) {
  Parsed g = parse("hipv4-amdgcn-amd-amdhsa--gfx9-generic");
  EXPECT_EQ(g.error, "");
  EXPECT_EQ(g.triple, "amdgcn-amd-amdhsa-");
  EXPECT_EQ(g.target, "gfx9-generic");
  EXPECT_EQ(parse("hipv4-amdgcn-amd-amdhsa-gfx10-3-generic").target, "gfx10-3-generic");
  Parsed u = parse("hipv4-amdgcn-amd-amdhsa--gfx1399:xnack+");
  EXPECT_EQ(u.error, "");
  EXPECT_EQ(u.target, "gfx1399:xnack+");
  EXPECT_EQ(parse("hip-amdgcn-amd-amdhsa-gfx1399").target, "gfx1399");
  // Other kinds and triples are kept as written and carry no target.
  Parsed o = parse("openmp-nvptx64-nvidia-cuda-sm_70");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.kind, "openmp");
  EXPECT_FALSE(o.amdgpu);
}

TEST(BundleId, RejectsMalformedIds) {
  auto err = [](const std::string& id) { return parse(id).error; };
  EXPECT_EQ(err("hostx86_64"), "bundle entry id 'hostx86_64': no '-' after the kind");
  EXPECT_EQ(err("-amdgcn-amd-amdhsa--gfx90a"), "bundle entry id '-amdgcn-amd-amdhsa--gfx90a': empty kind");
  EXPECT_EQ(err("host-x86_64-unknown"), "bundle entry id 'host-x86_64-unknown': triple 'x86_64-unknown' is not "
                                        "arch-vendor-os[-environment]");
  EXPECT_EQ(err("host-x86_64--linux"), "bundle entry id 'host-x86_64--linux': triple 'x86_64--linux' is not "
                                       "arch-vendor-os[-environment]");
  EXPECT_EQ(err("hipv4-amdgcn-amd-gfx90a"), "bundle entry id 'hipv4-amdgcn-amd-gfx90a': triple 'amdgcn-amd' is not "
                                            "arch-vendor-os[-environment]");
  EXPECT_EQ(err("hipv4--gfx90a"), "bundle entry id 'hipv4--gfx90a': triple '' is not arch-vendor-os[-environment]");
  EXPECT_EQ(err("hipv4-amdgcn-amd-amdhsa"), "bundle entry id 'hipv4-amdgcn-amd-amdhsa': no target id");
  EXPECT_EQ(err("hipv4-amdgcn-amd-amdhsa--"), "bundle entry id 'hipv4-amdgcn-amd-amdhsa--': no target id");
  EXPECT_EQ(err("hipv4-amdgcn-amd-amdhsa-gnu-gfx13x"),
            "bundle entry id 'hipv4-amdgcn-amd-amdhsa-gnu-gfx13x': 'gnu-gfx13x' after amdgcn-amd-amdhsa names no "
            "known processor");
  EXPECT_EQ(err("host-x86_64-unknown-linux:xnack+"),
            "bundle entry id 'host-x86_64-unknown-linux:xnack+': features ':xnack+' follow no processor");
  EXPECT_EQ(err("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack"),
            "bundle entry id 'hipv4-amdgcn-amd-amdhsa--gfx90a:xnack': target id: feature 'xnack' must end in + or -");
  EXPECT_EQ(err("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:xnack-"),
            "bundle entry id 'hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:xnack-': target id: feature 'xnack' given twice");
}

// A whole bundle with LLVM 15's ids, plain and in every compressed form: parsed and selected from.
// A corrupt file's bytes are quoted escaped: control characters never reach the terminal.
TEST(BundleId, QuotesInputBytesEscaped) {
  Parsed p = parse(std::string("hipv4-amdgcn-amd-amdhsa--gfx90a:\x1b[2J\x07xnack") + char(0xff));
  ASSERT_NE(p.error, "");
  EXPECT_EQ(p.error.find('\x1b'), std::string::npos) << p.error;
  EXPECT_EQ(p.error.find('\x07'), std::string::npos) << p.error;
  EXPECT_EQ(p.error.find(char(0xff)), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("\\x1b[2J\\x07xnack\\xff"), std::string::npos) << p.error;
}

TEST(BundleId, SelectsFromBundleWithLlvm15Ids) {
  std::vector<uint8_t> a(64, 0xa), b(64, 0xb), c(64, 0xc);
  auto plain = loader_test::make_bundle({{"host-x86_64-unknown-linux", {}},
                                         {"hipv4-amdgcn-amd-amdhsa--gfx90a", a},
                                         {"hipv4-amdgcn-amd-amdhsa--gfx908:xnack-", b},
                                         {"hip-amdgcn-amd-amdhsa-gfx906", c}});
  std::vector<std::vector<uint8_t>> forms = {plain};
  for (int version : {1, 2, 3})
    for (int method : {0, 1}) forms.push_back(loader_test::make_ccob(plain, version, method));
  for (const auto& f : forms) {
    auto bundle = loader::parse_bundle(f);
    ASSERT_TRUE(bundle.ok()) << bundle.message();
    ASSERT_EQ(bundle->entries.size(), 4u);
    EXPECT_FALSE(bundle->entries[0].is_amdgpu());
    auto pick = [&](const char* dev) {
      auto e = loader::select_code_object(*bundle, *loader::TargetId::parse(dev));
      return e.ok() ? (*e)->data[0] : 0;
    };
    EXPECT_EQ(pick("gfx90a:sramecc+:xnack-"), 0xa);
    EXPECT_EQ(pick("gfx908:sramecc+:xnack-"), 0xb);
    EXPECT_EQ(pick("gfx908:sramecc+:xnack+"), 0);
    EXPECT_EQ(pick("gfx906:sramecc-:xnack-"), 0xc);
  }
  auto bad = loader_test::make_bundle({{"host-x86_64-unknown-linux", {}}, {"hipv4-amdgcn-amd-amdhsa", a}});
  EXPECT_EQ(loader::parse_bundle(bad).message(), "bundle entry id 'hipv4-amdgcn-amd-amdhsa': no target id");
}

}  // namespace
