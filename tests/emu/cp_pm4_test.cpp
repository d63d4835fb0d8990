// SPDX-License-Identifier: MIT
// The command processor's PM4 engine on raw compute queues made with CREATE_QUEUE: every packet, IBs, ring wrap, waits that do not hold the CP, events, errors and page faults.
#include <gtest/gtest.h>
#include <dlfcn.h>
#include <sys/resource.h>

#include <cstring>
#include <thread>

#include "emu/control.h"
#include "pm4/family.h"
#include "pm4/regs.h"
#include "pm4/type3.h"
#include "tests/emu/engine_util.h"

namespace engtest {
namespace {

constexpr uint32_t kPm4 = KFD_IOC_QUEUE_TYPE_COMPUTE;
using Dw = std::vector<uint32_t>;

Dw cat(std::initializer_list<Dw> parts) {
  Dw out;
  for (const Dw& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

template <class F>
Dw emit(size_t max, F f) {
  Dw v(max);
  v.resize(f(v.data()));
  return v;
}

Dw write_data(uint64_t va, Dw data) {
  pm4::WriteData w;
  w.address = va;
  return emit(4 + data.size(), [&](uint32_t* o) { return pm4::write_write_data(o, w, data); });
}
template <class T>
Dw write_data(const T* p, Dw data) { return write_data(reinterpret_cast<uint64_t>(p), std::move(data)); }

Dw wait_mem(const void* p, uint32_t ref, uint32_t mask = ~0u, uint32_t fn = pm4::kCompareEqual) {
  pm4::WaitRegMem w;
  w.address = reinterpret_cast<uint64_t>(p);
  w.reference = ref;
  w.mask = mask;
  w.function = fn;
  return emit(pm4::kWaitRegMemDwords, [&](uint32_t* o) { return pm4::write_wait_reg_mem(o, w); });
}

Dw indirect(const void* ib, size_t dwords, bool chain = false) {
  pm4::IndirectBuffer b;
  b.address = reinterpret_cast<uint64_t>(ib);
  b.dwords = uint32_t(dwords);
  b.chain = chain;
  return emit(pm4::kIndirectBufferDwords, [&](uint32_t* o) { return pm4::write_indirect_buffer(o, b); });
}

Dw release(const pm4::ReleaseMem& r) {
  return emit(pm4::kReleaseMemDwords, [&](uint32_t* o) { return pm4::write_release_mem(o, r); });
}

Dw nop(uint32_t dwords) { return emit(dwords, [&](uint32_t* o) { return pm4::write_nop(o, dwords); }); }

// Places an IB's dwords in a fresh GTT buffer.
class Pm4Engine : public EngineTest {
 protected:
  uint32_t* ib(const Dw& dw) {
    uint32_t* p = host<uint32_t>(dw.size() + 1);
    std::memcpy(p, dw.data(), dw.size() * 4);
    return p;
  }
  const pm4::Family& family() { return *pm4::family_for(gpu0().node->props.gfx_target_version); }
  uint64_t gpu_clock() {
    auto c = kfd().get_clock_counters(gpu0().gpu_id);
    EXPECT_TRUE(c.ok()) << c.message();
    return c.ok() ? c->gpu_clock_counter : 0;
  }
};

TEST_F(Pm4Engine, WriteDataLands) {
  RawQueue& q = queue(kPm4);
  uint32_t* out = host<uint32_t>(16);
  q.submit(write_data(out, {1, 2, 3}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[2], 3u);
  EXPECT_EQ(out[3], 0u);
  // ADDR_INCR 1: every dword to the same address, the last one stays.
  pm4::WriteData w;
  w.address = reinterpret_cast<uint64_t>(out + 8);
  w.one_address = true;
  Dw data = {7, 8, 9};
  q.submit(emit(7, [&](uint32_t* o) { return pm4::write_write_data(o, w, data); }));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[8], 9u);
  EXPECT_EQ(out[9], 0u);
}

TEST_F(Pm4Engine, SkipsNopsAndFillers) {
  RawQueue& q = queue(kPm4);
  uint32_t* out = host<uint32_t>(4);
  q.submit(cat({{pm4::kNop1, pm4::kType2Filler}, nop(5), write_data(out, {42})}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[0], 42u);
  EXPECT_EQ(q.rptr(), 1u + 1 + 5 + 5);
}

// A wait that does not hold: the queue stops at the WAIT_REG_MEM while another queue runs.
TEST_F(Pm4Engine, WaitRegMemBlocksUntilTheHostWrites) {
  RawQueue& q = queue(kPm4);
  RawQueue& other = queue(kPm4);
  uint32_t* flag = host<uint32_t>(1);
  uint32_t* out = host<uint32_t>(2);
  q.submit(cat({wait_mem(flag, 7, 0xff), write_data(out, {5})}));
  other.submit(write_data(out + 1, {6}));
  ASSERT_TRUE(other.wait_consumed());
  EXPECT_EQ(out[1], 6u);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(q.rptr(), 0u) << "the wait must not retire before the value is there";
  EXPECT_EQ(out[0], 0u);
  __atomic_store_n(flag, 0x307u, __ATOMIC_RELEASE);  // (value & 0xff) == 7
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[0], 5u);
}

TEST_F(Pm4Engine, ReleaseMemRaisesTheEventItNames) {
  RawQueue& q = queue(kPm4);
  SignalEvent ev = signal_event();
  ASSERT_NE(ev.slot, nullptr);
  pm4::ReleaseMem r;
  r.cache = pm4::release_cache_writeback(family());
  r.data_sel = pm4::kData32;
  r.address = ev.slot_va();
  r.data = ev.id;
  r.int_sel = pm4::kIntAfterWriteConfirm;
  r.int_ctxid = ev.id;
  q.submit(release(r));
  EXPECT_EQ(wait_event(ev.id, 10000), kfd::WaitResult::Complete);
  EXPECT_EQ(*ev.slot, ~0ull) << "the interrupt acknowledges the slot";
}

// kfd_signal_event_interrupt: an id whose slot is not signaled (here a stale 0) makes the kernel
// search every signaled slot; an event whose slot nobody wrote stays unsignaled.
TEST_F(Pm4Engine, ReleaseMemWithAStaleIdSearchesSignaledSlots) {
  RawQueue& q = queue(kPm4);
  SignalEvent ev = signal_event(), quiet = signal_event();
  pm4::ReleaseMem r;
  r.data_sel = pm4::kData32;
  r.address = ev.slot_va();
  r.data = ev.id;
  r.int_sel = pm4::kIntOnly;
  r.int_ctxid = 0;
  q.submit(release(r));
  EXPECT_EQ(wait_event(ev.id, 10000), kfd::WaitResult::Complete);
  EXPECT_EQ(wait_event(quiet.id, 50), kfd::WaitResult::Timeout);
  // An interrupt naming an event whose slot was not written wakes no one.
  pm4::ReleaseMem bare;
  bare.int_sel = pm4::kIntOnly;
  bare.int_ctxid = quiet.id;
  q.submit(release(bare));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(wait_event(quiet.id, 50), kfd::WaitResult::Timeout);
}

TEST_F(Pm4Engine, ReleaseMemWritesDataAndClocks) {
  RawQueue& q = queue(kPm4);
  uint64_t* out = host<uint64_t>(8);
  out[0] = out[1] = ~0ull;
  pm4::ReleaseMem r;
  r.data_sel = pm4::kData32;
  r.address = reinterpret_cast<uint64_t>(&out[0]);
  r.data = 0x1122334455667788ull;
  Dw pkts = release(r);
  r.data_sel = pm4::kData64;
  r.address = reinterpret_cast<uint64_t>(&out[1]);
  pkts = cat({pkts, release(r)});
  r.data_sel = pm4::kDataGpuClock;
  r.address = reinterpret_cast<uint64_t>(&out[2]);
  pkts = cat({pkts, release(r)});
  r.data_sel = pm4::kDataNone;
  r.address = reinterpret_cast<uint64_t>(&out[3]);
  pkts = cat({pkts, release(r)});
  r.data_sel = pm4::kDataSystemClock;
  r.address = reinterpret_cast<uint64_t>(&out[4]);
  pkts = cat({pkts, release(r)});
  r.data_sel = pm4::kData32;  // INT_SEL 3: the data after write confirm, no interrupt
  r.int_sel = pm4::kIntDataAfterConfirmNoInt;
  r.address = reinterpret_cast<uint64_t>(&out[5]);
  pkts = cat({pkts, release(r)});
  const uint64_t before = gpu_clock();
  q.submit(pkts);
  ASSERT_TRUE(q.wait_consumed());
  const uint64_t after = gpu_clock();
  EXPECT_EQ(out[0], 0xffffffff55667788ull) << "32-bit data writes the low dword only";
  EXPECT_EQ(out[1], 0x1122334455667788ull);
  EXPECT_GE(out[2], before);
  EXPECT_LE(out[2], after);
  EXPECT_EQ(out[3], 0u);
  EXPECT_GE(out[4], out[2]) << "the system counter (the same 100 MHz reference here)";
  EXPECT_EQ(out[5], 0x55667788u);
}

TEST_F(Pm4Engine, IndirectBufferCallsAndChains) {
  RawQueue& q = queue(kPm4);
  uint32_t* out = host<uint32_t>(4);
  uint32_t* ib2 = ib(write_data(out + 1, {2}));
  const Dw first = write_data(out, {1});
  uint32_t* ib1 = ib(cat({first, indirect(ib2, first.size(), true)}));
  q.submit(cat({indirect(ib1, first.size() + pm4::kIndirectBufferDwords), write_data(out + 2, {3})}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[2], 3u);
}

// A wait inside an IB resumes in the IB: what ran before it does not run again.
TEST_F(Pm4Engine, WaitInsideAnIbResumesThere) {
  RawQueue& q = queue(kPm4);
  uint32_t* out = host<uint32_t>(4);
  uint32_t* flag = host<uint32_t>(1);
  const Dw body = cat({write_data(out, {1}), wait_mem(flag, 1), write_data(out + 1, {2})});
  q.submit(cat({indirect(ib(body), body.size()), write_data(out + 2, {3})}));
  ASSERT_TRUE(eventually([&] { return __atomic_load_n(&out[0], __ATOMIC_ACQUIRE) == 1; }));
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(q.rptr(), 0u) << "the calling INDIRECT_BUFFER retires with its IB";
  __atomic_store_n(&out[0], 9u, __ATOMIC_RELEASE);
  __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[0], 9u) << "the IB restarted from its beginning";
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[2], 3u);
}

TEST_F(Pm4Engine, RingWrapsAndPacketsSpanItsEnd) {
  RawQueue& q = queue(kPm4, 1024);  // KFD_MIN_QUEUE_RING_SIZE: 256 dwords
  ASSERT_EQ(q.ring_dwords(), 256u);
  uint32_t* out = host<uint32_t>(256);
  q.submit(nop(q.ring_dwords() - 3));
  ASSERT_TRUE(q.wait_consumed());
  q.submit(write_data(out, {10, 11, 12, 13, 14}));  // 9 dwords: 3 before the end, 6 after
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(q.rptr(), 6u);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(out[i], 10 + i);
  for (uint32_t round = 0; round < 200; round += 20) {  // batches of 100 dwords: several laps
    Dw batch;
    for (uint32_t k = 0; k < 20; ++k) batch = cat({batch, write_data(out + 16 + round + k, {round + k})});
    q.submit(batch);
    ASSERT_TRUE(q.wait_consumed());
  }
  for (uint32_t round = 0; round < 200; ++round) EXPECT_EQ(out[16 + round], round);
}

TEST_F(Pm4Engine, CopyDataFromMemoryImmediateAndClock) {
  RawQueue& q = queue(kPm4);
  uint64_t* src = host<uint64_t>(2);
  uint64_t* dst = host<uint64_t>(8);
  src[0] = 0x0123456789abcdefull;
  auto copy = [](uint32_t src_sel, uint64_t s, const void* d, bool wide) {
    pm4::CopyData c;
    c.src_sel = src_sel;
    c.src = s;
    c.dst = reinterpret_cast<uint64_t>(d);
    c.count64 = wide;
    return emit(pm4::kCopyDataDwords, [&](uint32_t* o) { return pm4::write_copy_data(o, c); });
  };
  const uint64_t before = gpu_clock();
  q.submit(cat({copy(pm4::kCopySrcMemory, reinterpret_cast<uint64_t>(src), &dst[0], true),
                copy(pm4::kCopySrcMemory, reinterpret_cast<uint64_t>(src), &dst[1], false),
                copy(pm4::kCopySrcImmediate, 0xfeedface, &dst[2], false),
                copy(pm4::kCopySrcGpuClock, 0, &dst[3], true)}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(dst[0], src[0]);
  EXPECT_EQ(dst[1], 0x89abcdefull);
  EXPECT_EQ(dst[2], 0xfeedfaceull);
  EXPECT_GE(dst[3], before);
  EXPECT_LE(dst[3], gpu_clock());
}

Dw atomic(uint32_t op, const void* p, uint64_t src, uint64_t cmp = 0, bool loop = false) {
  pm4::AtomicMem a;
  a.atomic = op;
  a.address = reinterpret_cast<uint64_t>(p);
  a.src = src;
  a.cmp = cmp;
  a.command = loop ? pm4::kAtomicCommandLoopUntilCompare : pm4::kAtomicCommandSinglePass;
  return emit(pm4::kAtomicMemDwords, [&](uint32_t* o) { return pm4::write_atomic_mem(o, a); });
}

TEST_F(Pm4Engine, AtomicMemOperatesAndLoopsUntilCompare) {
  RawQueue& q = queue(kPm4);
  uint64_t* m = host<uint64_t>(8);
  m[0] = 1ull << 40;
  m[1] = 5;
  m[2] = 0xF0;
  q.submit(cat({atomic(pm4::kAtomicAddRtn64, &m[0], 5), atomic(pm4::kAtomicAddRtn64, &m[0], ~0ull),
                atomic(pm4::kAtomicSubRtn32, &m[1], 7), atomic(pm4::kAtomicOrRtn64, &m[2], 0x0F),
                atomic(pm4::kAtomicCmpSwapRtn64, &m[3], 9, 1)}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(m[0], (1ull << 40) + 4);
  EXPECT_EQ(m[1], 0xfffffffeull) << "a 32-bit op wraps in 32 bits";
  EXPECT_EQ(m[2], 0xFFu);
  EXPECT_EQ(m[3], 0u) << "a single-pass compare-swap that fails writes nothing";
  // Loop until compare: retried until the host stores the compare value.
  m[4] = 1;
  q.submit(cat({atomic(pm4::kAtomicCmpSwapRtn64, &m[4], 3, 2, true), write_data(&m[5], {1})}));
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(m[4], 1u);
  EXPECT_EQ(m[5], 0u);
  __atomic_store_n(&m[4], 2ull, __ATOMIC_RELEASE);
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(m[4], 3u);
  EXPECT_EQ(m[5], 1u);
}

Dw dma(uint32_t src_sel, uint64_t src, const void* dst, uint32_t bytes) {
  pm4::DmaData d;
  d.src_sel = src_sel;
  d.src = src;
  d.dst = reinterpret_cast<uint64_t>(dst);
  d.byte_count = bytes;
  return emit(pm4::kDmaDataDwords, [&](uint32_t* o) { return pm4::write_dma_data(o, d); });
}

TEST_F(Pm4Engine, DmaDataCopiesAndFills) {
  RawQueue& q = queue(kPm4);
  const uint32_t n = 100000;
  auto* a = host<uint8_t>(n);
  auto* b = host<uint8_t>(n);
  auto* c = host<uint32_t>(n / 4);
  for (uint32_t i = 0; i < n; ++i) a[i] = uint8_t(i * 7 + (i >> 8));
  q.submit(cat({dma(pm4::kDmaSelAddress, reinterpret_cast<uint64_t>(a), b, n),
                dma(pm4::kDmaSelData, 0xdeadbeef, c, n - 4)}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(std::memcmp(a, b, n), 0);
  EXPECT_EQ(c[0], 0xdeadbeefu);
  EXPECT_EQ(c[n / 4 - 2], 0xdeadbeefu);
  EXPECT_EQ(c[n / 4 - 1], 0u);
  // Overlapping with the destination 3 bytes above the source: a forward copy repeats the
  // source's first bytes.
  auto* o = host<uint8_t>(64);
  for (int i = 0; i < 64; ++i) o[i] = uint8_t(i);
  uint8_t expect[64];
  for (int i = 0; i < 64; ++i) expect[i] = uint8_t(i);
  for (int i = 0; i < 40; ++i) expect[3 + i] = expect[i];
  q.submit(dma(pm4::kDmaSelAddress, reinterpret_cast<uint64_t>(o), o + 3, 40));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(std::memcmp(o, expect, 64), 0);
}

TEST_F(Pm4Engine, AcceptsFlushesAndCacheActions) {
  RawQueue& q = queue(kPm4);
  uint32_t* out = host<uint32_t>(1);
  const pm4::AcquireMem acq = pm4::acquire_invalidate_all(family());
  q.submit(cat({emit(2, [](uint32_t* o) { return pm4::write_event_write(o, pm4::kEventCsPartialFlush, pm4::kEventIndexCsPartialFlush); }),
                emit(8, [&](uint32_t* o) { return pm4::write_acquire_mem(o, acq, family().acquire_mem); }),
                write_data(out, {1})}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[0], 1u);
}

// A stopped PM4 queue: rptr stays at the bad packet, what follows never runs, the message names
// the packet, and HW_EXCEPTION events are set (amdkfd's answer to CP_BAD_OPCODE).
struct Stop {
  std::string log;
  bool hw_exception = false;
};

class Pm4Errors : public Pm4Engine {
 protected:
  Stop run_bad(const Dw& bad, uint32_t rptr_at = 0) {
    RawQueue& q = queue(kPm4);
    uint32_t hw = hw_exception_event();
    uint32_t* after = host<uint32_t>(1);
    testing::internal::CaptureStderr();
    q.submit(cat({bad, write_data(after, {1})}));
    Stop s;
    s.hw_exception = wait_event(hw, 10000) == kfd::WaitResult::Complete;
    std::this_thread::sleep_for(20ms);
    s.log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(q.rptr(), rptr_at);
    EXPECT_EQ(*after, 0u) << "a packet after the bad one ran";
    return s;
  }
};

TEST_F(Pm4Errors, UnknownOpcodeStopsTheQueueNamingIt) {
  const uint32_t h = pm4::type3_header(0x7E, 3);
  Stop s = run_bad(cat({nop(2), {h, 0, 0}}), 2);
  EXPECT_TRUE(s.hw_exception);
  EXPECT_NE(s.log.find("unknown PM4 opcode 0x7e"), std::string::npos) << s.log;
  char hs[16];
  std::snprintf(hs, sizeof hs, "%#x", h);
  EXPECT_NE(s.log.find(hs), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, KnownButUnimplementedOpcodeSaysSo) {
  Stop s = run_bad({pm4::type3_header(pm4::kOpSetBase, 4), 0, 0, 0});
  EXPECT_NE(s.log.find("SET_BASE"), std::string::npos) << s.log;
  EXPECT_NE(s.log.find("not implemented"), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, Type0PacketStops) {
  Stop s = run_bad({0x00002C00u, 0});
  EXPECT_TRUE(s.hw_exception);
  EXPECT_NE(s.log.find("type-0 packet"), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, RegisterDestinationsAreNotImplemented) {
  pm4::WriteData w;
  w.dst_sel = pm4::kWriteDstRegister;
  w.address = pm4::reg::kComputePgmLo;
  Dw data = {1};
  Stop s = run_bad(emit(5, [&](uint32_t* o) { return pm4::write_write_data(o, w, data); }));
  EXPECT_NE(s.log.find("WRITE_DATA"), std::string::npos) << s.log;
  EXPECT_NE(s.log.find("register"), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, ShRegistersOutsideTheShSpaceStop) {
  Dw v = {1, 2};
  Stop s = run_bad(emit(4, [&](uint32_t* o) { return pm4::write_set_sh_reg(o, pm4::reg::kShRegEnd - 1, v); }));
  EXPECT_NE(s.log.find("outside the SH register space"), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, UnknownUconfigRegisterStops) {
  Dw v = {1};
  Stop s = run_bad(emit(3, [&](uint32_t* o) { return pm4::write_set_uconfig_reg(o, pm4::reg::kUconfigRegStart + 4, v); }));
  EXPECT_NE(s.log.find("0xc004"), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, PacketRunningPastItsIbStops) {
  Dw body = write_data(host<uint32_t>(4), {1, 2});
  uint32_t* b = ib(body);
  Stop s = run_bad(indirect(b, body.size() - 1));
  EXPECT_NE(s.log.find("runs past the end of its IB"), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, IbCallingAnotherIbStops) {
  uint32_t* inner = ib(nop(4));
  Dw outer = indirect(inner, 4);
  Stop s = run_bad(indirect(ib(outer), outer.size()));
  EXPECT_NE(s.log.find("no IB2"), std::string::npos) << s.log;
}

TEST_F(Pm4Errors, WritePointerBeyondTheRingStops) {
  RawQueue& q = queue(kPm4, 1024);
  testing::internal::CaptureStderr();
  q.ring_doorbell(5000);
  std::this_thread::sleep_for(100ms);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("not within one ring"), std::string::npos) << log;
}

// A bad address stops that queue with a MEMORY event naming it; other queues go on.
TEST_F(Pm4Engine, BadAddressRaisesAMemoryEventAndStopsOnlyThatQueue) {
  RawQueue& bad = queue(kPm4);
  RawQueue& good = queue(kPm4);
  const uint32_t mem = memory_event();
  const uint64_t va = unmapped_va() + 0x40;
  uint32_t* out = host<uint32_t>(2);
  testing::internal::CaptureStderr();
  bad.submit(cat({write_data(va, {1}), write_data(out, {1})}));
  kfd_hsa_memory_exception_data d{};
  const bool got = wait_memory_event(mem, 10000, &d);
  std::this_thread::sleep_for(20ms);
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(got);
  EXPECT_EQ(d.va, va & ~0xfffull);
  EXPECT_EQ(d.gpu_id, gpu0().gpu_id);
  EXPECT_EQ(bad.rptr(), 0u);
  EXPECT_EQ(out[0], 0u);
  char vs[24];
  std::snprintf(vs, sizeof vs, "%#llx", (unsigned long long)va);
  EXPECT_NE(log.find(vs), std::string::npos) << log;
  good.submit(write_data(out + 1, {2}));
  ASSERT_TRUE(good.wait_consumed());
  EXPECT_EQ(out[1], 2u);
}

// An idle queue costs the process no more than a sliver of a core.
TEST_F(Pm4Engine, IdleQueueDoesNotBurnACore) {
  RawQueue& q = queue(kPm4);
  uint32_t* flag = host<uint32_t>(1);
  q.submit(wait_mem(flag, 1));  // a wait that never holds keeps the CP polling
  std::this_thread::sleep_for(200ms);  // past the spin phase
  auto cpu = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_sec * 1e6 + u.ru_stime.tv_usec;
  };
  const double t0 = cpu();
  std::this_thread::sleep_for(500ms);
  const double used = cpu() - t0;
  EXPECT_LT(used, 0.25 * 500000) << "microseconds of CPU while idle";
  __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
  EXPECT_TRUE(q.wait_consumed());
}

// Destroying a queue while its packets wait is safe and immediate.
TEST_F(Pm4Engine, DestroyWithPendingWorkIsSafe) {
  using GetCounts = int (*)(kfdemu_counts*);
  auto get_counts = reinterpret_cast<GetCounts>(dlsym(RTLD_DEFAULT, "kfdemu_get_counts"));
  ASSERT_NE(get_counts, nullptr) << "the emulator is not preloaded";
  kfdemu_counts before{}, after{};
  ASSERT_EQ(get_counts(&before), 0);
  uint32_t* flag = host<uint32_t>(1);
  for (int i = 0; i < 8; ++i) {
    RawQueue& q = queue(kPm4);
    q.submit(cat({wait_mem(flag, 1), nop(3)}));
    const Dw body = wait_mem(flag, 1);
    q.submit(indirect(ib(body), body.size()));
  }
  std::this_thread::sleep_for(10ms);
  queues_.clear();  // returns although every queue waits for a flag no one writes
  ASSERT_EQ(get_counts(&after), 0);
  EXPECT_EQ(after.queues_pm4, before.queues_pm4);
  EXPECT_EQ(after.doorbells, before.doorbells);
  // The engine still runs a new queue's work.
  RawQueue& q = queue(kPm4);
  uint32_t* out = host<uint32_t>(4);
  q.submit(write_data(out, {5}));
  ASSERT_TRUE(q.wait_consumed());
  EXPECT_EQ(out[0], 5u);
}

}  // namespace
}  // namespace engtest
