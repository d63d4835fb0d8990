// SPDX-License-Identifier: MIT
// Test helpers: files, LLVM tool invocation, a YAML subset parser and comparison, bundle writers.
#include "test_util.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <sstream>
#include <algorithm>

namespace loader_test {

std::string data_dir() {
  const char* d = std::getenv("KFDRT_LOADER_DATA");
  return d ? d : ".";
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

std::vector<uint8_t> read_data(const std::string& name) { return read_file(data_dir() + "/" + name); }

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    ADD_FAILURE() << "popen failed: " << cmd;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  EXPECT_EQ(rc, 0) << "command failed: " << cmd;
  return out;
}

std::string tool(const char* env_name) {
  const char* t = std::getenv(env_name);
  EXPECT_NE(t, nullptr) << env_name << " is not set (run through meson test)";
  return t ? t : "false";
}

const Yaml* Yaml::find(const std::string& key) const {
  for (const auto& kv : map)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

namespace {

size_t indent_of(const std::string& l) { return l.find_first_not_of(' '); }

std::string unquote(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') {
    std::string out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      out += s[i];
      if (s[i] == '\'' && s[i + 1] == '\'') ++i;
    }
    return out;
  }
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] == '\\' && i + 2 < s.size()) {
        char c = s[++i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
      } else {
        out += s[i];
      }
    }
    return out;
  }
  return s;
}

Yaml scalar_or_flow(const std::string& text) {
  Yaml y;
  std::string t = text;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (!t.empty() && t.front() == '[' && t.back() == ']') {
    y.kind = Yaml::Seq;
    std::stringstream ss(t.substr(1, t.size() - 2));
    std::string item;
    while (std::getline(ss, item, ',')) {
      item.erase(0, item.find_first_not_of(' '));
      if (!item.empty()) y.seq.push_back(scalar_or_flow(item));
    }
    return y;
  }
  y.scalar = unquote(t);
  return y;
}

class YamlParser {
 public:
  explicit YamlParser(std::vector<std::string> lines) : l_(std::move(lines)) {}
  Yaml node(size_t indent) {
    if (is_item(i_, indent)) return seq(indent);
    return map(indent);
  }
  bool done() const { return i_ >= l_.size(); }

 private:
  bool is_item(size_t i, size_t indent) const {
    return i < l_.size() && indent_of(l_[i]) == indent && l_[i].compare(indent, 2, "- ") == 0;
  }
  Yaml seq(size_t indent) {
    Yaml y;
    y.kind = Yaml::Seq;
    while (is_item(i_, indent)) {
      std::string rest = l_[i_].substr(indent + 2);
      if (rest.find(": ") != std::string::npos || (!rest.empty() && rest.back() == ':')) {
        l_[i_][indent] = ' ';  // "- key: v" becomes a map line two columns in
        y.seq.push_back(map(indent + 2));
      } else {
        y.seq.push_back(scalar_or_flow(rest));
        ++i_;
      }
    }
    return y;
  }
  Yaml map(size_t indent) {
    Yaml y;
    y.kind = Yaml::Map;
    while (i_ < l_.size() && indent_of(l_[i_]) == indent && !is_item(i_, indent)) {
      const std::string& line = l_[i_];
      size_t colon = line.find(':', indent);
      std::string key = unquote(line.substr(indent, colon - indent));
      std::string rest = colon + 1 < line.size() ? line.substr(colon + 1) : "";
      rest.erase(0, rest.find_first_not_of(' ') == std::string::npos ? rest.size() : rest.find_first_not_of(' '));
      ++i_;
      if (!rest.empty()) {
        y.map.emplace_back(key, scalar_or_flow(rest));
      } else if (i_ < l_.size() && (indent_of(l_[i_]) > indent || is_item(i_, indent))) {
        y.map.emplace_back(key, node(indent_of(l_[i_])));
      } else {
        y.map.emplace_back(key, Yaml{});
      }
    }
    return y;
  }
  std::vector<std::string> l_;
  size_t i_ = 0;
};

}  // namespace

Yaml parse_yaml(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line))
    if (line.find_first_not_of(' ') != std::string::npos) lines.push_back(line);
  YamlParser p(std::move(lines));
  return p.node(0);
}

std::vector<Yaml> readelf_metadata(const std::string& readelf, const std::string& path) {
  // llvm-readelf prints each document between a (possibly indented) "---" line and a "..." line.
  std::stringstream ss(run(readelf + " --notes '" + path + "'"));
  std::vector<Yaml> docs;
  std::string line, doc;
  bool in_doc = false;
  while (std::getline(ss, line)) {
    size_t first = line.find_first_not_of(' ');
    std::string trimmed = first == std::string::npos ? "" : line.substr(first);
    if (!in_doc && trimmed == "---") {
      in_doc = true;
      doc.clear();
    } else if (in_doc && line == "...") {
      docs.push_back(parse_yaml(doc));
      in_doc = false;
    } else if (in_doc) {
      doc += line + "\n";
    }
  }
  return docs;
}

