// SPDX-License-Identifier: MIT
// kfdobj: dumps the targets, kernels, arguments and kernel descriptors of a code object, an offload
// bundle, or a host executable/shared library with an embedded HIP fat binary.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/text.h"
#include "loader/bundle.h"
#include "loader/code_object.h"
#include "loader/elf.h"

namespace {

using loader::msgpack::Kind;
using loader::msgpack::Value;

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates, at
// most U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  unsigned c = at(0);
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return at(k) >= lo && at(k) <= hi; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    bool second = c == 0xE0 ? cont(1, 0xA0) : c == 0xED ? cont(1, 0x80, 0x9F) : cont(1);
    return second && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    bool second = c == 0xF0 ? cont(1, 0x90) : c == 0xF4 ? cont(1, 0x80, 0x8F) : cont(1);
    return second && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// A JSON string. ELF strings and metadata are bytes, JSON text is UTF-8: a byte that does not
// start a well-formed sequence becomes U+FFFD, so the output always parses.
std::string json_str(std::string_view s) {
  std::string o = "\"";
  for (size_t i = 0; i < s.size();) {
    auto u = static_cast<unsigned char>(s[i]);
    if (u == '"' || u == '\\') { o += '\\'; o += char(u); ++i; }
    else if (u < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", u); o += b; ++i; }
    else if (u < 0x80) { o += char(u); ++i; }
    else if (size_t n = utf8_length(s, i)) { o.append(s.substr(i, n)); i += n; }
    else { o += "\\ufffd"; ++i; }
  }
  return o + "\"";
}

// Writes a msgpack value as JSON; the metadata's own key names are kept as they are.
std::string json_value(const Value& v) {
  switch (v.kind) {
    case Kind::Nil: return "null";
    case Kind::Bool: return v.b ? "true" : "false";
    case Kind::Int: return std::to_string(v.i);
    case Kind::UInt: return std::to_string(v.u);
    case Kind::Float: { char b[32]; std::snprintf(b, sizeof b, "%.17g", v.f); return b; }
    case Kind::Str: return json_str(v.s);
    case Kind::Bin: {
      std::string h;
      for (char c : v.s) { char b[4]; std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(c)); h += b; }
      return json_str(h);
    }
    case Kind::Array: {
      std::string o = "[";
      for (size_t i = 0; i < v.array.size(); ++i) o += (i ? "," : "") + json_value(v.array[i]);
      return o + "]";
    }
    case Kind::Map: {
      std::string o = "{";
      for (size_t i = 0; i < v.map.size(); ++i) {
        const auto& [k, val] = v.map[i];
        o += (i ? "," : "") + (k.kind == Kind::Str ? json_str(k.s) : json_str(json_value(k))) + ":" + json_value(val);
      }
      return o + "}";
    }
  }
  return "null";
}

// A JSON object built field by field: {"a":1,"b":true}.
class JsonObject {
 public:
  JsonObject& num(const char* k, long long v) { return raw(k, std::to_string(v)); }
  JsonObject& unum(const char* k, uint64_t v) { return raw(k, std::to_string(v)); }
  JsonObject& flag(const char* k, bool v) { return raw(k, v ? "true" : "false"); }
  JsonObject& raw(const char* k, const std::string& v) {
    s_ += (s_.size() > 1 ? "," : "") + json_str(k) + ":" + v;
    return *this;
  }
  std::string str() const { return s_ + "}"; }

