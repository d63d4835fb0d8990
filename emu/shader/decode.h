// SPDX-License-Identifier: MIT
// Decoder of gfx9 machine code into Inst, opcode name tables per target, and the decode cache.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "base/fast_mutex.h"
#include "emu/shader/wave.h"

namespace emu::shader {

// Opcode names and handlers of one target, indexed by encoding and opcode.
struct OpTable {
  const char* names[16][1024] = {};
  ExecFn fns[16][1024] = {};
  const char* mimg[128] = {};  // image instructions: named only (none is implemented)
};
const OpTable& op_table(Target t);

// A handler for this instruction's operand form that needs fewer checks at run time than its
// opcode's (fast64.cpp), or nullptr. It calls in.slow when the wave's state rules it out.
ExecFn specialize(const Inst& in);

// Decodes the instruction at dw[0..2] (`avail` dwords readable). Returns false if undecodable
// (then `in` describes the failure via exec_invalid).
bool decode(Target t, const uint32_t* dw, unsigned avail, Inst& in);

// Decoded instructions per code address, shared by all waves of all dispatches of a core.
class DecodeCache {
 public:
  explicit DecodeCache(Target t) : target_(t) {}
  // The instruction at `pc` (decoded on first use); nullptr after a fault (wave failed).
  // Inline: the wave's current page with the slot decoded; the rest in fetch_slow.
  const Inst* fetch(Wave& w, uint64_t pc) {
    CodePage* p = w.page;
    if (p && p->base == (pc & ~uint64_t{4095})) {
      const unsigned slot = (pc & 4095) >> 2;
      if (p->ready[slot].load(std::memory_order_acquire)) return &p->inst[slot];
    }
    return fetch_slow(w, pc);
  }
  // The rest of fetch (also sets w.page to pc's page); nullptr after a fault.
  const Inst* fetch_slow(Wave& w, uint64_t pc);
  void clear();

 private:
  CodePage* page_for(uint64_t base);
  void revalidate(Wave& w, CodePage* p, uint64_t epoch);
  Target target_;
  base::FastMutex mu_;  // (a pthread mutex costs some fifty instructions more per dispatch)
  std::unordered_map<uint64_t, std::unique_ptr<CodePage>> pages_;
  std::atomic<CodePage*> last_{nullptr};  // the page page_for found last (pages live until clear())
};

}  // namespace emu::shader
