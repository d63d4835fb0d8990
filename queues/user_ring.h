// SPDX-License-Identifier: MIT
// The ring of a PM4 or SDMA user-mode queue: kernel-validated buffers, the KFD queue, room, publish.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "base/result.h"
#include "pm4/queue_sizes.h"
#include "queues/queue_memory.h"
#include "queues/spin.h"

namespace mem {
struct Gpu;
}

namespace queues {

class Runtime;

// How an engine counts its ring (kfdtest PM4Queue.cpp / SDMAQueue.cpp, ROCr amd_blit_sdma.cpp):
// the CP (PM4, gfx9+) takes a 64-bit monotonic write pointer in dwords and reports a 32-bit read
// pointer in dwords that wraps at the ring size; an SDMA engine takes a 64-bit write pointer in
// bytes and reports a 64-bit read pointer in bytes. Doorbells carry the write pointer value.
enum class RingKind : uint8_t { Pm4, Sdma };

struct RingSetup {
  RingKind kind = RingKind::Pm4;
  uint32_t queue_type = 0;  // KFD_IOC_QUEUE_TYPE_COMPUTE / _SDMA / _SDMA_XGMI
  uint32_t ring_bytes = 0;  // a power of two, checked by the caller
  uint32_t priority = 7;
  uint32_t percentage = 100;
  bool compute_buffers = false;  // EOP and CWSR (compute queues)
};

// One PM4 or SDMA queue's ring. Producers hold mutex() around reserve/advance/publish: packets are
// published in ring order through one write pointer (unlike AQL, nothing in a PM4 or SDMA packet
// says "valid"), so a second producer waits for the first. Everything is in dwords.
//
// A packet never crosses the end of the ring: when it would, the tail is filled with NOPs and
// published on its own, and the packet starts at the ring's beginning (kfdtest BaseQueue.cpp
// PlacePacket; ROCr BlitSdma::PadRingToEnd). Packets can then be built in place, and the
// emulator and the hardware read each packet from contiguous memory.
//
// At most ring_dwords - 1 dwords are ever in flight: with a wrapping read pointer a full ring
// would read as empty (kfdtest's "dwordsAvailable", ROCr's "full when all but one byte is
// written").
class UserRing {
 public:
  explicit UserRing(Runtime& rt) : rt_(rt) {}
  ~UserRing() { (void)destroy(); }
  UserRing(const UserRing&) = delete;
  UserRing& operator=(const UserRing&) = delete;

  // Allocates the ring, the read- and write-pointer pages (each alone in a one-page buffer, as
  // Linux 6.12's kfd_queue_buffer_get validates) and, for compute queues, EOP and CWSR; then
  // CREATE_QUEUE and the doorbell mapping. `name` prefixes errors ("PM4 queue").
  base::Status create(const mem::Gpu& gpu, const RingSetup& s, const char* name);
  // DESTROY_QUEUE, then frees the buffers (the kernel holds them while the queue lives). Pending
  // work is dropped. Idempotent.
  base::Status destroy();

  bool alive() const { return created_; }
  base::Status check_alive(const char* op) const;
  uint32_t queue_id() const { return queue_id_; }
  uint32_t gpu_id() const { return gpu_id_; }
  uint32_t ring_dwords() const { return dwords_; }
  uint32_t* ring() const { return ring_; }
  const pm4::QueueBufferSizes& buffer_sizes() const { return sizes_; }
  const char* name() const { return name_; }
  std::mutex& mutex() { return mu_; }

  // --- producer side: the caller holds mutex() ---
  // Room for `dwords` contiguous dwords at the write position, waiting (back-pressure) until the
  // engine has read far enough; pads and publishes the ring's tail first when needed. EINVAL for
  // a packet larger than the ring allows, ETIMEDOUT at the deadline, the device's error when the
  // engine faulted.
  base::Result<uint32_t*> reserve(uint32_t dwords, spin::Clock::time_point deadline);
  // Marks `dwords` written at the write position (not yet visible to the engine).
  void advance(uint32_t dwords) { pending_ += dwords; }
  // Makes everything advanced so far visible: write pointer, store fence, doorbell.
  void publish();
  // Fills `dwords` with this engine's NOPs.
  void write_nops(uint32_t* out, uint32_t dwords) const;

  // Monotonic positions in dwords: written (advanced), published, read by the engine.
  uint64_t pending_index() const { return pending_; }
  uint64_t published_index() const { return __atomic_load_n(&published_, __ATOMIC_ACQUIRE); }
  uint64_t read_index() const;

  // Waits until the engine has read every published dword (kfdtest's Wait4PacketConsumption):
  // read, not necessarily finished executing. Does not take the mutex.
  base::Status wait_consumed(std::chrono::nanoseconds timeout);
  // The device's state as every wait sees it (a GPU fault raised as a KFD MEMORY event names
  // the address; these queues have no queue error signal).
  base::Status check_device();
  // The faults the runtime already knows (sticky; no system call).
  base::Status known_faults();

 private:
  base::Status allocate(const mem::Gpu& gpu, const RingSetup& s);
  base::Status wait_room(uint64_t end, spin::Clock::time_point deadline);
  void free_buffers();

  Runtime& rt_;
  RingKind kind_ = RingKind::Pm4;
  const char* name_ = "queue";
  uint32_t gpu_id_ = 0;
  uint32_t queue_id_ = 0;
  uint32_t dwords_ = 0;
  bool created_ = false;
  pm4::QueueBufferSizes sizes_;
  uint32_t* ring_ = nullptr;
  uint64_t* rptr_ = nullptr;  // page written by the engine
  uint64_t* wptr_ = nullptr;  // page read by the engine
  ComputeBuffers compute_;
  volatile uint64_t* doorbell_ = nullptr;
  std::mutex mu_;
  uint64_t pending_ = 0;
  uint64_t published_ = 0;
  // A read index seen before (never ahead of the engine's): the engine writes its read pointer's
  // cache line, so checking room against this copy first saves a cache-line transfer per packet.
  uint64_t cached_read_ = 0;
};

}  // namespace queues
