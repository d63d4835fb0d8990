// SPDX-License-Identifier: MIT
// The copy engine's blit path: pieces as dispatches of kfdrt's blit kernels on an AQL queue of its own.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "queues/trace_hooks.h"
#include "queues/copy_backends.h"
#include "queues/runtime.h"

namespace queues {
namespace {

// The kernels address a range with 32-bit byte offsets: longer copies and fills are split.
constexpr uint64_t kMaxDispatchBytes = uint64_t(1) << 30;

aql::BarrierValueCond barrier_cond(Cond c) {
  switch (c) {
    case Cond::Eq: return aql::kCondEq;
    case Cond::Ne: return aql::kCondNe;
    case Cond::Lt: return aql::kCondLt;
    case Cond::Gte: return aql::kCondGte;
  }
  return aql::kCondEq;
}

// Every packet waits for the one before (barrier bit) and acquires and releases at system
// scope: an operation sees what earlier work wrote and leaves its bytes visible to the host,
// other GPUs and the SDMA engines.
constexpr Fence kOrdered{true, aql::kScopeSystem, aql::kScopeSystem};

}  // namespace

base::Result<std::unique_ptr<BlitCopier>> BlitCopier::create(Runtime& rt, const gpu::Device& gpu, uint32_t packets,
                                                             uint32_t max_threads) {
  std::unique_ptr<BlitCopier> c(new BlitCopier(rt, gpu));
  KFD_ASSIGN(c->kernels_, blit::Kernels::load(rt.memory(), gpu));
  QueueOptions o;
  o.gpu_id = gpu.gpu_id;
  o.packets = packets;
  KFD_ASSIGN(c->q_, rt.create_queue(o));
  c->slots_ = 2 * packets;
  KFD_ASSIGN(void* ka, rt.memory().allocate_kernarg(size_t(c->slots_) * kKernargSlot, 4096));
  c->kernargs_ = static_cast<uint8_t*>(ka);
  c->max_threads_ = max_threads;
  return c;
}

BlitCopier::~BlitCopier() {
  if (q_) (void)q_->destroy();
  abandoned_.clear();  // the queue is gone: nothing writes them any more
  if (kernargs_) (void)rt_.memory().free(kernargs_);
  if (temp_) (void)rt_.memory().free(temp_);
}

base::Result<uint64_t> BlitCopier::temp() {
  std::lock_guard lk(mu_);
  if (!temp_) {
    KFD_ASSIGN(temp_, allocate_copy_temp(rt_, gpu_.gpu_id));
  }
  return reinterpret_cast<uint64_t>(temp_);
}

base::Result<Packet> BlitCopier::dispatch(const CopyPiece& p, uint64_t index, uint64_t completion) const {
  blit::Launch l;
  switch (p.op) {
    case CopyPiece::Op::Copy: l = blit::plan_copy(p.dst, p.src, p.bytes, max_threads_); break;
    case CopyPiece::Op::Fill: l = blit::plan_fill(p.dst, p.word, p.bytes, max_threads_); break;
    case CopyPiece::Op::Rect: l = blit::plan_rect(p.rect, max_threads_); break;
  }
  const blit::KernelRef& k = kernels_->get(l.kind);
  uint8_t* slot = kernargs_ + (index % slots_) * kKernargSlot;
  std::memcpy(slot, l.args, l.args_size);
  DispatchParams d;
  d.fence = kOrdered;
  d.dims = 1;
  d.workgroup[0] = uint16_t(blit::kWorkgroup);
  d.grid[0] = l.grid[0];
  d.private_segment_size = k.private_segment;
  d.group_segment_size = k.group_segment;
  d.kernel_object = k.object;
  d.kernarg_address = reinterpret_cast<uint64_t>(slot);
  d.completion_signal = completion;
  return make_dispatch(d);
}

base::Status BlitCopier::submit(std::span<const CopyPiece> in, const CopyOrder& o) {
  thread_local std::vector<CopyPiece> split;
  std::span<const CopyPiece> pieces = in;
  if (std::any_of(in.begin(), in.end(), [](const CopyPiece& p) {
        return p.op == CopyPiece::Op::Rect ? p.rect.width >= kMaxDispatchBytes : p.bytes > kMaxDispatchBytes;
      })) {
    split.clear();
    for (const CopyPiece& p : in) {
      if (p.op == CopyPiece::Op::Rect) {
        if (p.rect.width >= kMaxDispatchBytes)
          return base::Error::msg("blit copy: rows of " + std::to_string(p.rect.width) + " bytes (at most " +
                                      std::to_string(kMaxDispatchBytes - 1) + ")", EINVAL);
        split.push_back(p);
        continue;
      }
      for (uint64_t off = 0; off < p.bytes; off += kMaxDispatchBytes) {
        CopyPiece q = p;
        q.dst = p.dst + off;
        q.src = p.op == CopyPiece::Op::Copy ? p.src + off : 0;
        q.bytes = std::min(kMaxDispatchBytes, p.bytes - off);
        if (p.op == CopyPiece::Op::Fill) q.word = p.word;  // the pattern's phase repeats every 4 bytes
        split.push_back(q);
      }
    }
    pieces = split;
  }
  const bool signal = o.done.value_address != 0;
  const uint64_t done_signal = signal ? o.done.value_address - offsetof(aql::AmdSignal, value) : 0;
  const size_t marker = pieces.empty() && signal ? 1 : 0;
  if (o.waits.size() + pieces.size() + marker == 0) return {};
  std::lock_guard lk(mu_);  // one operation's packets stay together (the temp buffer is shared)
  // Traced: the operation's last packet completes a probe the CP stamps, a barrier-AND forwards.
  const uint64_t probe = trace_copy(rt_.memory(), gpu_.gpu_id, q_->queue_id(), "blit", pieces, o, q_.get());
  const uint64_t completion = probe ? probe : done_signal;
  const size_t forward = probe && signal ? 1 : 0;
  const size_t total = o.waits.size() + pieces.size() + marker + forward;
  const size_t batch = std::max<size_t>(1, q_->size() / 2);
  size_t done = 0;
  while (done < total) {
    const uint32_t n = uint32_t(std::min(batch, total - done));
    KFD_ASSIGN(uint64_t index, q_->reserve(n));
    for (uint32_t i = 0; i < n; ++i) {
      const size_t k = done + i;
      const bool last = k + 1 == total;
      Packet pkt;
      const bool end = k + 1 + forward == total;  // the operation's own last packet
      if (forward && last) {
        pkt = *make_barrier_and(std::span<const uint64_t>(&probe, 1), done_signal, kOrdered);
      } else if (k < o.waits.size()) {
        const CopyWait& w = o.waits[k];
        pkt = make_barrier_value(w.signal, barrier_cond(w.cond), w.operand, -1, end ? completion : 0, kOrdered);
      } else if (k - o.waits.size() < pieces.size()) {
        auto d = dispatch(pieces[k - o.waits.size()], index + i, end ? completion : 0);
        if (!d) {  // every claimed slot must be written: a marker stands in
          pkt = make_marker(0, kOrdered);
          for (uint32_t j = i; j < n; ++j) q_->write(index + j, pkt);
          q_->ring_doorbell(index + n - 1);
          return d.error();
        }
        pkt = *d;
      } else {
        pkt = make_marker(completion, kOrdered);
      }
      q_->write(index + i, pkt);
    }
    q_->ring_doorbell(index + n - 1);
    done += n;
  }
  ops_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

base::Status BlitCopier::wait_idle(std::chrono::nanoseconds timeout) {
  KFD_ASSIGN(auto idle, rt_.create_signal(1));  // one per call: concurrent waiters each get theirs
  {
    std::lock_guard lk(mu_);
    KFD_ASSIGN(uint64_t index, q_->reserve(1));
    q_->write(index, make_marker(idle->handle(), kOrdered));
    q_->ring_doorbell(index);
  }
  auto v = idle->wait(Cond::Lt, 1, timeout);
  if (!v) {
    // The marker may still complete it: never free memory the CP writes while the queue lives.
    std::lock_guard lk(mu_);
    abandoned_.push_back(std::move(idle));
    return v.error();
  }
  return q_->error();
}

}  // namespace queues
