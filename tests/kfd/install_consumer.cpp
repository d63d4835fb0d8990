// SPDX-License-Identifier: MIT
// A program built against an installed kfdrt (pkg-config kfdrt): one marker packet through a queue.
#include <kfd/kfd.h>
#include <memory/context.h>
#include <queues/packets.h>
#include <queues/runtime.h>

#include <chrono>
#include <cstdio>

int main() {
  auto rt = queues::Runtime::open({});
  if (!rt) {
    std::fprintf(stderr, "consumer: %s\n", rt.message().c_str());
    return 1;
  }
  auto q = (*rt)->create_queue({});
  auto s = (*rt)->create_signal(1, queues::SignalKind::Interrupt);
  if (!q || !s) {
    std::fprintf(stderr, "consumer: %s%s\n", q.message().c_str(), s.message().c_str());
    return 2;
  }
  if (auto sent = (*q)->submit(queues::make_marker((*s)->handle())); !sent) {
    std::fprintf(stderr, "consumer: %s\n", sent.message().c_str());
    return 3;
  }
  auto r = (*s)->wait(queues::Cond::Eq, 0, std::chrono::seconds(30));
  if (!r) {
    std::fprintf(stderr, "consumer: %s\n", r.message().c_str());
    return 4;
  }
  std::printf("consumer: marker completed on GPU 0x%x (KFD %s)\n", (*q)->gpu_id(),
              (*rt)->platform().kfd().version().str().c_str());
  return 0;
}
