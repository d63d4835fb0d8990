// SPDX-License-Identifier: MIT
// Builds each target's opcode table: names from the base table and its deltas (opnames.h),
// handlers looked up by name.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "emu/shader/decode.h"
#include "emu/shader/opnames.h"

namespace emu::shader {

namespace {

// Keys point at the handler lists' names, which live as long as the program.
const std::unordered_map<std::string_view, ExecFn>& registry() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, ExecFn>;
    m->reserve(2048);
    for (HandlerList l : {sop2_handlers(), sop1_handlers(), sopp_handlers(), smem_handlers(),
                          vop_handlers(), vop3_handlers(), vop16_handlers(), vop_media_handlers(),
                          vopc_handlers(), ds_handlers(), gws_handlers(), flat_handlers(), mubuf_handlers()})
      for (const HandlerEntry* e = l.begin; e != l.end; ++e) (*m)[e->name] = e->fn;
    return m;
  }();
  return *map;
}

OpTable* build(Target t) {
  auto* tab = new OpTable;
  std::unique_ptr<const char* [][kRowOpcodes]> names(new const char* [kNameRows][kRowOpcodes]);
  op_names(t, names.get());
  const auto& handlers = registry();
  for (unsigned r = 0; r < kEncodingRows; ++r) {
    for (unsigned op = 0; op < kRowOpcodes; ++op) {
      const char* name = names[r][op];
      if (!name) continue;
      tab->names[r][op] = name;
      auto it = handlers.find(std::string_view(name));
      tab->fns[r][op] = it == handlers.end() ? nullptr : it->second;
    }
  }
  for (unsigned op = 0; op < kMimgOpcodes; ++op) tab->mimg[op] = names[kMimgRow][op];
  return tab;
}

}  // namespace

ExecFn find_handler(const char* name) {
  if (!name) return nullptr;
  auto it = registry().find(std::string_view(name));
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
