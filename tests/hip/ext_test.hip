// SPDX-License-Identifier: MIT
// GoogleTest suite (compiled as HIP): hip_ext.h launches, the context API and peer access state.
#include <gtest/gtest.h>
#include <hip/hip_ext.h>
#include <hip/hip_hcc.h>
#include <hip/hip_runtime.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

__global__ void store_sum(int* out, int a, char b) { out[blockIdx.x * blockDim.x + threadIdx.x] = a + b; }

int device_count() {
  int n = 0;
  EXPECT_EQ(hipGetDeviceCount(&n), hipSuccess);
  return n;
}

TEST(HipExt, DriverStyleStatusNamesHaveHipsNumbers) {
  EXPECT_EQ(HIP_SUCCESS, 0);
  EXPECT_EQ(HIP_ERROR_INVALID_VALUE, 1);
  EXPECT_EQ(HIP_ERROR_NOT_INITIALIZED, 2);
  EXPECT_EQ(HIP_ERROR_LAUNCH_OUT_OF_RESOURCES, 3);
  EXPECT_EQ(hipExtAnyOrderLaunch, 1);
}

// A grid of 100 work-items in blocks of 64 runs one whole and one partial block: items 100..127
// keep their sentinel.
TEST(HipExt, ModuleLaunchTakesTheGridInWorkItems) {
  hipModule_t m;
  ASSERT_EQ(hipModuleLoad(&m, KFDRT_TEST_CO), hipSuccess);
  hipFunction_t fill;
  ASSERT_EQ(hipModuleGetFunction(&fill, m, "fill"), hipSuccess);
  int* out;
  ASSERT_EQ(hipMalloc(&out, 128 * sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemset(out, 0xff, 128 * sizeof(int)), hipSuccess);
  hipEvent_t start, stop;
  ASSERT_EQ(hipEventCreate(&start), hipSuccess);
  ASSERT_EQ(hipEventCreate(&stop), hipSuccess);
  int value = 1000, n = 128;
  void* params[] = {&out, &value, &n};
  ASSERT_EQ(hipExtModuleLaunchKernel(fill, 100, 1, 1, 64, 1, 1, 0, 0, params, nullptr, start, stop, 0),
            hipSuccess);
  ASSERT_EQ(hipEventSynchronize(stop), hipSuccess);
  float ms = -1;
  EXPECT_EQ(hipEventElapsedTime(&ms, start, stop), hipSuccess);
  EXPECT_GE(ms, 0.0f);
  std::vector<int> h(128);
  ASSERT_EQ(hipMemcpy(h.data(), out, 128 * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(h[i], i < 100 ? 1000 + i : -1) << i;
  // The older name, events left out.
  value = 5;
  ASSERT_EQ(hipHccModuleLaunchKernel(fill, 64, 1, 1, 64, 1, 1, 0, 0, params, nullptr), hipSuccess);
  ASSERT_EQ(hipMemcpy(h.data(), out, sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 5);
  EXPECT_EQ(hipEventDestroy(start), hipSuccess);
  EXPECT_EQ(hipEventDestroy(stop), hipSuccess);
  EXPECT_EQ(hipModuleUnload(m), hipSuccess);
  EXPECT_EQ(hipFree(out), hipSuccess);
}

// A stream's prepared launches name the kernel's info by address and serial: after an unload,
// a kernel of the module loaded again (whose info may take the old one's address) launched with
// the same shape runs itself, not the unloaded kernel's packet.
TEST(HipExt, ModuleLoadedAgainRunsItsOwnKernels) {
  int* out;
  ASSERT_EQ(hipMalloc(&out, sizeof(int)), hipSuccess);
  for (const char* name : {"fill", "add_counter", "fill"}) {
    hipModule_t m;
    ASSERT_EQ(hipModuleLoad(&m, KFDRT_TEST_CO), hipSuccess);
    hipFunction_t f;
    ASSERT_EQ(hipModuleGetFunction(&f, m, name), hipSuccess);
    int value = 7, n = 1;
    void* params[] = {&out, &value, &n};
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(hipMemset(out, 0, sizeof(int)), hipSuccess);
      ASSERT_EQ(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), hipSuccess);
      int got = 0;
      ASSERT_EQ(hipMemcpy(&got, out, sizeof got, hipMemcpyDeviceToHost), hipSuccess);
      EXPECT_EQ(got, std::string(name) == "fill" ? 7 : 42 + 4) << name << " launch " << i;
    }
    EXPECT_EQ(hipModuleUnload(m), hipSuccess);
  }
  EXPECT_EQ(hipFree(out), hipSuccess);
}

TEST(HipExt, ModuleLaunchRejectsBadArguments) {
  hipModule_t m;
  ASSERT_EQ(hipModuleLoad(&m, KFDRT_TEST_CO), hipSuccess);
  hipFunction_t fill;
  ASSERT_EQ(hipModuleGetFunction(&fill, m, "fill"), hipSuccess);
  int* out;
  ASSERT_EQ(hipMalloc(&out, sizeof(int)), hipSuccess);
  ASSERT_EQ(hipMemset(out, 0, sizeof(int)), hipSuccess);
  int value = 9, n = 1;
  void* params[] = {&out, &value, &n};
  hipEvent_t dead;
  ASSERT_EQ(hipEventCreate(&dead), hipSuccess);
  ASSERT_EQ(hipEventDestroy(dead), hipSuccess);
  EXPECT_EQ(hipExtModuleLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, 0, params, nullptr, dead, nullptr, 0),
            hipErrorInvalidHandle);
  EXPECT_EQ(hipExtModuleLaunchKernel(fill, 0, 1, 1, 1, 1, 1, 0, 0, params, nullptr), hipErrorInvalidConfiguration);
  EXPECT_EQ(hipExtModuleLaunchKernel(fill, 1, 1, 1, 0, 1, 1, 0, 0, params, nullptr), hipErrorInvalidConfiguration);
  EXPECT_EQ(hipExtModuleLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, 0, params, nullptr, nullptr, nullptr, 7),
            hipErrorInvalidValue);
  EXPECT_EQ(hipExtModuleLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, 0, params, nullptr), hipErrorInvalidHandle);
  int got = -1;
  ASSERT_EQ(hipMemcpy(&got, out, sizeof got, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(got, 0);  // none of the refused launches ran
  EXPECT_EQ(hipModuleUnload(m), hipSuccess);
  EXPECT_EQ(hipFree(out), hipSuccess);
  (void)hipGetLastError();
}

TEST(HipExt, LaunchKernelRecordsEventsAroundIt) {
  int* out;
  ASSERT_EQ(hipMalloc(&out, 128 * sizeof(int)), hipSuccess);
  hipEvent_t start, stop;
  ASSERT_EQ(hipEventCreate(&start), hipSuccess);
  ASSERT_EQ(hipEventCreate(&stop), hipSuccess);
  int a = 40;
  char b = 2;
  void* args[] = {&out, &a, &b};
  ASSERT_EQ(hipExtLaunchKernel(reinterpret_cast<const void*>(store_sum), dim3(2), dim3(64), args, 0, 0, start,
                               stop, 0),
            hipSuccess);
  ASSERT_EQ(hipEventSynchronize(stop), hipSuccess);
  EXPECT_EQ(hipEventQuery(start), hipSuccess);
  std::vector<int> h(128);
  ASSERT_EQ(hipMemcpy(h.data(), out, 128 * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 42);
  EXPECT_EQ(h[127], 42);
  // The template converts each argument to the kernel's parameter type (long -> int, int -> char).
  hipExtLaunchKernelGGL(store_sum, dim3(1), dim3(64), 0, 0, nullptr, stop, 0, out, 7L, 3);
  ASSERT_EQ(hipEventSynchronize(stop), hipSuccess);
  ASSERT_EQ(hipMemcpy(h.data(), out, sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h[0], 10);
  EXPECT_EQ(hipExtLaunchKernel(reinterpret_cast<const void*>(&h), dim3(1), dim3(1), args, 0, 0, nullptr,
                               nullptr, 0),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipExtLaunchKernel(reinterpret_cast<const void*>(store_sum), dim3(1), dim3(1), args, 0, 0, nullptr,
                               nullptr, 2),
            hipErrorInvalidValue);
  EXPECT_EQ(hipEventDestroy(start), hipSuccess);
  EXPECT_EQ(hipEventDestroy(stop), hipSuccess);
  EXPECT_EQ(hipFree(out), hipSuccess);
  (void)hipGetLastError();
}

TEST(HipContexts, CreatePushPopAndDestroy) {
  hipCtx_t ctx = nullptr, cur = nullptr, popped = nullptr;
  ASSERT_EQ(hipCtxCreate(&ctx, 0, 0), hipSuccess);
  ASSERT_NE(ctx, nullptr);
  EXPECT_EQ(hipCtxGetCurrent(&cur), hipSuccess);
  EXPECT_EQ(cur, ctx);
  hipDevice_t dev = -1;
  EXPECT_EQ(hipCtxGetDevice(&dev), hipSuccess);
  EXPECT_EQ(dev, 0);
  hipCtx_t primary = nullptr;
  EXPECT_EQ(hipDevicePrimaryCtxRetain(&primary, 0), hipSuccess);
  EXPECT_EQ(primary, ctx);  // a context stands for its device
  EXPECT_EQ(hipCtxPushCurrent(ctx), hipSuccess);
  EXPECT_EQ(hipCtxPopCurrent(&popped), hipSuccess);
  EXPECT_EQ(popped, ctx);
  EXPECT_EQ(hipCtxSynchronize(), hipSuccess);
  unsigned flags = 99;
  EXPECT_EQ(hipCtxGetFlags(&flags), hipSuccess);
  EXPECT_EQ(hipCtxDestroy(ctx), hipSuccess);
  EXPECT_EQ(hipCtxPopCurrent(&popped), hipErrorInvalidContext);  // the stack is empty again
  EXPECT_EQ(hipDevicePrimaryCtxRelease(0), hipSuccess);
  unsigned pflags = 99;
  int active = -1;
  EXPECT_EQ(hipDevicePrimaryCtxGetState(0, &pflags, &active), hipSuccess);
  EXPECT_EQ(active, 1);
  EXPECT_EQ(hipDevicePrimaryCtxSetFlags(0, 0), hipErrorContextAlreadyInUse);
}

TEST(HipContexts, RejectBadHandlesAndDevices) {
  hipCtx_t ctx = nullptr;
  int bogus = 0;
  EXPECT_EQ(hipCtxCreate(nullptr, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipCtxCreate(&ctx, 0, 64), hipErrorInvalidDevice);
  EXPECT_EQ(hipCtxCreate(&ctx, 0x100, 0), hipErrorInvalidValue);  // not a device flag
  EXPECT_EQ(hipCtxDestroy(reinterpret_cast<hipCtx_t>(&bogus)), hipErrorInvalidContext);
  EXPECT_EQ(hipCtxPushCurrent(nullptr), hipErrorInvalidContext);
  EXPECT_EQ(hipCtxSetCurrent(reinterpret_cast<hipCtx_t>(&bogus)), hipErrorInvalidContext);
  EXPECT_EQ(hipCtxGetCurrent(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipCtxGetDevice(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipDevicePrimaryCtxRetain(&ctx, -1), hipErrorInvalidDevice);
  EXPECT_EQ(hipDevicePrimaryCtxGetState(0, nullptr, nullptr), hipErrorInvalidValue);
  (void)hipGetLastError();
}

TEST(HipContexts, SelectTheDeviceOfTheContext) {
  if (device_count() < 2) GTEST_SKIP() << "needs two devices";
  hipCtx_t c0, c1, cur;
  ASSERT_EQ(hipCtxCreate(&c0, 0, 0), hipSuccess);
  ASSERT_EQ(hipCtxCreate(&c1, 0, 1), hipSuccess);
  int dev = -1;
  EXPECT_EQ(hipGetDevice(&dev), hipSuccess);
  EXPECT_EQ(dev, 1);
  EXPECT_EQ(hipCtxPopCurrent(&cur), hipSuccess);
  EXPECT_EQ(cur, c1);
  EXPECT_EQ(hipGetDevice(&dev), hipSuccess);
  EXPECT_EQ(dev, 0);  // back to the context below
  EXPECT_EQ(hipCtxSetCurrent(c1), hipSuccess);
  EXPECT_EQ(hipGetDevice(&dev), hipSuccess);
  EXPECT_EQ(dev, 1);
  EXPECT_EQ(hipCtxSetCurrent(nullptr), hipSuccess);
  EXPECT_EQ(hipSetDevice(0), hipSuccess);
}

TEST(HipPeers, EnableOnceDisableOnce) {
  if (device_count() < 2) {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    EXPECT_EQ(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice);
    GTEST_SKIP() << "needs two devices";
  }
  int can = -1;
  ASSERT_EQ(hipDeviceCanAccessPeer(&can, 0, 1), hipSuccess);
  ASSERT_EQ(can, 1);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 0), hipSuccess);
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessAlreadyEnabled);
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice);  // itself
  hipCtx_t c1;
  ASSERT_EQ(hipDevicePrimaryCtxRetain(&c1, 1), hipSuccess);
  EXPECT_EQ(hipCtxDisablePeerAccess(c1), hipSuccess);  // the same state through the context API
  EXPECT_EQ(hipCtxDisablePeerAccess(c1), hipErrorPeerAccessNotEnabled);
  EXPECT_EQ(hipCtxEnablePeerAccess(c1, 0), hipSuccess);
  EXPECT_EQ(hipDeviceReset(), hipSuccess);  // a reset forgets it
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  // The primary context's reset does too, and so does the peer's: access to a reset device ends.
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 0), hipSuccess);
  EXPECT_EQ(hipDevicePrimaryCtxReset(0), hipSuccess);
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  EXPECT_EQ(hipDeviceEnablePeerAccess(1, 0), hipSuccess);
  EXPECT_EQ(hipDevicePrimaryCtxReset(1), hipSuccess);
  EXPECT_EQ(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
  (void)hipGetLastError();
}

// Calls real programs make that had no test of their own.
TEST(HipMisc, CopyBetweenDevicesAndOnStreams) {
  const int two = device_count() >= 2 ? 1 : 0;
  std::vector<int> h(256), back(256, 0);
  for (int i = 0; i < 256; ++i) h[i] = i * 3;
  int *a = nullptr, *b = nullptr;
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipMalloc(&a, 1024), hipSuccess);
  ASSERT_EQ(hipSetDevice(two), hipSuccess);
  ASSERT_EQ(hipMalloc(&b, 1024), hipSuccess);
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  ASSERT_EQ(hipMemcpyWithStream(a, h.data(), 1024, hipMemcpyHostToDevice, s), hipSuccess);
  ASSERT_EQ(hipMemcpyPeer(b, two, a, 0, 1024), hipSuccess);
  ASSERT_EQ(hipMemcpy(back.data(), b, 1024, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, h);
  ASSERT_EQ(hipMemsetAsync(a, 0, 1024, s), hipSuccess);
  ASSERT_EQ(hipMemcpyPeerAsync(a, 0, b, two, 512, s), hipSuccess);  // the first half comes back
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  ASSERT_EQ(hipMemcpy(back.data(), a, 1024, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back[127], h[127]);
  EXPECT_EQ(back[128], 0);
  EXPECT_EQ(hipMemcpyPeer(b, 64, a, 0, 16), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemcpyPeerAsync(b, two, a, -1, 16, s), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemcpyWithStream(a, h.data(), 16, hipMemcpyKind(9), s), hipErrorInvalidMemcpyDirection);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(b), hipSuccess);
  EXPECT_EQ(hipSetDevice(0), hipSuccess);
  (void)hipGetLastError();
}

TEST(HipMisc, DeviceQueriesAndKernelConfigs) {
  hipDeviceProp_t p;
  ASSERT_EQ(hipGetDeviceProperties(&p, 0), hipSuccess);
  size_t total = 0;
  EXPECT_EQ(hipDeviceTotalMem(&total, 0), hipSuccess);
  EXPECT_EQ(total, p.totalGlobalMem);
  int major = -1, minor = -1;
  EXPECT_EQ(hipDeviceComputeCapability(&major, &minor, 0), hipSuccess);
  EXPECT_EQ(major, p.major);
  EXPECT_EQ(minor, p.minor);
  char bus[32] = {};
  EXPECT_EQ(hipDeviceGetPCIBusId(bus, sizeof bus, 0), hipSuccess);
  char want[32];
  std::snprintf(want, sizeof want, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  EXPECT_STREQ(bus, want);
  size_t stack = 0;
  EXPECT_EQ(hipDeviceGetLimit(&stack, hipLimitStackSize), hipSuccess);
  EXPECT_GT(stack, 0u);
  EXPECT_EQ(hipFuncSetCacheConfig(store_sum, hipFuncCachePreferL1), hipSuccess);
  EXPECT_EQ(hipFuncSetAttribute(store_sum, hipFuncAttributeMaxDynamicSharedMemorySize, 1024), hipSuccess);
  EXPECT_EQ(hipDeviceTotalMem(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceTotalMem(&total, 64), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceComputeCapability(&major, nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetPCIBusId(bus, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetLimit(&stack, hipLimit_t(77)), hipErrorUnsupportedLimit);
  EXPECT_EQ(hipFuncSetCacheConfig(reinterpret_cast<const void*>(&p), hipFuncCachePreferL1),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipFuncSetAttribute(store_sum, hipFuncAttributeMaxDynamicSharedMemorySize, -1), hipErrorInvalidValue);
  (void)hipGetLastError();
}

}  // namespace

// ---- ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES (a new process for each setting) ----------

// Run by the test below in a child process: the devices HIP shows it, as one line.
TEST(HipVisibleDevicesChild, DISABLED_Report) {
  int n = 0;
  const hipError_t e = hipGetDeviceCount(&n);
  std::printf("visible: %d %d", int(e), n);
  for (int i = 0; i < n; ++i) {
    hipDeviceProp_t p{};
    if (hipGetDeviceProperties(&p, i) == hipSuccess) std::printf(" %d", p.pciBusID);
  }
  std::printf("\n");
}

namespace {

// This program's report (above) with the variables set to `rocr` and `hip` (nullptr: unset).
std::string visible_with(const char* rocr, const char* hip) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "ROCR_VISIBLE_DEVICES=", 21) && std::strncmp(*e, "HIP_VISIBLE_DEVICES=", 20) &&
        std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21))
      env.push_back(*e);
  if (rocr) env.push_back(std::string("ROCR_VISIBLE_DEVICES=") + rocr);
  if (hip) env.push_back(std::string("HIP_VISIBLE_DEVICES=") + hip);
  std::vector<char*> envp;
  for (auto& x : env) envp.push_back(x.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", filter = "--gtest_filter=HipVisibleDevicesChild.DISABLED_Report",
              disabled = "--gtest_also_run_disabled_tests";
  char* argv[] = {self.data(), filter.data(), disabled.data(), nullptr};
  int out[2];
  if (pipe(out) != 0) return "pipe failed";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t k; rc == 0 && (k = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(k));
  close(out[0]);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  const size_t at = text.find("visible: ");
  if (at == std::string::npos) return "no report: " + text;
  return text.substr(at + 9, text.find('\n', at) - at - 9);
}

}  // namespace

// ROCm's runtime shows HIP the GPUs ROCR_VISIBLE_DEVICES lists (indices or "GPU-" UUIDs, up to the
// first invalid entry; cluster schedulers set it), and HIP_VISIBLE_DEVICES indexes those.
TEST(HipVisibleDevices, RocrListPicksAndOrdersTheGpusHipIndexes) {
  int n = 0;
  ASSERT_EQ(hipGetDeviceCount(&n), hipSuccess);
  if (n < 2) GTEST_SKIP() << "needs two GPUs (KFDEMU_GPUS=2 under the emulator)";
  if (std::getenv("ROCR_VISIBLE_DEVICES") || std::getenv("HIP_VISIBLE_DEVICES") || std::getenv("CUDA_VISIBLE_DEVICES"))
    GTEST_SKIP() << "the GPUs are already narrowed by the environment";
  int bus[2];
  char uuid1[40];
  for (int i = 0; i < 2; ++i) {
    hipDeviceProp_t p{};
    ASSERT_EQ(hipGetDeviceProperties(&p, i), hipSuccess);
    bus[i] = p.pciBusID;
    if (i == 1) {  // the KFD unique_id, little-endian in the UUID's first bytes
      hipUUID u{};
      ASSERT_EQ(hipDeviceGetUuid(&u, 1), hipSuccess);
      unsigned long long id = 0;
      for (int b = 0; b < 8; ++b) id |= (unsigned long long)(unsigned char)u.bytes[b] << (8 * b);
      std::snprintf(uuid1, sizeof uuid1, "GPU-%016llx", id);
    }
  }
  const std::string b0 = std::to_string(bus[0]), b1 = std::to_string(bus[1]);
  EXPECT_EQ(visible_with(nullptr, nullptr).rfind("0 " + std::to_string(n) + " " + b0 + " " + b1, 0), 0u)
      << "every GPU, in order (more GPUs follow)";
  EXPECT_EQ(visible_with("1,0", nullptr), "0 2 " + b1 + " " + b0);
  EXPECT_EQ(visible_with("1", nullptr), "0 1 " + b1);
  EXPECT_EQ(visible_with(uuid1, nullptr), "0 1 " + b1) << uuid1;
  EXPECT_EQ(visible_with("1,9,0", nullptr), "0 1 " + b1) << "up to the first invalid entry";
  EXPECT_EQ(visible_with("1,0", "1"), "0 1 " + b0) << "HIP_VISIBLE_DEVICES indexes ROCr's list";
  EXPECT_EQ(visible_with("-1", nullptr), std::to_string(int(hipErrorNoDevice)) + " 0");
  EXPECT_EQ(visible_with("1", "1"), std::to_string(int(hipErrorNoDevice)) + " 0");
}

// A device's PCI address names it back (CUDA's cudaDeviceGetByPCIBusId); UUIDs tell GPUs apart.
TEST(HipVisibleDevices, PciAddressAndUuidNameTheDevice) {
  int n = 0;
  ASSERT_EQ(hipGetDeviceCount(&n), hipSuccess);
  std::vector<std::string> uuids;
  for (int i = 0; i < n; ++i) {
    char bus[32];
    ASSERT_EQ(hipDeviceGetPCIBusId(bus, sizeof bus, i), hipSuccess);
    int found = -1;
    EXPECT_EQ(hipDeviceGetByPCIBusId(&found, bus), hipSuccess) << bus;
    EXPECT_EQ(found, i) << bus;
    found = -1;
    EXPECT_EQ(hipDeviceGetByPCIBusId(&found, bus + 5), hipSuccess) << "without the domain: " << (bus + 5);
    EXPECT_EQ(found, i);
    hipUUID u{};
    ASSERT_EQ(hipDeviceGetUuid(&u, i), hipSuccess);
    uuids.emplace_back(u.bytes, sizeof u.bytes);
    EXPECT_NE(uuids.back(), std::string(sizeof u.bytes, '\0'));
    for (int j = 0; j < i; ++j) EXPECT_NE(uuids[size_t(j)], uuids.back()) << "devices " << j << " and " << i;
  }
  int d = 7;
  EXPECT_EQ(hipDeviceGetByPCIBusId(&d, "not an address"), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetByPCIBusId(&d, "0000:ff:1f.0"), hipErrorInvalidDevice);
  EXPECT_EQ(d, 7);
  EXPECT_EQ(hipDeviceGetByPCIBusId(nullptr, "0000:03:00.0"), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetUuid(nullptr, 0), hipErrorInvalidValue);
  hipUUID u{};
  EXPECT_EQ(hipDeviceGetUuid(&u, n), hipErrorInvalidDevice);
}

// Occupancy of a module's kernel, as of the same kernel launched through the runtime's table.
TEST(HipExt, ModuleOccupancyOfAModulesKernel) {
  hipModule_t m = nullptr;
  ASSERT_EQ(hipModuleLoad(&m, KFDRT_TEST_CO), hipSuccess);
  hipFunction_t fill = nullptr;
  ASSERT_EQ(hipModuleGetFunction(&fill, m, "fill"), hipSuccess);
  int blocks = -1, again = -1, grid = 0, block = 0, grid2 = 0, block2 = 0;
  ASSERT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 256, 0), hipSuccess);
  EXPECT_GT(blocks, 0);
  ASSERT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&again, fill, 256, 0, hipOccupancyDefault), hipSuccess);
  EXPECT_EQ(again, blocks);
  ASSERT_EQ(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, fill, 0, 0), hipSuccess);
  ASSERT_EQ(hipModuleOccupancyMaxPotentialBlockSizeWithFlags(&grid2, &block2, fill, 0, 0, hipOccupancyDefault), hipSuccess);
  EXPECT_EQ(grid2, grid);
  EXPECT_EQ(block2, block);
  int more = -1;
  ASSERT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&more, fill, 64, 0), hipSuccess);
  EXPECT_GE(more, blocks) << "smaller blocks: as many or more fit";
  EXPECT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, fill, 256, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, nullptr, 256, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, fill, 256, 0, 1u), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, fill, 0, 0, 1u), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleUnload(m), hipSuccess);
}

