// SPDX-License-Identifier: MIT
// PM4 DISPATCH_DIRECT of real kernels on a raw compute queue: the kernel starts from the COMPUTE_* registers the queue's SET_SH_REG packets wrote, exactly as a runtime programs them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <random>
#include <thread>

#include "pm4/aql.h"
#include "pm4/family.h"
#include "pm4/kernel_descriptor.h"
#include "pm4/regs.h"
#include "pm4/type3.h"
#include "tests/emu/engine_util.h"

namespace engtest {
namespace {

using Dw = std::vector<uint32_t>;
namespace reg = pm4::reg;

Dw& operator+=(Dw& a, const Dw& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Dw set_sh(uint32_t r, Dw values) {
  Dw v(2 + values.size());
  v.resize(pm4::write_set_sh_reg(v.data(), r, values));
  return v;
}

// What one dispatch needs besides the kernel: the runtime's choices.
struct Launch {
  uint32_t wg[3] = {1, 1, 1};
  uint32_t grid[3] = {1, 1, 1};  // work-items (what the fake AQL packet reports to the kernel)
  uint32_t dim[3] = {1, 1, 1};   // DISPATCH_DIRECT's DIM_X/Y/Z
  uint32_t start[3] = {};
  bool thread_dims = true;
  uint32_t lds_granules = 0;     // RSRC2.LDS_SIZE
  uint32_t tmpring = 0;
  uint64_t scratch = 0;          // scratch backing store (V# base, flat scratch init)
  uint32_t scratch_lane = 0;     // private segment size per lane
};

class Pm4Dispatch : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (HasFatalFailure()) return;
    family_ = pm4::family_for(gpu0().node->props.gfx_target_version);
    ASSERT_NE(family_, nullptr);
  }
  // <base>.co is built for gfx90a; basic_gfx906.co and basic_gfx908.co for the older targets.
  std::string object(const std::string& base) {
    switch (gpu0().node->props.gfx_target_version) {
      case 90010: return base + ".co";
      case 90006: return base == "basic" ? "basic_gfx906.co" : "";
      case 90008: return base == "basic" ? "basic_gfx908.co" : "";
      default: return "";
    }
  }
  uint64_t kernel(const std::string& object_base, const std::string& name) {
    const std::string file = object(object_base);
    if (file.empty() || access(kernel_path(file).c_str(), R_OK) != 0) return 0;  // not built here
    code_.push_back(std::make_unique<GpuCode>());
    const std::string err = code_.back()->load(kernel_path(file), dev(), gpu0());
    EXPECT_EQ(err, "");
    return code_.back()->kernel_descriptor(name);
  }

  // The user SGPRs the descriptor asks for, in AMDGPUUsage order, as a runtime writes them into
  // COMPUTE_USER_DATA: the private segment V#, a dispatch packet (kernels read blockDim from it),
  // kernarg pointer, flat scratch init and private segment size.
  Dw user_data(const pm4::KernelDescriptor& kd, const Launch& l, uint64_t kernarg) {
    const pm4::CodeProperties c = pm4::decode_code_properties(kd.kernel_code_properties);
    auto* pkt = host<pm4::aql::KernelDispatchPacket>(1);
    pkt->workgroup_size_x = uint16_t(l.wg[0]);
    pkt->workgroup_size_y = uint16_t(l.wg[1]);
    pkt->workgroup_size_z = uint16_t(l.wg[2]);
    pkt->grid_size_x = l.grid[0];
    pkt->grid_size_y = l.grid[1];
    pkt->grid_size_z = l.grid[2];
    Dw u;
    auto put64 = [&](uint64_t v) { u.push_back(uint32_t(v)); u.push_back(uint32_t(v >> 32)); };
    if (c.private_segment_buffer) {
      uint32_t v[4];
      scratch_vsharp(l.scratch, v);
      u.insert(u.end(), v, v + 4);
    }
    if (c.dispatch_ptr) put64(reinterpret_cast<uint64_t>(pkt));
    if (c.queue_ptr) put64(0);
    if (c.kernarg_segment_ptr) put64(kernarg);
    if (c.dispatch_id) put64(0);
    if (c.flat_scratch_init) put64(l.scratch);
    if (c.private_segment_size) u.push_back(l.scratch_lane);
    EXPECT_EQ(u.size(), pm4::decode_rsrc2(kd.compute_pgm_rsrc2).user_sgpr_count);
    return u;
  }

