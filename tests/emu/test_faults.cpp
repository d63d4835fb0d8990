// SPDX-License-Identifier: MIT
// Fault and control tests: memory faults, traps, illegal/unimplemented instructions, messages,
// barriers with early-exiting waves, branches and calls, hardware registers.
#include <atomic>
#include <chrono>
#include <thread>

#include "pm4/queue_error.h"
#include "tests/emu/isa_fixture.h"

using namespace emu_test;
using Kind = emu::shader::Outcome::Kind;

namespace {

TEST(Faults, ReportsOutOfBoundsWriteAndKeepsRunning) {
  HostMemory mem;
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, 2);
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("basic.co"), mem), "");
  uint32_t* buf = mem.alloc_array<uint32_t>(16);
  const unsigned index = 1u << 28;  // 1 GiB past a 64-byte buffer: unmapped
  Launch l; l.grid[0] = 64; l.block[0] = 64;
  auto o = dispatch(core, mem, co.kernel("oob_write"), l, Args().add(buf).add(index).data(),
                    Args().add(buf).add(index).size());
  ASSERT_EQ(o.kind, Kind::MemoryFault) << o.message;
  EXPECT_EQ(o.fault_va, reinterpret_cast<uint64_t>(buf) + uint64_t{index} * 4);
  // The same core runs the next dispatch normally.
  auto ok = dispatch(core, mem, co.kernel("oob_write"), l, Args().add(buf).add(3u).data(),
                     Args().add(buf).add(3u).size());
  EXPECT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(buf[3], 42u);
}

// A queue whose CU mask enables no compute unit: the dispatch never starts (a GPU's queue hangs:
// kfd_mqd_manager.c) and says so, until the queue is preempted; with CUs it runs.
TEST(Faults, DispatchWithoutEnabledCusWaitsForPreemption) {
  HostMemory mem;
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, 2);
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("basic.co"), mem), "");
  uint32_t* buf = mem.alloc_array<uint32_t>(16);
  buf[3] = 0;
  const std::vector<uint32_t> none, two{0x0000u, 0x2000u};  // SE0 CU0, SE1 CU0
  std::atomic<bool> preempt{false};
  Launch l;
  l.grid[0] = 64;
  l.block[0] = 64;
  l.cus = &none;
  l.preempt = &preempt;
  testing::internal::CaptureStderr();
  const auto t0 = std::chrono::steady_clock::now();
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    preempt.store(true);
  });
  auto o = dispatch(core, mem, co.kernel("oob_write"), l, Args().add(buf).add(3u).data(), Args().add(buf).add(3u).size());
  later.join();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(o.kind, Kind::Preempted) << o.message;
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50)) << "it waited for the preemption";
  EXPECT_EQ(buf[3], 0u) << "no workgroup ran";
  EXPECT_NE(log.find("CU mask enables no compute unit"), std::string::npos) << log;
  preempt.store(false);
  l.cus = &two;
  auto ok = dispatch(core, mem, co.kernel("oob_write"), l, Args().add(buf).add(3u).data(), Args().add(buf).add(3u).size());
  EXPECT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(buf[3], 42u);
}

TEST(Faults, RejectsUnmappedPacket) {
  HostMemory mem;
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, 1);
  RecordingHooks hooks;
  auto o = core.run({0x1000, 0, 0}, mem, hooks);
  EXPECT_EQ(o.kind, Kind::MemoryFault);
  EXPECT_EQ(o.fault_va, 0x1000u);
}

class Control : public IsaTest {};

TEST_F(Control, TrapTwoAbortsTheDispatch) {
  auto o = run_isa("control.co", "k_trap");
  EXPECT_EQ(o.kind, Kind::Trap);
  EXPECT_NE(o.message.find("s_trap"), std::string::npos) << o.message;
}

TEST_F(Control, DebugTrapIsANoOp) {
  auto o = run_isa("control.co", "k_debugtrap");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(slot(0, 5), 77u);
}

TEST_F(Control, UnimplementedInstructionNamesItself) {
  auto o = run_isa("control.co", "k_unimplemented");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("v_mfma_f32_4x4x1f32"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("CBSZ/ABID"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("pc=0x"), std::string::npos) << o.message;
}

TEST_F(Control, MatrixInstructionFormsWithoutMeaningAreRefusedByName) {
  auto o = run_isa("control.co", "k_mfma_f64_blgp");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("v_mfma_f64_16x16x4f64"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("BLGP on an instruction without BLGP"), std::string::npos) << o.message;
  o = run_isa("control.co", "k_mfma_const_a");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("A and B must be registers"), std::string::npos) << o.message;
}

