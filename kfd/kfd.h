// SPDX-License-Identifier: MIT
// kfd::Kfd: an open /dev/kfd and one typed, errno-keeping function per amdkfd ioctl the runtime uses.
#pragma once

#include <linux/kfd_ioctl.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "kfd/ioctl_table.h"
#include "kfd/uapi_ext.h"

namespace kfd {

// KFD interface version from AMDKFD_IOC_GET_VERSION. Features are gated on the minor number,
// never on the kernel version (Linux kfd_ioctl.h KFD_IOCTL_MINOR_VERSION history).
struct Version {
  uint32_t major = 0;
  uint32_t minor = 0;
  bool at_least(uint32_t mj, uint32_t mn) const { return major > mj || (major == mj && minor >= mn); }
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};

// Minor versions that introduced what callers gate on (the ioctls' from the ioctl table).
namespace minor {
constexpr uint32_t kXnackMode = ioctls::kSetXnackMode.min_minor;          // SET_XNACK_MODE, SVM
constexpr uint32_t kAvailableMemory = ioctls::kAvailableMemory.min_minor;  // AVAILABLE_MEMORY
constexpr uint32_t kRuntimeEnable = ioctls::kRuntimeEnable.min_minor;      // RUNTIME_ENABLE, DBG_TRAP
constexpr uint32_t kLastEventAge = 14;    // kfd_event_data.signal_event_data.last_event_age
constexpr uint32_t kContiguous = 16;      // KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS
}  // namespace minor

using Apertures = kfd_process_device_apertures;  // lds/scratch/gpuvm base+limit, gpu_id
using EventData = kfd_event_data;                // WAIT_EVENTS element; set .event_id

struct Allocation {
  uint64_t handle = 0;       // for FREE/MAP/UNMAP; the gpu_id is in bits 32..63
  uint64_t mmap_offset = 0;  // offset to mmap on the render node (or /dev/kfd for doorbell/MMIO)
};

// Arguments of CREATE_QUEUE (to KFD). Addresses are GPU VAs (== CPU pointers in kfdrt).
struct QueueArgs {
  uint32_t gpu_id = 0;
  uint32_t queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
  uint64_t ring_base_address = 0;
  uint32_t ring_size = 0;                 // bytes
  uint64_t write_pointer_address = 0;     // AQL: &amd_queue_t.write_dispatch_id
  uint64_t read_pointer_address = 0;      // AQL: &amd_queue_t.read_dispatch_id
  uint32_t queue_percentage = 100;        // bits 0..7
  uint32_t queue_priority = 7;            // 0..15
  uint64_t eop_buffer_address = 0;
  uint64_t eop_buffer_size = 0;
  uint64_t ctx_save_restore_address = 0;
  uint32_t ctx_save_restore_size = 0;
  uint32_t ctl_stack_size = 0;
};

struct QueueInfo {
  uint32_t queue_id = 0;
  uint64_t doorbell_offset = 0;  // mmap /dev/kfd at offset & ~(slice-1); doorbell at offset & (slice-1)
};

struct EventInfo {
  uint32_t event_id = 0;
  uint32_t event_trigger_data = 0;
  uint32_t event_slot_index = 0;
  uint64_t event_page_offset = 0;  // mmap offset of the kernel's events page (signal events)
};

enum class WaitResult : uint32_t {
  Complete = KFD_IOC_WAIT_RESULT_COMPLETE,
  Timeout = KFD_IOC_WAIT_RESULT_TIMEOUT,
  Fail = KFD_IOC_WAIT_RESULT_FAIL,
};

struct ClockCounters {
  uint64_t gpu_clock_counter = 0;
  uint64_t cpu_clock_counter = 0;
  uint64_t system_clock_counter = 0;
  uint64_t system_clock_freq = 0;
};

// An open /dev/kfd. Move-only; closes the fd on destruction. Thin: no policy, no state beyond the
// fd, the version and the pid that opened it (a forked child gets EBADF and must open its own).
class Kfd {
 public:
  static constexpr const char* kPath = "/dev/kfd";

  // open(O_RDWR|O_CLOEXEC) + GET_VERSION; fails unless major == 1. Messages say what is missing
  // (no amdgpu driver / no permission).
  static base::Result<Kfd> open(const char* path = kPath);

  Kfd() = default;  // not open: fd() == -1, every ioctl fails with EBADF
  Kfd(Kfd&& o) noexcept;
  Kfd& operator=(Kfd&& o) noexcept;
  Kfd(const Kfd&) = delete;
  Kfd& operator=(const Kfd&) = delete;
  ~Kfd();

  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const Version& version() const { return version_; }
  bool has_minor(uint32_t m) const { return version_.at_least(1, m); }

  // --- ioctls -------------------------------------------------------------------------------
  base::Result<Version> get_version() const;
  // GET_PROCESS_APERTURES_NEW: one entry per GPU of this process.
  base::Result<std::vector<Apertures>> get_process_apertures() const;
  // ACQUIRE_VM: bind the GPU's VM to a render-node fd (kept open by the caller).
  base::Status acquire_vm(uint32_t gpu_id, int drm_fd) const;

