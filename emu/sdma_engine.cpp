// SPDX-License-Identifier: MIT
// The SDMA engine's queue service and its SDMA v4 packets, every byte range checked against the GPU's mappings.
#include "emu/sdma_engine.h"
#include "emu/device_model.h"
#include "emu/shader/host_cpu.h"
#include "emu/stats.h"
#include "emu/tsan_sync.h"

#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "pm4/sdma.h"
#include "pm4/type3.h"

namespace emu {

using namespace pm4::sdma;

namespace {

constexpr unsigned kPacketsPerTurn = 32;
constexpr uint64_t kBytesPerTurn = 16ull << 20;  // then the engine's other queues get a turn
constexpr unsigned kIbPacketsPerTurn = 256;
constexpr uint32_t kRetryForever = 0xFFF;     // POLL_REGMEM RETRY_COUNT that never gives up
constexpr uint32_t kWaitForMore = ~0u;

std::string op_label(uint32_t dw0) {
  const char* n = op_name(op_of(dw0), sub_op_of(dw0));
  if (n) return n;
  return "op " + std::to_string(op_of(dw0)) + " sub-op " + std::to_string(sub_op_of(dw0));
}

void charge(uint64_t* budget, uint64_t bytes) { *budget = bytes >= *budget ? 0 : *budget - bytes; }

// The size of one instance of CPU 0's data or unified cache of `level`
// (/sys/devices/system/cpu/cpu0/cache/indexN/{level,type,size}, the kernel's cacheinfo), 0 where
// there is none.
uint64_t host_cache_bytes(unsigned level) {
  for (unsigned i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    auto read = [&](const char* leaf) {
      std::string v;
      if (FILE* f = std::fopen((dir + leaf).c_str(), "re")) {
        char buf[64] = {};
        if (std::fgets(buf, sizeof buf, f)) v = buf;
        std::fclose(f);
      }
      while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
      return v;
    };
    const std::string lv = read("level");
    if (lv.empty()) break;
    if (std::strtoul(lv.c_str(), nullptr, 10) != level || read("type") == "Instruction") continue;
    const std::string sz = read("size");
    char* end = nullptr;
    uint64_t n = std::strtoull(sz.c_str(), &end, 10);
    if (end && (*end == 'K' || *end == 'k')) n <<= 10;
    else if (end && (*end == 'M' || *end == 'm')) n <<= 20;
    return n;
  }
  return 0;
}

// The engine's copies stream past the host's caches (as a DMA engine's writes go to memory) once
// the bytes its recent copies touched, this one's included, no longer fit the host's fast cache;
// until then they stay cached, next to the CPU that uses the data, where a host memcpy of that
// size runs too. The fast cache is a core complex's L3 on AMD's Zen cores (a Zen 5 EPYC here:
// 8 MiB copies 62 GB/s cached against 44 streamed, 16 MiB 36 against 43), elsewhere a core's L2
// (an Intel Xeon with 4 MiB of L2 per core: from 2 MiB, 16-17 GB/s streamed against 12 cached,
// where its L3 gave no more than memory did); BENCHMARKS.md, "The SDMA engine's copies: cached or
// streamed by their footprint". KFDEMU_SDMA_STREAM_MIB sets that footprint (tests stream small
// copies).
uint64_t pick_stream_footprint() {
  if (const long mib = env_long("KFDEMU_SDMA_STREAM_MIB", -1); mib >= 0) return uint64_t(mib) << 20;
  uint64_t fast = 0;
  if (host_cpu().amd) fast = host_cache_bytes(3);
  if (!fast) fast = host_cache_bytes(2);
  return fast ? std::max<uint64_t>(fast, 2u << 20) : 4u << 20;
}

uint64_t stream_footprint() {
  static const uint64_t n = pick_stream_footprint();
  return n;
}

// Only packets this long stream (shorter ones, a pipeline's small pieces among them, are cheaper
// cached: a 1 MiB copy 26 GB/s cached against 18 streamed on the Xeon).
uint64_t stream_min_packet() { return std::min<uint64_t>(1u << 20, stream_footprint() / 2); }

#if defined(__x86_64__) || defined(__i386__)
// The streaming loops: dst 64-byte aligned, n a multiple of 256. Non-temporal stores (Intel SDM
// vol. 1, 10.4.6.2 "Caching of Temporal vs. Non-Temporal Data", and MOVNTDQ / VMOVNTDQ in vol. 2)
// go to memory through the write-combining buffers without reading the destination's lines first;
// a whole 64-byte line per VMOVNTDQ zmm fills a buffer with one store. The wider forms are compiled
// for their instruction set only and called only where the CPU has it (chosen once, below).
void stream_loop_sse2(uint8_t* dst, const uint8_t* src, uint64_t n) {
  for (uint64_t i = 0; i < n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
}

__attribute__((target("avx2"))) void stream_loop_avx2(uint8_t* dst, const uint8_t* src, uint64_t n) {
  for (uint64_t i = 0; i < n; i += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 96), d);
  }
  _mm256_zeroupper();  // no AVX-SSE transition penalty in the SSE code that follows
}

__attribute__((target("avx512f"))) void stream_loop_avx512(uint8_t* dst, const uint8_t* src, uint64_t n) {
  for (uint64_t i = 0; i < n; i += 256) {
    const __m512i a = _mm512_loadu_si512(src + i);
    const __m512i b = _mm512_loadu_si512(src + i + 64);
    const __m512i c = _mm512_loadu_si512(src + i + 128);
    const __m512i d = _mm512_loadu_si512(src + i + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i), a);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i + 192), d);
  }
  _mm256_zeroupper();
}

