// SPDX-License-Identifier: MIT
// AMD's rocSPARSE (Debian's librocsparse0, a prebuilt library with its own gfx90a kernels, linked
// against libamdhip64.so.5) on kfdrt: a library no one here wrote launching its kernels, each
// routine's result checked against the same operation computed on the host. The routines were
// picked for what they ask of a GPU: the triangular solve and the incomplete LU spin on other
// waves' progress flags through device-scope atomics; the adaptive sparse matrix-vector product,
// the sparse matrix product, the sum and the transposition use rocPRIM's scans and sorts; the
// tridiagonal solver works in LDS behind barriers; the rest are plain gathers and reductions.
#include <hip/hip_runtime.h>
#include <rocsparse/rocsparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "check.h"

#define CHECK_SP(expr) ::check::expect((expr) == rocsparse_status_success, #expr, __FILE__, __LINE__)

namespace {

using I = rocsparse_int;

// A sparse matrix in CSR form with sorted columns, on the host.
struct Csr {
  I m = 0, n = 0;
  std::vector<I> ptr, col;
  std::vector<double> val;
  I nnz() const { return I(col.size()); }
};

// m x n, about `per_row` entries a row at random columns; a square matrix gets a dominant diagonal
// (so the triangular solves and the incomplete LU are well conditioned); `lower` keeps col <= row;
// every `long_every`-th row (if any) has `long_len` entries.
Csr random_csr(I m, I n, int per_row, bool lower, uint32_t seed, I long_every = 0, int long_len = 0) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<I> pick(0, n - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Csr a;
  a.m = m;
  a.n = n;
  a.ptr.push_back(0);
  for (I i = 0; i < m; ++i) {
    std::map<I, double> row;
    const int len = long_every && i % long_every == long_every - 1 ? long_len : per_row;
    for (int e = 0; e < len; ++e) {
      I j = pick(rng);
      if (lower && j > i) j = i ? j % i : 0;
      row[j] = value(rng);
    }
    if (m == n) row[i] = per_row + 1.0 + value(rng);
    for (auto& [j, v] : row) {
      a.col.push_back(j);
      a.val.push_back(v);
    }
    a.ptr.push_back(I(a.col.size()));
  }
  return a;
}

std::vector<double> host_spmv(const Csr& a, const std::vector<double>& x, double alpha, double beta,
                              std::vector<double> y) {
  for (I i = 0; i < a.m; ++i) {
    double s = 0;
    for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) s += a.val[k] * x[a.col[k]];
    y[i] = alpha * s + beta * y[i];
  }
  return y;
}

Csr host_spgemm(const Csr& a, const Csr& b) {
  Csr c;
  c.m = a.m;
  c.n = b.n;
  c.ptr.push_back(0);
  for (I i = 0; i < a.m; ++i) {
    std::map<I, double> row;
    for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
      for (I q = b.ptr[a.col[k]]; q < b.ptr[a.col[k] + 1]; ++q) row[b.col[q]] += a.val[k] * b.val[q];
    for (auto& [j, v] : row) {
      c.col.push_back(j);
      c.val.push_back(v);
    }
    c.ptr.push_back(I(c.col.size()));
  }
  return c;
}

// ILU(0) in the i-k-j order on the matrix's own pattern (Saad, Iterative Methods, alg. 10.4).
std::vector<double> host_ilu0(const Csr& a) {
  std::vector<double> v = a.val;
  std::vector<I> where(a.n, -1);
  for (I i = 0; i < a.m; ++i) {
    for (I q = a.ptr[i]; q < a.ptr[i + 1]; ++q) where[a.col[q]] = q;
    for (I p = a.ptr[i]; p < a.ptr[i + 1] && a.col[p] < i; ++p) {
      const I k = a.col[p];
      I diag = -1;
      for (I q = a.ptr[k]; q < a.ptr[k + 1]; ++q)
        if (a.col[q] == k) diag = q;
      v[p] /= v[diag];
      for (I q = a.ptr[k]; q < a.ptr[k + 1]; ++q)
        if (a.col[q] > k && where[a.col[q]] >= 0) v[where[a.col[q]]] -= v[p] * v[q];
    }
    for (I q = a.ptr[i]; q < a.ptr[i + 1]; ++q) where[a.col[q]] = -1;
  }
  return v;
}

