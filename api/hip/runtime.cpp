// SPDX-License-Identifier: MIT
// Opening the HIP runtime (visible devices, queue engine), current device, stream handles, signals.
#include "api/hip/runtime.h"

#include <atomic>
#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "api/hip/stream.h"

namespace hip {
namespace {

thread_local int t_current_device = 0;

}  // namespace

std::vector<int> parse_visible_devices(const char* spec, int physical_count) {
  std::vector<int> out;
  const char* p = spec;
  while (*p) {
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v >= physical_count) break;  // CUDA: stop at the first invalid
    bool dup = false;
    for (int o : out) dup |= o == v;
    if (dup) break;
    out.push_back(int(v));
    p = end;
    while (*p == ' ') ++p;
    if (*p != ',') break;
    ++p;
  }
  return out;
}

std::vector<int> parse_rocr_visible_devices(const char* spec, const std::vector<uint64_t>& unique_ids) {
  std::vector<int> out;
  const char* p = spec;
  while (*p) {
    while (*p == ' ') ++p;
    const char* end = p;
    while (*end && *end != ',') ++end;
    std::string tok(p, end);
    while (!tok.empty() && tok.back() == ' ') tok.pop_back();
    int found = -1;
    if (tok.size() > 4 && (tok.compare(0, 4, "GPU-") == 0 || tok.compare(0, 4, "gpu-") == 0)) {
      char* stop = nullptr;
      errno = 0;
      const unsigned long long id = std::strtoull(tok.c_str() + 4, &stop, 16);
      if (!errno && stop && *stop == 0)
        for (size_t i = 0; i < unique_ids.size(); ++i)
          if (unique_ids[i] == id) found = int(i);
    } else if (!tok.empty()) {
      char* stop = nullptr;
      errno = 0;
      const long v = std::strtol(tok.c_str(), &stop, 10);
      if (!errno && stop && *stop == 0 && v >= 0 && v < long(unique_ids.size())) found = int(v);
    }
    bool dup = false;
    for (int o : out) dup |= o == found;
    if (found < 0 || dup) break;
    out.push_back(found);
    if (*end != ',') break;
    p = end + 1;
  }
  return out;
}

hipError_t Runtime::open(Runtime** out) {
  std::unique_ptr<Runtime> rt(new Runtime());
  queues::RuntimeOptions opts;
  auto q = queues::Runtime::open(opts);
  if (!q) {
    debug_log("init", q.message());
    int e = q.err();
    return (e == ENOENT || e == ENODEV || e == EACCES || e == ENXIO) ? hipErrorNoDevice
                                                                      : hipErrorNotInitialized;
  }
  rt->qrt_ = std::move(*q);
  if (auto st = rt->add_devices(); !st) {
    debug_log("init", st.message());
    return hipErrorNotInitialized;
  }
  if (rt->devices_.empty()) return hipErrorNoDevice;
  *out = rt.release();
  return hipSuccess;
}

base::Status Runtime::add_devices() {
  auto gpus = qrt_->gpus();
  // ROCR_VISIBLE_DEVICES picks and orders the GPUs first (what ROCm's runtime shows HIP; cluster
  // schedulers set it), then HIP_VISIBLE_DEVICES indexes the GPUs left.
  std::vector<int> physical;
  if (const char* rocr = std::getenv("ROCR_VISIBLE_DEVICES")) {
    std::vector<uint64_t> ids;
    for (const auto& g : gpus) ids.push_back(g->props().unique_id);
    physical = parse_rocr_visible_devices(rocr, ids);
  } else {
    for (size_t i = 0; i < gpus.size(); ++i) physical.push_back(int(i));
  }
  std::vector<int> order;
  const char* spec = std::getenv("HIP_VISIBLE_DEVICES");
  if (!spec) spec = std::getenv("CUDA_VISIBLE_DEVICES");
  if (spec) {
    for (int i : parse_visible_devices(spec, int(physical.size()))) order.push_back(physical[size_t(i)]);
  } else {
    order = physical;
  }
  // Which engine runs the HIP streams' work: AQL queues, or PM4 queues (KFDRT_HIP_QUEUE=pm4).
  queues::Engine engine = queues::Engine::Aql;
  if (const char* e = std::getenv("KFDRT_HIP_QUEUE"); e && *e) {
    auto parsed = queues::parse_engine(e);
    if (!parsed) {
      std::fprintf(stderr, "kfdrt: KFDRT_HIP_QUEUE: %s\n", parsed.message().c_str());
      return parsed.error();
    }
    engine = *parsed;
  }
  for (int phys : order) {
    auto d = std::make_unique<Device>(*qrt_, int(devices_.size()), *gpus[phys], engine);
    KFD_TRY(d->init());
    devices_.push_back(std::move(d));
  }
  return {};
}

namespace {
// Set in a forked child by fork's child handler: no getpid() system call on every HIP call.
std::atomic<bool> g_forked{false};
}  // namespace