  // SET_SH_REG of everything DISPATCH_DIRECT reads, then the dispatch.
  Dw program(uint64_t kd_va, const Launch& l, const void* args, size_t args_size) {
    pm4::KernelDescriptor kd;
    std::memcpy(&kd, reinterpret_cast<const void*>(kd_va), sizeof kd);
    auto* ka = host<uint8_t>(std::max<size_t>(args_size, 256));
    std::memcpy(ka, args, args_size);
    const uint64_t code = kd_va + kd.kernel_code_entry_byte_offset;
    const uint32_t rsrc2 = (kd.compute_pgm_rsrc2 & ~reg::kRsrc2LdsSizeMask) | l.lds_granules << reg::kRsrc2LdsSizeShift;
    Dw p;
    p += set_sh(reg::kComputeStartX, {l.start[0], l.start[1], l.start[2], reg::num_thread(l.wg[0]),
                                      reg::num_thread(l.wg[1]), reg::num_thread(l.wg[2])});
    p += set_sh(reg::kComputePgmLo, {reg::pgm_lo(code), reg::pgm_hi(code)});
    p += set_sh(reg::kComputePgmRsrc1, {kd.compute_pgm_rsrc1, rsrc2});
    if (family_->compute_pgm_rsrc3_reg) p += set_sh(family_->compute_pgm_rsrc3_reg, {kd.compute_pgm_rsrc3});
    p += set_sh(reg::kComputeResourceLimits, {0});
    p += set_sh(reg::kComputeTmpringSize, {l.tmpring});
    const Dw u = user_data(kd, l, reinterpret_cast<uint64_t>(ka));
    if (!u.empty()) p += set_sh(reg::kComputeUserData0, u);
    pm4::DispatchDirect dd;
    for (int i = 0; i < 3; ++i) dd.dim[i] = l.dim[i];
    dd.initiator = reg::initiator::kComputeShaderEn | (l.thread_dims ? reg::initiator::kUseThreadDimensions : 0);
    Dw d(pm4::kDispatchDirectDwords);
    pm4::write_dispatch_direct(d.data(), dd);
    p += d;
    return p;
  }

  const pm4::Family* family_ = nullptr;
  std::vector<std::unique_ptr<GpuCode>> code_;
};

TEST_F(Pm4Dispatch, Grid3dWithPartialWorkgroupsInThreadDimensions) {
  const uint64_t kd = kernel("basic", "grid3d");
  if (!kd) GTEST_SKIP() << "no corpus build for this target";
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  const uint32_t nx = 37, ny = 5, nz = 3, n = nx * ny * nz;
  auto* out = host<uint32_t>(n + 64);
  struct { uint32_t* out; uint32_t nx, ny, nz; } args{out, nx, ny, nz};
  Launch l;
  l.wg[0] = 8, l.wg[1] = 4, l.wg[2] = 2;
  l.grid[0] = l.dim[0] = nx, l.grid[1] = l.dim[1] = ny, l.grid[2] = l.dim[2] = nz;
  q.submit(program(kd, l, &args, sizeof args));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t z = 0; z < nz; ++z)
    for (uint32_t y = 0; y < ny; ++y)
      for (uint32_t x = 0; x < nx; ++x)
        ASSERT_EQ(out[(z * ny + y) * nx + x], x + 100 * y + 10000 * z + 1) << x << "," << y << "," << z;
  for (uint32_t i = n; i < n + 64; ++i) EXPECT_EQ(out[i], 0u);
}