// Largest difference relative to the larger of 1 and the reference's magnitude.
double max_rel_err(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i])));
  return worst;
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  CHECK_HIP(hipMalloc(&d, std::max<size_t>(1, h.size()) * sizeof(T)));
  if (!h.empty()) CHECK_HIP(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  if (n) CHECK_HIP(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  return h;
}

struct DevCsr {
  I *ptr = nullptr, *col = nullptr;
  double* val = nullptr;
  explicit DevCsr(const Csr& a) : ptr(upload(a.ptr)), col(upload(a.col)), val(upload(a.val)) {}
  ~DevCsr() {
    (void)hipFree(ptr);
    (void)hipFree(col);
    (void)hipFree(val);
  }
};

void* scratch(size_t bytes) {
  void* p = nullptr;
  CHECK_HIP(hipMalloc(&p, std::max<size_t>(bytes, 4)));
  return p;
}

double* scratch_doubles(size_t n) { return static_cast<double*>(scratch(n * sizeof(double))); }

const I kN = 20000;

void spmv(rocsparse_handle h, rocsparse_mat_descr descr) {
  // Some rows of thousands of entries: the adaptive kernel gives a long row several workgroups,
  // which add their parts with atomics.
  const Csr a = random_csr(kN, kN, 12, false, 1, 1000, 6000);
  std::vector<double> x(kN), y0(kN);
  for (I i = 0; i < kN; ++i) {
    x[i] = std::sin(0.01 * i);
    y0[i] = std::cos(0.03 * i);
  }
  DevCsr d(a);
  double *dx = upload(x), *dy = upload(y0);
  rocsparse_mat_info info;
  CHECK_SP(rocsparse_create_mat_info(&info));
  const double alpha = 1.5, beta = -0.5;
  // Without analysis rocSPARSE runs its row-per-wave kernel; with it, the adaptive (CSR-adaptive)
  // one, whose row blocks a scan of the row pointers builds.
  CHECK_SP(rocsparse_dcsrmv(h, rocsparse_operation_none, kN, kN, a.nnz(), &alpha, descr, d.val, d.ptr,
                            d.col, nullptr, dx, &beta, dy));
  const auto want = host_spmv(a, x, alpha, beta, y0);
  double err = max_rel_err(download(dy, kN), want);
  if (err > 1e-12) std::printf("  csrmv: max relative error %g\n", err);
  CHECK(err <= 1e-12);  // rocsparse_dcsrmv (row-per-wave)

  CHECK_SP(rocsparse_dcsrmv_analysis(h, rocsparse_operation_none, kN, kN, a.nnz(), descr, d.val, d.ptr,
                                     d.col, info));
  CHECK_HIP(hipMemcpy(dy, y0.data(), kN * sizeof(double), hipMemcpyHostToDevice));
  CHECK_SP(rocsparse_dcsrmv(h, rocsparse_operation_none, kN, kN, a.nnz(), &alpha, descr, d.val, d.ptr,
                            d.col, info, dx, &beta, dy));
  err = max_rel_err(download(dy, kN), want);
  if (err > 1e-12) std::printf("  csrmv adaptive: max relative error %g\n", err);
  CHECK(err <= 1e-12);  // rocsparse_dcsrmv after rocsparse_dcsrmv_analysis (adaptive)

  // The transposed product reads the same arrays by column, scattering with atomic adds.
  std::vector<double> zero(kN, 0.0);
  CHECK_HIP(hipMemcpy(dy, zero.data(), kN * sizeof(double), hipMemcpyHostToDevice));
  const double one = 1.0, nought = 0.0;
  CHECK_SP(rocsparse_dcsrmv(h, rocsparse_operation_transpose, kN, kN, a.nnz(), &one, descr, d.val, d.ptr,
                            d.col, nullptr, dx, &nought, dy));
  std::vector<double> want_t(kN, 0.0);
  for (I i = 0; i < kN; ++i)
    for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) want_t[a.col[k]] += a.val[k] * x[i];
  err = max_rel_err(download(dy, kN), want_t);
  if (err > 1e-12) std::printf("  csrmv transposed: max relative error %g\n", err);
  CHECK(err <= 1e-12);  // rocsparse_dcsrmv, transposed

  CHECK_SP(rocsparse_destroy_mat_info(info));
  (void)hipFree(dx);
  (void)hipFree(dy);
}

