// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): errors, versions, devices, properties, attributes, modules.
#include <gtest/gtest.h>
#include <hip/hip_runtime.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

__device__ int g_value;
__constant__ int g_const[8];

__global__ void read_symbols(int* out) {
  out[0] = g_value;
  out[1] = g_const[7];
}

TEST(HipErrors, NamesAndStringsMatchCodes) {
  EXPECT_STREQ(hipGetErrorName(hipSuccess), "hipSuccess");
  EXPECT_STREQ(hipGetErrorName(hipErrorIllegalAddress), "hipErrorIllegalAddress");
  EXPECT_STREQ(hipGetErrorName(hipErrorInvalidDeviceFunction), "hipErrorInvalidDeviceFunction");
  EXPECT_STREQ(hipGetErrorString(hipSuccess), "no error");
  EXPECT_STRNE(hipGetErrorString(hipErrorOutOfMemory), "unknown error");
  EXPECT_STREQ(hipGetErrorName(hipError_t(12345)), "hipErrorUnknown");
  // HIP's numbers, which programs compare and print.
  EXPECT_EQ(int(hipErrorInvalidValue), 1);
  EXPECT_EQ(int(hipErrorInvalidConfiguration), 9);
  EXPECT_EQ(int(hipErrorInvalidDeviceFunction), 98);
  EXPECT_EQ(int(hipErrorNoDevice), 100);
  EXPECT_EQ(int(hipErrorInvalidHandle), 400);
  EXPECT_EQ(int(hipErrorNotReady), 600);
  EXPECT_EQ(int(hipErrorIllegalAddress), 700);
  EXPECT_EQ(int(hipErrorLaunchFailure), 719);
  const char* s = nullptr;
  EXPECT_EQ(hipDrvGetErrorName(hipErrorNotFound, &s), hipSuccess);
  EXPECT_STREQ(s, "hipErrorNotFound");
  EXPECT_EQ(hipDrvGetErrorString(hipSuccess, nullptr), hipErrorInvalidValue);
}

TEST(HipErrors, LastErrorIsStickyUntilRead) {
  (void)hipGetLastError();
  EXPECT_EQ(hipMalloc(nullptr, 16), hipErrorInvalidValue);
  int n = 0;
  EXPECT_EQ(hipGetDeviceCount(&n), hipSuccess);  // a success does not clear it
  EXPECT_EQ(hipPeekAtLastError(), hipErrorInvalidValue);
  EXPECT_EQ(hipPeekAtLastError(), hipErrorInvalidValue);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
  EXPECT_EQ(hipGetLastError(), hipSuccess);
}

