// SPDX-License-Identifier: MIT
// kfdbw: host<->device, device-to-device and peer copy bandwidth and latency per size (like ROCm's hipBusBandwidth).
#include <hip/hip_runtime.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  bool pinned = false, unpinned = false, d2d = false, peer = false, memcpy_baseline = false, staged = false;
  bool h2d = true, d2h = true;
  bool json = false;
  int device = 0, peer_device = 1;
  int iters = 0;  // 0: as many as fit in about 0.2 s per size
  std::vector<size_t> sizes;
};

void usage(FILE* f) {
  std::fprintf(f,
               "usage: kfdbw [--pinned] [--unpinned] [--d2d] [--peer] [--memcpy] [--staged] [--h2d|--d2h]\n"
               "             [--sizes 4K,1M,256M] [--iters N] [--device N] [--peer-device N] [--json]\n"
               "Copy bandwidth (GB/s, 1e9 bytes per second) and latency (microseconds per hipMemcpy)\n"
               "per size and direction. Modes (default: all):\n"
               "  --pinned     host memory from hipHostMalloc, host <-> device\n"
               "  --unpinned   pageable host memory (malloc), host <-> device\n"
               "  --d2d        device to device on one GPU\n"
               "  --peer       GPU --device to GPU --peer-device (hipMemcpyPeer)\n"
               "  --memcpy     memcpy between two host buffers, the reference\n"
               "  --staged     memcpy between two host buffers staged through 4 x 128 KiB buffers by two\n"
               "               threads on different CPUs (no GPU): what a pageable copy's staging can\n"
               "               reach where the copy engine is a CPU thread (the emulated GPU)\n"
               "  --h2d/--d2h  one direction only (host modes)\n"
               "  --sizes      comma-separated sizes, suffixes K, M, G (default 4K..256M, x4 steps)\n");
}

bool parse_size(const std::string& s, size_t* out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (end == s.c_str()) return false;
  size_t mul = 1;
  if (*end == 'K' || *end == 'k') mul = size_t(1) << 10, ++end;
  else if (*end == 'M' || *end == 'm') mul = size_t(1) << 20, ++end;
  else if (*end == 'G' || *end == 'g') mul = size_t(1) << 30, ++end;
  if (*end || v == 0) return false;
  *out = size_t(v) * mul;
  return true;
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kfdbw: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--pinned") o->pinned = true;
    else if (a == "--unpinned") o->unpinned = true;
    else if (a == "--d2d") o->d2d = true;
    else if (a == "--peer") o->peer = true;
    else if (a == "--memcpy") o->memcpy_baseline = true;
    else if (a == "--staged") o->staged = true;
    else if (a == "--h2d") o->d2h = false;
    else if (a == "--d2h") o->h2d = false;
    else if (a == "--json") o->json = true;
    else if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--sizes") {
      const char* v = value("--sizes");
      if (!v) return false;
      std::string list = v;
      size_t pos = 0;
      while (pos <= list.size()) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        size_t s;
        if (!parse_size(list.substr(pos, comma - pos), &s)) {
          std::fprintf(stderr, "kfdbw: bad size '%s'\n", list.substr(pos, comma - pos).c_str());
          return false;
        }
        o->sizes.push_back(s);
        pos = comma + 1;
      }
    } else if (a == "--iters" || a == "--device" || a == "--peer-device") {
      const char* v = value(a.c_str());
      if (!v) return false;
      const int n = std::atoi(v);
      (a == "--iters" ? o->iters : a == "--device" ? o->device : o->peer_device) = n;
    } else {
      std::fprintf(stderr, "kfdbw: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return false;
    }
  }
  if (!o->pinned && !o->unpinned && !o->d2d && !o->peer && !o->memcpy_baseline && !o->staged)
    o->pinned = o->unpinned = o->d2d = o->peer = o->memcpy_baseline = o->staged = true;
  if (o->sizes.empty())
    for (size_t s = size_t(4) << 10; s <= (size_t(256) << 20); s *= 4) o->sizes.push_back(s);
  return true;
}

struct Row {
  std::string mode, direction;
  size_t bytes;
  int iters;
  double seconds;
};

using Clock = std::chrono::steady_clock;

// Times `op` (one copy): warm-up, then enough iterations for about 0.2 s (or o.iters).
template <class Op>
bool measure(const Options& o, size_t bytes, Op op, int* iters, double* seconds) {
  if (!op() || !op()) return false;
  int n = o.iters;
  if (n <= 0) {
    const auto t0 = Clock::now();
    if (!op()) return false;
    const double once = std::chrono::duration<double>(Clock::now() - t0).count();
    n = int(std::clamp(0.2 / std::max(once, 1e-7), 3.0, 20000.0));
  }
  (void)bytes;
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i)
    if (!op()) return false;
  *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  *iters = n;
  return true;
}

