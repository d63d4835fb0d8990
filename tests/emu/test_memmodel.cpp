// SPDX-License-Identifier: MIT
// The memory model: the GPU's L2 and L1s directly (GpuCache), then hand-written kernels using buffer_wbl2, buffer_invl2, buffer_wbinvl1_vol and glc loads.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <algorithm>
#include <atomic>

#include "emu/shader/cache.h"
#include "tests/emu/harness.h"

namespace emu_test {
namespace {

using emu::shader::CacheConfig;
using emu::shader::GpuCache;
using emu::shader::Mtype;

// One mapping of `n` bytes of host memory, registered with a GpuCache.
struct Mapped {
  std::vector<uint8_t> mem;
  emu::shader::CachedRange* r = nullptr;
  uint64_t va() const { return reinterpret_cast<uint64_t>(mem.data()); }
};

class CacheTest : public ::testing::Test {
 protected:
  Mapped& map(size_t n, Mtype m, GpuCache* c = nullptr) {
    maps_.push_back(std::make_unique<Mapped>());
    Mapped& x = *maps_.back();
    x.mem.assign(n, 0);
    x.r = (c ? c : &cache_)->add(x.va(), n, x.mem.data(), m);
    EXPECT_NE(x.r, nullptr);
    return x;
  }
  uint32_t view(Mapped& m, size_t off, bool allocate = false) {
    uint32_t v = 0;
    cache_.read(*m.r, m.va() + off, &v, 4, allocate);
    return v;
  }
  void put(Mapped& m, size_t off, uint32_t v) { cache_.write(*m.r, m.va() + off, &v, 4); }
  uint32_t memory(Mapped& m, size_t off) { uint32_t v; std::memcpy(&v, m.mem.data() + off, 4); return v; }
  void set_memory(Mapped& m, size_t off, uint32_t v) { std::memcpy(m.mem.data() + off, &v, 4); }

