// SPDX-License-Identifier: MIT
// Host accesses to lines still dirty in a GPU's L2 (KFDEMU_REPORT_STALE): the program's pages are watched with mprotect and a SIGSEGV handler reports the access.
#include "emu/host_watch.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "emu/kfd_process.h"
#include "emu/shader/cache.h"
#include "emu/shader/guest.h"

namespace emu {

namespace {

constexpr uintptr_t kPage = 4096;
constexpr unsigned kWatches = 1024;  // pages watched at once (further dirty lines go unwatched)

enum State : int { kFree, kBusy, kArmed, kReleased };

// One watched page of the program. `page` is written only in kBusy (by the one thread that moved
// the entry there); the handler reads it in any state (a stale value only makes it look on).
struct Watch {
  std::atomic<int> state{kFree};
  std::atomic<uintptr_t> page{0};
  int prot = 0;                         // the program's protection of it
  shader::CachedRange* range = nullptr;  // the GPU mapping the page's lines belong to
  uintptr_t cpu_of_range = 0;           // the program's address of range->va_begin
  uint64_t gpu_id = 0;                  // the GPU whose L2 holds the page's dirty lines
  uint64_t signaller = 0, where = 0, signal = 0;  // the completion after which it was watched
  char what[40] = {};
  char writer[200] = {};                // the kernel that wrote the first dirty line seen
};

Watch g_watch[kWatches];
std::atomic<bool> g_installed{false};
struct sigaction g_previous {};

struct View {
  uintptr_t cpu;
  uint64_t len;
  int prot;
};
std::mutex g_mu;                      // views, arming and disarming (never taken by the handler)
std::map<uint64_t, View> g_views;     // by GPU address
std::atomic<bool> g_any_views{false};
std::vector<DeviceState*> g_gpus;     // GPUs with caches

// ---- the handler's own formatting (async-signal-safe: no allocation, no stdio) ----------------

struct Line {
  char buf[1024];
  size_t n = 0;
  void add(const char* s) {
    while (*s && n + 1 < sizeof buf) buf[n++] = *s++;
  }
  void hex(uint64_t v) {
    char t[19] = "0x";
    char d[16];
    int k = 0;
    do {
      d[k++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    int j = 2;
    while (k) t[j++] = d[--k];
    t[j] = 0;
    add(t);
  }
};

void chain(int sig, siginfo_t* si, void* uc) {
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, si, uc);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  } else {  // the default action: taken when the access runs again
    sigaction(SIGSEGV, &g_previous, nullptr);
  }
}

bool fault_is_write(void* uc) {
#if defined(__x86_64__)
  return (static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;  // page-fault error code W/R
#else
  (void)uc;
  return false;
#endif
}

void report(const Watch& w, uintptr_t addr, bool write) {
  using shader::kLineBytes;
  const uint64_t line = (addr - w.cpu_of_range) / kLineBytes;
  if (line >= w.range->nlines() || w.range->dirty(line) == 0) return;  // written back since, or clean
  Line m;
  m.add("kfdemu: GPU ");
  m.hex(w.gpu_id);
  m.add(write ? ": the host wrote " : ": the host read ");
  m.hex(addr);
  m.add(w.range->mtype == shader::Mtype::NC ? " (non-coherent memory)" : " (coarse-grained device memory)");
  m.add(" in a line ");
  m.add(w.writer[0] ? "kernel " : "");
  m.add(w.writer[0] ? w.writer : "the command processor");
  m.add(" wrote and the GPU's L2 still holds: ");
  m.add(write ? "the L2's write-back will overwrite the host's bytes where the GPU wrote them"
              : "the host reads stale data");
  m.add(". No release at system scope on this GPU has written it back since the kernel ran (the host "
        "may have woken on completion signal ");
  m.hex(w.signal);
  m.add(" of ");
  m.add(w.what);
  m.add(" ");
  m.hex(w.where);
  m.add(" on GPU ");
  m.hex(w.signaller);
  m.add("); the host needs a system-scope release first (hipStreamSynchronize, hipDeviceSynchronize, "
        "an event recorded with hipEventReleaseToSystem, a packet release fence at system scope)\n");
  ssize_t r = ::write(2, m.buf, m.n);
  (void)r;
}

void on_segv(int sig, siginfo_t* si, void* uc) {
  const int saved_errno = errno;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(si->si_addr);
  const uintptr_t page = addr & ~(kPage - 1);
  const bool write = fault_is_write(uc);
  for (Watch& w : g_watch) {
    if (w.page.load(std::memory_order_acquire) != page) continue;
    int st = w.state.load(std::memory_order_acquire);
    if (st == kArmed && w.state.compare_exchange_strong(st, kBusy, std::memory_order_acq_rel)) {
      if (w.page.load(std::memory_order_relaxed) != page) {  // reused meanwhile: not ours
        w.state.store(kArmed, std::memory_order_release);
        continue;
      }
      // The emulated GPU itself (a write-back into a userptr page, an engine's or a kernel's
      // access): not the host's; the page is no longer watched.
      if (!shader::t_emulator_thread) report(w, addr, write);
      syscall(SYS_mprotect, page, kPage, w.prot);
      w.state.store(kReleased, std::memory_order_release);
      errno = saved_errno;
      return;  // the access runs again, on memory
    }
    if (st == kBusy) {  // another thread reports it or the emulator disarms it: then run again
      while (w.state.load(std::memory_order_acquire) == kBusy) {
      }
      errno = saved_errno;
      return;
    }
    // Released a moment ago (a fault of another thread on the same page): give the page its
    // protection again, unless that is what this fault breaks (a write to a read-only page).
    if (st == kReleased && !(write && !(w.prot & PROT_WRITE)) && (w.prot & PROT_READ) &&
        syscall(SYS_mprotect, page, kPage, w.prot) == 0) {
      errno = saved_errno;
      return;
    }
  }
  errno = saved_errno;
  chain(sig, si, uc);
}

void install_locked() {
  if (g_installed.load()) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &g_previous) == 0) g_installed.store(true);
}

// Ends the watch of entry w (its page gets the program's protection back, unless it is gone).
void disarm(Watch& w, bool unmapped) {
  for (;;) {
    int st = w.state.load(std::memory_order_acquire);
    if (st == kFree) return;
    if (st == kBusy) continue;  // the handler is reporting it
    if (w.state.compare_exchange_weak(st, kBusy, std::memory_order_acq_rel)) {
      if (st == kArmed && !unmapped) syscall(SYS_mprotect, w.page.load(), kPage, w.prot);
      w.page.store(0, std::memory_order_release);
      w.range = nullptr;
      w.state.store(kFree, std::memory_order_release);
      return;
    }
  }
}

const View* view_of(uint64_t gpu_va, uint64_t* gpu_begin) {
  auto it = g_views.upper_bound(gpu_va);
  if (it == g_views.begin()) return nullptr;
  --it;
  if (gpu_va - it->first >= it->second.len) return nullptr;
  *gpu_begin = it->first;
  return &it->second;
}

void copy_str(char* dst, size_t cap, const std::string& s) {
  const size_t n = std::min(cap - 1, s.size());
  std::memcpy(dst, s.data(), n);
  dst[n] = 0;
}

// Watches the program's pages of lines dirty in d's L2 (g_mu held).
void arm_gpu_locked(DeviceState& d, uint64_t signaller, const char* what, uint64_t where, uint64_t signal) {
  const auto lines = d.l2->dirty_now(4 * kWatches);
  uintptr_t last_page = 0;
  for (const auto& dl : lines) {
    const uint64_t va = dl.range->va_begin + dl.line * shader::kLineBytes;
    uint64_t gpu_begin = 0;
    const View* v = view_of(va, &gpu_begin);
    if (!v || !(v->prot & PROT_READ)) continue;
    const uintptr_t cpu_of_range = v->cpu + (dl.range->va_begin - gpu_begin);
    const uintptr_t page = (v->cpu + (va - gpu_begin)) & ~(kPage - 1);
    if (page == last_page) continue;  // lines come a page at a time
    last_page = page;
    install_locked();
    Watch* slot = nullptr;
    bool watched = false;
    for (Watch& w : g_watch) {
      const int st = w.state.load(std::memory_order_acquire);
      if (st == kArmed && w.page.load() == page) watched = true;
      if (!slot && (st == kFree || st == kReleased)) slot = &w;
    }
    if (watched) continue;
    if (!slot) break;  // every entry in use
    int st = slot->state.load();
    if ((st != kFree && st != kReleased) || !slot->state.compare_exchange_strong(st, kBusy)) continue;
    slot->page.store(page, std::memory_order_release);
    slot->prot = v->prot;
    slot->range = dl.range;
    slot->cpu_of_range = cpu_of_range;
    slot->gpu_id = d.model->gpu_id;
    slot->signaller = signaller;
    slot->where = where;
    slot->signal = signal;
    copy_str(slot->what, sizeof slot->what, what);
    copy_str(slot->writer, sizeof slot->writer, dl.writer ? *dl.writer : std::string());
    if (syscall(SYS_mprotect, page, kPage, PROT_NONE) != 0) {
      slot->page.store(0);
      slot->state.store(kFree, std::memory_order_release);
      continue;
    }
    slot->state.store(kArmed, std::memory_order_release);
  }
}

}  // namespace

