// SPDX-License-Identifier: MIT
// A small mutex for short critical sections on hot paths: one atomic word, the kernel only when contended.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace base {

// Lockable (std::lock_guard, std::unique_lock). The word is 0 (free), 1 (held) or 2 (held, and a
// thread may sleep on it): the three-state futex mutex of Drepper's "Futexes Are Tricky". The
// uncontended lock and unlock are one atomic instruction each and a few others (a pthread mutex
// runs some fifty instructions for the pair). The happens-before edges are the atomics' own
// (acquire on lock, release on unlock), so race detectors that model C++ atomics see them.
class FastMutex {
 public:
  FastMutex() = default;
  FastMutex(const FastMutex&) = delete;
  FastMutex& operator=(const FastMutex&) = delete;

  void lock() {
    uint32_t free = 0;
    if (word_.compare_exchange_strong(free, 1, std::memory_order_acquire, std::memory_order_relaxed)) [[likely]]
      return;
    lock_contended();
  }
  bool try_lock() {
    uint32_t free = 0;
    return word_.compare_exchange_strong(free, 1, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void unlock() {
    if (word_.exchange(0, std::memory_order_release) == 2) [[unlikely]] wake_one();
  }

 private:
  void lock_contended() {
    // A short spin first: critical sections are short, and a sleep costs two system calls.
    for (int i = 0; i < 100; ++i) {
      if (word_.load(std::memory_order_relaxed) == 0 && try_lock()) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    while (word_.exchange(2, std::memory_order_acquire) != 0)
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word_), FUTEX_WAIT_PRIVATE, 2, nullptr, nullptr, 0);
  }
  void wake_one() {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }

  std::atomic<uint32_t> word_{0};
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
};

}  // namespace base
