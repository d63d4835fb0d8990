// SPDX-License-Identifier: MIT
// The copy engine's SDMA path: pieces encoded as SDMA v4 packets, emitted after POLL_REGMEM waits.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "queues/trace_hooks.h"
#include "queues/copy_backends.h"
#include "queues/runtime.h"

namespace queues {
namespace {

constexpr uint64_t kTableBytes = 65536 * 4;

// A dword pattern the table holds: a 16-bit value twice (every 1- and 2-byte fill's pattern).
bool in_table(uint32_t word) { return (word >> 16) == (word & 0xFFFF); }

// The largest element (16 .. 1 bytes) dividing every value.
uint32_t element_log2(std::initializer_list<uint64_t> values) {
  for (uint32_t l = 4; l > 0; --l) {
    const uint64_t e = uint64_t(1) << l;
    if (std::all_of(values.begin(), values.end(), [&](uint64_t v) { return v % e == 0; })) return l;
  }
  return 0;
}

}  // namespace

std::vector<CopyPiece>& scratch_pieces() {
  thread_local std::vector<CopyPiece> v;
  v.clear();
  return v;
}

base::Result<std::unique_ptr<SdmaCopier>> SdmaCopier::create(Runtime& rt, const gpu::Device& gpu, uint32_t ring_bytes) {
  std::unique_ptr<SdmaCopier> c(new SdmaCopier(rt, gpu));
  SdmaQueueOptions o;
  o.gpu_id = gpu.gpu_id;
  o.ring_bytes = ring_bytes;
  KFD_ASSIGN(c->q_, rt.create_sdma_queue(o));
  c->family_ = gpu.family;
  return c;
}

SdmaCopier::~SdmaCopier() {
  if (q_) (void)q_->destroy();  // before the buffers its packets may still name
  if (table_) (void)rt_.memory().free(table_);
  if (temp_) (void)rt_.memory().free(temp_);
}

bool SdmaCopier::can_fill(uint64_t dst, uint32_t word, unsigned width) {
  (void)width;
  return dst % 4 == 0 || in_table(word);
}

bool SdmaCopier::can_wait(std::span<const CopyWait> w) {
  return std::all_of(w.begin(), w.end(), [](const CopyWait& c) {
    return c.cond == Cond::Eq || (c.cond == Cond::Lt && c.operand > 0 && c.operand <= (int64_t(1) << 32));
  });
}

base::Result<uint64_t> SdmaCopier::temp() {
  std::lock_guard lk(mu_);
  if (!temp_) {
    KFD_ASSIGN(temp_, allocate_copy_temp(rt_, gpu_.gpu_id));
  }
  return reinterpret_cast<uint64_t>(temp_);
}

// 64 Ki entries of 4 bytes in GTT mapped to this GPU: entry w holds w's two bytes twice, the
// source of the unaligned ends of a fill (COPY_LINEAR copies any bytes; CONSTANT_FILL whole dwords).
base::Result<uint64_t> SdmaCopier::pattern_table() {
  if (!table_) {
    mem::AllocRequest r;
    r.heap = mem::Heap::Gtt;
    r.size = kTableBytes;
    r.owner_gpu = gpu_.gpu_id;
    KFD_ASSIGN(void* t, rt_.memory().allocate(r));
    auto* p = static_cast<uint32_t*>(t);
    for (uint32_t w = 0; w < 65536; ++w) p[w] = w | w << 16;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    table_ = t;
  }
  return reinterpret_cast<uint64_t>(table_);
}

base::Status SdmaCopier::encode_fill(const CopyPiece& p) {
  uint64_t dst = p.dst, left = p.bytes;
  const uint32_t max = family_->sdma_max_copy_bytes;
  auto copy_from_table = [&](uint64_t n, uint64_t phase) -> base::Status {
    KFD_ASSIGN(uint64_t table, pattern_table());
    const uint64_t src = table + uint64_t(p.word & 0xFFFF) * 4 + phase;
    body_.resize(body_.size() + pm4::sdma::kCopyLinearDwords);
    pm4::sdma::write_copy_linear(body_.data() + body_.size() - pm4::sdma::kCopyLinearDwords,
                                 pm4::sdma::CopyLinear{src, dst, uint32_t(n)});
    end_packet();
    dst += n;
    left -= n;
    return {};
  };
  if (const uint64_t head = std::min<uint64_t>((4 - dst % 4) % 4, left); head) {
    if (!in_table(p.word))
      return base::Error::msg("SDMA fill: pattern " + base::hex(p.word) + " at unaligned " + base::hex(dst) +
                                  " has no table entry (a 4-byte value needs a 4-byte aligned destination)",
                              EINVAL);
    KFD_TRY(copy_from_table(head, dst % 4));
  }
  while (left >= 4) {
    pm4::sdma::ConstFill c;
    c.dst = dst;
    c.data = p.word;
    c.bytes = uint32_t(std::min<uint64_t>(left & ~uint64_t(3), max));
    body_.resize(body_.size() + pm4::sdma::kConstFillDwords);
    pm4::sdma::write_const_fill(body_.data() + body_.size() - pm4::sdma::kConstFillDwords, c);
    end_packet();
    dst += c.bytes;
    left -= c.bytes;
  }
  if (left) {
    if (!in_table(p.word))
      return base::Error::msg("SDMA fill: a " + std::to_string(left) + "-byte tail of pattern " + base::hex(p.word) +
                                  " has no table entry", EINVAL);
    KFD_TRY(copy_from_table(left, 0));
  }
  return {};
}

// COPY_LINEAR_RECT tiles when the rectangle fits the packet (ROCr BlitSdma: dword-aligned bases,
// pitches and slices; 14-bit widths and heights, 11-bit depths, 19-bit pitches, 28-bit slices,
// in elements); otherwise one COPY_LINEAR per row.
base::Status SdmaCopier::encode_rect(const CopyRect& r) {
  const uint64_t sx = r.src & 3, dx = r.dst & 3;
  const bool dword = r.src_pitch % 4 == 0 && r.dst_pitch % 4 == 0 &&
                     (r.depth == 1 || (r.src_slice % 4 == 0 && r.dst_slice % 4 == 0));
  const uint32_t el = element_log2({r.width, r.src_pitch, r.dst_pitch, sx, dx,
                                    r.depth > 1 ? r.src_slice : 0, r.depth > 1 ? r.dst_slice : 0});
  using pm4::sdma::kRectPitchBits, pm4::sdma::kRectSliceBits, pm4::sdma::kRectXyBits, pm4::sdma::kRectZBits;
  const bool fits = dword && (r.src_pitch >> el) <= (1u << kRectPitchBits) &&
                    (r.dst_pitch >> el) <= (1u << kRectPitchBits) &&
                    (r.depth == 1 || ((r.src_slice >> el) <= (1u << kRectSliceBits) &&
                                      (r.dst_slice >> el) <= (1u << kRectSliceBits)));
  if (!fits) {
    const uint32_t max = family_->sdma_max_copy_bytes;
    for (uint32_t z = 0; z < r.depth; ++z)
      for (uint32_t y = 0; y < r.height; ++y)
        for (uint64_t x = 0; x < r.width; x += max) {
          const uint64_t n = std::min<uint64_t>(max, r.width - x);
          body_.resize(body_.size() + pm4::sdma::kCopyLinearDwords);
          pm4::sdma::write_copy_linear(
              body_.data() + body_.size() - pm4::sdma::kCopyLinearDwords,
              pm4::sdma::CopyLinear{r.src + z * r.src_slice + y * r.src_pitch + x,
                                    r.dst + z * r.dst_slice + y * r.dst_pitch + x, uint32_t(n)});
          end_packet();
        }
    return {};
  }
  const uint64_t width = r.width >> el, max_xy = 1u << kRectXyBits, max_z = 1u << kRectZBits;
  for (uint64_t z = 0; z < r.depth; z += max_z)
    for (uint64_t y = 0; y < r.height; y += max_xy)
      for (uint64_t x = 0; x < width; x += max_xy) {
        pm4::sdma::CopyRect c;
        c.element_log2 = el;
        c.src = (r.src & ~uint64_t(3)) + z * r.src_slice + y * r.src_pitch + (x << el);
        c.dst = (r.dst & ~uint64_t(3)) + z * r.dst_slice + y * r.dst_pitch + (x << el);
        c.src_x = uint32_t(sx >> el);
        c.dst_x = uint32_t(dx >> el);
        c.src_pitch = uint32_t(r.src_pitch >> el);
        c.dst_pitch = uint32_t(r.dst_pitch >> el);
        c.depth = uint32_t(std::min<uint64_t>(max_z, r.depth - z));
        c.src_slice = c.depth > 1 ? uint32_t(r.src_slice >> el) : 0;
        c.dst_slice = c.depth > 1 ? uint32_t(r.dst_slice >> el) : 0;
        c.width = uint32_t(std::min<uint64_t>(max_xy, width - x));
        c.height = uint32_t(std::min<uint64_t>(max_xy, r.height - y));
        body_.resize(body_.size() + pm4::sdma::kCopyLinearRectDwords);
        pm4::sdma::write_copy_rect(body_.data() + body_.size() - pm4::sdma::kCopyLinearRectDwords, c);
        end_packet();
      }
  return {};
}

base::Status SdmaCopier::encode(std::span<const CopyPiece> pieces) {
  body_.clear();
  ends_.clear();
  const uint32_t max = family_->sdma_max_copy_bytes;
  for (const CopyPiece& p : pieces) {
    switch (p.op) {
      case CopyPiece::Op::Copy:
        for (uint64_t off = 0; off < p.bytes; off += max) {
          body_.resize(body_.size() + pm4::sdma::kCopyLinearDwords);
          pm4::sdma::write_copy_linear(body_.data() + body_.size() - pm4::sdma::kCopyLinearDwords,
                                       pm4::sdma::CopyLinear{p.src + off, p.dst + off,
                                                             uint32_t(std::min<uint64_t>(max, p.bytes - off))});
          end_packet();
        }
        break;
      case CopyPiece::Op::Fill: KFD_TRY(encode_fill(p)); break;
      case CopyPiece::Op::Rect: KFD_TRY(encode_rect(p.rect)); break;
    }
  }
  return {};
}

base::Status SdmaCopier::submit(std::span<const CopyPiece> pieces, const CopyOrder& o) {
  if (!can_wait(o.waits))
    return base::Error::msg("SDMA copy: a wait is neither == nor < (0, 2^32] (POLL_REGMEM compares 32 bits)", EINVAL);
  std::lock_guard lk(mu_);  // one operation's submissions stay contiguous in the ring
  KFD_TRY(encode(pieces));
  const SdmaCompletion done{o.done, 0, true};
  const bool signal = o.done.value_address || o.done.mailbox;
  const uint32_t sig_dw = signal ? sdma_signal_dwords(done) : 0;
  const uint32_t wait_dw = uint32_t(o.waits.size()) * kSdmaWaitSignalDwords;
  const uint32_t hdp_dw = q_->hdp_flush() && !ends_.empty() ? pm4::sdma::kPollRegMemDwords : 0;
  if (ends_.empty() && !signal && o.waits.empty()) return {};
  const uint64_t probe = trace_copy(rt_.memory(), gpu_.gpu_id, q_->queue_id(), "sdma", pieces, o);
  const uint32_t ts_dw = probe ? pm4::sdma::kTimestampDwords : 0;  // each of start and end
  const uint32_t budget = std::max<uint32_t>(q_->ring_bytes() / 16, wait_dw + hdp_dw + sig_dw + 2 * ts_dw +
                                                                         pm4::sdma::kCopyLinearRectDwords);
  size_t pk = 0;
  uint32_t from = 0;  // dword offset in body_ of packet pk
  bool first = true;
  for (;;) {
    const uint32_t head = first ? wait_dw + hdp_dw + ts_dw : 0;
    size_t end = pk;
    uint32_t upto = from;
    while (end < ends_.size() &&
           (end == pk || head + (ends_[end] - from) + (end + 1 == ends_.size() ? sig_dw + ts_dw : 0) <= budget))
      upto = ends_[end++];
    const bool last = end == ends_.size();
    const uint32_t n = head + (upto - from) + (last ? sig_dw + ts_dw : 0);
    KFD_TRY(q_->emit(n, [&](uint32_t* out) -> size_t {
      size_t k = 0;
      if (first) {
        for (const CopyWait& w : o.waits) {
          auto r = write_sdma_wait_signal(out + k, w.signal + offsetof(aql::AmdSignal, value), w.cond, w.operand);
          k += r ? *r : 0;  // validated by can_wait
        }
        if (hdp_dw) k += pm4::sdma::write_hdp_flush(out + k);
        if (ts_dw) k += pm4::sdma::write_timestamp(out + k, pm4::sdma::kSubTimestampGetGlobal, probe + offsetof(aql::AmdSignal, start_ts));
      }
      if (upto > from) std::memcpy(out + k, body_.data() + from, (upto - from) * sizeof(uint32_t));
      k += upto - from;
      if (last && ts_dw) k += pm4::sdma::write_timestamp(out + k, pm4::sdma::kSubTimestampGetGlobal, probe + offsetof(aql::AmdSignal, end_ts));
      if (last && signal) k += write_sdma_signal(out + k, done);
      return k;
    }));
    first = false;
    pk = end;
    from = upto;
    if (last) break;
  }
  ops_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

}  // namespace queues
