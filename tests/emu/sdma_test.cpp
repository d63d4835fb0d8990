// SPDX-License-Identifier: MIT
// The SDMA engines on raw SDMA queues made with CREATE_QUEUE: every packet ROCm and kfdtest use, ring wrap, polls that do not hold an engine, concurrent queues, errors and page faults on each engine.
#include <dirent.h>
#include <unistd.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <sched.h>
#include <gtest/gtest.h>

#include <cstring>
#include <chrono>
#include <cerrno>
#include <string>
#include <fstream>
#include <set>
#include <random>
#include <thread>

#include "emu/control.h"
#include "pm4/family.h"
#include "pm4/sdma.h"
#include "pm4/type3.h"
#include "tests/emu/engine_util.h"

namespace engtest {
namespace {

namespace sd = pm4::sdma;
using Dw = std::vector<uint32_t>;
constexpr uint32_t kSdma = KFD_IOC_QUEUE_TYPE_SDMA;
constexpr uint32_t kXgmi = KFD_IOC_QUEUE_TYPE_SDMA_XGMI;

Dw& operator+=(Dw& a, const Dw& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
Dw operator+(Dw a, const Dw& b) { return a += b; }

template <class F>
Dw emit(size_t max, F f) {
  Dw v(max);
  v.resize(f(v.data()));
  return v;
}

uint64_t va(const void* p) { return reinterpret_cast<uint64_t>(p); }

class Sdma : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (HasFatalFailure()) return;
    family_ = pm4::family_for(gpu0().node->props.gfx_target_version);
    ASSERT_NE(family_, nullptr);
  }
  // COPY_LINEAR packets for a copy of any size, chunked at the family's limit.
  Dw copy(uint64_t dst, uint64_t src, uint64_t bytes) {
    Dw v;
    for (uint64_t o = 0; o < bytes; o += family_->sdma_max_copy_bytes) {
      sd::CopyLinear c;
      c.src = src + o;
      c.dst = dst + o;
      c.bytes = uint32_t(std::min<uint64_t>(family_->sdma_max_copy_bytes, bytes - o));
      v += emit(sd::kCopyLinearDwords, [&](uint32_t* out) { return sd::write_copy_linear(out, c); });
    }
    return v;
  }
  static Dw fence(const void* p, uint32_t value) {
    return emit(sd::kFenceDwords, [&](uint32_t* o) { return sd::write_fence(o, va(p), value); });
  }
  static Dw poll(const void* p, uint32_t value, uint32_t retry = 0xFFF) {
    sd::PollRegMem r;
    r.address = va(p);
    r.value = value;
    r.retry = retry;
    return emit(sd::kPollRegMemDwords, [&](uint32_t* o) { return sd::write_poll_regmem(o, r); });
  }
  // Waits for a 32-bit fence value.
  static bool fenced(const uint32_t* f, uint32_t v) {
    return eventually([&] { return __atomic_load_n(f, __ATOMIC_ACQUIRE) == v; });
  }
  const pm4::Family* family_ = nullptr;
};

TEST_F(Sdma, CopyLinearCopiesAndFenceSignals) {
  RawQueue& q = queue(kSdma, 65536);
  const size_t n = (8u << 20) + 12345;  // more than one packet's worth
  auto* a = host<uint8_t>(n, Kind::Vram);
  auto* b = host<uint8_t>(n);
  auto* f = host<uint32_t>(1);
  std::mt19937 rng(3);
  for (size_t i = 0; i < n; i += 4) { uint32_t r = rng(); std::memcpy(a + i, &r, std::min<size_t>(4, n - i)); }
  q.submit(copy(va(b), va(a), n) + fence(f, 0x600d));
  ASSERT_TRUE(fenced(f, 0x600d));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(std::memcmp(a, b, n), 0);
  EXPECT_EQ(q.rptr(), q.wptr()) << "the read pointer is 64-bit bytes, like the write pointer";
}

// The engines' statistics count what this queue ran: copies with their bytes, fills, packets.
TEST_F(Sdma, StatsCountTheEnginesWork) {
  // The emulator is preloaded, not linked: its control functions are found at run time.
  auto get_stats = reinterpret_cast<void (*)(kfdemu_stats*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_stats"));
  ASSERT_NE(get_stats, nullptr) << "kfdemu_get_stats: the emulator is not loaded";
  kfdemu_stats before{}, after{};
  get_stats(&before);
  RawQueue& q = queue(kSdma);
  const size_t n = 3u << 20;
  auto* a = host<uint8_t>(n, Kind::Vram);
  auto* b = host<uint8_t>(n);
  auto* f = host<uint32_t>(1);
  sd::ConstFill fill;
  fill.dst = va(a);
  fill.data = 0x5a5a5a5a;
  fill.bytes = 4096;
  q.submit(emit(sd::kConstFillDwords, [&](uint32_t* o) { return sd::write_const_fill(o, fill); }) +
           copy(va(b), va(a), n) + fence(f, 7));
  ASSERT_TRUE(fenced(f, 7));
  ASSERT_TRUE(q.wait_consumed());
  get_stats(&after);
  EXPECT_EQ(after.queues_sdma - before.queues_sdma, 1u);
  EXPECT_EQ(after.sdma_fills - before.sdma_fills, 1u);
  EXPECT_EQ(after.sdma_copies - before.sdma_copies, copy(0, 0, n).size() / sd::kCopyLinearDwords);
  EXPECT_EQ(after.sdma_copy_bytes - before.sdma_copy_bytes, n);
  EXPECT_GE(after.sdma_packets - before.sdma_packets, 3u);
  EXPECT_EQ(after.aql_dispatches, before.aql_dispatches) << "no kernel ran";
}

// The engine keeps a copy in the host's caches while the bytes its recent copies and this one
// touch fit the cache it was given (KFDEMU_SDMA_STREAM_MIB: 12 MiB in this test's own process),
// and streams it past them once they do not; pieces under 1 MiB stay cached.
TEST_F(Sdma, CopiesStreamOnceTheirFootprintOutgrowsTheCache) {
  const char* t = std::getenv("KFDEMU_SDMA_STREAM_MIB");
  if (!t || std::string(t) != "12") GTEST_SKIP() << "run by the suite in a process of its own with KFDEMU_SDMA_STREAM_MIB=12";
  auto get_stats = reinterpret_cast<void (*)(kfdemu_stats*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_stats"));
  ASSERT_NE(get_stats, nullptr) << "kfdemu_get_stats: the emulator is not loaded";
  RawQueue& q = queue(kSdma, 65536);
  const size_t n = 3u << 20;
  uint8_t* buf[4];
  for (int i = 0; i < 4; ++i) {
    buf[i] = host<uint8_t>(n, i % 2 ? Kind::Gtt : Kind::Vram);
    std::memset(buf[i], 0x10 * (i + 1), n);
  }
  auto* f = host<uint32_t>(1);
  uint32_t fence_value = 0;
  auto streamed = [&](uint8_t* dst, const uint8_t* src, size_t bytes) -> uint64_t {
    kfdemu_stats before{}, after{};
    get_stats(&before);
    q.submit(copy(va(dst), va(src), bytes) + fence(f, ++fence_value));
    EXPECT_TRUE(fenced(f, fence_value));
    EXPECT_EQ(std::memcmp(dst, src, bytes), 0);
    get_stats(&after);
    return after.sdma_streamed_bytes - before.sdma_streamed_bytes;
  };
  for (int i = 0; i < 3; ++i) EXPECT_EQ(streamed(buf[1], buf[0], n), 0u) << "6 MiB touched: cached (copy " << i << ")";
  EXPECT_EQ(streamed(buf[3], buf[2], n), n) << "12 MiB touched with the last copies: streamed";
  EXPECT_EQ(streamed(buf[2], buf[0], 512u << 10), 0u) << "a 512 KiB piece stays cached";
}

// Copies from 2 MiB up (KFDEMU_SDMA_STREAM_MIB=2 in the suite) stream past the host's caches with
// the widest non-temporal stores the CPU has (KFDEMU_SDMA_STORES narrows them: the suite runs this
// under each form): every byte
// arrives at any alignment of either end and any length, and no byte around the destination moves.
TEST_F(Sdma, StreamedCopiesAtAnyAlignmentWriteOnlyTheirBytes) {
  RawQueue& q = queue(kSdma, 65536);
  constexpr size_t kSpan = 5u << 20, kGuard = 4096;
  auto* a = host<uint8_t>(kSpan, Kind::Vram);
  auto* b = host<uint8_t>(kSpan + 2 * kGuard);
  auto* f = host<uint32_t>(1);
  std::mt19937 rng(11);
  for (size_t i = 0; i < kSpan; i += 4) {
    const uint32_t r = rng();
    std::memcpy(a + i, &r, 4);
  }
  uint32_t fence_value = 0;
  for (size_t src_off : {0, 1, 17, 64, 255})
    for (size_t dst_off : {0, 3, 32, 63})
      for (size_t n : {size_t(2u << 20), size_t(2u << 20) + 255, size_t(3u << 20) + 77, size_t(4u << 20) + 77}) {
        std::memset(b, 0xEE, kSpan + 2 * kGuard);
        uint8_t* d = b + kGuard + dst_off;
        q.submit(copy(va(d), va(a + src_off), n) + fence(f, ++fence_value));
        ASSERT_TRUE(fenced(f, fence_value));
        ASSERT_EQ(std::memcmp(d, a + src_off, n), 0) << "src +" << src_off << " dst +" << dst_off << ", " << n << " bytes";
        for (uint8_t* p = b; p < d; ++p) ASSERT_EQ(*p, 0xEE) << "byte " << (d - p) << " before the destination";
        for (uint8_t* p = d + n; p < b + kSpan + 2 * kGuard; ++p)
          ASSERT_EQ(*p, 0xEE) << "byte " << (p - d - n) << " after the destination";
      }
}

// Overlapping with the destination above the source: the engine copies forward.
TEST_F(Sdma, OverlappingCopyIsAForwardCopy) {
  RawQueue& q = queue(kSdma);
  auto* o = host<uint8_t>(256);
  uint8_t expect[256];
  for (int i = 0; i < 256; ++i) o[i] = expect[i] = uint8_t(i * 5);
  for (int i = 0; i < 200; ++i) expect[7 + i] = expect[i];
  q.submit(copy(va(o) + 7, va(o), 200));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(std::memcmp(o, expect, 256), 0);
}

TEST_F(Sdma, CopyLinearRectCopiesASubBox) {
  RawQueue& q = queue(kSdma);
  // 4-byte elements; source 40x30x4 elements, destination 50x20x3; box 13x7x2.
  const uint32_t spitch = 40, sslice = 40 * 30, dpitch = 50, dslice = 50 * 20;
  auto* src = host<uint32_t>(sslice * 4);
  auto* dst = host<uint32_t>(dslice * 3);
  for (uint32_t i = 0; i < sslice * 4; ++i) src[i] = i + 1;
  sd::CopyRect r;
  r.element_log2 = 2;
  r.src = va(src), r.dst = va(dst);
  r.src_x = 5, r.src_y = 3, r.src_z = 1, r.dst_x = 2, r.dst_y = 4, r.dst_z = 0;
  r.src_pitch = spitch, r.dst_pitch = dpitch, r.src_slice = sslice, r.dst_slice = dslice;
  r.width = 13, r.height = 7, r.depth = 2;
  q.submit(emit(sd::kCopyLinearRectDwords, [&](uint32_t* o) { return sd::write_copy_rect(o, r); }));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t z = 0; z < 3; ++z)
    for (uint32_t y = 0; y < 20; ++y)
      for (uint32_t x = 0; x < 50; ++x) {
        const bool in = z < 2 && y >= 4 && y < 11 && x >= 2 && x < 15;
        const uint32_t want = in ? src[(z + 1) * sslice + (y - 4 + 3) * spitch + (x - 2 + 5)] : 0;
        ASSERT_EQ(dst[z * dslice + y * dpitch + x], want) << x << "," << y << "," << z;
      }
}

TEST_F(Sdma, WriteUntiledAndConstantFills) {
  RawQueue& q = queue(kSdma);
  auto* w = host<uint32_t>(8);
  auto* f = host<uint8_t>(4096);
  Dw data = {11, 22, 33};
  Dw p = emit(7, [&](uint32_t* o) { return sd::write_write_untiled(o, va(w + 2), data); });
  auto fill = [&](uint64_t dst, uint32_t value, uint32_t bytes, uint32_t size) {
    sd::ConstFill c;
    c.dst = dst, c.data = value, c.bytes = bytes, c.fill_size = size;
    return emit(sd::kConstFillDwords, [&](uint32_t* o) { return sd::write_const_fill(o, c); });
  };
  p += fill(va(f), 0xAABBCCDD, 1024, 2);       // dwords
  p += fill(va(f) + 1024, 0x1234, 512, 1);     // words
  p += fill(va(f) + 1536, 0x7F, 33, 0);        // bytes
  q.submit(p);
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(w[1], 0u);
  EXPECT_EQ(w[2], 11u);
  EXPECT_EQ(w[4], 33u);
  EXPECT_EQ(w[5], 0u);
  for (int i = 0; i < 1024; i += 4) ASSERT_EQ(*reinterpret_cast<uint32_t*>(f + i), 0xAABBCCDDu) << i;
  for (int i = 1024; i < 1536; i += 2) ASSERT_EQ(*reinterpret_cast<uint16_t*>(f + i), 0x1234u) << i;
  for (int i = 1536; i < 1569; ++i) ASSERT_EQ(f[i], 0x7F) << i;
  EXPECT_EQ(f[1569], 0);
}

// ROCr's completion: FENCE the event id into the mailbox, then TRAP with the id.
TEST_F(Sdma, TrapRaisesTheEventItNames) {
  RawQueue& q = queue(kSdma);
  SignalEvent ev = signal_event();
  ASSERT_NE(ev.slot, nullptr);
  q.submit(fence(ev.slot, ev.id) + emit(sd::kTrapDwords, [&](uint32_t* o) { return sd::write_trap(o, ev.id); }));
  EXPECT_EQ(wait_event(ev.id, 10000), kfd::WaitResult::Complete);
}

// A poll that does not hold: the engine serves its other queues meanwhile.
TEST_F(Sdma, PollRegMemWaitsWithoutHoldingTheEngine) {
  RawQueue& q0 = queue(kSdma);
  RawQueue& q1 = queue(kSdma);
  RawQueue& q2 = queue(kSdma);  // slot 2: the same engine as slot 0 (kfd: sdma_id % engines)
  auto* flag = host<uint32_t>(1);
  auto* out = host<uint32_t>(4);
  q0.submit(poll(flag, 3) + fence(out, 1));
  q1.submit(fence(out + 1, 2));
  q2.submit(fence(out + 2, 3));
  ASSERT_TRUE(fenced(out + 1, 2));
  ASSERT_TRUE(fenced(out + 2, 3));
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(q0.rptr(), 0u);
  __atomic_store_n(flag, 3u, __ATOMIC_RELEASE);
  ASSERT_TRUE(fenced(out, 1));
  // ROCr's HDP flush (a register poll that always passes) goes through.
  q1.submit(emit(sd::kPollRegMemDwords, [](uint32_t* o) { return sd::write_hdp_flush(o); }) + fence(out + 3, 4));
  ASSERT_TRUE(fenced(out + 3, 4));
}

TEST_F(Sdma, AtomicsDecrementAndLoopUntilCompare) {
  RawQueue& q = queue(kSdma);
  auto* sig = host<int64_t>(4);
  sig[0] = 1;
  sd::Atomic dec;  // ROCr's completion-signal decrement: ADD64 of -1
  dec.address = va(&sig[0]);
  dec.src = ~0ull;
  sd::Atomic cas;
  cas.op = pm4::kAtomicCmpSwapRtn64;
  cas.loop = true;
  cas.address = va(&sig[1]);
  cas.cmp = 5;
  cas.src = 6;
  auto* out = host<uint32_t>(1);
  q.submit(emit(8, [&](uint32_t* o) { return sd::write_atomic(o, dec); }) +
           emit(8, [&](uint32_t* o) { return sd::write_atomic(o, cas); }) + fence(out, 1));
  ASSERT_TRUE(eventually([&] { return __atomic_load_n(&sig[0], __ATOMIC_ACQUIRE) == 0; }));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(out[0], 0u) << "the compare-swap loop has not been satisfied";
  __atomic_store_n(&sig[1], int64_t(5), __ATOMIC_RELEASE);
  ASSERT_TRUE(fenced(out, 1));
  EXPECT_EQ(sig[1], 6);
}

TEST_F(Sdma, TimestampsCountTheGpuClock) {
  RawQueue& q = queue(kSdma);
  auto* ts = host<uint64_t>(4);
  auto clock = [&] { return kfd().get_clock_counters(gpu0().gpu_id).value().gpu_clock_counter; };
  const uint64_t before = clock();
  Dw p = emit(3, [&](uint32_t* o) { return sd::write_timestamp(o, sd::kSubTimestampGetGlobal, va(&ts[0])); });
  p += emit(3, [&](uint32_t* o) { return sd::write_timestamp(o, sd::kSubTimestampSet, 1000); });  // SET: dw1/2 = value
  p += emit(3, [&](uint32_t* o) { return sd::write_timestamp(o, sd::kSubTimestampGet, va(&ts[1])); });
  q.submit(p);
  ASSERT_TRUE(q.wait_consumed());
  const uint64_t after = clock();
  EXPECT_GE(ts[0], before);
  EXPECT_LE(ts[0], after);
  EXPECT_GE(ts[1], 1000u);
  EXPECT_LT(ts[1], 1000u + (after - before) + 1);
}

TEST_F(Sdma, IndirectBufferRunsAndResumesAfterAPoll) {
  RawQueue& q = queue(kSdma);
  auto* flag = host<uint32_t>(1);
  auto* out = host<uint32_t>(4);
  const Dw body = fence(out, 1) + poll(flag, 1) + fence(out + 1, 2);
  auto* ib = host<uint32_t>(body.size() + 8);  // 4 KiB aligned
  std::memcpy(ib, body.data(), body.size() * 4);
  sd::Indirect b;
  b.address = va(ib);
  b.dwords = uint32_t(body.size());
  q.submit(emit(sd::kIndirectDwords, [&](uint32_t* o) { return sd::write_indirect(o, b); }) + fence(out + 2, 3));
  ASSERT_TRUE(fenced(out, 1));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(out[1], 0u);
  __atomic_store_n(&out[0], 9u, __ATOMIC_RELEASE);
  __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
  ASSERT_TRUE(fenced(out + 2, 3));
  EXPECT_EQ(out[0], 9u) << "the IB restarted";
  EXPECT_EQ(out[1], 2u);
}

TEST_F(Sdma, RingWrapsAndPacketsSpanItsEnd) {
  RawQueue& q = queue(kSdma, 1024);
  auto* out = host<uint32_t>(512);
  q.submit(emit(q.ring_dwords() - 2, [&](uint32_t* o) { return sd::write_nop(o, q.ring_dwords() - 2); }));
  ASSERT_TRUE(q.wait_consumed());
  q.submit(fence(out, 77));  // 4 dwords: 2 before the end, 2 after
  ASSERT_TRUE(fenced(out, 77));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t i = 0; i < 400; i += 10) {  // several laps, 10 packets at a time
    Dw batch;
    for (uint32_t k = 0; k < 10; ++k) batch += fence(out + 100 + i + k, i + k + 1);
    q.submit(batch);
    ASSERT_TRUE(q.wait_consumed());
  }
  for (uint32_t i = 0; i < 400; ++i) ASSERT_EQ(out[100 + i], i + 1) << i;
}

// Queues spread over the engines (PCIe and XGMI) copy at the same time, each its own data.
TEST_F(Sdma, ConcurrentQueuesOnEveryEngine) {
  const auto& props = gpu0().node->props;
  const uint32_t n = std::max(2u, props.num_sdma_engines + props.num_sdma_xgmi_engines);
  const size_t bytes = 4u << 20;
  struct Job { RawQueue* q; uint8_t* src; uint8_t* dst; uint32_t* done; };
  std::vector<Job> jobs;
  for (uint32_t i = 0; i < n; ++i) {
    const bool xgmi = i >= props.num_sdma_engines && props.num_sdma_xgmi_engines;
    Job j{&queue(xgmi ? kXgmi : kSdma, 16384), host<uint8_t>(bytes, Kind::Vram), host<uint8_t>(bytes), host<uint32_t>(1)};
    std::memset(j.src, int(i + 1), bytes);
    jobs.push_back(j);
  }
  for (uint32_t i = 0; i < n; ++i) jobs[i].q->submit(copy(va(jobs[i].dst), va(jobs[i].src), bytes) + fence(jobs[i].done, i + 1));
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_TRUE(fenced(jobs[i].done, i + 1)) << i;
    EXPECT_EQ(std::memcmp(jobs[i].src, jobs[i].dst, bytes), 0) << i;
  }
}

