// SPDX-License-Identifier: MIT
// CopyEngine: endpoints from the allocation map, the path an operation takes, memmove, fills, rectangles.
#include "queues/copy_engine.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "queues/copy_backends.h"
#include "queues/copy_staging.h"
#include "queues/runtime.h"

namespace queues {
namespace {

constexpr uint64_t kTempBytes = kCopyTempBytes;

bool overlap(uint64_t a, uint64_t b, uint64_t n) { return a < b + n && b < a + n; }

// A memmove of overlapping ranges as non-overlapping pieces in the order that reads every source
// byte before it is overwritten: copies of the distance's size when that is large, else through
// the path's temp buffer in chunks (dst above src: from the end; below: from the start).
void plan_move(std::vector<CopyPiece>& out, uint64_t dst, uint64_t src, uint64_t bytes, uint64_t temp) {
  const uint64_t dist = dst > src ? dst - src : src - dst;
  const bool direct = dist >= kTempBytes || dist * 16 >= bytes;
  const uint64_t chunk = direct ? dist : std::min(kTempBytes, bytes);
  const uint64_t count = (bytes + chunk - 1) / chunk;
  for (uint64_t i = 0; i < count; ++i) {
    // Chunk k of `count` in memory order; walk backwards when moving up.
    const uint64_t k = dst > src ? count - 1 - i : i;
    const uint64_t off = k * chunk, n = std::min(chunk, bytes - off);
    if (direct) {
      out.push_back(CopyPiece{CopyPiece::Op::Copy, 0, 0, dst + off, src + off, n, {}});
    } else {
      out.push_back(CopyPiece{CopyPiece::Op::Copy, 0, 0, temp, src + off, n, {}});
      out.push_back(CopyPiece{CopyPiece::Op::Copy, 0, 0, dst + off, temp, n, {}});
    }
  }
}

// A size in KiB from the environment variable `name` into `bytes` (at least `min_kib`); a value
// that is not one is reported and ignored.
void env_kib(const char* name, uint64_t& bytes, unsigned long long min_kib = 0) {
  const char* k = std::getenv(name);
  if (!k || !*k) return;
  char* end = nullptr;
  const unsigned long long kib = std::strtoull(k, &end, 10);
  if (end != k && *end == '\0' && kib >= min_kib && kib < (1ull << 40))
    bytes = kib << 10;
  else
    std::fprintf(stderr, "kfdrt: %s=%s is not a size in KiB (at least %llu); ignored\n", name, k, min_kib);
}

}  // namespace

const char* copy_path_name(CopyPath p) {
  switch (p) {
    case CopyPath::Auto: return "auto";
    case CopyPath::Sdma: return "SDMA";
    case CopyPath::Blit: return "blit kernels";
  }
  return "?";
}

CopyPolicy CopyPolicy::from_env() {
  CopyPolicy p;
  if (const char* s = std::getenv("KFDRT_SDMA"); s && *s) {
    if (std::strcmp(s, "0") == 0) p.allow_sdma = false;
    if (std::strcmp(s, "1") == 0) p.force = CopyPath::Sdma;
  }
  env_kib("KFDRT_FORCE_BLIT_COPY_SIZE", p.sdma_min_bytes);
  env_kib("KFDRT_STAGING_CHUNK_KIB", p.staging_chunk, 4);
  env_kib("KFDRT_STAGING_DRAIN_KIB", p.staging_drain_chunk, 4);
  env_kib("KFDRT_USERPTR_MIN_KIB", p.userptr_min_bytes);
  if (const char* n = std::getenv("KFDRT_STAGING_BUFFERS"); n && *n) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(n, &end, 10);
    if (end != n && *end == '\0' && v >= 2 && v <= 64)
      p.staging_buffers = static_cast<uint32_t>(v);
    else
      std::fprintf(stderr, "kfdrt: KFDRT_STAGING_BUFFERS=%s is not a count from 2 to 64; ignored\n", n);
  }
  if (const char* b = std::getenv("KFDRT_BLIT"); b && *b) {
    if (std::strcmp(b, "0") == 0) p.allow_blit = false;
    if (std::strcmp(b, "1") == 0) p.force = CopyPath::Blit;
  }
  return p;
}

