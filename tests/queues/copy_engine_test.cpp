// SPDX-License-Identifier: MIT
// The copy engine on each path (SDMA, blit kernels): every copy kind and fill width, memmove, rectangles, order.
#include <algorithm>
#include <thread>

#include "copy_test_util.h"

namespace {

using namespace ctest;
using queues::CopyPath;

constexpr uint64_t kMiB = 1u << 20;

class CopyPaths : public testing::TestWithParam<CopyPath> {
 protected:
  void SetUp() override {
    e_ = engine(GetParam());
    ASSERT_TRUE(e_);
    if (!has(*e_, GetParam())) GTEST_SKIP() << queues::copy_path_name(GetParam()) << " not available on this GPU/build";
  }
  // The ops the forced path ran since `before` (the other path only takes what this one cannot).
  uint64_t ops_on_path(const queues::CopyStats& before) const {
    const queues::CopyStats s = e_->stats();
    return GetParam() == CopyPath::Sdma ? s.sdma_ops - before.sdma_ops : s.blit_ops - before.blit_ops;
  }
  std::unique_ptr<queues::CopyEngine> e_;
};

// H2D, D2D and D2H at 1 B, 4 KiB - 1, 4 MiB + 3 (more than one SDMA COPY_LINEAR) and 256 MiB,
// with unaligned offsets on every side; the host result is compared byte for byte, and bytes
// around the destination range keep their old value.
TEST_P(CopyPaths, CopiesEveryDirectionAtEverySize) {
  struct Case {
    uint64_t bytes;
    uint32_t src_off, dev_off, dev2_off, dst_off;
  };
  const Case cases[] = {{1, 0, 0, 0, 0},           {1, 3, 1, 2, 5},         {4095, 0, 0, 0, 0},
                        {4095, 1, 3, 2, 7},        {4 * kMiB + 3, 0, 0, 0, 0}, {4 * kMiB + 3, 5, 1, 3, 2},
                        {256 * kMiB, 0, 0, 0, 0},  {256 * kMiB, 3, 1, 0, 6}};
  for (const Case& c : cases) {
    SCOPED_TRACE("bytes " + std::to_string(c.bytes) + ", offsets " + std::to_string(c.src_off) + "/" +
                 std::to_string(c.dev_off) + "/" + std::to_string(c.dev2_off) + "/" + std::to_string(c.dst_off));
    const uint64_t n = c.bytes + 64;
    Mem src = Mem::host(n), a = Mem::device(n), b = Mem::device(n), dst = Mem::host(n);
    ASSERT_TRUE(src && a && b && dst);
    fill_pattern(src.bytes() + c.src_off, c.bytes, uint32_t(c.bytes));
    std::memset(dst.bytes(), 0xEE, n);
    const queues::CopyStats before = e_->stats();
    ASSERT_OK(run([&](auto o) { return e_->copy(a.va(c.dev_off), src.va(c.src_off), c.bytes, o); }));
    ASSERT_OK(run([&](auto o) { return e_->copy(b.va(c.dev2_off), a.va(c.dev_off), c.bytes, o); }));
    ASSERT_OK(run([&](auto o) { return e_->copy(dst.va(c.dst_off), b.va(c.dev2_off), c.bytes, o); }));
    EXPECT_EQ(ops_on_path(before), 3u);
    EXPECT_EQ(first_mismatch(dst.bytes() + c.dst_off, c.bytes, uint32_t(c.bytes)), c.bytes);
    for (uint64_t i = 0; i < c.dst_off; ++i) ASSERT_EQ(dst.bytes()[i], 0xEE) << "byte " << i << " before the range";
    for (uint64_t i = c.dst_off + c.bytes; i < n; ++i) ASSERT_EQ(dst.bytes()[i], 0xEE) << "byte " << i << " after it";
  }
}

// hipMemsetD8/D16/D32 widths at every alignment: inside the range each element holds the value,
// outside the old bytes stay.
TEST_P(CopyPaths, FillsEveryWidthAtEveryAlignment) {
  struct Case {
    unsigned width;
    uint64_t bytes;
    uint32_t off;
  };
  std::vector<Case> cases;
  for (unsigned w : {1u, 2u, 4u})
    for (uint64_t bytes : {uint64_t(1), uint64_t(4095), 4 * kMiB + 3})
      for (uint32_t off : {0u, 1u, 2u, 3u})  // wider values at unaligned addresses too
        if (bytes / w) cases.push_back({w, bytes / w * w, off});
  cases.push_back({1, 256 * kMiB, 3});
  cases.push_back({4, 256 * kMiB, 0});
  for (const Case& c : cases) {
    SCOPED_TRACE("width " + std::to_string(c.width) + ", bytes " + std::to_string(c.bytes) + ", offset " +
                 std::to_string(c.off));
    const uint64_t n = c.bytes + 16;
    Mem host = Mem::host(n), dev = Mem::device(n);
    ASSERT_TRUE(host && dev);
    fill_pattern(host.bytes(), n, 7);
    ASSERT_OK(run([&](auto o) { return e_->copy(dev.va(), host.va(), n, o); }));
    const uint32_t value = 0xA1B2C3D4u;
    ASSERT_OK(run([&](auto o) { return e_->fill(dev.va(c.off), value, c.width, c.bytes / c.width, o); }));
    std::memset(host.bytes(), 0, n);
    ASSERT_OK(run([&](auto o) { return e_->copy(host.va(), dev.va(), n, o); }));
    for (uint64_t i = 0; i < n; ++i) {
      const bool in = i >= c.off && i < c.off + c.bytes;
      const uint8_t want = in ? uint8_t(value >> (8 * ((i - c.off) % c.width))) : pattern(i, 7);
      ASSERT_EQ(host.bytes()[i], want) << "byte " << i << (in ? " inside" : " outside") << " the fill";
    }
  }
}

// Overlapping ranges of one buffer move as memmove moves them: up and down, by a byte (through
// the temp buffer, crossing its chunks) and by megabytes (in place, a distance at a time).
TEST_P(CopyPaths, MovesOverlappingRangesAsMemmove) {
  const uint64_t n = 16 * kMiB;
  struct Case {
    uint64_t dst, src, bytes;
  };
  const Case cases[] = {{1, 0, 10 * kMiB + 5}, {0, 1, 10 * kMiB + 5}, {5 * kMiB, 3, 9 * kMiB},
                        {3, 5 * kMiB + 1, 9 * kMiB}, {100 * 1024 + 1, 0, 8 * kMiB}, {0, 100, 200},
                        {7, 0, 1}};
  Mem host = Mem::host(n), dev = Mem::device(n);
  ASSERT_TRUE(host && dev);
  std::vector<uint8_t> want(n);
  for (const Case& c : cases) {
    SCOPED_TRACE("memmove(+" + std::to_string(c.dst) + ", +" + std::to_string(c.src) + ", " + std::to_string(c.bytes) + ")");
    fill_pattern(host.bytes(), n, uint32_t(c.dst + c.src));
    std::memcpy(want.data(), host.bytes(), n);
    std::memmove(want.data() + c.dst, want.data() + c.src, c.bytes);
    ASSERT_OK(run([&](auto o) { return e_->copy(dev.va(), host.va(), n, o); }));
    ASSERT_OK(run([&](auto o) { return e_->copy(dev.va(c.dst), dev.va(c.src), c.bytes, o); }));
    std::memset(host.bytes(), 0, n);
    ASSERT_OK(run([&](auto o) { return e_->copy(host.va(), dev.va(), n, o); }));
    const auto mm = std::mismatch(want.begin(), want.end(), host.bytes());
    EXPECT_EQ(mm.first, want.end()) << "first difference at byte " << (mm.first - want.begin());
  }
}

// 2-D and 3-D rectangles host -> device -> device -> host, against the CPU's copy: dword-aligned
// pitches (SDMA's COPY_LINEAR_RECT, tiled past its 14-bit width) and odd ones (row by row).
TEST_P(CopyPaths, CopiesRectangles) {
  struct Case {
    uint64_t width, height, depth, pitch, off;
  };
  const Case cases[] = {{100, 20, 1, 128, 0}, {33, 17, 1, 35, 1}, {64, 8, 3, 64, 4},
                        {70001, 3, 2, 70004, 3}, {4, 20000, 1, 8, 0}, {1, 1, 1, 1, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.width) + "x" + std::to_string(c.height) + "x" + std::to_string(c.depth) +
                 " pitch " + std::to_string(c.pitch) + " offset " + std::to_string(c.off));
    const uint64_t slice = c.pitch * c.height + 8;
    const uint64_t dpitch = c.width + 5, dslice = dpitch * c.height;  // another layout on the device
    const uint64_t n = std::max(slice, dslice) * c.depth + c.off + 64;
    Mem src = Mem::host(n), dev = Mem::device(n), dev2 = Mem::device(n), dst = Mem::host(n);
    ASSERT_TRUE(src && dev && dev2 && dst);
    fill_pattern(src.bytes(), n, 11);
    std::memset(dst.bytes(), 0, n);
    queues::CopyRect r;
    r.width = c.width;
    r.height = uint32_t(c.height);
    r.depth = uint32_t(c.depth);
    r.src = src.va(c.off), r.src_pitch = c.pitch, r.src_slice = slice;
    r.dst = dev.va(1), r.dst_pitch = dpitch, r.dst_slice = dslice;
    ASSERT_OK(run([&](auto o) { return e_->copy_rect(r, o); }));
    queues::CopyRect r2 = r;
    r2.src = dev.va(1), r2.src_pitch = dpitch, r2.src_slice = dslice;
    r2.dst = dev2.va(2), r2.dst_pitch = dpitch, r2.dst_slice = dslice;
    ASSERT_OK(run([&](auto o) { return e_->copy_rect(r2, o); }));
    queues::CopyRect r3 = r;
    r3.src = dev2.va(2), r3.src_pitch = dpitch, r3.src_slice = dslice;
    r3.dst = dst.va(c.off), r3.dst_pitch = c.pitch, r3.dst_slice = slice;
    ASSERT_OK(run([&](auto o) { return e_->copy_rect(r3, o); }));
    for (uint64_t z = 0; z < c.depth; ++z)
      for (uint64_t y = 0; y < c.height; ++y) {
        const uint64_t at = c.off + z * slice + y * c.pitch;
        ASSERT_EQ(std::memcmp(dst.bytes() + at, src.bytes() + at, c.width), 0) << "row " << y << " of slice " << z;
        if (c.pitch > c.width) { ASSERT_EQ(dst.bytes()[at + c.width], 0) << "byte after row " << y << " of slice " << z; }
      }
  }
}

