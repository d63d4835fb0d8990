// SPDX-License-Identifier: MIT
// Sparse memfd arena backing all emulated GPU memory (VRAM, GTT, doorbells, event pages).
#include "emu/arena.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace emu {

namespace {
constexpr uint64_t kPage = 4096;
constexpr uint64_t kBig = 2ull << 20;
constexpr uint64_t kCapacity = 1ull << 40;  // 1 TiB of address space; pages exist only when touched

// KFDEMU_ARENA_GB (emu/control.h) replaces the default: ThreadSanitizer, for one, has room for
// application mappings of about 1.5 TiB only, the runtime's own reservations included.
uint64_t capacity_from_env() {
  const char* s = std::getenv("KFDEMU_ARENA_GB");
  if (!s || !*s) return kCapacity;
  char* end = nullptr;
  unsigned long long gb = std::strtoull(s, &end, 10);
  if (*end != 0 || gb == 0 || gb > (kCapacity >> 30)) {
    std::fprintf(stderr, "kfdemu: KFDEMU_ARENA_GB=%s is not 1..%llu; using %llu\n", s,
                 (unsigned long long)(kCapacity >> 30), (unsigned long long)(kCapacity >> 30));
    return kCapacity;
  }
  return uint64_t(gb) << 30;
}
}  // namespace

namespace {
// The process's arena. Never destroyed: worker threads may outlive static destructors. A forked
// child gets its own file (the parent's pages are shared with it and must not be handed out
// again): fork's child handler forgets the parent's, and the next get() makes a new one. No
// lock and no getpid() on the path every GPU address translation takes.
std::atomic<Arena*> g_arena{nullptr};
std::mutex g_arena_mu;
void forget_arena_in_child() { g_arena.store(nullptr, std::memory_order_relaxed); }
}  // namespace

Arena& Arena::get() {
  if (Arena* a = g_arena.load(std::memory_order_acquire)) return *a;
  std::lock_guard<std::mutex> lk(g_arena_mu);
  Arena* a = g_arena.load(std::memory_order_relaxed);
  if (!a) {
    static std::once_flag registered;
    std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, forget_arena_in_child); });
    a = new Arena;
    g_arena.store(a, std::memory_order_release);
  }
  return *a;
}

Arena::Arena() {
  const uint64_t capacity = capacity_from_env();
  fd_ = memfd_create("kfdemu-gpu-memory", MFD_CLOEXEC);
  if (fd_ < 0 || ftruncate(fd_, off_t(capacity)) != 0) {
    std::perror("kfdemu: cannot create the GPU memory arena (memfd_create/ftruncate)");
    std::abort();
  }
  void* p = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (p == MAP_FAILED) {
    std::perror("kfdemu: cannot map the GPU memory arena");
    std::abort();
  }
  base_ = static_cast<uint8_t*>(p);
  capacity_ = capacity;
  free_[0] = capacity;
}

uint64_t Arena::allocate(uint64_t size) {
  uint64_t align = size >= kBig ? kBig : kPage;
  size = (size + kPage - 1) & ~(kPage - 1);
  std::lock_guard<std::mutex> lk(mu_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = (it->first + align - 1) & ~(align - 1);
    uint64_t end = it->first + it->second;
    if (start + size > end) continue;
    uint64_t fo = it->first, fs = it->second;
    free_.erase(it);
    if (start > fo) free_[fo] = start - fo;
    if (start + size < fo + fs) free_[start + size] = fo + fs - (start + size);
    return start;
  }
  return UINT64_MAX;
}

void Arena::release(uint64_t offset, uint64_t size) {
  size = (size + kPage - 1) & ~(kPage - 1);
  // Give the pages back to the host and make the range read as zeros when reused.
  fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset), off_t(size));
  std::lock_guard<std::mutex> lk(mu_);
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  free_[offset] = size;
}

}  // namespace emu
