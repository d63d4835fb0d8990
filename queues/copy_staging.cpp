// SPDX-License-Identifier: MIT
// Copies to and from pageable host memory: pinned staging buffers in a pipeline, or a USERPTR registration.
#include "queues/copy_staging.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "queues/copy_backends.h"
#include "queues/runtime.h"

namespace queues {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMinPiece = 64u << 10;

// The bytes one staged piece carries: a buffer's worth, or, for a copy the `count` buffers
// hold, its share of them (at least 64 KiB), so that from the second piece on the CPU's copy of
// one piece overlaps the engine's copy of another, and a copy that fits the buffers never waits
// for one of them.
uint64_t piece_bytes(uint64_t bytes, uint64_t chunk, size_t count) {
  const uint64_t share = (bytes / count + kPage - 1) / kPage * kPage;
  return std::clamp<uint64_t>(share, std::min(kMinPiece, chunk), chunk);
}

}  // namespace

Staging::~Staging() {
  for (Buffer& b : buffers) {
    // A buffer whose copy never completed (a faulted device) stays allocated: the engine may
    // still write it.
    if (b.busy && b.busy->load() > 0) {
      (void)b.busy.release();
      continue;
    }
    if (b.host) (void)rt.memory().free(b.host);
  }
}

base::Status Staging::init(uint64_t chunk_bytes, uint32_t count) {
  if (!buffers.empty()) return {};
  chunk = std::max<uint64_t>(kPage, chunk_bytes / kPage * kPage);
  for (uint32_t i = 0; i < std::max(count, 2u); ++i) {
    // Cached system memory the CPU reads and writes at full speed; the GPU's accesses snoop it.
    mem::AllocRequest r;
    r.heap = mem::Heap::Gtt;
    r.coherence = mem::Coherence::Coherent;
    r.size = chunk;
    r.owner_gpu = gpu_id;
    KFD_ASSIGN(void* p, rt.memory().allocate(r));
    Buffer b;
    b.host = static_cast<uint8_t*>(p);
    auto s = rt.create_signal(0);
    if (!s) {
      (void)rt.memory().free(p);
      return s.error();
    }
    b.busy = std::move(*s);
    buffers.push_back(std::move(b));
  }
  return {};
}

base::Status Staging::wait_free(size_t i) {
  KFD_ASSIGN(int64_t v, buffers[i].busy->wait(Cond::Lt, 1));
  (void)v;
  return {};
}

Staging& CopyEngine::staging(bool to_device) {
  std::lock_guard lk(mu_);
  auto& s = staging_[to_device ? 0 : 1];
  if (!s) s = std::make_unique<Staging>(rt_, gpu_.gpu_id);
  return *s;
}

// Registers the pages holding [p, p + bytes) for this GPU (read-only for a source), or nullptr
// when they cannot be (an existing registration, memory the kernel cannot pin): staging then.
static void* register_pages(Runtime& rt, const gpu::Device& gpu, const void* p, uint64_t bytes, bool source) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes + kPage - 1) & ~(kPage - 1);
  mem::AllocRequest r;
  r.coherence = mem::Coherence::Coherent;
  r.owner_gpu = gpu.gpu_id;
  r.read_only = source;
  auto reg = rt.memory().register_host(reinterpret_cast<void*>(lo), hi - lo, r);
  return reg ? *reg : nullptr;
}

// A copy between registered host pages and the GPU, waited for here (the pages are the
// caller's: they may be reused once this returns), then the registration is dropped.
base::Status CopyEngine::copy_in_place(CopyPath p, bool to_device, uint64_t dst, uint64_t src, uint64_t bytes,
                                       void* reg, const CopyOrder& o) {
  auto done = rt_.create_signal(1);
  if (!done) {
    (void)rt_.memory().free(reg);
    return done.error();
  }
  std::vector<CopyPiece>& pieces = scratch_pieces();
  pieces.push_back(CopyPiece{CopyPiece::Op::Copy, 0, 0, dst, src, bytes, {}});
  if (auto st = submit(p, to_device, pieces, CopyOrder{o.waits, signal_target(**done)}); !st) {
    (void)rt_.memory().free(reg);
    return st;
  }
  if (auto w = (*done)->wait(Cond::Lt, 1); !w) {
    // The device may still read or write the pages and the signal: keep both.
    (void)done->release();
    return w.error();
  }
  (void)rt_.memory().free(reg);
  userptr_copies_.fetch_add(1, std::memory_order_relaxed);
  return o.done.value_address ? submit(p, to_device, {}, CopyOrder{{}, o.done}) : base::Status{};
}

