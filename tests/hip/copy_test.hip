// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): copies and fills on the copy engines at edge sizes and offsets, memmove, stream order.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>
#include <sys/mman.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../../emu/control.h"

// Run three times by meson: default routing, KFDRT_SDMA=1 (SDMA wherever it can) and
// KFDRT_SDMA=0 (blit kernels only).

__device__ unsigned char g_symbol[4099];

__global__ void write_index(uint32_t* p, uint32_t n, uint32_t mul, uint32_t add) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * mul + add;
}

__global__ void scale_add(uint32_t* p, uint32_t n, uint32_t mul, uint32_t add) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * mul + add;
}

// Spins until the host stores a nonzero value at *gate (fine-grained host memory), then writes
// p[i] = i + add.
__global__ void gated_write(const volatile uint32_t* gate, uint32_t* p, uint32_t n, uint32_t add) {
  while (__hip_atomic_load(const_cast<const uint32_t*>(gate), __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0) {
  }
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i + add;
}

namespace {

constexpr size_t kSizes[] = {1, 4095, (size_t(4) << 20) + 3};
constexpr size_t kOffsets[] = {0, 1, 3};

unsigned char pattern(size_t i, unsigned seed) { return static_cast<unsigned char>((i * 131u + seed * 17u) >> 1); }

void fill_pattern(unsigned char* p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) p[i] = pattern(i, seed);
}

// The first index where p differs from the pattern, or n.
size_t mismatch(const unsigned char* p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != pattern(i, seed)) return i;
  return n;
}

class HipCopy : public ::testing::Test {
 protected:
  void TearDown() override { (void)hipGetLastError(); }
};

// The emulator's counts of the engines' work and of the host's driver calls (emu/control.h),
// when the program runs on it; `have` is false on a real GPU.
struct Counts {
  bool have = false;
  kfdemu_counts c{};
};
Counts counts() {
  Counts r;
  static auto get = reinterpret_cast<int (*)(kfdemu_counts*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_counts"));
  r.have = get && get(&r.c) == 0;
  return r;
}

// How this run routes copies (meson runs the suite with KFDRT_SDMA unset, 1 and 0).
enum class Routing { Default, Sdma, Blit };
Routing routing() {
  const char* v = std::getenv("KFDRT_SDMA");
  if (v && std::strcmp(v, "1") == 0) return Routing::Sdma;
  if (v && std::strcmp(v, "0") == 0) return Routing::Blit;
  return Routing::Default;
}

}  // namespace

