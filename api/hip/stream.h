// SPDX-License-Identifier: MIT
// HIP streams and events: ordered commands on a shared managed queue, a timeline signal, host operations.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "api/hip/runtime.h"
#include "base/fast_mutex.h"
#include "queues/copy_engine.h"
#include "queues/managed_queue.h"

namespace hip {

// One hipEventRecord: a marker's completion signal (1 until the marker completes, which also
// stamps start_ts/end_ts). Shared by the event and the streams that wait on it.
struct EventRecord {
  Device* dev = nullptr;
  queues::ManagedQueue* queue = nullptr;
  unsigned flags = 0;
  std::unique_ptr<queues::Signal> sig;
  ~EventRecord();
  bool done() const { return sig->load() == 0; }
};

class Event {
 public:
  explicit Event(unsigned flags) : flags_(flags) {}
  unsigned flags() const { return flags_; }
  std::shared_ptr<EventRecord> record() const;
  void set_record(std::shared_ptr<EventRecord> r);

 private:
  unsigned flags_;
  mutable std::mutex mu_;
  std::shared_ptr<EventRecord> rec_;
};

// What makes launches on a stream the same dispatch but for their explicit arguments: the
// kernel (its info and that info's serial, as an address can come back after a module unload),
// the grid in work-items, the block and the dynamic LDS.
struct LaunchKey {
  const void* kernel = nullptr;
  uint64_t serial = 0;
  uint32_t items[3] = {}, block[3] = {};
  uint64_t shared = 0;
  bool operator==(const LaunchKey&) const = default;
};

// The live event behind a handle; nullptr for null, unknown or destroyed handles (stream_api.cpp).
Event* find_event(hipEvent_t h);

// A stream owns a timeline signal that every one of its counted commands decrements on
// completion: the n-th is done once the value is at most kStart - n. Copies and fills run on a
// copy engine ordered by signals alone (engine_op); host operations (callbacks, host-to-host
// copies of pageable memory) are gated by a barrier on a host-progress signal the host advances.
// Other streams' work it must follow (the legacy default stream) is waited for through a record
// those streams make of their work so far (tail_record), so every wait a queue makes is on a
// signal reaching a value it moves toward: the form AQL barriers and PM4 waits share.
class Stream {
 public:
  static constexpr int64_t kStart = int64_t(1) << 60;
  using HostOp = std::function<hipError_t()>;

  static base::Result<std::shared_ptr<Stream>> create(Device& dev, queues::ManagedQueue& q, unsigned flags,
                                                     int priority, bool is_null);
  ~Stream();

  Device& device() { return dev_; }
  queues::ManagedQueue& queue() { return q_; }
  unsigned flags() const { return flags_; }
  int priority() const { return priority_; }
  bool is_null() const { return is_null_; }
  bool blocking() const { return (flags_ & hipStreamNonBlocking) == 0; }

