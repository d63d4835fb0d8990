// SPDX-License-Identifier: MIT
// The emulated command processor: one thread per GPU that watches doorbells and executes AQL packets.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu/kfd_process.h"
#include "pm4/aql.h"

namespace emu {

// Runs one kernel dispatch packet on the shader core (emu/dispatch.cpp). Returns an empty string
// on success, else why the queue must stop; sets *error and *fault_va.
struct DispatchResult {
  uint64_t error = 0;         // pm4::queue_error bits for queue_inactive_signal
  bool memory_fault = false;  // a page fault: a MEMORY event instead of a queue error
  uint64_t fault_va = 0;
  bool fault_write = false;
  std::string message;
};
DispatchResult run_kernel_dispatch(Process& p, DeviceState& d, uint64_t packet_va,
                                   uint64_t queue_va, uint64_t dispatch_id);

class CommandProcessor {
 public:
  CommandProcessor(Process& p, DeviceState& d);
  ~CommandProcessor();

  void add_queue(std::shared_ptr<Queue> q);
  // Removes a queue; returns once the command processor no longer touches it.
  void remove_queue(const std::shared_ptr<Queue>& q);
  void stop();

 private:
  enum class Step { Done, Blocked, Failed };
  void run();
  bool service(Queue& q);
  Step execute(Queue& q, uint8_t* pkt, uint64_t index);
  Step barrier(Queue& q, uint8_t* pkt, bool is_and);
  Step barrier_value(Queue& q, uint8_t* pkt);
  bool complete(Queue& q, uint64_t signal_va, uint64_t start_ts);
  bool profiling(const Queue& q);
  bool load_signal(Queue& q, uint64_t signal_va, int64_t* value);
  // Stops the queue with queue error bits (pm4/queue_error.h), named on stderr.
  void fail(Queue& q, uint64_t error_bits, const std::string& why);
  // Stops the queue on a page fault: the driver's MEMORY event carries the address (no queue error).
  void fault(Queue& q, const std::string& why, uint64_t va, bool write);
  void backoff(unsigned idle_rounds);

  Process& p_;
  DeviceState& d_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::shared_ptr<Queue>> queues_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace emu