  // ALLOC_MEMORY_OF_GPU. For USERPTR, mmap_offset is the CPU address; otherwise pass 0.
  base::Result<Allocation> alloc_memory(uint32_t gpu_id, uint64_t va, uint64_t size, uint32_t flags,
                                  uint64_t mmap_offset = 0) const;
  base::Status free_memory(uint64_t handle) const;
  // MAP/UNMAP: returns n_success (== gpu_ids.size() on success). Start from `already_done`
  // devices done by an earlier, partly failed call.
  base::Result<uint32_t> map_memory(uint64_t handle, std::span<const uint32_t> gpu_ids,
                              uint32_t already_done = 0) const;
  base::Result<uint32_t> unmap_memory(uint64_t handle, std::span<const uint32_t> gpu_ids,
                                uint32_t already_done = 0) const;
  // AVAILABLE_MEMORY (>= 1.9): VRAM bytes this process can still allocate on the GPU.
  base::Result<uint64_t> available_memory(uint32_t gpu_id) const;

  base::Result<QueueInfo> create_queue(const QueueArgs& args) const;
  base::Status destroy_queue(uint32_t queue_id) const;
  // AMDKFD_IOC_ALLOC_QUEUE_GWS: gives the queue the device's global wave sync (num_gws 0: back).
  base::Status alloc_queue_gws(uint32_t queue_id, uint32_t num_gws) const;
  base::Status update_queue(uint32_t queue_id, uint64_t ring_base_address, uint32_t ring_size,
                      uint32_t queue_percentage, uint32_t queue_priority) const;
  // AMDKFD_IOC_SET_CU_MASK: the queue's dispatches run on the CUs whose bits are set (32 bits a
  // dword; amdkfd numbers CUs engine by engine, kfd_mqd_manager.c).
  base::Status set_cu_mask(uint32_t queue_id, std::span<const uint32_t> mask) const;

  // CREATE_EVENT. event_page_handle: an ALLOC_MEMORY handle of the events page (dGPU), or 0 to
  // let the kernel allocate it (then mmap /dev/kfd at EventInfo::event_page_offset).
  base::Result<EventInfo> create_event(uint32_t event_type, bool auto_reset, uint32_t node_id = 0,
                                 uint64_t event_page_handle = 0) const;
  base::Status destroy_event(uint32_t event_id) const;
  base::Status set_event(uint32_t event_id) const;
  base::Status reset_event(uint32_t event_id) const;
  // WAIT_EVENTS: events[i].event_id in, exception data out. timeout in ms (0: poll).
  base::Result<WaitResult> wait_events(std::span<EventData> events, bool wait_for_all,
                                 uint32_t timeout_ms) const;

  base::Result<ClockCounters> get_clock_counters(uint32_t gpu_id) const;
  // SET_MEMORY_POLICY: KFD_IOC_CACHE_POLICY_COHERENT / _NONCOHERENT.
  base::Status set_memory_policy(uint32_t gpu_id, uint32_t default_policy, uint32_t alternate_policy,
                           uint64_t alternate_aperture_base = 0,
                           uint64_t alternate_aperture_size = 0) const;
  base::Status set_scratch_backing_va(uint32_t gpu_id, uint64_t va) const;
  base::Status set_trap_handler(uint32_t gpu_id, uint64_t tba_addr, uint64_t tma_addr) const;
  // SET_XNACK_MODE (>= 1.5); must precede queue creation (EBUSY otherwise).
  base::Status set_xnack_mode(bool enabled) const;
  base::Result<bool> get_xnack_mode() const;  // the same ioctl with xnack_enabled = -1
  // RUNTIME_ENABLE (>= 1.13); before any queue exists (EEXIST otherwise). Returns the KFD's
  // capabilities_mask. Below 1.13 fails with ENOTSUP ("not supported by KFD 1.x"): callers
  // treat that as the no-op the thunk makes of it.
  base::Result<uint32_t> runtime_enable(uint64_t r_debug = 0,
                                  uint32_t mode_mask = uapi::kRuntimeEnableModeEnable) const;
  base::Status runtime_disable() const;

  // mmap of /dev/kfd (doorbells, events page, MMIO): error names the offset's type and gpu_id.
  base::Result<void*> mmap(void* addr, size_t length, int prot, int flags, uint64_t offset) const;

 private:
  Kfd(int fd, Version v, int pid) : fd_(fd), version_(v), pid_(pid) {}
  // Issues one ioctl of the table (kfd/ioctl_table.h) with EINTR/EAGAIN retry, after its version
  // gate; on failure formats "<name>: <strerror> (<details>)" and, on EBADF from a forked child,
  // says so. `details` is only evaluated on failure.
  template <class A, class Details>
  base::Status call(const Ioctl<A>& io, A* args, Details details) const;
  base::Status gate(const char* name, uint32_t minor_needed) const;
  template <class Args>
  base::Result<uint32_t> map_call(const Ioctl<Args>& io, uint64_t handle,
                            std::span<const uint32_t> gpu_ids, uint32_t already_done) const;
  base::Error error(const char* name, int err, const std::string& details) const;

  int fd_ = -1;
  Version version_;
  int pid_ = 0;
};

// Retrying ioctl(2): 0 or the errno. EINTR is retried always, EAGAIN a bounded number of times
// (the kernel returns it while evicted BOs are restored).
int ioctl_retry(int fd, unsigned long request, void* arg);

// Names an ioctl request (e.g. "AMDKFD_IOC_CREATE_QUEUE"), for messages and the emulator.
const char* ioctl_name(unsigned long request);

}  // namespace kfd