// Operations wait on the device for the signals they are given: a chain gated by a signal the
// host holds does not move until the host lets it, then runs in order to the end.
TEST_P(CopyPaths, RunsAChainInTheOrderItsSignalsGive) {
  const uint64_t n = 3 * kMiB + 1;
  Mem h1 = Mem::host(n), x = Mem::device(n), y = Mem::device(n), h2 = Mem::host(n);
  ASSERT_TRUE(h1 && x && y && h2);
  fill_pattern(h1.bytes(), n, 21);
  std::memset(h2.bytes(), 0, n);
  auto gate = qtest::make_signal(1);
  Done d1, d2, d3;
  const queues::CopyWait g{gate->handle(), queues::Cond::Eq, 0};
  const queues::CopyWait w1 = d1.after(), w2 = d2.after();
  ASSERT_OK(e_->copy(x.va(), h1.va(), n, d1.order({&g, 1})));
  ASSERT_OK(e_->copy(y.va(), x.va(), n, d2.order({&w1, 1})));
  ASSERT_OK(e_->copy(h2.va(), y.va(), n, d3.order({&w2, 1})));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(d1.s->load(), 1);
  EXPECT_EQ(d3.s->load(), 1);
  EXPECT_EQ(h2.bytes()[0], 0);
  gate->store(0);
  ASSERT_OK(d3.wait());
  EXPECT_EQ(d1.s->load(), 0);
  EXPECT_EQ(d2.s->load(), 0);
  EXPECT_EQ(first_mismatch(h2.bytes(), n, 21), n);
}

