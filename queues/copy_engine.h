// SPDX-License-Identifier: MIT
// The copy engine of a GPU: copies and fills on SDMA queues or on kfdrt's blit kernels, ordered by signals.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

#include "base/result.h"
#include "memory/context.h"
#include "queues/blit_kernels.h"
#include "queues/pm4_commands.h"
#include "queues/signal.h"

namespace queues {

class Runtime;
class SdmaCopier;
class BlitCopier;
struct Staging;
struct CopyPiece;

// A condition on a signal that must hold before an operation starts: the device evaluates it
// (POLL_REGMEM on SDMA, a BARRIER_VALUE packet before a blit), no host thread. On SDMA only Eq,
// and Lt with 0 < operand <= 2^32, can be evaluated exactly on a 64-bit value (write_pm4_wait_signal);
// other conditions send the operation to the blit kernels.
struct CopyWait {
  uint64_t signal = 0;  // amd_signal_t address (Signal::handle())
  Cond cond = Cond::Eq;
  int64_t operand = 0;
};

// How an operation is ordered: the waits it starts after, and the signal its completion
// decrements by one (the AQL convention: the CP decrements a dispatch's completion signal, an
// SDMA queue ATOMIC-adds -1), waking host waiters of an interrupt signal. An operation's writes
// are visible to the host and to later device work once the signal moved (system scope).
struct CopyOrder {
  std::span<const CopyWait> waits;
  SignalTarget done;  // value_address 0: no signal
};

enum class CopyPath : uint8_t { Auto, Sdma, Blit };
const char* copy_path_name(CopyPath p);

// Where operations go. Defaults follow what runs fastest on hardware (measured on the emulator
// too, see BENCHMARKS.md): host <-> device copies on SDMA at every size from `sdma_min_bytes`
// (0 by default: ROCm's HIP also sends host copies of every size to SDMA unless
// GPU_FORCE_BLIT_COPY_SIZE, default 0 KiB, says otherwise; ROCm's HIP environment-variable
// documentation); copies within one GPU's memory and fills of device memory on blit kernels (a
// kernel reaches the memory's bandwidth, an SDMA engine a fraction of it: ROCr always blits
// device-to-device); peer copies on SDMA. `force` overrides: KFDRT_SDMA=0 never uses SDMA,
// KFDRT_SDMA=1 uses it for everything it can do, KFDRT_BLIT=0 never uses blit kernels;
// KFDRT_FORCE_BLIT_COPY_SIZE=<KiB> sends host copies below that size to the blit kernels.
struct CopyPolicy {
  CopyPath force = CopyPath::Auto;
  bool allow_sdma = true;
  bool allow_blit = true;
  uint64_t sdma_min_bytes = 0;
  bool device_copies_blit = true;   // same-GPU device-to-device copies and device fills
  // Pageable (unregistered) host memory: staged through `staging_buffers` pinned buffers of
  // `staging_chunk` bytes per direction (`staging_drain_chunk` from the device), the CPU filling
  // one while the engine moves another (a copy the buffers hold goes in as many pieces as there
  // are buffers, so the two overlap); from `userptr_min_bytes` up the host range is registered
  // (USERPTR) and copied in place instead. 0 disables registration, the default: registering
  // checks (and pins) every page, which costs more than the CPU's copy into a staging buffer,
  // and the staged pipeline runs both copies at once (ROCclr pins from 1 MiB up,
  // GPU_PINNED_MIN_XFER_SIZE, where a PCIe copy is slower than the CPU's).
  // The staging set is small, 4 x 128 KiB each way, half of a core's L2 on current x86 hosts:
  // the CPU's writes to a buffer are still in its caches when the engine reads them (and the
  // engine's writes when the CPU drains them: Intel DDIO places a device's writes to system
  // memory in the LLC, "Intel Data Direct I/O Technology (Intel DDIO): A Primer", 2012), so the
  // staged bytes cross no DRAM and a staged copy moves what a memcpy moves. Sets that outgrow
  // the caches (8 x 2 MiB) made a 16 MiB pageable copy half as fast (BENCHMARKS.md).
  // KFDRT_STAGING_BUFFERS, KFDRT_STAGING_CHUNK_KIB, KFDRT_STAGING_DRAIN_KIB and
  // KFDRT_USERPTR_MIN_KIB override them.
  uint64_t staging_chunk = 128u << 10;
  uint64_t staging_drain_chunk = 128u << 10;
  uint32_t staging_buffers = 4;
  uint64_t userptr_min_bytes = 0;
  uint32_t sdma_ring_bytes = 1u << 20;
  uint32_t blit_packets = 1024;

