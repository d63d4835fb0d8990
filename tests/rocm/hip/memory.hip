// SPDX-License-Identifier: MIT
// ROCm's HIP on the device: allocations, copies both ways at several sizes (ROCm's defaults: SDMA
// for host<->device), device-to-device copies, memsets and kernels, each result checked.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "rocm_stack.h"

__global__ void vector_add(const int* a, const int* b, int* c, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Block sums in shared memory, then one atomic per block.
__global__ void block_sum(const int* in, unsigned long long* total, size_t n) {
  __shared__ int part[256];
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)part[0]);
}

__global__ void write_index(unsigned* p, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = unsigned(i) * 3u + 1u;
}

static uint8_t pattern(size_t i, unsigned seed) { return uint8_t((i * 131u + seed * 7u) ^ (i >> 9)); }

// Pageable host memory to the device and back, at sizes that take ROCm's different copy paths
// (small, unaligned, staged, pinned in place).
static void round_trips() {
  const size_t sizes[] = {4, 1000, 65536 + 3, 4u << 20, 48u << 20};
  unsigned seed = 1;
  for (size_t n : sizes) {
    std::vector<uint8_t> src(n), dst(n, 0);
    for (size_t i = 0; i < n; ++i) src[i] = pattern(i, seed);
    void* d = nullptr;
    if (!CHECK_HIP(hipMalloc(&d, n))) return;
    CHECK_HIP(hipMemcpy(d, src.data(), n, hipMemcpyHostToDevice));
    CHECK_HIP(hipMemcpy(dst.data(), d, n, hipMemcpyDeviceToHost));
    std::printf("  %zu bytes\n", n);
    CHECK(std::memcmp(src.data(), dst.data(), n) == 0);
    // A copy at an odd offset inside the allocation.
    if (n > 64) {
      std::vector<uint8_t> mid(n - 33, 0);
      CHECK_HIP(hipMemcpy(mid.data(), static_cast<uint8_t*>(d) + 17, n - 33, hipMemcpyDeviceToHost));
      CHECK(std::memcmp(mid.data(), src.data() + 17, n - 33) == 0);
    }
    CHECK_HIP(hipFree(d));
    ++seed;
  }
}