  GpuCache cache_{CacheConfig{}};
  std::vector<std::unique_ptr<Mapped>> maps_;
};

TEST_F(CacheTest, CoarseGrainedStoreStaysInTheL2UntilWrittenBack) {
  for (Mtype m : {Mtype::RW, Mtype::NC}) {
    Mapped& x = map(4096, m);
    put(x, 8, 42);
    EXPECT_EQ(memory(x, 8), 0u) << mtype_name(m) << ": memory (the host's view) is unchanged";
    EXPECT_EQ(view(x, 8), 42u) << mtype_name(m) << ": the GPU sees its own store";
    const auto a = cache_.writeback();
    EXPECT_EQ(memory(x, 8), 42u) << mtype_name(m);
    EXPECT_EQ(a.lines, 1u);
    EXPECT_EQ(a.bytes, 4u);
    EXPECT_EQ(cache_.writeback().bytes, 0u) << "nothing is dirty any more";
  }
}

TEST_F(CacheTest, FineGrainedStoreGoesToMemory) {
  for (Mtype m : {Mtype::CC, Mtype::UC}) {
    Mapped& x = map(4096, m);
    put(x, 16, 7);
    EXPECT_EQ(memory(x, 16), 7u) << mtype_name(m);
    EXPECT_EQ(cache_.writeback().bytes, 0u) << mtype_name(m);
  }
}

TEST_F(CacheTest, WriteBackKeepsTheBytesSomeoneElseWrote) {
  Mapped& x = map(4096, Mtype::RW);
  const uint8_t b = 0xAB;
  cache_.write(*x.r, x.va() + 3, &b, 1);
  x.mem[5] = 0x55;  // the host writes another byte of the same line
  (void)cache_.writeback();
  EXPECT_EQ(x.mem[3], 0xAB);
  EXPECT_EQ(x.mem[5], 0x55) << "only the L2's dirty bytes are written back";
  EXPECT_EQ(x.mem[4], 0);
}

TEST_F(CacheTest, NonCoherentLineStaysStaleUntilInvalidated) {
  Mapped& x = map(4096, Mtype::NC);
  set_memory(x, 0, 1);
  EXPECT_EQ(view(x, 0, true), 1u);  // read once: the L2 keeps the line
  set_memory(x, 0, 2);              // the host (or SDMA, or another GPU) writes memory
  EXPECT_EQ(view(x, 0, true), 1u) << "the L2's copy is stale";
  cache_.invalidate(x.va() + 64, 64);  // another line: no effect on this one
  EXPECT_EQ(view(x, 0, true), 1u);
  cache_.invalidate(x.va(), 4);
  EXPECT_EQ(view(x, 0, true), 2u) << "after an invalidate of the line the L2 reads memory again";
  set_memory(x, 0, 3);
  cache_.invalidate();
  EXPECT_EQ(view(x, 0, true), 3u);
}

TEST_F(CacheTest, LocalCoarseGrainedReadsAreNeverStale) {
  Mapped& x = map(4096, Mtype::RW);
  set_memory(x, 0, 1);
  EXPECT_EQ(view(x, 0, true), 1u);
  set_memory(x, 0, 2);
  EXPECT_EQ(view(x, 0, true), 2u) << "RW lines are probed on remote writes (AMDGPUUsage)";
}

TEST_F(CacheTest, AReadWithoutAllocationDoesNotKeepTheLine) {
  Mapped& x = map(4096, Mtype::NC);
  set_memory(x, 0, 1);
  EXPECT_EQ(view(x, 0, false), 1u);
  set_memory(x, 0, 2);
  EXPECT_EQ(view(x, 0, false), 2u);
}

TEST_F(CacheTest, WriteBackOfARangeLeavesTheRestDirty) {
  Mapped& x = map(8192, Mtype::RW);
  put(x, 0, 1);
  put(x, 4096, 2);
  EXPECT_EQ(cache_.writeback(x.va() + 4096, 64).bytes, 4u);
  EXPECT_EQ(memory(x, 4096), 2u);
  EXPECT_EQ(memory(x, 0), 0u);
  EXPECT_EQ(cache_.writeback(0, ~uint64_t{0}, true).bytes, 0u) << "NC-only write-back skips RW lines";
  EXPECT_EQ(cache_.writeback().bytes, 4u);
  EXPECT_EQ(memory(x, 0), 1u);
}

// Two write-backs at once (the ends of two dispatches on one GPU): each returns only when every
// line dirty at its start is in memory, not when the other write-back has merely taken them.
TEST_F(CacheTest, ConcurrentWriteBacksEachWaitForTheirLines) {
  Mapped& big = map(2 << 20, Mtype::RW);
  Mapped& small = map(4096, Mtype::RW);
  std::atomic<int> go{0}, started{0}, done{0};
  std::thread other([&] {
    for (int round = 1; round <= 50; ++round) {
      while (go.load() != round) std::this_thread::yield();
      started.store(round);
      (void)cache_.writeback();
      done.store(round);
    }
  });
  int missed = 0;
  for (int round = 1; round <= 50; ++round) {
    for (size_t off = 0; off < big.mem.size(); off += 64) put(big, off, round);
    put(small, 0, round);  // listed last: the other write-back reaches it last
    go.store(round);
    while (started.load() != round) std::this_thread::yield();
    (void)cache_.writeback();
    if (memory(small, 0) != static_cast<uint32_t>(round)) ++missed;
    while (done.load() != round) std::this_thread::yield();
  }
  other.join();
  EXPECT_EQ(missed, 0) << "of 50 write-backs, " << missed << " returned before the line dirty at their start was in memory";
}

TEST_F(CacheTest, CapacityEvictsTheOldestLinesFirst) {
  CacheConfig cfg;
  cfg.l2_lines = 16;
  GpuCache small(cfg);
  Mapped& x = map(64 * 64, Mtype::RW, &small);
  for (uint32_t i = 0; i < 17; ++i) {
    const uint32_t v = 100 + i;
    small.write(*x.r, x.va() + i * 64, &v, 4);
  }
  EXPECT_EQ(memory(x, 0), 100u) << "the first line left the L2 when the 17th came";
  EXPECT_EQ(memory(x, 64), 0u) << "the second is still held";
  EXPECT_EQ(small.writeback().lines, 16u);
  small.remove(x.r);
}

TEST_F(CacheTest, AnotherCusStoreLeavesThisCusL1Stale) {
  Mapped& x = map(4096, Mtype::RW);
  emu::shader::L1* a = cache_.acquire_l1();
  emu::shader::L1* b = cache_.acquire_l1();
  ASSERT_TRUE(a && b && a != b);
  set_memory(x, 0, 5);
  EXPECT_FALSE(cache_.l1_page(*a, *x.r, 0)) << "A reads the page: no private copy yet";
  EXPECT_FALSE(cache_.l1_store(b, *x.r, 0)) << "B holds no copy of its own";
  put(x, 0, 6);  // B's store
  EXPECT_TRUE(cache_.l1_page(*a, *x.r, 0));
  ASSERT_TRUE(cache_.l1_copy(*a, *x.r, 0));
  uint32_t v = 0;
  cache_.l1_copy_read(*a, *x.r, 0, 0, &v, 4);
  EXPECT_EQ(v, 5u) << "A's L1 holds the line as it was";
  EXPECT_FALSE(cache_.l1_copy(*b, *x.r, 0));
  cache_.l1_invalidate(*a);
  EXPECT_FALSE(cache_.l1_page(*a, *x.r, 0));
  EXPECT_FALSE(cache_.l1_copy(*a, *x.r, 0)) << "buffer_wbinvl1 emptied it";
  cache_.release_l1(a);
  cache_.release_l1(b);
}

TEST_F(CacheTest, L1CapacityEvictsTheOldestPage) {
  CacheConfig cfg;
  cfg.l1_lines = 64;  // one page of lines
  GpuCache small(cfg);
  Mapped& x = map(8192, Mtype::RW, &small);
  emu::shader::L1* a = small.acquire_l1();
  emu::shader::L1* b = small.acquire_l1();
  (void)small.l1_page(*a, *x.r, 0);
  (void)small.l1_page(*a, *x.r, 1);  // the second page pushes the first out
  (void)small.l1_store(b, *x.r, 0);
  (void)small.l1_store(b, *x.r, 64);
  EXPECT_FALSE(small.l1_copy(*a, *x.r, 0)) << "A no longer held line 0: it reads the new data";
  EXPECT_TRUE(small.l1_copy(*a, *x.r, 64)) << "A still holds line 64 (page 1): a stale copy";
  small.release_l1(a);
  small.release_l1(b);
  small.remove(x.r);
}

TEST_F(CacheTest, FineGrainedLineIsCopiedIntoTheL1WhenFirstRead) {
  Mapped& x = map(4096, Mtype::UC);
  emu::shader::L1* a = cache_.acquire_l1();
  set_memory(x, 0, 1);
  (void)cache_.l1_page(*a, *x.r, 0);
  ASSERT_TRUE(cache_.l1_copy(*a, *x.r, 0));
  set_memory(x, 0, 2);  // the host writes
  uint32_t v = 0;
  cache_.l1_copy_read(*a, *x.r, 0, 0, &v, 4);
  EXPECT_EQ(v, 1u);
  cache_.release_l1(a);
}

TEST_F(CacheTest, AtomicsWorkOnTheL2Copy) {
  Mapped& x = map(4096, Mtype::RW);
  set_memory(x, 0, 10);
  for (int i = 0; i < 5; ++i)
    cache_.update(*x.r, x.va(), 4, [](uint8_t* p) { __atomic_fetch_add(reinterpret_cast<uint32_t*>(p), 1, __ATOMIC_SEQ_CST); });
  EXPECT_EQ(memory(x, 0), 10u);
  EXPECT_EQ(view(x, 0), 15u);
  (void)cache_.writeback();
  EXPECT_EQ(memory(x, 0), 15u);
}

// ---- kernels --------------------------------------------------------------------------------

// Loads memmodel.co into a HostMemory with the given model; buffers of 64 lanes.
class ModelKernels : public ::testing::Test {
 protected:
  void start(bool strict, CacheConfig cfg = {}, unsigned workers = 1) {
    mem_ = std::make_unique<HostMemory>(strict, cfg);
    core_ = std::make_unique<emu::shader::ShaderCore>(emu::shader::Target::gfx90a, workers);
    ASSERT_EQ(co_.load(kernel_path("memmodel.co"), *mem_), "");
    out_ = mem_->alloc_array<uint32_t>(16 * 64 * 2, Mtype::UC);
    flags_ = mem_->alloc_array<uint32_t>(64);
  }
  emu::shader::Outcome run(const char* kernel, uint32_t* buf, unsigned groups = 1, bool acquire = true,
                           bool release = true) {
    Args a;
    a.add(out_).add(buf).add(flags_);
    Launch l;
    l.grid[0] = 64 * groups;
    l.block[0] = 64;
    l.acquire_system = acquire;
    l.release_system = release;
    uint64_t kd = co_.kernel(kernel);
    EXPECT_NE(kd, 0u) << kernel;
    return dispatch(*core_, *mem_, kd, l, a.data(), a.size());
  }
  uint32_t slot(unsigned k, unsigned lane) const { return __atomic_load_n(&out_[k * 64 + lane], __ATOMIC_ACQUIRE); }
  uint32_t viewed(uint32_t* p) {
    uint32_t v = 0;
    auto r = mem_->lookup(reinterpret_cast<uint64_t>(p));
    mem_->cache()->read(*r.cache, reinterpret_cast<uint64_t>(p), &v, 4, false);
    return v;
  }