base::Status CopyEngine::copy_from_pageable(uint64_t dst, const void* src, uint64_t bytes, const CopyOrder& o) {
  if (bytes == 0) return nothing(o);
  if (!src) return base::Error::msg("copy_from_pageable: null source", EINVAL);
  KFD_ASSIGN(Where d, where(dst, bytes, "destination"));
  KFD_ASSIGN(CopyPath p, choose(d, Where::Host, bytes, false, o.waits));
  const auto* s = static_cast<const uint8_t*>(src);
  if (policy_.userptr_min_bytes && bytes >= policy_.userptr_min_bytes)
    if (void* reg = register_pages(rt_, gpu_, src, bytes, true))
      return copy_in_place(p, true, dst, reinterpret_cast<uint64_t>(src), bytes, reg, o);
  Staging& st = staging(true);
  std::lock_guard lk(st.mu);
  KFD_TRY(st.init(policy_.staging_chunk, policy_.staging_buffers));
  const uint64_t piece = piece_bytes(bytes, st.chunk, st.buffers.size());
  uint64_t off = 0;
  for (size_t i = 0; off < bytes; ++i) {
    const size_t b = i % st.buffers.size();
    const uint64_t n = std::min(piece, bytes - off);
    KFD_TRY(st.wait_free(b));
    std::memcpy(st.buffers[b].host, s + off, n);
    st.buffers[b].busy->store(1);
    std::vector<CopyPiece>& pieces = scratch_pieces();
    pieces.push_back(CopyPiece{CopyPiece::Op::Copy, 0, 0, dst + off,
                               reinterpret_cast<uint64_t>(st.buffers[b].host), n, {}});
    if (auto r = submit(p, true, pieces, CopyOrder{i == 0 ? o.waits : std::span<const CopyWait>{},
                                                   signal_target(*st.buffers[b].busy)});
        !r) {
      st.buffers[b].busy->store(0);  // never submitted
      return r;
    }
    staged_chunks_.fetch_add(1, std::memory_order_relaxed);
    off += n;
  }
  // The caller's signal after the chunks (the same path runs them in order).
  return o.done.value_address ? submit(p, true, {}, CopyOrder{{}, o.done}) : base::Status{};
}

base::Status CopyEngine::copy_to_pageable(void* dst, uint64_t src, uint64_t bytes, const CopyOrder& o) {
  if (bytes == 0) return nothing(o);
  if (!dst) return base::Error::msg("copy_to_pageable: null destination", EINVAL);
  KFD_ASSIGN(Where s, where(src, bytes, "source"));
  KFD_ASSIGN(CopyPath p, choose(Where::Host, s, bytes, false, o.waits));
  if (policy_.userptr_min_bytes && bytes >= policy_.userptr_min_bytes)
    if (void* reg = register_pages(rt_, gpu_, dst, bytes, false))
      return copy_in_place(p, false, reinterpret_cast<uint64_t>(dst), src, bytes, reg, o);
  auto* d = static_cast<uint8_t*>(dst);
  Staging& st = staging(false);
  std::lock_guard lk(st.mu);
  KFD_TRY(st.init(policy_.staging_drain_chunk, policy_.staging_buffers));
  const size_t k = st.buffers.size();
  const uint64_t piece = piece_bytes(bytes, st.chunk, st.buffers.size());
  const uint64_t chunks = (bytes + piece - 1) / piece;
  // Piece i is copied into buffer i % k; the CPU drains piece i - k + 1 ... while the engine
  // fills the others.
  auto drain = [&](uint64_t i) -> base::Status {
    KFD_TRY(st.wait_free(i % k));
    const uint64_t off = i * piece;
    std::memcpy(d + off, st.buffers[i % k].host, std::min(piece, bytes - off));
    return {};
  };
  for (uint64_t i = 0; i < chunks; ++i) {
    if (i >= k) KFD_TRY(drain(i - k));
    const uint64_t off = i * piece;
    Staging::Buffer& b = st.buffers[i % k];
    b.busy->store(1);
    std::vector<CopyPiece>& pieces = scratch_pieces();
    pieces.push_back(CopyPiece{CopyPiece::Op::Copy, 0, 0, reinterpret_cast<uint64_t>(b.host), src + off,
                               std::min(piece, bytes - off), {}});
    if (auto r = submit(p, false, pieces, CopyOrder{i == 0 ? o.waits : std::span<const CopyWait>{},
                                                    signal_target(*b.busy)});
        !r) {
      b.busy->store(0);
      return r;
    }
    staged_chunks_.fetch_add(1, std::memory_order_relaxed);
  }
  for (uint64_t i = chunks > k ? chunks - k : 0; i < chunks; ++i) KFD_TRY(drain(i));
  return o.done.value_address ? submit(p, false, {}, CopyOrder{{}, o.done}) : base::Status{};
}

}  // namespace queues
