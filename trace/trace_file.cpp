// SPDX-License-Identifier: MIT
// The trace file both kfdrt and the emulator write: session check, merge, atomic replace.
#include "trace/trace_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace trace {
namespace {

constexpr std::string_view kTail = "\n]}\n";

std::string header(const std::string& session) {
  return "{\"otherData\":{\"session\":\"" + session +
         "\",\"clock\":\"CLOCK_BOOTTIME\",\"writer\":\"kfdrt trace\"},\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
}

// The events already in `path` when this session wrote it (without brackets), else nothing.
bool existing_events(const std::string& path, const std::string& head, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() < head.size() + kTail.size() || s.compare(0, head.size(), head) != 0 ||
      s.compare(s.size() - kTail.size(), kTail.size(), kTail) != 0)
    return false;
  *out = s.substr(head.size(), s.size() - head.size() - kTail.size());
  return true;
}

}  // namespace

std::string process_session() {
  std::string start = "0";
  if (FILE* f = std::fopen("/proc/self/stat", "r")) {
    char buf[1024];
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    // Fields after the command name (which may hold spaces) start past the last ')'.
    if (const char* p = std::strrchr(buf, ')')) {
      int field = 2;
      for (const char* q = p + 1; *q; ++q) {
        if (*q != ' ') continue;
        if (++field == 22) {
          start = std::string(q + 1, std::strcspn(q + 1, " "));
          break;
        }
      }
    }
  }
  return std::to_string(getpid()) + ":" + start;
}

std::string expand_path(const std::string& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 1 < path.size() && path[i + 1] == 'p') {
      out += std::to_string(getpid());
      ++i;
    } else {
      out += path[i];
    }
  }
  return out;
}

std::string write_events(const std::string& raw_path, const std::string& events) {
  if (events.empty()) return {};  // a process that traced nothing leaves the file alone
  const std::string path = expand_path(raw_path);
  const std::string head = header(process_session());
  std::string old;
  bool merge = existing_events(path, head, &old);
  std::string body = merge ? old : std::string();
  if (!events.empty()) {
    if (!body.empty()) body += ",\n";
    body += events;
  }
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "trace: cannot write " + tmp + ": " + std::strerror(errno);
  bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size() &&
            std::fwrite(body.data(), 1, body.size(), f) == body.size() &&
            std::fwrite(kTail.data(), 1, kTail.size(), f) == kTail.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string e = "trace: cannot write " + path + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return e;
  }
  return {};
}

std::string json_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += char(c);
    }
  }
  return o;
}

}  // namespace trace