TEST_F(Control, LdsDmaLoadIsRefusedByName) {
  auto o = run_isa("control.co", "k_lds_dma");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("LDS DMA"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("buffer_load_dword"), std::string::npos) << o.message;
}

TEST_F(Control, IllegalInstructionStopsWithItsDword) {
  auto o = run_isa("control.co", "k_illegal");
  EXPECT_EQ(o.kind, Kind::IllegalInstruction);
  EXPECT_NE(o.message.find("fc000000"), std::string::npos) << o.message;
}

TEST_F(Control, SendmsgInterruptPassesM0) {
  RecordingHooks hooks;
  auto o = run_isa("control.co", "k_sendmsg", 128, 64, {}, &hooks);
  ASSERT_TRUE(o.ok()) << o.message;
  ASSERT_EQ(hooks.interrupts.size(), 2u);  // one per wave
  EXPECT_EQ(hooks.interrupts[0] & 0xFFFFFF, 0x123456u);
}

TEST_F(Control, BarrierReleasesWhenEarlyWavesEnded) {
  auto o = run_isa("control.co", "k_barrier_early_exit", 256, 256);
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned t = 0; t < 256; ++t) {
    bool odd_wave = (t / 64) % 2 == 1;
    ASSERT_EQ(out[t], odd_wave ? 0xBADBADu : 0x5a5au) << t;
  }
}

TEST_F(Control, BranchesLoopsAndCalls) {
  auto o = run_isa("control.co", "k_branches");
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned l = 0; l < 64; ++l) {
    ASSERT_EQ(slot(0, l), 45u);
    ASSERT_EQ(slot(1, l), 0x1234u);
    ASSERT_EQ(slot(2, l), l < 8 ? 2u : 9u) << l;  // execz skip not taken / taken
  }
}

TEST_F(Control, ReadsAndWritesHardwareRegisters) {
  auto o = run_isa("control.co", "k_hwreg");
  ASSERT_TRUE(o.ok()) << o.message;
  // MODE mirrors COMPUTE_PGM_RSRC1: FLOAT_MODE [19:12] -> [7:0], DX10_CLAMP 21 -> 8, IEEE 23 -> 9.
  uint32_t rsrc1;
  std::memcpy(&rsrc1, reinterpret_cast<const void*>(last_kd + 48), 4);
  EXPECT_EQ(slot(0, 0) & 0xFF, (rsrc1 >> 12) & 0xFF);
  EXPECT_EQ((slot(0, 0) >> 8) & 1, (rsrc1 >> 21) & 1);
  EXPECT_EQ((slot(0, 0) >> 9) & 1, (rsrc1 >> 23) & 1);
  EXPECT_EQ(slot(1, 0), 3u);
  EXPECT_EQ(slot(2, 0), 0u);
  EXPECT_EQ(slot(3, 0), 0x00400000u);  // denormal survives the multiply
}

// s_memtime counts at the engine clock (the ShaderCore's default 1700 MHz here), s_memrealtime at
// 100 MHz: an interval of the one that contains an interval of the other is at least 17 times as
// many ticks, and one inside it at most (the bounds hold however the host schedules the wave).
TEST_F(Control, ShaderClockRunsAtTheEngineClockAndRealtimeAt100MHz) {
  auto o = run_isa("control.co", "k_clocks");
  ASSERT_TRUE(o.ok()) << o.message;
  auto u64 = [&](unsigned k) { return uint64_t{slot(k, 0)} | uint64_t{slot(k + 1, 0)} << 32; };
  const double ratio = double(emu::shader::kDefaultEngineClockMhz) * 1e6 / double(emu::shader::kShaderClockHz);
  // First loop: memtime [0 .. 4] contains realtime [2 .. 6].
  const double outer_time = double(u64(4) - u64(0)), inner_real = double(u64(6) - u64(2));
  ASSERT_GT(inner_real, 100.0);
  EXPECT_GE(outer_time, ratio * (inner_real - 1) * 0.999) << outer_time << " shader ticks around " << inner_real << " reference ticks";
  // Second loop: realtime [10 .. 14] contains memtime [8 .. 12].
  const double inner_time = double(u64(12) - u64(8)), outer_real = double(u64(14) - u64(10));
  ASSERT_GT(inner_time, 100.0);
  EXPECT_LE(inner_time, ratio * (outer_real + 1) * 1.001) << inner_time << " shader ticks inside " << outer_real << " reference ticks";
}

