// SPDX-License-Identifier: MIT
// What a process holds, for the leak tests: the emulated amdkfd's counts (emu/control.h) and RSS.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "emu/control.h"

namespace leak {

// The emulator's kfdemu_get_counts, or null on a real device (then only RSS is compared).
inline int (*get_counts_fn())(kfdemu_counts*) {
  return reinterpret_cast<int (*)(kfdemu_counts*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_counts"));
}

// Resident set size in bytes (/proc/self/statm).
inline uint64_t rss_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}

struct Snapshot {
  bool have_counts = false;
  kfdemu_counts c{};
  uint64_t rss = 0;
};

inline Snapshot snapshot() {
  Snapshot s;
  if (auto f = get_counts_fn()) s.have_counts = f(&s.c) == 0;
  s.rss = rss_bytes();
  return s;
}

// Differences between two snapshots' counts, as "name before->after" items; empty when equal.
inline std::string count_diff(const Snapshot& a, const Snapshot& b) {
  std::string out;
  if (!a.have_counts || !b.have_counts) return out;
  auto cmp = [&](const char* name, uint64_t x, uint64_t y) {
    if (x != y) out += std::string(" ") + name + " " + std::to_string(x) + "->" + std::to_string(y);
  };
#define LEAK_CMP(f) cmp(#f, a.c.f, b.c.f)
  LEAK_CMP(bos); LEAK_CMP(bos_vram); LEAK_CMP(bos_gtt); LEAK_CMP(bos_userptr);
  LEAK_CMP(bos_doorbell); LEAK_CMP(bos_mmio); LEAK_CMP(vram_bytes); LEAK_CMP(gtt_bytes);
  LEAK_CMP(queues); LEAK_CMP(queues_aql); LEAK_CMP(queues_pm4); LEAK_CMP(queues_sdma);
  LEAK_CMP(events); LEAK_CMP(signal_events); LEAK_CMP(doorbell_pages); LEAK_CMP(doorbells);
  LEAK_CMP(gpu_mappings); LEAK_CMP(svm_ranges);
#undef LEAK_CMP
  return out;
}

// RSS may grow a little for reasons other than leaks (allocator arenas, lazily touched pages);
// a leak of one small object per iteration over thousands of iterations exceeds this.
constexpr uint64_t kRssSlack = 8ull << 20;

// Under a sanitizer's allocator (preloaded into programs it did not instrument too) RSS says
// nothing about leaks: ASan keeps freed memory in a quarantine of up to 256 MiB, and both keep
// shadow memory. Then only the driver's counts are compared (and LeakSanitizer checks the heap).
inline bool rss_meaningful() {
  static const bool plain = !dlsym(RTLD_DEFAULT, "__asan_init") && !dlsym(RTLD_DEFAULT, "__tsan_init");
  return plain;
}

}  // namespace leak

// Runs the body (the arguments after n) for a warm-up (first-use allocations: pools, size
// classes, queues, code: the first 128 iterations, or n when fewer), snapshots, runs it n times
// more, and checks that the counts are back at the snapshot and that RSS grew by at most the
// slack. The body sees its iteration in leak_i_.
#define EXPECT_NO_LEAK(n, ...)                                                              \
  do {                                                                                       \
    const int leak_warm_ = (n) < 128 ? (n) : 128;                                              \
    for (int leak_i_ = 0; leak_i_ < leak_warm_; ++leak_i_) {                                 \
      __VA_ARGS__;                                                                            \
    }                                                                                        \
    const leak::Snapshot leak_before_ = leak::snapshot();                                    \
    for (int leak_i_ = leak_warm_; leak_i_ < leak_warm_ + (n); ++leak_i_) {                  \
      __VA_ARGS__;                                                                            \
      if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) break; \
    }                                                                                        \
    const leak::Snapshot leak_after_ = leak::snapshot();                                     \
    EXPECT_EQ(leak::count_diff(leak_before_, leak_after_), "") << "after " << (n) << " iterations"; \
    if (leak::rss_meaningful()) {                                                            \
      EXPECT_LE(leak_after_.rss, leak_before_.rss + leak::kRssSlack)                         \
          << "RSS grew by " << (leak_after_.rss - leak_before_.rss) / 1024 << " KiB over " << (n) \
          << " iterations";                                                                  \
    }                                                                                        \
  } while (0)
