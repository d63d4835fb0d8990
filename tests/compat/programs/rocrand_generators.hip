// SPDX-License-Identifier: MIT
// AMD's rocRAND (Debian's librocrand1, a prebuilt library with its own gfx90a kernels, linked
// against libamdhip64.so.5) on kfdrt: its generators' kernels launched by a library no one here
// wrote, checked against known answers computed on the host (Philox4x32-10 from its published
// definition, Sobol's first dimension from its construction) and by the distributions' moments.
#include <hip/hip_runtime.h>
#include <rocrand/rocrand.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "check.h"

#define CHECK_RAND(expr) ::check::expect((expr) == ROCRAND_STATUS_SUCCESS, #expr, __FILE__, __LINE__)

namespace {

// Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011): ten rounds of two 32x32->64 multiplications, the key bumped by the Weyl constants.
void philox4x32_10(uint32_t counter, uint32_t key_lo, uint32_t key_hi, uint32_t out[4]) {
  uint32_t c[4] = {counter, 0, 0, 0}, k[2] = {key_lo, key_hi};
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c[1] ^ k[0], n2 = uint32_t(p0 >> 32) ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = uint32_t(p1);
    c[2] = n2;
    c[3] = uint32_t(p0);
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  for (int i = 0; i < 4; ++i) out[i] = c[i];
}

// Sobol's first dimension: the i-th point in Gray-code order is the bit reversal of i ^ (i >> 1).
uint32_t sobol_dim1(uint32_t i) {
  const uint32_t g = i ^ (i >> 1);
  uint32_t r = 0;
  for (int b = 0; b < 32; ++b)
    if ((g >> b) & 1) r |= 1u << (31 - b);
  return r;
}

const size_t kN = size_t{1} << 20;

template <class T>
std::vector<T> fetch(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK_HIP(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  return h;
}

void philox_known_answers(unsigned* d, hipStream_t stream) {
  rocrand_generator g;
  CHECK_RAND(rocrand_create_generator(&g, ROCRAND_RNG_PSEUDO_PHILOX4_32_10));
  CHECK_RAND(rocrand_set_stream(g, stream));
  CHECK_RAND(rocrand_set_seed(g, 0x1234567800abcdefull));
  CHECK_RAND(rocrand_generate(g, d, kN));
  CHECK_HIP(hipStreamSynchronize(stream));
  auto h = fetch(d, kN);
  size_t bad = 0;
  for (uint32_t j = 0; j < kN / 4; ++j) {
    uint32_t want[4];
    philox4x32_10(j, 0x00abcdefu, 0x12345678u, want);
    for (int m = 0; m < 4; ++m) bad += h[4 * j + m] != want[m];
  }
  if (bad) std::printf("  philox: %zu of %zu outputs differ from the reference\n", bad, kN);
  CHECK(bad == 0);  // Philox4x32-10: output 4j+m is word m of the block for counter j

  // An offset skips whole outputs: 4000 outputs in, the block of counter 1000.
  CHECK_RAND(rocrand_set_offset(g, 4000));
  CHECK_RAND(rocrand_generate(g, d, 4096));
  CHECK_HIP(hipStreamSynchronize(stream));
  h = fetch(d, 4096);
  bad = 0;
  for (uint32_t j = 0; j < 1024; ++j) {
    uint32_t want[4];
    philox4x32_10(1000 + j, 0x00abcdefu, 0x12345678u, want);
    for (int m = 0; m < 4; ++m) bad += h[4 * j + m] != want[m];
  }
  CHECK(bad == 0);  // rocrand_set_offset
  CHECK_RAND(rocrand_destroy_generator(g));
}

void sobol_known_answers(unsigned* d) {
  rocrand_generator g;
  CHECK_RAND(rocrand_create_generator(&g, ROCRAND_RNG_QUASI_SOBOL32));
  CHECK_RAND(rocrand_generate(g, d, kN));
  auto h = fetch(d, kN);
  size_t bad = 0;
  for (uint32_t i = 0; i < kN; ++i) bad += h[i] != sobol_dim1(i);
  CHECK(bad == 0);  // Sobol32, one dimension: the van der Corput sequence in Gray-code order
  CHECK_RAND(rocrand_destroy_generator(g));
}

// Mean and variance of normal(2, 3) samples and the mean of Poisson(4) draws, per generator:
// with 2^20 samples the means' standard errors are 0.003 and 0.002.
void moments(rocrand_rng_type type, const char* name, float* f, unsigned* u) {
  rocrand_generator g;
  CHECK_RAND(rocrand_create_generator(&g, type));
  if (type != ROCRAND_RNG_QUASI_SOBOL32) CHECK_RAND(rocrand_set_seed(g, 42));
  CHECK_RAND(rocrand_generate_normal(g, f, kN, 2.0f, 3.0f));
  auto h = fetch(f, kN);
  double m = 0, v = 0;
  for (float x : h) m += x;
  m /= kN;
  for (float x : h) v += (x - m) * (x - m);
  v /= kN - 1;
  std::printf("  %s: normal(2, 3) mean %.4f, standard deviation %.4f\n", name, m, std::sqrt(v));
  CHECK(std::fabs(m - 2.0) < 0.02 && std::fabs(std::sqrt(v) - 3.0) < 0.02);
  CHECK_RAND(rocrand_generate_poisson(g, u, kN, 4.0));
  auto p = fetch(u, kN);
  double pm = 0;
  for (unsigned x : p) pm += x;
  pm /= kN;
  std::printf("  %s: Poisson(4) mean %.4f\n", name, pm);
  CHECK(std::fabs(pm - 4.0) < 0.02);
  CHECK_RAND(rocrand_destroy_generator(g));
}

}  // namespace

int main() {
  unsigned* d = nullptr;
  float* f = nullptr;
  hipStream_t stream;
  CHECK_HIP(hipMalloc(&d, kN * sizeof(unsigned)));
  CHECK_HIP(hipMalloc(&f, kN * sizeof(float)));
  CHECK_HIP(hipStreamCreate(&stream));
  philox_known_answers(d, stream);
  sobol_known_answers(d);
  moments(ROCRAND_RNG_PSEUDO_XORWOW, "XORWOW", f, d);
  moments(ROCRAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a", f, d);
  moments(ROCRAND_RNG_PSEUDO_MTGP32, "MTGP32", f, d);
  moments(ROCRAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10", f, d);
  moments(ROCRAND_RNG_QUASI_SOBOL32, "Sobol32", f, d);
  // A bad argument comes back as rocRAND's error, not a crash.
  rocrand_generator g;
  CHECK(rocrand_create_generator(&g, static_cast<rocrand_rng_type>(12345)) == ROCRAND_STATUS_TYPE_ERROR);
  CHECK_HIP(hipStreamDestroy(stream));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipFree(f));
  return check::summary();
}
