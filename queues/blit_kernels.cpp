// SPDX-License-Identifier: MIT
// Blit kernels: picking the embedded code object, loading it into GTT, and dispatch plans.
#include "queues/blit_kernels.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>

#include "loader/code_object.h"
#include "loader/load.h"
#include "loader/segment_memory.h"

namespace queues::blit {

const EmbeddedImage* image_for(std::string_view processor) {
  for (const EmbeddedImage& i : embedded_images())
    if (processor == i.processor) return &i;
  return nullptr;
}

std::string processor_name(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "gfx%u%x%x", v / 10000, (v / 100) % 100, v % 100);
  return b;
}

const char* kernel_name(Kind k) {
  switch (k) {
    case Kind::Copy: return "kfdrt_blit_copy";
    case Kind::Fill: return "kfdrt_blit_fill";
    case Kind::Rect: return "kfdrt_blit_copy_rect";
    case Kind::GwsInit: return "kfdrt_gws_init";
  }
  return "?";
}

uint32_t threads_for(uint64_t units, uint32_t max_threads) {
  const uint64_t cap = std::max<uint64_t>(kWorkgroup, max_threads / kWorkgroup * kWorkgroup);
  const uint64_t want = std::max<uint64_t>(units, 1);
  return uint32_t(std::min(cap, (want + kWorkgroup - 1) / kWorkgroup * kWorkgroup));
}

Launch plan_copy(uint64_t dst, uint64_t src, uint64_t bytes, uint32_t max_threads) {
  CopyArgs a{dst, src, bytes, threads_for(bytes / 16, max_threads), 0};
  Launch l;
  l.kind = Kind::Copy;
  l.grid[0] = a.threads;
  l.set_args(a);
  return l;
}

uint32_t fill_word(uint64_t dst, uint32_t value, unsigned width) {
  if (width == 1) value = (value & 0xFF) * 0x01010101u;
  if (width == 2) value = (value & 0xFFFF) * 0x00010001u;
  // Byte k of an aligned dword is pattern byte (k - dst) % width: rotate by dst's phase.
  const unsigned shift = unsigned(dst % width) * 8;
  return shift ? (value << shift) | (value >> (32 - shift)) : value;
}

Launch plan_fill(uint64_t dst, uint32_t word, uint64_t bytes, uint32_t max_threads) {
  FillArgs a{dst, bytes, word, threads_for(bytes / 16, max_threads)};
  Launch l;
  l.kind = Kind::Fill;
  l.grid[0] = a.threads;
  l.set_args(a);
  return l;
}

Launch plan_rect(const Rect& r, uint32_t max_threads) {
  RectArgs a{};
  a.dst = r.dst;
  a.src = r.src;
  a.dst_pitch = r.dst_pitch;
  a.src_pitch = r.src_pitch;
  a.dst_slice = r.dst_slice;
  a.src_slice = r.src_slice;
  a.width = r.width;
  a.height = r.height;
  a.depth = r.depth;
  // As many work-items per row as it has 16-byte units (a power of two, at most a workgroup),
  // the rest of the grid on other rows.
  a.row_threads = std::min<uint32_t>(kWorkgroup, std::bit_ceil(uint32_t(std::min<uint64_t>(r.width / 16 + 1, kWorkgroup))));
  const uint64_t rows = uint64_t(r.height) * r.depth;
  const uint64_t per_group = kWorkgroup / a.row_threads;
  const uint64_t groups = std::max<uint64_t>(1, std::min((rows + per_group - 1) / per_group,
                                                         std::max<uint64_t>(1, max_threads / kWorkgroup)));
  a.rows_step = uint32_t(groups * per_group);
  Launch l;
  l.kind = Kind::Rect;
  l.grid[0] = uint32_t(groups * kWorkgroup);
  l.set_args(a);
  return l;
}

// Executable GTT mapped to the one GPU, zero-filled by the loader's contract.
struct Kernels::Segments : loader::SegmentMemory {
  Segments(mem::Context& c, uint32_t gpu) : ctx(c), gpu_id(gpu) {}
  base::Result<loader::Span> allocate(size_t size, size_t align, bool executable) override {
    mem::AllocRequest r;
    r.heap = mem::Heap::Gtt;
    r.coherence = mem::Coherence::NonCoherent;
    r.size = size;
    r.alignment = std::max<size_t>(align, 4096);
    r.executable = executable;
    r.owner_gpu = gpu_id;
    KFD_ASSIGN(void* p, ctx.allocate(r));
    std::memset(p, 0, size);
    return loader::Span{static_cast<uint8_t*>(p), size};
  }
  void free(loader::Span s) override { (void)ctx.free(s.host); }

  mem::Context& ctx;
  uint32_t gpu_id;
};

Kernels::~Kernels() {
  code_.reset();  // frees its span through segments_
}

base::Result<std::unique_ptr<Kernels>> Kernels::load(mem::Context& ctx, const gpu::Device& gpu) {
  const std::string proc = processor_name(gpu.props().gfx_target_version);
  const EmbeddedImage* im = image_for(proc);
  if (!im)
    return base::Error::of_kind(base::ErrorKind::NotSupported,
                                "blit kernels: kfdrt was built without a code object for " + proc +
                                    " (" + std::to_string(embedded_images().size()) +
                                    " processors built; is clang++-15 installed?)",
                                ENOTSUP);
  std::unique_ptr<Kernels> k(new Kernels());
  k->processor_ = proc;
  auto co = loader::CodeObject::parse(loader::Bytes(im->data, im->size));
  if (!co) return co.error().context("blit kernels for " + proc);
  k->co_ = std::make_unique<loader::CodeObject>(std::move(*co));
  k->segments_ = std::make_unique<Segments>(ctx, gpu.gpu_id);
  auto lco = loader::LoadedCodeObject::load(*k->co_, *k->segments_);
  if (!lco) return lco.error().context("loading the blit kernels for " + proc);
  k->code_ = std::make_unique<loader::LoadedCodeObject>(std::move(*lco));
  for (unsigned i = 0; i < kKinds; ++i) {
    const char* name = kernel_name(Kind(i));
    const loader::Kernel* kd = k->co_->find_kernel(name);
    if (!kd) return base::Error::msg(std::string("blit kernels for ") + proc + ": no kernel " + name, ENOEXEC);
    KFD_ASSIGN(uint64_t object, k->code_->kernel_object(name));
    k->refs_[i] = KernelRef{object, kd->descriptor.group_segment_fixed_size,
                            kd->descriptor.private_segment_fixed_size, kd->descriptor.kernarg_size};
  }
  return k;
}

}  // namespace queues::blit
