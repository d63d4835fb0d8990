// SPDX-License-Identifier: MIT
// Tracing of what kfdrt submits and waits for (packets, copies, HIP calls, host waits), written as Chrome trace JSON.
#pragma once

// The trace sits under every layer that records into it (kfd, queues, api): it knows no packet
// format and no ioctl. Layers above describe what they did in a Record; the queues layer gives
// each traced packet a probe (a 64-byte amd_signal_t-shaped slot whose start_ts / end_ts the
// device stamps) and the clock samples that turn device ticks into host time.
//
// Cost: tracing off is one load of a global flag and a predictable branch per hook. Tracing on
// appends a Record to a buffer of the calling thread (no lock; chunks are allocated as they
// fill) and reads CLOCK_BOOTTIME, the clock amdkfd reports as system_clock_counter.

#include <atomic>
#include <cstdint>
#include <string>

#include "base/result.h"

namespace trace {

namespace detail {
extern std::atomic<bool> g_on;
}  // namespace detail

// Whether a trace session is recording.
inline bool on() { return __builtin_expect(detail::g_on.load(std::memory_order_relaxed), false); }

// Host time in nanoseconds (CLOCK_BOOTTIME, the clock of GET_CLOCK_COUNTERS' system counter).
uint64_t now_ns();

enum class Kind : uint8_t {
  Packet,      // an AQL packet (host submit; device start/end from its probe)
  Pm4,         // a PM4 dispatch or command stream
  Copy,        // a copy engine operation (SDMA or blit kernels)
  Api,         // a HIP entry point or a stream's host operation (callback, copy), t0..t1
  Wait,        // a host wait on a signal, t0..t1, phase in `name`
  WaitEvents,  // one AMDKFD_IOC_WAIT_EVENTS, t0..t1
};

// What a packet or an operation is (the "kind" argument of its trace event).
enum class Op : uint8_t {
  Dispatch, BarrierAnd, BarrierOr, Marker, BarrierValue, Vendor,  // AQL
  Pm4Dispatch, Pm4Commands,                                       // PM4 queues
  CopyLinear, Fill, CopyRect,                                     // copy engine
  None,
};
const char* op_name(Op op);

// One trace event. Plain data so that appending is a copy; meaning of fields per Kind.
struct Record {
  uint64_t t0 = 0;          // host ns: submit time (Packet, Pm4, Copy) or start (Api, Wait, ...)
  uint64_t t1 = 0;          // host ns: end (Api, Wait, WaitEvents); 0 for submissions
  const char* name = nullptr;  // static string: API name, wait phase, path ("sdma", "blit")
  Kind kind = Kind::Packet;
  Op op = Op::None;
  uint8_t acquire = 0, release = 0;  // fence scopes (0 none, 1 agent, 2 system)
  uint32_t gpu = 0;         // KFD gpu_id
  uint32_t queue = 0;       // KFD queue id (Wait: WAIT_EVENTS event id that woke it, else 0)
  uint32_t grid[3] = {0, 0, 0};
  uint16_t workgroup[3] = {0, 0, 0};
  uint8_t ndeps = 0;
  uint8_t flags = 0;        // kFlag*
  uint64_t object = 0;      // kernel object (dispatch), bytes (copy), signal (wait)
  uint64_t completion = 0;  // completion signal the caller asked for (amd_signal_t address)
  uint64_t deps[5] = {};    // signals waited on (barrier deps, BARRIER_VALUE / copy waits)
  int64_t operand = 0;      // BARRIER_VALUE / wait operand
  uint64_t index = 0;       // packet index in the ring
  uint64_t probe = 0;       // amd_signal_t-shaped slot the device stamps (0: none)
  uint64_t dev_start = 0, dev_end = 0;  // device ticks, filled by harvest()
};

constexpr uint8_t kFlagHarvested = 1;  // dev_start/dev_end valid
constexpr uint8_t kFlagTimeout = 2;    // WaitEvents: timed out

// Appends a copy of `r` to the calling thread's buffer (tracing on). Returns the stored record,
// valid for the whole session (probes are written into it by harvest()).
Record* emit(const Record& r);

// Starts a session writing `path` at stop() (or at exit); EBUSY when one is running.
base::Status start(const std::string& path);
// Harvests, writes the file (merging the emulator's events when it wrote the same file for
// this process first) and ends the session. EINVAL when none runs; EIO when the file fails.
base::Status stop();
// The path of the running session ("" when none).
std::string path();
// A function stop() calls first (the queues layer takes fresh clock samples); duplicates ignored.
void add_stop_hook(void (*fn)());

// Names a kernel object for the trace (first name wins). Cheap; call when a kernel is resolved.
void name_kernel(uint64_t kernel_object, const char* name);

// A GET_CLOCK_COUNTERS sample of a GPU (the first and the latest of each GPU map its ticks to
// host time: their ratio is the device clock's rate).
void clock_sample(uint32_t gpu_id, uint64_t gpu_ticks, uint64_t system_ticks, uint64_t system_hz);

// Reads the device timestamps of every traced packet whose probe was stamped (end_ts != 0).
// With `forget`, records that are still pending lose their probe (its memory is going away).
void harvest(bool forget);

// ---- scoped helpers (one line at each hook) ----

// A HIP entry point: records [construction, destruction) under `name` (a string literal or __func__).
class ApiScope {
 public:
  explicit ApiScope(const char* name) : name_(name), t0_(on() ? now_ns() : 0) {}
  ~ApiScope() {
    if (t0_) end();
  }
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;

 private:
  void end();
  const char* name_;
  uint64_t t0_;
};

// A host wait on a signal: the phase it ended in (spin, yield, block) is derived from the
// policy's spin and yield budgets and the time it took; the event that woke its last
// WAIT_EVENTS on this thread, if any, is recorded with it.
class WaitScope {
 public:
  WaitScope(uint64_t signal, int64_t operand, int64_t spin_ns, int64_t yield_ns)
      : signal_(signal), operand_(operand), spin_ns_(spin_ns), yield_ns_(yield_ns), t0_(on() ? now_ns() : 0) {}
  ~WaitScope() {
    if (t0_) end();
  }
  WaitScope(const WaitScope&) = delete;
  WaitScope& operator=(const WaitScope&) = delete;

 private:
  void end();
  uint64_t signal_;
  int64_t operand_, spin_ns_, yield_ns_;
  uint64_t t0_;
};

// One AMDKFD_IOC_WAIT_EVENTS that may sleep (`sleeps`: a non-zero timeout; the zero-timeout
// fault polls are not recorded): the event waited for (0: fault events only) and whether it
// woke for an event (set_woken) or timed out.
class WaitEventsScope {
 public:
  WaitEventsScope(uint32_t event_id, bool sleeps) : event_(event_id), t0_(sleeps && on() ? now_ns() : 0) {}
  ~WaitEventsScope() {
    if (t0_) end();
  }
  void set_woken(uint32_t event_id) { woken_ = event_id, timeout_ = false; }
  WaitEventsScope(const WaitEventsScope&) = delete;
  WaitEventsScope& operator=(const WaitEventsScope&) = delete;

 private:
  void end();
  uint32_t event_, woken_ = 0;
  bool timeout_ = true;
  uint64_t t0_;
};

// The thread-local "woken by" of the last WAIT_EVENTS on this thread (read by WaitScope).
uint32_t last_woken_event();

}  // namespace trace