using StreamLoop = void (*)(uint8_t*, const uint8_t*, uint64_t);

// The widest loop this CPU (and its OS: host_cpu() checks XCR0 for the AVX states) runs;
// KFDEMU_SDMA_STORES=sse2|avx2|avx512 narrows it (tests run every form the host has).
StreamLoop pick_stream_loop() {
  const bool avx2 = host_cpu().avx2, avx512 = host_cpu().avx512f;
  const char* want = std::getenv("KFDEMU_SDMA_STORES");
  const std::string w = want ? want : "";
  if (w == "sse2") return stream_loop_sse2;
  if (w == "avx2") return avx2 ? stream_loop_avx2 : stream_loop_sse2;
  if (avx512) return stream_loop_avx512;
  return avx2 ? stream_loop_avx2 : stream_loop_sse2;
}

StreamLoop stream_loop() {
  static const StreamLoop f = pick_stream_loop();
  return f;
}
#endif

// dst <- src with stores that bypass the host's caches (as a DMA engine's writes to memory do),
// fenced so that the completion the engine writes next is seen after the data. The ranges must
// not overlap. Only [dst, dst + n) is written and only [src, src + n) read: the unaligned head and
// the tail are plain copies.
void stream_copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
#if defined(__x86_64__) || defined(__i386__)
  const uint64_t head = std::min<uint64_t>(n, (64 - (reinterpret_cast<uintptr_t>(dst) & 63)) & 63);
  std::memcpy(dst, src, head);
  const uint64_t body = (n - head) & ~uint64_t(255);
  if (body) stream_loop()(dst + head, src + head, body);
  std::memcpy(dst + head + body, src + head + body, n - head - body);
  _mm_sfence();
#else
  std::memcpy(dst, src, n);
#endif
}

// The pieces of a packet's source and destination, streamed pairwise; false (nothing copied)
// when a destination piece overlaps a source piece (then memmove's semantics apply).
bool stream_spans(const std::vector<HostSpan>& dst, const std::vector<HostSpan>& src) {
  for (const HostSpan& d : dst)
    for (const HostSpan& s : src)
      if (d.host < s.host + s.len && s.host < d.host + d.len) return false;
  for_each_span_pair(dst, src, stream_copy);
  return true;
}

}  // namespace

SdmaState& sdma_state(Queue& q) {
  if (!q.sdma) q.sdma = std::make_shared<SdmaState>();
  return *q.sdma;
}

SdmaEngine::SdmaEngine(Process& p, DeviceState& d, uint32_t index)
    : EngineThread(p, d), index_(index) {
  start();
}

