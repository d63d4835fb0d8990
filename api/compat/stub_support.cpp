// SPDX-License-Identifier: MIT
// The one-time report of a HIP 5.2 entry point kfdrt does not implement, and its hipErrorNotSupported.
#include "api/compat/stub_support.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "api/hip/common.h"

namespace kfdrt_compat {
namespace {

// A C++ entry point is reported by its declaration's name (hipExtModuleLaunchKernel(...)).
std::string readable(const char* symbol) {
  int status = 0;
  char* d = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : symbol;
  std::free(d);
  return s;
}

}  // namespace

long report(int index, long value) {
  static std::mutex mu;
  static std::vector<bool> reported;
  if (index < 0 || index >= kStubCount) return value;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (reported.empty()) reported.resize(size_t(kStubCount));
    if (reported[size_t(index)]) return value;
    reported[size_t(index)] = true;
  }
  std::fprintf(stderr, "kfdrt: %s: not implemented by kfdrt (HIP 5.2 entry point); returns %s\n",
               readable(kStubs[index].name).c_str(), kStubs[index].returns);
  return value;
}

int not_supported(int index) {
  report(index, 0);
  const char* name = index >= 0 && index < kStubCount ? kStubs[index].name : "unknown";
  return int(hip::ret(hipErrorNotSupported, name));
}

}  // namespace kfdrt_compat
