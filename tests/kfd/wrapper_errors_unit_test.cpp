// SPDX-License-Identifier: MIT
// Unit tests of the ioctl wrappers' errors on a Kfd that is not open: every wrapper fails and names itself.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "base/dynlib.h"
#include "kfd/kfd.h"

namespace {

// base::open_library (how libdrm_amdgpu and the decompressors are opened): a missing library or
// symbol is an error that names it; a found symbol's address is in its slot.
TEST(OpenLibrary, NamesTheMissingLibraryOrSymbol) {
  void* fn = nullptr;
  std::string e = base::open_library("libkfdrt-no-such-library.so.9", {{"strlen", &fn}});
  EXPECT_NE(e.find("cannot open libkfdrt-no-such-library.so.9"), std::string::npos) << e;
  EXPECT_EQ(fn, nullptr);
  e = base::open_library("libc.so.6", {{"strlen", &fn}, {"kfdrt_no_such_symbol", &fn}});
  EXPECT_EQ(e, "libc.so.6 has no symbol kfdrt_no_such_symbol");
  fn = nullptr;
  e = base::open_library("libc.so.6", {{"strlen", &fn}});
  EXPECT_EQ(e, "");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(reinterpret_cast<size_t (*)(const char*)>(fn)("four"), 4u);
}

// open_once opens a library on a call site's first call only, and keeps a failure: every call
// returns it, after the caller's words, with ELIBACC.
TEST(OpenLibrary, OpenOnceKeepsTheFunctionsOrTheError) {
  struct Libc {
    size_t (*strlen)(const char*) = nullptr;
  };
  int opened = 0;
  auto good = [&] {
    return base::open_once<Libc>([&](Libc& l) {
      ++opened;
      return base::open_library("libc.so.6", {{"strlen", reinterpret_cast<void**>(&l.strlen)}});
    });
  };
  for (int i = 0; i < 3; ++i) {
    auto r = good();
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ((*r)->strlen("four"), 4u);
  }
  EXPECT_EQ(opened, 1);
  struct Missing {
    void* fn = nullptr;
  };
  int tries = 0;
  auto bad = [&] {
    return base::open_once<Missing>(
        [&](Missing& m) {
          ++tries;
          return base::open_library("libkfdrt-no-such-library.so.9", {{"f", &m.fn}});
        },
        "test: ");
  };
  for (int i = 0; i < 2; ++i) {
    auto r = bad();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().err, ELIBACC);
    EXPECT_EQ(r.message().rfind("test: cannot open libkfdrt-no-such-library.so.9", 0), 0u) << r.message();
  }
  EXPECT_EQ(tries, 1);
}

// The message must read "<ioctl>: <errno text> (<argument values>)" with the given errno.
::testing::AssertionResult names_ioctl(const base::Error& e, const std::string& op, int err) {
  const std::string head = op + ": " + std::strerror(err) + " (";
  if (e.err != err)
    return ::testing::AssertionFailure() << op << ": errno " << e.err << ", expected " << err
                                         << ": " << e.message;
  if (e.message.rfind(head, 0) != 0 || e.message.back() != ')')
    return ::testing::AssertionFailure() << "expected \"" << head << "...)\", got: " << e.message;
  return ::testing::AssertionSuccess();
}

template <class R>
base::Error error_of(const R& r) {
  return r.ok() ? base::Error::msg("unexpectedly succeeded") : r.error();
}

