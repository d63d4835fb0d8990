// SPDX-License-Identifier: MIT
// The engine thread loop, the memory helpers every engine uses, and the command processor's AQL queues.
#include "emu/trace_emu.h"
#include "emu/command_processor.h"
#include "emu/host_watch.h"
#include "emu/shader/guest.h"
#include "emu/shader/host_cpu.h"

#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "emu/memory_model.h"
#include "emu/stats.h"
#include "emu/tsan_sync.h"
#include "kfd/uapi_ext.h"
#include "pm4/queue_error.h"
#include "pm4/type3.h"

namespace emu {

using namespace pm4::aql;
namespace qe = pm4::queue_error;

namespace {

constexpr unsigned kPacketsPerTurn = 64;  // fairness between queues
// Idle back-off, by the time since the engine last made progress: spin (a doorbell rung within
// this window is seen within a round, a few hundred nanoseconds), then yield, then sleep longer
// and longer up to kMaxSleepNs (an idle GPU must not burn a core). A host thread that blocks in
// WAIT_EVENTS ends a sleep at once (kick): its work is in a queue already.
constexpr uint64_t kSpinNs = 200000;
constexpr uint64_t kYieldNs = 2000000;
constexpr uint64_t kMinSleepNs = 20000;
constexpr uint64_t kMaxSleepNs = 1000000;

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

const char* queue_kind(uint32_t type) {
  switch (type) {
    case KFD_IOC_QUEUE_TYPE_COMPUTE_AQL: return "AQL";
    case KFD_IOC_QUEUE_TYPE_COMPUTE: return "PM4";
    case KFD_IOC_QUEUE_TYPE_SDMA: return "SDMA";
    case KFD_IOC_QUEUE_TYPE_SDMA_XGMI: return "SDMA_XGMI";
    default: return "unknown";
  }
}

}  // namespace

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

// ---- GPU memory as engines see it -----------------------------------------------------------

bool gpu_range(const DeviceState& d, uint64_t va, uint64_t size, bool write,
               std::vector<HostSpan>* out, uint64_t* bad) {
  if (out) out->clear();
  if (size == 0) return true;
  if (va + size < va) {  // wraps around the address space
    *bad = va;
    return false;
  }
  const uint64_t end = va + size;
  uint64_t pos = va;
  while (pos < end) {
    Mapping m;
    if (!d.lookup(pos, &m) || (write && !m.writable)) {
      *bad = pos;
      return false;
    }
    uint64_t stop = std::min(end, m.end);
    for (const auto& [fva, fsize] : d.injected_faults)  // lookup() checks only the first byte
      if (fva > pos && fva < stop) stop = fva;
    if (out) out->push_back(HostSpan{m.host + (pos - m.va), stop - pos});
    pos = stop;
  }
  return true;
}

uint64_t first_bad_byte(const DeviceState& d, uint64_t va, uint64_t size, bool write) {
  uint64_t bad = va + size;
  (void)gpu_range(d, va, size, write, nullptr, &bad);
  return bad;
}

namespace {

// REP MOVSB where the CPU announces fast string moves (CPUID.7.0:EBX.ERMS, Intel SDM vol. 1,
// 7.3.9.3 "Fast-String Operation"; AMD64 APM vol. 3, MOVS): on the hosts measured it is the
// fastest cached copy of a few KiB and up (a Zen 5 EPYC, 1 MiB: 14.4 us against glibc memmove's
// 16.5; an Intel Xeon: 24.8 GB/s against 22.4 to 22.9 for AVX2 and AVX-512 loops), as a DMA
// engine's copy is not a CPU's library call. A forward copy, so only for dst <= src or no overlap.
void string_copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
#if defined(__x86_64__)
  if (n >= 4096 && host_cpu().erms) {
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
    return;
  }
#endif
  std::memmove(dst, src, n);
}

// Forward copy of one contiguous piece: overlapping with dst above src, each step copies no more
// than the distance, so the bytes read are those earlier steps wrote (as a byte-wise forward loop).
void forward_copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
  if (dst <= src || dst >= src + n) {
    string_copy(dst, src, n);
    return;
  }
  const uint64_t step = uint64_t(dst - src);
  for (uint64_t o = 0; o < n; o += step) std::memcpy(dst + o, src + o, std::min(step, n - o));
}

}  // namespace

