// SPDX-License-Identifier: MIT
// Shared device state for the kfd device tests: one /dev/kfd, topology, render nodes, and buffers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kfd/kfd.h"
#include "pm4/queue_sizes.h"
#include "kfd/render_node.h"
#include "kfd/topology.h"

namespace kfdtest {

struct Gpu {
  const kfd::Node* node = nullptr;
  uint32_t gpu_id = 0;
  kfd::RenderNode render;
  pm4::QueueBufferSizes sizes;
};

// What a runtime sets up once per process: /dev/kfd, the topology, each GPU's render node and
// ACQUIRE_VM. A KFD process is per address space and a GPU's VM can be bound to only one DRM
// file, so all tests of a binary share this.
struct Device {
  kfd::Kfd kfd;
  kfd::Topology topo;
  std::vector<Gpu> gpus;
};

// Opens the device on first use; returns nullptr (and the reason in *why) when there is none.
Device* device(std::string* why);

// A test fixture whose tests need the device: fails (does not skip) when there is none.
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override;
  Device& dev() { return *dev_; }
  Gpu& gpu0() { return dev_->gpus[0]; }
  const kfd::Kfd& kfd() { return dev_->kfd; }
  Device* dev_ = nullptr;
};

// A same-address allocation (CPU pointer == GPU VA): VA reserved with mmap(PROT_NONE), allocated
// with ALLOC_MEMORY_OF_GPU at that address, CPU-mapped on the render node when `cpu` is set,
// mapped to the GPU. Freed in reverse order by the destructor.
class Buffer {
 public:
  enum class Kind { Vram, Gtt, Userptr };
  static base::Result<Buffer> make(Device& d, Gpu& g, Kind kind, size_t size, uint32_t extra_flags = 0,
                                  bool cpu = true);
  Buffer() = default;
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer() { release(); }

  void* ptr() const { return reinterpret_cast<void*>(va_); }
  uint64_t va() const { return va_; }
  size_t size() const { return size_; }
  uint64_t handle() const { return handle_; }

 private:
  void release();
  Device* dev_ = nullptr;
  uint32_t gpu_id_ = 0;
  uint64_t va_ = 0;
  size_t size_ = 0;
  uint64_t handle_ = 0;
  bool mapped_ = false;
  bool own_va_ = false;
};

// Checks an error: its errno, and a message "<ioctl>: <errno text> (<argument values>)".
::testing::AssertionResult failed_with(const base::Error& e, int err, const char* ioctl);

template <class R>
::testing::AssertionResult fails_with(const R& r, int err, const char* ioctl) {
  if (r.ok()) return ::testing::AssertionFailure() << ioctl << " unexpectedly succeeded";
  return failed_with(r.error(), err, ioctl);
}

constexpr uint32_t kBadGpuId = 0xdead;
constexpr size_t kPage = 4096;

}  // namespace kfdtest