// A "less than" wait on a counting signal (a stream timeline counts down).
TEST_P(CopyPaths, WaitsForACountingSignalToDropBelowAValue) {
  Mem h1 = Mem::host(4096), h2 = Mem::host(4096);
  ASSERT_TRUE(h1 && h2);
  fill_pattern(h1.bytes(), 4096, 3);
  std::memset(h2.bytes(), 0, 4096);
  auto counter = qtest::make_signal(10);
  const queues::CopyWait w{counter->handle(), queues::Cond::Lt, 8};
  Done d;
  ASSERT_OK(e_->copy(h2.va(), h1.va(), 4096, d.order({&w, 1})));
  counter->store(9);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(d.s->load(), 1);
  counter->store(7);
  ASSERT_OK(d.wait());
  EXPECT_EQ(first_mismatch(h2.bytes(), 4096, 3), 4096u);
}

// Zero-byte operations and copies onto themselves still wait and complete their signal.
TEST_P(CopyPaths, EmptyOperationsStillWaitAndComplete) {
  Mem m = Mem::device(4096);
  auto gate = qtest::make_signal(1);
  const queues::CopyWait g{gate->handle(), queues::Cond::Eq, 0};
  Done d1, d2, d3;
  ASSERT_OK(e_->copy(m.va(), m.va(8), 0, d1.order({&g, 1})));
  ASSERT_OK(e_->copy(m.va(), m.va(), 100, d2.order({&g, 1})));
  ASSERT_OK(e_->fill(m.va(), 0, 4, 0, d3.order({&g, 1})));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(d1.s->load() + d2.s->load() + d3.s->load(), 3);
  gate->store(0);
  EXPECT_OK(d1.wait());
  EXPECT_OK(d2.wait());
  EXPECT_OK(d3.wait());
  EXPECT_OK(e_->wait_idle(60s));
}

