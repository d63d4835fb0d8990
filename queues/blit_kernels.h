// SPDX-License-Identifier: MIT
// kfdrt's blit kernels: the embedded code objects, loading them for a GPU, and planning their dispatches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "memory/context.h"
#include "queues/blit/blit_args.h"

namespace loader {
class CodeObject;
class LoadedCodeObject;
}  // namespace loader

namespace queues::blit {

// A code object of queues/blit/blit_kernels.hip built for one processor at build time (clang 15,
// or clang 19 for processors clang 15 does not know) and compiled into libkfdrt.
struct EmbeddedImage {
  const char* processor;  // "gfx90a"
  const unsigned char* data;
  size_t size;
};
std::span<const EmbeddedImage> embedded_images();
const EmbeddedImage* image_for(std::string_view processor);
// "gfx90a" for gfx_target_version 90010 (major, minor and stepping; minor and stepping in hex).
std::string processor_name(uint32_t gfx_target_version);

// GwsInit is not a copy: cooperative launches (HIP) dispatch it, with one work-item, before a
// grid that uses a grid barrier.
enum class Kind : uint8_t { Copy, Fill, Rect, GwsInit };
constexpr unsigned kKinds = 4;
const char* kernel_name(Kind k);  // "kfdrt_blit_copy", ...

// What a dispatch needs of a loaded blit kernel.
struct KernelRef {
  uint64_t object = 0;  // kernel descriptor (the AQL packet's kernel_object)
  uint32_t group_segment = 0, private_segment = 0, kernarg_size = 0;
};

// One blit dispatch: a kernel, its grid (work-items) and its kernel arguments.
struct Launch {
  Kind kind = Kind::Copy;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t args_size = 0;
  alignas(8) uint8_t args[sizeof(RectArgs)] = {};

  template <class T>
  void set_args(const T& a) {
    static_assert(sizeof(T) <= sizeof args);
    std::memcpy(args, &a, sizeof a);
    args_size = sizeof a;
  }
};

// Work-items a dispatch over `units` 16-byte units gets: one per unit up to `max_threads`
// (rounded up to whole workgroups), so large ranges loop.
uint32_t threads_for(uint64_t units, uint32_t max_threads);

// dst <- src for non-overlapping ranges (the caller splits overlapping ones).
Launch plan_copy(uint64_t dst, uint64_t src, uint64_t bytes, uint32_t max_threads);
// The dword every 4-byte aligned address of a fill starting at `dst` gets, for a `width`-byte
// (1, 2 or 4) value: the value repeated, rotated by dst's offset within the pattern.
uint32_t fill_word(uint64_t dst, uint32_t value, unsigned width);
Launch plan_fill(uint64_t dst, uint32_t word, uint64_t bytes, uint32_t max_threads);
// Rows of `width` bytes, `height` per slice, `depth` slices.
struct Rect {
  uint64_t dst = 0, src = 0;
  uint64_t dst_pitch = 0, src_pitch = 0;  // bytes between rows
  uint64_t dst_slice = 0, src_slice = 0;  // bytes between slices
  uint64_t width = 0;                     // bytes per row
  uint32_t height = 1, depth = 1;
};
Launch plan_rect(const Rect& r, uint32_t max_threads);

// The blit kernels loaded for one GPU into executable system memory (GTT) mapped to it: small,
// read by the instruction cache, and loadable with no copy engine (the engine needs them).
class Kernels {
 public:
  // NotSupported (ENOTSUP) when kfdrt was built with no image for the GPU's processor.
  static base::Result<std::unique_ptr<Kernels>> load(mem::Context& ctx, const gpu::Device& gpu);
  ~Kernels();
  const KernelRef& get(Kind k) const { return refs_[unsigned(k)]; }
  const std::string& processor() const { return processor_; }

 private:
  Kernels() = default;
  struct Segments;
  std::unique_ptr<Segments> segments_;
  std::unique_ptr<loader::CodeObject> co_;
  std::unique_ptr<loader::LoadedCodeObject> code_;
  KernelRef refs_[kKinds];
  std::string processor_;
};

}  // namespace queues::blit
