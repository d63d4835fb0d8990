// SPDX-License-Identifier: MIT
// The engines' fuzz harness: device set-up through the kfd ioctls, a queue per input, and the wait for its end.
#include "tests/fuzz/engine_harness.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "kfd/kfd.h"
#include "kfd/render_node.h"
#include "kfd/topology.h"
#include "pm4/aql.h"
#include "pm4/queue_sizes.h"

namespace fuzz {
namespace {

constexpr uint64_t kPage = 4096;
// Fixed addresses of the harness's own buffers, after the data buffer.
constexpr uint64_t kRingVa = kDataVa + kDataBytes;
constexpr uint64_t kPtrsVa = kRingVa + kRingBytes;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "fuzz harness: %s\n", what.c_str());
  std::abort();
}

template <class T>
T must(base::Result<T> r, const char* what) {
  if (!r.ok()) die(std::string(what) + ": " + r.message());
  return std::move(r).value();
}
void must(const base::Status& s, const char* what) {
  if (!s.ok()) die(std::string(what) + ": " + s.message());
}

struct Device {
  kfd::Kfd kfd;
  kfd::Topology topo;
  kfd::RenderNode render;
  uint32_t gpu_id = 0;
  pm4::QueueBufferSizes sizes;
  uint8_t* data = nullptr;
  uint8_t* ring = nullptr;
  uint8_t* ptrs = nullptr;
  uint64_t eop_va = 0, cwsr_va = 0;
  uint32_t events[2] = {};  // MEMORY, HW_EXCEPTION
};

// A buffer at `va` (0: anywhere), mapped to the GPU and, when `cpu`, to the CPU at the same address.
uint8_t* buffer(Device& d, uint64_t va, uint64_t size, bool vram, bool cpu) {
  const int fixed = va ? MAP_FIXED_NOREPLACE : 0;
  void* p = ::mmap(reinterpret_cast<void*>(va), size, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | fixed, -1, 0);
  if (p == MAP_FAILED || (va && p != reinterpret_cast<void*>(va)))
    die("cannot reserve " + std::to_string(size) + " bytes at " + std::to_string(va));
  const uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE |
                         (vram ? KFD_IOC_ALLOC_MEM_FLAGS_VRAM
                               : KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED);
  const uint64_t at = reinterpret_cast<uint64_t>(p);
  kfd::Allocation a = must(d.kfd.alloc_memory(d.gpu_id, at, size, flags), "ALLOC_MEMORY_OF_GPU");
  if (cpu) must(d.render.mmap(p, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, a.mmap_offset), "mmap");
  const uint32_t ids[] = {d.gpu_id};
  must(d.kfd.map_memory(a.handle, ids), "MAP_MEMORY_TO_GPU");
  return static_cast<uint8_t*>(p);
}

Device& device() {
  static Device* dev = [] {
    setenv("KFDEMU_WORKERS", "1", 0);  // one shader worker: fewer threads, more repeatable runs
    auto* d = new Device;
    d->kfd = must(kfd::Kfd::open(), "open /dev/kfd (run on the emulator: LD_PRELOAD=libkfdemu.so)");
    d->topo = must(kfd::read_topology(), "topology");
    if (d->topo.gpus().empty()) die("no GPU in the topology");
    const kfd::Node* n = d->topo.gpus()[0];
    d->gpu_id = n->gpu_id;
    d->sizes = pm4::queue_buffer_sizes(n->props);
    d->render = must(kfd::RenderNode::open(n->props.drm_render_minor), "render node");
    must(d->kfd.acquire_vm(d->gpu_id, d->render.fd()), "ACQUIRE_VM");
    d->data = buffer(*d, kDataVa, kDataBytes, false, true);
    d->ring = buffer(*d, kRingVa, kRingBytes, false, true);
    d->ptrs = buffer(*d, kPtrsVa, kPage, false, true);
    d->eop_va = reinterpret_cast<uint64_t>(buffer(*d, 0, d->sizes.eop_size, true, false));
    d->cwsr_va = reinterpret_cast<uint64_t>(buffer(*d, 0, d->sizes.cwsr_total, true, false));
    d->events[0] = must(d->kfd.create_event(KFD_IOC_EVENT_MEMORY, true), "CREATE_EVENT").event_id;
    d->events[1] = must(d->kfd.create_event(KFD_IOC_EVENT_HW_EXCEPTION, true), "CREATE_EVENT").event_id;
    return d;
  }();
  return *dev;
}

// Whether a fault or hardware exception event fired (consuming it).
bool stop_event(Device& d) {
  kfd::EventData ev[2] = {};
  ev[0].event_id = d.events[0];
  ev[1].event_id = d.events[1];
  auto r = d.kfd.wait_events(ev, false, 0);
  return r.ok() && *r == kfd::WaitResult::Complete;
}

}  // namespace

