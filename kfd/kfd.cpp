// SPDX-License-Identifier: MIT
// The amdkfd ioctl wrappers of kfd::Kfd: argument packing, retries, version gates, error text.
#include "kfd/kfd.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace kfd {

namespace {

constexpr int kMaxEagainRetries = 10000;

std::string kv(const char* key, unsigned long long v) { return std::string(key) + "=" + base::hex(v); }

template <class... Rest>
std::string kv(const char* key, unsigned long long v, Rest... rest) {
  return kv(key, v) + ", " + kv(rest...);
}

const char* mmap_type_name(uint64_t offset) {
  switch (offset & uapi::kMmapTypeMask) {
    case uapi::kMmapTypeDoorbell: return "doorbell";
    case uapi::kMmapTypeEvents: return "events";
    case uapi::kMmapTypeReserved: return "reserved";
    default: return "mmio";
  }
}

}  // namespace

int ioctl_retry(int fd, unsigned long request, void* arg) {
  int eagain = 0;
  for (;;) {
    if (::ioctl(fd, request, arg) == 0) return 0;
    int e = errno;
    if (e == EINTR) continue;
    if (e == EAGAIN && ++eagain < kMaxEagainRetries) {
      sched_yield();
      continue;
    }
    return e;
  }
}

const char* ioctl_name(unsigned long request) {
  const IoctlInfo* e = ioctl_info(_IOC_NR(request));
  return e ? e->name : "AMDKFD_IOC_UNKNOWN";
}

// --- lifetime ------------------------------------------------------------------------------

base::Result<Kfd> Kfd::open(const char* path) {
  int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    std::string why;
    if (e == ENOENT) why = "no such device: the amdgpu driver is not loaded or has no KFD support";
    else if (e == EACCES || e == EPERM) why = "no permission: add the user to the 'render' group";
    return base::Error::from_errno(std::string("open ") + path, e, why);
  }
  Kfd k(fd, Version{}, int(::getpid()));
  KFD_ASSIGN(k.version_, k.get_version());
  if (k.version_.major != 1)
    return base::Error::msg(std::string(ioctls::kGetVersion.name) + ": unsupported KFD interface " + k.version_.str() +
                          " (kfdrt speaks 1.x)", EPROTO);
  return k;
}

Kfd::Kfd(Kfd&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), version_(o.version_), pid_(o.pid_) {}

Kfd& Kfd::operator=(Kfd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    version_ = o.version_;
    pid_ = o.pid_;
  }
  return *this;
}

Kfd::~Kfd() {
  if (fd_ >= 0) ::close(fd_);
}

base::Error Kfd::error(const char* name, int err, const std::string& details) const {
  std::string d = details;
  if (err == EBADF && pid_ != 0 && int(::getpid()) != pid_) {
    d += std::string(d.empty() ? "" : "; ") + "/dev/kfd was opened by pid " + std::to_string(pid_) +
         ", this is pid " + std::to_string(::getpid()) +
         ": a forked child must open /dev/kfd itself";
  }
  return base::Error::from_errno(name, err, d);
}

// Ioctls newer than the initial interface are gated on the KFD's minor version first.
template <class A, class Details>
base::Status Kfd::call(const Ioctl<A>& io, A* args, Details details) const {
  if (io.min_minor > kInitialMinor) KFD_TRY(gate(io.name, io.min_minor));
  int e = ioctl_retry(fd_, io.request, args);
  if (e != 0) return error(io.name, e, details());
  return {};
}

base::Status Kfd::gate(const char* name, uint32_t minor_needed) const {
  if (has_minor(minor_needed)) return {};
  return base::Error::msg(std::string(name) + ": not supported by KFD " + version_.str() + " (needs 1." +
                        std::to_string(minor_needed) + ")", ENOTSUP);
}

// --- process, VM, apertures --------------------------------------------------------------------

base::Result<Version> Kfd::get_version() const {
  kfd_ioctl_get_version_args a{};
  KFD_TRY(call(ioctls::kGetVersion, &a, [] { return std::string(); }));
  return Version{a.major_version, a.minor_version};
}