CopyEngine::CopyEngine(Runtime& rt, const gpu::Device& gpu, const CopyPolicy& p) : rt_(rt), gpu_(gpu), policy_(p) {}

CopyEngine::~CopyEngine() {
  staging_[0].reset();
  staging_[1].reset();
  blit_.reset();
  sdma_[0].reset();
  sdma_[1].reset();
}

base::Result<std::unique_ptr<CopyEngine>> CopyEngine::create(Runtime& rt, const gpu::Device& gpu, const CopyPolicy& p) {
  std::unique_ptr<CopyEngine> e(new CopyEngine(rt, gpu, p));
  const auto& props = gpu.props();
  e->sdma_engines_ = props.num_sdma_engines;
  e->blit_image_ = blit::image_for(blit::processor_name(props.gfx_target_version));
  const uint32_t cus = props.simd_per_cu ? props.simd_count / props.simd_per_cu : 64;
  e->max_threads_ = std::clamp<uint32_t>(cus * blit::kWorkgroup * 2, blit::kWorkgroup * 8, 1u << 20);
  if (!e->has_sdma() && !e->has_blit())
    return base::Error::of_kind(
        base::ErrorKind::NotSupported,
        "copy engine of GPU " + base::hex(gpu.gpu_id) + ": no usable path (SDMA engines: " +
            std::to_string(e->sdma_engines_) + (p.allow_sdma ? "" : ", disabled by KFDRT_SDMA=0") +
            "; blit kernels for " + blit::processor_name(props.gfx_target_version) + ": " +
            (e->blit_image_ ? (p.allow_blit ? "yes" : "disabled by KFDRT_BLIT=0") : "not built") + ")",
        ENOTSUP);
  return e;
}

base::Result<SdmaCopier*> CopyEngine::sdma(bool to_device) {
  const int i = to_device ? 0 : 1;
  if (SdmaCopier* c = sdma_ptr_[i].load(std::memory_order_acquire)) return c;
  std::lock_guard lk(mu_);
  if (!sdma_[i]) {
    KFD_ASSIGN(sdma_[i], SdmaCopier::create(rt_, gpu_, policy_.sdma_ring_bytes));
    sdma_ptr_[i].store(sdma_[i].get(), std::memory_order_release);
  }
  return sdma_[i].get();
}

base::Result<BlitCopier*> CopyEngine::blit() {
  if (BlitCopier* c = blit_ptr_.load(std::memory_order_acquire)) return c;
  std::lock_guard lk(mu_);
  if (!blit_) {
    KFD_ASSIGN(blit_, BlitCopier::create(rt_, gpu_, policy_.blit_packets, max_threads_));
    blit_ptr_.store(blit_.get(), std::memory_order_release);
  }
  return blit_.get();
}

base::Result<CopyEngine::Where> CopyEngine::where(uint64_t va, uint64_t bytes, const char* what) const {
  auto info = rt_.memory().locate(reinterpret_cast<const void*>(va), gpu_.gpu_id);
  if (!info)
    return base::Error::msg(std::string("copy: ") + what + " " + base::hex(va) +
                                " is not in any allocation of this process (pageable host memory is "
                                "copied through copy_from_pageable / copy_to_pageable)",
                            EFAULT);
  if (bytes > info->base + info->size - va)
    return base::Error::msg(std::string("copy: ") + what + " [" + base::hex(va) + ", " + base::hex(va + bytes) +
                                ") runs past the end of its allocation [" + base::hex(info->base) + ", " +
                                base::hex(info->base + info->size) + ")",
                            EFAULT);
  if (!info->mapped)
    return base::Error::msg(std::string("copy: ") + what + " " + base::hex(va) + " (" + mem::heap_name(info->heap) +
                                " of GPU " + base::hex(info->owner_gpu) + ") is not mapped to GPU " +
                                base::hex(gpu_.gpu_id) + ", whose engine copies",
                            EFAULT);
  switch (info->heap) {
    case mem::Heap::Vram: return info->owner_gpu == gpu_.gpu_id ? Where::Device : Where::Peer;
    case mem::Heap::Gtt:
    case mem::Heap::Userptr: return Where::Host;
    default: break;
  }
  return base::Error::msg(std::string("copy: ") + what + " " + base::hex(va) + " is " + mem::heap_name(info->heap) +
                              " memory, not a buffer",
                          EINVAL);
}

