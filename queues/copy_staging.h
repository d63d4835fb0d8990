// SPDX-License-Identifier: MIT
// Pinned staging buffers of a copy engine for pageable host memory, one set per direction.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "queues/copy_engine.h"

namespace queues {

// `count` GTT buffers of `chunk` bytes, each with a signal that is 1 while the engine uses it.
// One pageable copy per direction at a time holds `mu` (the buffers are its pipeline).
struct Staging {
  struct Buffer {
    uint8_t* host = nullptr;
    std::unique_ptr<Signal> busy;
  };
  Staging(Runtime& rt, uint32_t gpu_id) : rt(rt), gpu_id(gpu_id) {}
  ~Staging();
  base::Status init(uint64_t chunk_bytes, uint32_t count);  // once, under mu
  // Waits until buffer i is free again (its last copy completed).
  base::Status wait_free(size_t i);

  Runtime& rt;
  uint32_t gpu_id;
  std::mutex mu;
  uint64_t chunk = 0;
  std::vector<Buffer> buffers;
};

}  // namespace queues
