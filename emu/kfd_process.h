// SPDX-License-Identifier: MIT
// State of the emulated amdkfd for this process: buffers, GPU mappings, events, queues.
#pragma once

#include <linux/kfd_ioctl.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu/arena.h"
#include "emu/device_model.h"
#include "kfd/uapi_ext.h"

struct kfdemu_counts;

namespace emu {

class CommandProcessor;
class SdmaEngine;
struct Pm4State;
struct SdmaState;
namespace shader { class ShaderCore; class GpuCache; class CachedRange; }

enum class BoKind { Vram, Gtt, Userptr, Doorbell, Mmio };

// A buffer object from ALLOC_MEMORY_OF_GPU.
struct Bo {
  uint64_t handle = 0;       // gpu_id << 32 | id, as the kernel encodes it
  uint32_t gpu_id = 0;       // device it was allocated on
  BoKind kind = BoKind::Gtt;
  uint32_t flags = 0;
  uint64_t va = 0;
  uint64_t size = 0;
  uint8_t* host = nullptr;   // the emulator's view of the memory
  uint64_t arena_offset = UINT64_MAX;
  uint64_t mmap_offset = 0;  // what the runtime passes to mmap
  std::set<uint32_t> mapped; // gpu_ids it is mapped to
  int queue_refs = 0;        // queues using it (kernel 6.12: cannot be freed/unmapped then)
  bool writable() const { return flags & KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE; }
};

// A GPU-visible range as the shader core and command processor see it.
struct Mapping {
  uint64_t va = 0, end = 0;
  uint8_t* host = nullptr;
  bool writable = false;
  bool svm = false;  // an SVM range of the process's own memory (kfd_svm.cpp), not a BO
  shader::CachedRange* cache = nullptr;  // the memory model's state (emu/memory_model.h), or none
};

// A few mappings one thread looked up last, each valid while its DeviceState's map generation
// is the one it was found in (every change to the maps or the injected faults takes a new,
// process-wide unique generation). Owned by one thread (an engine's command processor); saves
// the map lock and tree walk on the addresses an engine touches on every packet (the packet,
// the completion signals and their mailboxes, kernel descriptors).
struct LookupCache {
  static constexpr unsigned kEntries = 8;
  uint64_t gen = 0;  // the generation the entries are of (0: none; no generation is 0)
  unsigned n = 0, next = 0;
  uint64_t lo[kEntries], size[kEntries];  // each mapping's range, apart: a scan reads only these
  Mapping m[kEntries];
};

struct Queue {
  uint32_t id = 0;
  uint32_t gpu_id = 0;
  uint32_t type = 0;
  uint64_t ring_va = 0;
  uint64_t ring_size = 0;
  uint64_t rptr_va = 0, wptr_va = 0;
  uint32_t doorbell_index = 0;
  uint32_t percentage = 100, priority = 7;
  // SET_CU_MASK: the CUs its dispatches run on (device_model.h enabled_cus; null: every CU),
  // replaced under cu_mu while the command processor may be taking it for a dispatch.
  mutable std::mutex cu_mu;
  std::shared_ptr<const std::vector<uint32_t>> cus;
  std::vector<std::shared_ptr<Bo>> held;  // buffers referenced for the queue's lifetime
  std::mutex busy;                        // held by the command processor while it works
  std::atomic<bool> dead{false};
  std::atomic<bool> stopped{false};
  std::string error;