void SdmaEngine::warm_up() {
  (void)stream_footprint();  // the host's cache sizes read here, not in the first copy
}

SdmaEngine::~SdmaEngine() { stop(); }

std::string SdmaEngine::where() const { return "SDMA " + op_label(where_dw0_) + " at " + hex(where_va_); }

Step SdmaEngine::error(Queue& q, const std::string& why) {
  stop_queue(q, where_set_ ? where() + ": " + why : why,
             "SDMA engine " + std::to_string(index_) + " error: HW_EXCEPTION events set");
  p_.raise_hw_exception_event();
  return Step::Failed;
}

bool SdmaEngine::range(Queue& q, uint64_t va, uint64_t size, bool write, const char* what,
                       std::vector<HostSpan>* out) {
  uint64_t bad = 0;
  if (gpu_range(d_, va, size, write, out, &bad)) return true;
  const std::string at = where_set_ ? where() + ": " : std::string();
  fault(q, at + what + " [" + hex(va) + ", " + hex(va + size) + "): " + hex(bad) + " is not mapped" +
               (write ? " writable" : "") + " to the GPU",
        bad, write);
  return false;
}

uint8_t* SdmaEngine::mem(Queue& q, uint64_t va, uint64_t size, bool write, const char* what) {
  if (uint8_t* h = d_.translate(va, size, write)) return h;
  std::vector<HostSpan> pieces;
  if (range(q, va, size, write, what, &pieces))  // mapped, but by two mappings
    error(q, std::string(what) + " [" + hex(va) + ", " + hex(va + size) +
                 ") spans two GPU mappings; the emulator needs one for this access");
  return nullptr;
}

uint32_t SdmaEngine::packet_dwords(Queue& q, const uint32_t* p, uint32_t avail, uint64_t va) {
  const uint8_t op = op_of(p[0]), sub = sub_op_of(p[0]);
  switch (op) {
    case kOpNop: return nop_dwords(p[0]);
    case kOpCopy:
      if (sub == kSubCopyLinear) return kCopyLinearDwords;
      if (sub == kSubCopyLinearRect) return kCopyLinearRectDwords;
      break;
    case kOpWrite:
      if (sub != kSubWriteUntiled) break;
      return avail < 4 ? kWaitForMore : write_untiled_dwords(p);
    case kOpIndirect: return kIndirectDwords;
    case kOpFence: return kFenceDwords;
    case kOpTrap: return kTrapDwords;
    case kOpPollRegMem: return kPollRegMemDwords;
    case kOpAtomic: return kAtomicDwords;
    case kOpConstFill: return kConstFillDwords;
    case kOpTimestamp:
      if (sub <= kSubTimestampGetGlobal) return kTimestampDwords;
      break;
    default: break;
  }
  where_set_ = false;
  error(q, std::string(op_name(op, sub) ? "SDMA " : "unknown SDMA ") + op_label(p[0]) + " at " + hex(va) +
               " (dword 0 = " + hex(p[0]) + ") is not implemented by the emulator");
  return 0;
}