 private:
  std::string s_ = "{";
};

std::string json_rsrc1(const pm4::KernelDescriptor& d, const loader::TargetId& t) {
  auto r1 = pm4::decode_rsrc1(d.compute_pgm_rsrc1);
  JsonObject o;
  o.num("granulated_workitem_vgpr_count", r1.granulated_workitem_vgpr_count)
      .num("granulated_wavefront_sgpr_count", r1.granulated_wavefront_sgpr_count)
      .num("vgprs", loader::vgprs_from_descriptor(d, t));
  // SGPRs in granules of 8, as clang writes and llvm-objdump reads them; gfx10+ hardware ignores it.
  o.num("sgprs", (r1.granulated_wavefront_sgpr_count + 1) * 8);
  o.num("priority", r1.priority).num("float_round_mode_32", r1.float_round_mode_32)
      .num("float_round_mode_16_64", r1.float_round_mode_16_64).num("float_denorm_mode_32", r1.float_denorm_mode_32)
      .num("float_denorm_mode_16_64", r1.float_denorm_mode_16_64).flag("priv", r1.priv)
      .flag("dx10_clamp", r1.enable_dx10_clamp).flag("debug_mode", r1.debug_mode).flag("ieee_mode", r1.enable_ieee_mode)
      .flag("bulky", r1.bulky).flag("cdbg_user", r1.cdbg_user).flag("fp16_ovfl", r1.fp16_ovfl)
      .flag("wgp_mode", r1.wgp_mode).flag("mem_ordered", r1.mem_ordered).flag("fwd_progress", r1.fwd_progress);
  return o.str();
}

std::string json_rsrc2(uint32_t v) {
  auto r2 = pm4::decode_rsrc2(v);
  return JsonObject()
      .flag("enable_private_segment", r2.enable_private_segment).num("user_sgpr_count", r2.user_sgpr_count)
      .flag("enable_trap_handler", r2.enable_trap_handler).flag("workgroup_id_x", r2.enable_sgpr_workgroup_id_x)
      .flag("workgroup_id_y", r2.enable_sgpr_workgroup_id_y).flag("workgroup_id_z", r2.enable_sgpr_workgroup_id_z)
      .flag("workgroup_info", r2.enable_sgpr_workgroup_info).num("vgpr_workitem_id", r2.enable_vgpr_workitem_id)
      .flag("exception_address_watch", r2.enable_exception_address_watch)
      .flag("exception_memory", r2.enable_exception_memory).num("granulated_lds_size", r2.granulated_lds_size)
      .num("exceptions", r2.enable_exceptions)
      .str();
}

// RSRC3 has a layout per family: gfx90a/gfx94x, gfx10, gfx11; elsewhere only the raw word is shown.
std::string json_rsrc3(uint32_t v, const loader::TargetId& t) {
  JsonObject o;
  if (loader::is_gfx90a_family(t)) {
    auto r3 = pm4::decode_rsrc3_gfx90a(v);
    o.num("accum_offset", (r3.accum_offset + 1) * 4).flag("tg_split", r3.tg_split);
  } else if (t.processor.rfind("gfx10", 0) == 0 || t.processor.rfind("gfx11", 0) == 0) {
    auto r3 = pm4::decode_rsrc3_gfx10(v);
    o.num("shared_vgpr_count", r3.shared_vgpr_count);
    if (t.processor.rfind("gfx11", 0) == 0)
      o.num("inst_pref_size", r3.inst_pref_size).flag("trap_on_start", r3.trap_on_start)
          .flag("trap_on_end", r3.trap_on_end).flag("image_op", r3.image_op);
  }
  return o.str();
}

std::string json_properties(uint16_t v) {
  auto p = pm4::decode_code_properties(v);
  return JsonObject()
      .flag("private_segment_buffer", p.private_segment_buffer).flag("dispatch_ptr", p.dispatch_ptr)
      .flag("queue_ptr", p.queue_ptr).flag("kernarg_segment_ptr", p.kernarg_segment_ptr)
      .flag("dispatch_id", p.dispatch_id).flag("flat_scratch_init", p.flat_scratch_init)
      .flag("private_segment_size", p.private_segment_size).flag("wavefront_size32", p.wavefront_size32)
      .flag("uses_dynamic_stack", p.uses_dynamic_stack)
      .str();
}

std::string json_descriptor(const loader::Kernel& k, const loader::TargetId& t) {
  const pm4::KernelDescriptor& d = k.descriptor;
  return JsonObject()
      .unum("address", k.descriptor_vaddr).num("group_segment_fixed_size", d.group_segment_fixed_size)
      .num("private_segment_fixed_size", d.private_segment_fixed_size).num("kernarg_size", d.kernarg_size)
      .num("kernel_code_entry_byte_offset", d.kernel_code_entry_byte_offset)
      .num("compute_pgm_rsrc1", d.compute_pgm_rsrc1).num("compute_pgm_rsrc2", d.compute_pgm_rsrc2)
      .num("compute_pgm_rsrc3", d.compute_pgm_rsrc3).num("kernel_code_properties", d.kernel_code_properties)
      .num("kernarg_preload", d.kernarg_preload)
      .num("kernarg_preload_length", pm4::kernarg_preload_length(d.kernarg_preload))
      .num("kernarg_preload_offset", pm4::kernarg_preload_offset(d.kernarg_preload))
      .raw("rsrc1", json_rsrc1(d, t)).raw("rsrc2", json_rsrc2(d.compute_pgm_rsrc2))
      .raw("rsrc3", json_rsrc3(d.compute_pgm_rsrc3, t)).raw("properties", json_properties(d.kernel_code_properties))
      .str();
}

// One code object as JSON: its metadata map, each kernel gaining a ".descriptor" key.
std::string json_code_object(const loader::CodeObject& co, const std::string& bundle_id, const std::string& tag) {
  std::string o = "{";
  if (!bundle_id.empty()) o += "\"bundle_id\":" + json_str(bundle_id) + tag + ",";
  o += "\"target_id\":" + json_str(co.target().str()) + ",\"code_object_version\":" + std::to_string(co.version());
  for (const auto& [k, v] : co.metadata().raw.map) {
    if (k.kind != Kind::Str) continue;
    if (k.s != "amdhsa.kernels") { o += "," + json_str(k.s) + ":" + json_value(v); continue; }
    o += ",\"amdhsa.kernels\":[";
    for (size_t i = 0; i < v.array.size(); ++i) {
      std::string km = json_value(v.array[i]);
      km.pop_back();  // reopen the kernel's map to add the decoded descriptor
      o += (i ? "," : "") + km + ",\".descriptor\":" + json_descriptor(co.kernels()[i], co.target()) + "}";
    }
    o += "]";
  }
  o += ",\"globals\":[";
  for (size_t i = 0; i < co.globals().size(); ++i) {
    const auto& g = co.globals()[i];
    o += (i ? "," : "") + std::string("{\"name\":") + json_str(g.name) + ",\"address\":" + std::to_string(g.vaddr) +
         ",\"size\":" + std::to_string(g.size) + "}";
  }
  return o + "]}";
}

void print_kernel(const loader::Kernel& k, const loader::TargetId& t) {
  const auto& m = k.meta;
  std::printf("  kernel %s (descriptor %s at 0x%llx, entry 0x%llx)\n", base::printable(m.name).c_str(), base::printable(m.symbol).c_str(),
              (unsigned long long)k.descriptor_vaddr, (unsigned long long)k.entry_vaddr);
  std::printf("    kernarg %llu bytes (align %llu), LDS %llu, private %llu, wave%llu, sgpr %llu, vgpr %llu",
              (unsigned long long)m.kernarg_segment_size, (unsigned long long)m.kernarg_segment_align,
              (unsigned long long)m.group_segment_fixed_size, (unsigned long long)m.private_segment_fixed_size,
              (unsigned long long)m.wavefront_size, (unsigned long long)m.sgpr_count, (unsigned long long)m.vgpr_count);
  if (m.agpr_count) std::printf(", agpr %llu", (unsigned long long)*m.agpr_count);
  std::printf(", max workgroup %llu%s\n", (unsigned long long)m.max_flat_workgroup_size,
              m.uses_dynamic_stack.value_or(false) ? ", dynamic stack" : "");
  for (size_t i = 0; i < m.args.size(); ++i) {
    const auto& a = m.args[i];
    std::printf("    arg %zu: offset %llu size %llu %s", i, (unsigned long long)a.offset, (unsigned long long)a.size,
                loader::value_kind_name(a.value_kind));
    if (a.address_space) std::printf(" %s", a.address_space->c_str());
    if (a.type_name) std::printf(" '%s'", base::printable(*a.type_name).c_str());
    if (a.name) std::printf(" %s", base::printable(*a.name).c_str());
    std::printf("\n");
  }
  const auto& d = k.descriptor;
  auto r1 = pm4::decode_rsrc1(d.compute_pgm_rsrc1);
  auto r2 = pm4::decode_rsrc2(d.compute_pgm_rsrc2);
  std::printf("    descriptor: rsrc1 0x%08x (vgprs %u, sgpr granule %u, ieee %d, dx10_clamp %d) rsrc2 0x%08x "
              "(user sgprs %u, scratch %d, wg id xyz %d%d%d, workitem ids %u) rsrc3 0x%08x properties 0x%04x\n",
              d.compute_pgm_rsrc1, loader::vgprs_from_descriptor(d, t), r1.granulated_wavefront_sgpr_count,
              r1.enable_ieee_mode, r1.enable_dx10_clamp, d.compute_pgm_rsrc2, r2.user_sgpr_count,
              r2.enable_private_segment, r2.enable_sgpr_workgroup_id_x, r2.enable_sgpr_workgroup_id_y,
              r2.enable_sgpr_workgroup_id_z, r2.enable_vgpr_workitem_id, d.compute_pgm_rsrc3, d.kernel_code_properties);
}

void print_code_object(const loader::CodeObject& co) {
  std::printf("code object v%u, target %s (%s)\n", co.version(), co.target().str().c_str(), base::printable(co.metadata().target).c_str());
  for (const auto& k : co.kernels()) print_kernel(k, co.target());
  for (const auto& g : co.globals())
    std::printf("  global %s at 0x%llx, %llu bytes\n", base::printable(g.name).c_str(), (unsigned long long)g.vaddr,
                (unsigned long long)g.size);
}


// The whole file, or an error naming the file and the reason (a directory, a read error).
bool read_input(const std::string& path, std::vector<uint8_t>& data) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "kfdobj: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + n);
  int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err) std::fprintf(stderr, "kfdobj: cannot read %s: %s\n", path.c_str(), std::strerror(err));
  return err == 0;
}

