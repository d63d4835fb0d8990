// SPDX-License-Identifier: MIT
// The emulated /dev/kfd ioctl dispatch (on kfd/ioctl_table.h) and the small ioctls (version,
// apertures, VM, clocks, policies).
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

#include "emu/host_watch.h"
#include "emu/command_processor.h"
#include "emu/kfd_process.h"
#include "emu/stats.h"
#include "emu/fd_table.h"
#include "emu/user_copy.h"
#include "kfd/ioctl_table.h"
#include "kfd/uapi_ext.h"

namespace emu {

namespace {

// gfx9 apertures (kfd_flat_memory.c facts): LDS at 1<<48, scratch at 2<<48, 4 GiB each.
constexpr uint64_t kLdsBase = 1ull << 48;
constexpr uint64_t kScratchBase = 2ull << 48;
constexpr uint64_t kApertureSize = 1ull << 32;
constexpr uint64_t kGpuvmBase = 1ull << 21;
constexpr uint64_t kGpuvmLimit = (1ull << 47) - 1;

using kfd::IoctlInfo;
namespace ioc = kfd::ioctls;

// The argument struct of a table row, for the handler casts below.
template <const auto& Row>
auto* args_of(void* a) {
  return static_cast<typename std::remove_cvref_t<decltype(Row)>::Args*>(a);
}

// The largest argument struct of the kernel's table (GET_PROCESS_APERTURES: 400 bytes), for the
// kernel-side copy.
constexpr size_t max_arg_size() {
  size_t m = 0;
  for (const IoctlInfo& e : kfd::kIoctlTable) m = e.arg_size > m ? e.arg_size : m;
  return m;
}

// Whether a KFD 1.minor kernel knows this ioctl (the table's first version of each).
bool known_to(const IoctlInfo* e, int minor) { return e && e->min_minor <= uint32_t(minor); }

// The arguments worth seeing in a KFDEMU_LOG=2 trace, as "key=value ...", after the handler ran.
std::string describe(unsigned nr, void* a) {
  char b[160] = "";
  switch (nr) {
    case ioc::kCreateQueue.nr(): {
      auto* q = args_of<ioc::kCreateQueue>(a);
      std::snprintf(b, sizeof b, " gpu_id=0x%x type=%u ring=0x%llx size=0x%x -> queue %u", q->gpu_id,
                    q->queue_type, (unsigned long long)q->ring_base_address, q->ring_size, q->queue_id);
      break;
    }
    case ioc::kCreateEvent.nr(): {
      auto* e = args_of<ioc::kCreateEvent>(a);
      std::snprintf(b, sizeof b, " type=%u auto_reset=%u -> id %u", e->event_type, e->auto_reset, e->event_id);
      break;
    }
    case ioc::kAllocMemoryOfGpu.nr(): {
      auto* m = args_of<ioc::kAllocMemoryOfGpu>(a);
      std::snprintf(b, sizeof b, " gpu_id=0x%x va=0x%llx size=0x%llx flags=0x%x", m->gpu_id,
                    (unsigned long long)m->va_addr, (unsigned long long)m->size, m->flags);
      break;
    }
    default:
      break;
  }
  return b;
}

}  // namespace

Process& Process::get() {
  static Process* p = new Process;  // never destroyed: CP threads may run during exit
  return *p;
}

uint64_t Process::gpu_clock() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec)) / 10;  // 100 MHz
}

DeviceState* Process::device(uint32_t gpu_id) {
  auto it = devices_.find(gpu_id);
  return it == devices_.end() ? nullptr : it->second.get();
}

void Process::ensure_devices_locked() {
  if (!devices_.empty()) return;
  for (const auto& g : model().gpus) {
    auto d = std::make_unique<DeviceState>();
    d->model = &g;
    devices_[g.gpu_id] = std::move(d);
  }
}

void Process::fork_prepare() {
  shader_build_mutex().lock();  // a shader core being built finishes first
  mu.lock();
  ev_mu_.lock();
}

void Process::fork_done() {
  ev_mu_.unlock();
  mu.unlock();
  shader_build_mutex().unlock();
}

