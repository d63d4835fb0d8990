// SPDX-License-Identifier: MIT
// AMD's rocPRIM (Debian's librocprim-dev headers, unmodified) on kfdrt: device-wide sorts, scans,
// reductions, selections, histograms and run-length encoding, and the block- and warp-level
// primitives in a kernel of our own, each checked against the same computation on the host.
// rocPRIM's kernels use DPP and SDWA lane operations, LDS, atomics and decoupled look-back scans
// across workgroups (a workgroup waits on flags its predecessors publish), all on the device.
#include <hip/hip_runtime.h>
#include <rocprim/rocprim.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "check.h"

namespace {

template <class T>
struct Dev {
  T* p = nullptr;
  size_t n = 0;
  explicit Dev(size_t count) : n(count) { CHECK_HIP(hipMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
  explicit Dev(const std::vector<T>& h) : Dev(h.size()) {
    CHECK_HIP(hipMemcpy(p, h.data(), n * sizeof(T), hipMemcpyHostToDevice));
  }
  ~Dev() { (void)hipFree(p); }
  std::vector<T> get(size_t count = size_t(-1)) const {
    std::vector<T> h(std::min(count, n));
    if (!h.empty()) CHECK_HIP(hipMemcpy(h.data(), p, h.size() * sizeof(T), hipMemcpyDeviceToHost));
    return h;
  }
  T one(size_t i = 0) const {
    T v{};
    CHECK_HIP(hipMemcpy(&v, p + i, sizeof(T), hipMemcpyDeviceToHost));
    return v;
  }
};

// rocPRIM's two-call protocol: the first call sizes the temporary storage, the second runs.
struct Temp {
  void* p = nullptr;
  size_t bytes = 0;
  void alloc() { CHECK_HIP(hipMalloc(&p, std::max<size_t>(bytes, 1))); }
  ~Temp() { (void)hipFree(p); }
};

std::mt19937 rng(20261127);

void radix_sort() {
  const size_t n = 300007;  // several workgroups' tiles and a ragged end
  std::vector<uint32_t> keys(n);
  std::vector<int> vals(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = rng();
    vals[i] = int(i);
  }
  Dev<uint32_t> k_in(keys), k_out(n);
  Dev<int> v_in(vals), v_out(n);
  Temp t;
  CHECK_HIP(rocprim::radix_sort_pairs(nullptr, t.bytes, k_in.p, k_out.p, v_in.p, v_out.p, n));
  t.alloc();
  CHECK_HIP(rocprim::radix_sort_pairs(t.p, t.bytes, k_in.p, k_out.p, v_in.p, v_out.p, n));
  std::vector<std::pair<uint32_t, int>> ref(n);
  for (size_t i = 0; i < n; ++i) ref[i] = {keys[i], int(i)};
  std::stable_sort(ref.begin(), ref.end(), [](auto& a, auto& b) { return a.first < b.first; });
  auto ko = k_out.get();
  auto vo = v_out.get();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += ko[i] != ref[i].first || vo[i] != ref[i].second;
  CHECK(bad == 0);  // radix_sort_pairs: stable, keys and values

  // Descending float keys, a bit range of all 32 bits.
  std::vector<float> fk(n);
  for (auto& f : fk) f = std::uniform_real_distribution<float>(-1e6f, 1e6f)(rng);
  Dev<float> f_in(fk), f_out(n);
  Temp t2;
  CHECK_HIP(rocprim::radix_sort_keys_desc(nullptr, t2.bytes, f_in.p, f_out.p, n));
  t2.alloc();
  CHECK_HIP(rocprim::radix_sort_keys_desc(t2.p, t2.bytes, f_in.p, f_out.p, n));
  std::sort(fk.begin(), fk.end(), std::greater<float>());
  CHECK(f_out.get() == fk);  // radix_sort_keys_desc of floats
}

void merge_sort() {
  const size_t n = 70001;
  std::vector<int64_t> keys(n);
  for (auto& k : keys) k = int64_t(rng() % 5000) - 2500;
  Dev<int64_t> in(keys), out(n);
  Temp t;
  CHECK_HIP(rocprim::merge_sort(nullptr, t.bytes, in.p, out.p, n));
  t.alloc();
  CHECK_HIP(rocprim::merge_sort(t.p, t.bytes, in.p, out.p, n));
  std::sort(keys.begin(), keys.end());
  CHECK(out.get() == keys);  // merge_sort of 64-bit keys with many duplicates
}

void reduce_and_scan() {
  const size_t n = 1000003;
  std::vector<int> v(n);
  for (auto& x : v) x = int(rng() % 2001) - 1000;
  Dev<int> in(v), scan_out(n);
  Dev<long long> sum(1);
  Temp t;
  CHECK_HIP(rocprim::reduce(nullptr, t.bytes, in.p, sum.p, 0LL, n, rocprim::plus<long long>()));
  t.alloc();
  CHECK_HIP(rocprim::reduce(t.p, t.bytes, in.p, sum.p, 0LL, n, rocprim::plus<long long>()));
  CHECK(sum.one() == std::accumulate(v.begin(), v.end(), 0LL));  // reduce

  Temp t2;
  CHECK_HIP(rocprim::inclusive_scan(nullptr, t2.bytes, in.p, scan_out.p, n, rocprim::plus<int>()));
  t2.alloc();
  CHECK_HIP(rocprim::inclusive_scan(t2.p, t2.bytes, in.p, scan_out.p, n, rocprim::plus<int>()));
  std::vector<int> ref(n);
  std::partial_sum(v.begin(), v.end(), ref.begin());
  CHECK(scan_out.get() == ref);  // inclusive_scan (decoupled look-back across workgroups)

  Temp t3;
  CHECK_HIP(rocprim::exclusive_scan(nullptr, t3.bytes, in.p, scan_out.p, 7, n, rocprim::maximum<int>()));
  t3.alloc();
  CHECK_HIP(rocprim::exclusive_scan(t3.p, t3.bytes, in.p, scan_out.p, 7, n, rocprim::maximum<int>()));
  int run = 7;
  for (size_t i = 0; i < n; ++i) {
    ref[i] = run;
    run = std::max(run, v[i]);
  }
  CHECK(scan_out.get() == ref);  // exclusive_scan with maximum and an initial value
}

void by_key_and_segments() {
  const unsigned n = 200000;
  std::vector<int> keys(n), vals(n);
  int key = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (rng() % 13 == 0) key += 1 + int(rng() % 3);
    keys[i] = key;
    vals[i] = int(rng() % 100);
  }
  Dev<int> k(keys), v(vals), uk(n), agg(n);
  Dev<unsigned> count(1);
  Temp t;
  CHECK_HIP(rocprim::reduce_by_key(nullptr, t.bytes, k.p, v.p, n, uk.p, agg.p, count.p, rocprim::plus<int>()));
  t.alloc();
  CHECK_HIP(rocprim::reduce_by_key(t.p, t.bytes, k.p, v.p, n, uk.p, agg.p, count.p, rocprim::plus<int>()));
  std::vector<int> rk, ra;
  for (unsigned i = 0; i < n; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      rk.push_back(keys[i]);
      ra.push_back(0);
    }
    ra.back() += vals[i];
  }
  unsigned runs = count.one();
  CHECK(runs == rk.size());
  CHECK(uk.get(runs) == rk && agg.get(runs) == ra);  // reduce_by_key