// Output being built: JSON arrays, or text printed as it goes.
struct Dump {
  bool json = false;
  std::string entries, objs;
  int rc = 0;
  std::string path;
  int fail(const std::string& m) {
    std::fprintf(stderr, "kfdobj: %s: %s\n", path.c_str(), m.c_str());
    return rc = 1;
  }
};

// One bundle's entries and code objects; `index` is its place among a host ELF's bundles (or -1).
void dump_bundle(Dump& out, loader::Bytes bytes, int index) {
  std::string where = index < 0 ? "" : "bundle " + std::to_string(index) + ": ";
  auto b = loader::parse_bundle(bytes);
  if (!b) { out.fail(where + b.message()); return; }
  std::string tag = index < 0 ? "" : ",\"bundle\":" + std::to_string(index);
  if (!out.json && index >= 0)
    std::printf("bundle %d%s with %zu entries\n", index, b->compressed ? " (compressed)" : "", b->entries.size());
  for (const auto& e : b->entries) {
    out.entries += (out.entries.empty() ? "" : ",") + std::string("{\"id\":") + json_str(e.id) + tag +
                   ",\"offset\":" + std::to_string(e.offset) + ",\"size\":" + std::to_string(e.size) + "}";
    if (!out.json)
      std::printf("entry %s: offset 0x%llx, %llu bytes\n", base::printable(e.id).c_str(), (unsigned long long)e.offset,
                  (unsigned long long)e.size);
    if (!e.is_amdgpu() || e.size == 0) continue;
    auto co = loader::CodeObject::parse(e.data);
    if (!co) { out.fail(where + e.id + ": " + co.message()); continue; }
    if (out.json) out.objs += (out.objs.empty() ? "" : ",") + json_code_object(*co, e.id, tag);
    else print_code_object(*co);
  }
}