// H2D, D2D, D2H and H2H with pinned and pageable host memory, sync and async, at 1 B, 4 KiB-1
// and 4 MiB+3 and unaligned offsets; the bytes around the destination stay untouched.
TEST_F(HipCopy, EveryKindAtEdgeSizesAndOffsets) {
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  for (size_t n : kSizes) {
    const size_t cap = n + 8;
    unsigned char *d1, *d2, *pin_in, *pin_out;
    ASSERT_EQ(hipMalloc(&d1, cap), hipSuccess);
    ASSERT_EQ(hipMalloc(&d2, cap), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pin_in, cap), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pin_out, cap), hipSuccess);
    std::vector<unsigned char> page_in(cap), page_out(cap);
    for (size_t off : kOffsets) {
      for (int async = 0; async < 2; ++async) {
        const unsigned seed = unsigned(n + off * 3 + async);
        SCOPED_TRACE(testing::Message() << "n=" << n << " off=" << off << " async=" << async);
        auto cp = [&](void* dst, const void* src, hipMemcpyKind k) {
          return async ? hipMemcpyAsync(dst, src, n, k, s) : hipMemcpy(dst, src, n, k);
        };
        fill_pattern(pin_in + off, n, seed);
        fill_pattern(page_in.data() + off, n, seed + 1);
        ASSERT_EQ(hipMemset(d1, 0xEE, cap), hipSuccess);
        ASSERT_EQ(hipMemset(d2, 0xEE, cap), hipSuccess);
        // pinned H2D, D2D, D2H
        ASSERT_EQ(cp(d1 + off, pin_in + off, hipMemcpyHostToDevice), hipSuccess);
        ASSERT_EQ(cp(d2 + 2, d1 + off, hipMemcpyDeviceToDevice), hipSuccess);
        std::memset(pin_out, 0, cap);
        ASSERT_EQ(cp(pin_out + off, d2 + 2, hipMemcpyDeviceToHost), hipSuccess);
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        EXPECT_EQ(mismatch(pin_out + off, n, seed), n);
        // the neighbours of d2's copy are untouched
        unsigned char edge[2];
        ASSERT_EQ(hipMemcpy(&edge[0], d2 + 1, 1, hipMemcpyDeviceToHost), hipSuccess);
        ASSERT_EQ(hipMemcpy(&edge[1], d2 + 2 + n, 1, hipMemcpyDeviceToHost), hipSuccess);
        EXPECT_EQ(edge[0], 0xEE);
        EXPECT_EQ(edge[1], 0xEE);
        // pageable H2D and D2H (HIP: H2D returns once the source may be reused)
        ASSERT_EQ(cp(d1 + off, page_in.data() + off, hipMemcpyHostToDevice), hipSuccess);
        std::memset(page_in.data(), 0, cap);  // reuse at once: the copy must not see this
        std::fill(page_out.begin(), page_out.end(), 0);
        ASSERT_EQ(cp(page_out.data() + off, d1 + off, hipMemcpyDeviceToHost), hipSuccess);
        EXPECT_EQ(mismatch(page_out.data() + off, n, seed + 1), n);  // D2H pageable is synchronous
        // host to host, pinned and pageable
        ASSERT_EQ(cp(pin_out + off, page_out.data() + off, hipMemcpyHostToHost), hipSuccess);
        ASSERT_EQ(cp(page_in.data() + off, pin_out + off, hipMemcpyDefault), hipSuccess);
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        EXPECT_EQ(mismatch(page_in.data() + off, n, seed + 1), n);
      }
    }
    EXPECT_EQ(hipFree(d1), hipSuccess);
    EXPECT_EQ(hipFree(d2), hipSuccess);
    EXPECT_EQ(hipHostFree(pin_in), hipSuccess);
    EXPECT_EQ(hipHostFree(pin_out), hipSuccess);
  }
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// hipMemset / D16 / D32 (sync and async) at every size and offset, the neighbours untouched.
TEST_F(HipCopy, MemsetEveryWidth) {
  for (size_t n : kSizes) {
    const size_t cap = n * 4 + 32;
    unsigned char* d;
    ASSERT_EQ(hipMalloc(&d, cap), hipSuccess);
    std::vector<unsigned char> h(cap);
    for (unsigned width : {1u, 2u, 4u}) {
      for (size_t off : kOffsets) {
        for (int async = 0; async < 2; ++async) {
          SCOPED_TRACE(testing::Message() << "n=" << n << " width=" << width << " off=" << off << " async=" << async);
          const size_t at = width == 1 ? off + 4 : 4 + off * width;  // D16/D32 keep element alignment
          ASSERT_EQ(hipMemset(d, 0x11, cap), hipSuccess);
          void* p = d + at;
          hipError_t e;
          if (width == 1)
            e = async ? hipMemsetD8Async(p, 0xA5, n, 0) : hipMemsetD8(p, 0xA5, n);
          else if (width == 2)
            e = async ? hipMemsetD16Async(p, 0xBEEF, n, 0) : hipMemsetD16(p, 0xBEEF, n);
          else
            e = async ? hipMemsetD32Async(p, int(0xC0FFEE42), n, 0) : hipMemsetD32(p, int(0xC0FFEE42), n);
          ASSERT_EQ(e, hipSuccess);
          ASSERT_EQ(hipMemcpy(h.data(), d, cap, hipMemcpyDeviceToHost), hipSuccess);
          const uint32_t v = width == 1 ? 0xA5A5A5A5u : width == 2 ? 0xBEEFBEEFu : 0xC0FFEE42u;
          size_t bad = SIZE_MAX;
          for (size_t i = 0; i < n * width && bad == SIZE_MAX; ++i)
            if (h[at + i] != ((v >> (8 * (i % 4))) & 0xFF)) bad = i;
          EXPECT_EQ(bad, SIZE_MAX);
          EXPECT_EQ(h[at - 1], 0x11);
          EXPECT_EQ(h[at + n * width], 0x11);
        }
      }
    }
    EXPECT_EQ(hipFree(d), hipSuccess);
  }
}

