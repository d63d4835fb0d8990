// SPDX-License-Identifier: MIT
// Builds each target's opcode table: names from opnames_*.cpp, handlers looked up by name.
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "emu/shader/decode.h"

namespace emu::shader {

extern const char* const kOpNames_gfx90a[16];
extern const char* const kOpNames_gfx908[16];
extern const char* const kOpNames_gfx906[16];
extern const char* const kOpNames_gfx942[16];

const char* const* opnames(Target t) {
  switch (t) {
    case Target::gfx906: return kOpNames_gfx906;
    case Target::gfx908: return kOpNames_gfx908;
    case Target::gfx942: return kOpNames_gfx942;
    default: return kOpNames_gfx90a;
  }
}

namespace {

const std::unordered_map<std::string, ExecFn>& registry() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string, ExecFn>;
    for (HandlerList l : {sop2_handlers(), sop1_handlers(), sopp_handlers(), smem_handlers(),
                          vop_handlers(), vop3_handlers(), vop16_handlers(), vop_media_handlers(),
                          vopc_handlers(), ds_handlers(), flat_handlers(), mubuf_handlers()})
      for (const HandlerEntry* e = l.begin; e != l.end; ++e) (*m)[e->name] = e->fn;
    return m;
  }();
  return *map;
}

// Names live for the program's lifetime: the table keeps pointers into this storage.
const char* intern(const std::string& s) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::unique_ptr<char[]>> pool;
  std::lock_guard lock(mu);
  auto& p = pool[s];
  if (!p) { p.reset(new char[s.size() + 1]); std::memcpy(p.get(), s.c_str(), s.size() + 1); }
  return p.get();
}

OpTable* build(Target t) {
  auto* tab = new OpTable;
  const char* const* rows = opnames(t);
  for (unsigned r = 0; r < 16; ++r) {
    const char* p = rows[r];
    unsigned op = 0;
    while (*p && op < 1024) {
      const char* q = std::strchr(p, ' ');
      std::string name = q ? std::string(p, q) : std::string(p);
      if (name != "-" && !name.empty()) {
        tab->names[r][op] = intern(name);
        auto it = registry().find(name);
        tab->fns[r][op] = it == registry().end() ? nullptr : it->second;
      }
      ++op;
      if (!q) break;
      p = q + 1;
    }
  }
  return tab;
}

}  // namespace

ExecFn find_handler(const char* name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second;
}

const OpTable& op_table(Target t) {
  static OpTable* tabs[4] = {};
  static std::once_flag once[4];
  unsigned i = static_cast<unsigned>(t);
  std::call_once(once[i], [&] { tabs[i] = build(t); });
  return *tabs[i];
}

bool implemented(const std::string& mnemonic) { return find_handler(mnemonic.c_str()) != nullptr; }

std::string disassemble_name(Target t, const uint32_t* dw, unsigned* len) {
  Inst in;
  bool ok = decode(t, dw, 3, in);
  if (len) *len = ok ? in.size : 0;
  return in.name;
}

}  // namespace emu::shader
