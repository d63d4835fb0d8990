// SPDX-License-Identifier: MIT
// The memory model through the engines (raw queues): the CP's L2 and memory paths, PM4 cache actions, AQL fence scopes, SDMA reading memory, MTYPE per buffer kind.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>

#include "emu/control.h"
#include "pm4/aql.h"
#include "pm4/sdma.h"
#include "pm4/type3.h"
#include "tests/emu/engine_util.h"

namespace engtest {
namespace {

using Dw = std::vector<uint32_t>;
using namespace pm4::aql;
namespace sd = pm4::sdma;

Dw operator+(Dw a, const Dw& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

template <class F>
Dw emit(size_t max, F f) {
  Dw v(max);
  v.resize(f(v.data()));
  return v;
}

uint64_t va(const void* p) { return reinterpret_cast<uint64_t>(p); }

// WRITE_DATA of one dword: through the L2 (DST_SEL TC_L2) or the memory path.
Dw write_data(const void* p, uint32_t v, bool l2) {
  pm4::WriteData w;
  w.address = va(p);
  w.dst_sel = l2 ? pm4::kWriteDstTcL2 : pm4::kWriteDstMemory;
  const uint32_t data[] = {v};
  return emit(5, [&](uint32_t* o) { return pm4::write_write_data(o, w, data); });
}

Dw copy_data(const void* src, const void* dst, bool src_l2) {
  pm4::CopyData c;
  c.src_sel = src_l2 ? pm4::kCopySrcTcL2 : pm4::kCopySrcMemory;
  c.src = va(src);
  c.dst = va(dst);
  return emit(pm4::kCopyDataDwords, [&](uint32_t* o) { return pm4::write_copy_data(o, c); });
}

// RELEASE_MEM (end of pipe) with gfx9 cache actions `cache`, writing `fence` = 1 to memory.
Dw release(uint32_t cache, const uint32_t* fence) {
  pm4::ReleaseMem r;
  r.cache = cache;
  r.data_sel = pm4::kData32;
  r.address = va(fence);
  r.data = 1;
  return emit(pm4::kReleaseMemDwords, [&](uint32_t* o) { return pm4::write_release_mem(o, r); });
}

Dw acquire(uint32_t coher_cntl) {
  pm4::AcquireMem a;
  a.coher_cntl = coher_cntl;
  return emit(pm4::kAcquireMemDwordsGfx9, [&](uint32_t* o) { return pm4::write_acquire_mem(o, a, pm4::AcquireMemForm::Gfx9); });
}

Dw atomic_add(const void* p, uint32_t v) {
  pm4::AtomicMem a;
  a.atomic = pm4::kAtomicAddRtn32;
  a.address = va(p);
  a.src = v;
  return emit(pm4::kAtomicMemDwords, [&](uint32_t* o) { return pm4::write_atomic_mem(o, a); });
}

namespace rg = pm4::release_gfx9;
namespace ch = pm4::coher_gfx9;

// On the emulator, whether its memory model is strict (else `sc`); skips on a real GPU, whose
// caches may evict a line at any time (staleness is not deterministic there).
class MemoryModel : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (HasFatalFailure()) return;
    auto get = reinterpret_cast<void (*)(kfdemu_config*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_config"));
    if (!get) GTEST_SKIP() << "not on the emulated GPU";
    kfdemu_config c{};
    get(&c);
    strict_ = c.memory_model == KFDEMU_MEMORY_MODEL_STRICT;
    if (gpu0().node->props.gfx_target_version != 90010) GTEST_SKIP() << "MTYPE rules checked here are gfx90a's";
    pm4_ = &queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  }
  // Non-coherent (NC) system memory, local coarse-grained VRAM (RW) and so on.
  uint32_t* nc(size_t n = 16) { return static_cast<uint32_t*>(buffer(n * 4, Kind::Gtt, 0).ptr()); }
  uint32_t* vram(size_t n = 16, uint32_t flags = 0) { return static_cast<uint32_t*>(buffer(n * 4, Kind::Vram, flags).ptr()); }
  uint32_t* coherent(size_t n = 16) { return host<uint32_t>(n); }
  void run(const Dw& dw) {
    pm4_->submit(dw);
    ASSERT_TRUE(pm4_->wait_consumed());
  }
  // What a stale read gives under strict, the new value under sc.
  uint32_t stale_or(uint32_t stale, uint32_t fresh) const { return strict_ ? stale : fresh; }
  uint32_t at(const uint32_t* p) const { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

  bool strict_ = true;
  RawQueue* pm4_ = nullptr;
};

TEST_F(MemoryModel, CpWriteThroughTheL2WaitsForAWriteBack) {
  uint32_t* x = nc();
  uint32_t* fence = coherent();
  run(write_data(x, 5, true) + write_data(x + 1, 6, false));
  EXPECT_EQ(at(x), stale_or(0, 5)) << "DST_SEL TC_L2: in the L2, not in memory";
  EXPECT_EQ(at(x + 1), 6u) << "DST_SEL memory: the memory path";
  run(release(rg::kTcWbActionEna | rg::kTcNcActionEna, fence));
  EXPECT_EQ(at(x), 5u) << "RELEASE_MEM TC_WB wrote the L2 back";
  EXPECT_EQ(at(fence), 1u);
}

TEST_F(MemoryModel, NcOnlyWriteBackLeavesDeviceMemoryDirty) {
  uint32_t* d = vram();
  uint32_t* fence = coherent();
  run(write_data(d, 9, true) + release(rg::kTcWbActionEna | rg::kTcNcActionEna, fence));
  EXPECT_EQ(at(d), stale_or(0, 9)) << "local VRAM is RW, not NC: TC_NC left it dirty";
  run(acquire(ch::kTcWbActionEna));
  EXPECT_EQ(at(d), 9u) << "ACQUIRE_MEM TC_WB writes back every line";
}

TEST_F(MemoryModel, CopyDataReadsTheL2OrMemory) {
  uint32_t* x = nc();
  uint32_t* y = coherent(2);
  run(write_data(x, 7, true) + copy_data(x, y, true) + copy_data(x, y + 1, false));
  EXPECT_EQ(at(y), 7u) << "SRC_SEL TC_L2 sees the L2's dirty data";
  EXPECT_EQ(at(y + 1), stale_or(0, 7)) << "SRC_SEL memory does not";
}

// A TC atomic fills the L2 with the line; a later host write is not seen until an invalidate.
TEST_F(MemoryModel, NonCoherentLineStaysStaleUntilAcquireMemInvalidates) {
  uint32_t* x = nc();
  uint32_t* fence = coherent();
  run(atomic_add(x, 1) + release(rg::kTcWbActionEna, fence));
  ASSERT_EQ(at(x), 1u);
  __atomic_store_n(x, 10u, __ATOMIC_RELEASE);  // the host writes
  run(atomic_add(x, 1) + release(rg::kTcWbActionEna, fence));
  EXPECT_EQ(at(x), stale_or(2, 11)) << "the atomic worked on the L2's stale copy";
  __atomic_store_n(x, 20u, __ATOMIC_RELEASE);
  run(acquire(ch::kTcActionEna) + atomic_add(x, 1) + release(rg::kTcWbActionEna, fence));
  EXPECT_EQ(at(x), 21u) << "ACQUIRE_MEM TC_ACTION invalidated the line";
}

TEST_F(MemoryModel, LocalVramIsNeverStaleOnReads) {
  uint32_t* d = vram();
  uint32_t* fence = coherent();
  run(atomic_add(d, 1) + release(rg::kTcWbActionEna, fence));
  __atomic_store_n(d, 10u, __ATOMIC_RELEASE);  // through the host mapping (the BAR)
  run(atomic_add(d, 1) + release(rg::kTcWbActionEna, fence));
  EXPECT_EQ(at(d), 11u) << "MTYPE RW lines are probed on remote writes";
}

// Which kinds of memory the L2 holds (Linux gmc_v9_0.c, gfx90a): fine-grained and uncached
// memory is written through at once, coarse-grained memory waits for a write-back.
TEST_F(MemoryModel, MtypeFollowsTheAllocationFlags) {
  struct Case {
    Kind kind;
    uint32_t flags;
    bool cached;
    const char* what;
  } cases[] = {
      {Kind::Gtt, 0, true, "GTT (NC)"},
      {Kind::Gtt, KFD_IOC_ALLOC_MEM_FLAGS_COHERENT, false, "GTT coherent (UC)"},
      {Kind::Gtt, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED, false, "GTT uncached (UC)"},
      {Kind::Vram, 0, true, "VRAM (RW)"},
      {Kind::Vram, KFD_IOC_ALLOC_MEM_FLAGS_COHERENT, false, "VRAM coherent (CC)"},
      {Kind::Vram, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED, false, "VRAM uncached (UC)"},
      {Kind::Userptr, 0, true, "userptr (NC)"},
      {Kind::Userptr, KFD_IOC_ALLOC_MEM_FLAGS_COHERENT, false, "userptr coherent (UC)"},
  };
  uint32_t* fence = coherent();
  for (const Case& c : cases) {
    auto* p = static_cast<uint32_t*>(buffer(4096, c.kind, c.flags).ptr());
    run(write_data(p, 3, true));
    EXPECT_EQ(at(p), c.cached && strict_ ? 0u : 3u) << c.what;
    run(release(rg::kTcWbActionEna, fence));
    EXPECT_EQ(at(p), 3u) << c.what;
  }
}

// SDMA reads and writes memory, not the GC L2: a copy of data still in the L2 copies stale memory.
TEST_F(MemoryModel, SdmaCopiesMemoryNotTheL2) {
  RawQueue& sdma = queue(KFD_IOC_QUEUE_TYPE_SDMA);
  uint32_t* x = nc();
  uint32_t* y = coherent(2);
  uint32_t* fence = coherent();
  auto copy = [&](uint32_t* dst) {
    sd::CopyLinear c;
    c.src = va(x);
    c.dst = va(dst);
    c.bytes = 4;
    sdma.submit(emit(sd::kCopyLinearDwords, [&](uint32_t* o) { return sd::write_copy_linear(o, c); }));
    ASSERT_TRUE(sdma.wait_consumed());
  };
  run(write_data(x, 8, true));
  copy(y);
  EXPECT_EQ(at(y), stale_or(0, 8)) << "no write-back before the copy";
  run(release(rg::kTcWbActionEna | rg::kTcNcActionEna, fence));
  copy(y + 1);
  EXPECT_EQ(at(y + 1), 8u);
}

// AQL fence scopes at the CP: an agent-scope release leaves the L2 dirty, a system-scope one
// writes it back; a system-scope acquire drops the NC lines a barrier's consumers would read.
TEST_F(MemoryModel, AqlPacketFenceScopes) {
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
  auto* done = host<AmdSignal>(1);
  done->kind = kSignalKindUser;
  uint32_t* x = nc();
  uint32_t* fence = coherent();
  auto barrier = [&](FenceScope acq, FenceScope rel) {
    done->value = 1;
    BarrierPacket b{};
    b.header = make_header(kTypeBarrierAnd, true, acq, rel);
    b.completion_signal = va(done);
    q.submit_aql(&b);
    ASSERT_TRUE(eventually([&] { return __atomic_load_n(&done->value, __ATOMIC_ACQUIRE) == 0; }));
  };
  run(write_data(x, 4, true));
  barrier(kScopeAgent, kScopeAgent);
  EXPECT_EQ(at(x), stale_or(0, 4)) << "agent-scope release";
  barrier(kScopeNone, kScopeSystem);
  EXPECT_EQ(at(x), 4u) << "system-scope release";
  run(atomic_add(x, 1) + release(rg::kTcWbActionEna, fence));  // the L2 holds x (5) now
  __atomic_store_n(x, 40u, __ATOMIC_RELEASE);
  barrier(kScopeAgent, kScopeNone);
  run(atomic_add(x, 1) + release(rg::kTcWbActionEna, fence));
  EXPECT_EQ(at(x), stale_or(6, 41)) << "agent-scope acquire: the L2's NC line stays";
  __atomic_store_n(x, 50u, __ATOMIC_RELEASE);
  barrier(kScopeSystem, kScopeNone);
  run(atomic_add(x, 1) + release(rg::kTcWbActionEna, fence));
  EXPECT_EQ(at(x), 51u) << "system-scope acquire: dropped";
}

// KFDEMU_TRACE_FENCES: every fence with its scope and every cache action (a meson test runs this
// with the variable set).
TEST_F(MemoryModel, TracesFencesWithTheirScope) {
  auto get = reinterpret_cast<void (*)(kfdemu_config*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_config"));
  kfdemu_config c{};
  get(&c);
  if (!c.trace_fences) GTEST_SKIP() << "KFDEMU_TRACE_FENCES is not set";
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 4096);
  auto* done = host<AmdSignal>(1);
  done->kind = kSignalKindUser;
  done->value = 1;
  uint32_t* x = nc();
  uint32_t* fence = coherent();
  testing::internal::CaptureStderr();
  run(write_data(x, 4, true) + release(rg::kTcWbActionEna | rg::kTcNcActionEna, fence));
  BarrierPacket b{};
  b.header = make_header(kTypeBarrierAnd, true, kScopeSystem, kScopeAgent);
  b.completion_signal = va(done);
  q.submit_aql(&b);
  const bool ok = eventually([&] { return __atomic_load_n(&done->value, __ATOMIC_ACQUIRE) == 0; });
  const std::string t = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(ok);
  EXPECT_NE(t.find("PM4 RELEASE_MEM at 0x"), std::string::npos) << t;
  EXPECT_NE(t.find(": L2 write-back of non-coherent lines (1 lines, 4 bytes)"), std::string::npos) << t;
  EXPECT_NE(t.find("AQL barrier-AND 0x"), std::string::npos) << t;
  EXPECT_NE(t.find("acquire fence, system scope: L2 invalidate (non-coherent lines), L1 invalidate"),
            std::string::npos) << t;
  EXPECT_NE(t.find("release fence, agent scope: no cache action"), std::string::npos) << t;
}

}  // namespace
}  // namespace engtest