bool ok(hipError_t e, const char* what) {
  if (e == hipSuccess) return true;
  std::fprintf(stderr, "kfdbw: %s: %s\n", what, hipGetErrorString(e));
  return false;
}

// Host <-> device with `host` buffers (pinned or pageable).
bool host_rows(const Options& o, const char* mode, bool pinned, std::vector<Row>* rows) {
  for (size_t bytes : o.sizes) {
    void* h = nullptr;
    void* d = nullptr;
    if (pinned) {
      if (!ok(hipHostMalloc(&h, bytes), "hipHostMalloc")) return false;
    } else {
      h = std::malloc(bytes);
      if (!h) return false;
    }
    std::memset(h, 1, bytes);  // fault the pages in before timing
    if (!ok(hipMalloc(&d, bytes), "hipMalloc")) return false;
    for (int dir = 0; dir < 2; ++dir) {
      if ((dir == 0 && !o.h2d) || (dir == 1 && !o.d2h)) continue;
      Row r{mode, dir == 0 ? "h2d" : "d2h", bytes, 0, 0};
      auto op = [&] {
        return dir == 0 ? ok(hipMemcpy(d, h, bytes, hipMemcpyHostToDevice), "hipMemcpy H2D")
                        : ok(hipMemcpy(h, d, bytes, hipMemcpyDeviceToHost), "hipMemcpy D2H");
      };
      if (!measure(o, bytes, op, &r.iters, &r.seconds)) return false;
      rows->push_back(r);
    }
    (void)hipFree(d);
    if (pinned) (void)hipHostFree(h);
    else std::free(h);
  }
  return true;
}

bool device_rows(const Options& o, bool peer, std::vector<Row>* rows) {
  int count = 0;
  if (!ok(hipGetDeviceCount(&count), "hipGetDeviceCount")) return false;
  if (peer && (count < 2 || o.peer_device >= count || o.peer_device == o.device)) {
    std::fprintf(stderr, "kfdbw: --peer needs two GPUs (%d found); skipped\n", count);
    return true;
  }
  for (size_t bytes : o.sizes) {
    void *a = nullptr, *b = nullptr;
    if (!ok(hipSetDevice(o.device), "hipSetDevice") || !ok(hipMalloc(&a, bytes), "hipMalloc")) return false;
    if (peer) {
      (void)hipDeviceEnablePeerAccess(o.peer_device, 0);
      if (!ok(hipSetDevice(o.peer_device), "hipSetDevice")) return false;
      (void)hipDeviceEnablePeerAccess(o.device, 0);
    }
    if (!ok(hipMalloc(&b, bytes), "hipMalloc")) return false;
    (void)hipSetDevice(o.device);
    Row r{peer ? "peer" : "d2d", peer ? "d2d" : "d2d", bytes, 0, 0};
    auto op = [&] {
      return peer ? ok(hipMemcpyPeer(b, o.peer_device, a, o.device, bytes), "hipMemcpyPeer")
                  : ok(hipMemcpy(b, a, bytes, hipMemcpyDeviceToDevice), "hipMemcpy D2D");
    };
    if (!measure(o, bytes, op, &r.iters, &r.seconds)) return false;
    rows->push_back(r);
    (void)hipFree(a);
    (void)hipFree(b);
  }
  return true;
}

void memcpy_rows(const Options& o, std::vector<Row>* rows) {
  for (size_t bytes : o.sizes) {
    std::vector<char> a(bytes, 1), b(bytes, 2);
    Row r{"memcpy", "h2h", bytes, 0, 0};
    volatile char sink = 0;
    measure(o, bytes, [&] {
      std::memcpy(b.data(), a.data(), bytes);
      sink = sink + b[bytes / 2];
      return true;
    }, &r.iters, &r.seconds);
    rows->push_back(r);
  }
}

// The staged reference: the calling thread copies each piece of the source into one of four
// buffers, a second thread copies it from there to the destination, as a runtime's pageable copy
// and an emulated copy engine do (a copy the buffers hold goes in four pieces). The second thread
// keeps off the caller's CPU, as the emulator's engines do.
class StagedCopy {
 public:
  static constexpr size_t kBuffers = 4, kChunk = size_t(128) << 10;

  StagedCopy() : staging_(kBuffers * kChunk) {
    const int caller = sched_getcpu();
    mover_ = std::thread([this, caller] {
      cpu_set_t set;
      CPU_ZERO(&set);
      if (caller >= 0 && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(caller, &set) && CPU_COUNT(&set) > 1) {
        CPU_CLR(caller, &set);
        (void)sched_setaffinity(0, sizeof set, &set);
      }
      move();
    });
  }
  ~StagedCopy() {
    stop_.store(true);
    mover_.join();
  }