bool SdmaEngine::service(Queue& q) {
  SdmaState& s = sdma_state(q);
  auto* ring = reinterpret_cast<const uint32_t*>(d_.translate(q.ring_va, q.ring_size, false));
  auto* rptr = reinterpret_cast<uint64_t*>(d_.translate(q.rptr_va, 8, true));
  if (!ring || !rptr) {
    fault(q, rptr ? "SDMA ring is not mapped to the GPU" : "SDMA read pointer is not mapped writable to the GPU",
          rptr ? q.ring_va : q.rptr_va, !rptr);
    return false;
  }
  const uint64_t wptr = doorbell(q);
  where_set_ = false;
  if (wptr % 4 || wptr - q.consumed > q.ring_size) {
    error(q, "write pointer " + hex(wptr) + " (doorbell, bytes) is not a dword within one ring (" +
                 std::to_string(q.ring_size) + " bytes) ahead of the read pointer " + hex(q.consumed));
    return false;
  }
  const uint32_t ndw = uint32_t(q.ring_size / 4);
  auto advance = [&](uint64_t dwords) {
    q.consumed += dwords * 4;
    __atomic_store_n(rptr, q.consumed, __ATOMIC_RELEASE);
  };
  uint64_t budget = kBytesPerTurn;
  bool progressed = false;
  for (unsigned n = 0; n < kPacketsPerTurn && budget > 0; ++n) {
    if (s.in_ib) {  // the INDIRECT packet retires with its IB
      const Step st = run_ib(q, s, &budget);
      if (st == Step::Yield) return true;
      if (st != Step::Done) return progressed;
      advance(kIndirectDwords);
      progressed = true;
      continue;
    }
    if (q.consumed == wptr) break;
    const uint32_t pos = uint32_t((q.consumed % q.ring_size) / 4);
    const uint32_t avail = uint32_t((wptr - q.consumed) / 4);
    const uint64_t va = q.ring_va + uint64_t(pos) * 4;
    uint32_t head[4];
    for (uint32_t i = 0; i < 4; ++i) head[i] = i < avail ? __atomic_load_n(&ring[(pos + i) % ndw], __ATOMIC_ACQUIRE) : 0;
    const uint32_t len = packet_dwords(q, head, std::min(avail, 4u), va);
    if (len == 0) return progressed;
    if (len == kWaitForMore) break;
    if (len > ndw) {
      error(q, op_label(head[0]) + " at " + hex(va) + " is " + std::to_string(len) + " dwords long, more than the ring's " +
                   std::to_string(ndw));
      return progressed;
    }
    if (len > avail) break;  // not all of it is published yet
    const uint32_t* pk = ring + pos;
    if (pos + len > ndw) {  // wraps around the ring's end
      s.wrapped.resize(len);
      const uint32_t first = ndw - pos;
      std::memcpy(s.wrapped.data(), ring + pos, first * 4);
      std::memcpy(s.wrapped.data() + first, ring, (len - first) * 4);
      pk = s.wrapped.data();
    }
    const Step st = packet(q, pk, len, va, false, &budget);
    if (st == Step::Yield) return true;
    if (st != Step::Done) return progressed;
    count(pk);
    advance(len);
    progressed = true;
  }
  return progressed;
}

Step SdmaEngine::run_ib(Queue& q, SdmaState& s, uint64_t* budget) {
  for (unsigned n = 0; n < kIbPacketsPerTurn && *budget > 0; ++n) {
    if (s.ib_pos >= s.ib_dwords) {
      s.in_ib = false;
      return Step::Done;
    }
    const uint64_t va = s.ib_va + uint64_t(s.ib_pos) * 4;
    const uint32_t left = s.ib_dwords - s.ib_pos;
    where_set_ = false;
    const uint8_t* h = mem(q, va, std::min(left, 4u) * 4, false, "indirect buffer packet");
    if (!h) return Step::Failed;
    const auto* p = reinterpret_cast<const uint32_t*>(h);
    const uint32_t len = packet_dwords(q, p, std::min(left, 4u), va);
    if (len == 0) return Step::Failed;
    if (len == kWaitForMore || len > left)
      return error(q, op_label(p[0]) + " at " + hex(va) + " runs past the end of its IB [" + hex(s.ib_va) + ", " +
                          std::to_string(s.ib_dwords) + " dwords)");
    const uint8_t* whole = mem(q, va, uint64_t(len) * 4, false, "indirect buffer packet");
    if (!whole) return Step::Failed;
    const Step st = packet(q, reinterpret_cast<const uint32_t*>(whole), len, va, true, budget);
    if (st != Step::Done) return st;
    count(reinterpret_cast<const uint32_t*>(whole));
    s.ib_pos += len;
  }
  return s.ib_pos >= s.ib_dwords ? (s.in_ib = false, Step::Done) : Step::Yield;
}