// A bad address on any engine: that queue stops with a MEMORY event naming it, the engine's
// other queues go on.
TEST_F(Sdma, BadAddressOnEachEngineStopsOnlyItsQueue) {
  const auto& props = gpu0().node->props;
  for (uint32_t type : {kSdma, kXgmi}) {
    const uint32_t engines = type == kSdma ? props.num_sdma_engines : props.num_sdma_xgmi_engines;
    std::vector<RawQueue*> bad, good;
    for (uint32_t i = 0; i < engines; ++i) bad.push_back(&queue(type));   // slot i: engine i
    for (uint32_t i = 0; i < engines; ++i) good.push_back(&queue(type));  // slot engines+i: engine i
    for (uint32_t e = 0; e < engines; ++e) {
      const uint32_t mem = memory_event();
      auto* src = host<uint8_t>(8192);
      const uint64_t hole = unmapped_va() + 0x123;
      testing::internal::CaptureStderr();
      bad[e]->submit(copy(hole, va(src), 4096));
      kfd_hsa_memory_exception_data d{};
      const bool got = wait_memory_event(mem, 10000, &d);
      std::this_thread::sleep_for(10ms);
      const std::string log = testing::internal::GetCapturedStderr();
      ASSERT_TRUE(got) << "engine " << e;
      EXPECT_EQ(d.va, hole & ~0xfffull);
      EXPECT_EQ(d.gpu_id, gpu0().gpu_id);
      char hs[24];
      std::snprintf(hs, sizeof hs, "%#llx", (unsigned long long)hole);
      EXPECT_NE(log.find(hs), std::string::npos) << log;
      EXPECT_EQ(bad[e]->rptr(), 0u);
      auto* out = host<uint32_t>(1);
      good[e]->submit(fence(out, 5));
      ASSERT_TRUE(fenced(out, 5)) << "engine " << e << " stopped with its bad queue";
    }
  }
}

