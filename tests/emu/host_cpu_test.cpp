// SPDX-License-Identifier: MIT
// emu::host_cpu() (the emulator's own CPUID reading) against GCC's __builtin_cpu_is/_supports.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "emu/shader/host_cpu.h"

#if defined(__x86_64__)
// The vendor and every instruction set the emulator picks loops by agree with libgcc's reading
// (which also checks XCR0 for the AVX states).
TEST(HostCpu, AgreesWithTheCompilersReading) {
  __builtin_cpu_init();
  const emu::HostCpu& c = emu::host_cpu();
  EXPECT_EQ(c.amd, __builtin_cpu_is("amd") != 0);
  EXPECT_EQ(c.sse2, __builtin_cpu_supports("sse2") != 0);
  EXPECT_EQ(c.avx2, __builtin_cpu_supports("avx2") != 0);
  EXPECT_EQ(c.fma, __builtin_cpu_supports("fma") != 0);
  EXPECT_EQ(c.bmi2, __builtin_cpu_supports("bmi2") != 0);
  EXPECT_EQ(c.avx512f, __builtin_cpu_supports("avx512f") != 0);
  EXPECT_TRUE(c.sse2) << "every x86-64 CPU has SSE2";
}
#endif

// ERMS is not among GCC's names; the /proc/cpuinfo flag the kernel derives from the same bit.
TEST(HostCpu, ErmsMatchesTheKernelsFlag) {
  FILE* f = std::fopen("/proc/cpuinfo", "re");
  if (!f) GTEST_SKIP() << "no /proc/cpuinfo";
  char line[8192];
  bool erms = false, seen = false;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "flags", 5) != 0) continue;
    seen = true;
    erms = std::strstr(line, " erms") != nullptr;
    break;
  }
  std::fclose(f);
  if (!seen) GTEST_SKIP() << "no flags line in /proc/cpuinfo";
  EXPECT_EQ(emu::host_cpu().erms, erms);
}
