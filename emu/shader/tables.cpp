// SPDX-License-Identifier: MIT
// Each target's opcode table: names from the base table and its deltas (opnames.h), handlers
// looked up by name, both when an opcode is first decoded.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <span>
#include <string>

#include "emu/shader/decode.h"
#include "emu/shader/opnames.h"

namespace emu::shader {

namespace {

// Every handler by name: an open-addressing hash table in one allocation (a node per name cost
// more than the lookups it served). The names are the handler lists', which live as long as the
// program; a name listed twice keeps its last handler.
class Registry {
 public:
  Registry() {
    size_t n = 0;
    for (const HandlerList& l : lists()) n += size_t(l.end - l.begin);
    size_t cap = 64;
    while (cap < 2 * n) cap *= 2;
    mask_ = cap - 1;
    slots_ = static_cast<Slot*>(std::calloc(cap, sizeof(Slot)));
    if (!slots_) throw std::bad_alloc();
    for (const HandlerList& l : lists())
      for (const HandlerEntry* e = l.begin; e != l.end; ++e) {
        Slot& s = probe(e->name);
        s.name = e->name;
        s.fn = e->fn;
      }
  }
  ExecFn find(const char* name) const {
    const Slot& s = const_cast<Registry*>(this)->probe(name);
    return s.name ? s.fn : nullptr;
  }

 private:
  struct Slot {
    const char* name;
    ExecFn fn;
  };
  static std::span<const HandlerList> lists() {
    static const HandlerList all[] = {sop2_handlers(), sop1_handlers(), sopp_handlers(), smem_handlers(),
                                      vop_handlers(), vop3_handlers(), vop16_handlers(), vop_media_handlers(),
                                      vopc_handlers(), ds_handlers(), gws_handlers(), flat_handlers(),
                                      mubuf_handlers(), mimg_handlers(), mfma_handlers()};
    return all;
  }
  // The slot holding `name`, or the empty one where it would go (FNV-1a, linear probing).
  Slot& probe(const char* name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char* p = name; *p; ++p) h = (h ^ uint8_t(*p)) * 0x100000001b3ull;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.name || std::strcmp(s.name, name) == 0) return s;
    }
  }
  Slot* slots_ = nullptr;  // never freed: decoding may go on while the process exits
  size_t mask_ = 0;
};

const Registry& registry() {
  static const Registry* r = new Registry;
  return *r;
}

constexpr unsigned kTableRows = kNameRows;  // the encodings' rows and the image row

}  // namespace

ExecFn find_handler(const char* name) { return name ? registry().find(name) : nullptr; }

OpTable::OpTable(Target t) : t_(t) {
  entries_ = static_cast<Entry*>(std::calloc(size_t{kTableRows} * kRowOpcodes, sizeof(Entry)));
  if (!entries_) throw std::bad_alloc();
}

OpTable::~OpTable() { std::free(entries_); }

void OpTable::resolve(Entry& e, unsigned row, unsigned op) const {
  // Two decoders may resolve an entry at once: both store the same answers.
  const char* name = op_name(t_, row, op);
  const ExecFn fn = find_handler(name);
  std::atomic_ref(e.name).store(name, std::memory_order_relaxed);
  std::atomic_ref(e.fn).store(fn, std::memory_order_relaxed);
  std::atomic_ref(e.ready).store(uint8_t{1}, std::memory_order_release);
}

const OpTable& op_table(Target t) {
  // Never destroyed: engine threads may still decode while the process runs its exit handlers.
  static OpTable* tabs[4] = {};
  static std::once_flag once[4];
  unsigned i = static_cast<unsigned>(t);
  std::call_once(once[i], [&] { tabs[i] = new OpTable(t); });
  return *tabs[i];
}

void prepare_specialize();  // fast64.cpp

void prepare_decoder(Target t) {
  (void)op_table(t);
  (void)registry();
  prepare_specialize();
}

bool implemented(const std::string& mnemonic) { return find_handler(mnemonic.c_str()) != nullptr; }

std::string disassemble_name(Target t, const uint32_t* dw, unsigned* len) {
  Inst in;
  bool ok = decode(t, dw, 3, in);
  if (len) *len = ok ? in.size : 0;
  return in.name;
}

}  // namespace emu::shader