void Process::on_open() {
  static std::once_flag fork_handlers;
  std::call_once(fork_handlers, [] {
    pthread_atfork([] { Process::get().fork_prepare(); }, [] { Process::get().fork_done(); },
                   [] { Process::get().fork_done(); });
  });
  std::lock_guard<std::mutex> lk(mu);
  freeze_model();
  if (open_count_ > 0 && owner_ != getpid()) abandon_for_child_locked();
  if (open_count_++ == 0) {
    owner_ = getpid();
    ensure_devices_locked();
    stats::arm_report();
    // The command processors start with the device file rather than with their first queue:
    // each thread builds its shader core (decode tables, one to two milliseconds) while the
    // runtime reads the topology and sets itself up, then sleeps until it has a queue.
    for (auto& [id, d] : devices_)
      if (!d->cp) d->cp = std::make_unique<CommandProcessor>(*this, *d);
  }
}

void Process::on_last_close() {
  std::lock_guard<std::mutex> lk(mu);
  if (--open_count_ > 0) return;
  reset_locked();
}

// A forked child opening /dev/kfd gets a process of its own. The parent's state came along in
// the child's memory copy, but its command-processor threads did not: leak it rather than join.
void Process::abandon_for_child_locked() {
  for (auto& [gid, d] : devices_) (void)d->cp.release();
  for (auto& [gid, d] : devices_) host_watch_gpu_gone(*d);
  for (auto& [gid, d] : devices_) (void)d.release();
  devices_.clear();
  for (auto& [id, q] : queues_) new std::shared_ptr<Queue>(q);  // its mutex may be held
  queues_.clear();
  bos_.clear();
  svm_.clear();
  svm_any_ = false;
  events_.clear();
  event_page_bo_.reset();
  signal_events_ = 0;
  signal_limit_ = 0;
  internal_event_page_ = UINT64_MAX;
  runtime_enabled_ = false;
  xnack_ = 0;
  open_count_ = 0;
}

// Tears the process down as the kernel does when the last /dev/kfd reference goes away.
void Process::reset_locked() {
  for (auto& [id, q] : queues_) {
    q->dead = true;
    std::lock_guard<std::mutex> qk(q->busy);
  }
  for (auto& [gid, d] : devices_) {
    if (d->cp) d->cp->stop();
    d->cp.reset();
  }
  queues_.clear();
  for (auto& [h, bo] : bos_) free_bo_locked(*bo);
  bos_.clear();
  svm_.clear();
  svm_any_ = false;
  {
    std::lock_guard<std::mutex> ek(ev_mu_);
    events_.clear();
    event_page_bo_.reset();
    signal_events_ = 0;
    signal_limit_ = 0;
    next_nonsignal_id_ = 0x80000000u;
    ev_cv_.notify_all();
  }
  for (auto& [gid, d] : devices_) {
    if (d->doorbell_arena != UINT64_MAX) Arena::get().release(d->doorbell_arena, kfd::uapi::kDoorbellSliceSize);
    if (d->mmio_arena != UINT64_MAX) Arena::get().release(d->mmio_arena, 4096);
  }
  if (internal_event_page_ != UINT64_MAX) Arena::get().release(internal_event_page_, kfd::uapi::kEventPageSize);
  internal_event_page_ = UINT64_MAX;
  for (auto& [gid, d] : devices_) host_watch_gpu_gone(*d);
  devices_.clear();
  runtime_enabled_ = false;
  xnack_ = 0;
}