void triangular_solve(rocsparse_handle h) {
  const Csr l = random_csr(kN, kN, 6, true, 2);
  std::vector<double> b(kN);
  for (I i = 0; i < kN; ++i) b[i] = 1.0 + (i % 7);
  // Forward substitution on the host.
  std::vector<double> want(kN);
  for (I i = 0; i < kN; ++i) {
    double s = b[i], diag = 0;
    for (I k = l.ptr[i]; k < l.ptr[i + 1]; ++k) {
      if (l.col[k] == i)
        diag = l.val[k];
      else
        s -= l.val[k] * want[l.col[k]];
    }
    want[i] = s / diag;
  }
  rocsparse_mat_descr descr;
  CHECK_SP(rocsparse_create_mat_descr(&descr));
  CHECK_SP(rocsparse_set_mat_fill_mode(descr, rocsparse_fill_mode_lower));
  rocsparse_mat_info info;
  CHECK_SP(rocsparse_create_mat_info(&info));
  DevCsr d(l);
  double *db = upload(b), *dx = scratch_doubles(kN);
  size_t bytes = 0;
  CHECK_SP(rocsparse_dcsrsv_buffer_size(h, rocsparse_operation_none, kN, l.nnz(), descr, d.val, d.ptr,
                                        d.col, info, &bytes));
  void* buf = scratch(bytes);
  CHECK_SP(rocsparse_dcsrsv_analysis(h, rocsparse_operation_none, kN, l.nnz(), descr, d.val, d.ptr, d.col,
                                     info, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buf));
  I pivot = -2;
  CHECK(rocsparse_csrsv_zero_pivot(h, descr, info, &pivot) == rocsparse_status_success && pivot == -1);
  const double one = 1.0;
  CHECK_SP(rocsparse_dcsrsv_solve(h, rocsparse_operation_none, kN, l.nnz(), &one, descr, d.val, d.ptr,
                                  d.col, info, db, dx, rocsparse_solve_policy_auto, buf));
  double err = max_rel_err(download(dx, kN), want);
  if (err > 1e-10) std::printf("  csrsv: max relative error %g\n", err);
  CHECK(err <= 1e-10);  // rocsparse_dcsrsv_solve (lower, waves wait on the rows they depend on)

  // The transposed solve (L^T x = b, an upper triangular system read by columns): back
  // substitution on the host.
  std::vector<double> want_t = b;
  for (I i = kN - 1; i >= 0; --i) {
    double diag = 0;
    for (I k = l.ptr[i]; k < l.ptr[i + 1]; ++k)
      if (l.col[k] == i) diag = l.val[k];
    want_t[i] /= diag;
    for (I k = l.ptr[i]; k < l.ptr[i + 1]; ++k)
      if (l.col[k] != i) want_t[l.col[k]] -= l.val[k] * want_t[i];
  }
  rocsparse_mat_info info_t;
  CHECK_SP(rocsparse_create_mat_info(&info_t));
  size_t bytes_t = 0;
  CHECK_SP(rocsparse_dcsrsv_buffer_size(h, rocsparse_operation_transpose, kN, l.nnz(), descr, d.val, d.ptr,
                                        d.col, info_t, &bytes_t));
  void* buf_t = scratch(bytes_t);
  CHECK_SP(rocsparse_dcsrsv_analysis(h, rocsparse_operation_transpose, kN, l.nnz(), descr, d.val, d.ptr, d.col,
                                     info_t, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buf_t));
  CHECK_SP(rocsparse_dcsrsv_solve(h, rocsparse_operation_transpose, kN, l.nnz(), &one, descr, d.val, d.ptr,
                                  d.col, info_t, db, dx, rocsparse_solve_policy_auto, buf_t));
  err = max_rel_err(download(dx, kN), want_t);
  if (err > 1e-10) std::printf("  csrsv transposed: max relative error %g\n", err);
  CHECK(err <= 1e-10);  // rocsparse_dcsrsv_solve (L^T, transposed)
  CHECK_SP(rocsparse_csrsv_clear(h, descr, info_t));
  CHECK_SP(rocsparse_destroy_mat_info(info_t));
  (void)hipFree(buf_t);

  CHECK_SP(rocsparse_csrsv_clear(h, descr, info));
  CHECK_SP(rocsparse_destroy_mat_info(info));
  CHECK_SP(rocsparse_destroy_mat_descr(descr));
  (void)hipFree(buf);
  (void)hipFree(db);
  (void)hipFree(dx);
}