  // Engine state: touched only by the engine serving the queue, under `busy`.
  std::shared_ptr<Pm4State> pm4;  // PM4 front end (PM4 queues, AQL PM4-IB packets): registers, IB
  std::shared_ptr<SdmaState> sdma;  // SDMA: the IB in progress, a packet across the ring end
  uint64_t consumed = 0;          // PM4: dwords, SDMA: bytes the engine has read (monotonic)
  uint32_t sdma_engine = 0;       // SDMA: the engine serving it (kfd: sdma_id % engines)
  uint32_t sdma_id = 0;           // SDMA: the queue's slot among its type's queues
  uint32_t poll_retries = 0;      // SDMA: POLL_REGMEM retries so far
  int64_t timestamp_offset = 0;   // SDMA: TIMESTAMP_SET's local counter minus the GPU clock
  bool scratch_wait = false;      // AQL: asked the runtime for scratch, waits for it
  uint64_t acquired = ~0ull;      // AQL: the packet whose acquire fence has been applied
  // AQL: the ring was empty at the read index when the doorbell held `quiet_doorbell`, the index
  // of a packet already consumed. Until the doorbell changes the engine skips the queue without
  // translating anything: a producer writes a packet before ringing the doorbell with its index,
  // so a new packet means a new value.
  // Written by the serving engine's thread (and cleared by UPDATE_QUEUE), read by it unlocked.
  std::atomic<bool> quiet{false};
  std::atomic<uint64_t> quiet_doorbell{0};
  // AQL: the ring and the read pointer as host memory, from the buffers the queue holds (a held
  // buffer cannot be unmapped or freed while the queue lives, as in Linux 6.12), so the engine
  // does not look them up per turn. Changed under `busy` (UPDATE_QUEUE).
  uint8_t* ring_host = nullptr;
  uint64_t* rptr_host = nullptr;
};

// The CUs the queue's mask enables (null: no mask, every CU), for one dispatch.
inline std::shared_ptr<const std::vector<uint32_t>> queue_cus(const Queue& q) {
  std::lock_guard<std::mutex> lk(q.cu_mu);
  return q.cus;
}

struct Event {
  uint32_t id = 0;
  uint32_t type = 0;
  bool auto_reset = false;
  bool signaled = false;
  uint64_t age = 1;       // kfd_events.c: starts at 1, bumped by every set; 0 means "no age"
  uint64_t serial = 0;    // tells a waiter that its event was destroyed (ids are reused)
  uint32_t waiters = 0;   // an auto-reset set with waiters wakes them instead of staying set
  kfd_hsa_memory_exception_data mem{};
  kfd_hsa_hw_exception_data hw{};
};

// Per emulated GPU, per process.
struct DeviceState {
  const GpuModel* model = nullptr;
  int drm_fd_bound = -1;         // ACQUIRE_VM
  bool vm_acquired = false;
  uint64_t vram_used = 0;
  uint64_t doorbell_arena = UINT64_MAX;  // 8 KiB doorbell slice
  uint64_t mmio_arena = UINT64_MAX;      // one 4 KiB MMIO remap page
  std::vector<bool> doorbell_used = std::vector<bool>(1024, false);
  mutable std::shared_mutex map_mu;      // guards `maps`
  std::map<uint64_t, Mapping> maps;      // by va, what this GPU can access
  // The generation of `maps` and `injected_faults`: renewed (maps_changed) under map_mu's
  // exclusive lock by every change to them (LookupCache).
  std::atomic<uint64_t> map_gen{next_map_gen()};
  void maps_changed() { map_gen.store(next_map_gen(), std::memory_order_release); }
  static uint64_t next_map_gen();
  // The GPU's L2 and L1s under the strict memory model (created with its first mapping);
  // destroyed after the engines that use it, before the mappings that point into it.
  std::unique_ptr<shader::GpuCache> l2;
  std::unique_ptr<CommandProcessor> cp;
  std::shared_ptr<shader::ShaderCore> shader;  // created when the CP starts (or by the first dispatch)
  std::atomic<shader::ShaderCore*> shader_ready{nullptr};  // shader.get() once created
  uint64_t tba = 0, tma = 0;
  std::weak_ptr<Queue> gws_holder;        // ALLOC_QUEUE_GWS: the one queue holding the GWS
  std::atomic<const Queue*> gws_queue{nullptr};  // the same for the CP (no process lock)
  std::atomic<uint64_t> scratch_va{0};  // SET_SCRATCH_BACKING_VA va_addr (base >> 16); CP reads it
  std::vector<std::pair<uint64_t, uint64_t>> injected_faults;  // [va, size)
  std::vector<bool> sdma_used, sdma_xgmi_used;  // SDMA queue slots (kfd dqm sdma bitmaps)
  // SDMA engines: PCIe ones first, then XGMI ones; created with the first SDMA queue. Last member:
  // destroyed (threads joined) before the mappings they read.
  std::vector<std::shared_ptr<SdmaEngine>> sdma;

  // Host pointer for [va, va+size) when mapped to this GPU, else nullptr (`cache` as lookup's).
  uint8_t* translate(uint64_t va, uint64_t size, bool write, LookupCache* cache = nullptr) const;
  // With a cache (owned by the calling thread): a hit needs no lock (and no call).
  bool lookup(uint64_t va, Mapping* out, LookupCache* cache = nullptr) const {
    if (cache && cache->gen == map_gen.load(std::memory_order_acquire)) {
      for (unsigned i = 0; i < cache->n; ++i)
        if (va - cache->lo[i] < cache->size[i]) {
          *out = cache->m[i];
          return true;
        }
    }
    return lookup_locked(va, out, cache);
  }