int Process::ioctl(unsigned long request, void* arg) {
  if (own_pid() != owner_) return -EBADF;  // a forked child must open its own /dev/kfd
  ioctls.fetch_add(1, std::memory_order_relaxed);
  unsigned nr = _IOC_NR(request);
  size_t usize = _IOC_SIZE(request);
  // kfd_ioctl: numbers past the table of this KFD version are ENOTTY; the type byte is not looked
  // at (the kernel substitutes its own command), but the emulator keeps foreign ioctls out.
  if (_IOC_TYPE(request) != AMDKFD_IOCTL_BASE) {
    log("unknown ioctl 0x%lx on /dev/kfd (nr 0x%x): EINVAL", request, nr);
    return -EINVAL;
  }
  const IoctlInfo* e = kfd::ioctl_info(nr);
  if (!known_to(e, model().config.kfd_minor)) {
    log("ioctl nr 0x%x is past the table of KFD 1.%d: ENOTTY", nr, model().config.kfd_minor);
    return -ENOTTY;
  }
  if (e->deprecated) return -EPERM;  // the old debugger's DBG_* ioctls
  Handler h = handler(nr);
  if (!h) {
    log("%s is not implemented by the emulator: ENOTTY", e->name);
    return -ENOTTY;
  }
  // The kernel copies in the caller's size and works on max(that, its own size), zero-filled
  // beyond what was copied; SVM's attribute array rides on that (libhsakmt adds it to the size).
  alignas(8) unsigned char small[max_arg_size()] = {};
  std::vector<uint64_t> large;
  unsigned char* buf = small;
  size_t asize = usize > e->arg_size ? usize : e->arg_size;
  if (asize > sizeof small) {
    large.assign((asize + 7) / 8, 0);
    buf = reinterpret_cast<unsigned char*>(large.data());
  }
  size_t n = usize;
  if (n && (_IOC_DIR(request) & _IOC_WRITE) && !copy_from_user(buf, arg, n)) return -EFAULT;
  int r = h(*this, buf, asize);
  // The kernel copies the arguments back whatever the handler returned: callers read n_success
  // after a partly failed MAP/UNMAP, wait_result after a failed WAIT_EVENTS, a clamped ring_size.
  if (n && (_IOC_DIR(request) & _IOC_READ) && !copy_to_user(arg, buf, n)) r = -EFAULT;
  if (r != 0) log("%s -> %s", e->name, std::strerror(-r));
  else if (model().log >= 2) trace("%s%s -> 0", e->name, describe(nr, buf).c_str());
  return r;
}

// One handler per implemented ioctl; each cast names the table row whose argument struct the
// handler takes, so a row and its handler cannot disagree.
Process::Handler Process::handler(unsigned nr) {
  static const auto table = [] {
    std::array<Handler, kfd::kIoctlCount> t{};
    auto on = [&t](unsigned n, Handler h) { t[n] = h; };
    on(ioc::kGetVersion.nr(), [](Process& p, void* a, size_t) { return p.get_version(args_of<ioc::kGetVersion>(a)); });
    on(ioc::kCreateQueue.nr(), [](Process& p, void* a, size_t) { return p.create_queue(args_of<ioc::kCreateQueue>(a)); });
    on(ioc::kDestroyQueue.nr(), [](Process& p, void* a, size_t) { return p.destroy_queue(args_of<ioc::kDestroyQueue>(a)); });
    on(ioc::kSetMemoryPolicy.nr(),
       [](Process& p, void* a, size_t) { return p.set_memory_policy(args_of<ioc::kSetMemoryPolicy>(a)); });
    on(ioc::kGetClockCounters.nr(),
       [](Process& p, void* a, size_t) { return p.get_clock_counters(args_of<ioc::kGetClockCounters>(a)); });
    on(ioc::kGetProcessApertures.nr(),
       [](Process& p, void* a, size_t) { return p.get_apertures_old(args_of<ioc::kGetProcessApertures>(a)); });
    on(ioc::kUpdateQueue.nr(), [](Process& p, void* a, size_t) { return p.update_queue(args_of<ioc::kUpdateQueue>(a)); });
    on(ioc::kCreateEvent.nr(), [](Process& p, void* a, size_t) { return p.create_event(args_of<ioc::kCreateEvent>(a)); });
    on(ioc::kDestroyEvent.nr(), [](Process& p, void* a, size_t) { return p.destroy_event(args_of<ioc::kDestroyEvent>(a)); });
    on(ioc::kSetEvent.nr(), [](Process& p, void* a, size_t) { return p.set_event(args_of<ioc::kSetEvent>(a)); });
    on(ioc::kResetEvent.nr(), [](Process& p, void* a, size_t) { return p.reset_event(args_of<ioc::kResetEvent>(a)); });
    on(ioc::kWaitEvents.nr(), [](Process& p, void* a, size_t) { return p.wait_events(args_of<ioc::kWaitEvents>(a)); });
    on(ioc::kSetScratchBackingVa.nr(),
       [](Process& p, void* a, size_t) { return p.set_scratch_backing_va(args_of<ioc::kSetScratchBackingVa>(a)); });
    on(ioc::kGetTileConfig.nr(),
       [](Process& p, void* a, size_t) { return p.get_tile_config(args_of<ioc::kGetTileConfig>(a)); });
    on(ioc::kSetTrapHandler.nr(),
       [](Process& p, void* a, size_t) { return p.set_trap_handler(args_of<ioc::kSetTrapHandler>(a)); });
    on(ioc::kGetProcessAperturesNew.nr(),
       [](Process& p, void* a, size_t) { return p.get_apertures_new(args_of<ioc::kGetProcessAperturesNew>(a)); });
    on(ioc::kAcquireVm.nr(), [](Process& p, void* a, size_t) { return p.acquire_vm(args_of<ioc::kAcquireVm>(a)); });
    on(ioc::kAllocMemoryOfGpu.nr(),
       [](Process& p, void* a, size_t) { return p.alloc_memory(args_of<ioc::kAllocMemoryOfGpu>(a)); });
    on(ioc::kFreeMemoryOfGpu.nr(),
       [](Process& p, void* a, size_t) { return p.free_memory(args_of<ioc::kFreeMemoryOfGpu>(a)); });
    on(ioc::kMapMemoryToGpu.nr(),
       [](Process& p, void* a, size_t) { return p.map_memory(args_of<ioc::kMapMemoryToGpu>(a)); });
    on(ioc::kUnmapMemoryFromGpu.nr(),
       [](Process& p, void* a, size_t) { return p.unmap_memory(args_of<ioc::kUnmapMemoryFromGpu>(a)); });
    on(ioc::kSetCuMask.nr(), [](Process& p, void* a, size_t) { return p.set_cu_mask(args_of<ioc::kSetCuMask>(a)); });
    on(ioc::kAllocQueueGws.nr(),
       [](Process& p, void* a, size_t) { return p.alloc_queue_gws(args_of<ioc::kAllocQueueGws>(a)); });
    on(ioc::kSvm.nr(), [](Process& p, void* a, size_t n) { return p.svm(args_of<ioc::kSvm>(a), n); });
    on(ioc::kSetXnackMode.nr(),
       [](Process& p, void* a, size_t) { return p.set_xnack_mode(args_of<ioc::kSetXnackMode>(a)); });
    on(ioc::kAvailableMemory.nr(),
       [](Process& p, void* a, size_t) { return p.available_memory(args_of<ioc::kAvailableMemory>(a)); });
    on(ioc::kRuntimeEnable.nr(),
       [](Process& p, void* a, size_t) { return p.runtime_enable(args_of<ioc::kRuntimeEnable>(a)); });
    return t;
  }();
  return nr < table.size() ? table[nr] : nullptr;
}

