// SPDX-License-Identifier: MIT
// Code object segments in host-visible, executable VRAM of a kfdrt memory context (for tests that load kernels through kfdrt).
#pragma once

#include <algorithm>
#include <cstring>

#include "loader/load.h"
#include "memory/context.h"

namespace emutest {

class GpuSegments : public loader::SegmentMemory {
 public:
  explicit GpuSegments(mem::Context& ctx) : ctx_(ctx) {}
  base::Result<loader::Span> allocate(size_t size, size_t align, bool executable) override {
    mem::AllocRequest r;
    r.heap = mem::Heap::Vram;
    r.size = size;
    r.alignment = std::max<size_t>(align, 256);
    r.executable = executable;
    r.host_access = true;  // the loader writes the segments through the CPU
    auto a = ctx_.allocate(r);
    if (!a) {  // no host-visible VRAM (a small-BAR GPU): system memory the GPU maps
      r.heap = mem::Heap::Gtt;
      r.alignment = std::max<size_t>(r.alignment, 4096);
      a = ctx_.allocate(r);
    }
    KFD_ASSIGN(void* p, std::move(a));
    std::memset(p, 0, size);
    return loader::Span{static_cast<uint8_t*>(p), size};
  }
  void free(loader::Span s) override { (void)ctx_.free(s.host); }

 private:
  mem::Context& ctx_;
};

}  // namespace emutest