// The engines' statistics (emu/stats.h) of a packet that completed; read before the read
// pointer moves past it (the producer may reuse the ring space then).
void SdmaEngine::count(const uint32_t* p) const {
  auto& st = stats::counters();
  stats::bump(st.sdma_packets);
  if (op_of(p[0]) == kOpCopy) {
    stats::bump(st.sdma_copies);
    if (sub_op_of(p[0]) == kSubCopyLinear) {
      stats::bump(st.sdma_copy_bytes, decode_copy_linear(p, *family_).bytes);
    } else {
      const CopyRect r = decode_copy_rect(p);
      stats::bump(st.sdma_copy_bytes, (uint64_t(r.width) << r.element_log2) * r.height * r.depth);
    }
  } else if (op_of(p[0]) == kOpConstFill) {
    stats::bump(st.sdma_fills);
  }
}

Step SdmaEngine::packet(Queue& q, const uint32_t* p, uint32_t n, uint64_t va, bool in_ib, uint64_t* budget) {
  where_set_ = true;  // messages name the packet (built only when one is needed)
  where_dw0_ = p[0];
  where_va_ = va;
  switch (op_of(p[0])) {
    case kOpNop: return Step::Done;
    case kOpCopy:
      return sub_op_of(p[0]) == kSubCopyLinear ? copy_linear(q, p, budget) : copy_rect(q, p, budget);
    case kOpWrite: return write_untiled(q, p, n);
    case kOpIndirect: return indirect(q, p, in_ib, budget);
    case kOpFence: {
      const uint64_t addr = (uint64_t(p[2]) << 32 | p[1]) & ~3ull;
      uint8_t* h = mem(q, addr, 4, true, "fence address");
      if (!h) return Step::Failed;
      tsan_release_gpu(addr);  // a waiter may read it through the process's mapping (emu/tsan_sync.h)
      __atomic_store_n(reinterpret_cast<uint32_t*>(h), p[3], __ATOMIC_RELEASE);
      return Step::Done;
    }
    case kOpTrap:  // the SDMA trap interrupt names its event in 28 bits (kfd_int_process_v9.c)
      std::atomic_thread_fence(std::memory_order_seq_cst);
      p_.raise_signal_event(trap_context(p), 28);
      return Step::Done;
    case kOpPollRegMem: return poll_regmem(q, p);
    case kOpAtomic: return atomic(q, p);
    case kOpConstFill: return const_fill(q, p, budget);
    case kOpTimestamp: return timestamp(q, p);
    default: return error(q, "dword 0 = " + hex(p[0]) + " is not implemented by the emulator");
  }
}

uint64_t SdmaEngine::footprint_with(uint64_t src, uint64_t dst, uint64_t bytes) const {
  std::array<Touched, kRecentRanges + 2> r;
  size_t n = 0;
  for (const Touched& t : recent_)
    if (t.end > t.begin) r[n++] = t;
  r[n++] = {src, src + bytes};
  r[n++] = {dst, dst + bytes};
  std::sort(r.begin(), r.begin() + n, [](const Touched& a, const Touched& b) { return a.begin < b.begin; });
  uint64_t total = 0, begin = r[0].begin, end = r[0].end;
  for (size_t i = 1; i < n; ++i) {
    if (r[i].begin > end) {
      total += end - begin;
      begin = r[i].begin;
    }
    end = std::max(end, r[i].end);
  }
  return total + (end - begin);
}

void SdmaEngine::remember(uint64_t src, uint64_t dst, uint64_t bytes) {
  recent_[recent_next_] = {src, src + bytes};
  recent_[recent_next_ + 1] = {dst, dst + bytes};
  recent_next_ = (recent_next_ + 2) % kRecentRanges;
}

Step SdmaEngine::copy_linear(Queue& q, const uint32_t* p, uint64_t* budget) {
  const CopyLinear c = decode_copy_linear(p, *family_);
  if (p[2]) return error(q, "DST_SWAP/SRC_SWAP (dword 2 = " + hex(p[2]) + "): byte swapping is not implemented by the emulator");
  std::vector<HostSpan>& src = src_spans_;
  std::vector<HostSpan>& dst = dst_spans_;
  if (!range(q, c.src, c.bytes, false, "source", &src) || !range(q, c.dst, c.bytes, true, "destination", &dst))
    return Step::Failed;
  const bool stream = c.bytes >= stream_min_packet() && footprint_with(c.src, c.dst, c.bytes) >= stream_footprint();
  remember(c.src, c.dst, c.bytes);
  if (stream && stream_spans(dst, src)) stats::bump(stats::counters().sdma_streamed_bytes, c.bytes);
  else dma_copy(dst, src);
  charge(budget, c.bytes);
  return Step::Done;
}