void incomplete_lu(rocsparse_handle h, rocsparse_mat_descr descr) {
  const Csr a = random_csr(kN, kN, 5, false, 3);
  rocsparse_mat_info info;
  CHECK_SP(rocsparse_create_mat_info(&info));
  DevCsr d(a);
  size_t bytes = 0;
  CHECK_SP(rocsparse_dcsrilu0_buffer_size(h, kN, a.nnz(), descr, d.val, d.ptr, d.col, info, &bytes));
  void* buf = scratch(bytes);
  CHECK_SP(rocsparse_dcsrilu0_analysis(h, kN, a.nnz(), descr, d.val, d.ptr, d.col, info,
                                       rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buf));
  CHECK_SP(rocsparse_dcsrilu0(h, kN, a.nnz(), descr, d.val, d.ptr, d.col, info, rocsparse_solve_policy_auto,
                              buf));
  I pivot = -2;
  CHECK(rocsparse_csrilu0_zero_pivot(h, info, &pivot) == rocsparse_status_success && pivot == -1);
  const double err = max_rel_err(download(d.val, a.nnz()), host_ilu0(a));
  if (err > 1e-10) std::printf("  csrilu0: max relative error %g\n", err);
  CHECK(err <= 1e-10);  // rocsparse_dcsrilu0
  CHECK_SP(rocsparse_csrilu0_clear(h, info));
  CHECK_SP(rocsparse_destroy_mat_info(info));
  (void)hipFree(buf);
}

void transpose(rocsparse_handle h) {
  const Csr a = random_csr(2000, 3500, 9, false, 4);
  DevCsr d(a);
  size_t bytes = 0;
  CHECK_SP(rocsparse_csr2csc_buffer_size(h, a.m, a.n, a.nnz(), d.ptr, d.col, rocsparse_action_numeric,
                                         &bytes));
  void* buf = scratch(bytes);
  double* cval = scratch_doubles(a.nnz());
  I *crow = nullptr, *cptr = nullptr;
  CHECK_HIP(hipMalloc(&crow, a.nnz() * sizeof(I)));
  CHECK_HIP(hipMalloc(&cptr, (a.n + 1) * sizeof(I)));
  CHECK_SP(rocsparse_dcsr2csc(h, a.m, a.n, a.nnz(), d.val, d.ptr, d.col, cval, crow, cptr,
                              rocsparse_action_numeric, rocsparse_index_base_zero, buf));
  // The host's transpose: CSC of A is CSR of A^T, rows in order within each column.
  std::vector<I> want_ptr(a.n + 1, 0), want_row(a.nnz());
  std::vector<double> want_val(a.nnz());
  for (I k = 0; k < a.nnz(); ++k) ++want_ptr[a.col[k] + 1];
  for (I j = 0; j < a.n; ++j) want_ptr[j + 1] += want_ptr[j];
  std::vector<I> next(want_ptr.begin(), want_ptr.end() - 1);
  for (I i = 0; i < a.m; ++i)
    for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
      want_row[next[a.col[k]]] = i;
      want_val[next[a.col[k]]++] = a.val[k];
    }
  CHECK(download(cptr, a.n + 1) == want_ptr);  // rocsparse_dcsr2csc column pointers
  CHECK(download(crow, a.nnz()) == want_row);  // rocsparse_dcsr2csc row indices
  CHECK(download(cval, a.nnz()) == want_val);  // rocsparse_dcsr2csc values
  (void)hipFree(buf);
  (void)hipFree(cval);
  (void)hipFree(crow);
  (void)hipFree(cptr);
}

