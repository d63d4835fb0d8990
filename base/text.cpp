// SPDX-License-Identifier: MIT
// Escaping of non-printable bytes for messages that quote input.
#include "base/text.h"

namespace base {

std::string printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += ch;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string quoted(std::string_view s) { return "'" + printable(s) + "'"; }

}  // namespace base
