// SPDX-License-Identifier: MIT
// Prints kfdinfo's report tree as JSON or as indented, rocminfo-style text.
#include "tools/kfdinfo/report.h"

#include <cstdio>

namespace kfdinfo {

namespace {

void json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  out += '"';
}

void json_value(std::string& out, const Value& v, int depth) {
  const std::string pad(size_t(depth + 1) * 2, ' '), end_pad(size_t(depth) * 2, ' ');
  switch (v.kind) {
    case Value::Kind::String: json_string(out, v.str); return;
    case Value::Kind::Number: out += std::to_string(v.num); return;
    case Value::Kind::Bool: out += v.flag ? "true" : "false"; return;
    case Value::Kind::Object:
      if (v.fields.empty()) { out += "{}"; return; }
      out += "{\n";
      for (size_t i = 0; i < v.fields.size(); ++i) {
        out += pad;
        json_string(out, v.fields[i].first);
        out += ": ";
        json_value(out, v.fields[i].second, depth + 1);
        out += i + 1 < v.fields.size() ? ",\n" : "\n";
      }
      out += end_pad + "}";
      return;
    case Value::Kind::Array:
      if (v.items.empty()) { out += "[]"; return; }
      out += "[\n";
      for (size_t i = 0; i < v.items.size(); ++i) {
        out += pad;
        json_value(out, v.items[i], depth + 1);
        out += i + 1 < v.items.size() ? ",\n" : "\n";
      }
      out += end_pad + "]";
      return;
  }
}

// "max_clock_mhz" -> "Max clock MHz", "gpu_id" -> "GPU ID".
std::string label(const std::string& key) {
  static const std::pair<const char*, const char*> kWords[] = {
      {"kfd", "KFD"}, {"gpu", "GPU"}, {"cpu", "CPU"}, {"cu", "CU"}, {"drm", "DRM"},
      {"lds", "LDS"}, {"gds", "GDS"}, {"vram", "VRAM"}, {"gtt", "GTT"}, {"id", "ID"},
      {"mhz", "MHz"}, {"xcc", "XCC"}, {"sdma", "SDMA"}, {"eop", "EOP"}, {"cwsr", "CWSR"},
      {"simd", "SIMD"}, {"simds", "SIMDs"}, {"kb", "KB"}, {"xgmi", "XGMI"}, {"asic", "ASIC"},
      {"io", "IO"}, {"amdgpu", "amdgpu"}, {"gfx", "gfx"}};
  std::string out;
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('_', start);
    if (end == std::string::npos) end = key.size();
    std::string word = key.substr(start, end - start);
    for (const auto& [from, to] : kWords)
      if (word == from) word = to;
    if (out.empty() && !word.empty() && word[0] >= 'a' && word[0] <= 'z') word[0] = char(word[0] - 32);
    out += (out.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out;
}

std::string scalar_text(const Value& v) {
  switch (v.kind) {
    case Value::Kind::String: return v.str;
    case Value::Kind::Bool: return v.flag ? "yes" : "no";
    case Value::Kind::Number: {
      if (!v.hex) return std::to_string(v.num);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%llu (0x%llx)", (unsigned long long)v.num,
                    (unsigned long long)v.num);
      return buf;
    }
    default: return {};
  }
}

void text_value(std::string& out, const Value& v, int depth);

void text_field(std::string& out, const std::string& key, const Value& v, int depth) {
  const std::string pad(size_t(depth) * 2, ' ');
  if (v.kind == Value::Kind::Object || v.kind == Value::Kind::Array) {
    out += pad + label(key) + ":\n";
    text_value(out, v, depth + 1);
    return;
  }
  std::string l = label(key) + ":";
  if (l.size() < 28) l.resize(28, ' ');
  out += pad + l + " " + scalar_text(v) + "\n";
}

void text_value(std::string& out, const Value& v, int depth) {
  const std::string pad(size_t(depth) * 2, ' ');
  if (v.kind == Value::Kind::Object) {
    for (const auto& [k, f] : v.fields) text_field(out, k, f, depth);
  } else if (v.kind == Value::Kind::Array) {
    if (v.items.empty()) out += pad + "(none)\n";
    for (size_t i = 0; i < v.items.size(); ++i) {
      if (v.items[i].kind == Value::Kind::Object) {
        out += pad + "[" + std::to_string(i) + "]\n";
        text_value(out, v.items[i], depth + 1);
      } else {
        out += pad + scalar_text(v.items[i]) + "\n";
      }
    }
  } else {
    out += pad + scalar_text(v) + "\n";
  }
}

}  // namespace

std::string to_json(const Value& v) {
  std::string out;
  json_value(out, v, 0);
  out += "\n";
  return out;
}

std::string to_text(const Value& v) {
  std::string out;
  text_value(out, v, 0);
  return out;
}

}  // namespace kfdinfo