void dma_copy(const std::vector<HostSpan>& dst, const std::vector<HostSpan>& src) {
  for_each_span_pair(dst, src, forward_copy);
}

void dma_fill(const std::vector<HostSpan>& dst, uint64_t pattern, unsigned unit) {
  uint8_t bytes[8];
  std::memcpy(bytes, &pattern, sizeof bytes);
  uint64_t at = 0;  // bytes filled so far: the pattern continues across pieces
  for (const HostSpan& s : dst) {
    uint8_t block[64];  // a multiple of every unit, so blocks keep the pattern's phase
    for (unsigned i = 0; i < sizeof block; ++i) block[i] = bytes[(at + i) % unit];
    uint64_t i = 0;
    for (; i + sizeof block <= s.len; i += sizeof block) std::memcpy(s.host + i, block, sizeof block);
    std::memcpy(s.host + i, block, s.len - i);
    at += s.len;
  }
}

namespace {

template <class T>
T tc_result(uint32_t base, T old, T src) {
  using S = std::make_signed_t<T>;
  switch (base) {
    case pm4::kAtomicSwapRtn32: return src;
    case pm4::kAtomicAddRtn32: return T(old + src);
    case pm4::kAtomicSubRtn32: return T(old - src);
    case pm4::kAtomicSminRtn32: return S(old) < S(src) ? old : src;
    case pm4::kAtomicUminRtn32: return old < src ? old : src;
    case pm4::kAtomicSmaxRtn32: return S(old) > S(src) ? old : src;
    case pm4::kAtomicUmaxRtn32: return old > src ? old : src;
    case pm4::kAtomicAndRtn32: return old & src;
    case pm4::kAtomicOrRtn32: return old | src;
    case pm4::kAtomicXorRtn32: return old ^ src;
    case pm4::kAtomicIncRtn32: return old >= src ? T(0) : T(old + 1);   // wraps at src
    case pm4::kAtomicDecRtn32: return (old == 0 || old > src) ? src : T(old - 1);
    default: return old;
  }
}

template <class T>
bool tc_atomic_t(T* m, uint32_t base, T src, T cmp) {
  if (base == pm4::kAtomicCmpSwapRtn32) {
    T expected = cmp;
    return __atomic_compare_exchange_n(m, &expected, src, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
  T old = __atomic_load_n(m, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(m, &old, tc_result(base, old, src), true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
  }
  return true;
}

}  // namespace

bool tc_atomic(uint8_t* host, uint32_t op, uint64_t src, uint64_t cmp) {
  if (op >= pm4::kAtomicSwapRtn64)
    return tc_atomic_t(reinterpret_cast<uint64_t*>(host), op - pm4::kAtomic64Offset, src, cmp);
  return tc_atomic_t(reinterpret_cast<uint32_t*>(host), op, uint32_t(src), uint32_t(cmp));
}

// ---- EngineThread ----------------------------------------------------------------------------

EngineThread::EngineThread(Process& p, DeviceState& d)
    : p_(p), d_(d), family_(pm4::family_for(d.model->target->gfx_target_version)), creator_cpu_(sched_getcpu()) {
  if (!family_) family_ = pm4::family_for(pm4::gfx_target_version_of("gfx900"));  // the gfx9 baseline
}

EngineThread::~EngineThread() { stop(); }

void EngineThread::start() {
  thread_ = std::thread([this] {
    shader::t_emulator_thread = true;  // the GPU's accesses (emu/host_watch.h)
    run();
  });
}

void EngineThread::stop() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EngineThread::add_queue(std::shared_ptr<Queue> q) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    queues_.push_back(std::move(q));
    version_.fetch_add(1, std::memory_order_release);
  }
  changed_.notify_all();
}

void EngineThread::remove_queue(const std::shared_ptr<Queue>& q) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (auto it = queues_.begin(); it != queues_.end(); ++it)
      if (*it == q) { queues_.erase(it); break; }
    version_.fetch_add(1, std::memory_order_release);
  }
  std::lock_guard<std::mutex> qk(q->busy);  // wait for a packet in flight
}