base::Result<std::vector<Apertures>> Kfd::get_process_apertures() const {
  // First ask for the count (num_of_nodes = 0), then fetch that many.
  kfd_ioctl_get_process_apertures_new_args a{};
  KFD_TRY(call(ioctls::kGetProcessAperturesNew, &a, [] { return kv("num_of_nodes", 0); }));
  std::vector<Apertures> out(a.num_of_nodes);
  if (out.empty()) return out;
  a.kfd_process_device_apertures_ptr = reinterpret_cast<uintptr_t>(out.data());
  const uint32_t n = a.num_of_nodes;
  KFD_TRY(call(ioctls::kGetProcessAperturesNew, &a, [&] { return kv("num_of_nodes", n); }));
  out.resize(a.num_of_nodes < n ? a.num_of_nodes : n);
  return out;
}

base::Status Kfd::acquire_vm(uint32_t gpu_id, int drm_fd) const {
  kfd_ioctl_acquire_vm_args a{};
  a.drm_fd = uint32_t(drm_fd);
  a.gpu_id = gpu_id;
  return call(ioctls::kAcquireVm, &a, [&] {
    return "drm_fd=" + std::to_string(drm_fd) + ", " + kv("gpu_id", gpu_id);
  });
}

// --- memory --------------------------------------------------------------------------------

base::Result<Allocation> Kfd::alloc_memory(uint32_t gpu_id, uint64_t va, uint64_t size, uint32_t flags,
                                     uint64_t mmap_offset) const {
  kfd_ioctl_alloc_memory_of_gpu_args a{};
  a.va_addr = va;
  a.size = size;
  a.mmap_offset = mmap_offset;
  a.gpu_id = gpu_id;
  a.flags = flags;
  KFD_TRY(call(ioctls::kAllocMemoryOfGpu, &a, [&] {
    std::string d = kv("va", va, "size", size, "flags", flags, "gpu_id", gpu_id);
    if (flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) d += ", " + kv("userptr", mmap_offset);
    return d;
  }));
  return Allocation{a.handle, a.mmap_offset};
}

base::Status Kfd::free_memory(uint64_t handle) const {
  kfd_ioctl_free_memory_of_gpu_args a{};
  a.handle = handle;
  return call(ioctls::kFreeMemoryOfGpu, &a,
              [&] { return kv("handle", handle); });
}

// MAP and UNMAP take the same arguments; n_success comes back even from a failed call.
template <class Args>
base::Result<uint32_t> Kfd::map_call(const Ioctl<Args>& io, uint64_t handle,
                               std::span<const uint32_t> gpu_ids, uint32_t already_done) const {
  Args a{};
  a.handle = handle;
  a.device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids.data());
  a.n_devices = uint32_t(gpu_ids.size());
  a.n_success = already_done;
  KFD_TRY(call(io, &a, [&] {
    std::string d = kv("handle", handle, "n_devices", gpu_ids.size(), "n_success", a.n_success);
    if (!gpu_ids.empty()) d += ", " + kv("gpu_id[0]", gpu_ids[0]);
    return d;
  }));
  return a.n_success;
}

base::Result<uint32_t> Kfd::map_memory(uint64_t handle, std::span<const uint32_t> gpu_ids,
                                 uint32_t already_done) const {
  return map_call(ioctls::kMapMemoryToGpu, handle, gpu_ids, already_done);
}

base::Result<uint32_t> Kfd::unmap_memory(uint64_t handle, std::span<const uint32_t> gpu_ids,
                                   uint32_t already_done) const {
  return map_call(ioctls::kUnmapMemoryFromGpu, handle, gpu_ids, already_done);
}

base::Result<uint64_t> Kfd::available_memory(uint32_t gpu_id) const {
  kfd_ioctl_get_available_memory_args a{};
  a.gpu_id = gpu_id;
  KFD_TRY(call(ioctls::kAvailableMemory, &a, [&] { return kv("gpu_id", gpu_id); }));
  return uint64_t(a.available);
}

// --- queues --------------------------------------------------------------------------------

base::Result<QueueInfo> Kfd::create_queue(const QueueArgs& q) const {
  kfd_ioctl_create_queue_args a{};
  a.ring_base_address = q.ring_base_address;
  a.write_pointer_address = q.write_pointer_address;
  a.read_pointer_address = q.read_pointer_address;
  a.ring_size = q.ring_size;
  a.gpu_id = q.gpu_id;
  a.queue_type = q.queue_type;
  a.queue_percentage = q.queue_percentage;
  a.queue_priority = q.queue_priority;
  a.eop_buffer_address = q.eop_buffer_address;
  a.eop_buffer_size = q.eop_buffer_size;
  a.ctx_save_restore_address = q.ctx_save_restore_address;
  a.ctx_save_restore_size = q.ctx_save_restore_size;
  a.ctl_stack_size = q.ctl_stack_size;
  KFD_TRY(call(ioctls::kCreateQueue, &a, [&] {
    return kv("ring_size", q.ring_size, "gpu_id", q.gpu_id, "type", q.queue_type, "ring",
              q.ring_base_address) +
           ", " + kv("eop_size", q.eop_buffer_size, "ctx_save_restore_size",
                     q.ctx_save_restore_size, "ctl_stack_size", q.ctl_stack_size);
  }));
  return QueueInfo{a.queue_id, a.doorbell_offset};
}

