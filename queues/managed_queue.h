// SPDX-License-Identifier: MIT
// A managed in-order queue: kernel dispatches and barriers from descriptions, on an AQL or a PM4 queue.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "gpu/device.h"
#include "memory/context.h"
#include "queues/events.h"
#include "queues/packets.h"
#include "queues/scratch_window.h"
#include "queues/signal.h"

namespace queues {

// The engine a managed queue submits to: an AQL queue (the CP's packet processor runs the
// dispatch and barrier packets), or a PM4 compute queue (the runtime writes the commands).
enum class Engine : uint8_t { Aql, Pm4 };
const char* engine_name(Engine e);
// "aql" or "pm4" (as KFDRT_HIP_QUEUE spells them); InvalidArgument otherwise.
base::Result<Engine> parse_engine(std::string_view name);

// A condition a barrier waits for: the 64-bit value of `signal` `cond` `value`. A PM4 queue can
// test Eq (exactly, for a value moving toward `value`) and Lt for 0 < value <= 2^32.
struct WaitCondition {
  const Signal* signal = nullptr;
  Cond cond = Cond::Eq;
  int64_t value = 0;
};

// The signal a command completes: decremented by 1 once the command, and (the queue being in
// order) everything before it, finished, as an AQL packet's completion signal. `value_after`,
// when the caller knows it (it is the signal's only writer and its commands complete in order,
// e.g. a stream's timeline), lets a PM4 queue write that value at the end of the pipe instead of
// waiting to subtract; it must equal the value the decrement would leave.
struct Completion {
  const Signal* signal = nullptr;
  bool value_known = false;
  int64_t value_after = 0;

  static Completion of(const Signal* s) { return Completion{s, false, 0}; }
  static Completion to(const Signal* s, int64_t after) { return Completion{s, true, after}; }
};

// One kernel dispatch, described once; the queue builds the packet (or the PM4 commands) from it
// and writes the kernel arguments into their slot, once.
struct KernelLaunch {
  uint64_t kernel_object = 0;            // GPU (and host-readable) address of the descriptor
  uint32_t dims = 1;                     // 1..3
  uint32_t grid[3] = {1, 1, 1};          // in work-items; the last workgroup may be partial
  uint16_t block[3] = {1, 1, 1};
  uint32_t group_segment_bytes = 0;      // LDS: static + dynamic (the packet's group_segment_size)
  uint32_t private_segment_bytes = 0;    // scratch per work-item (the queue grows to it)
  uint32_t kernarg_size = 0;
  uint32_t kernarg_align = 16;
  // The argument bytes: copied from `kernarg`, or produced in place by write_kernarg(ctx, dst)
  // (exactly kernarg_size bytes, at an address aligned to kernarg_align and 64).
  const uint8_t* kernarg = nullptr;
  void (*write_kernarg)(void* ctx, uint8_t* dst) = nullptr;
  void* write_ctx = nullptr;
};

// A dispatch prepared once for launches that repeat but for their explicit arguments (the same
// kernel, grid, block and segment sizes, on the same queue): its packet, all but the argument
// address and completion signal, and the argument bytes that stay the same (hidden arguments).
struct PreparedDispatch {
  aql::KernelDispatchPacket packet{};
  uint32_t kernarg_size = 0;
  const uint8_t* kernarg_image = nullptr;  // kernarg_size bytes, the caller's (it keeps them alive)
};

// One command: a barrier (waits for up to kMaxWaits conditions, all of which must hold; with none
// it is a marker) or a dispatch. Both start once every earlier command of the queue finished
// (the AQL barrier bit; Fence::barrier is ignored), apply the fence's acquire before and its
// release after, and complete `completion`. `waits` and `launch` point at the caller's storage,
// which needs to live only until submit returns.
struct Command {
  static constexpr uint32_t kMaxWaits = 5;
  enum class Kind : uint8_t { Barrier, Dispatch };

  Kind kind = Kind::Barrier;
  uint32_t wait_count = 0;
  Fence fence{true, aql::kScopeNone, aql::kScopeNone};
  Completion completion;
  const WaitCondition* waits = nullptr;
  const KernelLaunch* launch = nullptr;

