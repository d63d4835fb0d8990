// SPDX-License-Identifier: MIT
// Loading a code object into GPU memory: segments copied, relocations applied, symbols resolved.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "loader/code_object.h"
#include "loader/segment_memory.h"

namespace loader {

// AMDGPU relocation types; AMDGPUUsage "Relocation Records".
inline constexpr uint32_t kRAmdgpuNone = 0, kRAmdgpuAbs64 = 3, kRAmdgpuRelative64 = 13;

// A code object placed in GPU memory. Owns the allocation (freed through the SegmentMemory, which
// must outlive it); move-only. Keeps its own symbol table, so the CodeObject and its bytes may go.
class LoadedCodeObject {
 public:
  // Allocates the PT_LOAD span (executable), copies file bytes, zero-fills the rest and applies
  // the .rela.dyn relocations. Unknown relocation types are rejected by name and offset.
  static base::Result<LoadedCodeObject> load(const CodeObject& co, SegmentMemory& memory);

  LoadedCodeObject(LoadedCodeObject&& o) noexcept;
  LoadedCodeObject& operator=(LoadedCodeObject&& o) noexcept;
  LoadedCodeObject(const LoadedCodeObject&) = delete;
  LoadedCodeObject& operator=(const LoadedCodeObject&) = delete;
  ~LoadedCodeObject();

  Span memory() const { return span_; }
  // GPU address of ELF virtual address 0 (the load bias).
  uint64_t base() const { return span_.gpu_address() - vaddr_min_; }
  uint64_t address_of(uint64_t vaddr) const { return base() + vaddr; }

  // GPU address of a kernel's descriptor (the AQL packet's kernel_object), by name or symbol.
  base::Result<uint64_t> kernel_object(std::string_view name) const;
  // GPU address and size of a global variable.
  struct Global {
    uint64_t address = 0, size = 0;
  };
  base::Result<Global> global(std::string_view name) const;

 private:
  struct Entry {
    std::string name, symbol;
    uint64_t vaddr = 0, size = 0;
  };
  LoadedCodeObject(SegmentMemory* mem, Span span, uint64_t vaddr_min) : mem_(mem), span_(span), vaddr_min_(vaddr_min) {}
  base::Status copy_segments(const CodeObject& co);
  base::Status relocate(const CodeObject& co);

  SegmentMemory* mem_ = nullptr;
  Span span_;
  uint64_t vaddr_min_ = 0, vaddr_span_ = 0;
  std::vector<Entry> kernels_, globals_;
};

}  // namespace loader
