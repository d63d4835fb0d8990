// SPDX-License-Identifier: MIT
// Device printf formatting: walks the format string and formats each argument with the C library.
#include "api/hip/printf.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace hip {
namespace {

// Reads the message's elements in order.
class Reader {
 public:
  explicit Reader(std::span<const uint64_t> m) : m_(m) {}
  bool next(uint64_t* v) {
    if (pos_ >= m_.size()) return false;
    *v = m_[pos_++];
    return true;
  }
  // A NUL-terminated string packed 8 bytes per element, little-endian, padded to whole elements.
  bool string(std::string* s) {
    s->clear();
    for (;;) {
      uint64_t v;
      if (!next(&v)) return false;
      for (int i = 0; i < 8; ++i) {
        char c = char((v >> (8 * i)) & 0xff);
        if (c == 0) return true;
        s->push_back(c);
      }
    }
  }

 private:
  std::span<const uint64_t> m_;
  size_t pos_ = 0;
};

struct Spec {
  std::string flags, width, precision, length;  // precision includes its '.'
  char conv = 0;
  bool malformed = false;  // a field mixing '*' and digits ("%*5d", "%1*d"): printed as it is
};

// Widths and precisions are clamped to this: a format or an argument from the device must not
// make the host build gigabytes of padding.
constexpr uint64_t kMaxField = 4096;

template <class... A>
void append(std::string& out, const std::string& spec, A... a) {
  int n = std::snprintf(nullptr, 0, spec.c_str(), a...);
  if (n <= 0) return;
  size_t old = out.size();
  out.resize(old + size_t(n) + 1);
  std::snprintf(&out[old], size_t(n) + 1, spec.c_str(), a...);
  out.resize(old + size_t(n));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A width or precision: a lone '*' or digits (clamped to kMaxField); appends it to `out`.
size_t parse_field(std::string_view f, size_t i, std::string* out, bool* malformed) {
  if (i < f.size() && f[i] == '*') {
    *out += '*';
    ++i;
    if (i < f.size() && (is_digit(f[i]) || f[i] == '*')) *malformed = true;
    return i;
  }
  uint64_t v = 0;
  bool any = false;
  for (; i < f.size() && is_digit(f[i]); ++i) {
    v = std::min<uint64_t>(v * 10 + uint64_t(f[i] - '0'), kMaxField);
    any = true;
  }
  if (i < f.size() && f[i] == '*') *malformed = true;
  if (any) *out += std::to_string(v);
  return i;
}

// Parses the conversion starting after a '%'; returns the index past it (conv stays 0 when the
// format ends inside the specification).
size_t parse_spec(std::string_view f, size_t i, Spec* s) {
  while (i < f.size() && std::strchr("-+ #0'", f[i])) s->flags += f[i++];
  i = parse_field(f, i, &s->width, &s->malformed);
  if (i < f.size() && f[i] == '.') {
    s->precision += f[i++];
    i = parse_field(f, i, &s->precision, &s->malformed);
  }
  while (i < f.size() && std::strchr("hljztL", f[i])) s->length += f[i++];
  if (i < f.size()) s->conv = f[i++];
  return i;
}

// Replaces `*` in the width and precision by the arguments they take (clamped to kMaxField; a
// negative width means left-justified, a negative precision none).
bool resolve_stars(Spec& s, Reader& r) {
  uint64_t v;
  if (s.width == "*") {
    if (!r.next(&v)) return false;
    int64_t w = int32_t(uint32_t(v));
    if (w < 0) s.flags += '-', w = -w;
    s.width = std::to_string(std::min<uint64_t>(uint64_t(w), kMaxField));
  }
  if (s.precision == ".*") {
    if (!r.next(&v)) return false;
    int64_t p = int32_t(uint32_t(v));
    s.precision = p < 0 ? "" : "." + std::to_string(std::min<uint64_t>(uint64_t(p), kMaxField));
  }
  return true;
}

long long as_signed(uint64_t v, const std::string& len) {
  if (len == "hh") return static_cast<signed char>(v);
  if (len == "h") return static_cast<short>(v);
  if (len.empty()) return static_cast<int>(uint32_t(v));
  return static_cast<long long>(v);
}

unsigned long long as_unsigned(uint64_t v, const std::string& len) {
  if (len == "hh") return static_cast<unsigned char>(v);
  if (len == "h") return static_cast<unsigned short>(v);
  if (len.empty()) return uint32_t(v);
  return v;
}

// Formats one conversion; false when the message has no argument left for it.
bool convert(Spec s, Reader& r, std::string& out) {
  if (!resolve_stars(s, r)) return false;
  std::string head = "%" + s.flags + s.width;
  uint64_t v = 0;
  if (s.conv == 's') {
    std::string str;
    if (!r.string(&str)) return false;
    append(out, head + s.precision + "s", str.c_str());
    return true;
  }
  if (!r.next(&v)) return false;
  switch (s.conv) {
    case 'd': case 'i':
      append(out, head + s.precision + "ll" + s.conv, as_signed(v, s.length));
      break;
    case 'u': case 'o': case 'x': case 'X':
      append(out, head + s.precision + "ll" + s.conv, as_unsigned(v, s.length));
      break;
    case 'c': append(out, head + "c", int(static_cast<unsigned char>(v))); break;
    case 'p': append(out, head + "p", reinterpret_cast<void*>(uintptr_t(v))); break;
    case 'n': break;  // nothing is written back to the device
    default: {       // f F e E g G a A
      double d;
      std::memcpy(&d, &v, sizeof d);
      append(out, head + s.precision + s.conv, d);
    }
  }
  return true;
}

bool known_conversion(char c) { return c && std::strchr("diuoxXcspnfFeEgGaA", c); }

}  // namespace

PrintfOutput format_device_printf(std::span<const uint64_t> message) {
  PrintfOutput o;
  Reader r(message);
  uint64_t stream = 0;
  std::string fmt;
  if (!r.next(&stream) || !r.string(&fmt)) {
    o.error = "message ends before its format string";
    return o;
  }
  o.stream = stream == 1 ? 1 : 0;
  for (size_t i = 0; i < fmt.size();) {
    if (fmt[i] != '%') {
      o.text += fmt[i++];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      o.text += '%';
      i += 2;
      continue;
    }
    Spec s;
    size_t end = parse_spec(fmt, i + 1, &s);
    if (!known_conversion(s.conv) || s.malformed) {  // not a conversion C knows: print it as it is
      o.text.append(fmt, i, end - i);
      i = end;
      continue;
    }
    if (!convert(s, r, o.text)) {
      o.error = "no argument for conversion %" + std::string(fmt, i + 1, end - i - 1) + " in \"" + fmt + "\"";
      return o;
    }
    i = end;
  }
  return o;
}

}  // namespace hip