// A GPU's engines (its command processor, its DMA engines) are hardware of their own: they never
// take a CPU from the host threads that give them work. The emulated ones are host threads, and
// Linux's scheduler places a new thread and wakes a sleeping one where it sees fit, on the CPU of
// the thread that woke it among others (wake_affine() in kernel/sched/fair.c): then the host's
// part of a pipelined copy and the engine's part, or a launch and the command processor that
// runs it, take turns on one CPU while another idles, a context switch per hand-off (a launch and
// synchronize took 4.7 us so against 1.3 us on two CPUs, BENCHMARKS.md "The command processor
// off the host's CPU"). So, when the process may run on two CPUs or more, an engine runs on all
// of them but the one its creator (the thread that opened the device, or made the engine's first
// queue) ran on; host threads are not restricted, and the scheduler moves them to that CPU once
// the engines run elsewhere. A process confined to one CPU keeps its engines there. The shader
// core's worker threads, started by the command processor, go back to the process's CPUs.
void EngineThread::leave_creators_cpu() {
  if (creator_cpu_ < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0 || !CPU_ISSET(creator_cpu_, &set) || CPU_COUNT(&set) < 2) return;
  CPU_CLR(creator_cpu_, &set);
  (void)sched_setaffinity(0, sizeof set, &set);  // best effort: a refusal leaves the engine unrestricted
}

void EngineThread::run() {
  // The sleeps of the idle back-off are short: without this, each one lasts the default 50 us
  // timer slack longer than asked.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  prctl(PR_SET_NAME, "kfdemu-engine", 0, 0, 0);  // tells the engines apart in profiles
  leave_creators_cpu();
  warm_up();
  std::vector<std::shared_ptr<Queue>> snapshot;
  uint64_t seen = ~0ull;
  unsigned idle = 0;
  uint64_t idle_since = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    uint64_t v = version_.load(std::memory_order_acquire);
    if (v != seen || snapshot.empty()) {
      std::unique_lock<std::mutex> lk(mu_);
      changed_.wait(lk, [&] { return stop_.load() || !queues_.empty(); });
      snapshot = queues_;
      seen = version_.load(std::memory_order_acquire);
    }
    bool progressed = false;
    for (auto& q : snapshot) {
      if (q->dead.load(std::memory_order_relaxed) || q->stopped.load(std::memory_order_relaxed)) continue;
      if (q->quiet.load(std::memory_order_relaxed) &&
          doorbell(*q) == q->quiet_doorbell.load(std::memory_order_relaxed))
        continue;  // nothing new since the ring was empty
      std::lock_guard<std::mutex> qk(q->busy);
      if (q->dead.load()) continue;
      progressed |= service(*q);
    }
    if (progressed) {
      idle = 0;
      idle_since = 0;
    } else {
      backoff(++idle, &idle_since);
    }
  }
}

// Dekker pairing with backoff(): the kick is stored before sleeping_ is read, and the engine
// stores sleeping_ before its wait reads kicks_ (both sequentially consistent), so a kick is
// never lost between the two.
void EngineThread::kick() {
  kicks_.fetch_add(1, std::memory_order_seq_cst);
  if (!sleeping_.load(std::memory_order_seq_cst)) return;
  { std::lock_guard<std::mutex> lk(mu_); }  // a sleeper is in wait_for, or has not tested yet
  changed_.notify_all();
}

void EngineThread::backoff(unsigned idle, uint64_t* idle_since) {
  if (idle < 64) {  // a few rounds before the first clock read
    // Right after work, one yield: a host thread waiting for that work may share this core.
    if (idle == 1) sched_yield();
    else cpu_relax();
    return;
  }
  const uint64_t now = now_ns();
  if (*idle_since == 0) *idle_since = now;
  const uint64_t quiet = now - *idle_since;
  if (quiet < kSpinNs) {
    // A yield now and then: on a host with more runnable threads than cores, the thread about
    // to give this engine its next packet may be queued behind it on this core.
    if (idle % 32 == 0) sched_yield();
    else cpu_relax();
  } else if (quiet < kSpinNs + kYieldNs) {
    sched_yield();
  } else {
    const uint64_t ns = std::clamp<uint64_t>(quiet / 16, kMinSleepNs, kMaxSleepNs);
    const uint64_t kicks = kicks_.load(std::memory_order_relaxed);
    const uint64_t version = version_.load(std::memory_order_relaxed);
    std::unique_lock<std::mutex> lk(mu_);
    sleeping_.store(true, std::memory_order_seq_cst);
    const bool woken = changed_.wait_for(lk, std::chrono::nanoseconds(ns), [&] {
      return kicks_.load(std::memory_order_seq_cst) != kicks || version_.load() != version || stop_.load();
    });
    sleeping_.store(false, std::memory_order_relaxed);
    if (woken) *idle_since = 0;  // work is coming (or a queue changed): spin again
  }
}

