// SPDX-License-Identifier: MIT
// MessagePack decoding (format spec: github.com/msgpack/msgpack/blob/master/spec.md).
#include "loader/msgpack.h"

#include <algorithm>
#include <cstring>

namespace loader::msgpack {
namespace {

// Containers grow past this by push_back, so memory follows the bytes actually decoded.
constexpr uint64_t kReserveCap = 256;

// Big-endian reads: MessagePack stores multi-byte numbers in network order.
uint64_t load_be(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned k = 0; k < n; ++k) v = (v << 8) | p[k];
  return v;
}

class Decoder {
 public:
  Decoder(Bytes in, uint64_t base, unsigned max_depth) : in_(in), base_(base), max_depth_(max_depth) {}
  // Decodes one value into `v` in place (no Value is moved, which matters for large notes).
  base::Status value(Value& v, unsigned depth);
  uint64_t pos() const { return pos_; }  // relative to the input

 private:
  base::Result<uint64_t> take(unsigned n, const char* what, uint64_t at);
  base::Status str_or_bin(Value& v, uint64_t len);
  base::Status array(Value& v, uint64_t n, unsigned depth);
  base::Status map(Value& v, uint64_t n, unsigned depth);
  base::Status fixed(uint8_t tag, Value& v);

  Bytes in_;
  uint64_t base_;
  uint64_t pos_ = 0;
  unsigned max_depth_;
};

base::Result<uint64_t> Decoder::take(unsigned n, const char* what, uint64_t at) {
  if (!in_bounds(pos_, n, in_.size()))
    return field_error(std::string("msgpack ") + what, at, "truncated (needs " + std::to_string(n) + " bytes)");
  uint64_t v = load_be(in_.data() + pos_, n);
  pos_ += n;
  return v;
}

base::Status Decoder::str_or_bin(Value& v, uint64_t len) {
  if (!in_bounds(pos_, len, in_.size()))
    return field_error(v.kind == Kind::Str ? "msgpack str length" : "msgpack bin length", v.offset,
                       base::hex(len) + " bytes extend past the end (" + base::hex(in_.size()) + " bytes)");
  v.s = std::string_view(reinterpret_cast<const char*>(in_.data() + pos_), len);
  pos_ += len;
  return {};
}

base::Status Decoder::array(Value& v, uint64_t n, unsigned depth) {
  // Each element takes at least one byte: a count above what is left is a lie.
  if (n > in_.size() - pos_)
    return field_error("msgpack array count", v.offset, std::to_string(n) + " elements cannot fit in the " +
                                                            std::to_string(in_.size() - pos_) + " bytes left");
  v.kind = Kind::Array;
  v.array.reserve(std::min<uint64_t>(n, kReserveCap));
  for (uint64_t k = 0; k < n; ++k) KFD_TRY(value(v.array.emplace_back(), depth + 1));
  return {};
}

base::Status Decoder::map(Value& v, uint64_t n, unsigned depth) {
  if (n > (in_.size() - pos_) / 2)
    return field_error("msgpack map count", v.offset, std::to_string(n) + " entries cannot fit in the " +
                                                          std::to_string(in_.size() - pos_) + " bytes left");
  v.kind = Kind::Map;
  v.map.reserve(std::min<uint64_t>(n, kReserveCap));
  for (uint64_t k = 0; k < n; ++k) {
    MapEntry& e = v.map.emplace_back();
    KFD_TRY(value(e.key, depth + 1));
    KFD_TRY(value(e.value, depth + 1));
  }
  return {};
}

// Tags 0xc0..0xd3 with a fixed-size payload (nil, bool, ints, floats).
base::Status Decoder::fixed(uint8_t tag, Value& v) {
  static const unsigned uint_width[4] = {1, 2, 4, 8};
  if (tag == 0xc0) return {};
  if (tag == 0xc2 || tag == 0xc3) { v.kind = Kind::Bool; v.b = tag == 0xc3; return {}; }
  if (tag >= 0xcc && tag <= 0xcf) {
    KFD_ASSIGN(v.u, take(uint_width[tag - 0xcc], "uint", v.offset));
    v.kind = Kind::UInt;
    return {};
  }
  if (tag >= 0xd0 && tag <= 0xd3) {
    unsigned w = uint_width[tag - 0xd0];
    KFD_ASSIGN(uint64_t raw, take(w, "int", v.offset));
    int64_t x = w == 8 ? int64_t(raw) : int64_t(raw << (64 - 8 * w)) >> (64 - 8 * w);
    if (x >= 0) { v.kind = Kind::UInt; v.u = uint64_t(x); } else { v.kind = Kind::Int; v.i = x; }
    return {};
  }
  if (tag == 0xca) {
    KFD_ASSIGN(uint64_t raw, take(4, "float32", v.offset));
    uint32_t r32 = uint32_t(raw);
    float fl;
    std::memcpy(&fl, &r32, 4);
    v.kind = Kind::Float;
    v.f = fl;
    return {};
  }
  if (tag == 0xcb) {
    KFD_ASSIGN(uint64_t raw, take(8, "float64", v.offset));
    v.kind = Kind::Float;
    std::memcpy(&v.f, &raw, 8);
    return {};
  }
  return field_error("msgpack type", v.offset, "tag " + base::hex(tag) + " (ext or reserved) is not supported");
}

base::Status Decoder::value(Value& v, unsigned depth) {
  if (depth > max_depth_)
    return field_error("msgpack nesting", base_ + pos_, "deeper than " + std::to_string(max_depth_) + " levels");
  v.offset = base_ + pos_;
  KFD_ASSIGN(uint64_t tag64, take(1, "type", base_ + pos_));
  auto tag = uint8_t(tag64);
  if (tag <= 0x7f) { v.kind = Kind::UInt; v.u = tag; return {}; }
  if (tag >= 0xe0) { v.kind = Kind::Int; v.i = int8_t(tag); return {}; }
  if ((tag & 0xf0) == 0x80) return map(v, tag & 0x0f, depth);
  if ((tag & 0xf0) == 0x90) return array(v, tag & 0x0f, depth);
  if ((tag & 0xe0) == 0xa0) { v.kind = Kind::Str; return str_or_bin(v, tag & 0x1f); }
  switch (tag) {
    case 0xd9: case 0xda: case 0xdb: {
      KFD_ASSIGN(uint64_t n, take(1u << (tag - 0xd9), "str length", v.offset));
      v.kind = Kind::Str;
      return str_or_bin(v, n);
    }
    case 0xc4: case 0xc5: case 0xc6: {
      KFD_ASSIGN(uint64_t n, take(1u << (tag - 0xc4), "bin length", v.offset));
      v.kind = Kind::Bin;
      return str_or_bin(v, n);
    }
    case 0xdc: case 0xdd: {
      KFD_ASSIGN(uint64_t n, take(tag == 0xdc ? 2 : 4, "array count", v.offset));
      return array(v, n, depth);
    }
    case 0xde: case 0xdf: {
      KFD_ASSIGN(uint64_t n, take(tag == 0xde ? 2 : 4, "map count", v.offset));
      return map(v, n, depth);
    }
    default: return fixed(tag, v);
  }
}

}  // namespace

const Value* Value::find(std::string_view key) const {
  if (kind != Kind::Map) return nullptr;
  for (const auto& kv : map)
    if (kv.key.kind == Kind::Str && kv.key.s == key) return &kv.value;
  return nullptr;
}

const char* kind_name(Kind k) {
  static const char* names[] = {"nil", "bool", "int", "uint", "float", "str", "bin", "array", "map"};
  return names[static_cast<unsigned>(k)];
}

base::Result<Value> parse(Bytes input, uint64_t base, unsigned max_depth) {
  Decoder d(input, base, max_depth);
  Value v;
  KFD_TRY(d.value(v, 0));
  if (d.pos() != input.size())
    return field_error("msgpack", base + d.pos(), std::to_string(input.size() - d.pos()) + " trailing bytes after the value");
  return v;
}

}  // namespace loader::msgpack
