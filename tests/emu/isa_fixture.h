// SPDX-License-Identifier: MIT
// Fixture for the hand-written ISA kernels: loads tests/isa/<file>.co and runs one kernel with
// an output buffer of 16 slots x 64 lanes per wave (slot k of lane l at out[k*64 + l]).
#pragma once

#include <gtest/gtest.h>

#include "tests/emu/harness.h"

namespace emu_test {

class IsaTest : public ::testing::Test {
 protected:
  explicit IsaTest(emu::shader::Target target = emu::shader::Target::gfx90a) : core{target, 1} {}
  emu::shader::Outcome run_isa(const std::string& file, const std::string& kernel,
                               unsigned threads = 64, uint16_t block = 64, Args extra = {},
                               emu::shader::Hooks* hooks = nullptr, uint32_t dyn_lds = 0) {
    auto& co = objects_[file];
    if (!co.base()) { EXPECT_EQ(co.load(kernel_path(file), mem), ""); }
    uint64_t kd = co.kernel(kernel);
    EXPECT_NE(kd, 0u) << kernel;
    last_kd = kd;
    out = mem.alloc_array<uint32_t>(32 * 64 * ((threads + 63) / 64) + 64);
    for (unsigned i = 0; i < 16 * 64 * ((threads + 63) / 64); ++i) out[i] = 0xBADBAD;
    Args a;
    a.add(out);
    for (size_t i = 0; i < extra.size(); ++i) a.add(static_cast<const uint8_t*>(extra.data())[i]);
    Launch l;
    l.grid[0] = threads;
    l.block[0] = block;
    l.dynamic_lds = dyn_lds;
    l.scratch_lane_bytes = scratch_lane;
    l.scratch_waves = scratch_waves;
    l.scratch_backing = scratch_backing;
    return dispatch(core, mem, kd, l, a.data(), a.size(), hooks);
  }
  uint32_t slot(unsigned k, unsigned lane) const { return out[k * 64 + lane]; }
  float fslot(unsigned k, unsigned lane) const { float f; std::memcpy(&f, &out[k * 64 + lane], 4); return f; }

  HostMemory mem;
  emu::shader::ShaderCore core;
  uint32_t* out = nullptr;
  uint64_t last_kd = 0;  // descriptor of the last kernel run
  // The queue's scratch for run_isa (harness Launch fields): sized for the kernel by default.
  int64_t scratch_lane = -1;
  uint32_t scratch_waves = 0;
  uint8_t* scratch_backing = nullptr;

 private:
  std::map<std::string, CodeObject> objects_;
};

}  // namespace emu_test
