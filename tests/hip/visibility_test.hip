// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): the host-memory visibility table of HIP (hipStreamSynchronize, hipDeviceSynchronize, hipEventSynchronize, hipStreamWaitEvent) for coherent and non-coherent host memory and device memory read through the host mapping; polling kernels; two workgroups with and without __threadfence().
//
// With the documented synchronisation the data is visible on any device. Where the table says
// it is not (non-coherent memory after a device-scope event, or after hipStreamWaitEvent), the
// emulator's strict memory model shows the stale value every time, and KFDEMU_MEMORY_MODEL=sc
// never (so the test sees the model); on a real GPU, whose caches may evict a line at any time,
// only the visible cases are asserted.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../../api/include/hc/detail/kfdrt_ext.h"
#include "../../emu/control.h"

constexpr int kN = 256;
constexpr long long kTick = 100000000;  // wall_clock64 runs at 100 MHz

__global__ void write_values(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

__global__ void copy_values(const int* src, int* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// Reads *flag once (the GPU's caches now hold it), says so in started (coherent memory), then
// polls *flag with system-scope relaxed loads until it is nonzero or `ticks` pass:
// result = 1 seen, -1 timed out.
__global__ void poll_flag(int* flag, int* started, int* result, long long ticks) {
  if (threadIdx.x || blockIdx.x) return;
  int v = __hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_store(started, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  const long long t0 = wall_clock64();
  while (v == 0 && wall_clock64() - t0 < ticks) v = __hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_store(result, v != 0 ? 1 : -1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

// Block 0 stores the pairs (i, i) into 64 words for i = 1, 2, ... with 64-bit relaxed atomic
// stores (global_store_dwordx2), its lanes scattered over the words (`stride` words apart), from
// when block 1 starts until it is done; block 1, at the same time on another CU, loads them
// (global_load_dwordx2) in turn all lanes on one word, scattered, and evenly spaced (one strided
// block), and counts loads whose halves differ (counts[0])
// and loads that saw a new value (counts[1]). flags[0]: block 1 started, flags[1]: it is done,
// flags[2]: a wait timed out, flags[3]: the stores' last i.
__global__ void tear64(unsigned long long* words, unsigned stride, unsigned* flags, unsigned iters, unsigned* counts) {
  const unsigned l = threadIdx.x;
  const long long bound = 10 * kTick, t0 = wall_clock64();
  if (blockIdx.x == 0) {
    while (!__hip_atomic_load(&flags[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT))
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        return;
      }
    for (unsigned i = 1; !__hip_atomic_load(&flags[1], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); ++i) {
      __hip_atomic_store(&words[((l * 7) & 63) * stride], (unsigned long long)i << 32 | i, __ATOMIC_RELAXED,
                         __HIP_MEMORY_SCOPE_AGENT);
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        return;
      }
      if (l == 0) flags[3] = i;
    }
    return;
  }
  if (l == 0) __hip_atomic_store(&flags[0], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned torn = 0, changes = 0;
  unsigned long long last = 0;
  for (unsigned i = 0; i < iters; ++i) {
    const unsigned k = i % 3, w = k == 0 ? (i / 3) & 63 : k == 1 ? (l * 5 + i) & 63 : l;
    const unsigned long long v = __hip_atomic_load(&words[w * stride], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    torn += static_cast<unsigned>(v) != static_cast<unsigned>(v >> 32);
    changes += v != last;
    last = v;
  }
  atomicAdd(&counts[0], torn);
  atomicAdd(&counts[1], changes);
  if (l == 0) __hip_atomic_store(&flags[1], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Where lane l of a wave accesses in the tests below: layout 0 the words in lane order (one
// block), 1 scattered over them (each line's lanes apart), 2 every other word (a strided block).
__device__ unsigned lane_word(unsigned l, unsigned layout) {
  return layout == 0 ? l : layout == 1 ? (l * 7) & 63 : 2 * l;
}

// Block 0 stores i = 1, 2, ... into 64 words, each store a system-scope release (the L2 writes
// back what it holds first, so the store lands on a line with no dirty bytes), and loads the word
// back at agent scope (from the L2); block 1, at the same time on another CU, runs atomics on the
// same words that leave them as they are (compare-and-swaps that never match, max with 0): the L2
// performs them, bringing the bytes it does not hold from memory. Every atomic is ordered before
// or after a store, so the load always reads back the value just stored; counts[0]: loads that
// did not. flags as in tear64; counts[1]: a sum of the atomics' results (keeps them).
__global__ void lost_store(unsigned* words, unsigned layout, unsigned* flags, unsigned iters, unsigned* counts) {
  const unsigned w = lane_word(threadIdx.x, layout);
  const long long bound = 10 * kTick, t0 = wall_clock64();
  if (blockIdx.x == 0) {
    while (!__hip_atomic_load(&flags[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT))
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        return;
      }
    unsigned lost = 0;
    for (unsigned i = 1; !__hip_atomic_load(&flags[1], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); ++i) {
      __hip_atomic_store(&words[w], i, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
      lost += __hip_atomic_load(&words[w], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) != i;
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        break;
      }
      if (threadIdx.x == 0) flags[3] = i;
    }
    atomicAdd(&counts[0], lost);
    return;
  }
  if (threadIdx.x == 0) __hip_atomic_store(&flags[0], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned sum = 0;
  for (unsigned i = 0; i < iters; ++i)
    sum += (i & 1) ? atomicMax(&words[w], 0u) : atomicCAS(&words[w], 0xffffffffu, 0u);
  atomicAdd(&counts[1], sum);
  if (threadIdx.x == 0) __hip_atomic_store(&flags[1], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Block 0 moves 64 words from (i-1, i-1) to (i, i): a system-scope release that stores i-1 into
// the low half again (the line written back, then only those four bytes dirty in the L2), then
// one 64-bit store of the pair. Block 1 loads the words at the same time on another CU and counts
// loads whose halves differ (counts[0]; the L2 holds half of such a word newer than memory) and
// loads that saw a new value (counts[1]).
__global__ void tear_partial(unsigned long long* words, unsigned layout, unsigned* flags, unsigned iters,
                             unsigned* counts) {
  const unsigned w = lane_word(threadIdx.x, layout);
  const long long bound = 10 * kTick, t0 = wall_clock64();
  if (blockIdx.x == 0) {
    while (!__hip_atomic_load(&flags[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT))
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        return;
      }
    for (unsigned i = 1; !__hip_atomic_load(&flags[1], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); ++i) {
      __hip_atomic_store(reinterpret_cast<unsigned*>(&words[w]), i - 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
      __hip_atomic_store(&words[w], (unsigned long long)i << 32 | i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        return;
      }
      if (threadIdx.x == 0) flags[3] = i;
    }
    return;
  }
  if (threadIdx.x == 0) __hip_atomic_store(&flags[0], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned torn = 0, changes = 0;
  unsigned long long last = 0;
  for (unsigned i = 0; i < iters; ++i) {
    const unsigned k = i % 3, r = k == 0 ? lane_word((i / 3) & 63, layout) : k == 1 ? lane_word((threadIdx.x * 5 + i) & 63, layout) : w;
    const unsigned long long v = __hip_atomic_load(&words[r], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    torn += static_cast<unsigned>(v) != static_cast<unsigned>(v >> 32);
    changes += v != last;
    last = v;
  }
  atomicAdd(&counts[0], torn);
  atomicAdd(&counts[1], changes);
  if (threadIdx.x == 0) __hip_atomic_store(&flags[1], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Two workgroups pass data through global memory. Block 0 reads data (its CU's L1 now holds
// it), tells block 1, waits for block 1's new data and reads it again (out[64 + i]); block 1
// waits, writes data[i] = 100 + i and raises the flag. With `fence`, both use __threadfence()
// (an agent-scope release and acquire) around the flag. flags[2] = 1 when a wait timed out.
__global__ void handoff(int* data, int* flags, int* out, bool fence) {
  const int i = threadIdx.x;
  const long long bound = 10 * kTick;
  if (blockIdx.x == 0) {
    out[i] = data[i];
    __syncthreads();
    if (i == 0) __hip_atomic_store(&flags[0], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    const long long t0 = wall_clock64();
    while (__hip_atomic_load(&flags[1], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0)
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        break;
      }
    if (fence) __threadfence();
    asm volatile("" ::: "memory");  // a plain load again, not the value read before
    out[64 + i] = data[i];
  } else {
    const long long t0 = wall_clock64();
    while (__hip_atomic_load(&flags[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0)
      if (wall_clock64() - t0 > bound) {
        flags[2] = 1;
        break;
      }
    data[i] = 100 + i;
    if (fence) __threadfence();
    __syncthreads();
    if (i == 0) __hip_atomic_store(&flags[1], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
}

namespace {

// The emulator's memory model, if this runs on it: strict shows stale data, sc never does, a
// real GPU may or may not.
enum class Model { Strict, Sc, Hardware };
Model memory_model() {
  auto get = reinterpret_cast<void (*)(kfdemu_config*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_config"));
  if (!get) return Model::Hardware;
  kfdemu_config c{};
  get(&c);
  return c.memory_model == KFDEMU_MEMORY_MODEL_STRICT ? Model::Strict : Model::Sc;
}

enum class Mem { Coherent, NonCoherent, Device };
const char* name(Mem m) {
  return m == Mem::Coherent ? "coherent host memory" : m == Mem::NonCoherent ? "non-coherent host memory"
                                                                             : "device memory (host mapping)";
}
// The kinds the host reads and writes directly: device memory only where the CPU reaches VRAM
// (a large BAR); on a small-BAR GPU (the emulator's default) VRAM has no host mapping at all.
std::vector<Mem> host_kinds() {
  hipDeviceProp_t prop{};
  const bool large_bar = hipGetDeviceProperties(&prop, 0) == hipSuccess && prop.isLargeBar;
  if (large_bar) return {Mem::Coherent, Mem::NonCoherent, Mem::Device};
  return {Mem::Coherent, Mem::NonCoherent};
}

int* alloc(Mem m, int n = kN) {
  int* p = nullptr;
  // Coarse-grained VRAM, the host's to read where the BAR allows (hipMalloc's has no host
  // mapping; kfdrt maps hipExtMallocWithFlags memory for the host on a large-BAR GPU).
  if (m == Mem::Device) EXPECT_EQ(hipExtMallocWithFlags(reinterpret_cast<void**>(&p), n * sizeof(int), hipDeviceMallocDefault), hipSuccess);
  else EXPECT_EQ(hipHostMalloc(&p, n * sizeof(int), m == Mem::Coherent ? hipHostMallocCoherent : hipHostMallocNonCoherent),
                 hipSuccess);
  return p;
}
void release(Mem m, int* p) {
  EXPECT_EQ(m == Mem::Device ? hipFree(p) : hipHostFree(p), hipSuccess);
}
// The host reads through its own mapping (kfdrt maps device memory for the host too).
int host_read(const int* p, int i) { return __atomic_load_n(p + i, __ATOMIC_ACQUIRE); }
void host_fill(int* p, int base) {
  for (int i = 0; i < kN; ++i) __atomic_store_n(p + i, base + i, __ATOMIC_RELEASE);
}
// How many of p[0..kN) hold base + i.
int matching(const int* p, int base) {
  int n = 0;
  for (int i = 0; i < kN; ++i) n += host_read(p, i) == base + i;
  return n;
}

class Visibility : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = memory_model();
    strict_ = model_ == Model::Strict;
    sc_ = model_ == Model::Sc;
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipStreamCreate(&s_), hipSuccess);
  }
  void TearDown() override {
    EXPECT_EQ(hipStreamDestroy(s_), hipSuccess);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  }
  void write(int* p, int base) {
    hipLaunchKernelGGL(write_values, dim3(kN / 64), dim3(64), 0, s_, p, kN, base);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
  }
  // GPU -> host: a kernel writes p, `sync` runs, the host reads. Then host -> GPU: the host
  // writes p and a kernel on the stream copies it into coherent memory the host checks.
  void both_ways(Mem m, const std::function<void()>& sync, bool visible_on_host) {
    int* p = alloc(m);
    int* seen = alloc(Mem::Coherent);
    host_fill(p, 0);
    write(p, 1000);
    sync();
    const int got = matching(p, 1000);
    if (visible_on_host || sc_) EXPECT_EQ(got, kN) << name(m) << ": the kernel's writes are visible";
    else if (strict_) EXPECT_EQ(matching(p, 0), kN) << name(m) << ": the host reads the stale values";
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);  // a system-scope release: visible now
    EXPECT_EQ(matching(p, 1000), kN) << name(m) << " after hipDeviceSynchronize";
    host_fill(p, 2000);
    hipLaunchKernelGGL(copy_values, dim3(kN / 64), dim3(64), 0, s_, p, seen, kN);
    ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
    EXPECT_EQ(matching(seen, 2000), kN) << name(m) << ": a kernel sees the host's writes (system-scope acquire)";
    release(m, p);
    release(Mem::Coherent, seen);
  }

  Model model_ = Model::Hardware;
  bool strict_ = false, sc_ = false;  // strict: the weaker synchronisation shows stale data; sc: never
  hipStream_t s_ = nullptr;
};

TEST_F(Visibility, StreamSynchronizeReleasesToTheSystem) {
  for (Mem m : host_kinds()) both_ways(m, [&] { ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess); }, true);
}

TEST_F(Visibility, DeviceSynchronizeReleasesToTheSystem) {
  for (Mem m : host_kinds()) both_ways(m, [&] { ASSERT_EQ(hipDeviceSynchronize(), hipSuccess); }, true);
}

// hipEventSynchronize: a device-scope release with hipEventReleaseToDevice (or
// hipEventDisableSystemFence), a system-scope one otherwise (what ROCm's HIP does for an event
// without flags, though HIP's documentation allows device scope there).
TEST_F(Visibility, EventSynchronizeDependsOnTheEventsScope) {
  for (unsigned flags : {unsigned(hipEventDefault), unsigned(hipEventReleaseToDevice), unsigned(hipEventDisableSystemFence),
                         unsigned(hipEventReleaseToSystem)}) {
    for (Mem m : host_kinds()) {
      SCOPED_TRACE(testing::Message() << "event flags 0x" << std::hex << flags);
      hipEvent_t e;
      ASSERT_EQ(hipEventCreateWithFlags(&e, flags), hipSuccess);
      const bool visible = m == Mem::Coherent || (flags != hipEventReleaseToDevice && flags != hipEventDisableSystemFence);
      both_ways(m, [&] {
        ASSERT_EQ(hipEventRecord(e, s_), hipSuccess);
        ASSERT_EQ(hipEventSynchronize(e), hipSuccess);
      }, visible);
      EXPECT_EQ(hipEventDestroy(e), hipSuccess);
    }
  }
}

// hipStreamWaitEvent carries no fence: what a kernel on GPU 0 wrote to non-coherent memory is
// still in GPU 0's L2 when a stream of GPU 1 that waited for it has finished, even after that
// stream's own system-scope release (GPU 1's L2): the host reads stale data, and a kernel on
// GPU 1 reading host memory reads memory, not GPU 0's L2. (GPU 1 reads only host memory here:
// kfdrt maps device memory for its owner alone, hipDeviceEnablePeerAccess maps nothing.)
TEST_F(Visibility, StreamWaitEventMakesNothingVisibleToAnotherDevice) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count < 2) GTEST_SKIP() << "needs two GPUs (the emulator: KFDEMU_GPUS=2)";
  for (Mem m : host_kinds()) {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    int* p = alloc(m);
    host_fill(p, 0);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    hipEvent_t e;  // (a device-scope event: no release of its own to the system)
    ASSERT_EQ(hipEventCreateWithFlags(&e, hipEventReleaseToDevice), hipSuccess);
    write(p, 3000);
    ASSERT_EQ(hipEventRecord(e, s_), hipSuccess);
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    hipStream_t s1;
    ASSERT_EQ(hipStreamCreate(&s1), hipSuccess);
    int* seen = alloc(Mem::Coherent);
    host_fill(seen, -1);
    ASSERT_EQ(hipStreamWaitEvent(s1, e, 0), hipSuccess);
    if (m != Mem::Device) hipLaunchKernelGGL(copy_values, dim3(kN / 64), dim3(64), 0, s1, p, seen, kN);
    ASSERT_EQ(hipStreamSynchronize(s1), hipSuccess);
    EXPECT_EQ(hipEventQuery(e), hipSuccess) << "the wait ordered s1 after the event";
    if (m == Mem::Coherent || sc_) {
      if (m != Mem::Device) EXPECT_EQ(matching(seen, 3000), kN) << name(m) << ": GPU 1 reads it";
      EXPECT_EQ(matching(p, 3000), kN) << name(m) << ": the host reads it";
    } else if (strict_) {
      if (m != Mem::Device) EXPECT_EQ(matching(seen, 0), kN) << name(m) << ": GPU 1 read memory, not GPU 0's L2";
      EXPECT_EQ(matching(p, 0), kN) << name(m) << ": the host reads stale memory";
    }
    EXPECT_EQ(hipStreamDestroy(s1), hipSuccess);
    release(Mem::Coherent, seen);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(matching(p, 3000), kN) << name(m) << " after hipDeviceSynchronize on GPU 0";
    EXPECT_EQ(hipEventDestroy(e), hipSuccess);
    release(m, p);
  }
}

// A kernel's own acquire: with a system-scope acquire (what kfdrt's launches use) a kernel sees
// what the host wrote; with an agent-scope one the GPU's L2 may still hold the old line.
TEST_F(Visibility, KernelAcquireScopeDecidesWhetherHostWritesAreSeen) {
  int* p = alloc(Mem::NonCoherent);
  int* seen = alloc(Mem::Coherent);
  host_fill(p, 0);
  hipLaunchKernelGGL(copy_values, dim3(kN / 64), dim3(64), 0, s_, p, seen, kN);  // the L2 holds p now
  ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
  host_fill(p, 500);
  uint64_t object = 0;
  uint32_t kernarg = 0, group = 0, priv = 0;
  ASSERT_EQ(kfdrtFuncGetKernelObject(reinterpret_cast<const void*>(&copy_values), 0, &object, &kernarg, &group, &priv),
            hipSuccess);
  for (uint8_t acquire : {uint8_t(HSA_FENCE_SCOPE_AGENT), uint8_t(HSA_FENCE_SCOPE_SYSTEM)}) {
    hsa_kernel_dispatch_packet_t k{};
    k.header = uint16_t(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE |
                        acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                        HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    k.setup = 1;
    k.workgroup_size_x = 64;
    k.workgroup_size_y = k.workgroup_size_z = 1;
    k.grid_size_x = kN;
    k.grid_size_y = k.grid_size_z = 1;
    k.kernel_object = object;
    k.group_segment_size = group;
    k.private_segment_size = priv;
    struct { const int* src; int* dst; int n; } args{p, seen, kN};
    std::vector<char> a(std::max<size_t>(kernarg, sizeof args), 0);
    std::memcpy(a.data(), &args, sizeof args);
    ASSERT_EQ(kfdrtStreamDispatchAql(s_, &k, a.data(), a.size(), nullptr), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
    if (acquire == HSA_FENCE_SCOPE_SYSTEM || sc_) EXPECT_EQ(matching(seen, 500), kN) << "system-scope acquire";
    else if (strict_) EXPECT_EQ(matching(seen, 0), kN) << "agent-scope acquire: the L2's copy is stale";
  }
  release(Mem::NonCoherent, p);
  release(Mem::Coherent, seen);
}

// A running kernel polls a flag the host sets: coherent memory (MTYPE UC) bypasses the GPU's
// caches, non-coherent memory stays in its L2 and the kernel never sees the write (it gives up
// after half a second); the queue takes the next kernel either way.
TEST_F(Visibility, PollingKernelSeesTheHostOnlyInCoherentMemory) {
  for (Mem m : {Mem::Coherent, Mem::NonCoherent}) {
    int* flag = alloc(m, 64);
    int* ctl = alloc(Mem::Coherent, 64);
    flag[0] = 0;
    ctl[0] = ctl[1] = 0;
    hipLaunchKernelGGL(poll_flag, dim3(1), dim3(64), 0, s_, flag, ctl, ctl + 1, kTick / 2);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (__atomic_load_n(&ctl[0], __ATOMIC_ACQUIRE) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    ASSERT_EQ(__atomic_load_n(&ctl[0], __ATOMIC_ACQUIRE), 1) << "the kernel did not start";
    __atomic_store_n(&flag[0], 1, __ATOMIC_RELEASE);
    ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
    if (m == Mem::Coherent || sc_) EXPECT_EQ(ctl[1], 1) << name(m) << ": seen while running";
    else if (strict_) EXPECT_EQ(ctl[1], -1) << name(m) << ": never seen, the kernel timed out";
    int* after = alloc(Mem::Coherent);
    write(after, 77);
    ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
    EXPECT_EQ(matching(after, 77), kN) << "the queue runs the next kernel";
    release(Mem::Coherent, after);
    release(m, flag);
    release(Mem::Coherent, ctl);
  }
}

// Two workgroups on two CUs (the emulator: KFDEMU_WORKERS=2). Without __threadfence() block 0
// reads its L1's stale copy of what block 1 wrote; with it, the new data.
TEST_F(Visibility, WorkgroupsPassDataThroughGlobalMemoryWithThreadfence) {
  for (bool fence : {false, true}) {
    int* data = alloc(Mem::Device, 64);
    int* flags = alloc(Mem::Coherent, 64);
    int* out = alloc(Mem::Coherent, 128);
    ASSERT_EQ(hipMemset(data, 0, 64 * sizeof(int)), hipSuccess);
    std::memset(flags, 0, 64 * sizeof(int));
    hipLaunchKernelGGL(handoff, dim3(2), dim3(64), 0, s_, data, flags, out, fence);
    ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
    ASSERT_EQ(flags[2], 0) << "a workgroup timed out waiting for the other (two must run at once)";
    for (int i : {0, 31, 63}) {
      EXPECT_EQ(out[i], 0);
      if (fence || sc_) EXPECT_EQ(out[64 + i], 100 + i) << "with __threadfence()";
      else if (strict_) EXPECT_EQ(out[64 + i], 0) << "without: the L1's stale copy";
    }
    release(Mem::Device, data);
    release(Mem::Coherent, flags);
    release(Mem::Coherent, out);
  }
}

// A naturally aligned 64-bit load or store is single-copy atomic (AMDGPUUsage's memory model
// lowers 64-bit atomics to plain dwordx2 accesses): a load racing a store on another CU sees the
// old or the new pair, never half of each (rocPRIM's look-back scan packs a flag and a value so).
TEST_F(Visibility, SixtyFourBitAccessesAreSingleCopyAtomic) {
  for (Mem m : {Mem::Device, Mem::Coherent}) {
    for (unsigned stride : {1u, 2u}) {
      SCOPED_TRACE(testing::Message() << name(m) << ", words " << stride << " apart");
      unsigned long long* words = reinterpret_cast<unsigned long long*>(alloc(m, 128 * stride));
      unsigned* counts = reinterpret_cast<unsigned*>(alloc(Mem::Coherent, 2));
      unsigned* flags = reinterpret_cast<unsigned*>(alloc(Mem::Device, 4));
      ASSERT_EQ(hipMemset(words, 0, 64 * stride * sizeof(unsigned long long)), hipSuccess);
      ASSERT_EQ(hipMemset(flags, 0, 4 * sizeof(unsigned)), hipSuccess);
      counts[0] = counts[1] = 0;
      hipLaunchKernelGGL(tear64, dim3(2), dim3(64), 0, s_, words, stride, flags, 20000u, counts);
      ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
      unsigned timed_out = 0, stores = 0;
      ASSERT_EQ(hipMemcpy(&timed_out, flags + 2, sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
      ASSERT_EQ(timed_out, 0u) << "a workgroup timed out waiting for the other (two must run at once)";
      ASSERT_EQ(hipMemcpy(&stores, flags + 3, sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
      EXPECT_GT(counts[1], 64u) << "the reader saw the words change " << counts[1] << " times (" << stores
                                << " stores): the two workgroups did not run at once";
      EXPECT_EQ(counts[0], 0u) << "loads that saw half of one 64-bit store and half of another (" << stores << " stores)";
      release(m, reinterpret_cast<int*>(words));
      release(Mem::Device, reinterpret_cast<int*>(flags));
      release(Mem::Coherent, reinterpret_cast<int*>(counts));
    }
  }
}

// A plain store and an atomic on the same word on two CUs: the atomic is ordered before or after
// the store, never undoes it (a lock released with a plain store while another wave's
// compare-and-swap spins on it must stay released), whatever the store's lanes' layout.
TEST_F(Visibility, AtomicsNeverUndoARacingStore) {
  for (Mem m : {Mem::Device, Mem::NonCoherent}) {
    for (unsigned layout : {0u, 1u, 2u}) {
      SCOPED_TRACE(testing::Message() << name(m) << ", layout " << layout);
      unsigned* words = reinterpret_cast<unsigned*>(alloc(m, 128));
      unsigned* counts = reinterpret_cast<unsigned*>(alloc(Mem::Coherent, 2));
      unsigned* flags = reinterpret_cast<unsigned*>(alloc(Mem::Device, 4));
      ASSERT_EQ(hipMemset(words, 0, 128 * sizeof(unsigned)), hipSuccess);
      ASSERT_EQ(hipMemset(flags, 0, 4 * sizeof(unsigned)), hipSuccess);
      counts[0] = counts[1] = 0;
      hipLaunchKernelGGL(lost_store, dim3(2), dim3(64), 0, s_, words, layout, flags, 20000u, counts);
      ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
      unsigned timed_out = 0, stores = 0;
      ASSERT_EQ(hipMemcpy(&timed_out, flags + 2, sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
      ASSERT_EQ(timed_out, 0u) << "a workgroup timed out waiting for the other (two must run at once)";
      ASSERT_EQ(hipMemcpy(&stores, flags + 3, sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
      EXPECT_GT(stores, 16u) << "the stores did not run while the atomics did";
      EXPECT_EQ(counts[0], 0u) << "stores an atomic on the same word undid (" << stores << " stores per lane)";
      release(m, reinterpret_cast<int*>(words));
      release(Mem::Device, reinterpret_cast<int*>(flags));
      release(Mem::Coherent, reinterpret_cast<int*>(counts));
    }
  }
}

// A 64-bit load racing a 64-bit store is single-copy atomic also when the L2 held half of the
// word newer than memory (an earlier 32-bit store to it): the load sees the old pair or the new.
TEST_F(Visibility, SixtyFourBitLoadsOfPartlyDirtyWordsAreSingleCopyAtomic) {
  for (Mem m : {Mem::Device, Mem::NonCoherent}) {
    for (unsigned layout : {0u, 1u, 2u}) {
      SCOPED_TRACE(testing::Message() << name(m) << ", layout " << layout);
      unsigned long long* words = reinterpret_cast<unsigned long long*>(alloc(m, 256));
      unsigned* counts = reinterpret_cast<unsigned*>(alloc(Mem::Coherent, 2));
      unsigned* flags = reinterpret_cast<unsigned*>(alloc(Mem::Device, 4));
      ASSERT_EQ(hipMemset(words, 0, 128 * sizeof(unsigned long long)), hipSuccess);
      ASSERT_EQ(hipMemset(flags, 0, 4 * sizeof(unsigned)), hipSuccess);
      counts[0] = counts[1] = 0;
      hipLaunchKernelGGL(tear_partial, dim3(2), dim3(64), 0, s_, words, layout, flags, 20000u, counts);
      ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
      unsigned timed_out = 0, stores = 0;
      ASSERT_EQ(hipMemcpy(&timed_out, flags + 2, sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
      ASSERT_EQ(timed_out, 0u) << "a workgroup timed out waiting for the other (two must run at once)";
      ASSERT_EQ(hipMemcpy(&stores, flags + 3, sizeof(unsigned), hipMemcpyDeviceToHost), hipSuccess);
      EXPECT_GT(counts[1], 64u) << "the reader saw the words change " << counts[1] << " times (" << stores
                                << " stores): the two workgroups did not run at once";
      EXPECT_EQ(counts[0], 0u) << "loads that saw half of one 64-bit store and half of another (" << stores << " stores)";
      release(m, reinterpret_cast<int*>(words));
      release(Mem::Device, reinterpret_cast<int*>(flags));
      release(Mem::Coherent, reinterpret_cast<int*>(counts));
    }
  }
}

// KFDEMU_REPORT_STALE: the emulator names the kernel and the address a stale load read (a meson
// test runs this with the variable set).
TEST_F(Visibility, ReportNamesTheKernelThatReadStaleData) {
  auto get = reinterpret_cast<void (*)(kfdemu_config*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_config"));
  kfdemu_config c{};
  if (get) get(&c);
  if (!get || !c.report_stale || c.memory_model != KFDEMU_MEMORY_MODEL_STRICT)
    GTEST_SKIP() << "needs the emulator with KFDEMU_REPORT_STALE=1 and the strict model";
  int* data = alloc(Mem::Device, 64);
  int* flags = alloc(Mem::Coherent, 64);
  int* out = alloc(Mem::Coherent, 128);
  ASSERT_EQ(hipMemset(data, 0, 64 * sizeof(int)), hipSuccess);
  std::memset(flags, 0, 64 * sizeof(int));
  testing::internal::CaptureStderr();
  hipLaunchKernelGGL(handoff, dim3(2), dim3(64), 0, s_, data, flags, out, false);
  ASSERT_EQ(hipStreamSynchronize(s_), hipSuccess);
  const std::string log = testing::internal::GetCapturedStderr();
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(data)));
  EXPECT_NE(log.find("kernel handoff(int*, int*, int*, bool): 64 lane loads returned stale data"),
            std::string::npos) << log;
  EXPECT_NE(log.find(addr), std::string::npos) << "the stale address " << addr << "\n" << log;
  EXPECT_NE(log.find("missing an agent-scope acquire"), std::string::npos) << log;
  release(Mem::Device, data);
  release(Mem::Coherent, flags);
  release(Mem::Coherent, out);
}

// KFDEMU_REPORT_STALE on the host side: the host reads what a kernel left in the L2 of
// non-coherent memory after a device-scope event (hipEventReleaseToDevice: a fence missing): the
// emulator names the address, the kernel and the missing system-scope release. After
// hipDeviceSynchronize (the data written back) and with the documented synchronisation, no report.
TEST_F(Visibility, ReportNamesTheKernelWhoseWritesTheHostReadStale) {
  auto get = reinterpret_cast<void (*)(kfdemu_config*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_config"));
  kfdemu_config c{};
  if (get) get(&c);
  if (!get || !c.report_stale || c.memory_model != KFDEMU_MEMORY_MODEL_STRICT)
    GTEST_SKIP() << "needs the emulator with KFDEMU_REPORT_STALE=1 and the strict model";
  int* p = alloc(Mem::NonCoherent);
  host_fill(p, 0);
  hipEvent_t e;
  ASSERT_EQ(hipEventCreateWithFlags(&e, hipEventReleaseToDevice), hipSuccess);
  write(p, 1000);
  ASSERT_EQ(hipEventRecord(e, s_), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(e), hipSuccess);
  testing::internal::CaptureStderr();
  const int stale = host_read(p, 5);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(stale, 5) << "the host reads memory: the old value";
  char addr[64];
  std::snprintf(addr, sizeof addr, "the host read 0x%llx (non-coherent memory)",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p + 5)));
  EXPECT_NE(log.find(addr), std::string::npos) << "names the address: " << addr << "\n" << log;
  EXPECT_NE(log.find("kernel write_values(int*, int, int) wrote"), std::string::npos) << log;
  EXPECT_NE(log.find("the host reads stale data"), std::string::npos) << log;
  EXPECT_NE(log.find("needs a system-scope release"), std::string::npos) << log;
  // Reported once: later reads of the page run on.
  testing::internal::CaptureStderr();
  EXPECT_EQ(matching(p, 0), kN) << "still stale";
  log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.find("the host read"), std::string::npos) << log;
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  testing::internal::CaptureStderr();
  EXPECT_EQ(matching(p, 1000), kN) << "written back";
  log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.find("the host read"), std::string::npos) << "nothing stale after a system-scope release\n" << log;
  // The same with hipEventReleaseToSystem: no report.
  hipEvent_t sys;
  ASSERT_EQ(hipEventCreateWithFlags(&sys, hipEventReleaseToSystem), hipSuccess);
  write(p, 2000);
  ASSERT_EQ(hipEventRecord(sys, s_), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(sys), hipSuccess);
  testing::internal::CaptureStderr();
  EXPECT_EQ(matching(p, 2000), kN);
  log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.find("the host read"), std::string::npos) << log;
  // A host write into a line the L2 still holds is named too (the write-back will overwrite it).
  write(p, 3000);
  ASSERT_EQ(hipEventRecord(e, s_), hipSuccess);
  ASSERT_EQ(hipEventSynchronize(e), hipSuccess);
  testing::internal::CaptureStderr();
  __atomic_store_n(p + 7, -1, __ATOMIC_RELEASE);
  log = testing::internal::GetCapturedStderr();
#if defined(__x86_64__)
  EXPECT_NE(log.find("the host wrote"), std::string::npos) << log;
  EXPECT_NE(log.find("write-back will overwrite"), std::string::npos) << log;
#endif
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(host_read(p, 7), 3007) << "the write-back overwrote the host's store, as on hardware";
  EXPECT_EQ(hipEventDestroy(e), hipSuccess);
  EXPECT_EQ(hipEventDestroy(sys), hipSuccess);
  release(Mem::NonCoherent, p);
}

// The watch's SIGSEGV handler takes only faults on watched pages: a program's own bad access
// still ends it with SIGSEGV while pages are watched.
int* volatile g_bad = nullptr;
TEST_F(Visibility, ReportLeavesOtherFaultsFatal) {
  auto get = reinterpret_cast<void (*)(kfdemu_config*)>(dlsym(RTLD_DEFAULT, "kfdemu_get_config"));
  kfdemu_config c{};
  if (get) get(&c);
  if (!get || !c.report_stale || c.memory_model != KFDEMU_MEMORY_MODEL_STRICT)
    GTEST_SKIP() << "needs the emulator with KFDEMU_REPORT_STALE=1 and the strict model";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        int* p = alloc(Mem::NonCoherent);
        hipEvent_t e;
        if (hipEventCreateWithFlags(&e, hipEventReleaseToDevice) != hipSuccess) std::exit(3);
        write(p, 1);
        if (hipEventRecord(e, s_) != hipSuccess || hipEventSynchronize(e) != hipSuccess) std::exit(4);
        *g_bad = 1;  // not a watched page
        std::exit(0);
      },
      [](int status) {  // killed by SIGSEGV, or a sanitizer's handler (chained to) reported it and exited
        return (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
               (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3 && WEXITSTATUS(status) != 4);
      },
      "");
}

}  // namespace
