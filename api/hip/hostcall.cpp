// SPDX-License-Identifier: MIT
// Hostcall buffer set-up and its service thread: answers device printf, refuses other services loudly.
#include "api/hip/hostcall.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "api/hip/printf.h"

namespace hip {
namespace {

using hostcall::Buffer;
using hostcall::Header;
using hostcall::Payload;

constexpr uint32_t kReady = 1;
constexpr uint64_t kBegin = 1, kEnd = 2;
constexpr uint64_t kIdMask = (uint64_t(1) << 56) - 1;

// Enough packets for every wave the device can hold: a wave owns at most one packet at a time,
// and the device code assumes the free stack never runs dry.
uint32_t packet_count(const hipDeviceProp_tR0600& p) {
  uint64_t waves = uint64_t(p.multiProcessorCount) * p.maxThreadsPerMultiProcessor / p.warpSize;
  uint32_t n = 64;
  while (n < waves) n *= 2;
  return n;
}

std::mutex& output_mu() {
  static std::mutex* m = new std::mutex();
  return *m;
}

void print_output(const PrintfOutput& o) {
  std::lock_guard lk(output_mu());
  FILE* f = o.stream == 1 ? stderr : stdout;
  std::fwrite(o.text.data(), 1, o.text.size(), f);
  std::fflush(f);
}

}  // namespace

base::Result<Hostcall*> Hostcall::create(Device& dev) {
  std::unique_ptr<Hostcall> hc(new Hostcall(dev));
  hc->packets_ = packet_count(dev.limits());
  const uint64_t mask = hc->packets_ - 1;
  size_t headers_at = 64, payloads_at = (headers_at + size_t(hc->packets_) * sizeof(Header) + 4095) & ~size_t(4095);
  mem::AllocRequest r;
  r.heap = mem::Heap::Gtt;
  r.coherence = mem::Coherence::Coherent;  // both sides poll it
  r.size = payloads_at + size_t(hc->packets_) * sizeof(Payload);
  r.alignment = 4096;
  r.owner_gpu = dev.gpu_id();
  auto mem = dev.memory().allocate(r);
  if (!mem) return mem.error();
  auto bell = dev.qrt().create_signal(0, queues::SignalKind::Interrupt);
  if (!bell) return bell.error();
  hc->doorbell_ = std::move(*bell);
  auto* base = static_cast<uint8_t*>(*mem);
  std::memset(base, 0, payloads_at);
  auto* headers = reinterpret_cast<Header*>(base + headers_at);
  // The free stack links every packet: top is packets-1, each points to the one below, and the
  // last link (to index 0) carries tag 1 so that it is not the null pointer.
  for (uint32_t i = 1; i < hc->packets_; ++i) headers[i].next = i - 1;
  headers[1].next = mask + 1;
  hc->buf_ = reinterpret_cast<Buffer*>(base);
  hc->buf_->headers = reinterpret_cast<uint64_t>(headers);
  hc->buf_->payloads = reinterpret_cast<uint64_t>(base + payloads_at);
  hc->buf_->doorbell = hc->doorbell_->handle();
  hc->buf_->ready_stack = 0;
  hc->buf_->index_mask = mask;
  __atomic_store_n(&hc->buf_->free_stack, (mask + 1) | mask, __ATOMIC_RELEASE);
  Hostcall* h = hc.release();  // lives as long as the process: its thread never stops
  std::thread([h] { h->run(); }).detach();
  return h;
}

// Waits for the doorbell without spinning (2 cores are shared); the periodic pass also catches a
// ring whose interrupt was missed.
void Hostcall::run() {
  int64_t seen = 0;
  for (;;) {
    auto r = doorbell_->wait(queues::Cond::Ne, seen, std::chrono::milliseconds(100),
                             queues::WaitPolicy::blocking());
    if (r)
      seen = *r;
    else if (r.error().err != ETIMEDOUT)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // a device error: do not busy-loop
    serve_ready();
  }
}

void Hostcall::serve_ready() {
  uint64_t top = __atomic_exchange_n(&buf_->ready_stack, 0, __ATOMIC_ACQUIRE);
  const uint64_t index_mask = buf_->index_mask;
  auto* headers = reinterpret_cast<Header*>(buf_->headers);
  auto* payloads = reinterpret_cast<Payload*>(buf_->payloads);
  std::vector<uint64_t> order;  // the stack is newest first; answer oldest first
  for (; top; top = __atomic_load_n(&headers[top & index_mask].next, __ATOMIC_RELAXED))
    order.push_back(top & index_mask);
  for (auto it = order.rbegin(); it != order.rend(); ++it) serve_packet(headers[*it], payloads[*it]);
}

void Hostcall::serve_packet(Header& h, Payload& p) {
  uint64_t lanes = h.activemask;
  for (int lane = 0; lane < 64; ++lane)
    if (lanes >> lane & 1) serve_message(h.service, p.slots[lane]);
  // Clearing READY hands the packet back: the device reads its answers and frees the packet.
  __atomic_store_n(&h.control, h.control & ~kReady, __ATOMIC_RELEASE);
}

// One lane's part of a message: slot[0] is the descriptor (BEGIN bit 0, END bit 1, element count
// in bits 5-7, message id above bit 8), slots 1..7 the elements. The answer goes to slots 0 and 1.
void Hostcall::serve_message(uint32_t service, uint64_t* slot) {
  if (service != hostcall::kPrintf) {
    std::fprintf(stderr, "kfdrt: hostcall service %u is not implemented (only printf is); answering 0\n",
                 service);
    slot[0] = slot[1] = 0;
    return;
  }
  uint64_t desc = slot[0], id = desc >> 8;
  unsigned count = unsigned(desc >> 5) & 7;
  if (desc & kBegin) {
    id = next_id_++ & kIdMask;
    messages_[id].clear();
  }
  auto it = messages_.find(id);
  if (it == messages_.end()) {
    std::fprintf(stderr, "kfdrt: device printf: message %llu was never begun\n", (unsigned long long)id);
    slot[0] = uint64_t(-1), slot[1] = 0;
    return;
  }
  it->second.insert(it->second.end(), slot + 1, slot + 1 + count);
  if (!(desc & kEnd)) {
    slot[0] = id << 8, slot[1] = 0;
    return;
  }
  PrintfOutput o = format_device_printf(it->second);
  messages_.erase(it);
  if (!o.error.empty()) {
    std::fprintf(stderr, "kfdrt: device printf: %s\n", o.error.c_str());
    slot[0] = uint64_t(-1), slot[1] = 0;
    return;
  }
  print_output(o);
  slot[0] = o.text.size(), slot[1] = 0;
}

base::Result<uint64_t> Device::hostcall_buffer() {
  std::lock_guard lk(hostcall_mu_);
  if (!hostcall_) {
    auto hc = Hostcall::create(*this);
    if (!hc) return hc.error();
    hostcall_ = *hc;
  }
  return hostcall_->address();
}

}  // namespace hip