base::Status Kfd::destroy_queue(uint32_t queue_id) const {
  kfd_ioctl_destroy_queue_args a{};
  a.queue_id = queue_id;
  return call(ioctls::kDestroyQueue, &a,
              [&] { return "queue_id=" + std::to_string(queue_id); });
}

base::Status Kfd::alloc_queue_gws(uint32_t queue_id, uint32_t num_gws) const {
  kfd_ioctl_alloc_queue_gws_args a{};
  a.queue_id = queue_id;
  a.num_gws = num_gws;
  return call(ioctls::kAllocQueueGws, &a, [&] {
    return "queue_id=" + std::to_string(queue_id) + " num_gws=" + std::to_string(num_gws);
  });
}

base::Status Kfd::update_queue(uint32_t queue_id, uint64_t ring_base_address, uint32_t ring_size,
                         uint32_t queue_percentage, uint32_t queue_priority) const {
  kfd_ioctl_update_queue_args a{};
  a.ring_base_address = ring_base_address;
  a.queue_id = queue_id;
  a.ring_size = ring_size;
  a.queue_percentage = queue_percentage;
  a.queue_priority = queue_priority;
  return call(ioctls::kUpdateQueue, &a, [&] {
    return "queue_id=" + std::to_string(queue_id) + ", " +
           kv("ring_size", ring_size, "percentage", queue_percentage, "priority", queue_priority);
  });
}

base::Status Kfd::set_cu_mask(uint32_t queue_id, std::span<const uint32_t> mask) const {
  kfd_ioctl_set_cu_mask_args a{};
  a.queue_id = queue_id;
  a.num_cu_mask = static_cast<uint32_t>(mask.size() * 32);
  a.cu_mask_ptr = reinterpret_cast<uint64_t>(mask.data());
  return call(ioctls::kSetCuMask, &a, [&] {
    return "queue_id=" + std::to_string(queue_id) + " num_cu_mask=" + std::to_string(a.num_cu_mask);
  });
}

// --- events --------------------------------------------------------------------------------

base::Result<EventInfo> Kfd::create_event(uint32_t event_type, bool auto_reset, uint32_t node_id,
                                    uint64_t event_page_handle) const {
  kfd_ioctl_create_event_args a{};
  a.event_page_offset = event_page_handle;
  a.event_type = event_type;
  a.auto_reset = auto_reset ? 1 : 0;
  a.node_id = node_id;
  KFD_TRY(call(ioctls::kCreateEvent, &a, [&] {
    return "event_type=" + std::to_string(event_type) + ", auto_reset=" +
           std::to_string(auto_reset) + ", node_id=" + std::to_string(node_id) + ", " +
           kv("event_page", event_page_handle);
  }));
  return EventInfo{a.event_id, a.event_trigger_data, a.event_slot_index, a.event_page_offset};
}

base::Status Kfd::destroy_event(uint32_t event_id) const {
  kfd_ioctl_destroy_event_args a{};
  a.event_id = event_id;
  return call(ioctls::kDestroyEvent, &a,
              [&] { return "event_id=" + std::to_string(event_id); });
}

base::Status Kfd::set_event(uint32_t event_id) const {
  kfd_ioctl_set_event_args a{};
  a.event_id = event_id;
  return call(ioctls::kSetEvent, &a,
              [&] { return "event_id=" + std::to_string(event_id); });
}

base::Status Kfd::reset_event(uint32_t event_id) const {
  kfd_ioctl_reset_event_args a{};
  a.event_id = event_id;
  return call(ioctls::kResetEvent, &a,
              [&] { return "event_id=" + std::to_string(event_id); });
}