INSTANTIATE_TEST_SUITE_P(Paths, CopyPaths, testing::Values(CopyPath::Sdma, CopyPath::Blit), path_name);

// A chain alternating between the two paths (two engines of one GPU): signals order them.
TEST(CopyEngine, OrdersAChainAcrossBothPaths) {
  auto s = engine(CopyPath::Sdma), b = engine(CopyPath::Blit);
  ASSERT_TRUE(s && b);
  if (!s->has_sdma() || !b->has_blit()) GTEST_SKIP() << "needs both SDMA and blit kernels";
  const uint64_t n = 2 * kMiB + 7;
  Mem h = Mem::host(n), x = Mem::device(n), y = Mem::device(n), z = Mem::device(n), out = Mem::host(n);
  fill_pattern(h.bytes(), n, 5);
  auto gate = qtest::make_signal(1);
  Done d[4];
  const queues::CopyWait g{gate->handle(), queues::Cond::Eq, 0};
  const queues::CopyWait w0 = d[0].after(), w1 = d[1].after(), w2 = d[2].after();
  ASSERT_OK(s->copy(x.va(), h.va(), n, d[0].order({&g, 1})));
  ASSERT_OK(b->copy(y.va(), x.va(), n, d[1].order({&w0, 1})));
  ASSERT_OK(s->copy(z.va(), y.va(), n, d[2].order({&w1, 1})));
  ASSERT_OK(b->copy(out.va(), z.va(), n, d[3].order({&w2, 1})));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(d[3].s->load(), 1);
  gate->store(0);
  ASSERT_OK(d[3].wait());
  EXPECT_EQ(first_mismatch(out.bytes(), n, 5), n);
}

// Addresses outside every allocation, or past an allocation's end, are refused before any
// engine sees them, with the address in the message.
TEST(CopyEngine, RefusesAnAddressNoAllocationHoldsNamingIt) {
  auto e = engine(CopyPath::Auto);
  ASSERT_TRUE(e);
  Mem m = Mem::device(8192);
  const uint64_t bogus = 0x7123450000ull;
  auto r = e->copy(bogus, m.va(), 16);
  EXPECT_EQ(r.err(), EFAULT);
  EXPECT_NE(r.message().find(base::hex(bogus)), std::string::npos) << r.message();
  r = e->copy(m.va(), bogus + 8, 16);
  EXPECT_NE(r.message().find(base::hex(bogus + 8)), std::string::npos) << r.message();
  r = e->copy(m.va(8000), m.va(), 400);
  EXPECT_EQ(r.err(), EFAULT);
  EXPECT_NE(r.message().find("runs past the end"), std::string::npos) << r.message();
  EXPECT_EQ(e->fill(m.va(), 0, 3, 4).err(), EINVAL);
  EXPECT_EQ(e->fill(bogus, 0, 4, 4).err(), EFAULT);
  queues::CopyRect rect;
  rect.src = m.va(), rect.dst = m.va(4096), rect.width = 64, rect.height = 2, rect.src_pitch = 32, rect.dst_pitch = 64;
  EXPECT_EQ(e->copy_rect(rect).err(), EINVAL);  // pitch below the width
  // Nothing was submitted, and the engine still works.
  Mem h = Mem::host(4096);
  EXPECT_OK(run([&](auto o) { return e->copy(m.va(), h.va(), 4096, o); }));
}

