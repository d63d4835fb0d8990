// SPDX-License-Identifier: MIT
// The copy engine and pageable host memory: pipelined staging buffers, and USERPTR registration in place.
#include <sys/mman.h>

#include <algorithm>
#include <vector>

#include "copy_test_util.h"

namespace {

using namespace ctest;
using queues::CopyPath;

constexpr uint64_t kMiB = 1u << 20;

struct PageableCase {
  CopyPath path;
  bool registered;  // USERPTR from 1 MiB up instead of staging
};

class Pageable : public testing::TestWithParam<PageableCase> {
 protected:
  void SetUp() override {
    queues::CopyPolicy p;
    p.staging_chunk = 1 * kMiB;  // many chunks per copy: the pipeline wraps around its buffers
    p.staging_drain_chunk = 1 * kMiB;
    p.staging_buffers = 3;
    p.userptr_min_bytes = GetParam().registered ? kMiB : 0;
    e_ = engine(GetParam().path, 0, p);
    ASSERT_TRUE(e_);
    if (!has(*e_, GetParam().path)) GTEST_SKIP() << queues::copy_path_name(GetParam().path) << " not available";
  }
  std::unique_ptr<queues::CopyEngine> e_;
};

// Plain std::vector memory (never registered) to the device and back, at unaligned offsets.
TEST_P(Pageable, CopiesToTheDeviceAndBack) {
  for (uint64_t bytes : {uint64_t(1), uint64_t(4095), 4 * kMiB + 3, 256 * kMiB}) {
    SCOPED_TRACE("bytes " + std::to_string(bytes));
    std::vector<uint8_t> src(bytes + 8), dst(bytes + 8, 0xEE);
    fill_pattern(src.data() + 3, bytes, 77);
    Mem dev = Mem::device(bytes + 8);
    ASSERT_OK(run([&](auto o) { return e_->copy_from_pageable(dev.va(1), src.data() + 3, bytes, o); }));
    ASSERT_OK(run([&](auto o) { return e_->copy_to_pageable(dst.data() + 5, dev.va(1), bytes, o); }));
    EXPECT_EQ(first_mismatch(dst.data() + 5, bytes, 77), bytes);
    EXPECT_TRUE(std::all_of(dst.begin(), dst.begin() + 5, [](uint8_t b) { return b == 0xEE; }));
    EXPECT_TRUE(std::all_of(dst.begin() + 5 + bytes, dst.end(), [](uint8_t b) { return b == 0xEE; }));
  }
  const queues::CopyStats s = e_->stats();
  if (GetParam().registered)
    EXPECT_GE(s.userptr_copies, 4u);  // 4 MiB and 256 MiB, each way
  else
    EXPECT_GE(s.staged_chunks, 2u * (1 + 1 + 5 + 256));
}

// HIP's rule for an asynchronous copy from pageable memory: once the call returns, the source
// may be reused, and the device still gets the bytes it held at the call. Held back by a gate
// (what fits the staging buffers: a longer copy waits on the host for its buffers), then a
// longer one that races the host's scribbling.
TEST_P(Pageable, SourceMayBeReusedOnceTheCallReturns) {
  for (const bool gated : {true, false}) {
    SCOPED_TRACE(gated ? "gated" : "racing");
    const uint64_t bytes = gated ? 3 * kMiB - 7 : 9 * kMiB + 1;
    std::vector<uint8_t> src(bytes), back(bytes);
    fill_pattern(src.data(), bytes, 5);
    Mem dev = Mem::device(bytes);
    // In place (registered), the call itself waits for the device: no gate can hold it.
    auto gate = qtest::make_signal(gated && !GetParam().registered ? 1 : 0);
    const queues::CopyWait g{gate->handle(), queues::Cond::Eq, 0};
    Done d;
    ASSERT_OK(e_->copy_from_pageable(dev.va(), src.data(), bytes, d.order({&g, 1})));
    std::fill(src.begin(), src.end(), 0);
    if (gated && !GetParam().registered) { EXPECT_EQ(d.s->load(), 1) << "ran before the gate opened"; }
    gate->store(0);
    ASSERT_OK(d.wait());
    ASSERT_OK(run([&](auto o) { return e_->copy_to_pageable(back.data(), dev.va(), bytes, o); }));
    EXPECT_EQ(first_mismatch(back.data(), bytes, 5), bytes);
  }
}

// A copy to pageable memory waits (on the device) for what it is ordered after.
TEST_P(Pageable, CopyToPageableWaitsForItsOrder) {
  const uint64_t bytes = 2 * kMiB + 5;
  Mem host = Mem::host(bytes), dev = Mem::device(bytes);
  fill_pattern(host.bytes(), bytes, 8);
  Done up;
  ASSERT_OK(e_->copy(dev.va(), host.va(), bytes, up.order()));
  std::vector<uint8_t> back(bytes);
  const queues::CopyWait w = up.after();
  ASSERT_OK(run([&](auto o) {
    return e_->copy_to_pageable(back.data(), dev.va(), bytes, queues::CopyOrder{{&w, 1}, o.done});
  }));
  EXPECT_EQ(first_mismatch(back.data(), bytes, 8), bytes);
}

// The default pieces: a quarter of a copy the buffers hold per piece, at most 128 KiB each way,
// so that the four buffers stay in the CPU's caches.
TEST(PageableDefaults, PiecesStayCacheSized) {
  auto e = engine(CopyPath::Sdma);
  ASSERT_TRUE(e);
  if (!has(*e, CopyPath::Sdma)) GTEST_SKIP() << "SDMA not available";
  ASSERT_EQ(e->policy().staging_buffers, 4u);
  const uint64_t bytes = 8 * kMiB + 1;
  std::vector<uint8_t> src(bytes), back(bytes);
  fill_pattern(src.data(), bytes, 9);
  Mem dev = Mem::device(bytes);
  ASSERT_OK(run([&](auto o) { return e->copy_from_pageable(dev.va(), src.data(), bytes, o); }));
  EXPECT_EQ(e->stats().staged_chunks, 65u) << "8 MiB + 1 toward the device: 64 x 128 KiB + 1 byte";
  ASSERT_OK(run([&](auto o) { return e->copy_to_pageable(back.data(), dev.va(), bytes, o); }));
  EXPECT_EQ(e->stats().staged_chunks, 65u + 65u) << "8 MiB + 1 from the device: 64 x 128 KiB + 1 byte";
  EXPECT_EQ(first_mismatch(back.data(), bytes, 9), bytes);
}

// A 256 KiB copy goes in 4 pieces of 64 KiB each way (one per buffer), so that the host's copy
// and the engine's overlap for all but a quarter of it.
TEST(PageableDefaults, SplitsACopyTheBuffersHoldInFourPieces) {
  auto e = engine(CopyPath::Sdma);
  ASSERT_TRUE(e);
  if (!has(*e, CopyPath::Sdma)) GTEST_SKIP() << "SDMA not available";
  const uint64_t bytes = 256u << 10;
  std::vector<uint8_t> src(bytes), back(bytes);
  fill_pattern(src.data(), bytes, 21);
  Mem dev = Mem::device(bytes);
  ASSERT_OK(run([&](auto o) { return e->copy_from_pageable(dev.va(), src.data(), bytes, o); }));
  EXPECT_EQ(e->stats().staged_chunks, 4u) << "256 KiB toward the device";
  ASSERT_OK(run([&](auto o) { return e->copy_to_pageable(back.data(), dev.va(), bytes, o); }));
  EXPECT_EQ(e->stats().staged_chunks, 8u) << "256 KiB from the device";
  EXPECT_EQ(first_mismatch(back.data(), bytes, 21), bytes);
}

// The staging policy from the environment: sizes in KiB (at least 4 for a buffer) and a count
// from 2 to 64; a value that is not one leaves the default.
TEST(PageableDefaults, StagingPolicyFromTheEnvironment) {
  const queues::CopyPolicy def;
  setenv("KFDRT_STAGING_BUFFERS", "6", 1);
  setenv("KFDRT_STAGING_CHUNK_KIB", "256", 1);
  setenv("KFDRT_STAGING_DRAIN_KIB", "64", 1);
  setenv("KFDRT_USERPTR_MIN_KIB", "4096", 1);
  const queues::CopyPolicy set = queues::CopyPolicy::from_env();
  setenv("KFDRT_STAGING_BUFFERS", "1", 1);
  setenv("KFDRT_STAGING_CHUNK_KIB", "2", 1);
  setenv("KFDRT_STAGING_DRAIN_KIB", "1M", 1);
  setenv("KFDRT_USERPTR_MIN_KIB", "-1", 1);
  const queues::CopyPolicy bad = queues::CopyPolicy::from_env();
  for (const char* v : {"KFDRT_STAGING_BUFFERS", "KFDRT_STAGING_CHUNK_KIB", "KFDRT_STAGING_DRAIN_KIB",
                        "KFDRT_USERPTR_MIN_KIB"})
    unsetenv(v);
  EXPECT_EQ(set.staging_buffers, 6u);
  EXPECT_EQ(set.staging_chunk, 256u << 10);
  EXPECT_EQ(set.staging_drain_chunk, 64u << 10);
  EXPECT_EQ(set.userptr_min_bytes, 4096u << 10);
  EXPECT_EQ(bad.staging_buffers, def.staging_buffers);
  EXPECT_EQ(bad.staging_chunk, def.staging_chunk);
  EXPECT_EQ(bad.staging_drain_chunk, def.staging_drain_chunk);
  EXPECT_EQ(bad.userptr_min_bytes, def.userptr_min_bytes);
  // An engine with that policy: a 1 MiB copy shared out over its six 256 KiB buffers toward the
  // device, in 64 KiB pieces from it.
  auto e = engine(CopyPath::Sdma, 0, set);
  ASSERT_TRUE(e);
  if (!has(*e, CopyPath::Sdma)) GTEST_SKIP() << "SDMA not available";
  std::vector<uint8_t> src(kMiB), back(kMiB);
  fill_pattern(src.data(), kMiB, 5);
  Mem dev = Mem::device(kMiB);
  ASSERT_OK(run([&](auto o) { return e->copy_from_pageable(dev.va(), src.data(), kMiB, o); }));
  EXPECT_EQ(e->stats().staged_chunks, 6u) << "1 MiB in six buffers of 256 KiB: 5 x 172 KiB + 164 KiB";
  EXPECT_EQ(e->stats().userptr_copies, 0u) << "1 MiB is under the 4 MiB registration threshold";
  ASSERT_OK(run([&](auto o) { return e->copy_to_pageable(back.data(), dev.va(), kMiB, o); }));
  EXPECT_EQ(e->stats().staged_chunks, 6u + 16u) << "1 MiB from the device in 64 KiB pieces";
  EXPECT_EQ(first_mismatch(back.data(), kMiB, 5), kMiB);
}

INSTANTIATE_TEST_SUITE_P(Paths, Pageable,
                         testing::Values(PageableCase{CopyPath::Sdma, false}, PageableCase{CopyPath::Blit, false},
                                         PageableCase{CopyPath::Sdma, true}, PageableCase{CopyPath::Blit, true}),
                         [](const testing::TestParamInfo<PageableCase>& i) {
                           return std::string(i.param.path == CopyPath::Sdma ? "Sdma" : "Blit") +
                                  (i.param.registered ? "Registered" : "Staged");
                         });

}  // namespace