static void kernels_and_device_copies() {
  const size_t n = 1 << 20;
  std::vector<int> a(n), b(n), c(n, 0);
  for (size_t i = 0; i < n; ++i) {
    a[i] = int(i % 1000) - 500;
    b[i] = int(i * 7 % 911);
  }
  int *da, *db, *dc, *dd;
  CHECK_HIP(hipMalloc(&da, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&db, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&dc, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&dd, n * sizeof(int)));
  CHECK_HIP(hipMemcpy(da, a.data(), n * sizeof(int), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(db, b.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(vector_add, dim3(n / 256), dim3(256), 0, 0, da, db, dc, n);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpy(dd, dc, n * sizeof(int), hipMemcpyDeviceToDevice));
  CHECK_HIP(hipMemcpy(c.data(), dd, n * sizeof(int), hipMemcpyDeviceToHost));
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok &= c[i] == a[i] + b[i];
  CHECK(ok);

  unsigned long long* total;
  CHECK_HIP(hipMalloc(&total, sizeof *total));
  CHECK_HIP(hipMemset(total, 0, sizeof *total));
  hipLaunchKernelGGL(block_sum, dim3(n / 256), dim3(256), 0, 0, dc, total, n);
  unsigned long long got = 0, want = 0;
  CHECK_HIP(hipMemcpy(&got, total, sizeof got, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) want += (unsigned long long)(long long)c[i];
  CHECK(got == want);
  for (void* p : {(void*)da, (void*)db, (void*)dc, (void*)dd, (void*)total}) CHECK_HIP(hipFree(p));
}

// hipMemset and friends run ROCm's fill kernels (compiled by comgr at first use).
static void memsets() {
  const size_t n = (1 << 20) + 13;
  uint8_t* d;
  CHECK_HIP(hipMalloc(&d, n));
  CHECK_HIP(hipMemset(d, 0x5a, n));
  CHECK_HIP(hipMemset(d + 5, 0xc3, 1000));  // unaligned start and length
  std::vector<uint8_t> h(n);
  CHECK_HIP(hipMemcpy(h.data(), d, n, hipMemcpyDeviceToHost));
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok &= h[i] == ((i >= 5 && i < 1005) ? 0xc3 : 0x5a);
  CHECK(ok);

  const size_t words = 300001;
  uint32_t* w;
  CHECK_HIP(hipMalloc(&w, words * 4));
  CHECK_HIP(hipMemsetD32(w, 0xdeadbeef, words));
  CHECK_HIP(hipMemsetAsync(w + 7, 0, 40, nullptr));
  CHECK_HIP(hipDeviceSynchronize());
  std::vector<uint32_t> hw(words);
  CHECK_HIP(hipMemcpy(hw.data(), w, words * 4, hipMemcpyDeviceToHost));
  ok = true;
  for (size_t i = 0; i < words; ++i) ok &= hw[i] == ((i >= 7 && i < 17) ? 0u : 0xdeadbeefu);
  CHECK(ok);
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipFree(w));
}

// Pinned host memory: async copies, and a registered host buffer the kernel writes directly.
static void pinned_memory() {
  const size_t n = 3 << 20;
  uint8_t *hsrc, *hdst, *d;
  CHECK_HIP(hipHostMalloc(&hsrc, n, hipHostMallocDefault));
  CHECK_HIP(hipHostMalloc(&hdst, n, hipHostMallocDefault));
  CHECK_HIP(hipMalloc(&d, n));
  for (size_t i = 0; i < n; ++i) {
    hsrc[i] = pattern(i, 99);
    hdst[i] = 0;
  }
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipMemcpyAsync(d, hsrc, n, hipMemcpyHostToDevice, s));
  CHECK_HIP(hipMemcpyAsync(hdst, d, n, hipMemcpyDeviceToHost, s));
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK(std::memcmp(hsrc, hdst, n) == 0);

  const size_t words = 100000;
  std::vector<unsigned> reg(words, 0);
  CHECK_HIP(hipHostRegister(reg.data(), words * sizeof(unsigned), hipHostRegisterDefault));
  unsigned* dev_view = nullptr;
  CHECK_HIP(hipHostGetDevicePointer(reinterpret_cast<void**>(&dev_view), reg.data(), 0));
  hipLaunchKernelGGL(write_index, dim3((words + 255) / 256), dim3(256), 0, s, dev_view, words);
  CHECK_HIP(hipStreamSynchronize(s));
  bool ok = true;
  for (size_t i = 0; i < words; ++i) ok &= reg[i] == unsigned(i) * 3u + 1u;
  CHECK(ok);
  CHECK_HIP(hipHostUnregister(reg.data()));
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipHostFree(hsrc));
  CHECK_HIP(hipHostFree(hdst));
  CHECK_HIP(hipFree(d));
}

int main() {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  if (!CHECK(count >= 1)) return check::summary();
  rocm_stack::expect_rocm_runtime();
  hipDeviceProp_t p;
  CHECK_HIP(hipGetDeviceProperties(&p, 0));
  std::printf("device 0: %s (%s), %d CUs, %zu MiB\n", p.name, p.gcnArchName, p.multiProcessorCount,
              size_t(p.totalGlobalMem >> 20));
  CHECK(std::strncmp(p.gcnArchName, "gfx", 3) == 0);
  size_t free_b = 0, total_b = 0;
  CHECK_HIP(hipMemGetInfo(&free_b, &total_b));
  CHECK(total_b > 0 && free_b <= total_b);
  round_trips();
  kernels_and_device_copies();
  memsets();
  pinned_memory();
  return check::summary();
}
