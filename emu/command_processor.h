// SPDX-License-Identifier: MIT
// The emulated GPU's engines: the thread loop every engine runs, and the command processor (AQL and PM4 queues).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu/kfd_process.h"
#include "emu/shader/cache.h"
#include "emu/shader/shader.h"
#include "pm4/aql.h"
#include "pm4/family.h"

namespace emu {

// The outcome of a kernel dispatch on the shader core (emu/dispatch.cpp).
struct DispatchResult {
  uint64_t error = 0;         // pm4::queue_error bits for queue_inactive_signal
  bool memory_fault = false;  // a page fault: a MEMORY event instead of a queue error
  bool scratch_too_small = false;  // the queue's scratch cannot hold the dispatch (no wave ran)
  bool preempted = false;     // the queue is being destroyed: stopped, nothing to report
  uint64_t fault_va = 0;
  bool fault_write = false;
  std::string message;
};
// One AQL kernel dispatch packet of queue `q` (its waves stop once q.dead is set).
// `lookups`: the calling thread's mapping cache, for the dispatch set-up it does itself.
DispatchResult run_kernel_dispatch(Process& p, DeviceState& d, const Queue& q, uint64_t packet_va,
                                   uint64_t queue_va, uint64_t dispatch_id, LookupCache* lookups = nullptr);
// One PM4 DISPATCH_DIRECT: the kernel the COMPUTE_* registers describe.
DispatchResult run_register_dispatch(Process& p, DeviceState& d, const shader::RegisterDispatch& r);
// Builds the device's shader core (its decode tables) ahead of the first dispatch.
void prepare_dispatch(DeviceState& d);
// The lock under which a device's shader core (its opcode tables) is built; held across fork().
std::mutex& shader_build_mutex();

// What one packet came to: retired; waiting for memory or the runtime (retried later without
// holding the engine); part done after a long run, to be continued (the engine serves other
// queues meanwhile); or the queue stopped.
enum class Step { Done, Blocked, Yield, Failed };

std::string hex(uint64_t v);  // "0x1f"

// A GPU byte range as host memory: one piece per mapping it crosses.
struct HostSpan {
  uint8_t* host;
  uint64_t len;
};
// The pieces of [va, va+size) when every byte is mapped to the GPU (writable when `write`), else
// false with *bad set to the first byte that is not (engines check every byte they touch).
bool gpu_range(const DeviceState& d, uint64_t va, uint64_t size, bool write,
               std::vector<HostSpan>* out, uint64_t* bad);
// The first byte of [va, va+size) that is not mapped (writable); va + size when all are.
uint64_t first_bad_byte(const DeviceState& d, uint64_t va, uint64_t size, bool write);
// Walks two span lists of equal total length in step: copy(dst, src, n) for each run where a
// destination span and a source span overlap in position (the piece lists of gpu_range).
template <class Copy>
void for_each_span_pair(const std::vector<HostSpan>& dst, const std::vector<HostSpan>& src, Copy&& copy) {
  size_t di = 0, si = 0;
  uint64_t doff = 0, soff = 0;
  while (di < dst.size() && si < src.size()) {
    const uint64_t n = std::min(dst[di].len - doff, src[si].len - soff);
    copy(dst[di].host + doff, src[si].host + soff, n);
    doff += n;
    soff += n;
    if (doff == dst[di].len) { ++di; doff = 0; }
    if (soff == src[si].len) { ++si; soff = 0; }
  }
}
// Copies as a DMA engine does, reading ascending addresses: where the ranges overlap with the
// destination above the source, the result is that of a forward copy (the source's first bytes
// repeat), not memmove's.
void dma_copy(const std::vector<HostSpan>& dst, const std::vector<HostSpan>& src);
// A TC atomic (PM4 ATOMIC_MEM, SDMA ATOMIC; op codes in pm4/type3.h AtomicOp) on naturally
// aligned host memory. Returns false only for a compare-swap whose compare failed.
bool tc_atomic(uint8_t* host, uint32_t op, uint64_t src, uint64_t cmp);
// Fills with a repeating pattern of `unit` bytes (1, 2, 4 or 8; the range is a multiple of it).
void dma_fill(const std::vector<HostSpan>& dst, uint64_t pattern, unsigned unit);

// One hardware engine: a thread that round-robins over the queues assigned to it and backs off
// when none has work (an idle engine must not burn a core). A queue is removed only once the
// thread no longer touches it (it holds Queue::busy while it works on one).
class EngineThread {
 public:
  EngineThread(Process& p, DeviceState& d);
  virtual ~EngineThread();
  EngineThread(const EngineThread&) = delete;
  EngineThread& operator=(const EngineThread&) = delete;