// hipMemcpy within one buffer with overlapping ranges moves as memmove does, both directions,
// near and far distances.
TEST_F(HipCopy, OverlappingDeviceCopyIsMemmove) {
  const size_t n = (size_t(4) << 20) + 3;
  for (size_t dist : {size_t(1), size_t(3), size_t(4096), size_t(1) << 20}) {
    for (int up = 0; up < 2; ++up) {
      SCOPED_TRACE(testing::Message() << "dist=" << dist << " up=" << up);
      const size_t cap = n + dist;
      std::vector<unsigned char> h(cap), out(cap), want(cap);
      fill_pattern(h.data(), cap, unsigned(dist));
      unsigned char* d;
      ASSERT_EQ(hipMalloc(&d, cap), hipSuccess);
      ASSERT_EQ(hipMemcpy(d, h.data(), cap, hipMemcpyHostToDevice), hipSuccess);
      unsigned char *dst = up ? d + dist : d, *src = up ? d : d + dist;
      ASSERT_EQ(hipMemcpy(dst, src, n, hipMemcpyDeviceToDevice), hipSuccess);
      want = h;
      std::memmove(want.data() + (dst - d), want.data() + (src - d), n);
      ASSERT_EQ(hipMemcpy(out.data(), d, cap, hipMemcpyDeviceToHost), hipSuccess);
      size_t bad = cap;
      for (size_t i = 0; i < cap && bad == cap; ++i)
        if (out[i] != want[i]) bad = i;
      EXPECT_EQ(bad, cap);
      EXPECT_EQ(hipFree(d), hipSuccess);
    }
  }
}