TEST_F(Sdma, UnknownOpStopsTheQueueNamingIt) {
  RawQueue& q = queue(kSdma);
  const uint32_t hw = hw_exception_event();
  auto* out = host<uint32_t>(1);
  testing::internal::CaptureStderr();
  q.submit(Dw{3u | 5u << 8, 0, 0} + fence(out, 1));
  const bool raised = wait_event(hw, 10000) == kfd::WaitResult::Complete;
  std::this_thread::sleep_for(20ms);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(raised);
  EXPECT_NE(log.find("unknown SDMA op 3 sub-op 5"), std::string::npos) << log;
  EXPECT_EQ(q.rptr(), 0u);
  EXPECT_EQ(out[0], 0u);
}

TEST_F(Sdma, RegisterPollsAreNotImplemented) {
  RawQueue& q = queue(kSdma);
  sd::PollRegMem r;
  r.mem_poll = false;
  r.address = 0x1234;
  testing::internal::CaptureStderr();
  q.submit(emit(6, [&](uint32_t* o) { return sd::write_poll_regmem(o, r); }));
  std::this_thread::sleep_for(100ms);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("register polls are not implemented"), std::string::npos) << log;
  EXPECT_FALSE(q.consumed());
}

// Destroying queues with polls and copies pending is safe and does not wait for them.
TEST_F(Sdma, DestroyWithPendingWorkIsSafe) {
  auto* flag = host<uint32_t>(1);
  const size_t bytes = 8u << 20;
  auto* a = host<uint8_t>(bytes, Kind::Vram);
  auto* b = host<uint8_t>(bytes, Kind::Vram);
  for (int i = 0; i < 6; ++i) {
    RawQueue& q = queue(kSdma, 65536);
    q.submit(i % 2 ? poll(flag, 1) + copy(va(b), va(a), bytes) : copy(va(b), va(a), bytes) + copy(va(a), va(b), bytes));
  }
  queues_.clear();
  auto* out = host<uint32_t>(1);
  RawQueue& q = queue(kSdma);
  q.submit(fence(out, 1));
  EXPECT_TRUE(fenced(out, 1));
}

