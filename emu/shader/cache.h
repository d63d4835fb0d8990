// SPDX-License-Identifier: MIT
// The memory model of one emulated GPU: its L2 (write-back for non-coherent memory, stale copies until invalidated) and its CUs' write-through vector L1s.
#pragma once

#include <sched.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/fast_mutex.h"

namespace emu::shader {

inline void cpu_relax() {  // in spin-wait loops
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// How the GPU's caches treat a page: the PTE's MTYPE as amdgpu programs it per allocation kind
// (Linux gmc_v9_0.c gmc_v9_0_get_coherence_flags; emu/memory_model.cpp has the rules). What each means,
// per LLVM AMDGPUUsage "Memory Model GFX90A":
//   RW  local coarse-grained VRAM: the L2 keeps stores (write-back, dirty until buffer_wbl2 or a
//       system-scope release); loads are never stale, local memory is probed on remote writes.
//   NC  remote coarse-grained memory (system memory, a peer's VRAM): write-back like RW, and the
//       L2's copy of a line read once stays, stale, until an invalidate (buffer_invl2, a
//       system-scope acquire) drops it.
//   CC  local fine-grained VRAM: written through to memory, never stale in the L2.
//   UC  remote fine-grained or uncached memory: bypasses the L2.
// The vector L1 of a CU caches all four: a line another CU writes stays stale in this CU's L1
// until buffer_wbinvl1(_vol) (an agent-scope acquire) or the end of the dispatch; glc loads and
// atomics bypass it. Fine-grained (UC/CC) lines are copied into the L1 when first read, so a
// host write after that is not seen either; for RW/NC lines the L1 copy is taken when another
// CU of this GPU writes the line (the host, SDMA or another GPU writing them is seen by the next
// load that misses the L2's stale copy).
// GFX942 differs (AMDGPUUsage "Memory Model GFX942"; gmc_v9_0.c for GC 9.4.3): on a dGPU system
// memory is UC whatever its coherence flags (only a peer's VRAM is NC) and local VRAM is RW even
// when fine-grained, UC with EXT_COHERENT or UNCACHED; instructions carry sc0/sc1/nt where gfx90a
// has glc/slc: loads with sc0 or sc1 bypass the L1, stores and atomics with sc1 are written through
// to memory, buffer_wbl2 sc1 writes back and buffer_inv sc0 sc1 invalidates at system scope (without
// sc1 the agent's single L2 needs no action). gfx906 and older map coherent and uncached memory to
// UC and everything else, local VRAM included, to NC; they have no L2 cache instructions, so only
// the command processor's fences act on their L2.
enum class Mtype : uint8_t { UC, CC, RW, NC };
const char* mtype_name(Mtype m);

// The model's cache line: 64 bytes, so a line's dirty bytes fit one 64-bit mask.
inline constexpr unsigned kLineShift = 6;
inline constexpr uint64_t kLineBytes = uint64_t{1} << kLineShift;
inline constexpr unsigned kMaxCus = 64;  // L1s that can be in use at once (one per running worker)

struct CacheConfig {
  uint64_t l2_lines = 0;  // L2 capacity in lines (0: unbounded, lines leave only by a fence)
  uint32_t l1_lines = 0;  // each vector L1's capacity in lines (0: unbounded)
  bool trace = false;     // print write-backs, invalidates and fences (KFDEMU_TRACE_FENCES)
  bool report_stale = false;  // record loads that return stale data (KFDEMU_REPORT_STALE)
  std::string label = "GPU";  // names the GPU in trace lines
};

// Per-line state of one mapping in one GPU's caches (lazily committed memory, zero = clean).
struct LineState {
  std::atomic<uint64_t> dirty{0};   // bytes the L2 holds newer than memory
  std::atomic<uint64_t> copied{0};  // L1s (bit per CU slot) that hold a private copy of the line
  std::atomic<uint32_t> filled{0};  // NC: L2 epoch in which the clean bytes came from memory
  uint32_t pad = 0;
};
static_assert(sizeof(LineState) == 24);

// Per-page (4 KiB, 64 lines) summary the fast paths check instead of each line.
inline constexpr unsigned kPageShift = 12;
inline constexpr unsigned kLinesPerPage = 1u << (kPageShift - kLineShift);
struct PageState {
  std::atomic<uint64_t> readers{0};      // L1s that may hold lines of the page
  std::atomic<uint64_t> copies{0};       // L1s that hold a private copy of one of its lines
  std::atomic<uint64_t> dirty_lines{0};  // its lines whose LineState has dirty bytes (bit per line)
  // Its lines whose every byte is dirty (bit per line; a line's dirty bytes are its LineState's
  // plus all of them when its bit is here): a wave's store of whole lines marks them at once,
  // and a write-back copies them without looking at their LineStates.
  std::atomic<uint64_t> full{0};
  std::atomic<uint32_t> listed{0};       // on the L2's dirty list
  uint32_t pad = 0;
};
static_assert(sizeof(PageState) == 40);

// One GPU mapping as this GPU's caches see it: the memory (what the host and other engines
// see), the L2's private copy of its lines (RW/NC: the newest data of dirty bytes, and of every
// byte of an NC line filled in the current epoch), and the line and page states.
class CachedRange {
 public:
  CachedRange(uint64_t va, uint64_t size, uint8_t* memory, Mtype mtype);
  ~CachedRange();
  CachedRange(const CachedRange&) = delete;
  CachedRange& operator=(const CachedRange&) = delete;
  bool ok() const { return lines && pages && (shadow != nullptr || !cached()); }
  bool cached() const { return mtype == Mtype::RW || mtype == Mtype::NC; }  // the L2 keeps its lines
  uint64_t nlines() const { return (size + kLineBytes - 1) >> kLineShift; }
  PageState& page_of(uint64_t line) { return pages[line / kLinesPerPage]; }
  // The line's dirty bytes (bit i: byte i).
  uint64_t dirty(uint64_t line) const {
    const uint64_t d = lines[line].dirty.load(std::memory_order_acquire);
    const uint64_t f = pages[line / kLinesPerPage].full.load(std::memory_order_acquire);
    return ((f >> (line % kLinesPerPage)) & 1) ? ~uint64_t{0} : d;
  }

  const uint64_t va_begin, size;
  uint8_t* const memory;
  const Mtype mtype;
  uint8_t* shadow = nullptr;  // RW/NC: the L2's copy, indexed like memory
  LineState* lines = nullptr;
  PageState* pages = nullptr;
  bool removed = false;  // GpuCache::remove ran (under the cache's writers lock)
};

// One CU's vector L1, in use by one worker for one dispatch. It holds lines of the pages whose
// readers bit is its (a store by another CU to such a page's line gives it a private copy of
// that line: as if it had read it; a program that reads without the acquire that empties the L1
// races with that store, so the older value is one the memory model allows).
struct L1 {
  unsigned index = 0;
  uint64_t bit = 0;
  std::vector<std::pair<CachedRange*, uint64_t>> resident;  // pages whose readers bit is ours
  size_t head = 0;                                           // capacity: the oldest still resident
  base::FastMutex mu;  // private copies: other CUs' stores make them
  struct Key {
    CachedRange* r;
    uint64_t line;
    bool operator==(const Key& o) const { return r == o.r && line == o.line; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(reinterpret_cast<uintptr_t>(k.r) * 0x9E3779B97F4A7C15ull ^ k.line);
    }
  };
  std::unordered_map<Key, std::array<uint8_t, kLineBytes>, KeyHash> copies;
  bool in_use = false;
};

// Counts of what a fence did.
struct CacheAction {
  uint64_t lines = 0;
  uint64_t bytes = 0;
};

// The L2 and the L1s of one GPU. Thread-safe: CUs (worker threads) and the command processor
// use it at once. Deterministic: data is stale until the operation that must refresh it; with a
// capacity, lines leave in the order they arrived (deterministic with one worker thread).
class GpuCache {
 public:
  explicit GpuCache(CacheConfig c);
  ~GpuCache();
  GpuCache(const GpuCache&) = delete;
  GpuCache& operator=(const GpuCache&) = delete;
  const CacheConfig& config() const { return cfg_; }

  // Mappings: add when the GPU maps memory (nullptr when the model's memory cannot be reserved:
  // that mapping is then uncached), remove when it unmaps it (its dirty lines are dropped, as a
  // GPU's are when the page goes away). A removed range stays valid until no dispatch runs.
  CachedRange* add(uint64_t va, uint64_t size, uint8_t* memory, Mtype m);
  void remove(CachedRange* r);
  CachedRange* find(uint64_t va);  // the range containing va, for engines without a Range

  // The L2 as an engine inside the GPU sees it (the CP, and the CUs' slow paths). `allocate`:
  // an NC line read is kept (filled) for later reads; the CP's reads do not allocate.
  void read(CachedRange& r, uint64_t va, void* dst, uint64_t n, bool allocate);
  void write(CachedRange& r, uint64_t va, const void* src, uint64_t n);
  // Runs f(p) on the L2's copy of the `bytes` at va (RW/NC: under the line's lock, then marks
  // them dirty) or on memory (UC/CC), for atomics.
  template <class F>
  void update(CachedRange& r, uint64_t va, unsigned bytes, F&& f);
  // The same for several accesses inside one line (`mask`: their bytes, bit per byte of the
  // line): f(line) once, with the line's first byte, under one lock.
  template <class F>
  void update_line(CachedRange& r, uint64_t line, uint64_t mask, F&& f);

  // Line primitives for the CUs' fast paths.
  uint32_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  uint32_t fill(CachedRange& r, uint64_t line);  // NC: the line's copy complete; returns its epoch
  // A store to the L2's copy (RW/NC) writes its bytes and marks them dirty under the locks of the
  // lines' pages, so that whatever else takes a line's lock sees all of the store or none of it:
  // an atomic bringing the line's clean bytes from memory (it would undo bytes written but not
  // yet marked), a fill, a write-back, a load of a word partly dirty (half of it from memory).
  // PageLocks holds the locks of consecutive pages (at most kMaxLockedPages), taken in one order
  // (every other path holds one lock at a time, so no two threads wait for each other).
  static constexpr unsigned kMaxLockedPages = 3;
  struct PageLocks {
    unsigned stripe[kMaxLockedPages];
    unsigned n = 0;
  };
  void lock_pages(const CachedRange& r, uint64_t first_page, uint64_t last_page, PageLocks& held);
  void unlock_pages(const PageLocks& held);

  // Dirty bytes of lines (`mask` bit i: byte i), marked by a store that wrote them, holding the
  // lines' page locks (lock_pages) as a write-back does, so a line that already has them needs no
  // atomic read-modify-write.
  struct LineMask { uint64_t line; uint64_t mask; };
  void mark_lines(CachedRange& r, const LineMask* lm, unsigned n);
  // The same for n consecutive lines from `line`: the first gets `first`, the last (n > 1)
  // `last`, the ones between `mid` (a strided store's pattern).
  void mark_run(CachedRange& r, uint64_t line, uint64_t n, uint64_t first, uint64_t mid, uint64_t last);
  void mark_dirty(CachedRange& r, uint64_t line, uint64_t mask) {
    const LineMask m{line, mask};
    mark_lines(r, &m, 1);
  }
  // Every byte of lines [line, line + n) dirty (RW/NC ranges; a page's lines at once).
  void mark_full(CachedRange& r, uint64_t line, uint64_t n);
  // With a capacity: evicts the oldest lines beyond it (call without holding a line's lock).
  void settle();

  // Writes one line's dirty bytes back to memory (a write-through store); their count.
  uint64_t clean_line(CachedRange& r, uint64_t line);

  // Fences. Write-back: dirty bytes of [va, va+size) go to memory (nc_only: NC lines only).
  // Invalidate: NC lines' clean copies are dropped (RW/CC lines are never stale in the L2).
  CacheAction writeback(uint64_t va = 0, uint64_t size = ~uint64_t{0}, bool nc_only = false);
  void invalidate(uint64_t va = 0, uint64_t size = ~uint64_t{0});

  // L1s: a worker takes one for a dispatch (nullptr when kMaxCus are in use: then its loads
  // bypass the L1) and gives it back at its end, which empties it.
  L1* acquire_l1();
  void release_l1(L1* l1);
  // A load through L1 `l1` of lines in `page`: true when the L1 may hold private copies there
  // (the caller then asks l1_copy for each line).
  bool l1_page(L1& l1, CachedRange& r, uint64_t page) {
    PageState& p = r.pages[page];
    if (!(p.readers.load(std::memory_order_relaxed) & l1.bit)) l1_enter(l1, r, page);
    return (p.copies.load(std::memory_order_acquire) & l1.bit) != 0;
  }
  // Whether L1 `l1` holds a private copy of `line` (fine-grained lines are copied when first read).
  bool l1_copy(L1& l1, CachedRange& r, uint64_t line);
  // Before a store (or atomic) by L1 `l1` (nullptr: a CP write) to `line`: other L1s that hold
  // its page get a private copy of what the line holds now (their next loads see that); true
  // when `l1` holds a copy itself (the caller updates it: write-through).
  bool l1_store(L1* l1, CachedRange& r, uint64_t line) {
    PageState& p = r.page_of(line);
    const uint64_t mine = l1 ? l1->bit : 0;
    const uint64_t others = p.readers.load(std::memory_order_acquire) & ~mine;
    if (others && (others & ~r.lines[line].copied.load(std::memory_order_acquire))) give_copies(r, line, others);
    return mine && (p.copies.load(std::memory_order_acquire) & mine) &&
           (r.lines[line].copied.load(std::memory_order_acquire) & mine);
  }
  void l1_copy_read(L1& l1, CachedRange& r, uint64_t line, unsigned off, void* dst, unsigned n);
  void l1_copy_write(L1& l1, CachedRange& r, uint64_t line, unsigned off, const void* src, unsigned n);
  void l1_invalidate(L1& l1);

  // KFDEMU_REPORT_STALE: after a dispatch, the lines dirty now that no earlier kernel is known to
  // have written are the kernel's (lines written back since lose their writer), so a host access
  // to a line the L2 still holds can name the kernel that wrote it.
  void note_writer(const std::string& kernel);
  struct DirtyLine {
    CachedRange* range;
    uint64_t line;
    std::shared_ptr<const std::string> writer;  // null when unknown (the CP wrote it)
  };
  // The lines dirty now (at most `max`), with their writers.
  std::vector<DirtyLine> dirty_now(size_t max);

  // Dispatch bracket: removed ranges are freed once none runs.
  void dispatch_begin();
  void dispatch_end();

  void trace(const char* fmt, ...) const __attribute__((format(printf, 2, 3)));

 private:
  // Line locks are per page (a write-back copies a page's dirty lines under one): a stripe of
  // spin locks hashed by range and page.
  static constexpr unsigned kStripes = 4096;
  static unsigned stripe_of(const CachedRange& r, uint64_t page) {
    const uint64_t h = (reinterpret_cast<uintptr_t>(&r) >> 4) * 0x9E3779B97F4A7C15ull + page * 0xC2B2AE3D27D4EB4Full;
    return static_cast<unsigned>((h >> 40) % kStripes);
  }
  // Held for a few hundred nanoseconds (a store's bytes, a line's write-back); a holder the host
  // descheduled (more threads than CPUs: tests side by side) is waited for with yields, not a
  // whole time slice of spinning.
  void lock_stripe(unsigned i) {
    std::atomic_flag& f = stripes_[i];
    for (unsigned spins = 0; f.test_and_set(std::memory_order_acquire);)
      while (f.test(std::memory_order_relaxed))
        if (++spins % 256 == 0) sched_yield();
        else cpu_relax();
  }
  void lock(const CachedRange& r, uint64_t line) { lock_stripe(stripe_of(r, line / kLinesPerPage)); }
  void unlock(const CachedRange& r, uint64_t line) {
    stripes_[stripe_of(r, line / kLinesPerPage)].clear(std::memory_order_release);
  }
  void copy_clean(CachedRange& r, uint64_t line);      // memory -> copy, bytes not dirty
  // Under the line's page lock: adds `mask` to its dirty bytes; true when it had none and now has.
  static bool mark_locked(CachedRange& r, uint64_t line, uint64_t mask) {
    std::atomic<uint64_t>& d = r.lines[line].dirty;
    const uint64_t old = d.load(std::memory_order_relaxed);
    if ((old | mask) != old) d.store(old | mask, std::memory_order_release);
    return old == 0 && mask != 0;
  }
  // Under the line's page lock: clears its dirty bytes, returns them (every writer of them holds
  // that lock, so a load and a store do what an atomic exchange would).
  static uint64_t take_dirty(CachedRange& r, uint64_t line) {
    std::atomic<uint64_t>& d = r.lines[line].dirty;
    const uint64_t x = d.load(std::memory_order_relaxed);
    if (x) d.store(0, std::memory_order_relaxed);
    return x;
  }
  // The page's lines in `fresh` became dirty: its dirty-line bits, the dirty list (page lock held).
  void page_dirtied(CachedRange& r, uint64_t page, uint64_t fresh);
  void resident_lines(CachedRange& r, uint64_t page, uint64_t fresh);  // capacity bookkeeping
  uint64_t writeback_line(CachedRange& r, uint64_t line);  // caller holds the line's lock
  // Under the page's lock: writes back its lines in `partial` (LineState bytes) and `full`
  // (whole lines), then clears them there and in its PageState.
  CacheAction writeback_page(CachedRange& r, uint64_t page, uint64_t partial, uint64_t full);
  void resident_l2(CachedRange& r, uint64_t line);     // capacity bookkeeping
  void list_page(CachedRange& r, uint64_t page);        // on the dirty list
  void l1_enter(L1& l1, CachedRange& r, uint64_t page);  // the L1 holds lines of the page from now
  void l1_forget(L1& l1, CachedRange& r, uint64_t page);  // caller holds l1.mu
  void give_copies(CachedRange& r, uint64_t line, uint64_t l1s);
  void view_line(CachedRange& r, uint64_t line, uint8_t* out);  // the L2's view of a whole line
  // Calls f(range, line) for each line dirty now (under dirty_mu_: listed ranges are alive).
  template <class F>
  void for_each_dirty(F&& f);

  CacheConfig cfg_;
  std::atomic<uint32_t> epoch_{1};
  std::unique_ptr<std::atomic_flag[]> stripes_;
  std::shared_mutex ranges_mu_;
  std::vector<std::shared_ptr<CachedRange>> ranges_;  // sorted by va
  std::vector<std::shared_ptr<CachedRange>> retired_;
  std::atomic<bool> retired_any_{false};  // retired_ is not empty (set and cleared under ranges_mu_)
  std::atomic<int> active_dispatches_{0};
  base::FastMutex writeback_mu_;  // one write-back at a time: each returns once its lines are in memory
  base::FastMutex dirty_mu_;
  std::vector<std::pair<CachedRange*, uint64_t>> dirty_pages_;
  base::FastMutex resident_mu_;  // L2 capacity: lines in arrival order
  std::deque<std::pair<CachedRange*, uint64_t>> resident_;
  base::FastMutex l1_mu_;
  L1 l1s_[kMaxCus];
  std::mutex writers_mu_;  // KFDEMU_REPORT_STALE: the kernel that wrote each dirty line
  std::map<std::pair<CachedRange*, uint64_t>, std::shared_ptr<const std::string>> writers_;
};

// The bytes the L2 does not hold yet of an RW line come from memory (guest bytes, guest.h).
__attribute__((no_sanitize("thread"))) inline void fill_clean_bytes(uint8_t* shadow, const uint8_t* memory, unsigned n,
                                                                    uint64_t dirty) {
  for (unsigned i = 0; i < n; ++i)
    if (!((dirty >> i) & 1)) shadow[i] = memory[i];
}

template <class F>
void GpuCache::update(CachedRange& r, uint64_t va, unsigned bytes, F&& f) {
  const uint64_t off = va - r.va_begin;
  const unsigned in = static_cast<unsigned>(off & (kLineBytes - 1));
  const uint64_t mask = bytes >= 64 ? ~uint64_t{0} : ((uint64_t{1} << bytes) - 1) << in;
  update_line(r, off >> kLineShift, mask, [&](uint8_t* line) { f(line + in); });
}

template <class F>
void GpuCache::update_line(CachedRange& r, uint64_t line, uint64_t mask, F&& f) {
  const uint64_t off = line << kLineShift;
  if (!r.cached()) {
    f(r.memory + off);
    return;
  }
  if (r.mtype == Mtype::NC) fill(r, line);  // an NC line's copy is complete (maybe stale)
  lock(r, line);
  if (r.mtype == Mtype::RW) {  // the masked bytes not dirty yet come from memory
    const unsigned n = static_cast<unsigned>(std::min<uint64_t>(kLineBytes, r.size - off));
    fill_clean_bytes(r.shadow + off, r.memory + off, n, r.dirty(line) | ~mask);
  }
  f(r.shadow + off);
  const uint64_t fresh = mark_locked(r, line, mask) ? uint64_t{1} << (line % kLinesPerPage) : 0;
  if (fresh) page_dirtied(r, line / kLinesPerPage, fresh);
  unlock(r, line);
  if (fresh && cfg_.l2_lines) resident_lines(r, line / kLinesPerPage, fresh);
  settle();
}

}  // namespace emu::shader