// DIM counts workgroups: the grid is whole workgroups, the kernel's bounds check trims it.
TEST_F(Pm4Dispatch, VectorAddInWorkgroupDimensions) {
  const uint64_t kd = kernel("basic", "vadd");
  if (!kd) GTEST_SKIP() << "no corpus build for this target";
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  const uint32_t n = 1000;
  auto* a = host<float>(n);
  auto* b = host<float>(n);
  auto* c = host<float>(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
  struct { float *a, *b, *c; uint32_t n; } args{a, b, c, n};
  Launch l;
  l.wg[0] = 64;
  l.dim[0] = (n + 63) / 64;
  l.grid[0] = l.dim[0] * 64;
  l.thread_dims = false;
  q.submit(program(kd, l, &args, sizeof args));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], 1.5f * float(i)) << i;
}

// COMPUTE_START_X: the dispatch runs workgroups [START, DIM) with their own ids.
TEST_F(Pm4Dispatch, StartSkipsTheFirstWorkgroups) {
  const uint64_t kd = kernel("basic", "partial_fill");
  if (!kd) GTEST_SKIP() << "no corpus build for this target";
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  auto* out = host<uint32_t>(256);
  struct { uint32_t* out; } args{out};
  Launch l;
  l.wg[0] = 64;
  l.dim[0] = 4;
  l.start[0] = 2;
  l.grid[0] = 256;
  l.thread_dims = false;
  q.submit(program(kd, l, &args, sizeof args));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t i = 0; i < 128; ++i) ASSERT_EQ(out[i], 0u) << i;
  for (uint32_t i = 128; i < 256; ++i) ASSERT_EQ(out[i], i * 3 + 1) << i;
}

// LDS is RSRC2.LDS_SIZE granules, and no more: with half of what the kernel uses, the upper
// half's stores are dropped and its loads read 0, as on hardware.
TEST_F(Pm4Dispatch, LdsSizeComesFromRsrc2) {
  const uint64_t kd = kernel("lds", "reverse_dynamic");
  if (!kd) GTEST_SKIP() << "the LDS corpus is built for gfx90a only";
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  const uint32_t b = 256, groups = 4, n = b * groups;
  auto* in = host<uint32_t>(n);
  auto* out = host<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 11 + 3;
  struct { uint32_t *in, *out; } args{in, out};
  Launch l;
  l.wg[0] = b;
  l.grid[0] = l.dim[0] = n;
  l.lds_granules = b * 4 / family_->lds_granule_bytes;
  q.submit(program(kd, l, &args, sizeof args));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[(i / b) * b + b - 1 - i % b]) << i;
  l.lds_granules /= 2;
  std::memset(out, 0xff, n * 4);
  q.submit(program(kd, l, &args, sizeof args));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t t = i % b;
    ASSERT_EQ(out[i], t < b / 2 ? 0u : in[(i / b) * b + b - 1 - t]) << i;
  }
}

// Scratch: SCRATCH_EN, the V# in USER_DATA_0..3 and COMPUTE_TMPRING_SIZE's slots.
TEST_F(Pm4Dispatch, ScratchFromUserDataAndTmpring) {
  const uint64_t kd_va = kernel("scratch", "private_array");
  if (!kd_va) GTEST_SKIP() << "the scratch corpus is built for gfx90a only";
  pm4::KernelDescriptor kd;
  std::memcpy(&kd, reinterpret_cast<const void*>(kd_va), sizeof kd);
  ASSERT_TRUE(pm4::decode_rsrc2(kd.compute_pgm_rsrc2).enable_private_segment);
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  const uint32_t n = 200, waves = 8;
  const uint32_t lane = (kd.private_segment_fixed_size + 15) / 16 * 16;
  auto* idx = host<uint32_t>(n);
  auto* out = host<uint32_t>(n);
  std::mt19937 rng(5);
  for (uint32_t i = 0; i < n; ++i) idx[i] = rng() % 1000;
  Launch l;
  l.wg[0] = 64;
  l.grid[0] = l.dim[0] = n;
  l.scratch_lane = lane;
  l.tmpring = tmpring_gfx9(waves, lane);
  l.scratch = buffer(uint64_t(lane) * 64 * waves + 4096, Kind::Vram).va();
  struct { uint32_t *idx, *out; uint32_t n; } args{idx, out, n};
  q.submit(program(kd_va, l, &args, sizeof args));
  ASSERT_TRUE(q.wait_consumed());
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t s = 0;
    for (uint32_t k = 0; k < 16; ++k) s += ((idx[i] + k * 13) % 300) * 7 + i;
    ASSERT_EQ(out[i], s) << i;
  }
  // No slots in COMPUTE_TMPRING_SIZE: the dispatch cannot start; the queue stops saying why.
  RawQueue& q2 = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  l.tmpring = 0;
  testing::internal::CaptureStderr();
  q2.submit(program(kd_va, l, &args, sizeof args));
  std::this_thread::sleep_for(100ms);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(q2.consumed());
  EXPECT_NE(log.find("COMPUTE_TMPRING_SIZE"), std::string::npos) << log;
}

