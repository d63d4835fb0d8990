// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): allocation, registration, copies of every kind, fills, attributes.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include <unistd.h>

__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

class HipMemory : public ::testing::Test {
 protected:
  void TearDown() override { (void)hipGetLastError(); }
};

TEST_F(HipMemory, MallocAndFree) {
  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, 1 << 20), hipSuccess);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  EXPECT_EQ(hipFree(p), hipSuccess);
  EXPECT_EQ(hipMalloc(&p, 0), hipSuccess);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(hipFree(nullptr), hipSuccess);
}

TEST_F(HipMemory, MallocRejectsBadArguments) {
  EXPECT_EQ(hipMalloc(static_cast<void**>(nullptr), 16), hipErrorInvalidValue);
  void* p = nullptr;
  EXPECT_EQ(hipMalloc(&p, size_t(1) << 50), hipErrorOutOfMemory);
  int local = 0;
  EXPECT_EQ(hipFree(&local), hipErrorInvalidValue);
  ASSERT_EQ(hipMalloc(&p, 4096), hipSuccess);
  EXPECT_EQ(hipFree(static_cast<char*>(p) + 16), hipErrorInvalidValue);  // interior pointer
  EXPECT_EQ(hipFree(p), hipSuccess);
  EXPECT_EQ(hipFree(p), hipErrorInvalidValue);  // double free
}

// hipFree frees hipHostMalloc memory too (HIP 5.2 does; programs written for ROCm rely on it), not
// memory the program registered (hipHostUnregister gives that back).
TEST_F(HipMemory, FreeAlsoFreesPinnedHostMemory) {
  int* h = nullptr;
  ASSERT_EQ(hipHostMalloc(&h, 4096), hipSuccess);
  h[0] = 7;
  EXPECT_EQ(hipFree(h + 1), hipErrorInvalidValue);  // interior pointer
  EXPECT_EQ(hipFree(h), hipSuccess);
  EXPECT_EQ(hipHostFree(h), hipErrorInvalidValue) << "freed once already";
  hipPointerAttribute_t a{};
  EXPECT_NE(hipPointerGetAttributes(&a, h), hipSuccess);
  std::vector<int> mine(1024);
  ASSERT_EQ(hipHostRegister(mine.data(), mine.size() * sizeof(int), hipHostRegisterDefault), hipSuccess);
  EXPECT_EQ(hipFree(mine.data()), hipErrorInvalidValue);
  EXPECT_EQ(hipHostUnregister(mine.data()), hipSuccess);
}