// The kfdemu-engine threads of this process (thread ids).
std::set<pid_t> engine_threads() {
  std::set<pid_t> out;
  DIR* d = opendir("/proc/self/task");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    if (std::getline(comm, name) && name == "kfdemu-engine") out.insert(pid_t(std::stoi(e->d_name)));
  }
  closedir(d);
  return out;
}

// An SDMA engine's thread keeps off the CPU of the thread that created it (a DMA engine never
// takes the host's CPU), when the process may use two CPUs or more.
TEST_F(Sdma, EngineThreadRunsOffItsCreatorsCpu) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "one CPU: the engine shares it";
  // A fresh engine made from a thread that stays on one CPU while it makes it: the creator's
  // mask is the whole set (the engine inherits it), and the CPU it ran on is read before and after.
  for (int attempt = 0; attempt < 20; ++attempt) {
    queues_.clear();
    const std::set<pid_t> before = engine_threads();
    const int cpu = sched_getcpu();
    RawQueue& q = queue(kSdma);
    if (sched_getcpu() != cpu) continue;
    auto* out = host<uint32_t>(1);
    q.submit(fence(out, 1));
    ASSERT_TRUE(fenced(out, 1));  // the engine served the queue: its thread set its affinity first
    // The new threads: the SDMA engine's, and the command processor's when the device opened here.
    int fresh = 0, off = 0;
    std::string masks;
    for (pid_t t : engine_threads()) {
      if (before.count(t)) continue;
      ++fresh;
      cpu_set_t set;
      CPU_ZERO(&set);
      ASSERT_EQ(sched_getaffinity(t, sizeof set, &set), 0);
      masks += " " + std::to_string(t) + ":" + std::to_string(CPU_COUNT(&set)) + (CPU_ISSET(cpu, &set) ? "+" : "-");
      if (!CPU_ISSET(cpu, &set) && CPU_COUNT(&set) == CPU_COUNT(&all) - 1) ++off;
    }
    if (fresh == 0) GTEST_SKIP() << "no new SDMA engine thread: the engine outlived its queues";
    // Every new engine thread keeps off that CPU (the command processor too, when this test opened
    // the device).
    EXPECT_EQ(off, fresh) << "new engine threads (id:CPUs, +/- creator's CPU " << cpu << " allowed):" << masks;
    return;
  }
  GTEST_SKIP() << "the test thread kept moving between CPUs";
}