int Process::get_version(kfd_ioctl_get_version_args* a) {
  a->major_version = 1;
  a->minor_version = uint32_t(model().config.kfd_minor);
  return 0;
}

static void fill_aperture(kfd_process_device_apertures& ap, uint32_t gpu_id) {
  ap.lds_base = kLdsBase;
  ap.lds_limit = kLdsBase + kApertureSize - 1;
  ap.scratch_base = kScratchBase;
  ap.scratch_limit = kScratchBase + kApertureSize - 1;
  ap.gpuvm_base = kGpuvmBase;
  ap.gpuvm_limit = kGpuvmLimit;
  ap.gpu_id = gpu_id;
  ap.pad = 0;
}

int Process::get_apertures_new(kfd_ioctl_get_process_apertures_new_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  uint32_t count = uint32_t(devices_.size());
  if (a->num_of_nodes == 0) {  // the caller asks how many entries to allocate
    a->num_of_nodes = count;
    return 0;
  }
  uint32_t n = a->num_of_nodes < count ? a->num_of_nodes : count;
  std::vector<kfd_process_device_apertures> out(n);
  uint32_t i = 0;
  for (auto& [gid, d] : devices_) {
    if (i == n) break;
    fill_aperture(out[i++], gid);
  }
  if (!copy_to_user(reinterpret_cast<void*>(a->kfd_process_device_apertures_ptr), out.data(),
                    n * sizeof(out[0])))
    return -EFAULT;
  a->num_of_nodes = n;
  return 0;
}

int Process::get_apertures_old(kfd_ioctl_get_process_apertures_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  uint32_t i = 0;
  for (auto& [gid, d] : devices_) {
    if (i == NUM_OF_SUPPORTED_GPUS) break;
    fill_aperture(a->process_apertures[i++], gid);
  }
  a->num_of_nodes = i;
  return 0;
}

