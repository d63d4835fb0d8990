// SPDX-License-Identifier: MIT
// A copy that faults on the device: its wait ends in an error naming the address, earlier work is kept.
//
// A GPU fault ends the process's GPU work (as on hardware), so each path runs in a process of
// its own (tests/queues/meson.build). The fault comes from the emulator's fault injection on a
// range the runtime believes mapped; on a real GPU the test skips.
#include <gtest/gtest.h>

#include "copy_test_util.h"

namespace {

using namespace ctest;
using queues::CopyPath;

template <class F>
F control(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

class CopyFault : public testing::TestWithParam<CopyPath> {};

TEST_P(CopyFault, EndsTheWaitWithTheFaultingAddressAndKeepsEarlierCopies) {
  auto inject = control<int (*)(uint32_t, uint64_t, uint64_t)>("kfdemu_inject_fault");
  if (!inject) GTEST_SKIP() << "needs the emulator's fault injection";
  auto e = engine(GetParam());
  ASSERT_TRUE(e);
  if (!has(*e, GetParam())) GTEST_SKIP() << queues::copy_path_name(GetParam()) << " not available";
  const uint64_t n = 1u << 20;
  Mem src = Mem::host(n), good = Mem::device(n), bad = Mem::device(n), out = Mem::host(n);
  fill_pattern(src.bytes(), n, 4);
  ASSERT_OK(run([&](auto o) { return e->copy(good.va(), src.va(), n, o); }));
  ASSERT_OK(run([&](auto o) { return e->copy(out.va(), good.va(), n, o); }));
  const uint64_t hole = bad.va(64 << 10);
  ASSERT_EQ(inject(gpu_dev().gpu_id, hole, 4096), 0);
  Done d;
  ASSERT_OK(e->copy(bad.va(), src.va(), n, d.order()));
  auto st = d.wait(30s);
  ASSERT_FALSE(st.ok()) << "a copy into an unmapped page completed";
  EXPECT_EQ(st.error().kind, base::ErrorKind::DeviceFault) << st.message();
  EXPECT_NE(st.message().find(base::hex(hole)), std::string::npos) << st.message();
  // What completed before the fault is intact on the host; later waits report the fault too.
  EXPECT_EQ(first_mismatch(out.bytes(), n, 4), n);
  EXPECT_FALSE(e->wait_idle(10s).ok());
}

INSTANTIATE_TEST_SUITE_P(Paths, CopyFault, testing::Values(CopyPath::Sdma, CopyPath::Blit), path_name);

}  // namespace