// A Kfd that was never opened holds fd -1: each ioctl reaches the kernel and gets EBADF, and each
// error still says which ioctl it was and with what arguments.
TEST(KfdWrapperErrors, EveryIoctlWrapperNamesItselfOnABadFd) {
  const kfd::Kfd k;
  ASSERT_FALSE(k.is_open());
  kfd::EventData ev{};
  ev.event_id = 7;
  const uint32_t ids[] = {0x1234};
  kfd::QueueArgs qa;
  qa.gpu_id = 0x1234;
  qa.ring_size = 0x1000;
  struct Call {
    std::string ioctl;
    std::string values;  // the key argument values the message must carry
    std::function<base::Error()> run;
  };
  const std::vector<Call> calls = {
      {"AMDKFD_IOC_GET_PROCESS_APERTURES_NEW", "num_of_nodes=0x0", [&] { return error_of(k.get_process_apertures()); }},
      {"AMDKFD_IOC_ACQUIRE_VM", "drm_fd=5, gpu_id=0x1234", [&] { return error_of(k.acquire_vm(0x1234, 5)); }},
      {"AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", "va=0x200000, size=0x1000, flags=0x2, gpu_id=0x1234",
       [&] { return error_of(k.alloc_memory(0x1234, 0x200000, 4096, KFD_IOC_ALLOC_MEM_FLAGS_GTT)); }},
      {"AMDKFD_IOC_FREE_MEMORY_OF_GPU", "handle=0x123400000001", [&] { return error_of(k.free_memory(0x123400000001)); }},
      {"AMDKFD_IOC_MAP_MEMORY_TO_GPU", "handle=0x123400000001, n_devices=0x1", [&] { return error_of(k.map_memory(0x123400000001, ids)); }},
      {"AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU", "handle=0x123400000001, n_devices=0x1",
       [&] { return error_of(k.unmap_memory(0x123400000001, ids)); }},
      {"AMDKFD_IOC_CREATE_QUEUE", "ring_size=0x1000, gpu_id=0x1234", [&] { return error_of(k.create_queue(qa)); }},
      {"AMDKFD_IOC_DESTROY_QUEUE", "queue_id=3", [&] { return error_of(k.destroy_queue(3)); }},
      {"AMDKFD_IOC_UPDATE_QUEUE", "queue_id=3", [&] { return error_of(k.update_queue(3, 0x200000, 0x1000, 100, 7)); }},
      {"AMDKFD_IOC_CREATE_EVENT", "event_type=0", [&] { return error_of(k.create_event(KFD_IOC_EVENT_SIGNAL, false)); }},
      {"AMDKFD_IOC_DESTROY_EVENT", "event_id=7", [&] { return error_of(k.destroy_event(7)); }},
      {"AMDKFD_IOC_SET_EVENT", "event_id=7", [&] { return error_of(k.set_event(7)); }},
      {"AMDKFD_IOC_RESET_EVENT", "event_id=7", [&] { return error_of(k.reset_event(7)); }},
      {"AMDKFD_IOC_WAIT_EVENTS", "event_id[0]=7", [&] { return error_of(k.wait_events({&ev, 1}, true, 0)); }},
      {"AMDKFD_IOC_GET_CLOCK_COUNTERS", "gpu_id=0x1234", [&] { return error_of(k.get_clock_counters(0x1234)); }},
      {"AMDKFD_IOC_SET_MEMORY_POLICY", "gpu_id=0x1234",
       [&] { return error_of(k.set_memory_policy(0x1234, KFD_IOC_CACHE_POLICY_COHERENT,
                                                 KFD_IOC_CACHE_POLICY_COHERENT)); }},
      {"AMDKFD_IOC_SET_SCRATCH_BACKING_VA", "va=0x200000, gpu_id=0x1234",
       [&] { return error_of(k.set_scratch_backing_va(0x1234, 0x200000)); }},
      {"AMDKFD_IOC_SET_TRAP_HANDLER", "gpu_id=0x1234", [&] { return error_of(k.set_trap_handler(0x1234, 0, 0)); }},
  };
  for (const Call& c : calls) {
    base::Error e = c.run();
    EXPECT_TRUE(names_ioctl(e, c.ioctl, EBADF));
    EXPECT_NE(e.message.find(c.values), std::string::npos) << c.ioctl << ": " << e.message;
  }
  // GET_VERSION has no arguments to report: the name and the errno text.
  base::Error v = error_of(k.get_version());
  EXPECT_EQ(v.err, EBADF);
  EXPECT_EQ(v.message, std::string("AMDKFD_IOC_GET_VERSION: ") + std::strerror(EBADF));
}

// Wrappers of ioctls newer than the KFD in use fail before the ioctl, naming it and the versions.
TEST(KfdWrapperErrors, GatedWrappersNameTheVersionTheyNeed) {
  const kfd::Kfd k;  // version 0.0: below every gate
  const std::vector<std::pair<std::string, base::Error>> gated = {
      {"AMDKFD_IOC_AVAILABLE_MEMORY", error_of(k.available_memory(0x1234))},
      {"AMDKFD_IOC_SET_XNACK_MODE", error_of(k.set_xnack_mode(true))},
      {"AMDKFD_IOC_SET_XNACK_MODE", error_of(k.get_xnack_mode())},
      {"AMDKFD_IOC_RUNTIME_ENABLE", error_of(k.runtime_enable())},
      {"AMDKFD_IOC_RUNTIME_ENABLE", error_of(k.runtime_disable())},
  };
  for (const auto& [name, e] : gated) {
    EXPECT_EQ(e.err, ENOTSUP) << e.message;
    EXPECT_EQ(e.message.rfind(name + ": not supported by KFD 0.0 (needs 1.", 0), 0u) << e.message;
  }
}

// The mmap wrapper names the offset's type, the gpu_id in it, the offset and the length.
TEST(KfdWrapperErrors, MmapNamesTypeGpuIdAndLength) {
  const kfd::Kfd k;
  const uint64_t off = kfd::uapi::mmap_offset(kfd::uapi::kMmapTypeDoorbell, 0xdead);
  auto r = k.mmap(nullptr, 8192, PROT_READ, MAP_SHARED, off);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(names_ioctl(r.error(), "mmap /dev/kfd", EBADF));
  EXPECT_NE(r.message().find("type=doorbell"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("gpu_id=0xdead"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("length=0x2000"), std::string::npos) << r.message();
  auto ev = k.mmap(nullptr, 4096, PROT_READ, MAP_SHARED, kfd::uapi::kMmapTypeEvents);
  ASSERT_FALSE(ev.ok());
  EXPECT_NE(ev.message().find("type=events"), std::string::npos) << ev.message();
}

}  // namespace
