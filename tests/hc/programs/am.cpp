// SPDX-License-Identifier: MIT
// hc test: am_alloc in every memory kind, am_free (a second free fails), am_copy, the pointer tracker, host locking, pinned_vector.
#include "hc_check.hpp"

#include <hc_am.hpp>
#include <pinned_vector.hpp>

#include <cstdlib>
#include <vector>

using hc_test::check;

// Fills `n` ints at p (any kind of memory) with a kernel, then reads them back with am_copy.
bool kernel_can_use(int* p, int n, int value) {
  hc::parallel_for_each(hc::extent<1>(n), [=](hc::index<1> i) { p[i[0]] = value + i[0]; }).wait();
  std::vector<int> back(n);
  if (hc::am_copy(back.data(), p, n * sizeof(int)) != AM_SUCCESS) return false;
  for (int i = 0; i < n; ++i)
    if (back[i] != value + i) return false;
  return true;
}

void allocations() {
  hc::accelerator acc;
  const int n = 1000;
  struct kind { unsigned flags; const char* name; bool host; };
  const kind kinds[] = {{0, "device memory", false},
                        {amHostPinned, "amHostPinned", true},
                        {amHostNonCoherent, "amHostNonCoherent", true},
                        {amHostCoherent, "amHostCoherent", true},
                        {amDeviceFinegrained, "amDeviceFinegrained", false},
                        {amHostCoherent | amHostUnmapped, "amHostCoherent|amHostUnmapped", true}};
  hipDeviceProp_t prop{};
  const bool large_bar = hipGetDeviceProperties(&prop, 0) == hipSuccess && prop.isLargeBar;
  for (const kind& k : kinds) {
    int* p = hc::am_alloc(n * sizeof(int), acc, k.flags);
    if (k.flags == amDeviceFinegrained && !large_bar) {
      // Fine-grained device memory is host-visible VRAM, which a small-BAR GPU does not have.
      check(p == nullptr, "am_alloc amDeviceFinegrained fails on a small-BAR GPU");
      continue;
    }
    if (!check(p != nullptr, std::string("am_alloc ") + k.name)) continue;
    check(kernel_can_use(p, n, 7), std::string("a kernel writes ") + k.name);
    if (k.host) check(p[n - 1] == 7 + n - 1, std::string("the host reads ") + k.name + " directly");
    hc::AmPointerInfo info(nullptr, nullptr, 0, acc, false, false);
    check(hc::am_memtracker_getinfo(&info, p + 10) == AM_SUCCESS && info._devicePointer == p &&
              info._sizeBytes == n * sizeof(int) && info._isAmManaged && info._isInDeviceMem == !k.host,
          std::string("the tracker resolves an interior pointer of ") + k.name);
    check(hc::am_free(p) == AM_SUCCESS, std::string("am_free ") + k.name);
    check(hc::am_free(p) == AM_ERROR_MISC, std::string("a second am_free of ") + k.name + " is an error");
  }
  check(static_cast<void*>(hc::am_alloc(0, acc, 0)) == nullptr, "am_alloc of 0 bytes returns null");
  check(hc::am_free(nullptr) == AM_SUCCESS, "am_free(nullptr) succeeds");
}