  static Command marker(Fence f, Completion c) {
    Command m;
    m.fence = f;
    m.completion = c;
    return m;
  }
  static Command barrier(std::span<const WaitCondition> w, Fence f, Completion c) {
    Command m = marker(f, c);
    m.waits = w.data();
    m.wait_count = uint32_t(w.size());
    return m;
  }
  static Command dispatch(const KernelLaunch& l, Fence f, Completion c) {
    Command m = marker(f, c);
    m.kind = Kind::Dispatch;
    m.launch = &l;
    return m;
  }
};

struct ManagedQueueOptions {
  Engine engine = Engine::Aql;
  uint32_t priority = 7;
  // Stamp completion signals' start_ts / end_ts (amd_queue_t ENABLE_PROFILING on AQL; the same
  // stamps written by PM4 commands).
  bool profiling = true;
  uint32_t aql_packets = 1024;               // AQL ring, in packets
  uint32_t pm4_ring_bytes = 256u << 10;      // PM4 ring
  static constexpr size_t kKernargSlot = 1024;  // larger argument blocks get memory of their own
};

// An in-order queue of commands for a runtime (HIP streams share one), over an AQL or a PM4
// queue it owns. It owns what submitting needs besides the packets: a kernel-argument slot per
// dispatch (argument blocks larger than a slot get their own memory, freed once the dispatch is
// done), the scratch every dispatch's private segment asks for (grown without blocking the
// producer), and serialised submission (one unit, one doorbell, per submit). Thread-safe. The
// GPU, allocator, events and scratch windows must outlive it.
class ManagedQueue {
 public:
  static base::Result<std::unique_ptr<ManagedQueue>> create(const gpu::Device& gpu, mem::Context& memory,
                                                            EventManager& events, ScratchWindows& scratch,
                                                            const ManagedQueueOptions& opts);
  virtual ~ManagedQueue() = default;

  Engine engine() const { return engine_; }
  const gpu::Device& gpu() const { return gpu_; }
  // What a kernel's queue pointer holds (hidden_queue_ptr): the queue's amd_queue_t.
  virtual uint64_t queue_address() const = 0;
  virtual uint32_t queue_id() const = 0;

  // Submits `cmds` in order as one unit. Waits while the ring is full. Fails, before anything is
  // written, with InvalidArgument for a command the engine cannot express (a bad shape, a
  // condition a PM4 queue cannot test), OutOfMemory (ENOMEM, with the sizes) when a dispatch's
  // scratch cannot be had, and with the device's error when the GPU faulted or the queue stopped.
  virtual base::Status submit(std::span<const Command> cmds) = 0;
  // One dispatch on its own, as submit of that single command does, by the launch path's
  // shortest route (a backend may write the packet without building a command list).
  virtual base::Status dispatch(const KernelLaunch& l, Fence f, Completion c);
  // A dispatch checked and built once (`out`), for dispatch_prepared to repeat. False when the
  // queue has no such route for it (a PM4 queue; scratch; arguments larger than a slot): such a
  // launch goes through dispatch. Fails as dispatch would for a launch that is not well formed.
  virtual base::Result<bool> prepare(const KernelLaunch& l, Fence f, PreparedDispatch* out) const;
  // One prepared dispatch, as dispatch of the launch it was prepared from: its argument slot
  // gets the image, then write_args(ctx, slot) writes what differs per launch (nothing when
  // kernarg_size is 0). Not while tracing (the trace sees launches through dispatch).
  virtual base::Status dispatch_prepared(const PreparedDispatch& p, void (*write_args)(void* ctx, uint8_t* slot),
                                         void* ctx, Completion c);
  // One marker (a barrier with no condition) on its own, as submit of Command::marker does, by
  // the shortest route (a stream's synchronize ends with one).
  virtual base::Status marker(Fence f, Completion c);

  // Gives the queue's scratch back (hipDeviceReset, after the work finished). EBUSY, and the
  // scratch stays, while work or a scratch grow is pending.
  virtual base::Status release_scratch() = 0;

  // Gives the queue the device's global wave sync (GWS) a grid barrier needs (`on`), or gives it
  // back (AMDKFD_IOC_ALLOC_QUEUE_GWS; EBUSY while another queue holds it).
  base::Status set_global_wave_sync(bool on) const;

  // Runs the queue's dispatches on the CUs `mask` enables (AMDKFD_IOC_SET_CU_MASK; bit i of the
  // dwords is amdkfd's i-th CU); cu_mask() then returns it (empty: every CU, never set).
  base::Status set_cu_mask(std::span<const uint32_t> mask);
  std::vector<uint32_t> cu_mask() const;

 protected:
  ManagedQueue(Engine e, const gpu::Device& gpu) : engine_(e), gpu_(gpu) {}

 private:
  const Engine engine_;
  const gpu::Device& gpu_;
  mutable std::mutex cu_mu_;
  std::vector<uint32_t> cu_mask_;
};

}  // namespace queues