  // The defaults with KFDRT_SDMA / KFDRT_BLIT applied.
  static CopyPolicy from_env();
};

// One rectangle (2-D or 3-D copy): `height` rows of `width` bytes per slice, `depth` slices.
using CopyRect = blit::Rect;

// What an engine has done, per path (tests and tools check routing with it).
struct CopyStats {
  uint64_t sdma_ops = 0, blit_ops = 0, staged_chunks = 0, userptr_copies = 0;
};

// The copy engine of one GPU: created on first use (queues::Runtime::copy_engine), shared by
// every user. Its SDMA queues (one toward the device, one from it, so both directions overlap)
// and its blit queue (an AQL queue of barrier-bit packets) are created on first use. Thread-safe.
//
// Addresses are GPU virtual addresses this GPU maps: its VRAM, a peer's VRAM mapped to it, or
// host memory allocated or registered through the memory context. An address no allocation
// holds is refused with EFAULT naming it (pageable host memory goes through the *_pageable
// calls). A copy whose ranges overlap is a memmove. Two operations are ordered only by their
// CopyOrders: without a wait between them they may run in either order, or at once (the
// parts of one operation run in order).
class CopyEngine {
 public:
  static base::Result<std::unique_ptr<CopyEngine>> create(Runtime& rt, const gpu::Device& gpu,
                                                          const CopyPolicy& p = CopyPolicy::from_env());
  ~CopyEngine();
  CopyEngine(const CopyEngine&) = delete;
  CopyEngine& operator=(const CopyEngine&) = delete;

  const gpu::Device& gpu() const { return gpu_; }
  const CopyPolicy& policy() const { return policy_; }
  bool has_sdma() const { return sdma_engines_ > 0 && policy_.allow_sdma; }
  bool has_blit() const { return blit_image_ && policy_.allow_blit; }

  // dst <- src, `bytes` bytes, any alignment; overlapping ranges are moved as memmove does.
  base::Status copy(uint64_t dst, uint64_t src, uint64_t bytes, const CopyOrder& o = {});
  // `count` elements of `width` bytes (1, 2 or 4) at dst set to `value`'s low `width` bytes.
  base::Status fill(uint64_t dst, uint32_t value, unsigned width, uint64_t count, const CopyOrder& o = {});
  // A 2-D or 3-D rectangle; the source and destination rectangles must not overlap.
  base::Status copy_rect(const CopyRect& r, const CopyOrder& o = {});

  // Pageable host memory. To the device: returns once `src` may be reused (its bytes are in
  // staging buffers, or copied when registered in place); the device part completes `o.done`.
  // From the device: returns once `dst` holds the bytes (a synchronous copy).
  base::Status copy_from_pageable(uint64_t dst, const void* src, uint64_t bytes, const CopyOrder& o = {});
  base::Status copy_to_pageable(void* dst, uint64_t src, uint64_t bytes, const CopyOrder& o = {});

  // Waits until every operation submitted so far completed; the device's error when it faulted.
  base::Status wait_idle(std::chrono::nanoseconds timeout = kForever);

  // The path an operation with these endpoints and size takes (Auto resolved), or the error
  // the operation would fail with (unknown or unmapped endpoint, no usable path).
  base::Result<CopyPath> route_copy(uint64_t dst, uint64_t src, uint64_t bytes) const;
  CopyStats stats() const;

 private:
  CopyEngine(Runtime& rt, const gpu::Device& gpu, const CopyPolicy& p);
  friend struct Staging;
  enum class Where : uint8_t { Device, Peer, Host };
  base::Result<Where> where(uint64_t va, uint64_t bytes, const char* what) const;
  base::Result<CopyPath> choose(Where d, Where s, uint64_t bytes, bool fill, std::span<const CopyWait> w) const;
  base::Result<SdmaCopier*> sdma(bool to_device);
  base::Result<BlitCopier*> blit();
  // Runs the pieces of one operation on a path (SDMA: the queue toward the device, or the one
  // from it for device-to-host work).
  base::Status submit(CopyPath p, bool to_device, std::span<const CopyPiece> pieces, const CopyOrder& o);
  base::Result<uint64_t> temp(CopyPath p, bool to_device);
  // An operation that moves nothing but still waits and completes its signal.
  base::Status nothing(const CopyOrder& o);
  Staging& staging(bool to_device);
  base::Status copy_in_place(CopyPath p, bool to_device, uint64_t dst, uint64_t src, uint64_t bytes, void* reg,
                             const CopyOrder& o);

  Runtime& rt_;
  const gpu::Device& gpu_;
  CopyPolicy policy_;
  uint32_t sdma_engines_ = 0;
  const blit::EmbeddedImage* blit_image_ = nullptr;
  uint32_t max_threads_ = 0;

  std::mutex mu_;  // creation of the parts below
  std::atomic<SdmaCopier*> sdma_ptr_[2] = {nullptr, nullptr};
  std::atomic<BlitCopier*> blit_ptr_{nullptr};
  std::unique_ptr<SdmaCopier> sdma_[2];
  std::unique_ptr<BlitCopier> blit_;
  std::unique_ptr<Staging> staging_[2];  // [0] toward the device, [1] from it

  std::atomic<uint64_t> staged_chunks_{0}, userptr_copies_{0};
};

}  // namespace queues
