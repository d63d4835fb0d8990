// SPDX-License-Identifier: MIT
// Quoting input in messages: bytes a terminal would interpret are escaped, never printed raw.
#pragma once

#include <string>
#include <string_view>

namespace base {

// `s` with every byte outside printable ASCII (and the backslash) written as \xNN, so that a
// message quoting a corrupt file's bytes cannot move the cursor, ring the bell or break a line.
std::string printable(std::string_view s);
// printable(s) between single quotes: "'gfx90a'".
std::string quoted(std::string_view s);

}  // namespace base
