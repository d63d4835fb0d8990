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

// One U of guest_copy read from s: one access when s is aligned to U, two dword accesses when an
// 8-byte unit's s is aligned to 4 only, bytes otherwise (guest_unit_store: the same for writes).
template <class U>
__attribute__((no_sanitize("address", "thread"))) inline U guest_unit_load(const uint8_t* s) {
  if ((reinterpret_cast<uintptr_t>(s) & (sizeof(U) - 1)) == 0) return *reinterpret_cast<volatile const U*>(s);
  U v = 0;
  if (sizeof(U) == 8 && (reinterpret_cast<uintptr_t>(s) & 3) == 0) {  // two aligned dwords
    const uint32_t lo = *reinterpret_cast<volatile const uint32_t*>(s), hi = *reinterpret_cast<volatile const uint32_t*>(s + 4);
    v = static_cast<U>(uint64_t{lo} | uint64_t{hi} << 32);
  } else {
    for (unsigned i = 0; i < sizeof(U); ++i) reinterpret_cast<uint8_t*>(&v)[i] = reinterpret_cast<volatile const uint8_t*>(s)[i];
  }
  return v;
}
template <class U>
__attribute__((no_sanitize("address", "thread"))) inline void guest_unit_store(uint8_t* d, U v) {
  if ((reinterpret_cast<uintptr_t>(d) & (sizeof(U) - 1)) == 0) {
    *reinterpret_cast<volatile U*>(d) = v;
  } else if (sizeof(U) == 8 && (reinterpret_cast<uintptr_t>(d) & 3) == 0) {
    *reinterpret_cast<volatile uint32_t*>(d) = static_cast<uint32_t>(v);
    *reinterpret_cast<volatile uint32_t*>(d + 4) = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
  } else {
    for (unsigned i = 0; i < sizeof(U); ++i) reinterpret_cast<volatile uint8_t*>(d)[i] = reinterpret_cast<uint8_t*>(&v)[i];
  }
}
// guest_copy's unit moves, each side accessed as guest_unit_load/store say (whichever side is
// the guest's).
template <class U>
__attribute__((no_sanitize("address", "thread"))) inline void guest_copy_units(uint8_t* d, const uint8_t* s, size_t n) {
  for (; n; n -= sizeof(U), s += sizeof(U), d += sizeof(U)) guest_unit_store<U>(d, guest_unit_load<U>(s));
}

// Copies n bytes without a call the sanitizers intercept (AddressSanitizer also skips it: a
// device access may touch whole lines of a page a program mapped around a smaller host object).
// Small copies of whole 8-byte (or 4-byte) units move each unit with one load and one store on
// whichever side is aligned (the guest's side: the source of a read, the destination of a write):
// a naturally aligned 8- or 4-byte access is single-copy atomic on the GPU, and another host
// thread (another CU) must never see half of one.
__attribute__((no_sanitize("address", "thread"))) inline void guest_copy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
#if defined(__x86_64__)
  if (n > 16) {
    asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return;
  }
#endif
  const bool either8 = ((reinterpret_cast<uintptr_t>(s) & 7) == 0) || ((reinterpret_cast<uintptr_t>(d) & 7) == 0);
  const bool either4 = ((reinterpret_cast<uintptr_t>(s) & 3) == 0) || ((reinterpret_cast<uintptr_t>(d) & 3) == 0);
  if (n % 8 == 0 && either8) return guest_copy_units<uint64_t>(d, s, n);
  if (n % 4 == 0 && either4) return guest_copy_units<uint32_t>(d, s, n);
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