void sparse_product(rocsparse_handle h, rocsparse_mat_descr descr) {
  // Rows of very different lengths, so the product's rows fall into several of rocSPARSE's bins.
  // (every 100th row of A has 400 entries, and its row of C nearly all of C's 1500 columns).
  const Csr a = random_csr(1200, 900, 4, false, 5, 100, 400);
  const Csr b = random_csr(900, 1500, 7, false, 6);
  const Csr want = host_spgemm(a, b);
  DevCsr da(a), db(b);
  rocsparse_mat_info info;
  CHECK_SP(rocsparse_create_mat_info(&info));
  const double alpha = 1.0;
  size_t bytes = 0;
  CHECK_SP(rocsparse_dcsrgemm_buffer_size(h, rocsparse_operation_none, rocsparse_operation_none, a.m, b.n,
                                          a.n, &alpha, descr, a.nnz(), da.ptr, da.col, descr, b.nnz(), db.ptr,
                                          db.col, nullptr, nullptr, 0, nullptr, nullptr, info, &bytes));
  void* buf = scratch(bytes);
  I* cptr = nullptr;
  CHECK_HIP(hipMalloc(&cptr, (a.m + 1) * sizeof(I)));
  I nnz_c = -1;
  CHECK_SP(rocsparse_csrgemm_nnz(h, rocsparse_operation_none, rocsparse_operation_none, a.m, b.n, a.n, descr,
                                 a.nnz(), da.ptr, da.col, descr, b.nnz(), db.ptr, db.col, nullptr, 0, nullptr,
                                 nullptr, descr, cptr, &nnz_c, info, buf));
  CHECK(nnz_c == want.nnz());  // rocsparse_csrgemm_nnz
  I* ccol = nullptr;
  CHECK_HIP(hipMalloc(&ccol, std::max<I>(nnz_c, 1) * sizeof(I)));
  double* cval = scratch_doubles(std::max<I>(nnz_c, 1));
  CHECK_SP(rocsparse_dcsrgemm(h, rocsparse_operation_none, rocsparse_operation_none, a.m, b.n, a.n, &alpha,
                              descr, a.nnz(), da.val, da.ptr, da.col, descr, b.nnz(), db.val, db.ptr, db.col,
                              nullptr, nullptr, 0, nullptr, nullptr, nullptr, descr, cval, cptr, ccol, info, buf));
  if (nnz_c == want.nnz()) {
    CHECK(download(cptr, a.m + 1) == want.ptr);  // rocsparse_dcsrgemm row pointers
    CHECK(download(ccol, nnz_c) == want.col);    // rocsparse_dcsrgemm columns, sorted in each row
    const double err = max_rel_err(download(cval, nnz_c), want.val);
    if (err > 1e-12) std::printf("  csrgemm: max relative error %g\n", err);
    CHECK(err <= 1e-12);  // rocsparse_dcsrgemm values
  }
  CHECK_SP(rocsparse_destroy_mat_info(info));
  (void)hipFree(buf);
  (void)hipFree(cptr);
  (void)hipFree(ccol);
  (void)hipFree(cval);
}