void run_queue_input(uint32_t type, const uint8_t* data, size_t size) {
  Device& d = device();
  const bool aql = type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
  const bool sdma = type == KFD_IOC_QUEUE_TYPE_SDMA || type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI;
  size_t n = size >= 2 ? size_t(data[0] | data[1] << 8) : 0;
  const uint8_t* body = data + std::min<size_t>(size, 2);
  const size_t body_size = size - std::min<size_t>(size, 2);
  n = std::min<size_t>({n, body_size, kRingBytes});
  n -= n % (aql ? pm4::aql::kPacketSize : 4);
  std::memset(d.data, 0, kDataBytes);
  std::memcpy(d.data, body + n, std::min<size_t>(body_size - n, kDataBytes));
  std::memset(d.ring, 0, kRingBytes);
  std::memset(d.ptrs, 0, kPage);
  if (aql)  // unused slots hold INVALID packets, as a runtime initialises its ring
    for (uint32_t i = 0; i < kRingBytes / pm4::aql::kPacketSize; ++i)
      reinterpret_cast<uint16_t*>(d.ring)[i * 32] = pm4::aql::kTypeInvalid;
  std::memcpy(d.ring, body, n);

  kfd::QueueArgs a;
  a.gpu_id = d.gpu_id;
  a.queue_type = type;
  a.ring_base_address = kRingVa;
  a.ring_size = kRingBytes;
  uint64_t* rptr;
  uint64_t* wptr;
  uint64_t end;
  if (aql) {
    auto* q = reinterpret_cast<pm4::aql::AmdQueue*>(d.ptrs);
    q->hsa_queue.base_address = kRingVa;
    q->hsa_queue.size = kRingBytes / pm4::aql::kPacketSize;
    rptr = &q->read_dispatch_id;
    wptr = &q->write_dispatch_id;
    end = n / pm4::aql::kPacketSize;
  } else {
    rptr = reinterpret_cast<uint64_t*>(d.ptrs);
    wptr = reinterpret_cast<uint64_t*>(d.ptrs + 8);
    end = sdma ? n : n / 4;
  }
  a.read_pointer_address = reinterpret_cast<uint64_t>(rptr);
  a.write_pointer_address = reinterpret_cast<uint64_t>(wptr);
  if (!sdma) {
    a.eop_buffer_address = d.eop_va;
    a.eop_buffer_size = d.sizes.eop_size;
    a.ctx_save_restore_address = d.cwsr_va;
    a.ctx_save_restore_size = d.sizes.ctx_save_restore_size;
    a.ctl_stack_size = d.sizes.ctl_stack_size;
  }
  kfd::QueueInfo info = must(d.kfd.create_queue(a), "CREATE_QUEUE");
  const uint64_t slice = info.doorbell_offset & ~(kfd::uapi::kDoorbellSliceSize - 1);
  void* bells = must(d.kfd.mmap(nullptr, kfd::uapi::kDoorbellSliceSize, PROT_READ | PROT_WRITE, MAP_SHARED, slice),
                     "mmap doorbell");
  auto* bell = reinterpret_cast<uint64_t*>(static_cast<uint8_t*>(bells) +
                                           (info.doorbell_offset & (kfd::uapi::kDoorbellSliceSize - 1)));
  __atomic_store_n(wptr, end, __ATOMIC_RELEASE);
  // AQL doorbells carry the last packet's index; PM4 and SDMA ones the write pointer.
  __atomic_store_n(bell, aql ? end - 1 : end, __ATOMIC_RELEASE);

  // PM4 read pointers are 32-bit dword offsets wrapping at the ring's end.
  const uint64_t done_at = type == KFD_IOC_QUEUE_TYPE_COMPUTE ? end % (kRingBytes / 4) : end;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  const char* how = "nothing submitted";
  while (end != 0) {
    uint64_t r = __atomic_load_n(rptr, __ATOMIC_ACQUIRE);
    if (type == KFD_IOC_QUEUE_TYPE_COMPUTE) r &= 0xffffffffu;
    if (r == done_at) { how = "consumed"; break; }
    if (stop_event(d)) { how = "stopped (fault or hardware exception)"; break; }
    if (std::chrono::steady_clock::now() >= deadline) { how = "still busy after 20 ms"; break; }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  static const bool verbose = std::getenv("FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "fuzz harness: %zu ring bytes: %s\n", n, how);
  must(d.kfd.destroy_queue(info.queue_id), "DESTROY_QUEUE");
  ::munmap(bells, kfd::uapi::kDoorbellSliceSize);
  (void)stop_event(d);  // a late fault of this input must not end the next one's wait
}

}  // namespace fuzz