  // Segments: offsets from the same runs, reduced with minimum.
  std::vector<unsigned> begins, ends;
  for (unsigned i = 0; i < n; ++i)
    if (i == 0 || keys[i] != keys[i - 1]) begins.push_back(i);
  for (size_t s = 0; s < begins.size(); ++s) ends.push_back(s + 1 < begins.size() ? begins[s + 1] : n);
  Dev<unsigned> b(begins), e(ends);
  Dev<int> mins(begins.size());
  Temp t2;
  CHECK_HIP(rocprim::segmented_reduce(nullptr, t2.bytes, v.p, mins.p, unsigned(begins.size()), b.p, e.p,
                                      rocprim::minimum<int>(), 1 << 30));
  t2.alloc();
  CHECK_HIP(rocprim::segmented_reduce(t2.p, t2.bytes, v.p, mins.p, unsigned(begins.size()), b.p, e.p,
                                      rocprim::minimum<int>(), 1 << 30));
  std::vector<int> rmin;
  for (size_t s = 0; s < begins.size(); ++s) rmin.push_back(*std::min_element(vals.begin() + begins[s], vals.begin() + ends[s]));
  CHECK(mins.get() == rmin);  // segmented_reduce

  // Run-length encoding of the keys.
  Dev<int> unique(n);
  Dev<unsigned> counts(n), nruns(1);
  Temp t3;
  CHECK_HIP(rocprim::run_length_encode(nullptr, t3.bytes, k.p, n, unique.p, counts.p, nruns.p));
  t3.alloc();
  CHECK_HIP(rocprim::run_length_encode(t3.p, t3.bytes, k.p, n, unique.p, counts.p, nruns.p));
  std::vector<unsigned> rcount;
  for (size_t s = 0; s < begins.size(); ++s) rcount.push_back(ends[s] - begins[s]);
  unsigned got_runs = nruns.one();
  CHECK(got_runs == rk.size() && unique.get(got_runs) == rk && counts.get(got_runs) == rcount);  // run_length_encode
}

struct IsMultipleOf3 {
  __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};

void select_and_histogram() {
  const size_t n = 123457;
  std::vector<int> v(n);
  for (auto& x : v) x = int(rng() % 1000);
  Dev<int> in(v), out(n);
  Dev<unsigned> count(1);
  Temp t;
  CHECK_HIP(rocprim::select(nullptr, t.bytes, in.p, out.p, count.p, n, IsMultipleOf3()));
  t.alloc();
  CHECK_HIP(rocprim::select(t.p, t.bytes, in.p, out.p, count.p, n, IsMultipleOf3()));
  std::vector<int> ref;
  std::copy_if(v.begin(), v.end(), std::back_inserter(ref), IsMultipleOf3());
  unsigned c = count.one();
  CHECK(c == ref.size() && out.get(c) == ref);  // select with a predicate, order kept

  // histogram_even: 10 bins over [0, 1000).
  Dev<unsigned> hist(10);
  Temp t2;
  CHECK_HIP(rocprim::histogram_even(nullptr, t2.bytes, in.p, unsigned(n), hist.p, 11u, 0, 1000));
  t2.alloc();
  CHECK_HIP(rocprim::histogram_even(t2.p, t2.bytes, in.p, unsigned(n), hist.p, 11u, 0, 1000));
  std::vector<unsigned> rh(10);
  for (int x : v) rh[x / 100]++;
  CHECK(hist.get() == rh);  // histogram_even (LDS and global atomics)
}

// Block- and warp-level primitives in a kernel of our own: 256 threads, 4 items each.
constexpr unsigned kBlock = 256, kItems = 4;
__global__ __launch_bounds__(kBlock) void block_kernel(const int* in, int* sorted, int* scanned, int* sums,
                                                       int* warp_sums) {
  using sort_t = rocprim::block_radix_sort<int, kBlock, kItems>;
  using scan_t = rocprim::block_scan<int, kBlock>;
  using reduce_t = rocprim::block_reduce<int, kBlock>;
  using warp_t = rocprim::warp_reduce<int, 64>;
  __shared__ union {
    typename sort_t::storage_type sort;
    typename scan_t::storage_type scan;
    typename reduce_t::storage_type reduce;
  } storage;
  __shared__ typename warp_t::storage_type warp_storage[kBlock / 64];
  const unsigned base = blockIdx.x * kBlock * kItems;
  int items[kItems];
  for (unsigned i = 0; i < kItems; ++i) items[i] = in[base + threadIdx.x * kItems + i];

  int total = 0;
  int one = items[0];
  reduce_t().reduce(one, total, storage.reduce);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
  __syncthreads();

  int wsum = 0;
  warp_t().reduce(items[1], wsum, warp_storage[threadIdx.x / 64]);
  if (threadIdx.x % 64 == 0) warp_sums[blockIdx.x * (kBlock / 64) + threadIdx.x / 64] = wsum;

  int scan[kItems];
  scan_t().inclusive_scan(items, scan, storage.scan);
  __syncthreads();
  for (unsigned i = 0; i < kItems; ++i) scanned[base + threadIdx.x * kItems + i] = scan[i];

  sort_t().sort(items, storage.sort);
  for (unsigned i = 0; i < kItems; ++i) sorted[base + threadIdx.x * kItems + i] = items[i];
}

void block_level() {
  const unsigned blocks = 8, per = kBlock * kItems, n = blocks * per;
  std::vector<int> v(n);
  for (auto& x : v) x = int(rng() % 100000) - 50000;
  Dev<int> in(v), sorted(n), scanned(n), sums(blocks), wsums(blocks * (kBlock / 64));
  hipLaunchKernelGGL(block_kernel, dim3(blocks), dim3(kBlock), 0, 0, in.p, sorted.p, scanned.p, sums.p, wsums.p);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  std::vector<int> rs(v), rscan(n), rsum(blocks), rwarp(blocks * (kBlock / 64));
  for (unsigned b = 0; b < blocks; ++b) {
    std::sort(rs.begin() + b * per, rs.begin() + (b + 1) * per);
    std::partial_sum(v.begin() + b * per, v.begin() + (b + 1) * per, rscan.begin() + b * per);
    for (unsigned t = 0; t < kBlock; ++t) {
      rsum[b] += v[b * per + t * kItems];
      rwarp[b * (kBlock / 64) + t / 64] += v[b * per + t * kItems + 1];
    }
  }
  CHECK(sorted.get() == rs);     // block_radix_sort
  CHECK(scanned.get() == rscan);  // block_scan (blocked arrangement)
  CHECK(sums.get() == rsum);     // block_reduce
  CHECK(wsums.get() == rwarp);   // warp_reduce over 64 lanes
}

}  // namespace

int main() {
  radix_sort();
  merge_sort();
  reduce_and_scan();
  by_key_and_segments();
  select_and_histogram();
  block_level();
  return check::summary();
}