int Process::acquire_vm(kfd_ioctl_acquire_vm_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  DeviceState* d = device(a->gpu_id);
  if (!d) return -EINVAL;
  int minor = render_minor_of_fd(int(a->drm_fd));
  if (minor < 0) return -EINVAL;  // not a DRM file
  if (uint32_t(minor) != d->model->render_minor) return -EINVAL;  // a different GPU's node
  if (d->vm_acquired) {
    // The kernel accepts the same file again and rejects a different one.
    return render_fd_same_file(d->drm_fd_bound, int(a->drm_fd)) ? 0 : -EBUSY;
  }
  d->vm_acquired = true;
  d->drm_fd_bound = int(a->drm_fd);
  return 0;
}

int Process::get_clock_counters(kfd_ioctl_get_clock_counters_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  timespec raw, boot;
  clock_gettime(CLOCK_MONOTONIC_RAW, &raw);
  clock_gettime(CLOCK_BOOTTIME, &boot);
  // An unknown gpu_id is a node without GPU resources: the kernel reports a zero GPU clock.
  a->gpu_clock_counter = device(a->gpu_id) ? gpu_clock() : 0;
  a->cpu_clock_counter = uint64_t(raw.tv_sec) * 1000000000ull + uint64_t(raw.tv_nsec);
  a->system_clock_counter = uint64_t(boot.tv_sec) * 1000000000ull + uint64_t(boot.tv_nsec);
  a->system_clock_freq = 1000000000ull;
  return 0;
}

int Process::set_memory_policy(kfd_ioctl_set_memory_policy_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  if (a->default_policy != KFD_IOC_CACHE_POLICY_COHERENT &&
      a->default_policy != KFD_IOC_CACHE_POLICY_NONCOHERENT)
    return -EINVAL;
  if (a->alternate_policy != KFD_IOC_CACHE_POLICY_COHERENT &&
      a->alternate_policy != KFD_IOC_CACHE_POLICY_NONCOHERENT)
    return -EINVAL;
  DeviceState* d = device(a->gpu_id);
  if (!d) return -EINVAL;
  return d->vm_acquired ? 0 : -ESRCH;  // kfd_bind_process_to_device failed
}

int Process::set_scratch_backing_va(kfd_ioctl_set_scratch_backing_va_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  DeviceState* d = device(a->gpu_id);
  if (!d) return -EINVAL;
  if (!d->vm_acquired) return -ENODEV;  // the bind's own error, unlike the ioctls around it
  d->scratch_va.store(a->va_addr, std::memory_order_release);
  return 0;
}

int Process::set_trap_handler(kfd_ioctl_set_trap_handler_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  DeviceState* d = device(a->gpu_id);
  if (!d) return -EINVAL;
  if (!d->vm_acquired) return -ESRCH;
  d->tba = a->tba_addr;
  d->tma = a->tma_addr;
  return 0;
}

// kfd_chardev.c kfd_ioctl_get_tile_config with amdgpu_amdkfd_get_tile_config: GB_ADDR_CONFIG, and
// the driver's tile_mode_array[32] and macrotile_mode_array[16], which gfx9 and later never fill
// (zeros), as are num_banks and num_ranks. The counts are clamped to the arrays; a bad pointer
// is EFAULT with that count zeroed.
int Process::get_tile_config(kfd_ioctl_get_tile_config_args* a) {
  constexpr uint32_t kTileModes = 32, kMacroTileModes = 16;
  const GpuModel* g = nullptr;
  {
    std::lock_guard<std::mutex> lk(mu);
    DeviceState* d = device(a->gpu_id);
    if (!d) return -EINVAL;
    g = d->model;
  }
  const uint32_t zeros[kTileModes] = {};
  a->gb_addr_config = g->target->gb_addr_config;
  a->num_banks = 0;
  a->num_ranks = 0;
  if (a->num_tile_configs > kTileModes) a->num_tile_configs = kTileModes;
  if (!copy_to_user(reinterpret_cast<void*>(a->tile_config_ptr), zeros,
                    a->num_tile_configs * sizeof(uint32_t))) {
    a->num_tile_configs = 0;
    return -EFAULT;
  }
  if (a->num_macro_tile_configs > kMacroTileModes) a->num_macro_tile_configs = kMacroTileModes;
  if (!copy_to_user(reinterpret_cast<void*>(a->macro_tile_config_ptr), zeros,
                    a->num_macro_tile_configs * sizeof(uint32_t))) {
    a->num_macro_tile_configs = 0;
    return -EFAULT;
  }
  return 0;
}

