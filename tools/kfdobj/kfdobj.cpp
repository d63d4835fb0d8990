// SPDX-License-Identifier: MIT
// kfdobj: dumps the targets, kernels, arguments and kernel descriptors of a code object, an offload
// bundle, or a host executable/shared library with an embedded HIP fat binary.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "loader/bundle.h"
#include "loader/code_object.h"
#include "loader/elf.h"

namespace {

using loader::msgpack::Kind;
using loader::msgpack::Value;

std::string json_str(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') { o += '\\'; o += c; }
    else if (u < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", u); o += b; }
    else o += c;
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

std::string json_descriptor(const loader::Kernel& k, const loader::TargetId& t) {
  const loader::KernelDescriptor& d = k.descriptor;
  auto r1 = loader::decode_rsrc1(d.compute_pgm_rsrc1);
  auto r2 = loader::decode_rsrc2(d.compute_pgm_rsrc2);
  auto p = loader::decode_code_properties(d.kernel_code_properties);
  char b[2048];
  std::snprintf(b, sizeof b,
      "{\"address\":%llu,\"group_segment_fixed_size\":%u,\"private_segment_fixed_size\":%u,\"kernarg_size\":%u,"
      "\"kernel_code_entry_byte_offset\":%lld,\"compute_pgm_rsrc1\":%u,\"compute_pgm_rsrc2\":%u,\"compute_pgm_rsrc3\":%u,"
      "\"kernel_code_properties\":%u,\"kernarg_preload\":%u,"
      "\"rsrc1\":{\"granulated_workitem_vgpr_count\":%u,\"granulated_wavefront_sgpr_count\":%u,\"vgprs\":%u,"
      "\"float_round_mode_32\":%u,\"float_round_mode_16_64\":%u,\"float_denorm_mode_32\":%u,\"float_denorm_mode_16_64\":%u,"
      "\"dx10_clamp\":%s,\"ieee_mode\":%s,\"fp16_ovfl\":%s,\"wgp_mode\":%s,\"mem_ordered\":%s},"
      "\"rsrc2\":{\"enable_private_segment\":%s,\"user_sgpr_count\":%u,\"enable_trap_handler\":%s,"
      "\"workgroup_id_x\":%s,\"workgroup_id_y\":%s,\"workgroup_id_z\":%s,\"workgroup_info\":%s,"
      "\"vgpr_workitem_id\":%u,\"granulated_lds_size\":%u,\"exceptions\":%u},"
      "\"properties\":{\"private_segment_buffer\":%s,\"dispatch_ptr\":%s,\"queue_ptr\":%s,\"kernarg_segment_ptr\":%s,"
      "\"dispatch_id\":%s,\"flat_scratch_init\":%s,\"private_segment_size\":%s,\"wavefront_size32\":%s,"
      "\"uses_dynamic_stack\":%s}}",
      (unsigned long long)k.descriptor_vaddr, d.group_segment_fixed_size, d.private_segment_fixed_size, d.kernarg_size,
      (long long)d.kernel_code_entry_byte_offset, d.compute_pgm_rsrc1, d.compute_pgm_rsrc2, d.compute_pgm_rsrc3,
      d.kernel_code_properties, d.kernarg_preload, r1.granulated_workitem_vgpr_count,
      r1.granulated_wavefront_sgpr_count, loader::vgprs_from_descriptor(d, t), r1.float_round_mode_32,
      r1.float_round_mode_16_64, r1.float_denorm_mode_32, r1.float_denorm_mode_16_64,
      r1.enable_dx10_clamp ? "true" : "false", r1.enable_ieee_mode ? "true" : "false", r1.fp16_ovfl ? "true" : "false",
      r1.wgp_mode ? "true" : "false", r1.mem_ordered ? "true" : "false", r2.enable_private_segment ? "true" : "false",
      r2.user_sgpr_count, r2.enable_trap_handler ? "true" : "false", r2.enable_sgpr_workgroup_id_x ? "true" : "false",
      r2.enable_sgpr_workgroup_id_y ? "true" : "false", r2.enable_sgpr_workgroup_id_z ? "true" : "false",
      r2.enable_sgpr_workgroup_info ? "true" : "false", r2.enable_vgpr_workitem_id, r2.granulated_lds_size,
      r2.enable_exceptions, p.private_segment_buffer ? "true" : "false", p.dispatch_ptr ? "true" : "false",
      p.queue_ptr ? "true" : "false", p.kernarg_segment_ptr ? "true" : "false", p.dispatch_id ? "true" : "false",
      p.flat_scratch_init ? "true" : "false", p.private_segment_size ? "true" : "false",
      p.wavefront_size32 ? "true" : "false", p.uses_dynamic_stack ? "true" : "false");
  return b;
}

// One code object as JSON: its metadata map, each kernel gaining a ".descriptor" key.
std::string json_code_object(const loader::CodeObject& co, const std::string& bundle_id) {
  std::string o = "{";
  if (!bundle_id.empty()) o += "\"bundle_id\":" + json_str(bundle_id) + ",";
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
  std::printf("  kernel %s (descriptor %s at 0x%llx, entry 0x%llx)\n", m.name.c_str(), m.symbol.c_str(),
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
    if (a.type_name) std::printf(" '%s'", a.type_name->c_str());
    if (a.name) std::printf(" %s", a.name->c_str());
    std::printf("\n");
  }
  const auto& d = k.descriptor;
  auto r1 = loader::decode_rsrc1(d.compute_pgm_rsrc1);
  auto r2 = loader::decode_rsrc2(d.compute_pgm_rsrc2);
  std::printf("    descriptor: rsrc1 0x%08x (vgprs %u, sgpr granule %u, ieee %d, dx10_clamp %d) rsrc2 0x%08x "
              "(user sgprs %u, scratch %d, wg id xyz %d%d%d, workitem ids %u) rsrc3 0x%08x properties 0x%04x\n",
              d.compute_pgm_rsrc1, loader::vgprs_from_descriptor(d, t), r1.granulated_wavefront_sgpr_count,
              r1.enable_ieee_mode, r1.enable_dx10_clamp, d.compute_pgm_rsrc2, r2.user_sgpr_count,
              r2.enable_private_segment, r2.enable_sgpr_workgroup_id_x, r2.enable_sgpr_workgroup_id_y,
              r2.enable_sgpr_workgroup_id_z, r2.enable_vgpr_workitem_id, d.compute_pgm_rsrc3, d.kernel_code_properties);
}

void print_code_object(const loader::CodeObject& co) {
  std::printf("code object v%u, target %s (%s)\n", co.version(), co.target().str().c_str(), co.metadata().target.c_str());
  for (const auto& k : co.kernels()) print_kernel(k, co.target());
  for (const auto& g : co.globals())
    std::printf("  global %s at 0x%llx, %llu bytes\n", g.name.c_str(), (unsigned long long)g.vaddr,
                (unsigned long long)g.size);
}

}  // namespace

int kfdobj_main(const std::string& path, bool json);

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

// Identifies the input, then prints each code object it holds.
int kfdobj_main(const std::string& path, bool json) {
  std::ifstream f(path, std::ios::binary);
  if (!f) { std::fprintf(stderr, "kfdobj: cannot open %s\n", path.c_str()); return 1; }
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(f)), {});
  loader::Bytes in(data.data(), data.size());
  auto fail = [&](const std::string& m) { std::fprintf(stderr, "kfdobj: %s: %s\n", path.c_str(), m.c_str()); return 1; };
  bool is_elf = data.size() >= 20 && std::memcmp(data.data(), "\x7f" "ELF", 4) == 0;
  bool amdgpu = is_elf && data[18] == (loader::kEmAmdgpu & 0xff) && data[19] == (loader::kEmAmdgpu >> 8);
  if (amdgpu) {
    auto co = loader::CodeObject::parse(in);
    if (!co) return fail(co.message());
    if (json) std::printf("{\"file\":%s,\"kind\":\"code object\",\"code_objects\":[%s]}\n", json_str(path).c_str(),
                          json_code_object(*co, "").c_str());
    else print_code_object(*co);
    return 0;
  }
  loader::Bytes bundle_bytes = in;
  if (is_elf) {
    auto fat = loader::find_hip_fatbin(in);
    if (!fat) return fail(fat.message());
    bundle_bytes = *fat;
  }
  auto b = loader::parse_bundle(bundle_bytes);
  if (!b) return fail(b.message());
  std::string kind = is_elf ? "host elf" : b->compressed ? "compressed bundle" : "bundle";
  std::string objs, entries;
  if (!json) std::printf("%s with %zu entries\n", kind.c_str(), b->entries.size());
  int rc = 0;
  for (const auto& e : b->entries) {
    entries += (entries.empty() ? "" : ",") + std::string("{\"id\":") + json_str(e.id) + ",\"offset\":" +
               std::to_string(e.offset) + ",\"size\":" + std::to_string(e.size) + "}";
    if (!json) std::printf("entry %s: offset 0x%llx, %llu bytes\n", e.id.c_str(), (unsigned long long)e.offset, (unsigned long long)e.size);
    if (!e.is_amdgpu() || e.size == 0) continue;
    auto co = loader::CodeObject::parse(e.data);
    if (!co) { rc = fail(e.id + ": " + co.message()); continue; }
    if (json) objs += (objs.empty() ? "" : ",") + json_code_object(*co, e.id);
    else print_code_object(*co);
  }
  if (json)
    std::printf("{\"file\":%s,\"kind\":%s,\"entries\":[%s],\"code_objects\":[%s]}\n", json_str(path).c_str(),
                json_str(kind).c_str(), entries.c_str(), objs.c_str());
  return rc;
}