  std::unique_ptr<HostMemory> mem_;
  std::unique_ptr<emu::shader::ShaderCore> core_;
  CodeObject co_;
  uint32_t* out_ = nullptr;
  uint32_t* flags_ = nullptr;
};

TEST_F(ModelKernels, BufferWbl2WritesTheL2Back) {
  start(true);
  uint32_t* buf = mem_->alloc_array<uint32_t>(64);
  ASSERT_TRUE(run("k_mm_store", buf, 1, true, false).ok());
  EXPECT_EQ(buf[5], 0u) << "no release: the store is still in the L2";
  EXPECT_EQ(viewed(buf + 5), 105u);
  uint32_t* buf2 = mem_->alloc_array<uint32_t>(64);
  ASSERT_TRUE(run("k_mm_store_wbl2", buf2, 1, true, false).ok());
  EXPECT_EQ(buf2[5], 105u) << "buffer_wbl2 wrote it back";
  EXPECT_EQ(buf[5], 105u) << "the whole L2, the earlier store too";
}

TEST_F(ModelKernels, WithoutTheModelStoresAreVisibleAtOnce) {
  start(false);
  uint32_t* buf = mem_->alloc_array<uint32_t>(64);
  ASSERT_TRUE(run("k_mm_store", buf, 1, true, false).ok());
  EXPECT_EQ(buf[5], 105u);
}

TEST_F(ModelKernels, BufferInvl2RefreshesNonCoherentLines) {
  start(true);
  uint32_t* buf = mem_->alloc_array<uint32_t>(64, Mtype::NC);
  for (int i = 0; i < 64; ++i) buf[i] = 1;
  ASSERT_TRUE(run("k_mm_load", buf).ok());
  EXPECT_EQ(slot(0, 3), 1u);
  for (int i = 0; i < 64; ++i) buf[i] = 2;  // the host writes after the GPU read the lines
  ASSERT_TRUE(run("k_mm_load", buf, 1, false).ok());
  EXPECT_EQ(slot(0, 3), 1u) << "no acquire: the L2's copy is stale";
  ASSERT_TRUE(run("k_mm_load_invl2", buf, 1, false).ok());
  EXPECT_EQ(slot(0, 3), 2u) << "buffer_invl2 dropped it";
  for (int i = 0; i < 64; ++i) buf[i] = 3;
  ASSERT_TRUE(run("k_mm_load", buf, 1, true).ok());
  EXPECT_EQ(slot(0, 3), 3u) << "the dispatch's system-scope acquire drops it too";
}

TEST_F(ModelKernels, CoarseGrainedLocalMemoryIsNeverStaleInTheL2) {
  start(true);
  uint32_t* buf = mem_->alloc_array<uint32_t>(64, Mtype::RW);
  for (int i = 0; i < 64; ++i) buf[i] = 1;
  ASSERT_TRUE(run("k_mm_load", buf).ok());
  for (int i = 0; i < 64; ++i) buf[i] = 2;
  ASSERT_TRUE(run("k_mm_load", buf, 1, false).ok());
  EXPECT_EQ(slot(0, 3), 2u);
}

// Two workgroups on two CUs (workers): a plain load after another CU's store reads the L1's
// stale copy; a glc load and a load after buffer_wbinvl1_vol read the new data.
TEST_F(ModelKernels, AnotherCusStoreIsStaleInTheL1UntilBufferWbinvl1) {
  for (bool strict : {true, false}) {
    start(strict, {}, 2);
    uint32_t* buf = mem_->alloc_array<uint32_t>(64);
    for (int i = 0; i < 64; ++i) buf[i] = 7;
    ASSERT_TRUE(run("k_mm_l1", buf, 2).ok());
    for (unsigned lane : {0u, 17u, 63u}) {
      EXPECT_NE(slot(4, lane), 0xdeadu) << "a workgroup gave up waiting";
      EXPECT_EQ(slot(0, lane), 7u);
      EXPECT_EQ(slot(1, lane), strict ? 7u : 200 + lane) << (strict ? "strict" : "sc") << ": the L1's copy";
      EXPECT_EQ(slot(2, lane), 200 + lane) << "glc loads miss the L1";
      EXPECT_EQ(slot(3, lane), 200 + lane) << "buffer_wbinvl1_vol emptied the L1";
    }
  }
}

TEST_F(ModelKernels, CachePolicyBitsKeepLoadStoreAndAtomicSemantics) {
  start(true);
  uint32_t* buf = mem_->alloc_array<uint32_t>(64);
  ASSERT_TRUE(run("k_mm_bits", buf, 1, true, false).ok());
  EXPECT_EQ(slot(0, 9), 309u);
  EXPECT_EQ(slot(1, 9), 309u) << "the atomic returns the value before it";
  EXPECT_EQ(buf[9], 310u) << "buffer_wbl2 at the end wrote the atomic's result back";
}

// A wave's atomics on shared addresses and lines (the whole-wave path takes a line's lanes under
// one lock): every returned old value is the address's value just before that lane's add (the
// lanes' adds in some order), the final values are the sums, and this CU's L1 copy, read by a
// plain load afterwards, holds the final value. Every memory type, and without the model.
TEST_F(ModelKernels, WaveAtomicsOnSharedLinesAreEachAtomic) {
  struct Case { bool strict; Mtype m; const char* name; };
  for (const Case c : {Case{true, Mtype::RW, "strict RW"}, Case{true, Mtype::NC, "strict NC"},
                       Case{true, Mtype::CC, "strict CC"}, Case{true, Mtype::UC, "strict UC"},
                       Case{false, Mtype::RW, "sc"}}) {
    SCOPED_TRACE(c.name);
    start(c.strict);
    uint32_t* buf = mem_->alloc_array<uint32_t>(128, c.m);
    for (uint32_t i = 0; i < 32; ++i) buf[i] = 1000 * i;
    auto* q = reinterpret_cast<uint64_t*>(buf + 64);
    for (uint64_t i = 0; i < 16; ++i) q[i] = i << 40;
    ASSERT_TRUE(run("k_mm_atomics", buf).ok());
    for (uint32_t d = 0; d < 32; ++d) {  // dword d: lanes l with (9 * l) & 31 == d
      std::vector<std::pair<uint32_t, uint32_t>> seen;  // (old, added)
      for (uint32_t l = 0; l < 64; ++l)
        if (((9 * l) & 31) == d) seen.emplace_back(slot(0, l), l + 1);
      ASSERT_EQ(seen.size(), 2u);
      std::sort(seen.begin(), seen.end());
      uint32_t v = 1000 * d;
      for (auto [old, add] : seen) {
        EXPECT_EQ(old, v) << "dword " << d;
        v += add;
      }
      uint32_t now = buf[d];
      auto r = mem_->lookup(reinterpret_cast<uint64_t>(buf + d));
      if (r.cache) mem_->cache()->read(*r.cache, reinterpret_cast<uint64_t>(buf + d), &now, 4, false);
      EXPECT_EQ(now, v) << "dword " << d;
      for (uint32_t l = 0; l < 64; ++l) {
        if (((9 * l) & 31) == d) {
          EXPECT_EQ(slot(1, l), v) << "lane " << l << ": a load after the atomics";
        }
      }
    }
    for (uint64_t i = 0; i < 16; ++i) {  // qword i: lanes l with (5 * l) & 15 == i
      std::vector<std::pair<uint64_t, uint64_t>> seen;
      for (uint32_t l = 0; l < 64; ++l)
        if (((5 * l) & 15) == i) seen.emplace_back(uint64_t{slot(3, l)} << 32 | slot(2, l), (uint64_t{1} << 32) + l);
      ASSERT_EQ(seen.size(), 4u);
      std::sort(seen.begin(), seen.end());
      uint64_t v = i << 40;
      for (auto [old, add] : seen) {
        EXPECT_EQ(old, v) << "qword " << i;
        v += add;
      }
      uint64_t now = 0;
      auto r = mem_->lookup(reinterpret_cast<uint64_t>(q + i));
      if (r.cache) mem_->cache()->read(*r.cache, reinterpret_cast<uint64_t>(q + i), &now, 8, false);
      else now = q[i];
      EXPECT_EQ(now, v) << "qword " << i;
    }
  }
}

TEST_F(ModelKernels, ReportsStaleLoadsWithTheKernelAndAddress) {
  CacheConfig cfg;
  cfg.report_stale = true;
  start(true, cfg, 2);
  uint32_t* buf = mem_->alloc_array<uint32_t>(64);
  const auto o = run("k_mm_l1", buf, 2);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.memory.stale_loads, 64u) << "one plain load per lane of workgroup 0 was stale";
  ASSERT_FALSE(o.memory.first.empty());
  EXPECT_EQ(o.memory.first[0].level, 1);
  EXPECT_GE(o.memory.first[0].va, reinterpret_cast<uint64_t>(buf));
  EXPECT_LT(o.memory.first[0].va, reinterpret_cast<uint64_t>(buf + 64));
  EXPECT_EQ(o.memory.kernel, "k_mm_l1");
  EXPECT_EQ(o.memory.wbinvl1, 1u);

