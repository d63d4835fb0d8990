// SPDX-License-Identifier: MIT
// hc test: every hc atomic on global memory and on tile_static (LDS) memory, with values checked on the host.
#include "hc_check.hpp"

#include <vector>

using hc_test::check;

constexpr int kItems = 1024;  // work-items per test; tiles of 256 for the LDS variants

// Indices of the results array.
enum { ADD, SUB, AND_, OR_, XOR_, MAX_, MIN_, INC, DEC, XCHG, CAS, FADD, UADD, I64ADD, U64MAX, kOps };

// Applies every atomic once per work-item to the cells `r` (global or LDS).
__device__ inline void apply_all(int* r, unsigned* u, float* f, long long* l, unsigned long long* ul, int i) {
  hc::atomic_fetch_add(&r[ADD], 2);
  hc::atomic_fetch_sub(&r[SUB], 3);
  hc::atomic_fetch_and(&r[AND_], ~(1 << (i % 31)));
  hc::atomic_fetch_or(&r[OR_], 1 << (i % 31));
  hc::atomic_fetch_xor(&r[XOR_], i);
  hc::atomic_fetch_max(&r[MAX_], i * 3 - 100);
  hc::atomic_fetch_min(&r[MIN_], 500 - i);
  hc::atomic_fetch_inc(&u[0]);
  hc::atomic_fetch_dec(&u[1]);
  hc::atomic_exchange(&r[XCHG], i + 1);
  int expected = r[CAS];  // increment via a CAS loop
  while (!hc::atomic_compare_exchange(&r[CAS], &expected, expected + 1)) {
  }
  hc::atomic_fetch_add(f, 0.5f);
  hc::atomic_fetch_add(&u[2], 5u);
  hc::atomic_fetch_add(l, 1ll << 33);
  hc::atomic_fetch_max(ul, static_cast<unsigned long long>(i) << 40);
}

// Trivially constructible, so it can be a tile_static variable.
struct cells {
  int r[kOps];
  unsigned u[3];
  float f;
  long long l;
  unsigned long long ul;
};

void init(cells& c) {
  c = cells{};
  c.r[AND_] = -1;
  c.r[MAX_] = -1000000;
  c.r[MIN_] = 1000000;
  c.u[1] = 5000;
}

void verify(const cells& c, int n, const std::string& where) {
  int x = 0;
  for (int i = 0; i < n; ++i) x ^= i;
  check(c.r[ADD] == 2 * n, where + " atomic_fetch_add");
  check(c.r[SUB] == -3 * n, where + " atomic_fetch_sub");
  check(c.r[AND_] == (n >= 31 ? static_cast<int>(0x80000000u) : c.r[AND_]), where + " atomic_fetch_and");
  check(c.r[OR_] == (n >= 31 ? 0x7fffffff : c.r[OR_]), where + " atomic_fetch_or");
  check(c.r[XOR_] == x, where + " atomic_fetch_xor");
  check(c.r[MAX_] == (n - 1) * 3 - 100, where + " atomic_fetch_max");
  check(c.r[MIN_] == 500 - (n - 1), where + " atomic_fetch_min");
  check(c.u[0] == static_cast<unsigned>(n), where + " atomic_fetch_inc");
  check(c.u[1] == 5000u - n, where + " atomic_fetch_dec");
  check(c.r[XCHG] >= 1 && c.r[XCHG] <= n, where + " atomic_exchange leaves one work-item's value");
  check(c.r[CAS] == n, where + " atomic_compare_exchange loop counts every work-item");
  check(c.f == 0.5f * n, where + " atomic_fetch_add on float");
  check(c.u[2] == 5u * n, where + " atomic_fetch_add on unsigned");
  check(c.l == static_cast<long long>(n) << 33, where + " atomic_fetch_add on 64-bit");
  check(c.ul == static_cast<unsigned long long>(n - 1) << 40, where + " atomic_fetch_max on unsigned 64-bit");
}

void global_atomics() {
  cells h;
  init(h);
  cells* d = nullptr;
  (void)hipMalloc(reinterpret_cast<void**>(&d), sizeof(cells));
  (void)hipMemcpy(d, &h, sizeof(cells), hipMemcpyHostToDevice);
  hc::parallel_for_each(hc::extent<1>(kItems), [=](hc::index<1> i) {
    apply_all(d->r, d->u, &d->f, &d->l, &d->ul, i[0]);
  }).wait();
  (void)hipMemcpy(&h, d, sizeof(cells), hipMemcpyDeviceToHost);
  (void)hipFree(d);
  verify(h, kItems, "global");
}

void lds_atomics() {
  // Each 256-item tile works on its own LDS copy, then work-item 0 stores it.
  const int tiles = kItems / 256;
  std::vector<cells> out(tiles);
  hc::array_view<cells, 1> v(tiles, out);
  cells init_cells;
  init(init_cells);
  hc::parallel_for_each(hc::extent<1>(kItems).tile(256), [=](hc::tiled_index<1> t) {
    tile_static cells c;
    if (t.local[0] == 0) c = init_cells;
    t.barrier.wait();
    apply_all(c.r, c.u, &c.f, &c.l, &c.ul, t.local[0]);
    t.barrier.wait();
    if (t.local[0] == 0) v[t.tile] = c;
  }).wait();
  for (int k = 0; k < tiles; ++k) verify(v[k], 256, "tile_static[" + std::to_string(k) + "]");
}

int main() {
  hc_test::run("global", global_atomics);
  hc_test::run("lds", lds_atomics);
  return hc_test::finish();
}