void dense_conversions(rocsparse_handle h, rocsparse_mat_descr descr) {
  // A column-major m x n dense matrix with about one entry in five non-zero.
  const I m = 700, n = 300, ld = m + 3;
  std::mt19937 rng(7);
  std::vector<double> dense(size_t(ld) * n, 0.0);
  for (I j = 0; j < n; ++j)
    for (I i = 0; i < m; ++i)
      if (rng() % 5 == 0) dense[size_t(j) * ld + i] = double(rng() % 1000) - 500.0;
  std::vector<I> want_rows(m, 0);
  Csr want;
  want.ptr.push_back(0);
  for (I i = 0; i < m; ++i) {
    for (I j = 0; j < n; ++j)
      if (dense[size_t(j) * ld + i] != 0.0) {
        want.col.push_back(j);
        want.val.push_back(dense[size_t(j) * ld + i]);
        ++want_rows[i];
      }
    want.ptr.push_back(I(want.col.size()));
  }
  double* da = upload(dense);
  I* per_row = nullptr;
  CHECK_HIP(hipMalloc(&per_row, m * sizeof(I)));
  I total = -1;
  CHECK_SP(rocsparse_dnnz(h, rocsparse_direction_row, m, n, descr, da, ld, per_row, &total));
  CHECK(total == want.nnz());                   // rocsparse_dnnz total
  CHECK(download(per_row, m) == want_rows);     // rocsparse_dnnz per row
  double* val = scratch_doubles(want.nnz());
  I *ptr = nullptr, *col = nullptr;
  CHECK_HIP(hipMalloc(&ptr, (m + 1) * sizeof(I)));
  CHECK_HIP(hipMalloc(&col, want.nnz() * sizeof(I)));
  CHECK_SP(rocsparse_ddense2csr(h, m, n, descr, da, ld, per_row, val, ptr, col));
  CHECK(download(ptr, m + 1) == want.ptr);      // rocsparse_ddense2csr row pointers
  CHECK(download(col, want.nnz()) == want.col);  // rocsparse_ddense2csr columns
  CHECK(download(val, want.nnz()) == want.val);  // rocsparse_ddense2csr values
  (void)hipFree(da);
  (void)hipFree(per_row);
  (void)hipFree(val);
  (void)hipFree(ptr);
  (void)hipFree(col);
}

void level1(rocsparse_handle h) {
  // A sparse vector of 20000 entries at distinct sorted positions of a 100000-long dense one.
  const I len = 100000, nnz = 20000;
  std::vector<I> ind(nnz);
  for (I k = 0; k < nnz; ++k) ind[k] = 5 * k + (k % 5);
  std::vector<double> xval(nnz), y(len);
  for (I k = 0; k < nnz; ++k) xval[k] = 0.25 * (k % 17) - 2.0;
  for (I i = 0; i < len; ++i) y[i] = std::sin(0.001 * i);
  I* dind = upload(ind);
  double *dxval = upload(xval), *dy = upload(y), *dg = scratch_doubles(nnz);
  CHECK_SP(rocsparse_dgthr(h, nnz, dy, dg, dind, rocsparse_index_base_zero));
  std::vector<double> want_g(nnz);
  for (I k = 0; k < nnz; ++k) want_g[k] = y[ind[k]];
  CHECK(download(dg, nnz) == want_g);  // rocsparse_dgthr

  double dot = 0, want_dot = 0;
  for (I k = 0; k < nnz; ++k) want_dot += xval[k] * y[ind[k]];
  CHECK_SP(rocsparse_ddoti(h, nnz, dxval, dind, dy, &dot, rocsparse_index_base_zero));
  if (std::fabs(dot - want_dot) > 1e-9 * std::max(1.0, std::fabs(want_dot)))
    std::printf("  doti: %.17g, want %.17g\n", dot, want_dot);
  CHECK(std::fabs(dot - want_dot) <= 1e-9 * std::max(1.0, std::fabs(want_dot)));  // rocsparse_ddoti

  const double alpha = -3.0;
  CHECK_SP(rocsparse_daxpyi(h, nnz, &alpha, dxval, dind, dy, rocsparse_index_base_zero));
  std::vector<double> want_y = y;
  for (I k = 0; k < nnz; ++k) want_y[ind[k]] += alpha * xval[k];
  CHECK(download(dy, len) == want_y);  // rocsparse_daxpyi
  (void)hipFree(dind);
  (void)hipFree(dxval);
  (void)hipFree(dy);
  (void)hipFree(dg);
}