// kernel -> copy -> kernel -> copy, repeated without synchronising: each step sees the one
// before it (a copy reads the kernel's writes, a kernel reads the copy's), and the results
// arrive in a pinned buffer.
TEST_F(HipCopy, StreamChainKeepsOrder) {
  const uint32_t n = 1 << 16;
  const int rounds = 6;
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  uint32_t *a, *b, *host;
  ASSERT_EQ(hipMalloc(&a, n * 4), hipSuccess);
  ASSERT_EQ(hipMalloc(&b, n * 4), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&host, size_t(n) * 4 * rounds), hipSuccess);
  std::memset(host, 0, size_t(n) * 4 * rounds);
  const dim3 grid((n + 255) / 256), block(256);
  for (int r = 0; r < rounds; ++r) {
    hipLaunchKernelGGL(write_index, grid, block, 0, s, a, n, uint32_t(r + 1), uint32_t(r));
    ASSERT_EQ(hipMemcpyAsync(b, a, n * 4, hipMemcpyDeviceToDevice, s), hipSuccess);
    hipLaunchKernelGGL(scale_add, grid, block, 0, s, b, n, 3u, uint32_t(7 * r));
    ASSERT_EQ(hipMemcpyAsync(host + size_t(r) * n, b, n * 4, hipMemcpyDeviceToHost, s), hipSuccess);
  }
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  for (int r = 0; r < rounds; ++r) {
    size_t bad = n;
    for (uint32_t i = 0; i < n && bad == n; ++i)
      if (host[size_t(r) * n + i] != (i * uint32_t(r + 1) + uint32_t(r)) * 3u + uint32_t(7 * r)) bad = i;
    EXPECT_EQ(bad, n) << "round " << r;
  }
  // H2D before a kernel is visible to it; the kernel's result after a sync copy back.
  std::vector<uint32_t> h(n, 5), back(n);
  ASSERT_EQ(hipMemcpyAsync(a, h.data(), n * 4, hipMemcpyHostToDevice, s), hipSuccess);
  hipLaunchKernelGGL(scale_add, grid, block, 0, s, a, n, 2u, 1u);
  ASSERT_EQ(hipMemcpy(back.data(), a, n * 4, hipMemcpyDeviceToHost), hipSuccess);  // null stream: waits for s
  EXPECT_EQ(back[0], 11u);
  EXPECT_EQ(back[n - 1], 11u);
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(b), hipSuccess);
  EXPECT_EQ(hipHostFree(host), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// Threads copying on their own streams at once (streams share managed queues and the engines):
// every chain completes with its own data, nothing deadlocks.
TEST_F(HipCopy, ConcurrentStreamsKeepTheirOrder) {
  constexpr int kThreads = 4, kRounds = 20;
  const uint32_t n = 1 << 14;
  int failures[kThreads] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      hipStream_t s;
      uint32_t *a, *b, *pin;
      std::vector<uint32_t> page(n);
      if (hipStreamCreate(&s) != hipSuccess || hipMalloc(&a, n * 4) != hipSuccess ||
          hipMalloc(&b, n * 4) != hipSuccess || hipHostMalloc(&pin, n * 4) != hipSuccess) {
        failures[t] = -1;
        return;
      }
      for (int r = 0; r < kRounds; ++r) {
        const uint32_t base = uint32_t(t * 1000 + r);
        for (uint32_t i = 0; i < n; ++i) page[i] = base + i;
        bool ok = hipMemcpyAsync(a, page.data(), n * 4, hipMemcpyHostToDevice, s) == hipSuccess;
        hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, s, a, n, 1u, 1u);
        ok = ok && hipMemcpyAsync(b, a, n * 4, hipMemcpyDeviceToDevice, s) == hipSuccess;
        ok = ok && hipMemcpyAsync(pin, b, n * 4, hipMemcpyDeviceToHost, s) == hipSuccess;
        ok = ok && hipStreamSynchronize(s) == hipSuccess;
        if (!ok || pin[0] != base + 1 || pin[n - 1] != base + n) ++failures[t];
      }
      (void)hipFree(a);
      (void)hipFree(b);
      (void)hipHostFree(pin);
      (void)hipStreamDestroy(s);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// 2-D copies between device, pinned and pageable memory, and a 2-D fill.
TEST_F(HipCopy, Copy2DEveryKind) {
  const size_t w = 1001, h = 37, hp = 1024;
  void* d;
  size_t dp;
  ASSERT_EQ(hipMallocPitch(&d, &dp, w, h), hipSuccess);
  std::vector<unsigned char> page(hp * h), back(hp * h);
  fill_pattern(page.data(), page.size(), 9);
  unsigned char* pin;
  ASSERT_EQ(hipHostMalloc(&pin, hp * h), hipSuccess);
  ASSERT_EQ(hipMemcpy2D(d, dp, page.data(), hp, w, h, hipMemcpyHostToDevice), hipSuccess);
  std::memset(pin, 0, hp * h);
  ASSERT_EQ(hipMemcpy2DAsync(pin, hp, d, dp, w, h, hipMemcpyDeviceToHost, 0), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(0), hipSuccess);
  for (size_t r = 0; r < h; ++r) EXPECT_EQ(std::memcmp(pin + r * hp, page.data() + r * hp, w), 0) << r;
  ASSERT_EQ(hipMemset2D(d, dp, 0x3C, w - 1, h), hipSuccess);
  ASSERT_EQ(hipMemcpy2D(back.data(), hp, d, dp, w, h, hipMemcpyDeviceToHost), hipSuccess);
  for (size_t r = 0; r < h; ++r) {
    EXPECT_EQ(back[r * hp], 0x3C);
    EXPECT_EQ(back[r * hp + w - 2], 0x3C);
    EXPECT_EQ(back[r * hp + w - 1], page[r * hp + w - 1]) << r;  // outside the fill
  }
  EXPECT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipHostFree(pin), hipSuccess);
}

// To and from a __device__ variable at an unaligned offset.
TEST_F(HipCopy, SymbolCopies) {
  std::vector<unsigned char> in(4096), out(4096, 0);
  fill_pattern(in.data(), in.size(), 77);
  ASSERT_EQ(hipMemcpyToSymbol(HIP_SYMBOL(g_symbol), in.data(), 4095, 3), hipSuccess);
  ASSERT_EQ(hipMemcpyFromSymbol(out.data(), HIP_SYMBOL(g_symbol), 4095, 3), hipSuccess);
  EXPECT_EQ(mismatch(out.data(), 4095, 77), 4095u);
  ASSERT_EQ(hipMemcpyToSymbolAsync(HIP_SYMBOL(g_symbol), in.data() + 1, 1, 0, hipMemcpyHostToDevice, 0), hipSuccess);
  ASSERT_EQ(hipMemcpyFromSymbolAsync(out.data(), HIP_SYMBOL(g_symbol), 1, 0, hipMemcpyDeviceToHost, 0), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(0), hipSuccess);
  EXPECT_EQ(out[0], pattern(1, 77));
  EXPECT_EQ(hipMemcpyToSymbol(HIP_SYMBOL(g_symbol), in.data(), 4096, 4), hipErrorInvalidValue);
}