std::string compare(const Yaml& y, const loader::msgpack::Value& v, const std::string& path) {
  using loader::msgpack::Kind;
  switch (v.kind) {
    case Kind::Map: {
      if (y.kind != Yaml::Map) return path + ": readelf has no map";
      if (y.map.size() != v.map.size())
        return path + ": readelf has " + std::to_string(y.map.size()) + " keys, loader " + std::to_string(v.map.size());
      for (const auto& kv : v.map) {
        const Yaml* c = y.find(std::string(kv.key.s));
        if (!c) return path + ": readelf lacks key " + std::string(kv.key.s);
        std::string r = compare(*c, kv.value, path + "/" + std::string(kv.key.s));
        if (!r.empty()) return r;
      }
      return "";
    }
    case Kind::Array: {
      if (y.kind != Yaml::Seq || y.seq.size() != v.array.size()) return path + ": sequence length differs";
      for (size_t i = 0; i < v.array.size(); ++i) {
        std::string r = compare(y.seq[i], v.array[i], path + "[" + std::to_string(i) + "]");
        if (!r.empty()) return r;
      }
      return "";
    }
    default: break;
  }
  if (y.kind != Yaml::Scalar) return path + ": readelf has a collection, loader a scalar";
  std::string mine;
  if (v.kind == Kind::UInt) mine = std::to_string(v.u);
  else if (v.kind == Kind::Int) mine = std::to_string(v.i);
  else if (v.kind == Kind::Bool) mine = v.b ? "true" : "false";
  else if (v.kind == Kind::Str) mine = std::string(v.s);
  else if (v.kind == Kind::Float) return std::stod(y.scalar) == v.f ? "" : path + ": float differs";
  if (mine != y.scalar) return path + ": readelf '" + y.scalar + "', loader '" + mine + "'";
  return "";
}

std::vector<uint8_t> make_bundle(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& entries) {
  size_t table = 24 + 8;
  for (const auto& e : entries) table += 24 + e.first.size();
  std::vector<uint8_t> out(table);
  std::memcpy(out.data(), "__CLANG_OFFLOAD_BUNDLE__", 24);
  put_le<uint64_t>(out, 24, entries.size());
  size_t pos = 32;
  for (const auto& e : entries) {
    size_t off = (out.size() + 7) & ~size_t(7);
    out.resize(off + e.second.size());
    if (!e.second.empty()) std::memcpy(out.data() + off, e.second.data(), e.second.size());
    put_le<uint64_t>(out, pos, off);
    put_le<uint64_t>(out, pos + 8, e.second.size());
    put_le<uint64_t>(out, pos + 16, e.first.size());
    std::memcpy(out.data() + pos + 24, e.first.data(), e.first.size());
    pos += 24 + e.first.size();
  }
  return out;
}

std::vector<uint8_t> make_ccob(const std::vector<uint8_t>& bundle, int version, int method) {
  std::vector<uint8_t> z;
  if (method == 0) {
    uLongf n = compressBound(bundle.size());
    z.resize(n);
    EXPECT_EQ(compress2(z.data(), &n, bundle.data(), bundle.size(), 6), Z_OK);
    z.resize(n);
  } else {
    z.resize(ZSTD_compressBound(bundle.size()));
    size_t n = ZSTD_compress(z.data(), z.size(), bundle.data(), bundle.size(), 3);
    EXPECT_FALSE(ZSTD_isError(n));
    z.resize(n);
  }
  size_t hdr = version == 1 ? 20 : version == 2 ? 24 : 32;
  std::vector<uint8_t> out(hdr);
  std::memcpy(out.data(), "CCOB", 4);
  put_le<uint16_t>(out, 4, version);
  put_le<uint16_t>(out, 6, method);
  if (version == 1) {
    put_le<uint32_t>(out, 8, bundle.size());
  } else if (version == 2) {
    put_le<uint32_t>(out, 8, hdr + z.size());
    put_le<uint32_t>(out, 12, bundle.size());
  } else {
    put_le<uint64_t>(out, 8, hdr + z.size());
    put_le<uint64_t>(out, 16, bundle.size());
  }
  out.insert(out.end(), z.begin(), z.end());
  return out;
}

std::vector<std::string> built_code_objects() {
  std::vector<std::string> out;
  if (DIR* d = opendir(data_dir().c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".co") == 0 && n.rfind("big_table", 0) != 0) out.push_back(n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace loader_test
