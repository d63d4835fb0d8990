// SPDX-License-Identifier: MIT
// The host-memory coherence table of the HIP programming guide ("Coherency Controls") as checks: flags, HIP_HOST_COHERENT,
// visibility while a kernel runs (coherent) and after synchronisation (both kinds).
#include <hip/hip_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "check.h"

// Kernel spin bound in ticks of the 100 MHz wall clock (30 s): a broken runtime fails, never hangs.
constexpr long long kBound = 30ll * 100000000;

// Publishes `flag = 1` with a system-scope release, then waits (bounded) for the host's `ack`.
__global__ void handshake(int* flag, int* ack, int* result) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  long long t0 = wall_clock64();
  bool timed_out = false;
  while (__hip_atomic_load(ack, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0 && !timed_out)
    timed_out = wall_clock64() - t0 > kBound;
  *result = timed_out ? -1 : 1;
}

__global__ void fill(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

int coherence_of(void* p) {
  int c = -1;
  if (kfdrtPointerGetCoherence(p, &c) != hipSuccess) return -1;
  return c;
}

// A host thread spins on memory a running kernel writes: coherent memory makes that work.
void check_visible_while_running() {
  int* m = nullptr;
  CHECK_HIP(hipHostMalloc(&m, 3 * sizeof(int), hipHostMallocCoherent));
  if (!m) return;
  m[0] = m[1] = m[2] = 0;
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  handshake<<<1, 64, 0, s>>>(m, m + 1, m + 2);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool seen = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (__atomic_load_n(&m[0], __ATOMIC_ACQUIRE) == 1) {
      seen = true;
      break;
    }
    std::this_thread::yield();
  }
  CHECK(seen);  // the kernel's write reached the host while the kernel was running
  __atomic_store_n(&m[1], 1, __ATOMIC_RELEASE);
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK(m[2] == 1);  // the kernel saw the host's write while running
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipHostFree(m));
}

// Kernel writes to host memory of every valid flag combination are visible after
// hipStreamSynchronize (system-scope release), coherent or not.
void check_every_flag_combination() {
  const unsigned bits[] = {hipHostMallocPortable, hipHostMallocMapped, hipHostMallocWriteCombined,
                           hipHostMallocNumaUser, hipHostMallocCoherent, hipHostMallocNonCoherent};
  const int n = 1000;
  int combos = 0, visible = 0, rejected = 0, right_kind = 0;
  for (unsigned mask = 0; mask < 64; ++mask) {
    unsigned flags = 0;
    for (int b = 0; b < 6; ++b)
      if (mask & (1u << b)) flags |= bits[b];
    int* p = nullptr;
    hipError_t e = hipHostMalloc(&p, n * sizeof(int), flags);
    bool both = (flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent);
    if (both) {
      rejected += e == hipErrorInvalidValue && p == nullptr;
      continue;
    }
    ++combos;
    if (e != hipSuccess) continue;
    int want = (flags & hipHostMallocCoherent) ? 1 : 0;  // HIP_HOST_COHERENT is unset here
    right_kind += coherence_of(p) == want;
    fill<<<(n + 255) / 256, 256>>>(p, n, int(mask) * 10000);
    if (hipStreamSynchronize(0) == hipSuccess) {
      int ok = 1;
      for (int i = 0; i < n; ++i) ok &= p[i] == int(mask) * 10000 + i;
      visible += ok;
    }
    unsigned got = ~0u;
    if (hipHostGetFlags(&got, p) != hipSuccess || got != flags) --right_kind;  // the flags as given
    (void)hipHostFree(p);
  }
  std::printf("flag combinations: %d valid, %d visible after sync, %d with the right coherence, "
              "%d rejected (Coherent|NonCoherent)\n", combos, visible, right_kind, rejected);
  CHECK(combos == 48 && visible == 48 && right_kind == 48);
  CHECK(rejected == 16);
  (void)hipGetLastError();
}

// HIP_HOST_COHERENT decides only when neither coherence flag is given.
void check_env_variable() {
  struct Case {
    const char* env;
    unsigned flags;
    int want;
  } cases[] = {
      {nullptr, 0, 0},
      {"0", 0, 0},
      {"1", 0, 1},
      {"1", hipHostMallocNonCoherent, 0},
      {"0", hipHostMallocCoherent, 1},
      {"1", hipHostMallocCoherent, 1},
      {"1", hipHostMallocMapped, 1},
  };
  int good = 0;
  for (const Case& c : cases) {
    if (c.env) setenv("HIP_HOST_COHERENT", c.env, 1);
    else unsetenv("HIP_HOST_COHERENT");
    int* p = nullptr;
    if (hipHostMalloc(&p, 4096, c.flags) == hipSuccess) {
      good += coherence_of(p) == c.want;
      (void)hipHostFree(p);
    }
  }
  unsetenv("HIP_HOST_COHERENT");
  CHECK(good == int(sizeof cases / sizeof cases[0]));
}

// Non-coherent memory: visible after hipDeviceSynchronize and after an event recorded with
// hipEventReleaseToSystem; not through hipStreamWaitEvent alone (nothing to check for that).
void check_noncoherent_sync_points() {
  const int n = 4096;
  int* p = nullptr;
  CHECK_HIP(hipHostMalloc(&p, n * sizeof(int), hipHostMallocNonCoherent));
  if (!p) return;
  CHECK(coherence_of(p) == 0);
  fill<<<n / 256, 256>>>(p, n, 7);
  CHECK_HIP(hipDeviceSynchronize());
  int ok = 1;
  for (int i = 0; i < n; ++i) ok &= p[i] == 7 + i;
  CHECK(ok == 1);
  hipEvent_t ev;
  CHECK_HIP(hipEventCreateWithFlags(&ev, hipEventReleaseToSystem));
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  fill<<<n / 256, 256, 0, s>>>(p, n, 99);
  CHECK_HIP(hipEventRecord(ev, s));
  CHECK_HIP(hipEventSynchronize(ev));
  ok = 1;
  for (int i = 0; i < n; ++i) ok &= p[i] == 99 + i;
  CHECK(ok == 1);
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipEventDestroy(ev));
  CHECK_HIP(hipHostFree(p));
}

int main() {
  unsetenv("HIP_HOST_COHERENT");
  check_visible_while_running();
  check_every_flag_combination();
  check_env_variable();
  check_noncoherent_sync_points();
  return check::summary();
}
