// SPDX-License-Identifier: MIT
// Renders a session's records as Chrome trace events (host threads, one track per device queue).
#include <cxxabi.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "trace/trace_file.h"
#include "trace/trace_internal.h"

namespace trace {
namespace {

// Device tracks live in processes of their own, numbered apart from real pids; the emulator
// uses kEmuPidBase (emu/trace_emu.cpp), both plus the gpu_id.
constexpr uint64_t kDevicePidBase = 100000000;

uint64_t device_pid(uint32_t gpu) { return kDevicePidBase + gpu % kDevicePidBase; }

const char* scope_name(uint8_t s) { return s == 0 ? "none" : s == 1 ? "agent" : s == 2 ? "system" : "?"; }

std::string us(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return b;
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "\"0x%" PRIx64 "\"", v);
  return b;
}

std::string demangle(const std::string& s) {
  int status = 0;
  char* d = abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status);
  if (!d) return s;
  std::string out(d);
  std::free(d);
  return out;
}

// Device ticks of `gpu` in host ns: through the first and latest clock samples (their ratio is
// the counter's rate); one sample alone assumes the 100 MHz counter of gfx9 parts.
uint64_t to_host(const State& s, uint32_t gpu, uint64_t ticks) {
  auto it = s.clocks.find(gpu);
  if (it == s.clocks.end()) return 0;
  const GpuClock& c = it->second;
  long double rate = 10.0L;  // ns per tick
  if (c.last.gpu > c.first.gpu + 1000)
    rate = (long double)(c.last.ns - c.first.ns) / (long double)(c.last.gpu - c.first.gpu);
  const long double ns = (long double)c.last.ns + ((long double)ticks - (long double)c.last.gpu) * rate;
  return ns <= 0 ? 0 : uint64_t(ns);
}

struct Renderer {
  State& s;
  std::string out;
  std::set<std::pair<uint32_t, uint32_t>> queues;  // (gpu, queue) tracks seen
  std::set<uint32_t> gpus;
  uint64_t flow = 0;

  void add(const std::string& ev) {
    if (!out.empty()) out += ",\n";
    out += ev;
  }

  std::string kernel_name(uint64_t object) const {
    auto it = s.kernels.find(object);
    return it == s.kernels.end() ? std::string() : demangle(it->second);
  }

  std::string deps(const Record& r) const {
    std::string d = "[";
    for (unsigned i = 0; i < r.ndeps && i < 5; ++i) d += (i ? "," : "") + hex(r.deps[i]);
    return d + "]";
  }

  void host(const Record& r, uint32_t tid, const char* cat, const std::string& name, const std::string& args) {
    add("{\"name\":\"" + json_escape(name) + "\",\"cat\":\"" + cat + "\",\"ph\":\"X\",\"pid\":" +
        std::to_string(getpid()) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + us(r.t0) +
        ",\"dur\":" + us(r.t1 > r.t0 ? r.t1 - r.t0 : 0) + ",\"args\":{" + args + "}}");
  }