Step SdmaEngine::copy_rect(Queue& q, const uint32_t* p, uint64_t* budget) {
  const CopyRect r = decode_copy_rect(p);
  if (r.element_log2 > 4) return error(q, "ELEMENT " + std::to_string(r.element_log2) + " is larger than 16 bytes");
  if (r.src % 4 || r.dst % 4) return error(q, "base addresses must be dword aligned (" + hex(r.src) + ", " + hex(r.dst) + ")");
  const uint64_t e = 1ull << r.element_log2, row = uint64_t(r.width) * e;
  std::vector<HostSpan>& src = src_spans_;
  std::vector<HostSpan>& dst = dst_spans_;
  for (uint32_t z = 0; z < r.depth; ++z) {
    for (uint32_t y = 0; y < r.height; ++y) {
      const uint64_t so = ((uint64_t(r.src_z) + z) * r.src_slice + (uint64_t(r.src_y) + y) * r.src_pitch + r.src_x) * e;
      const uint64_t dso = ((uint64_t(r.dst_z) + z) * r.dst_slice + (uint64_t(r.dst_y) + y) * r.dst_pitch + r.dst_x) * e;
      if (!range(q, r.src + so, row, false, "source row", &src) || !range(q, r.dst + dso, row, true, "destination row", &dst))
        return Step::Failed;
      dma_copy(dst, src);
    }
  }
  charge(budget, row * r.height * r.depth);
  return Step::Done;
}

Step SdmaEngine::write_untiled(Queue& q, const uint32_t* p, uint32_t n) {
  const uint64_t dst = (uint64_t(p[2]) << 32 | p[1]) & ~3ull;  // dword aligned
  const uint32_t count = n - 4;
  std::vector<HostSpan> spans;
  if (!range(q, dst, uint64_t(count) * 4, true, "destination", &spans)) return Step::Failed;
  size_t piece = 0;
  uint64_t off = 0;
  for (uint32_t i = 0; i < count; ++i) {
    tsan_release_gpu(dst + uint64_t(i) * 4);
    __atomic_store_n(reinterpret_cast<uint32_t*>(spans[piece].host + off), p[4 + i], __ATOMIC_RELEASE);
    off += 4;
    if (off == spans[piece].len) { ++piece; off = 0; }
  }
  return Step::Done;
}

Step SdmaEngine::poll_regmem(Queue& q, const uint32_t* p) {
  const PollRegMem r = decode_poll_regmem(p);
  if (!r.mem_poll) {
    uint32_t hdp[kPollRegMemDwords];
    write_hdp_flush(hdp);
    if (std::memcmp(hdp, p, sizeof hdp) == 0) return Step::Done;  // ROCr's HDP flush: passes
    return error(q, "register polls are not implemented by the emulator (only ROCr's HDP flush form is)");
  }
  if (r.function > pm4::kCompareGreater) return error(q, "FUNC 7 is reserved");
  const uint8_t* h = mem(q, r.address & ~3ull, 4, false, "poll address");
  if (!h) return Step::Failed;
  const uint32_t v = __atomic_load_n(reinterpret_cast<const uint32_t*>(h), __ATOMIC_ACQUIRE);
  if (pm4::compare_holds(r.function, v & r.mask, r.value)) {
    tsan_acquire_gpu(r.address & ~3ull);  // what the process released there (emu/tsan_sync.h)
    q.poll_retries = 0;
    return Step::Done;
  }
  // Not yet: the engine serves its other queues and polls again later.
  if (r.retry != kRetryForever && ++q.poll_retries > r.retry)
    return error(q, "gave up after " + std::to_string(r.retry) + " retries (value " + hex(v) + ", mask " + hex(r.mask) +
                        ", reference " + hex(r.value) + ")");
  return Step::Blocked;
}

