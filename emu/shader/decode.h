// SPDX-License-Identifier: MIT
// Decoder of gfx9 machine code into Inst, opcode name tables per target, and the decode cache.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "base/fast_mutex.h"
#include "emu/shader/wave.h"

namespace emu::shader {

// Opcode names and handlers of one target, indexed by name row (opnames.h: encoding, then the
// image row) and opcode. Each entry is looked up when first asked for: a process decodes a few
// dozen opcodes, and filling all 17 K entries (with the name-to-handler map they need) took half a
// millisecond of every emulated process's start-up. Thread-safe.
class OpTable {
 public:
  explicit OpTable(Target t);
  ~OpTable();
  OpTable(const OpTable&) = delete;
  OpTable& operator=(const OpTable&) = delete;
  // The mnemonic (nullptr: no such opcode on the target) and the handler (nullptr: none).
  const char* name(unsigned row, unsigned op) const {
    return std::atomic_ref(entry(row, op).name).load(std::memory_order_relaxed);
  }
  ExecFn fn(unsigned row, unsigned op) const { return std::atomic_ref(entry(row, op).fn).load(std::memory_order_relaxed); }

 private:
  // Plain fields (calloc makes them), read and written through std::atomic_ref.
  struct Entry {
    uint8_t ready;
    const char* name;
    ExecFn fn;
  };
  Entry& entry(unsigned row, unsigned op) const {
    Entry& e = entries_[row * 1024u + op];
    if (!std::atomic_ref(e.ready).load(std::memory_order_acquire)) resolve(e, row, op);
    return e;
  }
  void resolve(Entry& e, unsigned row, unsigned op) const;
  Target t_;
  Entry* entries_;  // zeroed pages from calloc: only the ones holding used entries are touched
};
const OpTable& op_table(Target t);
// Builds what decoding looks names up in (the handler registry, the specialised handlers by
// name): a core does it when it is made, so that a process's first dispatch does not.
void prepare_decoder(Target t);

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
