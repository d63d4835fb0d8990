// SPDX-License-Identifier: MIT
// Decoding and validation of the amdhsa.* metadata map into the Metadata model.
#include "loader/metadata.h"

#include <algorithm>

#include "base/text.h"

namespace loader {
namespace {

using msgpack::Kind;
using msgpack::Value;

constexpr const char* kKindNames[] = {
    "by_value", "global_buffer", "dynamic_shared_pointer", "sampler", "image", "pipe", "queue",
    "hidden_global_offset_x", "hidden_global_offset_y", "hidden_global_offset_z", "hidden_none",
    "hidden_printf_buffer", "hidden_hostcall_buffer", "hidden_default_queue",
    "hidden_completion_action", "hidden_multigrid_sync_arg", "hidden_heap_v1",
    "hidden_block_count_x", "hidden_block_count_y", "hidden_block_count_z",
    "hidden_group_size_x", "hidden_group_size_y", "hidden_group_size_z",
    "hidden_remainder_x", "hidden_remainder_y", "hidden_remainder_z",
    "hidden_grid_dims", "hidden_private_base", "hidden_shared_base", "hidden_queue_ptr",
    "hidden_dynamic_lds_size",
};

// Field access with messages like "amdhsa.kernels[1] .sgpr_count at offset 0x2f0: expected uint".
class Fields {
 public:
  Fields(const Value& map, std::string path, uint64_t base) : m_(map), path_(std::move(path)), base_(base) {}

  base::Error err(std::string_view key, const Value* v, const std::string& what) const {
    return field_error(path_ + " " + std::string(key), base_ + (v ? v->offset : m_.offset), what);
  }
  base::Result<uint64_t> uint(std::string_view key) const {
    const Value* v = m_.find(key);
    if (!v) return err(key, nullptr, "missing");
    if (!v->is_uint()) return err(key, v, std::string("expected uint, found ") + msgpack::kind_name(v->kind));
    return v->u;
  }
  base::Result<std::optional<uint64_t>> opt_uint(std::string_view key) const {
    if (!m_.find(key)) return std::optional<uint64_t>{};
    KFD_ASSIGN(uint64_t u, uint(key));
    return std::optional<uint64_t>(u);
  }
  base::Result<std::string> str(std::string_view key) const {
    const Value* v = m_.find(key);
    if (!v) return err(key, nullptr, "missing");
    if (!v->is_str()) return err(key, v, std::string("expected str, found ") + msgpack::kind_name(v->kind));
    return std::string(v->s);
  }
  base::Result<std::optional<std::string>> opt_str(std::string_view key) const {
    if (!m_.find(key)) return std::optional<std::string>{};
    KFD_ASSIGN(std::string s, str(key));
    return std::optional<std::string>(std::move(s));
  }
  // A flag: bool, or (as clang 19 writes .uniform_work_group_size) the integer 0 or 1.
  base::Result<std::optional<bool>> opt_bool(std::string_view key) const {
    const Value* v = m_.find(key);
    if (!v) return std::optional<bool>{};
    if (v->kind == Kind::UInt && v->u <= 1) return std::optional<bool>(v->u == 1);
    if (v->kind != Kind::Bool) return err(key, v, std::string("expected bool, found ") + msgpack::kind_name(v->kind));
    return std::optional<bool>(v->b);
  }
  base::Result<std::optional<std::vector<uint64_t>>> opt_dims(std::string_view key) const {
    const Value* v = m_.find(key);
    if (!v) return std::optional<std::vector<uint64_t>>{};
    if (v->kind != Kind::Array || v->array.size() != 3) return err(key, v, "expected an array of 3 uints");
    std::vector<uint64_t> out;
    for (const Value& e : v->array) {
      if (!e.is_uint()) return err(key, &e, "expected uint");
      out.push_back(e.u);
    }
    return std::optional<std::vector<uint64_t>>(std::move(out));
  }