void tridiagonal(rocsparse_handle h) {
  // m equations, n right-hand sides side by side (column-major, ldb = m); diagonally dominant.
  const I m = 4096, n = 4;
  std::vector<double> dl(m), dd(m), du(m), rhs(size_t(m) * n);
  for (I i = 0; i < m; ++i) {
    dl[i] = i ? -1.0 + 0.001 * (i % 7) : 0.0;  // dl[0] and du[m-1] are outside the matrix: zero
    du[i] = i + 1 < m ? -1.0 - 0.002 * (i % 5) : 0.0;
    dd[i] = 4.0 + std::sin(0.1 * i);
  }
  for (size_t k = 0; k < rhs.size(); ++k) rhs[k] = std::cos(0.37 * double(k));
  // The Thomas algorithm per right-hand side.
  std::vector<double> want = rhs;
  for (I c = 0; c < n; ++c) {
    double* x = want.data() + size_t(c) * m;
    std::vector<double> cp(m);
    cp[0] = du[0] / dd[0];
    x[0] /= dd[0];
    for (I i = 1; i < m; ++i) {
      const double den = dd[i] - dl[i] * cp[i - 1];
      cp[i] = du[i] / den;
      x[i] = (x[i] - dl[i] * x[i - 1]) / den;
    }
    for (I i = m - 2; i >= 0; --i) x[i] -= cp[i] * x[i + 1];
  }
  double *ddl = upload(dl), *ddd = upload(dd), *ddu = upload(du), *db = upload(rhs);
  size_t bytes = 0;
  CHECK_SP(rocsparse_dgtsv_buffer_size(h, m, n, ddl, ddd, ddu, db, m, &bytes));
  void* buf = scratch(bytes);
  CHECK_SP(rocsparse_dgtsv(h, m, n, ddl, ddd, ddu, db, m, buf));
  const double err = max_rel_err(download(db, rhs.size()), want);
  if (err > 1e-10) std::printf("  gtsv: max relative error %g\n", err);
  CHECK(err <= 1e-10);  // rocsparse_dgtsv
  for (double* p : {ddl, ddd, ddu, db}) (void)hipFree(p);
  (void)hipFree(buf);
}

void matrix_sum(rocsparse_handle h, rocsparse_mat_descr descr) {
  const Csr a = random_csr(2000, 1500, 6, false, 9), b = random_csr(2000, 1500, 5, false, 10);
  const double alpha = 0.75, beta = -2.0;
  Csr want;
  want.ptr.push_back(0);
  for (I i = 0; i < a.m; ++i) {
    std::map<I, double> row;
    for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) row[a.col[k]] += alpha * a.val[k];
    for (I k = b.ptr[i]; k < b.ptr[i + 1]; ++k) row[b.col[k]] += beta * b.val[k];
    for (auto& [j, v] : row) {
      want.col.push_back(j);
      want.val.push_back(v);
    }
    want.ptr.push_back(I(want.col.size()));
  }
  DevCsr da(a), dbm(b);
  I* cptr = nullptr;
  CHECK_HIP(hipMalloc(&cptr, (a.m + 1) * sizeof(I)));
  I nnz_c = -1;
  CHECK_SP(rocsparse_csrgeam_nnz(h, a.m, a.n, descr, a.nnz(), da.ptr, da.col, descr, b.nnz(), dbm.ptr, dbm.col,
                                 descr, cptr, &nnz_c));
  CHECK(nnz_c == want.nnz());  // rocsparse_csrgeam_nnz
  I* ccol = nullptr;
  CHECK_HIP(hipMalloc(&ccol, std::max<I>(nnz_c, 1) * sizeof(I)));
  double* cval = scratch_doubles(std::max<I>(nnz_c, 1));
  CHECK_SP(rocsparse_dcsrgeam(h, a.m, a.n, &alpha, descr, a.nnz(), da.val, da.ptr, da.col, &beta, descr,
                              b.nnz(), dbm.val, dbm.ptr, dbm.col, descr, cval, cptr, ccol));
  if (nnz_c == want.nnz()) {
    CHECK(download(cptr, a.m + 1) == want.ptr);  // rocsparse_dcsrgeam row pointers
    CHECK(download(ccol, nnz_c) == want.col);    // rocsparse_dcsrgeam columns
    const double err = max_rel_err(download(cval, nnz_c), want.val);
    if (err > 1e-14) std::printf("  csrgeam: max relative error %g\n", err);
    CHECK(err <= 1e-14);  // rocsparse_dcsrgeam values
  }
  (void)hipFree(cptr);
  (void)hipFree(ccol);
  (void)hipFree(cval);
}