 private:
  bool lookup_locked(uint64_t va, Mapping* out, LookupCache* cache) const;
};

class Process {
 public:
  static Process& get();

  int ioctl(unsigned long request, void* arg);
  // mmap on /dev/kfd (doorbells, events page, MMIO); returns MAP_FAILED with errno set.
  void* mmap_kfd(void* addr, size_t len, int prot, int flags, uint64_t offset);
  // mmap of a BO through a render node.
  void* mmap_render(uint32_t minor, void* addr, size_t len, int prot, int flags, uint64_t offset);

  void on_open();
  void on_last_close();
  // fork() while engine threads run: the locks a child's first calls take are held across the
  // fork by the forking thread (pthread_atfork), so none is left locked by a thread the child
  // does not have.
  void fork_prepare();
  void fork_done();

  // Interrupts from the device side. An interrupt names a KFD event the way amdkfd's
  // kfd_signal_event_interrupt takes it: a context id with its valid bits (CP end of pipe 32,
  // SDMA trap 28, SQ message 24).
  void raise_signal_event(uint32_t context_id, unsigned valid_bits = 32);
  // kfd_signal_hw_exception_event: every HW_EXCEPTION event is set, its data left as it was
  // (what amdkfd does for an unhandled CP_BAD_OPCODE interrupt).
  void raise_hw_exception_event();
  void raise_memory_fault(uint32_t gpu_id, uint64_t va, bool write);
  void raise_hw_exception(uint32_t gpu_id, bool memory_lost);
  // The process's CPU mapping of [addr, addr+len) went away: SVM ranges there end (kfd_svm.cpp).
  void svm_unmapped(uint64_t addr, uint64_t len);
  // Fault injection (emu/control.h): 0, or -1 with *why set.
  int inject_fault(uint32_t gpu_id, uint64_t va, uint64_t size, std::string* why);
  int inject_hw_exception(uint32_t gpu_id, bool memory_lost, std::string* why);
  DeviceState* device(uint32_t gpu_id);
  // kfdemu_get_counts (emu/counters.cpp): false, all zero, when /dev/kfd is not open here.
  bool counts(struct ::kfdemu_counts* c);
  uint64_t gpu_clock();  // 100 MHz counter

  std::shared_ptr<Bo> bo_at_locked(DeviceState& d, uint64_t va);

  std::mutex mu;  // guards everything below but the event wait

  // The host's calls into the driver (kfdemu_counts), counted without the process lock.
  std::atomic<uint64_t> ioctls{0}, event_waits{0};  // the host's calls into the driver

 private:
  Process() = default;
  void reset_locked();
  void abandon_for_child_locked();
  void ensure_devices_locked();

  // The handler of an ioctl number (kfd/ioctl_table.h), or nullptr when the emulator has none.
  // `size` is the argument buffer's size (the caller's when larger than the kernel's struct).
  using Handler = int (*)(Process& p, void* args, size_t size);
  static Handler handler(unsigned nr);
  // ioctl handlers (kfd_ioctls.cpp, kfd_memory.cpp, kfd_events.cpp, kfd_queues.cpp)
  int get_version(kfd_ioctl_get_version_args* a);
  int get_apertures_new(kfd_ioctl_get_process_apertures_new_args* a);
  int get_apertures_old(kfd_ioctl_get_process_apertures_args* a);
  int acquire_vm(kfd_ioctl_acquire_vm_args* a);
  int alloc_memory(kfd_ioctl_alloc_memory_of_gpu_args* a);
  int alloc_memory_locked(kfd_ioctl_alloc_memory_of_gpu_args* a);
  int free_memory(kfd_ioctl_free_memory_of_gpu_args* a);
  int map_memory(kfd_ioctl_map_memory_to_gpu_args* a);
  int unmap_memory(kfd_ioctl_unmap_memory_from_gpu_args* a);
  int create_queue(kfd_ioctl_create_queue_args* a);
  int destroy_queue(kfd_ioctl_destroy_queue_args* a);
  int update_queue(kfd_ioctl_update_queue_args* a);
  int create_event(kfd_ioctl_create_event_args* a);
  int destroy_event(kfd_ioctl_destroy_event_args* a);
  int set_event(kfd_ioctl_set_event_args* a);
  int reset_event(kfd_ioctl_reset_event_args* a);
  int wait_events(kfd_ioctl_wait_events_args* a);
  // Ends the idle sleep of every engine (a host thread is about to block on the device's work).
  void kick_engines();
  int get_clock_counters(kfd_ioctl_get_clock_counters_args* a);
  int set_memory_policy(kfd_ioctl_set_memory_policy_args* a);
  int set_scratch_backing_va(kfd_ioctl_set_scratch_backing_va_args* a);
  int set_trap_handler(kfd_ioctl_set_trap_handler_args* a);
  int get_tile_config(kfd_ioctl_get_tile_config_args* a);
  int set_cu_mask(kfd_ioctl_set_cu_mask_args* a);
  int alloc_queue_gws(kfd_ioctl_alloc_queue_gws_args* a);
  int set_xnack_mode(kfd_ioctl_set_xnack_mode_args* a);
  int available_memory(kfd_ioctl_get_available_memory_args* a);
  int runtime_enable(kfd::uapi::RuntimeEnableArgs* a);
  int svm(kfd_ioctl_svm_args* a, size_t size);

