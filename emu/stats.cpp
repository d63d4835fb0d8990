// SPDX-License-Identifier: MIT
// Engine statistics: the counters, kfdemu_get_stats, and the KFDEMU_STATS report written at exit.
#include "emu/stats.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "emu/control.h"

namespace emu::stats {
namespace {

void fill(kfdemu_stats* s) {
  const Counters& c = counters();
  s->queues_aql = c.queues_aql.load(std::memory_order_relaxed);
  s->queues_pm4 = c.queues_pm4.load(std::memory_order_relaxed);
  s->queues_sdma = c.queues_sdma.load(std::memory_order_relaxed);
  s->queues_sdma_xgmi = c.queues_sdma_xgmi.load(std::memory_order_relaxed);
  s->aql_packets = c.aql_packets.load(std::memory_order_relaxed);
  s->aql_dispatches = c.aql_dispatches.load(std::memory_order_relaxed);
  s->pm4_packets = c.pm4_packets.load(std::memory_order_relaxed);
  s->pm4_dispatches = c.pm4_dispatches.load(std::memory_order_relaxed);
  s->sdma_packets = c.sdma_packets.load(std::memory_order_relaxed);
  s->sdma_copies = c.sdma_copies.load(std::memory_order_relaxed);
  s->sdma_copy_bytes = c.sdma_copy_bytes.load(std::memory_order_relaxed);
  s->sdma_fills = c.sdma_fills.load(std::memory_order_relaxed);
  s->sdma_streamed_bytes = c.sdma_streamed_bytes.load(std::memory_order_relaxed);
}

// KFDEMU_STATS=path ("%p" stands for the pid): the counters as one JSON object, at exit.
void report() {
  const char* env = std::getenv("KFDEMU_STATS");
  if (!env || !*env) return;
  std::string path = env;
  if (auto at = path.find("%p"); at != std::string::npos) path.replace(at, 2, std::to_string(getpid()));
  kfdemu_stats s;
  fill(&s);
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "kfdemu: KFDEMU_STATS: cannot write %s\n", path.c_str());
    return;
  }
  std::fprintf(f,
               "{\"queues_aql\":%llu,\"queues_pm4\":%llu,\"queues_sdma\":%llu,\"queues_sdma_xgmi\":%llu,"
               "\"aql_packets\":%llu,\"aql_dispatches\":%llu,\"pm4_packets\":%llu,\"pm4_dispatches\":%llu,"
               "\"sdma_packets\":%llu,\"sdma_copies\":%llu,\"sdma_copy_bytes\":%llu,\"sdma_fills\":%llu,\"sdma_streamed_bytes\":%llu}\n",
               (unsigned long long)s.queues_aql, (unsigned long long)s.queues_pm4,
               (unsigned long long)s.queues_sdma, (unsigned long long)s.queues_sdma_xgmi,
               (unsigned long long)s.aql_packets, (unsigned long long)s.aql_dispatches,
               (unsigned long long)s.pm4_packets, (unsigned long long)s.pm4_dispatches,
               (unsigned long long)s.sdma_packets, (unsigned long long)s.sdma_copies,
               (unsigned long long)s.sdma_copy_bytes, (unsigned long long)s.sdma_fills,
               (unsigned long long)s.sdma_streamed_bytes);
  std::fclose(f);
}

}  // namespace

Counters& counters() {
  static Counters* c = new Counters;  // never destroyed: engines may count during exit
  return *c;
}

void arm_report() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("KFDEMU_STATS");
    if (env && *env) std::atexit(report);
  });
}

}  // namespace emu::stats

extern "C" void kfdemu_get_stats(struct kfdemu_stats* s) { emu::stats::fill(s); }