uint64_t EngineThread::doorbell(const Queue& q) const {
  auto* db = reinterpret_cast<uint64_t*>(Arena::get().host(d_.doorbell_arena)) + q.doorbell_index;
  const uint64_t v = __atomic_load_n(db, __ATOMIC_ACQUIRE);
  tsan_doorbell_acquire(d_.model->gpu_id, q.doorbell_index);
  return v;
}

void EngineThread::stop_queue(Queue& q, const std::string& why, const std::string& what) {
  q.stopped = true;
  q.error = why;
  std::fprintf(stderr, "kfdemu: GPU %s %s queue %u stopped: %s [%s]\n", hex(d_.model->gpu_id).c_str(),
               queue_kind(q.type), q.id, why.c_str(), what.c_str());
}

// A GPU page fault: the queue stops and the driver reports the address through the process's
// MEMORY events (kfd_events.c kfd_signal_vm_fault_event); the engine writes no queue error.
void EngineThread::fault(Queue& q, const std::string& why, uint64_t va, bool write) {
  stop_queue(q, why, "page fault at " + hex(va));
  p_.raise_memory_fault(d_.model->gpu_id, va, write);
}

// ---- CommandProcessor: AQL queues ------------------------------------------------------------

namespace {
// Command processors still building their shader core. A process may exit while one does (a
// short program, or one that opened /dev/kfd and never dispatched): exit waits for them, so no
// engine thread builds tables or registers statics while static destructors run.
struct WarmUps {
  std::mutex mu;
  std::condition_variable done;
  int running = 0;
};
// Never destroyed (the exit handler uses it); a forked child starts a fresh one: its parent's
// threads did not come along, and one of them may have held the lock.
WarmUps* g_warm_ups = new WarmUps;
WarmUps& warm_ups() { return *g_warm_ups; }
void fresh_warm_ups_in_child() { g_warm_ups = new WarmUps; }
void wait_for_warm_ups() {
  WarmUps& w = warm_ups();
  std::unique_lock<std::mutex> lk(w.mu);
  w.done.wait_for(lk, std::chrono::seconds(10), [&] { return w.running == 0; });
}
}  // namespace

CommandProcessor::CommandProcessor(Process& p, DeviceState& d) : EngineThread(p, d) {
  static std::once_flag registered;
  std::call_once(registered, [] {
    std::atexit(wait_for_warm_ups);
    pthread_atfork(nullptr, nullptr, fresh_warm_ups_in_child);
  });
  {
    std::lock_guard<std::mutex> lk(warm_ups().mu);
    ++warm_ups().running;
  }
  start();
}

CommandProcessor::~CommandProcessor() { stop(); }

void CommandProcessor::warm_up() {
  prepare_dispatch(d_);
  WarmUps& w = warm_ups();
  {
    std::lock_guard<std::mutex> lk(w.mu);
    --w.running;
  }
  w.done.notify_all();
}

bool CommandProcessor::service(Queue& q) {
  return q.type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL ? service_aql(q) : service_pm4(q);
}

namespace {
const char* packet_kind(uint16_t header, const uint8_t* pkt);
}  // namespace