void tracker() {
  hc::accelerator acc;
  std::vector<char> user(4096);
  hc::AmPointerInfo info(user.data(), user.data(), user.size(), acc, false, false);
  check(hc::am_memtracker_add(user.data(), info) == AM_SUCCESS, "am_memtracker_add");
  hc::AmPointerInfo got(nullptr, nullptr, 0, acc, false, false);
  check(hc::am_memtracker_getinfo(&got, user.data() + 4095) == AM_SUCCESS && got._hostPointer == user.data(),
        "getinfo on the last byte of an added range");
  check(hc::am_memtracker_getinfo(&got, user.data() + 4096) == AM_ERROR_MISC, "one past the end is not tracked");
  int tag = 0;
  check(hc::am_memtracker_update(user.data() + 100, 3, 0x55, &tag) == AM_SUCCESS, "am_memtracker_update");
  hc::am_memtracker_getinfo(&got, user.data());
  check(got._appId == 3 && got._appAllocationFlags == 0x55 && got._appPtr == &tag, "updated app fields read back");
  size_t dev = 0, host = 0, usr = 0;
  hc::am_memtracker_sizeinfo(acc, &dev, &host, &usr);
  check(usr >= 4096, "am_memtracker_sizeinfo counts user memory");
  check(hc::am_memtracker_remove(user.data() + 7) == AM_SUCCESS, "am_memtracker_remove by an interior pointer");
  check(hc::am_memtracker_getinfo(&got, user.data()) == AM_ERROR_MISC, "removed memory is no longer tracked");
  check(hc::am_memtracker_remove(user.data()) == AM_ERROR_MISC, "removing twice is an error");
  check(hc::am_memtracker_add(nullptr, info) == AM_ERROR_MISC, "adding null is an error");
  // Memory from HIP directly is described from its pointer attributes.
  void* d = nullptr;
  (void)hipMalloc(&d, 1 << 16);
  hc::AmPointerInfo hi(nullptr, nullptr, 0, acc, false, false);
  check(hc::am_memtracker_getinfo(&hi, static_cast<char*>(d) + 100) == AM_SUCCESS && hi._devicePointer == d &&
            hi._isInDeviceMem && !hi._isAmManaged && hi._sizeBytes >= (1u << 16),
        "getinfo on an interior pointer of hipMalloc memory (via hipPointerGetAttributes)");
  (void)hipFree(d);
  int on_stack = 0;
  check(hc::am_memtracker_getinfo(&hi, &on_stack) == AM_ERROR_MISC, "getinfo on unknown host memory fails");
}

void host_lock_and_peers() {
  hc::accelerator acc;
  const int n = 2048;
  int* host = static_cast<int*>(std::aligned_alloc(4096, n * sizeof(int)));
  check(hc::am_memory_host_lock(acc, host, n * sizeof(int), &acc, 1) == AM_SUCCESS, "am_memory_host_lock");
  check(kernel_can_use(host, n, 3) && host[5] == 8, "a kernel writes locked host memory");
  check(hc::am_memory_host_unlock(acc, host) == AM_SUCCESS, "am_memory_host_unlock");
  check(hc::am_memory_host_unlock(acc, host) == AM_ERROR_MISC, "unlocking twice is an error");
  std::free(host);
  int* d = hc::am_alloc(256, acc, 0);
  check(hc::am_map_to_peers(d, 1, &acc) == AM_SUCCESS, "am_map_to_peers to its own accelerator");
  check(hc::am_map_to_peers(nullptr, 1, &acc) == AM_ERROR_MISC && hc::am_map_to_peers(d, 0, &acc) == AM_ERROR_MISC,
        "am_map_to_peers rejects null and empty lists");
  hc::am_free(d);
}

void pinned() {
  hc::pinned_vector<int> pv;
  for (int i = 0; i < 5000; ++i) pv.push_back(i);
  hc::accelerator acc;
  hc::AmPointerInfo info(nullptr, nullptr, 0, acc, false, false);
  check(hc::am_memtracker_getinfo(&info, pv.data() + 4999) == AM_SUCCESS && !info._isInDeviceMem,
        "pinned_vector storage is tracked pinned host memory");
  int* p = pv.data();
  hc::parallel_for_each(hc::extent<1>(5000), [=](hc::index<1> i) { p[i[0]] *= 3; }).wait();
  check(pv[4999] == 14997 && pv[1] == 3, "a kernel updates a pinned_vector in place");
}

int main() {
  hc_test::run("alloc", allocations);
  hc_test::run("tracker", tracker);
  hc_test::run("lock", host_lock_and_peers);
  hc_test::run("pinned", pinned);
  return hc_test::finish();
}