base::Result<CopyPath> CopyEngine::choose(Where d, Where s, uint64_t bytes, bool fill,
                                          std::span<const CopyWait> w) const {
  (void)fill;  // a fill goes where a copy to its destination would
  const bool sdma_ok = has_sdma() && SdmaCopier::can_wait(w);
  const bool blit_ok = has_blit();
  CopyPath want = policy_.force;
  if (want == CopyPath::Auto) {
    const bool host = d == Where::Host || s == Where::Host;
    if (host)
      want = bytes >= policy_.sdma_min_bytes ? CopyPath::Sdma : CopyPath::Blit;
    else if (d == Where::Peer || s == Where::Peer)
      want = CopyPath::Sdma;
    else
      want = policy_.device_copies_blit ? CopyPath::Blit : CopyPath::Sdma;
  }
  if (want == CopyPath::Sdma && sdma_ok) return CopyPath::Sdma;
  if (want == CopyPath::Blit && blit_ok) return CopyPath::Blit;
  if (blit_ok) return CopyPath::Blit;
  if (sdma_ok) return CopyPath::Sdma;
  return base::Error::of_kind(base::ErrorKind::NotSupported,
                              "copy engine of GPU " + base::hex(gpu_.gpu_id) +
                                  (has_sdma() ? ": a wait SDMA cannot evaluate (neither == nor < (0, 2^32]) and no "
                                                "blit kernels"
                                              : ": no SDMA engine and no blit kernels"),
                              ENOTSUP);
}

base::Status CopyEngine::submit(CopyPath p, bool to_device, std::span<const CopyPiece> pieces, const CopyOrder& o) {
  if (p == CopyPath::Sdma) {
    KFD_ASSIGN(SdmaCopier* c, sdma(to_device));
    return c->submit(pieces, o);
  }
  KFD_ASSIGN(BlitCopier* c, blit());
  return c->submit(pieces, o);
}

base::Result<uint64_t> CopyEngine::temp(CopyPath p, bool to_device) {
  if (p == CopyPath::Sdma) {
    KFD_ASSIGN(SdmaCopier* c, sdma(to_device));
    return c->temp();
  }
  KFD_ASSIGN(BlitCopier* c, blit());
  return c->temp();
}

base::Result<CopyPath> CopyEngine::route_copy(uint64_t dst, uint64_t src, uint64_t bytes) const {
  KFD_ASSIGN(Where d, where(dst, bytes, "destination"));
  KFD_ASSIGN(Where s, where(src, bytes, "source"));
  return choose(d, s, bytes, false, {});
}

base::Status CopyEngine::nothing(const CopyOrder& o) {
  if (o.waits.empty() && !o.done.value_address) return {};
  KFD_ASSIGN(CopyPath p, choose(Where::Device, Where::Device, 0, false, o.waits));
  return submit(p, true, {}, o);
}

base::Status CopyEngine::copy(uint64_t dst, uint64_t src, uint64_t bytes, const CopyOrder& o) {
  if (bytes == 0 || dst == src) {
    if (bytes) {  // still a copy of valid memory: check it
      KFD_TRY(where(dst, bytes, "destination"));
    }
    return nothing(o);
  }
  KFD_ASSIGN(Where d, where(dst, bytes, "destination"));
  KFD_ASSIGN(Where s, where(src, bytes, "source"));
  KFD_ASSIGN(CopyPath p, choose(d, s, bytes, false, o.waits));
  const bool to_device = !(d == Where::Host && s != Where::Host);
  std::vector<CopyPiece>& pieces = scratch_pieces();
  if (!overlap(dst, src, bytes)) {
    pieces.push_back(CopyPiece{CopyPiece::Op::Copy, 0, 0, dst, src, bytes, {}});
  } else {
    KFD_ASSIGN(uint64_t t, temp(p, to_device));
    plan_move(pieces, dst, src, bytes, t);
  }
  return submit(p, to_device, pieces, o);
}

