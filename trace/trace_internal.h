// SPDX-License-Identifier: MIT
// The recorder's state shared by trace.cpp and the JSON renderer (internal to trace/).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/trace.h"

namespace trace {

struct Chunk {
  static constexpr uint32_t kRecords = 1024;
  Record r[kRecords];
  std::atomic<uint32_t> used{0};
  std::atomic<Chunk*> next{nullptr};
};

struct ThreadBuf {
  uint64_t session = 0;
  uint32_t tid = 0;  // the thread's track in the trace
  Chunk* head = nullptr;
  Chunk* tail = nullptr;  // written by the owning thread only
};

struct ClockPoint {
  uint64_t gpu = 0, ns = 0;
};
struct GpuClock {
  ClockPoint first, last;
};

struct State {
  std::mutex mu;
  std::string path;  // non-empty while a session runs
  uint64_t t_start = 0;
  std::vector<ThreadBuf*> bufs;
  std::unordered_map<uint64_t, std::string> kernels;
  std::map<uint32_t, GpuClock> clocks;
  std::vector<void (*)()> stop_hooks;
  bool exit_registered = false;
};

// The session's records as trace-event JSON objects separated by ",\n" (mu held).
std::string render_events(State& s, uint64_t session);

}  // namespace trace