Runtime* Runtime::get_slow(hipError_t* err) {
  static Runtime* instance = nullptr;
  static hipError_t open_error = hipSuccess;
  static std::once_flag once;
  static pid_t owner = 0;
  std::call_once(once, [] {
    open_error = open(&instance);
    owner = ::getpid();
    pthread_atfork(nullptr, nullptr, [] {
      g_forked.store(true, std::memory_order_relaxed);
      ready_.store(nullptr, std::memory_order_relaxed);  // the child's calls take get_slow
    });
    if (instance) ready_.store(instance, std::memory_order_release);
  });
  if (instance && g_forked.load(std::memory_order_relaxed)) {
    // A forked child: amdkfd binds the queues, memory and events to the process that opened
    // /dev/kfd, so the runtime inherited from the parent is not the child's to use (its threads
    // did not come along either). Every call fails at once instead of hanging or touching the
    // parent's GPU state.
    static std::once_flag told;
    std::call_once(told, [] {
      std::fprintf(stderr,
                   "kfdrt: HIP was initialised by pid %d and this is its forked child pid %d: a child "
                   "has no GPU context (amdkfd binds it to the process that opened /dev/kfd); HIP "
                   "calls fail with hipErrorInitializationError\n",
                   int(owner), int(::getpid()));
    });
    *err = hipErrorInitializationError;
    return nullptr;
  }
  if (!instance) *err = open_error;
  return instance;
}

Device& Runtime::current() {
  int i = t_current_device;
  return *devices_[i < device_count() ? i : 0];
}
int Runtime::current_index() const { return t_current_device; }
void Runtime::set_current(int i) { t_current_device = i; }

hipError_t Runtime::stream(hipStream_t h, std::shared_ptr<Stream>* out) {
  auto raw = reinterpret_cast<uintptr_t>(h);
  if (raw == 0 || raw == 1 || raw == 2) {  // null, hipStreamLegacy, hipStreamPerThread
    auto s = current().null_stream();
    if (!s) return from_error(s.error(), hipErrorOutOfMemory);
    // The null stream lives as long as its device; an aliasing shared_ptr owns nothing.
    *out = std::shared_ptr<Stream>(std::shared_ptr<Stream>(), *s);
    return hipSuccess;
  }
  std::lock_guard lk(handles_mu_);
  auto it = stream_handles_.find(reinterpret_cast<Stream*>(h));
  if (it == stream_handles_.end()) return hipErrorInvalidHandle;
  *out = it->second.lock();
  return *out ? hipSuccess : hipErrorInvalidHandle;
}

hipError_t Runtime::stream_ref(hipStream_t h, Stream** out) {
  auto raw = reinterpret_cast<uintptr_t>(h);
  if (raw == 0 || raw == 1 || raw == 2) {  // null, hipStreamLegacy, hipStreamPerThread
    auto s = current().null_stream();
    if (!s) return from_error(s.error(), hipErrorOutOfMemory);
    *out = *s;
    return hipSuccess;
  }
  struct Entry {
    hipStream_t h;
    Stream* s;
    uint64_t gen;
  };
  static thread_local Entry t_last{};
  const uint64_t gen = handles_gen_.load(std::memory_order_acquire);
  if (t_last.h == h && t_last.gen == gen) {
    *out = t_last.s;
    return hipSuccess;
  }
  std::lock_guard lk(handles_mu_);
  auto it = stream_handles_.find(reinterpret_cast<Stream*>(h));
  if (it == stream_handles_.end() || it->second.expired()) return hipErrorInvalidHandle;
  *out = reinterpret_cast<Stream*>(h);
  t_last = Entry{h, *out, gen};
  return hipSuccess;
}

void Runtime::add_stream_handle(const std::shared_ptr<Stream>& s) {
  std::lock_guard lk(handles_mu_);
  stream_handles_[s.get()] = s;
}

void Runtime::remove_stream_handle(Stream* s) {
  std::lock_guard lk(handles_mu_);
  handles_gen_.fetch_add(1, std::memory_order_release);
  stream_handles_.erase(s);
}

// ---- SignalPool ----

SignalPool::~SignalPool() = default;

base::Result<std::unique_ptr<queues::Signal>> SignalPool::acquire(int64_t value) {
  {
    std::lock_guard lk(mu_);
    if (!free_.empty()) {
      auto s = std::move(free_.back());
      free_.pop_back();
      s->store(value);
      return s;
    }
  }
  return rt_.create_signal(value);
}

void SignalPool::release(std::unique_ptr<queues::Signal> s) {
  if (!s) return;
  std::lock_guard lk(mu_);
  if (s->load() != 0) {
    abandoned_.push_back(std::move(s));  // a packet may still complete it: never reuse it
    return;
  }
  free_.push_back(std::move(s));
}

}  // namespace hip
