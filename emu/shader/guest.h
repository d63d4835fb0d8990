// SPDX-License-Identifier: MIT
// Access to guest memory: the GPU memory the emulated programs read and write (and the L2's copy
// of it), whose races between waves are the GPU memory model's business, not the host's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace emu::shader {

// Marks a function that reads or writes guest memory for the GPU program. ThreadSanitizer does
// not instrument its body (two waves racing on a buffer, or a wave's load beside the host's
// write of a neighbouring byte, is not a race of the host program), while every other function,
// the memory model's own data structures included, stays checked. Such a function copies guest
// bytes with guest_copy or fixed-size moves: a memcpy call of a variable size goes to the
// sanitizer's interceptor, which checks it whatever the caller.
#define EMU_GUEST __attribute__((no_sanitize("thread")))

// Set while a thread does the emulated GPU's work (engines, command processors, shader workers):
// the host-side watches of KFDEMU_REPORT_STALE (emu/host_watch.h) tell the GPU's accesses to a
// watched page from the program's by it.
inline thread_local bool t_emulator_thread __attribute__((tls_model("initial-exec"))) = false;
struct EmulatorThreadScope {
  bool was = t_emulator_thread;
  EmulatorThreadScope() { t_emulator_thread = true; }
  ~EmulatorThreadScope() { t_emulator_thread = was; }
  EmulatorThreadScope(const EmulatorThreadScope&) = delete;
  EmulatorThreadScope& operator=(const EmulatorThreadScope&) = delete;
};

// Copies n bytes without a call the sanitizers intercept (AddressSanitizer also skips it: a
// device access may touch whole lines of a page a program mapped around a smaller host object).
__attribute__((no_sanitize("address", "thread"))) inline void guest_copy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
#if defined(__x86_64__)
  if (n > 16) {
    asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return;
  }
#endif
  for (volatile const uint8_t* v = s; n; --n) *d++ = *v++;  // volatile: never a memcpy call
}

// Copies n bytes of or into guest memory: memcpy, but in a ThreadSanitizer build guest_copy (a
// memcpy call would be checked by the interceptor).
inline void guest_move(void* dst, const void* src, size_t n) {
#if defined(__SANITIZE_THREAD__)
  guest_copy(dst, src, n);
#else
  std::memcpy(dst, src, n);
#endif
}

// Whether n guest bytes equal n host bytes (n a multiple of 8), without a memcmp call.
__attribute__((no_sanitize("address", "thread"))) inline bool guest_equal(const void* guest, const void* host, size_t n) {
  const auto* g = static_cast<const uint8_t*>(guest);
  const auto* h = static_cast<const uint8_t*>(host);
  uint64_t diff = 0;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, g + i, 8);
    std::memcpy(&b, h + i, 8);
    diff |= a ^ b;
  }
  return diff == 0;
}

}  // namespace emu::shader