base::Result<WaitResult> Kfd::wait_events(std::span<EventData> events, bool wait_for_all,
                                    uint32_t timeout_ms) const {
  kfd_ioctl_wait_events_args a{};
  a.events_ptr = reinterpret_cast<uintptr_t>(events.data());
  a.num_events = uint32_t(events.size());
  a.wait_for_all = wait_for_all ? 1 : 0;
  a.timeout = timeout_ms;
  KFD_TRY(call(ioctls::kWaitEvents, &a, [&] {
    std::string d = "num_events=" + std::to_string(events.size()) +
                    ", timeout_ms=" + std::to_string(timeout_ms);
    if (!events.empty()) d += ", event_id[0]=" + std::to_string(events[0].event_id);
    return d;
  }));
  return WaitResult(a.wait_result);
}

// --- per-GPU settings ------------------------------------------------------------------------

base::Result<ClockCounters> Kfd::get_clock_counters(uint32_t gpu_id) const {
  kfd_ioctl_get_clock_counters_args a{};
  a.gpu_id = gpu_id;
  KFD_TRY(call(ioctls::kGetClockCounters, &a,
               [&] { return kv("gpu_id", gpu_id); }));
  return ClockCounters{a.gpu_clock_counter, a.cpu_clock_counter, a.system_clock_counter,
                       a.system_clock_freq};
}

base::Status Kfd::set_memory_policy(uint32_t gpu_id, uint32_t default_policy, uint32_t alternate_policy,
                              uint64_t alternate_aperture_base,
                              uint64_t alternate_aperture_size) const {
  kfd_ioctl_set_memory_policy_args a{};
  a.alternate_aperture_base = alternate_aperture_base;
  a.alternate_aperture_size = alternate_aperture_size;
  a.gpu_id = gpu_id;
  a.default_policy = default_policy;
  a.alternate_policy = alternate_policy;
  return call(ioctls::kSetMemoryPolicy, &a, [&] {
    return kv("gpu_id", gpu_id, "default_policy", default_policy, "alternate_policy",
              alternate_policy, "alternate_base", alternate_aperture_base);
  });
}

base::Status Kfd::set_scratch_backing_va(uint32_t gpu_id, uint64_t va) const {
  kfd_ioctl_set_scratch_backing_va_args a{};
  a.va_addr = va;
  a.gpu_id = gpu_id;
  return call(ioctls::kSetScratchBackingVa, &a,
              [&] { return kv("va", va, "gpu_id", gpu_id); });
}

base::Status Kfd::set_trap_handler(uint32_t gpu_id, uint64_t tba_addr, uint64_t tma_addr) const {
  kfd_ioctl_set_trap_handler_args a{};
  a.tba_addr = tba_addr;
  a.tma_addr = tma_addr;
  a.gpu_id = gpu_id;
  return call(ioctls::kSetTrapHandler, &a,
              [&] { return kv("tba", tba_addr, "tma", tma_addr, "gpu_id", gpu_id); });
}

base::Status Kfd::set_xnack_mode(bool enabled) const {
  kfd_ioctl_set_xnack_mode_args a{};
  a.xnack_enabled = enabled ? 1 : 0;
  return call(ioctls::kSetXnackMode, &a,
              [&] { return "xnack_enabled=" + std::to_string(enabled); });
}

base::Result<bool> Kfd::get_xnack_mode() const {
  kfd_ioctl_set_xnack_mode_args a{};
  a.xnack_enabled = -1;  // query
  KFD_TRY(call(ioctls::kSetXnackMode, &a, [] { return std::string("xnack_enabled=-1"); }));
  return a.xnack_enabled != 0;
}

base::Result<uint32_t> Kfd::runtime_enable(uint64_t r_debug, uint32_t mode_mask) const {
  uapi::RuntimeEnableArgs a{};
  a.r_debug = r_debug;
  a.mode_mask = mode_mask;
  KFD_TRY(call(ioctls::kRuntimeEnable, &a,
               [&] { return kv("r_debug", r_debug, "mode_mask", mode_mask); }));
  return a.capabilities_mask;
}

base::Status Kfd::runtime_disable() const {
  auto r = runtime_enable(0, 0);
  if (!r) return r.error();
  return {};
}

base::Result<void*> Kfd::mmap(void* addr, size_t length, int prot, int flags, uint64_t offset) const {
  void* p = ::mmap(addr, length, prot, flags, fd_, off_t(offset));
  if (p == MAP_FAILED) {
    return error("mmap /dev/kfd", errno,
                 std::string("type=") + mmap_type_name(offset) + ", " +
                     kv("gpu_id", uapi::mmap_gpu_id(offset), "offset", offset, "length", length));
  }
  return p;
}

}  // namespace kfd