// The command processor's thread, started when /dev/kfd is opened, keeps off the CPU of the
// thread that opened it (a GPU's command processor never takes the host's CPU), when the process
// may use two CPUs or more. Runs in a process of its own (emu_engines_cp_affinity).
TEST(Engines, CommandProcessorRunsOffTheOpenersCpu) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "one CPU: the engines share it";
  if (!engine_threads().empty()) GTEST_SKIP() << "the device is open already: run alone (emu_engines_cp_affinity)";
  // The opener's CPU, read before and after the open (a thread that moved in between is tried
  // again; pinning it would give the engine its one-CPU mask).
  int cpu = -1, fd = -1;
  for (int attempt = 0; attempt < 20 && fd < 0; ++attempt) {
    for (int i = 0; i < 1000 && !engine_threads().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    cpu = sched_getcpu();
    fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0) << "open /dev/kfd: " << std::strerror(errno);
    if (sched_getcpu() != cpu) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0) GTEST_SKIP() << "the test thread kept moving between CPUs";
  // The engine restricts itself first thing on its thread: wait for it (a second at most).
  std::string masks;
  bool off = false;
  for (int i = 0; i < 1000 && !off; ++i) {
    masks.clear();
    for (pid_t t : engine_threads()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      if (sched_getaffinity(t, sizeof set, &set) != 0) continue;
      masks += " " + std::to_string(t) + ":" + std::to_string(CPU_COUNT(&set)) + (CPU_ISSET(cpu, &set) ? "+" : "-");
      if (!CPU_ISSET(cpu, &set) && CPU_COUNT(&set) == CPU_COUNT(&all) - 1) off = true;
    }
    if (!off) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  close(fd);
  EXPECT_TRUE(off) << "engine threads (id:CPUs, +/- the opener's CPU " << cpu << " allowed):" << masks;
}

// allocate_sdma_queue: engines x queues-per-engine slots of each type; then ENOMEM.
TEST_F(Sdma, QueueSlotsAreFinite) {
  const auto& props = gpu0().node->props;
  for (uint32_t type : {kSdma, kXgmi}) {
    const uint32_t engines = type == kSdma ? props.num_sdma_engines : props.num_sdma_xgmi_engines;
    const uint32_t slots = engines * props.num_sdma_queues_per_engine;
    std::vector<std::unique_ptr<RawQueue>> made;
    for (uint32_t i = 0; i < slots; ++i) {
      auto q = RawQueue::create(dev(), gpu0(), type, 4096);
      ASSERT_TRUE(q.ok()) << q.message() << " (slot " << i << " of " << slots << ")";
      made.push_back(std::move(q).value());
    }
    auto extra = RawQueue::create(dev(), gpu0(), type, 4096);
    EXPECT_TRUE(kfdtest::fails_with(extra, ENOMEM, "AMDKFD_IOC_CREATE_QUEUE")) << type;
  }
}

}  // namespace
}  // namespace engtest
