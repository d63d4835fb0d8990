// SPDX-License-Identifier: MIT
// The trace file both kfdrt and the emulator write: Chrome trace-event JSON, merged per process.
#pragma once

// Compiled into libkfdrt and libkfdemu alike (it depends on nothing but libc), so that whichever
// of them writes second merges its events into what the other wrote for the same process. The
// file is {"otherData":{...},"traceEvents":[ ... ]} with the first line naming the process
// session (pid and start time): a file from an earlier run is replaced, never merged.

#include <string>
#include <string_view>

namespace trace {

// "pid:starttime" of this process (starttime: /proc/self/stat field 22).
std::string process_session();

// Writes `events` (trace-event JSON objects separated by ",\n", no brackets) to `path` ("%p" in
// it stands for the pid: traced programs that start traced children), merged with the events
// already there when this process session wrote the file. Nothing is written when `events` is
// empty (a process that loaded the library but traced nothing, e.g. a wrapper inheriting
// LD_PRELOAD). Returns "" or the error (errno text with the path).
std::string write_events(const std::string& path, const std::string& events);

// `path` with "%p" replaced by the pid.
std::string expand_path(const std::string& path);

// `s` as a JSON string literal body (quotes, backslashes and control bytes escaped).
std::string json_escape(std::string_view s);

}  // namespace trace