// kfdtest's dispatch: the program in an IB, then RELEASE_MEM raising the caller's event.
TEST_F(Pm4Dispatch, InAnIbCompletingWithAnEvent) {
  const uint64_t kd = kernel("basic", "partial_fill");
  if (!kd) GTEST_SKIP() << "no corpus build for this target";
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  SignalEvent ev = signal_event();
  auto* out = host<uint32_t>(100);
  struct { uint32_t* out; } args{out};
  Launch l;
  l.wg[0] = 32;
  l.grid[0] = l.dim[0] = 100;
  Dw body(pm4::kAcquireMemDwordsGfx10);
  body.resize(pm4::write_acquire_mem(body.data(), pm4::acquire_invalidate_all(*family_), family_->acquire_mem));
  body += program(kd, l, &args, sizeof args);
  auto* ib = host<uint32_t>(body.size());
  std::memcpy(ib, body.data(), body.size() * 4);
  pm4::IndirectBuffer b;
  b.address = reinterpret_cast<uint64_t>(ib);
  b.dwords = uint32_t(body.size());
  Dw ring(pm4::kIndirectBufferDwords);
  pm4::write_indirect_buffer(ring.data(), b);
  pm4::ReleaseMem r;
  r.cache = pm4::release_cache_writeback(*family_);
  r.data_sel = pm4::kData32;
  r.address = ev.slot_va();
  r.data = r.int_ctxid = ev.id;
  r.int_sel = pm4::kIntAfterWriteConfirm;
  Dw rel(pm4::kReleaseMemDwords);
  pm4::write_release_mem(rel.data(), r);
  ring += rel;
  q.submit(ring);
  ASSERT_EQ(wait_event(ev.id, 20000), kfd::WaitResult::Complete);
  for (uint32_t i = 0; i < 100; ++i) ASSERT_EQ(out[i], i * 3 + 1) << i;
}

// A kernel's bad access: MEMORY event naming the address, the queue stops after the dispatch.
TEST_F(Pm4Dispatch, KernelPageFaultStopsTheQueue) {
  const uint64_t kd = kernel("basic", "oob_write");
  if (!kd) GTEST_SKIP() << "no corpus build for this target";
  RawQueue& q = queue(KFD_IOC_QUEUE_TYPE_COMPUTE);
  const uint32_t mem = memory_event();
  const uint64_t bad = unmapped_va();
  struct { uint64_t out; uint32_t index; } args{bad, 0};
  Launch l;
  l.wg[0] = 64;
  l.grid[0] = l.dim[0] = 64;
  testing::internal::CaptureStderr();
  q.submit(program(kd, l, &args, sizeof args));
  kfd_hsa_memory_exception_data d{};
  const bool got = wait_memory_event(mem, 20000, &d);
  testing::internal::GetCapturedStderr();
  ASSERT_TRUE(got);
  EXPECT_EQ(d.va, bad);
  EXPECT_FALSE(q.consumed());
}

}  // namespace
}  // namespace engtest