// Peer copies between two GPUs' memory, both directions, sync and async: one piece, and more
// pieces than the bounce ring has slots (4 MiB pieces, 4 slots).
TEST_F(HipCopy, PeerCopies) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count < 2) GTEST_SKIP() << "needs two GPUs";
  for (const size_t n : {(size_t(1) << 20) + 5, (size_t(18) << 20) + 3}) {
    SCOPED_TRACE("bytes " + std::to_string(n));
    std::vector<unsigned char> in(n), out(n, 0);
    fill_pattern(in.data(), n, 5);
    void *d0, *d1;
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipMalloc(&d0, n), hipSuccess);
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    ASSERT_EQ(hipMalloc(&d1, n), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipMemcpy(d0, in.data(), n, hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpyPeer(d1, 1, d0, 0, n), hipSuccess);
    ASSERT_EQ(hipMemcpy(out.data(), d1, n, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(mismatch(out.data(), n, 5), n);
    ASSERT_EQ(hipMemset(d0, 0, n), hipSuccess);
    ASSERT_EQ(hipMemcpyPeerAsync(d0, 0, d1, 1, n, 0), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(0), hipSuccess);
    std::fill(out.begin(), out.end(), 0);
    ASSERT_EQ(hipMemcpy(out.data(), d0, n, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(mismatch(out.data(), n, 5), n);
    EXPECT_EQ(hipFree(d0), hipSuccess);
    EXPECT_EQ(hipFree(d1), hipSuccess);
  }
}

// Bad ranges fail with an error instead of reaching an engine.
TEST_F(HipCopy, RejectsBadRanges) {
  unsigned char* d;
  ASSERT_EQ(hipMalloc(&d, 4096), hipSuccess);
  std::vector<unsigned char> h(8192);
  EXPECT_EQ(hipMemcpy(d + 1, h.data(), 4096, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(h.data(), d + 4095, 2, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_EQ(hipMemsetD32(d + 2, 0, 1024), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy2D(d, 64, d + 32, 64, 64, 4, hipMemcpyDeviceToDevice), hipErrorInvalidValue);  // overlap
  // A freed device address is no allocation and no host memory: an error, not a fault.
  unsigned char* gone;
  ASSERT_EQ(hipMalloc(&gone, 1 << 20), hipSuccess);
  ASSERT_EQ(hipFree(gone), hipSuccess);
  EXPECT_EQ(hipMemcpy(h.data(), gone + 64, 4096, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(gone, h.data(), 4096, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(d, gone, 4096, hipMemcpyDefault), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset(gone, 0, 16), hipErrorInvalidValue);
  // Host memory whose second page is not mapped (a range across the end of a mapping): refused
  // whichever end is the missing one, also when the two pages are neighbours (one mincore call
  // checks both) or when the whole range is gone.
  auto* two = static_cast<unsigned char*>(mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(two, MAP_FAILED);
  ASSERT_EQ(munmap(two + 4096, 4096), 0);
  EXPECT_EQ(hipMemcpy(d, two + 4000, 200, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(two + 4000, d, 200, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(d, two + 4000, 96, hipMemcpyHostToDevice), hipSuccess);  // inside the mapped page
  ASSERT_EQ(munmap(two, 4096), 0);
  EXPECT_EQ(hipMemcpy(d, two + 100, 200, hipMemcpyHostToDevice), hipErrorInvalidValue);
  // The stream still works after the failures.
  ASSERT_EQ(hipMemset(d, 7, 4096), hipSuccess);
  ASSERT_EQ(hipMemcpy(h.data(), d, 4096, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[4095], 7);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

// 3-D copies of pitched linear memory (hipMemcpy3D, hipMemcpy3DAsync, hipDrvMemcpy3D,
// hipMemcpyParam2D) between a hipMalloc3D volume, pageable and pinned host memory, at nonzero
// positions; hipMemset3D; arrays and bad pitches fail.
TEST_F(HipCopy, Copy3DEveryKind) {
  const size_t w = 301, h = 7, d = 5;  // the copied box, in bytes, rows and slices
  const size_t hw = 320, hh = 9, hd = 6;  // the host volumes' pitch, rows per slice and slices
  const hipPos at{3, 1, 1};               // the box's corner in the host volumes
  hipPitchedPtr dev{};
  ASSERT_EQ(hipMalloc3D(&dev, make_hipExtent(w, h, d)), hipSuccess);
  ASSERT_GE(dev.pitch, w);
  EXPECT_EQ(dev.xsize, w);
  EXPECT_EQ(dev.ysize, h);
  std::vector<unsigned char> page(hw * hh * hd), back(hw * hh * hd, 0);
  fill_pattern(page.data(), page.size(), 21);
  auto host_at = [&](size_t x, size_t y, size_t z) { return (at.z + z) * hw * hh + (at.y + y) * hw + at.x + x; };
  // pageable -> device
  hipMemcpy3DParms p{};
  p.srcPtr = make_hipPitchedPtr(page.data(), hw, hw, hh);
  p.srcPos = at;
  p.dstPtr = dev;
  p.extent = make_hipExtent(w, h, d);
  p.kind = hipMemcpyHostToDevice;
  ASSERT_EQ(hipMemcpy3D(&p), hipSuccess);
  // device -> pinned, async
  unsigned char* pin;
  ASSERT_EQ(hipHostMalloc(&pin, hw * hh * hd), hipSuccess);
  std::memset(pin, 0, hw * hh * hd);
  hipMemcpy3DParms q{};
  q.srcPtr = dev;
  q.dstPtr = make_hipPitchedPtr(pin, hw, hw, hh);
  q.dstPos = at;
  q.extent = make_hipExtent(w, h, d);
  q.kind = hipMemcpyDeviceToHost;
  ASSERT_EQ(hipMemcpy3DAsync(&q, 0), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(0), hipSuccess);
  size_t bad = 0;
  for (size_t z = 0; z < d; ++z)
    for (size_t y = 0; y < h; ++y)
      for (size_t x = 0; x < w; ++x) bad += pin[host_at(x, y, z)] != page[host_at(x, y, z)];
  EXPECT_EQ(bad, 0u) << "bytes of the box differ after H2D then D2H";
  EXPECT_EQ(pin[host_at(0, 0, 0) - 1], 0) << "a byte before the box was written";
  EXPECT_EQ(pin[host_at(w, 0, 0)], 0) << "a byte after a row was written";
  // device -> device (a second volume) with the driver-API struct, then back to pageable memory
  hipPitchedPtr dev2{};
  ASSERT_EQ(hipMalloc3D(&dev2, make_hipExtent(w, h, d)), hipSuccess);
  ASSERT_EQ(hipMemset3D(dev2, 0x5A, make_hipExtent(w, h, d)), hipSuccess);
  HIP_MEMCPY3D r{};
  r.srcMemoryType = hipMemoryTypeDevice;
  r.srcDevice = dev.ptr;
  r.srcPitch = unsigned(dev.pitch);
  r.srcHeight = unsigned(h);
  r.srcXInBytes = 1;
  r.srcY = 1;
  r.dstMemoryType = hipMemoryTypeDevice;
  r.dstDevice = dev2.ptr;
  r.dstPitch = unsigned(dev2.pitch);
  r.dstHeight = unsigned(h);
  r.WidthInBytes = unsigned(w - 1);
  r.Height = unsigned(h - 1);
  r.Depth = unsigned(d);
  ASSERT_EQ(hipDrvMemcpy3D(&r), hipSuccess);
  hipMemcpy3DParms b{};
  b.srcPtr = dev2;
  b.dstPtr = make_hipPitchedPtr(back.data(), hw, hw, hh);
  b.extent = make_hipExtent(w, h, d);
  b.kind = hipMemcpyDefault;
  ASSERT_EQ(hipMemcpy3D(&b), hipSuccess);
  bad = 0;
  for (size_t z = 0; z < d; ++z)
    for (size_t y = 0; y < h; ++y)
      for (size_t x = 0; x < w; ++x) {
        const unsigned char want = (x < w - 1 && y < h - 1) ? page[host_at(x + 1, y + 1, z)] : 0x5A;
        bad += back[z * hw * hh + y * hw + x] != want;
      }
  EXPECT_EQ(bad, 0u) << "device-to-device box (hipDrvMemcpy3D) or hipMemset3D";
  // hipMemcpyParam2D: one slice of the device volume into pinned memory
  std::memset(pin, 0, hw * hh);
  hip_Memcpy2D m{};
  m.srcMemoryType = hipMemoryTypeDevice;
  m.srcDevice = static_cast<unsigned char*>(dev.ptr) + 2 * dev.pitch * h;  // slice 2
  m.srcPitch = dev.pitch;
  m.dstMemoryType = hipMemoryTypeHost;
  m.dstHost = pin;
  m.dstPitch = hw;
  m.WidthInBytes = w;
  m.Height = h;
  ASSERT_EQ(hipMemcpyParam2D(&m), hipSuccess);
  EXPECT_EQ(std::memcmp(pin + 3 * hw, page.data() + host_at(0, 3, 2), w), 0);
  // An array that is not one, and bad geometry, fail with an error.
  hipMemcpy3DParms arr = p;
  arr.dstArray = reinterpret_cast<hipArray_t>(uintptr_t(0x1000));
  arr.dstPtr = hipPitchedPtr{};
  EXPECT_EQ(hipMemcpy3D(&arr), hipErrorInvalidValue);
  hipMemcpy3DParms narrow = p;
  narrow.srcPtr.pitch = w - 1;  // a row does not fit its pitch
  EXPECT_EQ(hipMemcpy3D(&narrow), hipErrorInvalidPitchValue);
  hipMemcpy3DParms short_slice = p;
  short_slice.srcPtr.ysize = h;  // rows 1..h of a slice of h rows
  EXPECT_EQ(hipMemcpy3D(&short_slice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy3D(nullptr), hipErrorInvalidValue);
  hipMemcpy3DParms none = p;
  none.extent.depth = 0;
  EXPECT_EQ(hipMemcpy3D(&none), hipSuccess);  // nothing to copy
  EXPECT_EQ(hipFree(dev.ptr), hipSuccess);
  EXPECT_EQ(hipFree(dev2.ptr), hipSuccess);
  EXPECT_EQ(hipHostFree(pin), hipSuccess);
}

// 256 MiB each way (pinned H2D, device to device, D2H into pageable memory): beyond every
// engine's chunk and the staging buffers' size. A word pattern keeps the host side cheap.
TEST_F(HipCopy, Copies256MiBEachWay) {
  const size_t n = size_t(256) << 20;
  uint64_t* pin;
  ASSERT_EQ(hipHostMalloc(&pin, n), hipSuccess);
  for (size_t i = 0; i < n / 8; ++i) pin[i] = i * 0x9E3779B97F4A7C15ull;
  void *a, *b;
  ASSERT_EQ(hipMalloc(&a, n), hipSuccess);
  ASSERT_EQ(hipMalloc(&b, n), hipSuccess);
  ASSERT_EQ(hipMemcpy(a, pin, n, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(b, a, n, hipMemcpyDeviceToDevice), hipSuccess);
  std::vector<uint64_t> out(n / 8, 0);
  ASSERT_EQ(hipMemcpy(out.data(), b, n, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(std::memcmp(out.data(), pin, n), 0);
  EXPECT_EQ(out[n / 8 - 1], (n / 8 - 1) * 0x9E3779B97F4A7C15ull);
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(b), hipSuccess);
  EXPECT_EQ(hipHostFree(pin), hipSuccess);
}

// Each copy takes the engine the routing says (the emulator counts SDMA copies and kernel
// dispatches): KFDRT_SDMA=1 puts every copy on SDMA, KFDRT_SDMA=0 on blit kernels, and by
// default host copies from 64 KiB up go to SDMA, smaller ones and device-to-device copies to
// blit kernels.
TEST_F(HipCopy, TakesThePathTheRoutingSays) {
  if (!counts().have) GTEST_SKIP() << "needs the emulator's engine counts";
  const size_t big = size_t(1) << 20, small = 4096;
  void *d1, *d2, *pin;
  ASSERT_EQ(hipMalloc(&d1, big), hipSuccess);
  ASSERT_EQ(hipMalloc(&d2, big), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&pin, big), hipSuccess);
  ASSERT_EQ(hipMemcpy(d1, pin, big, hipMemcpyHostToDevice), hipSuccess);  // engines created
  ASSERT_EQ(hipMemcpy(d2, d1, small, hipMemcpyDeviceToDevice), hipSuccess);
  const Routing how = routing();
  struct Case {
    const char* what;
    void* dst;
    const void* src;
    size_t n;
    bool sdma;  // by default
  } cases[] = {{"1 MiB pinned H2D", d1, pin, big, true},
               {"1 MiB D2H to pinned", pin, d1, big, true},
               {"4 KiB pinned H2D", d1, pin, small, true},
               {"1 MiB D2D", d2, d1, big, false}};
  for (const Case& c : cases) {
    const Counts before = counts();
    ASSERT_EQ(hipMemcpy(c.dst, c.src, c.n, hipMemcpyDefault), hipSuccess) << c.what;
    const Counts after = counts();
    const bool sdma = how == Routing::Sdma || (how == Routing::Default && c.sdma);
    const uint64_t moved = after.c.sdma_copy_bytes - before.c.sdma_copy_bytes;
    const uint64_t kernels = after.c.dispatches - before.c.dispatches;
    if (sdma) {
      EXPECT_EQ(moved, c.n) << c.what << ": on SDMA";
      EXPECT_EQ(kernels, 0u) << c.what << ": no blit kernel";
    } else {
      EXPECT_EQ(moved, 0u) << c.what << ": not on SDMA";
      EXPECT_GE(kernels, 1u) << c.what << ": on blit kernels";
    }
  }
  EXPECT_EQ(hipFree(d1), hipSuccess);
  EXPECT_EQ(hipFree(d2), hipSuccess);
  EXPECT_EQ(hipHostFree(pin), hipSuccess);
}

// kernel -> copy -> kernel -> copy on one stream runs on the device alone: once submitted (the
// first kernel held back by a flag in host memory), no thread of the process calls into the
// driver (no ioctl, no event wait) until the host sees the last copy's result, which it polls
// in pinned memory without calling HIP.
TEST_F(HipCopy, KernelCopyKernelChainNeedsNoHost) {
  if (!counts().have) GTEST_SKIP() << "needs the emulator's counts of driver calls";
  const uint32_t n = 1 << 12;
  uint32_t *a, *b, *gate, *out;
  ASSERT_EQ(hipMalloc(&a, n * 4), hipSuccess);
  ASSERT_EQ(hipMalloc(&b, n * 4), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&gate, 64, hipHostMallocCoherent), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&out, n * 4, hipHostMallocCoherent), hipSuccess);
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  const dim3 grid(n / 256), block(256);
  for (int round = 0; round < 2; ++round) {  // the first round creates queues, engines, signals
    __atomic_store_n(gate, 0u, __ATOMIC_RELEASE);
    std::memset(out, 0, n * 4);
    hipLaunchKernelGGL(gated_write, grid, block, 0, s, gate, a, n, uint32_t(round));
    ASSERT_EQ(hipMemcpyAsync(b, a, n * 4, hipMemcpyDeviceToDevice, s), hipSuccess);
    hipLaunchKernelGGL(scale_add, grid, block, 0, s, b, n, 2u, 1u);
    ASSERT_EQ(hipMemcpyAsync(out, b, n * 4, hipMemcpyDeviceToHost, s), hipSuccess);
    const Counts before = counts();
    __atomic_store_n(gate, 1u, __ATOMIC_RELEASE);
    const uint32_t last = (n - 1 + uint32_t(round)) * 2 + 1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (__atomic_load_n(&out[n - 1], __ATOMIC_ACQUIRE) != last && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    const Counts after = counts();
    ASSERT_EQ(__atomic_load_n(&out[n - 1], __ATOMIC_ACQUIRE), last) << "the chain did not complete";
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(out[0], uint32_t(round) * 2 + 1);
    if (round == 1) {
      EXPECT_EQ(after.c.ioctls, before.c.ioctls) << "driver calls while the chain ran";
      EXPECT_EQ(after.c.event_waits, before.c.event_waits) << "event waits while the chain ran";
    }
  }
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(b), hipSuccess);
  EXPECT_EQ(hipHostFree(gate), hipSuccess);
  EXPECT_EQ(hipHostFree(out), hipSuccess);
}