  uint32_t* nc = mem_->alloc_array<uint32_t>(64, Mtype::NC);
  ASSERT_TRUE(run("k_mm_load", nc).ok());
  nc[0] = 9;
  const auto o2 = run("k_mm_load", nc, 1, false);
  EXPECT_EQ(o2.memory.stale_loads, 1u);
  ASSERT_EQ(o2.memory.first.size(), 1u);
  EXPECT_EQ(o2.memory.first[0].level, 2);
  EXPECT_EQ(o2.memory.first[0].va, reinterpret_cast<uint64_t>(nc));
  EXPECT_EQ(run("k_mm_load", nc).memory.stale_loads, 0u) << "with the acquire nothing is stale";
}

// KFDEMU_TRACE_FENCES: cache instructions are printed with where they ran.
TEST_F(ModelKernels, TracesCacheInstructions) {
  CacheConfig cfg;
  cfg.trace = true;
  cfg.label = "test GPU";
  start(true, cfg);
  uint32_t* buf = mem_->alloc_array<uint32_t>(64);
  char path[] = "/tmp/kfdemu-trace-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(fd, 2);
  const bool ok = run("k_mm_store_wbl2", buf, 1, true, false).ok();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  unlink(path);
  ASSERT_TRUE(ok);
  const std::string t = ss.str();
  EXPECT_NE(t.find("kfdemu: test GPU: buffer_wbl2: L2 write-back at pc 0x"), std::string::npos) << t;
  EXPECT_NE(t.find("4 lines, 256 bytes written back"), std::string::npos) << t;
  EXPECT_NE(t.find("kernel k_mm_store_wbl2 executed buffer_wbl2 1"), std::string::npos) << t;
}

}  // namespace
}  // namespace emu_test
