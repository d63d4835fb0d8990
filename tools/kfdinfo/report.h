// SPDX-License-Identifier: MIT
// kfdinfo's report: an ordered tree of named values, printed as indented text or as JSON.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kfdinfo {

// A JSON-like value: string, unsigned number, boolean, object (ordered fields) or array.
struct Value {
  enum class Kind { String, Number, Bool, Object, Array };
  Kind kind = Kind::Object;
  std::string str;
  uint64_t num = 0;
  bool hex = false;  // text output prints the number in hex as well
  bool flag = false;
  std::vector<std::pair<std::string, Value>> fields;  // Object
  std::vector<Value> items;                           // Array

  static Value string(std::string s) { Value v; v.kind = Kind::String; v.str = std::move(s); return v; }
  static Value number(uint64_t n, bool hex = false) {
    Value v; v.kind = Kind::Number; v.num = n; v.hex = hex; return v;
  }
  static Value boolean(bool b) { Value v; v.kind = Kind::Bool; v.flag = b; return v; }
  static Value object() { return Value{}; }
  static Value array() { Value v; v.kind = Kind::Array; return v; }

  Value& add(std::string key, Value v) {
    fields.emplace_back(std::move(key), std::move(v));
    return fields.back().second;
  }
  Value& add(std::string key, std::string s) { return add(std::move(key), string(std::move(s))); }
  Value& add(std::string key, const char* s) { return add(std::move(key), string(s)); }
  Value& add(std::string key, uint64_t n, bool hex = false) {
    return add(std::move(key), number(n, hex));
  }
  Value& push(Value v) {
    items.push_back(std::move(v));
    return items.back();
  }
};

// Escaped JSON text of a value (RFC 8259), two-space indentation.
std::string to_json(const Value& v);
// Human-readable text in the style of rocminfo: "  Name:    gfx90a".
std::string to_text(const Value& v);

}  // namespace kfdinfo