  // SVM ranges (kfd_svm.cpp), in pages [start, last] as kfd_svm.c keeps them.
  struct SvmRange {
    uint64_t start = 0, last = 0;
    uint32_t preferred_loc = 0, prefetch_loc = 0, flags = 0, granularity = 0;
    std::set<uint32_t> access, in_place;  // gpu_ids
  };
  void svm_split_locked(uint64_t page);
  int svm_check_attrs_locked(const kfd_ioctl_svm_attribute* attrs, uint32_t n);
  int svm_check_range_locked(uint64_t start, uint64_t last);
  static void svm_apply(SvmRange& r, const kfd_ioctl_svm_attribute* attrs, uint32_t n);
  SvmRange svm_default_locked(uint64_t start, uint64_t last);
  void svm_remap_locked();
  int svm_set_locked(uint64_t start, uint64_t last, const kfd_ioctl_svm_attribute* attrs, uint32_t n);
  int svm_get_locked(uint64_t start, uint64_t last, kfd_ioctl_svm_attribute* attrs, uint32_t n);
  bool svm_overlaps_locked(uint64_t va, uint64_t size) const;

  int validate_queue_buffers(DeviceState& d, const kfd_ioctl_create_queue_args& a, Queue& q);
  void map_locked(DeviceState& d, Bo& bo);
  void unmap_locked(DeviceState& d, Bo& bo);
  void free_bo_locked(Bo& bo);
  uint8_t* event_slots();
  int map_args_locked(uint64_t handle, uint32_t n_devices, uint32_t n_success, uint64_t ids_ptr,
                      std::vector<uint32_t>* ids, Bo** bo);
  uint64_t kfd_mmap_arena_locked(size_t len, uint64_t offset, int* err);
  void* mmap_private_vram_locked(Bo& bo, void* addr, size_t len, int prot, int flags);
  int set_event_page_locked(uint64_t handle);
  int create_signal_event_locked(Event& ev);
  static void set_event_locked(Event& e);

  bool opened_ = false;
  int open_count_ = 0;
  pid_t owner_ = 0;
  bool runtime_enabled_ = false;
  int xnack_ = 0;
  std::map<uint32_t, std::unique_ptr<DeviceState>> devices_;  // by gpu_id
  std::map<uint64_t, std::shared_ptr<Bo>> bos_;               // by handle
  uint32_t next_bo_id_ = 1;
  std::map<uint32_t, std::shared_ptr<Queue>> queues_;         // by queue id
  std::map<uint64_t, SvmRange> svm_;                          // by start page, disjoint
  std::atomic<bool> svm_any_{false};                          // svm_ is not empty

  // Events: own lock so that waits do not hold `mu`.
  std::mutex ev_mu_;
  std::condition_variable ev_cv_;
  unsigned ev_sleepers_ = 0;  // threads in ev_cv_'s waits (under ev_mu_)
  std::map<uint32_t, Event> events_;
  std::shared_ptr<Bo> event_page_bo_;      // runtime-provided page (dGPU path)
  uint64_t internal_event_page_ = UINT64_MAX;  // kernel-allocated page (mmap type EVENTS)
  uint32_t next_nonsignal_id_ = 0x80000000u;
  uint32_t signal_events_ = 0;
  // Slots user mode can see: 256 until the kernel's page is mmapped (then its size / 8), or the
  // size of the runtime's page / 8 (kfd_events.c: signal_mapped_size).
  uint32_t signal_limit_ = 0;
  uint64_t next_event_serial_ = 1;

  friend class Interpose;
  friend struct ProcessAccess;
};

// Called by the interposer when an fd of ours is opened/closed.
void kfd_fd_opened();
void kfd_fd_closed();

}  // namespace emu
