// SPDX-License-Identifier: MIT
// What ROCm 5.2's headers and device libraries bring into a program, run on kfdrt: structs, enums, launches, device code.
// Built by Debian's hipcc (ROCm's headers, C++11 like hipcc's default), it runs against kfdrt's
// libamdhip64.so.5 or, as an object linked by kfdcc, against libkfdrt. argv[1], when given, is
// a code object of module_kernels.hip built by hipcc --genco.
#include <hip/hip_runtime.h>
#include <hip/hip_ext.h>
#include <hip/hip_fp16.h>
#include <hip/hip_cooperative_groups.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

__constant__ int c_table[4];
__device__ int d_total;

struct Pair {
  int a;
  double b;
};

// Arguments of several sizes and alignments, laid out by the metadata ROCm's clang wrote.
__global__ void mixed_args(char c, Pair p, short s, double d, int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = c;
    out[1] = p.a;
    out[2] = int(p.b * 10);
    out[3] = s;
    out[4] = int(d * 100);
  }
}

// Dynamic shared memory, a block barrier through cooperative groups, a warp reduction by
// shuffles, atomics on a __device__ variable and a read of __constant__ memory.
__global__ void block_sum(const int* in, int* out, int n) {
  HIP_DYNAMIC_SHARED(int, partial)
  cg::thread_block block = cg::this_thread_block();
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  int v = i < n ? in[i] * c_table[i % 4] : 0;
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
  block.sync();
  if (threadIdx.x == 0) {
    int s = 0;
    for (unsigned w = 0; w < blockDim.x / warpSize; ++w) s += partial[w];
    out[blockIdx.x] = s;
    atomicAdd(&d_total, s);
  }
}

__global__ void scale_half(__half* h, int n) {
  const int i = int(threadIdx.x);
  if (i < n) h[i] = __hmul(h[i], __float2half(2.0f));
}

__global__ void say(int v) {
  if (threadIdx.x == 0) printf("rocm_features: device printf %d\n", v);
}

// hipGetDeviceProperties fills HIP 5.2's layout, no more: the bytes behind it stay untouched,
// and its fields agree with hipDeviceGetAttribute.
static void check_properties() {
  struct {
    hipDeviceProp_t p;
    unsigned char guard[512];
  } s;
  std::memset(&s, 0xab, sizeof s);
  CHECK_HIP(hipGetDeviceProperties(&s.p, 0));
  bool guard_ok = true;
  for (unsigned char g : s.guard) guard_ok = guard_ok && g == 0xab;
  CHECK(guard_ok);
  CHECK(std::strlen(s.p.name) > 0 && std::strlen(s.p.name) < sizeof s.p.name);
  CHECK(std::strncmp(s.p.gcnArchName, "gfx", 3) == 0);
  CHECK(s.p.gcnArch >= 900);
  struct {
    hipDeviceAttribute_t attr;
    long long field;
  } pairs[] = {
      {hipDeviceAttributeMultiprocessorCount, s.p.multiProcessorCount},
      {hipDeviceAttributeMaxThreadsPerBlock, s.p.maxThreadsPerBlock},
      {hipDeviceAttributeWarpSize, s.p.warpSize},
      {hipDeviceAttributeMaxSharedMemoryPerBlock, (long long)s.p.sharedMemPerBlock},
      {hipDeviceAttributeL2CacheSize, s.p.l2CacheSize},
      {hipDeviceAttributeClockRate, s.p.clockRate},
      {hipDeviceAttributeClockInstructionRate, s.p.clockInstructionRate},
      {hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, (long long)s.p.maxSharedMemoryPerMultiProcessor},
      {hipDeviceAttributePciBusId, s.p.pciBusID},
      {hipDeviceAttributeComputeCapabilityMajor, s.p.major},
      {hipDeviceAttributeIsLargeBar, s.p.isLargeBar},
      {hipDeviceAttributeAsicRevision, s.p.asicRevision},
      {hipDeviceAttributeManagedMemory, s.p.managedMemory},
      {hipDeviceAttributePageableMemoryAccessUsesHostPageTables, s.p.pageableMemoryAccessUsesHostPageTables},
  };
  int agree = 0;
  for (const auto& q : pairs) {
    int v = -12345;
    if (hipDeviceGetAttribute(&v, q.attr, 0) == hipSuccess && v == q.field) ++agree;
    else std::printf("  attribute %d: %d, property %lld\n", int(q.attr), v, q.field);
  }
  CHECK(agree == int(sizeof pairs / sizeof pairs[0]));
  CHECK(s.p.maxThreadsDim[0] >= 256 && s.p.maxGridSize[0] > 0 && s.p.totalGlobalMem > 0);
}

