// SPDX-License-Identifier: MIT
// kfdrt's libamdhip64.so.5 loaded the way a HIP 5.2 binary loads it: stubs, helpers, properties, nothing of kfdrt's own visible.
// The library is opened by path (argv[1] or KFDRT_COMPAT_LIB) and reached only through dlsym,
// so the test sees what any program sees. Types come from kfdrt's headers (HIP 5.2's ABI).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

const char* g_path = nullptr;

void* library() {
  static void* h = [] {
    void* p = dlopen(g_path, RTLD_NOW | RTLD_LOCAL);
    if (!p) std::fprintf(stderr, "dlopen %s: %s\n", g_path, dlerror());
    return p;
  }();
  return h;
}

template <class F>
F* entry(const char* name) {
  return reinterpret_cast<F*>(dlsym(library(), name));
}
#define ENTRY(name) entry<decltype(name)>(#name)

// Runs `fn` with stderr going to a temporary file and returns what was written.
template <class Fn>
std::string stderr_of(Fn fn) {
  std::fflush(stderr);
  char path[] = "/tmp/kfdrt-compat-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "mkstemp failed";
  int saved = dup(2);
  dup2(fd, 2);
  fn();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  char buf[4096];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  close(fd);
  unlink(path);
  return text;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

class Compat : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(library(), nullptr) << g_path; }
};

TEST_F(Compat, StubNamesItsEntryPointOnceAndFails) {
  using GraphCreate = int(void**, unsigned);
  auto* create = entry<GraphCreate>("hipGraphCreate");
  auto* last = ENTRY(hipGetLastError);
  ASSERT_NE(create, nullptr);
  ASSERT_NE(last, nullptr);
  void* g = nullptr;
  int first = -1, second = -1;
  const std::string err = stderr_of([&] {
    first = create(&g, 0);
    second = create(&g, 0);
  });
  EXPECT_EQ(first, int(hipErrorNotSupported));
  EXPECT_EQ(second, int(hipErrorNotSupported));
  EXPECT_EQ(count(err, "kfdrt: hipGraphCreate: not implemented"), 1u) << err;
  EXPECT_NE(err.find("hipErrorNotSupported"), std::string::npos) << err;
  EXPECT_EQ(last(), hipErrorNotSupported);  // recorded as the thread's last error
  EXPECT_EQ(last(), hipSuccess);
}

TEST_F(Compat, StubsOfOtherReturnTypesFailTheirWay) {
  using NameRef = const char*(void*);
  using RtcVersion = int(int*, int*);
  auto* name_ref = entry<NameRef>("hipKernelNameRef");
  auto* rtc = entry<RtcVersion>("hiprtcVersion");
  ASSERT_NE(name_ref, nullptr);
  ASSERT_NE(rtc, nullptr);
  const char* got = "not called";
  int rtc_result = 0, major = -1, minor = -1;
  const std::string err = stderr_of([&] {
    got = name_ref(nullptr);
    rtc_result = rtc(&major, &minor);
  });
  EXPECT_EQ(got, nullptr);
  EXPECT_EQ(rtc_result, 11);  // HIPRTC_ERROR_INTERNAL_ERROR
  EXPECT_EQ(count(err, "kfdrt: hipKernelNameRef: not implemented"), 1u) << err;
  EXPECT_EQ(count(err, "kfdrt: hiprtcVersion: not implemented"), 1u) << err;
}

TEST_F(Compat, KfdrtsOwnSymbolsAreHidden) {
  EXPECT_EQ(dlsym(library(), "kfdrtPointerGetCoherence"), nullptr);
  EXPECT_EQ(dlsym(library(), "hipGetDevicePropertiesR0600"), nullptr);  // not a HIP 5.2 entry point
  EXPECT_EQ(dlsym(library(), "_ZN3hip3retE10hipError_tPKc"), nullptr);  // hip::ret
  EXPECT_NE(dlvsym(library(), "hipMalloc", "hip_4.2"), nullptr);
  EXPECT_NE(dlvsym(library(), "hipStreamGetCaptureInfo_v2", "hip_4.5"), nullptr);
  EXPECT_NE(dlvsym(library(), "hipLaunchKernel_spt", "hip_5.2"), nullptr);
  EXPECT_EQ(dlvsym(library(), "hipLaunchKernel_spt", "hip_4.2"), nullptr);  // only at its own version
}

