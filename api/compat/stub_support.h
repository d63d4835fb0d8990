// SPDX-License-Identifier: MIT
// What the generated HIP 5.2 stubs call: the table of stubbed entry points and the one-time report.
#pragma once

namespace kfdrt_compat {

struct StubInfo {
  const char* name;     // the exported symbol (a C++ name when HIP declares a C++ function)
  const char* returns;  // what the stub returns, for the report
};

// Every HIP 5.2 entry point a stub exists for, indexed as the stubs pass it (hip52_stubs.cpp).
extern const StubInfo kStubs[];
extern const int kStubCount;

// Reports stub `index` on stderr, once per process: "kfdrt: <entry point>: not implemented by
// kfdrt (HIP 5.2 entry point); returns <what>". Returns `value`.
long report(int index, long value);

// report(), then records hipErrorNotSupported as the thread's last error and returns it.
int not_supported(int index);

}  // namespace kfdrt_compat