// Registration covers the caller's bytes; the rest of their pages is other objects' memory (malloc
// puts a neighbour there). A copy that starts in such a page outside the registered bytes and runs
// past the registration is an ordinary pageable copy.
TEST_F(HipMemory, CopiesNextToRegisteredBytesArePageable) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> block(5 * page);
  unsigned char* base = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(block.data()) + page - 1) & ~(page - 1));
  unsigned char* mine = base + 100;  // registered: [base + 100, base + page + 100)
  ASSERT_EQ(hipHostRegister(mine, page, hipHostRegisterDefault), hipSuccess);
  unsigned char* other = base + page + 200;  // in the registration's last page, past its bytes
  const size_t n = 2 * page;
  unsigned char* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, n), hipSuccess);
  std::vector<unsigned char> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = static_cast<unsigned char>(i * 7 + 1);
  ASSERT_EQ(hipMemcpy(d, want.data(), n, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(hipMemcpy(other, d, n, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(std::memcmp(other, want.data(), n), 0);
  EXPECT_EQ(hipMemset(d, 0, n), hipSuccess);
  EXPECT_EQ(hipMemcpy(d, other, n, hipMemcpyHostToDevice), hipSuccess);
  std::vector<unsigned char> back(n);
  ASSERT_EQ(hipMemcpy(back.data(), d, n, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, want);
  EXPECT_EQ(hipMemcpy(mine, d, page, hipMemcpyDeviceToHost), hipSuccess) << "inside the registered bytes";
  EXPECT_EQ(std::memcmp(mine, want.data(), page), 0);
  EXPECT_EQ(hipHostUnregister(mine), hipSuccess);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(HipMemory, MallocPitchAlignsRows) {
  void* p = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(hipMallocPitch(&p, &pitch, 1000, 10), hipSuccess);
  EXPECT_GE(pitch, 1000u);
  EXPECT_EQ(pitch % 256, 0u);
  EXPECT_EQ(hipFree(p), hipSuccess);
  EXPECT_EQ(hipMallocPitch(&p, nullptr, 10, 10), hipErrorInvalidValue);
}

bool large_bar() {
  hipDeviceProp_t prop{};
  return hipGetDeviceProperties(&prop, 0) == hipSuccess && prop.isLargeBar;
}

// Fine-grained and uncached device memory is host-visible VRAM: on a small-BAR GPU (the
// emulator's default) it is refused with hipErrorOutOfMemory, as ROCm has no such pool for the
// CPU there; coarse-grained memory then is device-only VRAM, as hipMalloc's.
TEST_F(HipMemory, ExtMallocWithFlagsPicksCoherence) {
  struct {
    unsigned flags;
    int coherence;
  } cases[] = {{hipDeviceMallocDefault, 0}, {hipDeviceMallocFinegrained, 1}, {hipDeviceMallocUncached, 2}};
  const bool large = large_bar();
  for (auto c : cases) {
    void* p = nullptr;
    const hipError_t e = hipExtMallocWithFlags(&p, 8192, c.flags);
    if (!large && c.flags != hipDeviceMallocDefault) {
      EXPECT_EQ(e, hipErrorOutOfMemory) << c.flags << ": fine-grained VRAM on a small-BAR GPU";
      EXPECT_EQ(p, nullptr);
      continue;
    }
    ASSERT_EQ(e, hipSuccess) << c.flags;
    int got = -1;
    EXPECT_EQ(kfdrtPointerGetCoherence(p, &got), hipSuccess);
    EXPECT_EQ(got, c.coherence) << c.flags;
    EXPECT_EQ(hipFree(p), hipSuccess);
  }
  void* p = nullptr;
  EXPECT_EQ(hipExtMallocWithFlags(&p, 64, 0x100), hipErrorInvalidValue);
}

// On a large-BAR GPU fine-grained device memory is shared with the host: the host writes it
// through its mapping, a kernel adds one, the host reads the result after a synchronize.
TEST_F(HipMemory, FineGrainedDeviceMemoryIsHostVisibleOnALargeBar) {
  if (!large_bar()) GTEST_SKIP() << "a small-BAR GPU has no host-visible VRAM (KFDEMU_VISIBLE_VRAM_MB=all: large BAR)";
  int* p = nullptr;
  ASSERT_EQ(hipExtMallocWithFlags(reinterpret_cast<void**>(&p), 256 * sizeof(int), hipDeviceMallocFinegrained),
            hipSuccess);
  for (int i = 0; i < 256; ++i) p[i] = i;
  add_one<<<1, 256>>>(p, 256);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  int ok = 0;
  for (int i = 0; i < 256; ++i) ok += p[i] == i + 1;
  EXPECT_EQ(ok, 256);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HipMemory, ManagedMemoryIsSharedWithKernels) {
  int* m = nullptr;
  ASSERT_EQ(hipMallocManaged(&m, 256 * sizeof(int)), hipSuccess);
  for (int i = 0; i < 256; ++i) m[i] = i;
  add_one<<<1, 256>>>(m, 256);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  int ok = 0;
  for (int i = 0; i < 256; ++i) ok += m[i] == i + 1;
  EXPECT_EQ(ok, 256);
  hipPointerAttribute_t a;
  ASSERT_EQ(hipPointerGetAttributes(&a, m + 3), hipSuccess);
  EXPECT_EQ(a.type, hipMemoryTypeHost);  // HIP 5.2: managed memory is host memory, isManaged
  EXPECT_EQ(a.hostPointer, m + 3);
  EXPECT_EQ(a.isManaged, 1);
  EXPECT_EQ(hipMemPrefetchAsync(m, 256 * sizeof(int), 0, 0), hipSuccess);
  EXPECT_EQ(hipFree(m), hipSuccess);
  EXPECT_EQ(hipMallocManaged(&m, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMallocManaged(&m, 64, 0x10), hipErrorInvalidValue);
}

TEST_F(HipMemory, HostRegisterMapsUserMemory) {
  std::vector<int> buf(1000, 5);
  ASSERT_EQ(hipHostRegister(buf.data(), buf.size() * sizeof(int), hipHostRegisterDefault), hipSuccess);
  int* d = nullptr;
  ASSERT_EQ(hipHostGetDevicePointer(&d, buf.data(), 0), hipSuccess);
  EXPECT_EQ(d, buf.data());
  add_one<<<4, 256>>>(d, 1000);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(buf[0], 6);
  EXPECT_EQ(buf[999], 6);
  EXPECT_EQ(hipHostRegister(buf.data(), 16, 0), hipErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(hipHostUnregister(buf.data()), hipSuccess);
  EXPECT_EQ(hipHostUnregister(buf.data()), hipErrorHostMemoryNotRegistered);
  EXPECT_EQ(hipHostRegister(nullptr, 16, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipHostRegister(buf.data(), 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipHostRegister(buf.data(), 16, 0x100), hipErrorInvalidValue);
  EXPECT_EQ(hipHostGetDevicePointer(reinterpret_cast<void**>(&d), buf.data(), 0), hipErrorInvalidValue);
}

TEST_F(HipMemory, HostMallocVariants) {
  void* p = nullptr;
  ASSERT_EQ(hipMallocHost(&p, 100), hipSuccess);
  unsigned flags = 7;
  EXPECT_EQ(hipHostGetFlags(&flags, p), hipSuccess);
  EXPECT_EQ(flags, 0u) << "hipMallocHost: hipHostMallocDefault";
  EXPECT_EQ(hipHostFree(p), hipSuccess);
  // The flags come back as they were given (the memory is portable and mapped either way).
  for (unsigned f : {unsigned(hipHostMallocMapped), unsigned(hipHostMallocWriteCombined | hipHostMallocMapped),
                     unsigned(hipHostMallocPortable), unsigned(hipHostMallocNonCoherent)}) {
    ASSERT_EQ(hipHostMalloc(&p, 100, f), hipSuccess);
    EXPECT_EQ(hipHostGetFlags(&flags, p), hipSuccess);
    EXPECT_EQ(flags, f);
    void* d = nullptr;
    EXPECT_EQ(hipHostGetDevicePointer(&d, p, 0), hipSuccess) << "mapped whatever the flags";
    EXPECT_EQ(d, p);
    EXPECT_EQ(hipHostFree(p), hipSuccess);
  }
  EXPECT_EQ(hipHostMalloc(&p, 64, hipHostMallocCoherent | hipHostMallocNonCoherent), hipErrorInvalidValue);
  EXPECT_EQ(hipHostMalloc(&p, 64, 0x8), hipErrorInvalidValue);
  EXPECT_EQ(hipHostMalloc(static_cast<void**>(nullptr), 64, 0), hipErrorInvalidValue);
  int local;
  EXPECT_EQ(hipHostFree(&local), hipErrorInvalidValue);
  EXPECT_EQ(hipHostFree(nullptr), hipSuccess);
}

TEST_F(HipMemory, MemcpyEveryKind) {
  const size_t n = 4096;
  std::vector<char> src(n), out(n);
  for (size_t i = 0; i < n; ++i) src[i] = char(i * 7);
  char *d1, *d2, *pinned;
  ASSERT_EQ(hipMalloc(&d1, n), hipSuccess);
  ASSERT_EQ(hipMalloc(&d2, n), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&pinned, n), hipSuccess);
  EXPECT_EQ(hipMemcpy(d1, src.data(), n, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(hipMemcpy(d2, d1, n, hipMemcpyDeviceToDevice), hipSuccess);
  EXPECT_EQ(hipMemcpy(pinned, d2, n, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(hipMemcpy(out.data(), pinned, n, hipMemcpyHostToHost), hipSuccess);
  EXPECT_EQ(out, src);
  std::fill(out.begin(), out.end(), 0);
  EXPECT_EQ(hipMemcpy(out.data(), d2, n, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(out, src);
  EXPECT_EQ(hipMemcpyDtoH(out.data(), d1, n), hipSuccess);
  EXPECT_EQ(hipMemcpyHtoD(d1, src.data(), n), hipSuccess);
  EXPECT_EQ(hipMemcpyDtoD(d2, d1, n), hipSuccess);
  EXPECT_EQ(hipMemcpyAsync(pinned, d2, n, hipMemcpyDeviceToHost, 0), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(0), hipSuccess);
  EXPECT_EQ(std::memcmp(pinned, src.data(), n), 0);
  // Invalid arguments.
  EXPECT_EQ(hipMemcpy(d1, src.data(), n, hipMemcpyKind(7)), hipErrorInvalidMemcpyDirection);
  EXPECT_EQ(hipMemcpy(nullptr, src.data(), n, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(d1, nullptr, n, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(d1, src.data(), n + 1, hipMemcpyHostToDevice), hipErrorInvalidValue);  // overruns d1
  EXPECT_EQ(hipMemcpy(d1, src.data(), 0, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(hipFree(d1), hipSuccess);
  EXPECT_EQ(hipFree(d2), hipSuccess);
  EXPECT_EQ(hipHostFree(pinned), hipSuccess);
}

TEST_F(HipMemory, Memcpy2DAndMemset2D) {
  const size_t w = 100, h = 8, pitch_h = 128;
  std::vector<unsigned char> host(pitch_h * h), back(pitch_h * h, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = (unsigned char)(i);
  void* d;
  size_t pitch;
  ASSERT_EQ(hipMallocPitch(&d, &pitch, w, h), hipSuccess);
  EXPECT_EQ(hipMemcpy2D(d, pitch, host.data(), pitch_h, w, h, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(hipMemcpy2D(back.data(), pitch_h, d, pitch, w, h, hipMemcpyDeviceToHost), hipSuccess);
  for (size_t r = 0; r < h; ++r) EXPECT_EQ(std::memcmp(&back[r * pitch_h], &host[r * pitch_h], w), 0);
  EXPECT_EQ(hipMemset2D(d, pitch, 0xAB, w, h), hipSuccess);
  EXPECT_EQ(hipMemcpy2D(back.data(), pitch_h, d, pitch, w, h, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back[0], 0xAB);
  EXPECT_EQ(back[(h - 1) * pitch_h + w - 1], 0xAB);
  EXPECT_EQ(hipMemcpy2D(d, 10, host.data(), pitch_h, w, h, hipMemcpyHostToDevice), hipErrorInvalidPitchValue);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(HipMemory, MemsetWidths) {
  const size_t n = 1024;
  void* d;
  ASSERT_EQ(hipMalloc(&d, n * 4), hipSuccess);
  std::vector<uint32_t> h(n);
  EXPECT_EQ(hipMemset(d, 0x5A, n * 4), hipSuccess);
  EXPECT_EQ(hipMemcpy(h.data(), d, n * 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[n - 1], 0x5A5A5A5Au);
  EXPECT_EQ(hipMemsetD32(d, int(0xDEADBEEF), n), hipSuccess);
  EXPECT_EQ(hipMemcpy(h.data(), d, n * 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[7], 0xDEADBEEFu);
  EXPECT_EQ(hipMemsetD16(d, 0x1234, 2 * n), hipSuccess);
  EXPECT_EQ(hipMemcpy(h.data(), d, n * 4, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[3], 0x12341234u);
  EXPECT_EQ(hipMemsetD8(d, 0x01, 4 * n), hipSuccess);
  EXPECT_EQ(hipMemsetAsync(d, 0x02, 4, 0), hipSuccess);
  EXPECT_EQ(hipMemsetD32Async(static_cast<char*>(d) + 4, 3, 1, 0), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(0), hipSuccess);
  EXPECT_EQ(hipMemcpy(h.data(), d, 12, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 0x02020202u);
  EXPECT_EQ(h[1], 3u);
  EXPECT_EQ(h[2], 0x01010101u);
  EXPECT_EQ(hipMemset(d, 0, n * 4 + 1), hipErrorInvalidValue);  // past the allocation
  std::vector<char> pageable(16);
  EXPECT_EQ(hipMemset(pageable.data(), 0, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset(nullptr, 0, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(HipMemory, InfoAndAttributes) {
  size_t free0 = 0, total = 0;
  ASSERT_EQ(hipMemGetInfo(&free0, &total), hipSuccess);
  EXPECT_GT(total, 0u);
  EXPECT_LE(free0, total);
  void* d;
  ASSERT_EQ(hipMalloc(&d, 64 << 20), hipSuccess);
  size_t free1 = 0;
  ASSERT_EQ(hipMemGetInfo(&free1, &total), hipSuccess);
  EXPECT_LE(free1 + (64 << 20), free0 + (1 << 20));
  EXPECT_EQ(hipMemGetInfo(nullptr, &total), hipErrorInvalidValue);
  hipPointerAttribute_t a;
  ASSERT_EQ(hipPointerGetAttributes(&a, static_cast<char*>(d) + 100), hipSuccess);
  EXPECT_EQ(a.type, hipMemoryTypeDevice);
  EXPECT_EQ(a.device, 0);
  void* base;
  size_t size;
  EXPECT_EQ(hipMemGetAddressRange(&base, &size, static_cast<char*>(d) + 100), hipSuccess);
  EXPECT_EQ(base, d);
  EXPECT_EQ(size, size_t(64) << 20);
  void* h;
  ASSERT_EQ(hipHostMalloc(&h, 4096), hipSuccess);
  ASSERT_EQ(hipPointerGetAttributes(&a, h), hipSuccess);
  EXPECT_EQ(a.type, hipMemoryTypeHost);
  EXPECT_EQ(a.hostPointer, h);
  EXPECT_EQ(a.devicePointer, h);
  int local;
  EXPECT_EQ(hipPointerGetAttributes(&a, &local), hipErrorInvalidValue);  // HIP 5.2: not HIP's memory
  EXPECT_EQ(hipPointerGetAttributes(nullptr, d), hipErrorInvalidValue);
  EXPECT_EQ(hipPointerGetAttributes(&a, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipHostFree(h), hipSuccess);
}

// Advice is remembered per managed allocation and read back through hipMemRangeGetAttribute.
TEST_F(HipMemory, AdviseAndPrefetchManagedMemory) {
  char* m = nullptr;
  ASSERT_EQ(hipMallocManaged(&m, 4096), hipSuccess);
  int v = 99;
  auto get = [&](hipMemRangeAttribute attr) {
    v = 99;
    EXPECT_EQ(hipMemRangeGetAttribute(&v, sizeof v, attr, m + 100, 200), hipSuccess);
    return v;
  };
  EXPECT_EQ(get(hipMemRangeAttributeReadMostly), 0);
  EXPECT_EQ(get(hipMemRangeAttributePreferredLocation), hipInvalidDeviceId);
  EXPECT_EQ(get(hipMemRangeAttributeLastPrefetchLocation), hipInvalidDeviceId);
  EXPECT_EQ(get(hipMemRangeAttributeCoherencyMode), int(hipMemRangeCoherencyModeFineGrain));
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetReadMostly, 0), hipSuccess);
  EXPECT_EQ(get(hipMemRangeAttributeReadMostly), 1);
  ASSERT_EQ(hipMemAdvise(m + 10, 10, hipMemAdviseUnsetReadMostly, 0), hipSuccess);
  EXPECT_EQ(get(hipMemRangeAttributeReadMostly), 0);
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetPreferredLocation, 0), hipSuccess);
  EXPECT_EQ(get(hipMemRangeAttributePreferredLocation), 0);
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetPreferredLocation, hipCpuDeviceId), hipSuccess);
  EXPECT_EQ(get(hipMemRangeAttributePreferredLocation), hipCpuDeviceId);
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseUnsetPreferredLocation, 0), hipSuccess);
  EXPECT_EQ(get(hipMemRangeAttributePreferredLocation), hipInvalidDeviceId);
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetAccessedBy, 0), hipSuccess);
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetAccessedBy, hipCpuDeviceId), hipSuccess);
  int who[3] = {7, 7, 7};
  ASSERT_EQ(hipMemRangeGetAttribute(who, sizeof who, hipMemRangeAttributeAccessedBy, m, 4096), hipSuccess);
  EXPECT_EQ(who[0], hipCpuDeviceId);
  EXPECT_EQ(who[1], 0);
  EXPECT_EQ(who[2], hipInvalidDeviceId);
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseUnsetAccessedBy, 0), hipSuccess);
  ASSERT_EQ(hipMemRangeGetAttribute(who, sizeof who, hipMemRangeAttributeAccessedBy, m, 4096), hipSuccess);
  EXPECT_EQ(who[1], hipInvalidDeviceId);
  ASSERT_EQ(hipMemPrefetchAsync(m, 4096, 0, 0), hipSuccess);
  EXPECT_EQ(get(hipMemRangeAttributeLastPrefetchLocation), 0);
  ASSERT_EQ(hipMemPrefetchAsync(m, 4096, hipCpuDeviceId, 0), hipSuccess);
  EXPECT_EQ(get(hipMemRangeAttributeLastPrefetchLocation), hipCpuDeviceId);
  ASSERT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetCoarseGrain, 0), hipSuccess);  // a hint; stays coherent
  EXPECT_EQ(get(hipMemRangeAttributeCoherencyMode), int(hipMemRangeCoherencyModeFineGrain));
  EXPECT_EQ(hipFree(m), hipSuccess);
}

TEST_F(HipMemory, AdviseAndPrefetchRejectBadArguments) {
  char* m = nullptr;
  int* d = nullptr;
  ASSERT_EQ(hipMallocManaged(&m, 4096), hipSuccess);
  ASSERT_EQ(hipMalloc(&d, 4096), hipSuccess);
  EXPECT_EQ(hipMemAdvise(d, 4096, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);  // not managed
  EXPECT_EQ(hipMemAdvise(nullptr, 4096, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(m, 0, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(m + 1, 4096, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);  // past the end
  EXPECT_EQ(hipMemAdvise(m + 8, SIZE_MAX - 4, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);  // wraps
  EXPECT_EQ(hipMemPrefetchAsync(m + 8, SIZE_MAX - 4, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(m, 4096, hipMemoryAdvise(7), 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetPreferredLocation, 99), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemAdvise(m, 4096, hipMemAdviseSetAccessedBy, -5), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemPrefetchAsync(m, 4096, 99, 0), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemPrefetchAsync(d, 4096, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPrefetchAsync(m, 4096, 0, reinterpret_cast<hipStream_t>(m)), hipErrorInvalidHandle);
  int v = 0;
  EXPECT_EQ(hipMemRangeGetAttribute(&v, 3, hipMemRangeAttributeReadMostly, m, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(&v, 8, hipMemRangeAttributeReadMostly, m, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(nullptr, 4, hipMemRangeAttributeReadMostly, m, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttribute(42), m, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, d, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(m), hipSuccess);
  EXPECT_EQ(hipFree(d), hipSuccess);
  (void)hipGetLastError();
}
