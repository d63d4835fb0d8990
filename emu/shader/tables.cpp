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
extern const char* const kMimgNames_gfx90a;
extern const char* const kMimgNames_gfx908;
extern const char* const kMimgNames_gfx906;
extern const char* const kMimgNames_gfx942;

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
                          vopc_handlers(), ds_handlers(), gws_handlers(), flat_handlers(), mubuf_handlers()})
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

const char* mimg_names(Target t) {
  switch (t) {
    case Target::gfx906: return kMimgNames_gfx906;
    case Target::gfx908: return kMimgNames_gfx908;
    case Target::gfx942: return kMimgNames_gfx942;
    default: return kMimgNames_gfx90a;
  }
}

// Calls f(op, name) for each named opcode of a space-separated list ("-" is no opcode).
template <class F>
void for_each_name(const char* p, unsigned max_ops, F f) {
  unsigned op = 0;
  while (*p && op < max_ops) {
    const char* q = std::strchr(p, ' ');
    std::string name = q ? std::string(p, q) : std::string(p);
    if (name != "-" && !name.empty()) f(op, name);
    ++op;
    if (!q) break;
    p = q + 1;
  }
}

OpTable* build(Target t) {
  auto* tab = new OpTable;
  const char* const* rows = opnames(t);
  for (unsigned r = 0; r < 16; ++r) {
    for_each_name(rows[r], 1024, [&](unsigned op, const std::string& name) {
      tab->names[r][op] = intern(name);
      auto it = registry().find(name);
      tab->fns[r][op] = it == registry().end() ? nullptr : it->second;
    });
  }
  for_each_name(mimg_names(t), 128, [&](unsigned op, const std::string& name) { tab->mimg[op] = intern(name); });
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
