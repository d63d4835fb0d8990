// SPDX-License-Identifier: MIT
// The emulator's control API (emu/control.h): configuration before first use, refused after it.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "emu/control.h"
#include "kfd/kfd.h"
#include "kfd/topology.h"

namespace {

// The control functions are looked up at run time: this binary does not link the emulator, it
// runs with it preloaded (and skips on a real GPU, where there is nothing to configure).
template <class F>
F control(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

kfdemu_config config_with(int gpus, const char* target, uint64_t vram, int cus) {
  kfdemu_config c{};
  c.gpus = gpus;
  std::snprintf(c.target, sizeof c.target, "%s", target);
  c.vram_bytes = vram;
  c.cus = cus;
  c.kfd_minor = 16;
  return c;
}

// One sequence (configuration is only possible before /dev/kfd is first opened in the process).
TEST(EmulatorControl, ConfiguresDevicesBeforeFirstUseOnly) {
  auto present = control<int (*)()>("kfdemu_present");
  auto configure = control<int (*)(const kfdemu_config*)>("kfdemu_configure");
  auto get = control<void (*)(kfdemu_config*)>("kfdemu_get_config");
  if (!present || !configure || !get) GTEST_SKIP() << "not on the emulated GPU";
  EXPECT_EQ(present(), 1);

  // Invalid configurations are refused and change nothing.
  kfdemu_config before{};
  get(&before);
  EXPECT_EQ(configure(nullptr), -1);
  const uint64_t gib = 1ull << 30;
  for (const kfdemu_config& bad :
       {config_with(0, "gfx90a", gib, 10), config_with(9, "gfx90a", gib, 10),
        config_with(1, "gfx1234", gib, 10), config_with(1, "gfx90a", gib, 0)}) {
    EXPECT_EQ(configure(&bad), -1) << bad.gpus << " " << bad.target << " " << bad.cus;
  }
  kfdemu_config bad_model = config_with(1, "gfx90a", gib, 10);
  bad_model.memory_model = 7;  // neither strict nor sc
  EXPECT_EQ(configure(&bad_model), -1);
  bad_model.memory_model = KFDEMU_MEMORY_MODEL_STRICT;
  bad_model.l2_lines = 3;  // cannot hold a wave's access
  EXPECT_EQ(configure(&bad_model), -1);
  kfdemu_config same{};
  get(&same);
  EXPECT_EQ(same.gpus, before.gpus);
  EXPECT_STREQ(same.target, before.target);

  // A valid one takes effect: the topology shows it once /dev/kfd is opened.
  kfdemu_config two = config_with(2, "gfx908", gib, 10);
  two.memory_model = KFDEMU_MEMORY_MODEL_SC;
  two.l2_lines = 4096;
  ASSERT_EQ(configure(&two), 0);
  kfdemu_config now{};
  get(&now);
  EXPECT_EQ(now.gpus, 2);
  EXPECT_EQ(now.memory_model, KFDEMU_MEMORY_MODEL_SC);
  EXPECT_EQ(now.l2_lines, 4096u);
  EXPECT_STREQ(now.target, "gfx908");
  EXPECT_EQ(now.vram_bytes, gib);
  auto k = kfd::Kfd::open();
  ASSERT_TRUE(k.ok()) << k.message();
  auto topo = kfd::read_topology();
  ASSERT_TRUE(topo.ok()) << topo.message();
  ASSERT_EQ(topo->gpus().size(), 2u);
  for (const kfd::Node* g : topo->gpus()) {
    EXPECT_EQ(g->gfx_name(), "gfx908");
    EXPECT_EQ(g->props.simd_count / g->props.simd_per_cu, 10u);
    EXPECT_EQ(g->vram_size(), gib);
  }

  // In use now: refused, and the devices stay as they are.
  const kfdemu_config late = config_with(1, "gfx90a", gib, 10);
  EXPECT_EQ(configure(&late), -1);
  get(&now);
  EXPECT_EQ(now.gpus, 2);
}

}  // namespace