Step SdmaEngine::atomic(Queue& q, const uint32_t* p) {
  const Atomic a = decode_atomic(p);
  const char* name = pm4::atomic_op_name(a.op);
  if (!name) return error(q, "ATOMIC_OP " + std::to_string(a.op) + " is not a TC atomic the emulator implements");
  const unsigned bytes = a.op >= pm4::kAtomicSwapRtn64 ? 8 : 4;
  const bool cmpswap = a.op == pm4::kAtomicCmpSwapRtn32 || a.op == pm4::kAtomicCmpSwapRtn64;
  if (a.loop && !cmpswap) return error(q, std::string("LOOP with ") + name + ": only CMPSWAP compares");
  if (a.address % bytes) return error(q, std::string(name) + " at " + hex(a.address) + ": not naturally aligned");
  uint8_t* h = mem(q, a.address, bytes, true, "atomic address");
  if (!h) return Step::Failed;
  tsan_release_gpu(a.address);
  const bool swapped = tc_atomic(h, a.op, a.src, a.cmp);
  tsan_acquire_gpu(a.address);
  return (!swapped && a.loop) ? Step::Blocked : Step::Done;  // a loop retries without holding the engine
}

Step SdmaEngine::const_fill(Queue& q, const uint32_t* p, uint64_t* budget) {
  const ConstFill c = decode_const_fill(p, *family_);
  if (c.fill_size > 2) return error(q, "FILLSIZE " + std::to_string(c.fill_size) + " is not implemented by the emulator");
  if ((p[0] >> 16) & 3) return error(q, "SW (byte swap) is not implemented by the emulator");
  const unsigned unit = 1u << c.fill_size;
  if (c.dst % unit || c.bytes % unit)
    return error(q, "a " + std::to_string(unit) + "-byte fill needs an aligned destination and size (" + hex(c.dst) +
                        ", " + std::to_string(c.bytes) + " bytes)");
  std::vector<HostSpan>& dst = dst_spans_;
  if (!range(q, c.dst, c.bytes, true, "destination", &dst)) return Step::Failed;
  dma_fill(dst, c.data, unit);
  charge(budget, c.bytes);
  return Step::Done;
}

// The engine's local timestamp counts the GPU clock the CP uses, from where TIMESTAMP_SET put it.
Step SdmaEngine::timestamp(Queue& q, const uint32_t* p) {
  const uint64_t v = uint64_t(p[2]) << 32 | p[1];
  const uint64_t now = p_.gpu_clock();
  switch (sub_op_of(p[0])) {
    case kSubTimestampSet: q.timestamp_offset = int64_t(v - now); return Step::Done;
    case kSubTimestampGet:
    case kSubTimestampGetGlobal: {
      uint8_t* h = mem(q, v & ~7ull, 8, true, "timestamp address");
      if (!h) return Step::Failed;
      const uint64_t t = sub_op_of(p[0]) == kSubTimestampGet ? now + uint64_t(q.timestamp_offset) : now;
      __atomic_store_n(reinterpret_cast<uint64_t*>(h), t, __ATOMIC_RELEASE);
      return Step::Done;
    }
    default: return error(q, "unknown TIMESTAMP sub-op " + std::to_string(sub_op_of(p[0])));
  }
}

Step SdmaEngine::indirect(Queue& q, const uint32_t* p, bool in_ib, uint64_t* budget) {
  const Indirect ib = decode_indirect(p);
  if (in_ib) return error(q, "an IB calling another IB: the SDMA engine runs one level of IB");
  if (ib.address % 32) return error(q, "IB base " + hex(ib.address) + " is not 32-byte aligned");
  SdmaState& s = sdma_state(q);
  s.in_ib = true;
  s.ib_va = ib.address;
  s.ib_dwords = ib.dwords;
  s.ib_pos = 0;
  const Step st = run_ib(q, s, budget);
  return st == Step::Done ? Step::Done : (st == Step::Failed ? st : Step::Yield);
}

}  // namespace emu