// Executes the published packets of one queue; true when at least one packet retired.
bool CommandProcessor::service_aql(Queue& q) {
  auto* rptr = q.rptr_host ? q.rptr_host : reinterpret_cast<uint64_t*>(d_.translate(q.rptr_va, 8, true));
  uint8_t* ring = q.ring_host ? q.ring_host : d_.translate(q.ring_va, q.ring_size, true);
  if (!rptr || !ring) {
    fault(q, "queue ring or read pointer is not mapped to the GPU", rptr ? q.ring_va : q.rptr_va, true);
    return false;
  }
  // The doorbell holds the index of a published packet, but on a multi-producer queue it may be
  // rung with any index (hsa_queue_t: "If type is HSA_QUEUE_TYPE_MULTI, the doorbell signal value
  // can be updated with any value"): racing producers can leave a lower index last. So a packet
  // past the doorbell still runs when its header is valid and a producer has claimed its slot
  // (below write_dispatch_id, read only then: the producers' atomic add hits that cache line).
  const uint64_t rung = doorbell(q);
  uint64_t end = rung + 1;
  if (trace_emu::on() && !(q.quiet.load(std::memory_order_relaxed) && rung == q.quiet_doorbell.load(std::memory_order_relaxed)))
    trace_emu::doorbell(q.gpu_id, q.id, rung);
  q.quiet.store(false, std::memory_order_relaxed);
  bool read_wptr = false;
  uint64_t rd = __atomic_load_n(rptr, __ATOMIC_ACQUIRE);
  uint64_t npackets = q.ring_size / kPacketSize;
  bool progressed = false;
  for (unsigned n = 0; n < kPacketsPerTurn; ++n) {
    uint8_t* pkt = ring + (rd % npackets) * kPacketSize;
    uint16_t header = __atomic_load_n(reinterpret_cast<uint16_t*>(pkt), __ATOMIC_ACQUIRE);
    if (header_type(header) == kTypeInvalid) {  // not yet published
      // Quiet only when the doorbell names a packet already consumed: a new packet's producer
      // then rings a different value. (A fresh queue's doorbell reads 0 before the producer rings
      // 0 for its first packet.)
      if (n == 0 && rung < rd) {
        q.quiet_doorbell.store(rung, std::memory_order_relaxed);
        q.quiet.store(true, std::memory_order_relaxed);
      }
      break;
    }
    tsan_acquire_gpu(q.ring_va + (rd % npackets) * kPacketSize);
    if (int64_t(end - rd) <= 0) {
      auto* wptr = read_wptr ? nullptr : reinterpret_cast<uint64_t*>(d_.translate(q.wptr_va, 8, false));
      read_wptr = true;
      if (!wptr) break;
      uint64_t w = __atomic_load_n(wptr, __ATOMIC_ACQUIRE);
      if (int64_t(w - end) > 0) end = w;
      if (int64_t(end - rd) <= 0) break;
    }
    const uint64_t t0 = trace_emu::on() ? trace_emu::now_ns() : 0;
    Step s = execute(q, pkt, rd);
    if (t0) trace_emu::packet(q.gpu_id, q.id, packet_kind(header, pkt), rd, t0);
    if (s != Step::Done) {
      progressed |= s == Step::Yield;  // a long PM4 IB: continued next turn
      break;
    }
    __atomic_store_n(reinterpret_cast<uint16_t*>(pkt), uint16_t(kTypeInvalid), __ATOMIC_RELEASE);
    __atomic_store_n(rptr, ++rd, __ATOMIC_RELEASE);
    progressed = true;
  }
  return progressed;
}

namespace {

const char* packet_kind(uint16_t header, const uint8_t* pkt) {
  switch (header_type(header)) {
    case kTypeKernelDispatch: return "AQL kernel dispatch";
    case kTypeBarrierAnd: return "AQL barrier-AND";
    case kTypeBarrierOr: return "AQL barrier-OR";
    case kTypeVendor: return pkt[2] == kVendorPm4Ib ? "AQL PM4-IB" : "AQL barrier-value";
    default: return "AQL packet";
  }
}

}  // namespace

