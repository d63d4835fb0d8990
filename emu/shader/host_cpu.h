// SPDX-License-Identifier: MIT
// What the host CPU offers the emulator's copy and lane loops, read with CPUID on first use.
#pragma once

#include <cstdint>

namespace emu {

// The host's vendor and the instruction sets the emulator picks its loops by, each usable only
// where the OS saves its register state (XCR0). Read once, on first use, with the CPUID leaves
// 0, 1 and 7 (Intel SDM vol. 2A, CPUID; AMD64 APM vol. 3, appendix E) and XGETBV. GCC's
// __builtin_cpu_supports would link libgcc's __cpu_indicator_init into the library as a
// constructor, which runs about a dozen CPUIDs in every process that preloads the emulator
// (each one a VM exit under a hypervisor: 46 to 59 us in all on the development VM), before main.
struct HostCpu {
  bool amd = false;  // AuthenticAMD or HygonGenuine (Zen cores: a core complex shares its L3)
  bool sse2 = false, avx2 = false, fma = false, bmi2 = false, avx512f = false;
  bool erms = false;  // fast REP MOVSB (CPUID.7.0:EBX bit 9)
};

inline const HostCpu& host_cpu() {
  static const HostCpu cpu = [] {
    HostCpu c;
#if defined(__x86_64__)
    auto cpuid = [](uint32_t leaf, uint32_t sub, uint32_t r[4]) {
      __asm__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
    };
    uint32_t r[4];
    cpuid(0, 0, r);
    const uint32_t max_leaf = r[0];
    // The vendor string is EBX, EDX, ECX: "Auth" "enti" "cAMD", "Hygo" "nGen" "uine".
    c.amd = (r[1] == 0x68747541 && r[3] == 0x69746e65 && r[2] == 0x444d4163) ||
            (r[1] == 0x6f677948 && r[3] == 0x6e65476e && r[2] == 0x656e6975);
    if (max_leaf < 1) return c;
    cpuid(1, 0, r);
    const uint32_t ecx1 = r[2];
    c.sse2 = (r[3] >> 26) & 1;
    uint64_t xcr0 = 0;
    if ((ecx1 >> 27) & 1) {  // OSXSAVE: XGETBV reads the state components the OS saves
      uint32_t lo, hi;
      __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      xcr0 = (uint64_t(hi) << 32) | lo;
    }
    const bool avx_state = (xcr0 & 0x6) == 0x6;         // XMM and YMM
    const bool avx512_state = (xcr0 & 0xE6) == 0xE6;    // and opmask, ZMM_Hi256, Hi16_ZMM
    const bool avx = avx_state && ((ecx1 >> 28) & 1);
    c.fma = avx && ((ecx1 >> 12) & 1);
    if (max_leaf >= 7) {
      cpuid(7, 0, r);
      c.avx2 = avx && ((r[1] >> 5) & 1);
      c.bmi2 = (r[1] >> 8) & 1;
      c.erms = (r[1] >> 9) & 1;
      c.avx512f = avx512_state && ((r[1] >> 16) & 1);
    }
#endif
    return c;
  }();
  return cpu;
}

}  // namespace emu