__global__ void stamp(int* out, int v) { out[threadIdx.x] = v + int(threadIdx.x); }
__global__ void spin_then_stamp(int* out, int v, long long cycles) {
  long long end = clock64() + cycles;
  while (clock64() < end) {
  }
  out[threadIdx.x] = v;
}

// hipExtLaunchMultiKernelMultiDevice: a different kernel on each device's stream; with the
// default (post-sync) flags each stream's next work waits for every device's kernel.
TEST(HipExt, MultiKernelMultiDeviceLaunch) {
  int n = 0;
  ASSERT_EQ(hipGetDeviceCount(&n), hipSuccess);
  n = std::min(n, 2);
  std::vector<int*> out(n);
  std::vector<hipStream_t> s(n);
  std::vector<hipLaunchParams> lp(n);
  std::vector<std::vector<void*>> args(n);
  int vals[2] = {100, 200};
  long long cycles = 200000;
  for (int d = 0; d < n; ++d) {
    ASSERT_EQ(hipSetDevice(d), hipSuccess);
    ASSERT_EQ(hipMalloc(&out[d], 64 * sizeof(int)), hipSuccess);
    ASSERT_EQ(hipMemset(out[d], 0, 64 * sizeof(int)), hipSuccess);
    ASSERT_EQ(hipStreamCreate(&s[d]), hipSuccess);
    args[d] = d == 0 ? std::vector<void*>{&out[d], &vals[d]} : std::vector<void*>{&out[d], &vals[d], &cycles};
    lp[d].func = d == 0 ? reinterpret_cast<void*>(stamp) : reinterpret_cast<void*>(spin_then_stamp);
    lp[d].gridDim = dim3(1);
    lp[d].blockDim = dim3(64);
    lp[d].sharedMem = 0;
    lp[d].stream = s[d];
    lp[d].args = args[d].data();
  }
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipExtLaunchMultiKernelMultiDevice(lp.data(), n, 0), hipSuccess);
  // Device 0's stream waits for device 1's slower kernel too (post-sync).
  ASSERT_EQ(hipStreamSynchronize(s[0]), hipSuccess);
  for (int d = 0; d < n; ++d) {
    std::vector<int> h(64);
    ASSERT_EQ(hipMemcpy(h.data(), out[d], 64 * sizeof(int), hipMemcpyDeviceToHost), hipSuccess);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(h[t], d == 0 ? 100 + t : 200) << d << " " << t;
  }
  // Two launches on one device, an unknown kernel, bad flags: refused before anything runs.
  if (n == 2) {
    hipLaunchParams twice[2] = {lp[0], lp[0]};
    EXPECT_EQ(hipExtLaunchMultiKernelMultiDevice(twice, 2, 0), hipErrorInvalidDevice);
  }
  hipLaunchParams bad = lp[0];
  bad.func = reinterpret_cast<void*>(&n);
  EXPECT_EQ(hipExtLaunchMultiKernelMultiDevice(&bad, 1, 0), hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipExtLaunchMultiKernelMultiDevice(lp.data(), n, 0x100), hipErrorInvalidValue);
  for (int d = 0; d < n; ++d) {
    ASSERT_EQ(hipStreamDestroy(s[d]), hipSuccess);
    ASSERT_EQ(hipFree(out[d]), hipSuccess);
  }
  (void)hipGetLastError();
}