// Packets complete before the next one starts, so the barrier bit is always honoured. The
// packet's acquire fence applies before it runs (a barrier's once its condition holds: what it
// waited for is then what the acquire makes visible), its release after it completed and before
// its completion signal (pm4::aql scopes; emu/memory_model.h).
Step CommandProcessor::execute(Queue& q, uint8_t* pkt, uint64_t index) {
  uint16_t header = *reinterpret_cast<uint16_t*>(pkt);
  const uint64_t pkt_va = q.ring_va + (index % (q.ring_size / kPacketSize)) * kPacketSize;
  const bool is_barrier = header_type(header) == kTypeBarrierAnd || header_type(header) == kTypeBarrierOr ||
                          (header_type(header) == kTypeVendor && pkt[2] == kVendorBarrierValue);
  auto acquire = [&] {
    if (q.acquired == index) return;
    q.acquired = index;
    cp_acquire(d_, header_acquire(header), packet_kind(header, pkt), pkt_va);
  };
  if (!is_barrier) acquire();
  // The start stamp only where it is wanted (a clock read costs tens of nanoseconds per packet).
  const uint64_t start = profiling(q) ? p_.gpu_clock() : 0;
  Step s;
  uint64_t signal = 0;
  switch (header_type(header)) {
    case kTypeKernelDispatch:
      s = kernel_dispatch(q, pkt, index);
      signal = reinterpret_cast<KernelDispatchPacket*>(pkt)->completion_signal;
      break;
    case kTypeBarrierAnd:
    case kTypeBarrierOr:
      s = barrier(q, pkt, header_type(header) == kTypeBarrierAnd);
      signal = reinterpret_cast<BarrierPacket*>(pkt)->completion_signal;
      break;
    case kTypeVendor:
      if (pkt[2] == kVendorBarrierValue) {
        s = barrier_value(q, pkt);
        signal = reinterpret_cast<BarrierValuePacket*>(pkt)->completion_signal;
      } else if (pkt[2] == kVendorPm4Ib) {
        s = pm4_ib(q, pkt, index);
        signal = reinterpret_cast<Pm4IbPacket*>(pkt)->completion_signal;
      } else {
        fail(q, qe::kInvalidVendorPacket,
             "vendor packet format " + std::to_string(pkt[2]) + " is not a known AMD vendor packet");
        return Step::Failed;
      }
      break;
    case kTypeAgentDispatch:
      fail(q, qe::kInvalidPacketFormat, "agent dispatch packets are not implemented by the emulator");
      return Step::Failed;
    default:
      fail(q, qe::kInvalidPacketFormat, "invalid AQL packet type " + std::to_string(header_type(header)));
      return Step::Failed;
  }
  if (s != Step::Done) return s;
  stats::bump(stats::counters().aql_packets);
  if (header_type(header) == kTypeKernelDispatch) stats::bump(stats::counters().aql_dispatches);
  if (is_barrier) acquire();
  cp_release(d_, header_release(header), packet_kind(header, pkt), pkt_va);
  // KFDEMU_REPORT_STALE: the host may wake on this signal and read what a GPU's L2 still holds.
  if (signal && model().config.report_stale) host_watch_arm(d_, packet_kind(header, pkt), pkt_va, signal);
  if (signal && !complete(q, signal, start)) return Step::Failed;
  return Step::Done;
}

namespace {
// amd_signal_t.value of a signal reached as bytes (8-byte aligned).
int64_t* signal_value(uint8_t* s) { return reinterpret_cast<int64_t*>(s + offsetof(AmdSignal, value)); }
}  // namespace

// A dispatch needing more scratch than its queue has: as a gfx9 CP does, store the "needs scratch"
// bit into queue_inactive_signal, raise its event and wait until the runtime stores 0 back (ROCr
// rocm-5.2 AqlQueue::DynamicScratchHandler grows the scratch, rewrites amd_queue_t's scratch
// fields, then stores 0); then read the scratch fields again and run the dispatch. The packet
// stays at read_dispatch_id meanwhile (the runtime finds it there).
Step CommandProcessor::kernel_dispatch(Queue& q, uint8_t* pkt, uint64_t index) {
  (void)pkt;
  if (q.scratch_wait) {
    uint8_t* s = inactive_signal(q);
    if (s && __atomic_load_n(signal_value(s), __ATOMIC_ACQUIRE) != 0) return Step::Blocked;
    q.scratch_wait = false;
  }
  const uint64_t pkt_va = q.ring_va + (index % (q.ring_size / kPacketSize)) * kPacketSize;
  DispatchResult r =
      run_kernel_dispatch(p_, d_, q, pkt_va, q.rptr_va - offsetof(AmdQueue, read_dispatch_id), index, &lookups_);
  if (r.preempted) return Step::Blocked;  // the queue is being destroyed: the packet never retires
  if (r.memory_fault) {
    fault(q, r.message, r.fault_va, r.fault_write);
    return Step::Failed;
  }
  if (r.scratch_too_small) {
    if (uint8_t* s = inactive_signal(q)) {
      std::fprintf(stderr, "kfdemu: GPU %s AQL queue %u waits for scratch: %s [queue error %s]\n",
                   hex(d_.model->gpu_id).c_str(), q.id, r.message.c_str(), qe::describe(r.error).c_str());
      __atomic_store_n(signal_value(s), int64_t(r.error), __ATOMIC_SEQ_CST);
      q.scratch_wait = true;
      return signal_event(q, s) ? Step::Blocked : Step::Failed;
    }
    // No signal to ask through: the queue cannot go on.
  }
  if (r.error) {
    fail(q, r.error, r.message);
    return Step::Failed;
  }
  return Step::Done;
}