 private:
  const Value& m_;
  std::string path_;
  uint64_t base_;
};

// Map keys must be strings, each once. MessagePack leaves duplicate keys undefined; a second copy would let readers of the same note
// (find() takes the first, a tool walking the map sees both) disagree, so it is a lie.
base::Status check_unique_keys(const Value& m, const std::string& path, uint64_t base) {
  std::vector<const Value*> keys;
  keys.reserve(m.map.size());
  for (const msgpack::MapEntry& e : m.map) {
    if (!e.key.is_str())
      return field_error((path.empty() ? "metadata" : path) + " key", base + e.key.offset,
                         std::string("expected str, found ") + msgpack::kind_name(e.key.kind));
    keys.push_back(&e.key);
  }
  std::stable_sort(keys.begin(), keys.end(), [](const Value* a, const Value* b) { return a->s < b->s; });
  for (size_t i = 1; i < keys.size(); ++i)
    if (keys[i]->s == keys[i - 1]->s)
      return field_error((path.empty() ? "" : path + " ") + std::string(keys[i]->s), base + keys[i]->offset,
                         "key appears twice");
  return {};
}

base::Result<KernelArg> parse_arg(const Value& v, const std::string& path, uint64_t base) {
  if (v.kind != Kind::Map) return field_error(path, base + v.offset, "expected a map");
  KFD_TRY(check_unique_keys(v, path, base));
  Fields f(v, path, base);
  KernelArg a;
  KFD_ASSIGN(a.name, f.opt_str(".name"));
  KFD_ASSIGN(a.type_name, f.opt_str(".type_name"));
  KFD_ASSIGN(a.offset, f.uint(".offset"));
  KFD_ASSIGN(a.size, f.uint(".size"));
  KFD_ASSIGN(a.alignment, f.opt_uint(".align"));
  KFD_ASSIGN(a.pointee_align, f.opt_uint(".pointee_align"));
  KFD_ASSIGN(std::string kind, f.str(".value_kind"));
  auto vk = value_kind_from_name(kind);
  if (!vk) return f.err(".value_kind", v.find(".value_kind"), "unknown value kind " + base::quoted(kind));
  a.value_kind = *vk;
  KFD_ASSIGN(a.address_space, f.opt_str(".address_space"));
  KFD_ASSIGN(a.access, f.opt_str(".access"));
  KFD_ASSIGN(a.actual_access, f.opt_str(".actual_access"));
  KFD_ASSIGN(auto c, f.opt_bool(".is_const"));
  KFD_ASSIGN(auto r, f.opt_bool(".is_restrict"));
  KFD_ASSIGN(auto vol, f.opt_bool(".is_volatile"));
  KFD_ASSIGN(auto pipe, f.opt_bool(".is_pipe"));
  a.is_const = c.value_or(false);
  a.is_restrict = r.value_or(false);
  a.is_volatile = vol.value_or(false);
  a.is_pipe = pipe.value_or(false);
  if (a.alignment && !is_pow2(*a.alignment))
    return f.err(".align", v.find(".align"), std::to_string(*a.alignment) + " is not a power of two");
  if (a.alignment && a.offset % *a.alignment)
    return f.err(".offset", v.find(".offset"), std::to_string(a.offset) + " is not a multiple of .align");
  return a;
}

// Limits no real kernel reaches; larger values are lies that would make callers misbehave.
constexpr uint64_t kMaxKernarg = 1u << 20, kMaxLds = 1u << 20, kMaxWorkgroup = 1024;

base::Status check_kernel(const KernelMeta& k, const Value& v, const Fields& f) {
  if (k.kernarg_segment_size > kMaxKernarg)
    return f.err(".kernarg_segment_size", v.find(".kernarg_segment_size"), "too large");
  if (!is_pow2(k.kernarg_segment_align))
    return f.err(".kernarg_segment_align", v.find(".kernarg_segment_align"), "is not a power of two");
  if (k.group_segment_fixed_size > kMaxLds)
    return f.err(".group_segment_fixed_size", v.find(".group_segment_fixed_size"), "too large");
  if (k.wavefront_size != 32 && k.wavefront_size != 64)
    return f.err(".wavefront_size", v.find(".wavefront_size"), std::to_string(k.wavefront_size) + " is not 32 or 64");
  if (k.max_flat_workgroup_size == 0 || k.max_flat_workgroup_size > kMaxWorkgroup)
    return f.err(".max_flat_workgroup_size", v.find(".max_flat_workgroup_size"), "is not in 1..1024");
  const Value* args = v.find(".args");
  for (size_t i = 0; i < k.args.size(); ++i) {
    const KernelArg& a = k.args[i];
    if (!in_bounds(a.offset, a.size, k.kernarg_segment_size))
      return f.err(".args[" + std::to_string(i) + "] .offset", &args->array[i],
                   "argument [" + std::to_string(a.offset) + ", +" + std::to_string(a.size) +
                       ") is outside .kernarg_segment_size " + std::to_string(k.kernarg_segment_size));
  }
  return {};
}

base::Status parse_args(KernelMeta& k, const Value& v, const std::string& path, uint64_t base) {
  const Value* args = v.find(".args");
  if (!args) return {};
  if (args->kind != Kind::Array) return field_error(path + " .args", base + args->offset, "expected an array");
  k.args.reserve(args->array.size());
  for (size_t i = 0; i < args->array.size(); ++i) {
    KFD_ASSIGN(KernelArg a, parse_arg(args->array[i], path + " .args[" + std::to_string(i) + "]", base));
    k.args.push_back(std::move(a));
  }
  return {};
}

base::Result<KernelMeta> parse_kernel(const Value& v, const std::string& path, uint64_t base) {
  if (v.kind != Kind::Map) return field_error(path, base + v.offset, "expected a map");
  KFD_TRY(check_unique_keys(v, path, base));
  Fields f(v, path, base);
  KernelMeta k;
  KFD_ASSIGN(k.name, f.str(".name"));
  KFD_ASSIGN(k.symbol, f.str(".symbol"));
  KFD_ASSIGN(k.language, f.opt_str(".language"));
  KFD_ASSIGN(k.kind, f.opt_str(".kind"));
  KFD_ASSIGN(k.kernarg_segment_size, f.uint(".kernarg_segment_size"));
  KFD_ASSIGN(k.kernarg_segment_align, f.uint(".kernarg_segment_align"));
  KFD_ASSIGN(k.group_segment_fixed_size, f.uint(".group_segment_fixed_size"));
  KFD_ASSIGN(k.private_segment_fixed_size, f.uint(".private_segment_fixed_size"));
  KFD_ASSIGN(k.wavefront_size, f.uint(".wavefront_size"));
  KFD_ASSIGN(k.sgpr_count, f.uint(".sgpr_count"));
  KFD_ASSIGN(k.vgpr_count, f.uint(".vgpr_count"));
  KFD_ASSIGN(k.max_flat_workgroup_size, f.uint(".max_flat_workgroup_size"));
  KFD_ASSIGN(k.agpr_count, f.opt_uint(".agpr_count"));
  KFD_ASSIGN(k.sgpr_spill_count, f.opt_uint(".sgpr_spill_count"));
  KFD_ASSIGN(k.vgpr_spill_count, f.opt_uint(".vgpr_spill_count"));
  KFD_ASSIGN(k.uses_dynamic_stack, f.opt_bool(".uses_dynamic_stack"));
  KFD_ASSIGN(k.uniform_work_group_size, f.opt_bool(".uniform_work_group_size"));
  KFD_ASSIGN(k.workgroup_processor_mode, f.opt_bool(".workgroup_processor_mode"));
  KFD_ASSIGN(k.reqd_workgroup_size, f.opt_dims(".reqd_workgroup_size"));
  KFD_ASSIGN(k.workgroup_size_hint, f.opt_dims(".workgroup_size_hint"));
  KFD_TRY(parse_args(k, v, path, base));
  KFD_TRY(check_kernel(k, v, f));
  return k;
}

base::Status parse_version(Metadata& md, const Value& root, uint64_t base) {
  const Value* ver = root.find("amdhsa.version");
  if (!ver) return field_error("amdhsa.version", base + root.offset, "missing");
  if (ver->kind != Kind::Array || ver->array.size() != 2 || !ver->array[0].is_uint() || !ver->array[1].is_uint())
    return field_error("amdhsa.version", base + ver->offset, "expected [major, minor]");
  md.version_major = ver->array[0].u;
  md.version_minor = ver->array[1].u;
  if (md.version_major != 1)
    return field_error("amdhsa.version", base + ver->offset, "major version " + std::to_string(md.version_major) + " is not 1");
  return {};
}

}  // namespace

const char* value_kind_name(ValueKind k) { return kKindNames[static_cast<unsigned>(k)]; }

std::optional<ValueKind> value_kind_from_name(std::string_view s) {
  for (unsigned i = 0; i < std::size(kKindNames); ++i)
    if (s == kKindNames[i]) return static_cast<ValueKind>(i);
  return std::nullopt;
}

base::Result<Metadata> parse_metadata(Bytes note_desc, uint64_t base) {
  KFD_ASSIGN(msgpack::Value root, msgpack::parse(note_desc, base));
  base = 0;  // value offsets are file offsets already
  if (root.kind != Kind::Map) return field_error("metadata", base, "top level is not a map");
  KFD_TRY(check_unique_keys(root, "", base));
  Metadata md;
  KFD_TRY(parse_version(md, root, base));
  Fields top(root, "metadata", base);
  KFD_ASSIGN(auto target, top.opt_str("amdhsa.target"));
  md.target = target.value_or("");
  if (const Value* pf = root.find("amdhsa.printf")) {
    if (pf->kind != Kind::Array) return field_error("amdhsa.printf", base + pf->offset, "expected an array");
    for (const Value& s : pf->array) {
      if (!s.is_str()) return field_error("amdhsa.printf", base + s.offset, "expected str");
      md.printf.emplace_back(s.s);
    }
  }
  const Value* ks = root.find("amdhsa.kernels");
  if (ks) {
    if (ks->kind != Kind::Array) return field_error("amdhsa.kernels", base + ks->offset, "expected an array");
    md.kernels.reserve(ks->array.size());
    for (size_t i = 0; i < ks->array.size(); ++i) {
      KFD_ASSIGN(KernelMeta k, parse_kernel(ks->array[i], "amdhsa.kernels[" + std::to_string(i) + "]", base));
      md.kernels.push_back(std::move(k));
    }
  }
  md.raw = std::move(root);
  return md;
}

}  // namespace loader
