// SPDX-License-Identifier: MIT
// Traced copy engine work for the trace tests: copies and fills on SDMA and on blit kernels, waits, PM4.
#include <cstdio>
#include <cstring>

#include "gpu/device.h"
#include "queues/copy_engine.h"
#include "queues/runtime.h"
#include "trace/trace.h"

namespace {

int fail(const char* what, const base::Error& e) {
  std::fprintf(stderr, "trace_copies: %s: %s\n", what, e.message.c_str());
  return 1;
}

// One copy and one fill on `path`, the fill waiting for the copy's signal; returns 0 on success.
int run_path(queues::Runtime& rt, const gpu::Device& gpu, queues::CopyPath path, void* host, void* dev, size_t n) {
  queues::CopyPolicy p;
  p.force = path;
  auto e = queues::CopyEngine::create(rt, gpu, p);
  if (!e) return fail("CopyEngine::create", e.error());
  auto sig = rt.create_signal(1);
  if (!sig) return fail("create_signal", sig.error());
  queues::CopyOrder first;
  first.done = queues::signal_target(**sig);
  if (auto st = (*e)->copy(uint64_t(uintptr_t(dev)), uint64_t(uintptr_t(host)), n, first); !st)
    return fail("copy", st.error());
  const queues::CopyWait w{(*sig)->handle(), queues::Cond::Eq, 0};
  queues::CopyOrder second;
  second.waits = std::span<const queues::CopyWait>(&w, 1);
  if (auto st = (*e)->fill(uint64_t(uintptr_t(host)), 0x5a5a5a5a, 4, n / 4, second); !st)
    return fail("fill", st.error());
  if (auto st = (*e)->wait_idle(); !st) return fail("wait_idle", st.error());
  return 0;
}

}  // namespace

int main() {
  if (!trace::on()) {
    std::fprintf(stderr, "trace_copies: run with KFDRT_TRACE=path\n");
    return 2;
  }
  auto rt = queues::Runtime::open();
  if (!rt) return fail("Runtime::open", rt.error());
  const gpu::Device& gpu = *(*rt)->gpus()[0];
  const size_t n = 1 << 20;
  mem::AllocRequest h;
  h.heap = mem::Heap::Gtt;
  h.coherence = mem::Coherence::Coherent;
  h.size = n;
  h.map_all = true;
  mem::AllocRequest d;
  d.heap = mem::Heap::Vram;
  d.size = n;
  d.owner_gpu = gpu.gpu_id;
  auto host = (*rt)->memory().allocate(h);
  auto dev = (*rt)->memory().allocate(d);
  if (!host || !dev) return fail("allocate", host ? dev.error() : host.error());
  std::memset(*host, 1, n);
  int bad = run_path(**rt, gpu, queues::CopyPath::Sdma, *host, *dev, n);
  bad |= run_path(**rt, gpu, queues::CopyPath::Blit, *host, *dev, n);
  const auto* b = static_cast<const uint8_t*>(*host);
  if (!bad && (b[0] != 0x5a || b[n - 1] != 0x5a)) {
    std::fprintf(stderr, "trace_copies: the fill did not land (0x%02x 0x%02x)\n", b[0], b[n - 1]);
    bad = 1;
  }
  (void)(*rt)->memory().free(*host);
  (void)(*rt)->memory().free(*dev);
  rt->reset();  // harvests the probes before the memory goes
  if (auto st = trace::stop(); !st) return fail("trace::stop", st.error());
  std::printf("trace_copies: %s\n", bad ? "FAILED" : "ok (2 copies, 2 fills)");
  return bad;
}