uint8_t* CommandProcessor::signal_at(Queue& q, uint64_t signal_va, bool write, const char* what, Mapping* mp) {
  // The CP reads and atomically updates the signal's 64-bit value: an atomic needs its natural
  // alignment (amd_signal_t itself is 64-byte aligned in the HSA ABI; 8 bytes is what the
  // hardware's access needs).
  if (signal_va % 8) {
    fault(q, std::string(what) + " " + hex(signal_va) + " is not 8-byte aligned (its 64-bit value cannot be accessed atomically)",
          signal_va + offsetof(AmdSignal, value), write);
    return nullptr;
  }
  Mapping m;  // translate(), keeping the mapping
  uint8_t* s = nullptr;
  if (d_.lookup(signal_va, &m, &lookups_) && sizeof(AmdSignal) <= m.end - signal_va && (!write || m.writable))
    s = m.host + (signal_va - m.va);
  if (s && mp) *mp = m;
  if (!s)
    fault(q, std::string(what) + " " + hex(signal_va) + (write ? " is not mapped (writable) to the GPU" : " is not mapped to the GPU"),
          signal_va + offsetof(AmdSignal, value), write);
  return s;
}

bool CommandProcessor::load_signal(Queue& q, uint64_t signal_va, int64_t* value) {
  uint8_t* s = signal_at(q, signal_va, false, "signal");
  if (!s) return false;
  *value = cp_load<int64_t>(d_, signal_va + offsetof(AmdSignal, value), s + offsetof(AmdSignal, value), true);
  tsan_acquire_gpu(signal_va + offsetof(AmdSignal, value));  // what its signaller released (emu/tsan_sync.h)
  return true;
}

Step CommandProcessor::barrier(Queue& q, uint8_t* pkt, bool is_and) {
  auto* bp = reinterpret_cast<BarrierPacket*>(pkt);
  bool any_dep = false, any_done = false, all_done = true;
  for (uint64_t dep : bp->dep_signal) {
    if (!dep) continue;  // a null handle is satisfied (and ignored by OR)
    any_dep = true;
    int64_t v;
    if (!load_signal(q, dep, &v)) return Step::Failed;
    if (v == 0) any_done = true;
    else all_done = false;
  }
  if (is_and) return all_done ? Step::Done : Step::Blocked;
  return (!any_dep || any_done) ? Step::Done : Step::Blocked;
}

Step CommandProcessor::barrier_value(Queue& q, uint8_t* pkt) {
  auto* bp = reinterpret_cast<BarrierValuePacket*>(pkt);
  int64_t v;
  if (!load_signal(q, bp->signal, &v)) return Step::Failed;
  int64_t x = v & bp->mask;
  bool ok;
  switch (bp->cond) {
    case kCondEq: ok = x == bp->value; break;
    case kCondNe: ok = x != bp->value; break;
    case kCondLt: ok = x < bp->value; break;
    case kCondGte: ok = x >= bp->value; break;
    default:
      fail(q, qe::kInvalidVendorPacket, "BARRIER_VALUE with unknown condition " + std::to_string(bp->cond));
      return Step::Failed;
  }
  return ok ? Step::Done : Step::Blocked;
}