base::Status CopyEngine::fill(uint64_t dst, uint32_t value, unsigned width, uint64_t count, const CopyOrder& o) {
  if (width != 1 && width != 2 && width != 4)
    return base::Error::msg("fill: element width " + std::to_string(width) + " is not 1, 2 or 4", EINVAL);
  if (count > UINT64_MAX / width) return base::Error::msg("fill: " + std::to_string(count) + " elements overflow", EINVAL);
  const uint64_t bytes = count * width;
  if (bytes == 0) return nothing(o);
  KFD_ASSIGN(Where d, where(dst, bytes, "destination"));
  KFD_ASSIGN(CopyPath p, choose(d, d, bytes, true, o.waits));
  const uint32_t word = blit::fill_word(dst, value, width);
  if (p == CopyPath::Sdma && !SdmaCopier::can_fill(dst, word, width)) {
    if (!has_blit())
      return base::Error::msg("fill: a 4-byte value at unaligned " + base::hex(dst) +
                                  " needs the blit kernels, which this engine cannot use", EINVAL);
    p = CopyPath::Blit;
  }
  std::vector<CopyPiece>& pieces = scratch_pieces();
  CopyPiece piece;
  piece.op = CopyPiece::Op::Fill;
  piece.width = uint8_t(width);
  piece.word = word;
  piece.dst = dst;
  piece.bytes = bytes;
  pieces.push_back(piece);
  return submit(p, true, pieces, o);
}

base::Status CopyEngine::copy_rect(const CopyRect& r, const CopyOrder& o) {
  if (r.width == 0 || r.height == 0 || r.depth == 0) return nothing(o);
  if (r.src_pitch < r.width || r.dst_pitch < r.width)
    return base::Error::msg("copy_rect: pitches (src " + std::to_string(r.src_pitch) + ", dst " +
                                std::to_string(r.dst_pitch) + ") smaller than the width " + std::to_string(r.width),
                            EINVAL);
  const uint64_t src_rows = r.src_pitch * (r.height - 1) + r.width, dst_rows = r.dst_pitch * (r.height - 1) + r.width;
  if (r.depth > 1 && (r.src_slice < src_rows || r.dst_slice < dst_rows))
    return base::Error::msg("copy_rect: slice pitches (src " + std::to_string(r.src_slice) + ", dst " +
                                std::to_string(r.dst_slice) + ") smaller than a slice's rows", EINVAL);
  const uint64_t src_extent = r.src_slice * (r.depth - 1) + src_rows;
  const uint64_t dst_extent = r.dst_slice * (r.depth - 1) + dst_rows;
  KFD_ASSIGN(Where d, where(r.dst, dst_extent, "destination"));
  KFD_ASSIGN(Where s, where(r.src, src_extent, "source"));
  KFD_ASSIGN(CopyPath p, choose(d, s, r.width * r.height * r.depth, false, o.waits));
  std::vector<CopyPiece>& pieces = scratch_pieces();
  CopyPiece piece;
  piece.op = CopyPiece::Op::Rect;
  piece.rect = r;
  pieces.push_back(piece);
  return submit(p, !(d == Where::Host && s != Where::Host), pieces, o);
}

base::Status CopyEngine::wait_idle(std::chrono::nanoseconds timeout) {
  for (auto& p : sdma_ptr_)
    if (SdmaCopier* c = p.load(std::memory_order_acquire)) KFD_TRY(c->wait_idle(timeout));
  if (BlitCopier* c = blit_ptr_.load(std::memory_order_acquire)) KFD_TRY(c->wait_idle(timeout));
  return {};
}

CopyStats CopyEngine::stats() const {
  CopyStats s;
  for (auto& p : sdma_ptr_)
    if (SdmaCopier* c = p.load(std::memory_order_acquire)) s.sdma_ops += c->ops();
  if (BlitCopier* c = blit_ptr_.load(std::memory_order_acquire)) s.blit_ops = c->ops();
  s.staged_chunks = staged_chunks_.load(std::memory_order_relaxed);
  s.userptr_copies = userptr_copies_.load(std::memory_order_relaxed);
  return s;
}

base::Result<void*> allocate_copy_temp(Runtime& rt, uint32_t gpu_id) {
  mem::AllocRequest r;
  r.heap = mem::Heap::Vram;
  r.size = kCopyTempBytes;
  r.host_access = false;
  r.owner_gpu = gpu_id;
  return rt.memory().allocate(r);
}

}  // namespace queues