  void device(const Record& r, uint32_t tid) {
    const bool timed = r.flags & kFlagHarvested;
    uint64_t start = timed ? to_host(s, r.gpu, r.dev_start) : r.t0;
    uint64_t end = timed ? to_host(s, r.gpu, r.dev_end) : r.t0;
    if (end < start) end = start;
    const bool dispatch = r.op == Op::Dispatch || r.op == Op::Pm4Dispatch;
    std::string kname = dispatch ? kernel_name(r.object) : "";
    std::string name = !kname.empty() ? kname : r.kind == Kind::Copy ? std::string(r.name ? r.name : "copy") + " " + op_name(r.op)
                                                                     : op_name(r.op);
    std::string args = "\"kind\":\"" + std::string(op_name(r.op)) + "\",\"queue\":" + std::to_string(r.queue) +
                       ",\"gpu\":" + std::to_string(r.gpu) + ",\"index\":" + std::to_string(r.index) +
                       ",\"submit_us\":" + us(r.t0) + ",\"device_ts\":" + (timed ? "true" : "false") +
                       ",\"completion\":" + hex(r.completion) + ",\"deps\":" + deps(r) +
                       ",\"acquire\":\"" + scope_name(r.acquire) + "\",\"release\":\"" + scope_name(r.release) + "\"";
    if (dispatch)
      args += ",\"kernel\":\"" + json_escape(kname) + "\",\"kernel_object\":" + hex(r.object) + ",\"grid\":[" +
              std::to_string(r.grid[0]) + "," + std::to_string(r.grid[1]) + "," + std::to_string(r.grid[2]) +
              "],\"workgroup\":[" + std::to_string(r.workgroup[0]) + "," + std::to_string(r.workgroup[1]) + "," +
              std::to_string(r.workgroup[2]) + "]";
    if (r.op == Op::BarrierValue) args += ",\"operand\":" + std::to_string(r.operand);
    if (r.op == Op::Pm4Commands) args += ",\"dwords\":" + std::to_string(r.object);
    if (r.kind == Kind::Copy) args += ",\"bytes\":" + std::to_string(r.object) + ",\"path\":\"" + (r.name ? r.name : "") + "\"";
    const std::string cat = r.kind == Kind::Copy ? "copy" : r.kind == Kind::Pm4 ? "pm4" : "packet";
    const std::string pid = std::to_string(device_pid(r.gpu));
    add("{\"name\":\"" + json_escape(name) + "\",\"cat\":\"" + cat + "\",\"ph\":\"X\",\"pid\":" + pid +
        ",\"tid\":" + std::to_string(r.queue) + ",\"ts\":" + us(start) + ",\"dur\":" + us(end - start) +
        ",\"args\":{" + args + "}}");
    if (timed) {  // an arrow from the submitting thread to the packet
      const std::string id = std::to_string(++flow);
      add("{\"name\":\"submit\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":" + id + ",\"pid\":" + std::to_string(getpid()) +
          ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + us(r.t0) + "}");
      add("{\"name\":\"submit\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" + id + ",\"pid\":" + pid +
          ",\"tid\":" + std::to_string(r.queue) + ",\"ts\":" + us(start) + "}");
    }
    gpus.insert(r.gpu);
    queues.insert({r.gpu, r.queue});
  }

  void record(const Record& r, uint32_t tid) {
    switch (r.kind) {
      case Kind::Packet:
      case Kind::Pm4:
      case Kind::Copy: device(r, tid); break;
      case Kind::Api: host(r, tid, "hip", r.name ? r.name : "?", ""); break;
      case Kind::Wait:
        host(r, tid, "wait", r.name, "\"signal\":" + hex(r.object) + ",\"operand\":" + std::to_string(r.operand) +
                                          ",\"woken_by_event\":" + std::to_string(r.queue));
        break;
      case Kind::WaitEvents:
        host(r, tid, "wait", "WAIT_EVENTS", "\"event\":" + std::to_string(r.object) + ",\"woken_by_event\":" +
                                                 std::to_string(r.queue) + ",\"timeout\":" +
                                                 ((r.flags & kFlagTimeout) ? "true" : "false"));
        break;
    }
  }

  void metadata(const std::vector<uint32_t>& tids) {
    const std::string pid = std::to_string(getpid());
    add("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"args\":{\"name\":\"kfdrt host (pid " + pid + ")\"}}");
    for (uint32_t t : tids)
      add("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + std::to_string(t) +
          ",\"args\":{\"name\":\"host thread " + std::to_string(t) + "\"}}");
    for (uint32_t g : gpus)
      add("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(device_pid(g)) +
          ",\"args\":{\"name\":\"GPU " + std::to_string(g) + " queues (device timestamps)\"}}");
    for (auto [g, q] : queues)
      add("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(device_pid(g)) + ",\"tid\":" +
          std::to_string(q) + ",\"args\":{\"name\":\"queue " + std::to_string(q) + "\"}}");
  }
};

}  // namespace

std::string render_events(State& s, uint64_t session) {
  Renderer rd{s, {}, {}, {}, 0};
  std::vector<uint32_t> tids;
  for (ThreadBuf* b : s.bufs) {
    if (b->session != session) continue;
    tids.push_back(b->tid);
    for (Chunk* c = b->head; c; c = c->next.load(std::memory_order_acquire)) {
      const uint32_t n = c->used.load(std::memory_order_acquire);
      for (uint32_t i = 0; i < n; ++i) rd.record(c->r[i], b->tid);
    }
  }
  rd.metadata(tids);
  return rd.out;
}

}  // namespace trace
