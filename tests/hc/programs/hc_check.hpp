// SPDX-License-Identifier: MIT
// A tiny check harness for the hc test programs: named checks, a summary line, the exit status.
#pragma once

#include <hc.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace hc_test {

inline int& passed() { static int n = 0; return n; }
inline int& failed() { static int n = 0; return n; }

inline bool check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
  (ok ? passed() : failed())++;
  return ok;
}

// Runs one test function; an exception fails it with its message.
template <class F> void run(const char* name, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    check(false, std::string(name) + ": unexpected exception: " + e.what());
  }
}

// True if `f` throws E whose message contains `needle`.
template <class E, class F> bool throws(F&& f, const char* needle = "") {
  try {
    f();
  } catch (const E& e) {
    return std::string(e.what()).find(needle) != std::string::npos;
  } catch (...) {
  }
  return false;
}

inline int finish() {
  std::printf("%d passed, %d failed\n", passed(), failed());
  return failed() == 0 && passed() > 0 ? 0 : 1;
}

} // namespace hc_test