  void add_queue(std::shared_ptr<Queue> q);
  // Ends an idle sleep at once: a host thread is about to block on work it gave the device.
  void kick();
  // Removes a queue; returns once the engine no longer touches it.
  void remove_queue(const std::shared_ptr<Queue>& q);
  void stop();

 protected:
  void start();  // the derived class's constructor calls it last
  // Works on one queue; true when it made progress.
  virtual bool service(Queue& q) = 0;
  // Runs on the engine's thread before it serves any queue.
  virtual void warm_up() {}
  // Stops the queue on a page fault: the driver's MEMORY event carries the address
  // (kfd_signal_vm_fault_event); no queue error is written.
  void fault(Queue& q, const std::string& why, uint64_t va, bool write);
  // Marks the queue stopped and says why on stderr (`what` names the kind of stop).
  void stop_queue(Queue& q, const std::string& why, const std::string& what);
  uint64_t doorbell(const Queue& q) const;  // the queue's 64-bit doorbell value

  Process& p_;
  DeviceState& d_;
  const pm4::Family* family_;  // nullptr: a target without a row (every emulated one has one)

 private:
  void run();
  // Restricts the engine's thread to every CPU the process may use but its creator's (below).
  void leave_creators_cpu();
  // One idle round: spin, then yield, then sleep longer and longer; `idle_since` is when the
  // engine last made progress (0: not read yet).
  void backoff(unsigned idle_rounds, uint64_t* idle_since);

  int creator_cpu_ = -1;  // sched_getcpu() of the thread that created the engine
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable changed_;  // an engine without queues sleeps until it gets one
  std::vector<std::shared_ptr<Queue>> queues_;
  std::atomic<uint64_t> version_{0};
  std::atomic<uint64_t> kicks_{0};
  std::atomic<bool> sleeping_{false};
};

class Pm4Executor;

// The command processor: AQL queues (KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) and PM4 compute queues
// (KFD_IOC_QUEUE_TYPE_COMPUTE), one thread per GPU.
class CommandProcessor final : public EngineThread {
 public:
  CommandProcessor(Process& p, DeviceState& d);
  ~CommandProcessor() override;

 private:
  friend class Pm4Executor;
  bool service(Queue& q) override;
  void warm_up() override;

  // AQL (command_processor.cpp)
  bool service_aql(Queue& q);
  Step execute(Queue& q, uint8_t* pkt, uint64_t index);
  Step kernel_dispatch(Queue& q, uint8_t* pkt, uint64_t index);
  Step barrier(Queue& q, uint8_t* pkt, bool is_and);
  Step barrier_value(Queue& q, uint8_t* pkt);
  Step pm4_ib(Queue& q, uint8_t* pkt, uint64_t index);
  bool complete(Queue& q, uint64_t signal_va, uint64_t start_ts);
  bool profiling(const Queue& q);
  bool load_signal(Queue& q, uint64_t signal_va, int64_t* value);
  // A signal's bytes (amd_signal_t layout, pm4/aql.h) as the CP reaches them: nullptr when the
  // signal is not mapped (writable) or its 8-byte value is not naturally aligned (the queue faults).
  // `m`, when given, gets the mapping the signal lies in (for cp_*_at accesses).
  uint8_t* signal_at(Queue& q, uint64_t signal_va, bool write, const char* what, Mapping* m = nullptr);
  uint8_t* inactive_signal(const Queue& q);
  bool signal_event(Queue& q, uint8_t* s);
  // Stops an AQL queue with queue error bits (pm4/queue_error.h) in queue_inactive_signal.
  void fail(Queue& q, uint64_t error_bits, const std::string& why);

  // PM4 queues (cp_pm4_queue.cpp)
  bool service_pm4(Queue& q);
  LookupCache lookups_;  // this thread's: signals, mailboxes, dispatch set-up
  // A PM4 stream cannot go on (bad packet, unsupported form): an AQL queue stops with an invalid
  // packet error; a PM4 queue stops and, as amdkfd does for CP_BAD_OPCODE without a debugger,
  // HW_EXCEPTION events are set.
  void pm4_error(Queue& q, const std::string& why);
};

}  // namespace emu