// Auto routing: host copies of every size on SDMA (KFDRT_FORCE_BLIT_COPY_SIZE sends the smaller
// ones to blit kernels); device-to-device on blit kernels; KFDRT_SDMA=0 keeps everything off SDMA.
TEST(CopyEngine, RoutesByKindAndSize) {
  auto e = engine(CopyPath::Auto);
  ASSERT_TRUE(e);
  if (!e->has_sdma() || !e->has_blit()) GTEST_SKIP() << "needs both SDMA and blit kernels";
  Mem h = Mem::host(2 * kMiB), d = Mem::device(2 * kMiB), d2 = Mem::device(2 * kMiB);
  EXPECT_EQ(*e->route_copy(d.va(), h.va(), 4096), CopyPath::Sdma);
  EXPECT_EQ(*e->route_copy(h.va(), d.va(), 1), CopyPath::Sdma);
  EXPECT_EQ(*e->route_copy(d.va(), h.va(), 2 * kMiB), CopyPath::Sdma);
  EXPECT_EQ(*e->route_copy(h.va(), d.va(), 2 * kMiB), CopyPath::Sdma);
  EXPECT_EQ(*e->route_copy(d2.va(), d.va(), 2 * kMiB), CopyPath::Blit);
  setenv("KFDRT_SDMA", "0", 1);
  const queues::CopyPolicy off = queues::CopyPolicy::from_env();
  setenv("KFDRT_SDMA", "1", 1);
  const queues::CopyPolicy on = queues::CopyPolicy::from_env();
  unsetenv("KFDRT_SDMA");
  auto no_sdma = queues::CopyEngine::create(rt(), gpu_dev(), off);
  ASSERT_TRUE(no_sdma.ok());
  EXPECT_FALSE((*no_sdma)->has_sdma());
  EXPECT_EQ(*(*no_sdma)->route_copy(d.va(), h.va(), 2 * kMiB), CopyPath::Blit);
  auto all_sdma = queues::CopyEngine::create(rt(), gpu_dev(), on);
  ASSERT_TRUE(all_sdma.ok());
  EXPECT_EQ(*(*all_sdma)->route_copy(d2.va(), d.va(), 4096), CopyPath::Sdma);
  // Host copies under 64 KiB on blit kernels, from 64 KiB on SDMA; a value that is not a size
  // leaves the default.
  setenv("KFDRT_FORCE_BLIT_COPY_SIZE", "64", 1);
  const queues::CopyPolicy small_blit = queues::CopyPolicy::from_env();
  setenv("KFDRT_FORCE_BLIT_COPY_SIZE", "64K", 1);
  const queues::CopyPolicy bad = queues::CopyPolicy::from_env();
  unsetenv("KFDRT_FORCE_BLIT_COPY_SIZE");
  EXPECT_EQ(small_blit.sdma_min_bytes, 64u << 10);
  EXPECT_EQ(bad.sdma_min_bytes, 0u);
  auto threshold = queues::CopyEngine::create(rt(), gpu_dev(), small_blit);
  ASSERT_TRUE(threshold.ok());
  EXPECT_EQ(*(*threshold)->route_copy(d.va(), h.va(), (64u << 10) - 1), CopyPath::Blit);
  EXPECT_EQ(*(*threshold)->route_copy(h.va(), d.va(), 64u << 10), CopyPath::Sdma);
  EXPECT_EQ(*(*threshold)->route_copy(d2.va(), d.va(), 2 * kMiB), CopyPath::Blit);
}

// The runtime's shared engine per GPU.
TEST(CopyEngine, RuntimeSharesOneEnginePerGpu) {
  auto a = rt().copy_engine(), b = rt().copy_engine(gpu_dev().gpu_id);
  ASSERT_TRUE(a.ok()) << a.message();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(&(*a)->gpu(), &gpu_dev());
  EXPECT_EQ(rt().copy_engine(0xdead).err(), ENODEV);
}

// Peer copies (two GPUs): GPU 0's engine moves its VRAM into GPU 1's and back.
TEST(CopyEngine, CopiesBetweenTwoGpus) {
  if (rt().gpus().size() < 2) GTEST_SKIP() << "needs two GPUs (KFDEMU_GPUS=2 under the emulator)";
  for (CopyPath p : {CopyPath::Sdma, CopyPath::Blit}) {
    auto e = engine(p);
    ASSERT_TRUE(e);
    if (!has(*e, p)) continue;
    SCOPED_TRACE(queues::copy_path_name(p));
    const uint64_t n = 5 * kMiB + 3;
    Mem h = Mem::host(n), mine = Mem::device(n, 0, true), peer = Mem::device(n, 1, true), out = Mem::host(n);
    fill_pattern(h.bytes(), n, 9);
    ASSERT_OK(run([&](auto o) { return e->copy(mine.va(), h.va(), n, o); }));
    ASSERT_OK(run([&](auto o) { return e->copy(peer.va(1), mine.va(), n - 1, o); }));
    ASSERT_OK(run([&](auto o) { return e->copy(out.va(), peer.va(1), n - 1, o); }));
    EXPECT_EQ(first_mismatch(out.bytes(), n - 1, 9), n - 1);
  }
}

}  // namespace
