// SPDX-License-Identifier: MIT
// Test harness for the shader core: host-buffer Memory, a minimal code object loader and a
// dispatch helper that builds the AQL packet and kernarg buffer by hand.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "emu/shader/cache.h"
#include "emu/shader/shader.h"

namespace emu_test {

// GPU VA == host address: only registered buffers are "mapped". The GPU's caches follow the
// emulator's memory model as KFDEMU_MEMORY_MODEL says (strict by default, `sc`: none); buffers
// are local coarse-grained VRAM (MTYPE RW) unless allocated with another MTYPE.
class HostMemory : public emu::shader::Memory {
 public:
  HostMemory();
  // `strict`: a GpuCache with `config` (else none, the `sc` model).
  HostMemory(bool strict, emu::shader::CacheConfig config);
  ~HostMemory() override;
  uint8_t* translate(uint64_t va, uint64_t size, bool write) override;
  emu::shader::Range lookup(uint64_t va) override;
  emu::shader::GpuCache* cache() override { return cache_.get(); }
  // Allocates a zeroed, 256-byte aligned buffer mapped to the GPU.
  uint8_t* alloc(size_t size, bool writable = true, emu::shader::Mtype mtype = emu::shader::Mtype::RW);
  template <class T> T* alloc_array(size_t n, emu::shader::Mtype m = emu::shader::Mtype::RW) {
    return reinterpret_cast<T*>(alloc(n * sizeof(T), true, m));
  }
  void unmap(const void* p);

 private:
  struct Buf {
    std::unique_ptr<uint8_t[]> storage;
    uint8_t* base;
    size_t size;
    bool writable;
    emu::shader::CachedRange* cached;
  };
  std::unique_ptr<emu::shader::GpuCache> cache_;
  std::mutex mu_;
  std::map<uint64_t, Buf> bufs_;
};

// The memory model the environment asks for (KFDEMU_MEMORY_MODEL strict|sc, KFDEMU_TRACE_FENCES,
// KFDEMU_REPORT_STALE, KFDEMU_L2_LINES, KFDEMU_L1_LINES), as the emulator reads it.
bool env_strict();
emu::shader::CacheConfig env_cache_config();

class RecordingHooks : public emu::shader::Hooks {
 public:
  void interrupt(uint32_t m0) override { std::lock_guard l(mu); interrupts.push_back(m0); }
  std::mutex mu;
  std::vector<uint32_t> interrupts;
};

// A code object loaded into HostMemory: PT_LOAD segments, RELATIVE64 relocations, symbols.
class CodeObject {
 public:
  // Empty error string on success.
  std::string load(const std::string& path, HostMemory& mem);
  // Address of `<kernel>.kd`, or 0.
  uint64_t kernel(const std::string& name) const;
  std::vector<std::string> kernel_names() const;
  uint64_t base() const { return base_; }
  uint64_t text_begin = 0, text_end = 0;  // .text section VA range

 private:
  uint64_t base_ = 0;
  std::map<std::string, uint64_t> symbols_;
};

struct Launch {
  uint32_t grid[3] = {1, 1, 1};   // in work-items
  uint16_t block[3] = {1, 1, 1};
  uint32_t dynamic_lds = 0;
  uint32_t private_size = 0;      // the packet's private_segment_size
  // The queue's scratch, encoded into amd_queue_t as kfdrt's queues do it: bytes per work-item
  // (-1: what the kernel needs, as kfdrt's HIP layer sizes it; 0: no scratch), slots (WAVES;
  // 0: 16 per worker of the core), and optionally the caller's backing store (at least
  // scratch_bytes() long; else the harness allocates one for the dispatch).
  int64_t scratch_lane_bytes = -1;
  uint32_t scratch_waves = 0;
  uint8_t* scratch_backing = nullptr;
  // The packet's fences as the CP applies them under the memory model: system-scope acquire
  // (the L2's NC lines invalidated) before, system-scope release (the L2 written back) after.
  bool acquire_system = true;
  bool release_system = true;
  // The queue's enabled CUs and its preemption flag (shader::Dispatch::cus / preempt).
  const std::vector<uint32_t>* cus = nullptr;
  const std::atomic<bool>* preempt = nullptr;
};

// Per-work-item scratch kfdrt's HIP layer gives the kernel with descriptor `kd` (64 bytes)
// launched with packet private size `private_size`: the larger of that and the descriptor's
// private_segment_fixed_size plus 1 KiB when it uses a dynamic stack.
uint32_t kernel_scratch_lane_bytes(const uint8_t* kd, uint32_t private_size);
// Per-work-item bytes rounded as the queue's WAVESIZE (1 KiB per wave) holds them, and the
// backing store `waves` slots of that need.
uint32_t scratch_lane_rounded(uint32_t lane_bytes);
uint64_t scratch_bytes(uint32_t lane_bytes, uint32_t waves);

// Builds the packet, kernarg buffer and amd_queue_t (with scratch) and runs the dispatch.
emu::shader::Outcome dispatch(emu::shader::ShaderCore& core, HostMemory& mem, uint64_t kd,
                              const Launch& l, const void* args, size_t args_size,
                              emu::shader::Hooks* hooks = nullptr);

// Kernel arguments packed with natural alignment.
class Args {
 public:
  template <class T> Args& add(T v) {
    size_t a = alignof(T);
    bytes_.resize((bytes_.size() + a - 1) / a * a);
    size_t o = bytes_.size();
    bytes_.resize(o + sizeof(T));
    std::memcpy(bytes_.data() + o, &v, sizeof(T));
    return *this;
  }
  const void* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

std::string kernel_path(const std::string& file);  // built code objects directory + file

}  // namespace emu_test