// HIP 5.2's pointer attributes: its memory type numbers, isManaged, an error for other memory.
static void check_pointer_attributes() {
  void *dev = nullptr, *host = nullptr, *managed = nullptr;
  CHECK_HIP(hipMalloc(&dev, 4096));
  CHECK_HIP(hipHostMalloc(&host, 4096, hipHostMallocDefault));
  CHECK_HIP(hipMallocManaged(&managed, 4096, hipMemAttachGlobal));
  hipPointerAttribute_t a;
  CHECK_HIP(hipPointerGetAttributes(&a, static_cast<char*>(dev) + 8));
  CHECK(a.memoryType == hipMemoryTypeDevice && a.device == 0 && !a.isManaged);
  CHECK_HIP(hipPointerGetAttributes(&a, host));
  CHECK(a.memoryType == hipMemoryTypeHost && a.hostPointer == host);
  CHECK_HIP(hipPointerGetAttributes(&a, managed));
  CHECK(a.isManaged == 1);
  int local = 0;
  CHECK(hipPointerGetAttributes(&a, &local) == hipErrorInvalidValue);
  CHECK(hipGetLastError() == hipErrorInvalidValue);
  CHECK_HIP(hipFree(dev));
  CHECK_HIP(hipHostFree(host));
  CHECK_HIP(hipFree(managed));
}

static void check_launches() {
  int* out = nullptr;
  CHECK_HIP(hipMalloc(&out, 8 * sizeof(int)));
  Pair p = {7, 2.5};
  hipLaunchKernelGGL(mixed_args, dim3(1), dim3(64), 0, 0, char(-3), p, short(-300), 1.25, out);
  CHECK_HIP(hipGetLastError());
  int h[5] = {};
  CHECK_HIP(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost));
  CHECK(h[0] == -3 && h[1] == 7 && h[2] == 25 && h[3] == -300 && h[4] == 125);

  // hip_ext.h's launch with events around the kernel.
  hipEvent_t start, stop;
  CHECK_HIP(hipEventCreate(&start));
  CHECK_HIP(hipEventCreate(&stop));
  CHECK_HIP(hipMemset(out, 0, 8 * sizeof(int)));
  hipExtLaunchKernelGGL(mixed_args, dim3(2), dim3(32), 0, 0, start, stop, 0, char(9), p, short(4), 0.5, out);
  CHECK_HIP(hipEventSynchronize(stop));
  float ms = -1;
  CHECK_HIP(hipEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0);
  CHECK_HIP(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost));
  CHECK(h[0] == 9 && h[3] == 4 && h[4] == 50);
  CHECK_HIP(hipEventDestroy(start));
  CHECK_HIP(hipEventDestroy(stop));

  hipFuncAttributes fa;
  CHECK_HIP(hipFuncGetAttributes(&fa, reinterpret_cast<const void*>(mixed_args)));
  CHECK(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= 1024 && fa.numRegs > 0);
  CHECK_HIP(hipFree(out));
}