// Identifies the input, then prints each code object it holds.
int kfdobj_main(const std::string& path, bool json) {
  std::vector<uint8_t> data;
  if (!read_input(path, data)) return 1;
  loader::Bytes in(data.data(), data.size());
  Dump out;
  out.json = json;
  out.path = path;
  bool is_elf = data.size() >= 20 && std::memcmp(data.data(), "\x7f" "ELF", 4) == 0;
  bool amdgpu = is_elf && data[18] == (loader::kEmAmdgpu & 0xff) && data[19] == (loader::kEmAmdgpu >> 8);
  if (amdgpu) {
    auto co = loader::CodeObject::parse(in);
    if (!co) return out.fail(co.message());
    if (json) std::printf("{\"file\":%s,\"kind\":\"code object\",\"code_objects\":[%s]}\n", json_str(path).c_str(),
                          json_code_object(*co, "", "").c_str());
    else print_code_object(*co);
    return 0;
  }
  std::string kind;
  if (is_elf) {
    auto fats = loader::find_hip_fatbins(in);
    if (!fats) return out.fail(fats.message());
    kind = "host elf";
    if (!json) std::printf("host elf with %zu bundles\n", fats->size());
    for (size_t i = 0; i < fats->size(); ++i) dump_bundle(out, (*fats)[i], int(i));
  } else if (loader::is_offload_bundle(in) || loader::is_compressed_bundle(in)) {
    kind = loader::is_compressed_bundle(in) ? "compressed bundle" : "bundle";
    if (!json) std::printf("%s\n", kind.c_str());
    dump_bundle(out, in, -1);
  } else {
    return out.fail("not an AMDGPU code object, an offload bundle (__CLANG_OFFLOAD_BUNDLE__ or CCOB) or an ELF file");
  }
  if (json)
    std::printf("{\"file\":%s,\"kind\":%s,\"entries\":[%s],\"code_objects\":[%s]}\n", json_str(path).c_str(),
                json_str(kind).c_str(), out.entries.c_str(), out.objs.c_str());
  return out.rc;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) json = true;
    else if (argv[i][0] == '-' || !path.empty()) { std::fprintf(stderr, "usage: kfdobj FILE [--json]\n"); return 2; }
    else path = argv[i];
  }
  if (path.empty()) { std::fprintf(stderr, "usage: kfdobj FILE [--json]\n"); return 2; }
  return kfdobj_main(path, json);
}