// amd_queue_t.queue_properties ENABLE_PROFILING (bit 3), read per completion: the runtime may
// toggle it while the queue lives. source: ROCr amd_hsa_queue.h (AMD_QUEUE_PROPERTIES_ENABLE_PROFILING).
bool CommandProcessor::profiling(const Queue& q) {
  uint64_t va = q.rptr_va - offsetof(AmdQueue, read_dispatch_id) + offsetof(AmdQueue, queue_properties);
  // amd_queue_t normally shares the read pointer's page, which the queue holds (no lookup).
  // queue_properties lies after read_dispatch_id: the offset from the read pointer is signed.
  const bool same_page = (va & ~uint64_t(4095)) == (q.rptr_va & ~uint64_t(4095));
  const auto* props = q.rptr_host && same_page
                          ? reinterpret_cast<const uint32_t*>(reinterpret_cast<const uint8_t*>(q.rptr_host) +
                                                                      static_cast<int64_t>(va - q.rptr_va))
                          : reinterpret_cast<const uint32_t*>(d_.translate(va, sizeof(uint32_t), false));
  return props && (__atomic_load_n(props, __ATOMIC_RELAXED) & (1u << 3));
}

// Completion: timestamps, atomic decrement, then mailbox write and interrupt.
bool CommandProcessor::complete(Queue& q, uint64_t signal_va, uint64_t start_ts) {
  Mapping m;  // the signal's mapping, looked up once for all of its fields
  uint8_t* s = signal_at(q, signal_va, true, "completion signal", &m);
  if (!s) return false;
  // The CP writes signals through the L2 (their memory is normally uncached: then to memory).
  if (profiling(q)) {  // the CP stamps start/end only on queues with ENABLE_PROFILING set
    const uint64_t end_ts = p_.gpu_clock();  // (profiling turned on during the packet: it ends as it starts)
    cp_store_at<uint64_t>(d_, m, signal_va + offsetof(AmdSignal, start_ts), start_ts ? start_ts : end_ts, true);
    cp_store_at<uint64_t>(d_, m, signal_va + offsetof(AmdSignal, end_ts), end_ts, true);
  }
  tsan_release_gpu(signal_va + offsetof(AmdSignal, value));
  cp_atomic_at(d_, m, signal_va + offsetof(AmdSignal, value), 8, [](uint8_t* p) {
    __atomic_fetch_sub(reinterpret_cast<int64_t*>(p), 1, __ATOMIC_SEQ_CST);
  });
  return signal_event(q, s);
}

// amd_queue_t.queue_inactive_signal when amd_queue_t is where the queue's read pointer says and
// describes this queue, else nullptr.
// A signal that is not 8-byte aligned is not used (the queue stops without the report).
uint8_t* CommandProcessor::inactive_signal(const Queue& q) {
  uint64_t aq_va = q.rptr_va - offsetof(AmdQueue, read_dispatch_id);
  auto* aq = reinterpret_cast<AmdQueue*>(d_.translate(aq_va, sizeof(AmdQueue), false));
  uint64_t sig = aq && aq->hsa_queue.base_address == q.ring_va ? aq->queue_inactive_signal : 0;
  return sig && sig % 8 == 0 ? d_.translate(sig, sizeof(AmdSignal), true) : nullptr;
}

// The signal's mailbox write and interrupt, as for a completion; false when the mailbox is not
// mapped.
bool CommandProcessor::signal_event(Queue& q, uint8_t* s) {
  uint64_t mailbox = __atomic_load_n(reinterpret_cast<uint64_t*>(s + offsetof(AmdSignal, event_mailbox_ptr)), __ATOMIC_ACQUIRE);
  if (!mailbox) return true;
  Mapping m;  // translate(mailbox, 8, true), keeping the mapping for the store
  if (!d_.lookup(mailbox, &m, &lookups_) || 8 > m.end - mailbox || !m.writable) {
    fault(q, "signal mailbox " + hex(mailbox) + " is not mapped to the GPU", mailbox, true);
    return false;
  }
  uint32_t id;
  std::memcpy(&id, s + offsetof(AmdSignal, event_id), sizeof id);
  cp_store_at<uint64_t>(d_, m, mailbox, uint64_t(id), true);
  p_.raise_signal_event(id);
  return true;
}

// Stops the queue: the error goes to stderr and, as the CP does, into queue_inactive_signal
// (whose event is raised so a waiter wakes).
void CommandProcessor::fail(Queue& q, uint64_t error_bits, const std::string& why) {
  stop_queue(q, why, "queue error " + qe::describe(error_bits));
  uint8_t* s = inactive_signal(q);
  if (!s) return;
  __atomic_store_n(signal_value(s), int64_t(error_bits), __ATOMIC_SEQ_CST);
  (void)signal_event(q, s);
}

}  // namespace emu