void block_product(rocsparse_handle h, rocsparse_mat_descr descr) {
  // The same matrix as BSR with 3 x 3 blocks (the last block row and column padded with zeros).
  const I m = 1000, n = 1000, bd = 3, mb = (m + bd - 1) / bd, nb = (n + bd - 1) / bd;
  const Csr a = random_csr(m, n, 8, false, 8);
  DevCsr d(a);
  I* bptr = nullptr;
  CHECK_HIP(hipMalloc(&bptr, (mb + 1) * sizeof(I)));
  I nnzb = -1;
  CHECK_SP(rocsparse_csr2bsr_nnz(h, rocsparse_direction_column, m, n, descr, d.ptr, d.col, bd, descr, bptr,
                                 &nnzb));
  std::vector<std::vector<I>> blocks(mb);
  for (I i = 0; i < m; ++i)
    for (I k = a.ptr[i]; k < a.ptr[i + 1]; ++k) blocks[i / bd].push_back(a.col[k] / bd);
  I want_nnzb = 0;
  for (auto& r : blocks) {
    std::sort(r.begin(), r.end());
    want_nnzb += I(std::unique(r.begin(), r.end()) - r.begin());
  }
  CHECK(nnzb == want_nnzb);  // rocsparse_csr2bsr_nnz
  I* bcol = nullptr;
  CHECK_HIP(hipMalloc(&bcol, std::max<I>(nnzb, 1) * sizeof(I)));
  double* bval = scratch_doubles(std::max<I>(nnzb, 1) * bd * bd);
  CHECK_SP(rocsparse_dcsr2bsr(h, rocsparse_direction_column, m, n, descr, d.val, d.ptr, d.col, bd, descr, bval,
                              bptr, bcol));
  std::vector<double> x(size_t(nb) * bd, 0.0), y0(size_t(mb) * bd, 0.0);
  for (I i = 0; i < n; ++i) x[i] = 1.0 / (1 + i % 13);
  for (I i = 0; i < m; ++i) y0[i] = 0.5 * (i % 3);
  double *dx = upload(x), *dy = upload(y0);
  const double alpha = 2.0, beta = 1.0;
  CHECK_SP(rocsparse_dbsrmv(h, rocsparse_direction_column, rocsparse_operation_none, mb, nb, nnzb, &alpha,
                            descr, bval, bptr, bcol, bd, dx, &beta, dy));
  std::vector<double> got = download(dy, size_t(mb) * bd);
  got.resize(m);
  const auto want = host_spmv(a, std::vector<double>(x.begin(), x.begin() + n), alpha, beta,
                              std::vector<double>(y0.begin(), y0.begin() + m));
  const double err = max_rel_err(got, want);
  if (err > 1e-12) std::printf("  bsrmv: max relative error %g\n", err);
  CHECK(err <= 1e-12);  // rocsparse_dbsrmv on rocsparse_dcsr2bsr's blocks
  (void)hipFree(bptr);
  (void)hipFree(bcol);
  (void)hipFree(bval);
  (void)hipFree(dx);
  (void)hipFree(dy);
}

}  // namespace

int main() {
  rocsparse_handle h;
  CHECK_SP(rocsparse_create_handle(&h));
  hipStream_t stream;
  CHECK_HIP(hipStreamCreate(&stream));
  CHECK_SP(rocsparse_set_stream(h, stream));
  rocsparse_mat_descr general;
  CHECK_SP(rocsparse_create_mat_descr(&general));

  spmv(h, general);
  triangular_solve(h);
  incomplete_lu(h, general);
  transpose(h);
  sparse_product(h, general);
  dense_conversions(h, general);
  level1(h);
  block_product(h, general);
  tridiagonal(h);
  matrix_sum(h, general);

  CHECK_SP(rocsparse_destroy_mat_descr(general));
  CHECK_SP(rocsparse_destroy_handle(h));
  CHECK_HIP(hipStreamDestroy(stream));
  return check::summary();
}