TEST_F(Compat, HalfConversionsRoundToNearestEven) {
  using F2H = unsigned short(float);
  using H2F = float(unsigned short);
  auto* f2h = entry<F2H>("__gnu_f2h_ieee");
  auto* h2f = entry<H2F>("__gnu_h2f_ieee");
  ASSERT_NE(f2h, nullptr);
  ASSERT_NE(h2f, nullptr);
  EXPECT_EQ(f2h(1.0f), 0x3c00);
  EXPECT_EQ(f2h(-2.5f), 0xc100);
  EXPECT_EQ(f2h(65504.0f), 0x7bff);                 // largest finite
  EXPECT_EQ(f2h(65520.0f), 0x7c00);                 // rounds to infinity
  EXPECT_EQ(f2h(1.0f + 0x1p-11f), 0x3c00);          // a tie: to the even significand
  EXPECT_EQ(f2h(1.0f + 3 * 0x1p-11f), 0x3c02);      // a tie: to the even significand, upwards
  EXPECT_EQ(f2h(0x1p-24f), 0x0001);                 // smallest subnormal
  EXPECT_EQ(f2h(0x1p-25f), 0x0000);                 // a tie below it: to zero
  EXPECT_EQ(f2h(0x1.8p-25f), 0x0001);
  EXPECT_EQ(f2h(INFINITY), 0x7c00);
  EXPECT_EQ(f2h(NAN) & 0x7e00, 0x7e00);             // a quiet NaN
  EXPECT_EQ(h2f(0x0001), 0x1p-24f);
  EXPECT_EQ(h2f(0x03ff), 0x3ffp-24f);
  EXPECT_EQ(h2f(0xfbff), -65504.0f);
  int mismatches = 0;
  for (unsigned h = 0; h < 0x10000; ++h) {  // every binary16 value survives the round trip
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    if (!nan && f2h(h2f(uint16_t(h))) != h) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(Compat, PropertiesFillHip52sLayoutOnly) {
  auto* props = ENTRY(hipGetDeviceProperties);
  auto* attr = ENTRY(hipDeviceGetAttribute);
  ASSERT_NE(props, nullptr);
  ASSERT_NE(attr, nullptr);
  struct {
    hipDeviceProp_t p;
    unsigned char guard[1024];
  } s;
  std::memset(&s, 0x5a, sizeof s);
  ASSERT_EQ(props(&s.p, 0), hipSuccess);
  int untouched = 0;
  for (unsigned char g : s.guard) untouched += g == 0x5a;
  EXPECT_EQ(untouched, int(sizeof s.guard));
  int v = -1;
  ASSERT_EQ(attr(&v, hipDeviceAttributeMultiprocessorCount, 0), hipSuccess);
  EXPECT_EQ(v, s.p.multiProcessorCount);
  ASSERT_EQ(attr(&v, hipDeviceAttributePageableMemoryAccessUsesHostPageTables, 0), hipSuccess);
  EXPECT_EQ(v, s.p.pageableMemoryAccessUsesHostPageTables);
  ASSERT_EQ(attr(&v, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, 0), hipSuccess);
  EXPECT_EQ(size_t(v), s.p.maxSharedMemoryPerMultiProcessor);
  EXPECT_EQ(std::strncmp(s.p.gcnArchName, "gfx", 3), 0);
  EXPECT_GT(s.p.gcnArch, 0);
}

TEST_F(Compat, PerThreadStreamVariantsAndHelpers) {
  auto* malloc_ = entry<hipError_t(void**, size_t)>("hipMalloc");
  auto* free_ = ENTRY(hipFree);
  using MemsetSpt = hipError_t(void*, int, size_t);
  using MemcpySpt = hipError_t(void*, const void*, size_t, hipMemcpyKind);
  using SyncSpt = hipError_t(hipStream_t);
  using DeviceId = int(hipStream_t);
  struct Desc {
    int x, y, z, w, f;
  };
  using ChannelDesc = Desc(int, int, int, int, int);
  auto* memset_spt = entry<MemsetSpt>("hipMemset_spt");
  auto* memcpy_spt = entry<MemcpySpt>("hipMemcpy_spt");
  auto* sync_spt = entry<SyncSpt>("hipStreamSynchronize_spt");
  auto* device_id = entry<DeviceId>("hipGetStreamDeviceId");
  auto* channel = entry<ChannelDesc>("hipCreateChannelDesc");
  ASSERT_TRUE(malloc_ && free_ && memset_spt && memcpy_spt && sync_spt && device_id && channel);
  void* d = nullptr;
  ASSERT_EQ(malloc_(&d, 256), hipSuccess);
  ASSERT_EQ(memset_spt(d, 0x7f, 256), hipSuccess);
  unsigned char h[256] = {};
  ASSERT_EQ(memcpy_spt(h, d, sizeof h, hipMemcpyDeviceToHost), hipSuccess);
  int same = 0;
  for (unsigned char c : h) same += c == 0x7f;
  EXPECT_EQ(same, 256);
  EXPECT_EQ(sync_spt(nullptr), hipSuccess);
  EXPECT_EQ(device_id(nullptr), 0);
  EXPECT_EQ(device_id(reinterpret_cast<hipStream_t>(0x1234)), -1);
  const Desc c = channel(8, 8, 0, 0, 2);
  EXPECT_TRUE(c.x == 8 && c.y == 8 && c.z == 0 && c.w == 0 && c.f == 2);
  EXPECT_EQ(free_(d), hipSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  g_path = argc > 1 ? argv[1] : std::getenv("KFDRT_COMPAT_LIB");
  if (!g_path) {
    std::fprintf(stderr, "usage: %s LIBAMDHIP64 (or KFDRT_COMPAT_LIB)\n", argv[0]);
    return 2;
  }
  return RUN_ALL_TESTS();
}
