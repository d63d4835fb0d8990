// SPDX-License-Identifier: MIT
// The emulator's trace recorder: per-thread event lists, rendered and merged into the trace file at exit.
#include "emu/trace_emu.h"

#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "trace/trace_file.h"

namespace emu::trace_emu {
namespace detail {
std::atomic<bool> g_on{false};
}

namespace {

// kfdrt's device tracks use 100000000 + gpu_id (trace/trace_json.cpp); the emulator's apart.
constexpr uint64_t kEmuPidBase = 200000000;
constexpr uint32_t kCacheTid = 999999, kWorkerTidBase = 1000000;

enum class Type : uint8_t { Doorbell, Packet, Workgroup, Cache };

struct Event {
  Type type;
  uint32_t gpu, track;
  uint64_t t0, t1;
  uint64_t a;          // doorbell value, packet index, kernel object
  uint32_t id[3];
  const char* kind;
  std::string text;
};

struct Buffer {
  std::mutex mu;  // uncontended: taken by the owning thread and by the exit flush
  std::vector<Event> events;
};

struct State {
  std::mutex mu;
  std::string path;
  std::vector<std::shared_ptr<Buffer>> bufs;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> doorbells;  // last value seen per queue
};

State& state() {
  static State* s = new State;  // never destroyed: engine threads run during exit
  return *s;
}

Buffer& buffer() {
  thread_local std::shared_ptr<Buffer> b;
  if (!b) {
    b = std::make_shared<Buffer>();
    std::lock_guard lk(state().mu);
    state().bufs.push_back(b);
  }
  return *b;
}

void add(Event&& e) {
  Buffer& b = buffer();
  std::lock_guard lk(b.mu);
  b.events.push_back(std::move(e));
}

std::string us(uint64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return b;
}

std::string render(const Event& e) {
  const std::string pid = std::to_string(kEmuPidBase + e.gpu % 100000000);
  const std::string head = "\"cat\":\"emulator\",\"pid\":" + pid + ",\"tid\":" + std::to_string(e.track) +
                           ",\"ts\":" + us(e.t0);
  char obj[24];
  std::snprintf(obj, sizeof obj, "0x%" PRIx64, e.a);
  switch (e.type) {
    case Type::Doorbell:
      return "{\"name\":\"doorbell " + std::to_string(e.a) + "\",\"ph\":\"i\",\"s\":\"t\"," + head +
             ",\"args\":{\"emulator_only\":true,\"queue\":" + std::to_string(e.track) + ",\"value\":" +
             std::to_string(e.a) + "}}";
    case Type::Packet:
      return "{\"name\":\"" + trace::json_escape(e.kind) + "\",\"ph\":\"X\"," + head + ",\"dur\":" +
             us(e.t1 > e.t0 ? e.t1 - e.t0 : 0) + ",\"args\":{\"emulator_only\":true,\"queue\":" +
             std::to_string(e.track) + ",\"index\":" + std::to_string(e.a) + "}}";
    case Type::Workgroup:
      return "{\"name\":\"workgroup\",\"ph\":\"X\"," + head + ",\"dur\":" + us(e.t1 > e.t0 ? e.t1 - e.t0 : 0) +
             ",\"args\":{\"emulator_only\":true,\"kernel_object\":\"" + obj + "\",\"id\":[" +
             std::to_string(e.id[0]) + "," + std::to_string(e.id[1]) + "," + std::to_string(e.id[2]) +
             "],\"worker\":" + std::to_string(e.track - kWorkerTidBase) + "}}";
    case Type::Cache:
      return "{\"name\":\"" + trace::json_escape(e.text) + "\",\"ph\":\"i\",\"s\":\"t\"," + head +
             ",\"args\":{\"emulator_only\":true}}";
  }
  return "{}";
}

std::string metadata(uint32_t gpu, uint32_t track) {
  const std::string pid = std::to_string(kEmuPidBase + gpu % 100000000);
  std::string name = track == kCacheTid          ? "memory model (fences, write-backs, invalidates)"
                     : track >= kWorkerTidBase ? "shader worker " + std::to_string(track - kWorkerTidBase)
                                               : "command processor, queue " + std::to_string(track);
  return "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + std::to_string(track) +
         ",\"args\":{\"name\":\"" + name + "\"}}";
}

void flush() {
  State& s = state();
  std::vector<std::shared_ptr<Buffer>> bufs;
  std::string path;
  {
    std::lock_guard lk(s.mu);
    bufs = s.bufs;
    path = s.path;
  }
  detail::g_on.store(false, std::memory_order_release);
  std::string out;
  std::map<uint32_t, std::map<uint32_t, bool>> tracks;
  for (auto& b : bufs) {
    std::lock_guard lk(b->mu);
    for (const Event& e : b->events) {
      if (!out.empty()) out += ",\n";
      out += render(e);
      tracks[e.gpu][e.track] = true;
    }
  }
  for (auto& [gpu, ts] : tracks) {
    if (!out.empty()) out += ",\n";
    out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(kEmuPidBase + gpu % 100000000) +
           ",\"args\":{\"name\":\"emulator GPU " + std::to_string(gpu) + " (emulator-only)\"}}";
    for (auto& [t, unused] : ts) out += ",\n" + metadata(gpu, t);
  }
  std::string err = trace::write_events(path, out);
  if (!err.empty()) std::fprintf(stderr, "kfdemu: %s\n", err.c_str());
}

struct EnvStart {
  EnvStart() {
    const char* p = std::getenv("KFDEMU_TRACE");
    if (!p || !*p) p = std::getenv("KFDRT_TRACE");
    if (!p || !*p) return;
    state().path = p;
    detail::g_on.store(true, std::memory_order_release);
    std::atexit(flush);
  }
} g_env_start;

}  // namespace

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void doorbell(uint32_t gpu, uint32_t queue, uint64_t value) {
  {
    std::lock_guard lk(state().mu);
    uint64_t& last = state().doorbells[{gpu, queue}];
    if (last == value + 1) return;  // seen already (stored +1 so that 0 is "never")
    last = value + 1;
  }
  add(Event{Type::Doorbell, gpu, queue, now_ns(), 0, value, {0, 0, 0}, nullptr, {}});
}

void packet(uint32_t gpu, uint32_t queue, const char* kind, uint64_t index, uint64_t t0) {
  add(Event{Type::Packet, gpu, queue, t0, now_ns(), index, {0, 0, 0}, kind, {}});
}

void workgroup(uint32_t gpu, uint64_t kernel_object, const uint32_t id[3], unsigned worker, uint64_t t0, uint64_t t1) {
  add(Event{Type::Workgroup, gpu, kWorkerTidBase + worker, t0, t1, kernel_object, {id[0], id[1], id[2]}, nullptr, {}});
}

void cache(uint32_t gpu, const std::string& line) {
  add(Event{Type::Cache, gpu, kCacheTid, now_ns(), 0, 0, {0, 0, 0}, nullptr, line});
}

}  // namespace emu::trace_emu