void host_watch_view(uint64_t gpu_va, void* cpu, size_t len, int prot) {
  if (!model().config.report_stale) return;
  std::lock_guard lk(g_mu);
  g_views[gpu_va] = View{reinterpret_cast<uintptr_t>(cpu), len, prot};
  g_any_views.store(true, std::memory_order_release);
}

void host_watch_unmapped(void* cpu, size_t len) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(cpu), hi = lo + len;
  if (!g_any_views.load(std::memory_order_acquire)) return;  // the common case: one load
  std::lock_guard lk(g_mu);
  std::erase_if(g_views, [&](const auto& v) { return v.second.cpu < hi && lo < v.second.cpu + v.second.len; });
  for (Watch& w : g_watch) {
    const uintptr_t p = w.page.load(std::memory_order_acquire);
    if (p && p >= lo && p < hi) disarm(w, true);
  }
}

void host_watch_freed(uint64_t gpu_va, uint64_t size) {
  if (!model().config.report_stale) return;
  std::lock_guard lk(g_mu);
  std::erase_if(g_views, [&](const auto& v) { return v.first >= gpu_va && v.first - gpu_va < size; });
}

void host_watch_uncache(DeviceState& d, shader::CachedRange* r) {
  if (!d.l2 || !r) return;
  std::lock_guard lk(g_mu);  // no arming in between: it could pick r up from the L2's dirty list
  if (g_installed.load(std::memory_order_acquire))
    for (Watch& w : g_watch)
      if (w.state.load(std::memory_order_acquire) != kFree && w.range == r) disarm(w, false);
  d.l2->remove(r);
}

void host_watch_gpu(DeviceState& d) {
  if (!model().config.report_stale) return;
  std::lock_guard lk(g_mu);
  if (std::find(g_gpus.begin(), g_gpus.end(), &d) == g_gpus.end()) g_gpus.push_back(&d);
}

void host_watch_gpu_gone(DeviceState& d) {
  std::lock_guard lk(g_mu);
  std::erase(g_gpus, &d);
}

void host_watch_arm(DeviceState& signaller, const char* what, uint64_t where, uint64_t signal) {
  if (!model().config.report_stale) return;
  std::lock_guard lk(g_mu);
  if (g_views.empty()) return;
  for (DeviceState* d : g_gpus)
    if (d->l2) arm_gpu_locked(*d, signaller.model->gpu_id, what, where, signal);
}

}  // namespace emu