static void check_symbols_and_shared() {
  const int n = 1000, block = 256, blocks = (n + block - 1) / block;
  const int table[4] = {1, 2, 3, 4};
  CHECK_HIP(hipMemcpyToSymbol(HIP_SYMBOL(c_table), table, sizeof table));
  const int zero = 0;
  CHECK_HIP(hipMemcpyToSymbol(HIP_SYMBOL(d_total), &zero, sizeof zero));
  std::vector<int> in(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) in[i] = i, want += (long long)i * table[i % 4];
  int *din = nullptr, *dout = nullptr;
  CHECK_HIP(hipMalloc(&din, n * sizeof(int)));
  CHECK_HIP(hipMalloc(&dout, blocks * sizeof(int)));
  CHECK_HIP(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(block_sum, dim3(blocks), dim3(block), (block / 64) * sizeof(int), 0, din, dout, n);
  CHECK_HIP(hipDeviceSynchronize());
  int total = -1;
  CHECK_HIP(hipMemcpyFromSymbol(&total, HIP_SYMBOL(d_total), sizeof total));
  CHECK(total == want);
  std::vector<int> parts(blocks);
  CHECK_HIP(hipMemcpy(parts.data(), dout, blocks * sizeof(int), hipMemcpyDeviceToHost));
  long long sum = 0;
  for (int v : parts) sum += v;
  CHECK(sum == want);
  void* addr = nullptr;
  size_t size = 0;
  CHECK_HIP(hipGetSymbolAddress(&addr, HIP_SYMBOL(d_total)));
  CHECK_HIP(hipGetSymbolSize(&size, HIP_SYMBOL(d_total)));
  CHECK(addr != nullptr && size == sizeof(int));
  CHECK_HIP(hipFree(din));
  CHECK_HIP(hipFree(dout));
}

static void check_half_and_printf() {
  const int n = 8;
  __half h[n];
  for (int i = 0; i < n; ++i) h[i] = __float2half(0.5f * float(i) - 1.0f);
  __half* d = nullptr;
  CHECK_HIP(hipMalloc(&d, sizeof h));
  CHECK_HIP(hipMemcpy(d, h, sizeof h, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(scale_half, dim3(1), dim3(64), 0, 0, d, n);
  CHECK_HIP(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  int ok = 0;
  for (int i = 0; i < n; ++i) ok += __half2float(h[i]) == 2.0f * (0.5f * float(i) - 1.0f);
  CHECK(ok == n);
  CHECK_HIP(hipFree(d));
  hipLaunchKernelGGL(say, dim3(1), dim3(32), 0, 0, 1234);
  CHECK_HIP(hipDeviceSynchronize());
}

// A code object hipcc --genco built (module_kernels.hip of the HIP suite), through the module API.
static void check_module(const char* path) {
  hipModule_t m = nullptr;
  hipFunction_t fill = nullptr, add_counter = nullptr;
  CHECK_HIP(hipModuleLoad(&m, path));
  CHECK_HIP(hipModuleGetFunction(&fill, m, "fill"));
  CHECK_HIP(hipModuleGetFunction(&add_counter, m, "add_counter"));
  hipDeviceptr_t counter = nullptr;
  size_t bytes = 0;
  CHECK_HIP(hipModuleGetGlobal(&counter, &bytes, m, "module_counter"));
  CHECK(counter != nullptr && bytes == sizeof(int));
  const int n = 100;
  int* d = nullptr;
  CHECK_HIP(hipMalloc(&d, n * sizeof(int)));
  int value = 5, count = n;
  void* params[] = {&d, &value, &count};
  CHECK_HIP(hipModuleLaunchKernel(fill, 2, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
  std::vector<int> h(n);
  CHECK_HIP(hipMemcpy(h.data(), d, n * sizeof(int), hipMemcpyDeviceToHost));
  int ok = 0;
  for (int i = 0; i < n; ++i) ok += h[i] == 5 + i;
  CHECK(ok == n);
  struct {
    int* out;
  } args = {d};
  size_t size = sizeof args;
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  CHECK_HIP(hipModuleLaunchKernel(add_counter, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, extra));
  CHECK_HIP(hipMemcpy(h.data(), d, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(h[0] == 42 + 4);
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipModuleUnload(m));
}

int main(int argc, char** argv) {
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  CHECK(count > 0);
  int version = 0;
  CHECK_HIP(hipRuntimeGetVersion(&version));
  CHECK(version / 10000000 == 5);
  check_properties();
  check_pointer_attributes();
  check_launches();
  check_symbols_and_shared();
  check_half_and_printf();
  if (argc > 1) check_module(argv[1]);
  return check::summary();
}