  // A kernel dispatch in stream order (hipLaunchKernel, hipModuleLaunchKernel, hc's
  // kfdrtStreamDispatchAql): the launch with `fence`. With `completion`, the dispatch itself
  // completes that event's new record (its timestamps are the kernel's) and a timeline marker
  // behind it keeps the stream's count exact.
  hipError_t launch(const queues::KernelLaunch& l, queues::Fence fence, Event* completion, const char* api);
  // A launch made before on this stream (`key`; the fence of the launch it was prepared from),
  // by the queue's prepared route: the packet and the unchanging argument bytes from then,
  // write_args(ctx, slot) for the rest. False, with nothing done, when no launch was prepared
  // for `key` or the launch must wait for other streams' work (the legacy default stream).
  bool launch_prepared(const LaunchKey& key, void (*write_args)(void*, uint8_t*), void* ctx, const char* api,
                       hipError_t* result);
  // Keeps launch `l`, made with `key` and `fence` just now, for launch_prepared when the queue
  // has a route for it (in place of the least recent of the kept ones); write_image(ctx, dst)
  // writes its l.kernarg_size argument bytes but the explicit ones.
  void prepare_launch(const LaunchKey& key, const queues::KernelLaunch& l, queues::Fence fence,
                      void (*write_image)(void*, uint8_t*), void* ctx);
  hipError_t record(Event& e);
  // hipStreamWaitEvent: later commands wait for the record (no fence).
  hipError_t wait(const std::shared_ptr<EventRecord>& rec);
  // How a host operation runs: Sync on this thread, returning op's result; Async at once when
  // the stream is idle, else on the stream's worker thread; Worker always on the worker (stream
  // callbacks). A deferred op's failure is reported by the next synchronize.
  enum class Mode { Sync, Async, Worker };
  hipError_t host_op(HostOp op, Mode mode);
  // Work on a copy engine (copies and fills) in stream order, kept on the device: `op` submits
  // `ops` engine operations with the CopyOrder it is given, which waits (device-side) for a
  // system-scope release marker behind the stream's earlier commands and completes a signal the
  // stream's next command, a barrier with a system-scope acquire, waits for. `op` may block
  // (pageable staging) but no host thread sits between the device operations. With `sync`,
  // returns once the operations completed. `keep` (a bounce buffer) lives until they did.
  // `ops` 0: `op` itself completes everything before it returns (a copy into pageable memory),
  // so its order carries no signal and the host completes the stream's one at once.
  // A reference to the caller's callable, which engine_op calls before it returns (no copy, no
  // allocation per operation).
  class EngineOp {
   public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, EngineOp>>>
    EngineOp(F&& f)  // NOLINT: implicit, from a lambda at the call
        : obj_(const_cast<void*>(static_cast<const void*>(&f))),
          call_([](void* o, const queues::CopyOrder& c) { return (*static_cast<std::remove_reference_t<F>*>(o))(c); }) {}
    base::Status operator()(const queues::CopyOrder& c) const { return call_(obj_, c); }

   private:
    void* obj_;
    base::Status (*call_)(void*, const queues::CopyOrder&);
  };
  hipError_t engine_op(uint32_t ops, bool sync, const EngineOp& op, const char* api,
                       std::shared_ptr<void> keep = nullptr);
  // hipStreamSynchronize: waits for every command and host op, with a system-scope release.
  hipError_t synchronize(const char* api);
  hipError_t query();
  // A record that completes once everything submitted to this stream so far has (what another
  // stream waits on for the legacy default-stream order); the same one while nothing new came.
  base::Result<std::shared_ptr<EventRecord>> tail_record();
  // A record of the work so far whose marker also releases it to system scope, for another
  // device's queue to wait on: that device reads what this one wrote (a peer's reads do not look
  // into this GPU's L2).
  base::Result<std::shared_ptr<EventRecord>> system_tail_record();

  // Counted commands completed / submitted.
  uint64_t submitted() const { return submitted_.load(std::memory_order_acquire); }
  uint64_t completed() const { return uint64_t(kStart - timeline_->load()); }
  bool pending() const { return completed() < submitted() || chained_.load(std::memory_order_acquire); }
  const std::shared_ptr<queues::Signal>& timeline() const { return timeline_; }

 private:
  Stream(Device& dev, queues::ManagedQueue& q, unsigned flags, int priority, bool is_null)
      : dev_(dev), q_(q), flags_(flags), priority_(priority), is_null_(is_null) {}