TEST(HipVersions, ReportRuntimeAndDriver) {
  int v = 0;
  EXPECT_EQ(hipRuntimeGetVersion(&v), hipSuccess);
  EXPECT_EQ(v, HIP_VERSION);
  EXPECT_EQ(hipDriverGetVersion(&v), hipSuccess);
  EXPECT_GT(v, 0);
  EXPECT_EQ(hipRuntimeGetVersion(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipDriverGetVersion(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipInit(0), hipSuccess);
  EXPECT_EQ(hipInit(1), hipErrorInvalidValue);
}

TEST(HipDevices, CountSetGet) {
  int n = 0;
  ASSERT_EQ(hipGetDeviceCount(&n), hipSuccess);
  ASSERT_GE(n, 1);
  EXPECT_EQ(hipGetDeviceCount(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipSetDevice(0), hipSuccess);
  int d = -1;
  EXPECT_EQ(hipGetDevice(&d), hipSuccess);
  EXPECT_EQ(d, 0);
  EXPECT_EQ(hipSetDevice(n), hipErrorInvalidDevice);
  EXPECT_EQ(hipSetDevice(-1), hipErrorInvalidDevice);
  EXPECT_EQ(hipGetDevice(nullptr), hipErrorInvalidValue);
  hipDevice_t dev;
  EXPECT_EQ(hipDeviceGet(&dev, 0), hipSuccess);
  EXPECT_EQ(hipDeviceGet(&dev, n), hipErrorInvalidDevice);
  (void)hipGetLastError();
}

TEST(HipDevices, PropertiesComeFromTheTopology) {
  hipDeviceProp_t p;
  ASSERT_EQ(hipGetDeviceProperties(&p, 0), hipSuccess);
  EXPECT_GT(std::strlen(p.name), 0u);
  EXPECT_EQ(std::strncmp(p.gcnArchName, "gfx", 3), 0);
  EXPECT_NE(std::strstr(p.gcnArchName, "xnack"), nullptr);  // full target id
  EXPECT_GT(p.totalGlobalMem, size_t(1) << 30);
  EXPECT_GT(p.multiProcessorCount, 0);
  EXPECT_EQ(p.warpSize, 64);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  EXPECT_EQ(p.sharedMemPerBlock, size_t(64) * 1024);
  EXPECT_GT(p.clockRate, 0);
  EXPECT_EQ(hipGetDeviceProperties(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipGetDeviceProperties(&p, 99), hipErrorInvalidDevice);
  int v = 0;
  EXPECT_EQ(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, 0), hipSuccess);
  hipDeviceProp_t q;
  ASSERT_EQ(hipGetDeviceProperties(&q, 0), hipSuccess);
  EXPECT_EQ(v, q.multiProcessorCount);
  // HIP 5.2's deprecated gcnArch, major * 100 + minor * 10 + stepping (910 for gfx90a), agrees
  // with the target name gfx<major><minor><stepping in hex>.
  const std::string gfx = std::string(q.gcnArchName).substr(3, std::string(q.gcnArchName).find(':') - 3);
  ASSERT_GE(gfx.size(), 3u);
  const int major = std::stoi(gfx.substr(0, gfx.size() - 2)), minor = gfx[gfx.size() - 2] - '0',
            stepping = std::stoi(gfx.substr(gfx.size() - 1), nullptr, 16);
  EXPECT_EQ(q.gcnArch, major * 100 + minor * 10 + stepping) << q.gcnArchName;
  // HIP 6's layout (a kfdrt extension) holds the same values.
  hipDeviceProp_tR0600 r;
  ASSERT_EQ(hipGetDevicePropertiesR0600(&r, 0), hipSuccess);
  EXPECT_STREQ(r.name, q.name);
  EXPECT_STREQ(r.gcnArchName, q.gcnArchName);
  EXPECT_EQ(r.totalGlobalMem, q.totalGlobalMem);
  EXPECT_EQ(r.multiProcessorCount, q.multiProcessorCount);
  EXPECT_EQ(r.maxSharedMemoryPerMultiProcessor, q.maxSharedMemoryPerMultiProcessor);
  EXPECT_EQ(r.pageableMemoryAccessUsesHostPageTables, q.pageableMemoryAccessUsesHostPageTables);
  EXPECT_EQ(r.maxBlocksPerMultiProcessor, 32);
  EXPECT_EQ(hipGetDevicePropertiesR0600(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0), hipSuccess);
  EXPECT_EQ(v, 64);
  EXPECT_EQ(hipDeviceGetAttribute(&v, hipDeviceAttributeWallClockRate, 0), hipSuccess);
  EXPECT_GT(v, 0);
  EXPECT_EQ(hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 99), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetAttribute(&v, hipDeviceAttribute_t(5000), 0), hipErrorInvalidValue);
  char name[8];
  EXPECT_EQ(hipDeviceGetName(name, sizeof name, 0), hipSuccess);
  EXPECT_EQ(std::strlen(name), 7u);  // truncated, terminated
  (void)hipGetLastError();
}

__global__ void set_one(int* p) { *p = 1; }

// The render node of the first GPU in the KFD topology (HIP's device 0), 0 when there is none.
unsigned first_render_minor() {
  for (int n = 0; n < 64; ++n) {
    std::ifstream f("/sys/class/kfd/kfd/topology/nodes/" + std::to_string(n) + "/properties");
    if (!f) break;
    std::string key;
    unsigned long long v = 0, simds = 0, minor = 0;
    while (f >> key >> v) {
      if (key == "simd_count") simds = v;
      if (key == "drm_render_minor") minor = v;
    }
    if (simds && minor) return unsigned(minor);
  }
  return 0;
}

// The name and the BAR size are the render node's driver's answers (libdrm_amdgpu, which kfdrt
// asks only when properties are first read, not to run kernels): asked here of libdrm directly,
// after a kernel ran, they must be what hipGetDeviceProperties reports.
TEST(HipDevices, NameAndBarSizeAreTheDriversAfterAKernel) {
  int* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, sizeof(int)), hipSuccess);
  set_one<<<1, 1>>>(d);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  ASSERT_EQ(hipFree(d), hipSuccess);

  const unsigned minor = first_render_minor();
  ASSERT_NE(minor, 0u) << "no GPU node with a render node in the KFD topology";
  void* drm = dlopen("libdrm_amdgpu.so.1", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(drm, nullptr) << dlerror();
  // <amdgpu.h>: amdgpu_device_initialize, amdgpu_get_marketing_name, amdgpu_query_heap_info
  // (struct amdgpu_heap_info: heap_size, heap_usage, max_allocation).
  struct HeapInfo { uint64_t heap_size, heap_usage, max_allocation; };
  using Init = int (*)(int, uint32_t*, uint32_t*, void**);
  using Deinit = int (*)(void*);
  using Name = const char* (*)(void*);
  using Heap = int (*)(void*, uint32_t, uint32_t, HeapInfo*);
  auto init = reinterpret_cast<Init>(dlsym(drm, "amdgpu_device_initialize"));
  auto deinit = reinterpret_cast<Deinit>(dlsym(drm, "amdgpu_device_deinitialize"));
  auto name = reinterpret_cast<Name>(dlsym(drm, "amdgpu_get_marketing_name"));
  auto heap = reinterpret_cast<Heap>(dlsym(drm, "amdgpu_query_heap_info"));
  ASSERT_TRUE(init && deinit && name && heap);
  const int fd = open(("/dev/dri/renderD" + std::to_string(minor)).c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  uint32_t mj = 0, mn = 0;
  void* dev = nullptr;
  ASSERT_EQ(init(fd, &mj, &mn, &dev), 0);
  constexpr uint32_t kDomainVram = 0x4, kCpuAccessRequired = 1u << 0;  // AMDGPU_GEM_DOMAIN_VRAM, ..._CREATE_CPU_ACCESS_REQUIRED
  HeapInfo all{}, visible{};
  ASSERT_EQ(heap(dev, kDomainVram, 0, &all), 0);
  ASSERT_EQ(heap(dev, kDomainVram, kCpuAccessRequired, &visible), 0);
  const char* want = name(dev);
  const std::string want_name = want ? want : "";
  const int want_large_bar = visible.heap_size >= all.heap_size ? 1 : 0;
  deinit(dev);
  close(fd);

  hipDeviceProp_t p;
  ASSERT_EQ(hipGetDeviceProperties(&p, 0), hipSuccess);
  if (!want_name.empty()) EXPECT_EQ(std::string(p.name), want_name);
  EXPECT_EQ(p.isLargeBar, want_large_bar);
  int v = -1;
  ASSERT_EQ(hipDeviceGetAttribute(&v, hipDeviceAttributeIsLargeBar, 0), hipSuccess);
  EXPECT_EQ(v, want_large_bar);
}

TEST(HipDevices, SynchronizeResetAndFlags) {
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(hipSetDeviceFlags(hipDeviceScheduleYield), hipSuccess);
  unsigned f = 0;
  EXPECT_EQ(hipGetDeviceFlags(&f), hipSuccess);
  EXPECT_EQ(f, unsigned(hipDeviceScheduleYield));
  EXPECT_EQ(hipSetDeviceFlags(0x3), hipErrorInvalidValue);
  EXPECT_EQ(hipSetDeviceFlags(hipDeviceScheduleAuto), hipSuccess);
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  EXPECT_EQ(hipDeviceReset(), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(s), hipErrorInvalidHandle);  // reset destroyed it
  (void)hipGetLastError();
}

TEST(HipSymbols, CopyToAndFromDeviceVariables) {
  int v = 1234, c[8] = {0, 1, 2, 3, 4, 5, 6, 77};
  ASSERT_EQ(hipMemcpyToSymbol(HIP_SYMBOL(g_value), &v, sizeof v), hipSuccess);
  ASSERT_EQ(hipMemcpyToSymbol(g_const, c, sizeof c), hipSuccess);
  int* out;
  ASSERT_EQ(hipMalloc(&out, 2 * sizeof(int)), hipSuccess);
  read_symbols<<<1, 1>>>(out);
  int h[2] = {};
  ASSERT_EQ(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 1234);
  EXPECT_EQ(h[1], 77);
  int back = 0;
  EXPECT_EQ(hipMemcpyFromSymbol(&back, g_value, sizeof back), hipSuccess);
  EXPECT_EQ(back, 1234);
  void* addr = nullptr;
  size_t size = 0;
  EXPECT_EQ(hipGetSymbolAddress(&addr, g_const), hipSuccess);
  EXPECT_NE(addr, nullptr);
  EXPECT_EQ(hipGetSymbolSize(&size, g_const), hipSuccess);
  EXPECT_EQ(size, sizeof c);
  EXPECT_EQ(hipMemcpyToSymbol(g_value, &v, sizeof v, 4), hipErrorInvalidValue);  // past the end
  EXPECT_EQ(hipMemcpyToSymbol(g_value, &v, sizeof v, 0, hipMemcpyDeviceToHost),
            hipErrorInvalidMemcpyDirection);
  int not_a_symbol = 0;
  EXPECT_EQ(hipMemcpyToSymbol(not_a_symbol, &v, sizeof v), hipErrorInvalidSymbol);
  EXPECT_EQ(hipGetSymbolAddress(&addr, not_a_symbol), hipErrorInvalidSymbol);
  EXPECT_EQ(hipMemcpyToSymbolAsync(g_value, &v, sizeof v, 0, hipMemcpyHostToDevice, 0), hipSuccess);
  EXPECT_EQ(hipMemcpyFromSymbolAsync(&back, g_value, sizeof back, 0, hipMemcpyDeviceToHost, 0), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(0), hipSuccess);
  EXPECT_EQ(hipFree(out), hipSuccess);
  (void)hipGetLastError();
}

std::vector<char> read_all(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

TEST(HipModules, LoadLaunchAndGlobals) {
  hipModule_t m;
  ASSERT_EQ(hipModuleLoad(&m, KFDRT_TEST_CO), hipSuccess);
  hipFunction_t fill;
  ASSERT_EQ(hipModuleGetFunction(&fill, m, "fill"), hipSuccess);
  int* out;
  ASSERT_EQ(hipMalloc(&out, 64 * sizeof(int)), hipSuccess);
  int value = 100, n = 64;
  void* params[] = {&out, &value, &n};
  ASSERT_EQ(hipModuleLaunchKernel(fill, 1, 1, 1, 64, 1, 1, 0, 0, params, nullptr), hipSuccess);
  std::vector<int> h(64);
  ASSERT_EQ(hipMemcpy(h.data(), out, 64 * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 100);
  EXPECT_EQ(h[63], 163);
  // The same launch with the arguments packed in `extra`.
  struct {
    int* out;
    int value, n;
  } packed{out, 7, 64};
  size_t size = sizeof packed;
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  ASSERT_EQ(hipModuleLaunchKernel(fill, 1, 1, 1, 64, 1, 1, 0, 0, nullptr, extra), hipSuccess);
  ASSERT_EQ(hipMemcpy(h.data(), out, 64 * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[5], 12);
  hipDeviceptr_t g;
  size_t bytes = 0;
  ASSERT_EQ(hipModuleGetGlobal(&g, &bytes, m, "module_counter"), hipSuccess);
  EXPECT_EQ(bytes, sizeof(int));
  int counter = 0;
  ASSERT_EQ(hipMemcpy(&counter, g, sizeof counter, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(counter, 42);
  hipFunction_t add;
  ASSERT_EQ(hipModuleGetFunction(&add, m, "add_counter"), hipSuccess);
  void* p2[] = {&out};
  ASSERT_EQ(hipModuleLaunchKernel(add, 1, 1, 1, 1, 1, 1, 0, 0, p2, nullptr), hipSuccess);
  ASSERT_EQ(hipMemcpy(h.data(), out, sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 46);
  int attr = 0;
  EXPECT_EQ(hipFuncGetAttribute(&attr, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fill), hipSuccess);
  EXPECT_GE(attr, 256);
  // Invalid uses.
  hipFunction_t none;
  EXPECT_EQ(hipModuleGetFunction(&none, m, "no_such_kernel"), hipErrorNotFound);
  EXPECT_EQ(hipModuleGetGlobal(&g, &bytes, m, "no_such_global"), hipErrorNotFound);
  EXPECT_EQ(hipModuleLaunchKernel(fill, 1, 1, 1, 64, 1, 1, 0, 0, params, extra), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchKernel(fill, 1, 1, 1, 2048, 1, 1, 0, 0, params, nullptr),
            hipErrorInvalidConfiguration);
  EXPECT_EQ(hipModuleLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, 0, params, nullptr), hipErrorInvalidHandle);
  EXPECT_EQ(hipModuleUnload(m), hipSuccess);
  EXPECT_EQ(hipModuleUnload(m), hipErrorInvalidHandle);
  EXPECT_EQ(hipFree(out), hipSuccess);
  (void)hipGetLastError();
}

TEST(HipModules, LoadDataAndRejectBadImages) {
  std::vector<char> image = read_all(KFDRT_TEST_CO);
  ASSERT_FALSE(image.empty());
  hipModule_t m;
  ASSERT_EQ(hipModuleLoadData(&m, image.data()), hipSuccess);
  hipFunction_t f;
  EXPECT_EQ(hipModuleGetFunction(&f, m, "fill"), hipSuccess);
  EXPECT_EQ(hipModuleUnload(m), hipSuccess);
  EXPECT_EQ(hipModuleLoad(&m, "/nonexistent/kernels.co"), hipErrorFileNotFound);
  std::vector<char> junk(4096, 'x');
  EXPECT_EQ(hipModuleLoadData(&m, junk.data()), hipErrorInvalidImage);
  EXPECT_EQ(hipModuleLoadData(nullptr, image.data()), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLoad(&m, nullptr), hipErrorInvalidValue);
  (void)hipGetLastError();
}

// Texture objects' types are HIP 5.2's, the channel format helper works, and the object calls
// check their arguments (texture_test.hip reads through them).
TEST(HipTextures, ChannelFormatsAndObjectArguments) {
  hipChannelFormatDesc f4 = hipCreateChannelDesc<float4>();
  EXPECT_EQ(f4.x, 32);
  EXPECT_EQ(f4.w, 32);
  EXPECT_EQ(f4.f, hipChannelFormatKindFloat);
  hipChannelFormatDesc u2 = hipCreateChannelDesc<uchar2>();
  EXPECT_EQ(u2.x, 8);
  EXPECT_EQ(u2.y, 8);
  EXPECT_EQ(u2.z, 0);
  EXPECT_EQ(u2.f, hipChannelFormatKindUnsigned);
  hipChannelFormatDesc i3 = hipCreateChannelDesc<int3>();
  EXPECT_EQ(i3.z, 32);
  EXPECT_EQ(i3.w, 0);
  EXPECT_EQ(i3.f, hipChannelFormatKindSigned);
  EXPECT_EQ(hipCreateChannelDesc<dim3>().f, hipChannelFormatKindNone);  // not an element type
  hipChannelFormatDesc c = hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindFloat);
  EXPECT_EQ(c.y, 16);

  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, 4096), hipSuccess);
  hipResourceDesc res{};
  res.resType = hipResourceTypeLinear;
  res.res.linear.devPtr = p;
  res.res.linear.desc = hipCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = 4096;
  hipTextureDesc tex{};
  tex.readMode = hipReadModeElementType;
  hipTextureObject_t obj = reinterpret_cast<hipTextureObject_t>(0x1234);
  res.res.linear.sizeInBytes = 4095;  // not a whole number of floats
  EXPECT_EQ(hipCreateTextureObject(&obj, &res, &tex, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(obj, nullptr);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
  res.res.linear.sizeInBytes = 4096;
  res.resType = hipResourceTypeMipmappedArray;  // not implemented: says so
  EXPECT_EQ(hipCreateTextureObject(&obj, &res, &tex, nullptr), hipErrorNotSupported);
  res.resType = hipResourceTypeLinear;
  ASSERT_EQ(hipCreateTextureObject(&obj, &res, &tex, nullptr), hipSuccess);
  EXPECT_NE(obj, nullptr);
  hipResourceDesc got{};
  EXPECT_EQ(hipGetTextureObjectResourceDesc(&got, obj), hipSuccess);
  EXPECT_EQ(got.res.linear.devPtr, p);
  EXPECT_EQ(hipDestroyTextureObject(obj), hipSuccess);
  EXPECT_EQ(hipCreateTextureObject(nullptr, &res, &tex, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipCreateTextureObject(&obj, &res, nullptr, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipDestroyTextureObject(nullptr), hipSuccess);
  EXPECT_EQ(hipDestroyTextureObject(reinterpret_cast<hipTextureObject_t>(0x1234)), hipErrorInvalidValue);
  hipResourceDesc back{};
  EXPECT_EQ(hipGetTextureObjectResourceDesc(&back, reinterpret_cast<hipTextureObject_t>(0x1234)), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(p), hipSuccess);
  (void)hipGetLastError();
}