  void copy(char* dst, const char* src, size_t bytes) {
    const size_t piece = std::clamp<size_t>((bytes / kBuffers + 4095) / 4096 * 4096, 4096, kChunk);
    dst_ = dst;
    for (size_t off = 0; off < bytes; off += piece) {
      const uint64_t n = filled_.load(std::memory_order_relaxed);
      while (n - moved_.load(std::memory_order_acquire) >= kBuffers) relax();
      const size_t len = std::min(piece, bytes - off);
      std::memcpy(&staging_[(n % kBuffers) * kChunk], src + off, len);
      pieces_[n % kBuffers] = {off, len};
      filled_.store(n + 1, std::memory_order_release);
    }
    while (moved_.load(std::memory_order_acquire) != filled_.load(std::memory_order_relaxed)) relax();
  }

 private:
  static void relax() {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  void move() {
    uint64_t n = 0;
    while (!stop_.load(std::memory_order_relaxed)) {
      if (filled_.load(std::memory_order_acquire) == n) {
        relax();
        continue;
      }
      const Piece p = pieces_[n % kBuffers];
      std::memcpy(dst_ + p.off, &staging_[(n % kBuffers) * kChunk], p.len);
      moved_.store(++n, std::memory_order_release);
    }
  }

  struct Piece {
    size_t off, len;
  };
  std::vector<char> staging_;
  Piece pieces_[kBuffers] = {};
  char* dst_ = nullptr;
  std::atomic<uint64_t> filled_{0}, moved_{0};
  std::atomic<bool> stop_{false};
  std::thread mover_;
};

void staged_rows(const Options& o, std::vector<Row>* rows) {
  StagedCopy staged;
  for (size_t bytes : o.sizes) {
    std::vector<char> a(bytes, 1), b(bytes, 2);
    Row r{"staged", "h2h", bytes, 0, 0};
    measure(o, bytes, [&] {
      staged.copy(b.data(), a.data(), bytes);
      return true;
    }, &r.iters, &r.seconds);
    if (std::memcmp(a.data(), b.data(), bytes) != 0) {
      std::fprintf(stderr, "kfdbw: the staged reference copy is wrong at %zu bytes\n", bytes);
      std::exit(1);
    }
    rows->push_back(r);
  }
}

std::string size_name(size_t b) {
  char buf[32];
  if (b >= (size_t(1) << 30) && b % (size_t(1) << 30) == 0) std::snprintf(buf, sizeof buf, "%zuG", b >> 30);
  else if (b >= (size_t(1) << 20) && b % (size_t(1) << 20) == 0) std::snprintf(buf, sizeof buf, "%zuM", b >> 20);
  else if (b >= 1024 && b % 1024 == 0) std::snprintf(buf, sizeof buf, "%zuK", b >> 10);
  else std::snprintf(buf, sizeof buf, "%zu", b);
  return buf;
}

void print(const Options& o, const std::vector<Row>& rows) {
  if (o.json) {
    std::printf("{\"tool\": \"kfdbw\", \"device\": %d, \"results\": [\n", o.device);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      const double per = r.seconds / r.iters;
      std::printf("  {\"mode\": \"%s\", \"direction\": \"%s\", \"bytes\": %zu, \"iterations\": %d, "
                  "\"gbps\": %.6g, \"latency_us\": %.3f}%s\n",
                  r.mode.c_str(), r.direction.c_str(), r.bytes, r.iters, double(r.bytes) / per / 1e9, per * 1e6,
                  i + 1 < rows.size() ? "," : "");
    }
    std::printf("]}\n");
    return;
  }
  std::printf("%-9s %-5s %8s %10s %12s %8s\n", "mode", "dir", "size", "GB/s", "latency_us", "iters");
  for (const Row& r : rows) {
    const double per = r.seconds / r.iters;
    std::printf("%-9s %-5s %8s %10.2f %12.2f %8d\n", r.mode.c_str(), r.direction.c_str(), size_name(r.bytes).c_str(),
                double(r.bytes) / per / 1e9, per * 1e6, r.iters);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) return 2;
  if (!ok(hipSetDevice(o.device), "hipSetDevice")) return 1;
  std::vector<Row> rows;
  bool good = true;
  if (o.memcpy_baseline) memcpy_rows(o, &rows);
  if (o.staged) staged_rows(o, &rows);
  if (good && o.pinned) good = host_rows(o, "pinned", true, &rows);
  if (good && o.unpinned) good = host_rows(o, "unpinned", false, &rows);
  if (good && o.d2d) good = device_rows(o, false, &rows);
  if (good && o.peer) good = device_rows(o, true, &rows);
  print(o, rows);
  return good ? 0 : 1;
}