  struct Retained {
    uint64_t count;  // released once this many counted commands completed
    std::shared_ptr<void> keep;
  };
  using Deps = std::vector<std::shared_ptr<EventRecord>>;
  // The records of other streams this stream's next command follows (legacy default stream),
  // appended to `deps`. Called without mu_ (it takes theirs).
  base::Status legacy_deps(Deps& deps);
  bool may_follow_others() const { return blocking() && (is_null_ || dev_.null_stream_if_created()); }
  // All under mu_.
  // Before each command: pushes the held-back engine barrier (flush_chain) and drops what the
  // completed commands no longer need; nothing but two tests while neither is there.
  void reap() {
    if (!chain_.empty()) [[unlikely]]
      flush_chain();
    if (!retained_.empty()) drop_retained();
  }
  // The completion of the k-th counted command of the next submission (the timeline's value
  // after it is known).
  queues::Completion count_next(uint32_t k) const;
  queues::Command timeline_marker(pm4::aql::FenceScope release, uint32_t k) const;
  // Submits waits for `deps` (completing nothing), then `own`; counts `counted` commands.
  hipError_t push(const Deps& deps, std::span<const queues::Command> own, uint32_t counted, const char* api);
  std::shared_ptr<EventRecord> new_record(unsigned flags, base::Error* err);
  hipError_t wait_for(uint64_t count, const char* api);
  // The engine_op part under mu_: where the operation waits (*w, when *wait), a gate marker when
  // it must follow earlier commands; the operation joins the chain of held-back barriers.
  hipError_t order_engine_op(Deps& deps, const std::shared_ptr<EventRecord>& done, queues::CopyWait* w,
                             bool* wait, std::shared_ptr<void> keep, const char* api);
  struct Deferred;
  queues::Command engine_barrier(const EventRecord& done, queues::WaitCondition* copied) const;
  void retain(Deferred& d);  // its records live until the commands so far completed
  void drop_retained();      // releases what the completed commands no longer need
  void prune_chain();
  void flush_chain();
  void drop_failed(const std::shared_ptr<EventRecord>& done);
  bool device_released();
  void start_worker();
  void worker_loop();

  Device& dev_;
  queues::ManagedQueue& q_;
  const unsigned flags_;
  const int priority_;
  const bool is_null_;
  std::shared_ptr<queues::Signal> timeline_;
  std::unique_ptr<queues::Signal> host_progress_;

  base::FastMutex mu_;  // every launch takes it: a pthread mutex costs some fifty instructions more
  std::atomic<uint64_t> submitted_{0};  // written under mu_, read by any thread
  uint64_t host_ops_ = 0;
  // The last packet is a timeline packet with a system-scope release. Written under mu_ with
  // release stores (a sequentially consistent store would be a locked exchange, which also waits
  // for the packet just written to leave the store buffer); other streams read it.
  std::atomic<bool> tail_system_{true};
  std::deque<Retained> retained_;
  // The launches prepared for launch_prepared (under mu_), replaced in turn.
  struct PreparedLaunch {
    LaunchKey key;
    queues::PreparedDispatch dispatch;
    std::vector<uint8_t> image;  // dispatch.kernarg_image
  };
  static constexpr unsigned kPreparedLaunches = 8;
  PreparedLaunch prepared_[kPreparedLaunches];
  // Written under mu_; read without it first, so that a stream whose queue prepares nothing (PM4)
  // takes no lock to find out.
  std::atomic<unsigned> prepared_count_{0};
  unsigned prepared_next_ = 0;
  // The last engine operation's completion and the count after its barrier: while nothing
  // followed it, the next engine operation waits for that signal itself (engine to engine, no
  // command processor in between).
  std::shared_ptr<EventRecord> last_engine_;
  uint64_t last_engine_count_ = 0;
  // Engine operations (copies, fills) whose barrier is held back, oldest first: each waits on the
  // engine for the one before it, so consecutive copies need no packet on the stream's queue and
  // no command processor polls while they run. The stream's next command (reap), a tail_record,
  // or an operation that must follow other work pushes one barrier on the last (flush_chain); a
  // synchronous operation that completed drops the chain (the next command's own acquire, a
  // dispatch's system scope, sees what the engines wrote). An entry goes once its successor
  // completed (prune_chain): nothing reads its signal any more.
  struct Deferred {
    std::shared_ptr<EventRecord> done;
    // What the operation uses: the records it and its gate wait for, a buffer (peer bounce).
    std::shared_ptr<EventRecord> gate, prev;
    std::shared_ptr<void> keep;
    Deps deps;
  };
  std::deque<Deferred> chain_;
  std::atomic<bool> chained_{false};  // !chain_.empty(), for other streams
  std::shared_ptr<EventRecord> tail_rec_;  // the last tail_record and the count it covers
  uint64_t tail_count_ = 0;
  hipError_t async_error_ = hipSuccess;

  std::mutex work_mu_;
  std::condition_variable work_cv_;
  std::deque<std::function<void()>> work_;
  bool work_stop_ = false;
  std::thread worker_;
};

}  // namespace hip