// kfd_chardev.c kfd_ioctl_set_cu_mask: the bit count must be a non-zero multiple of 32; bits past
// 1024 are dropped; the mask is read before the queue is looked up (pqm_update_mqd: an unknown
// queue is EFAULT). The queue's dispatches then place workgroups on the CUs it enables only
// (device_model.h enabled_cus); a mask that enables none hangs them, as it does a GPU's queue.
int Process::set_cu_mask(kfd_ioctl_set_cu_mask_args* a) {
  constexpr uint32_t kMaxCus = 1024;
  if (a->num_cu_mask % 32 != 0 || a->num_cu_mask == 0) return -EINVAL;
  uint32_t bits = a->num_cu_mask > kMaxCus ? kMaxCus : a->num_cu_mask;
  std::vector<uint32_t> mask(bits / 32);
  if (!copy_from_user(mask.data(), reinterpret_cast<void*>(a->cu_mask_ptr), mask.size() * 4)) return -EFAULT;
  std::lock_guard<std::mutex> lk(mu);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return -EFAULT;
  DeviceState* d = device(it->second->gpu_id);
  if (!d) return -EFAULT;
  auto cus = std::make_shared<const std::vector<uint32_t>>(enabled_cus(*d->model, mask));
  std::lock_guard<std::mutex> cl(it->second->cu_mu);
  it->second->cus = std::move(cus);
  return 0;
}

// kfd_chardev.c kfd_ioctl_alloc_queue_gws with pqm_set_gws: the queue must exist (EINVAL); the
// device's global wave sync (the topology's num_gws) goes whole to one queue of the process at a
// time (EBUSY for a second), num_gws 0 gives it back (EINVAL when the process holds none).
// A destroyed holder gives it back too (pqm_destroy_queue).
int Process::alloc_queue_gws(kfd_ioctl_alloc_queue_gws_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  auto it = queues_.find(a->queue_id);
  if (it == queues_.end()) return -EINVAL;
  DeviceState* d = device(it->second->gpu_id);
  if (!d) return -EINVAL;
  if (kNumGws == 0) return -ENODEV;
  std::shared_ptr<Queue> holder = d->gws_holder.lock();
  bool held = holder && !holder->dead;
  if (a->num_gws && held) return -EBUSY;
  if (!a->num_gws && !held) return -EINVAL;
  d->gws_holder = a->num_gws ? it->second : std::shared_ptr<Queue>();
  d->gws_queue.store(a->num_gws ? it->second.get() : nullptr, std::memory_order_release);
  a->first_gws = 0;
  return 0;
}

int Process::set_xnack_mode(kfd_ioctl_set_xnack_mode_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  if (a->xnack_enabled < 0) {  // query
    a->xnack_enabled = xnack_;
    return 0;
  }
  if (!queues_.empty()) return -EBUSY;  // the mode cannot change while queues exist
  bool all_support = true;
  for (auto& [gid, d] : devices_)
    all_support &= d->model->target->gfx_target_version >= 90008;
  if (a->xnack_enabled && !all_support) return -EPERM;
  xnack_ = a->xnack_enabled ? 1 : 0;
  return 0;
}

int Process::available_memory(kfd_ioctl_get_available_memory_args* a) {
  std::lock_guard<std::mutex> lk(mu);
  DeviceState* d = device(a->gpu_id);
  if (!d) return -EINVAL;
  a->available = d->model->vram_bytes - d->vram_used;
  return 0;
}

int Process::runtime_enable(kfd::uapi::RuntimeEnableArgs* a) {
  std::lock_guard<std::mutex> lk(mu);
  if (a->mode_mask & kfd::uapi::kRuntimeEnableModeEnable) {
    if (runtime_enabled_) return -EBUSY;
    if (!queues_.empty()) return -EEXIST;  // must come before any queue exists
    runtime_enabled_ = true;
  } else {
    runtime_enabled_ = false;
  }
  a->capabilities_mask = 0;
  return 0;
}

}  // namespace emu