TEST_F(Control, RedecodesCodeRewrittenAtTheSameAddress) {
  ASSERT_TRUE(run_isa("control.co", "k_const_a").ok());
  EXPECT_EQ(slot(0, 3), 0x1111u);
  uint64_t kd_a = last_kd;
  ASSERT_TRUE(run_isa("control.co", "k_const_b").ok());
  uint64_t kd_b = last_kd;
  auto entry = [](uint64_t kd) { int64_t off; std::memcpy(&off, reinterpret_cast<const void*>(kd + 16), 8); return kd + off; };
  std::memcpy(reinterpret_cast<void*>(entry(kd_a)), reinterpret_cast<const void*>(entry(kd_b)), 64);
  ASSERT_TRUE(run_isa("control.co", "k_const_a").ok());
  EXPECT_EQ(slot(0, 3), 0x2222u);
}

TEST_F(Control, RefusesUnsupportedRoundingMode) {
  auto o = run_isa("control.co", "k_round_mode");
  EXPECT_EQ(o.kind, Kind::Unimplemented);
  EXPECT_NE(o.message.find("FP_ROUND"), std::string::npos) << o.message;
}

}  // namespace

namespace {

class Scheduling : public IsaTest {};

TEST_F(Scheduling, SpinningWaveLetsItsWorkgroupProgress) {
  uint32_t* flag = mem.alloc_array<uint32_t>(4);
  auto o = run_isa("control.co", "k_spin", 128, 128, Args().add(flag));
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(*flag, 0x77u);
  for (unsigned l = 0; l < 64; ++l) ASSERT_EQ(out[l], 0x77u) << l;
}

}  // namespace

namespace {

// A Memory that implements only translate(): the shader core must work through the default
// page-granular lookup().
class TranslateOnly : public emu::shader::Memory {
 public:
  explicit TranslateOnly(HostMemory& m) : inner(m) {}
  uint8_t* translate(uint64_t va, uint64_t size, bool write) override {
    ++calls;
    return inner.translate(va, size, write);
  }
  HostMemory& inner;
  std::atomic<uint64_t> calls{0};
};

TEST(Faults, WorksWithTranslateOnlyMemory) {
  HostMemory mem;
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("basic.co"), mem), "");
  const unsigned n = 700;
  float* a = mem.alloc_array<float>(n); float* b = mem.alloc_array<float>(n); float* c = mem.alloc_array<float>(n);
  for (unsigned i = 0; i < n; ++i) { a[i] = static_cast<float>(i); b[i] = 0.25f; }
  // Build the packet with HostMemory, then run through the translate-only view.
  uint8_t* pkt = mem.alloc(64);
  uint16_t hdr = 2, setup = 1, block = 64, one = 1;
  uint32_t grid = n, gone = 1;
  uint64_t kd = co.kernel("vadd");
  std::memcpy(pkt, &hdr, 2); std::memcpy(pkt + 2, &setup, 2);
  std::memcpy(pkt + 4, &block, 2); std::memcpy(pkt + 6, &one, 2); std::memcpy(pkt + 8, &one, 2);
  std::memcpy(pkt + 12, &grid, 4); std::memcpy(pkt + 16, &gone, 4); std::memcpy(pkt + 20, &gone, 4);
  std::memcpy(pkt + 32, &kd, 8);
  Args args; args.add(a).add(b).add(c).add(n);
  uint8_t* ka = mem.alloc(256);
  std::memcpy(ka, args.data(), args.size());
  uint64_t kav = reinterpret_cast<uint64_t>(ka);
  std::memcpy(pkt + 40, &kav, 8);
  TranslateOnly view(mem);
  RecordingHooks hooks;
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, 1);
  auto o = core.run({reinterpret_cast<uint64_t>(pkt), 0, 0}, view, hooks);
  ASSERT_TRUE(o.ok()) << o.message;
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + 0.25f) << i;
  EXPECT_GT(view.calls.load(), 0u);
}

}  // namespace

namespace {

TEST(Faults, RejectsOversizedWorkgroup) {
  HostMemory mem;
  CodeObject co;
  ASSERT_EQ(co.load(kernel_path("basic.co"), mem), "");
  emu::shader::ShaderCore core(emu::shader::Target::gfx90a, 1);
  uint32_t* out = mem.alloc_array<uint32_t>(4096);
  Launch l; l.grid[0] = 2048; l.block[0] = 2048;
  Args a; a.add(out);
  auto o = dispatch(core, mem, co.kernel("partial_fill"), l, a.data(), a.size());
  // The AQL packet processor refuses it (not an emulator limit): the hardware's error bit.
  EXPECT_EQ(o.kind, Kind::InvalidPacket) << o.message;
  EXPECT_EQ(o.error, pm4::queue_error::kGroupTooLarge) << o.message;
  EXPECT_EQ(out[0], 0u);  // nothing ran
}

}  // namespace
