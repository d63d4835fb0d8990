// SPDX-License-Identifier: MIT
// hc configuration: the HIP include, device annotations ([[hc]], __HC__, tile_static), exceptions and error checks.
#pragma once

#if __cplusplus < 202002L
#error "hc.hpp needs C++20: compile with -std=c++20 (kfdcc -std=c++20 ...)"
#endif

// The standard headers come before the HIP headers: HIP's `__noinline__` macro would otherwise
// rewrite libstdc++'s own `__attribute__((__noinline__))` (bits/shared_ptr_base.h).
#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// hcc's headers brought <cassert> and <functional> (std::bind) with them, and hc programs lean on
// that. They did not bring <string.h>: see KFDRT_HIP_NO_STRING_H in hip_runtime_api.h.
#ifndef KFDRT_HIP_NO_STRING_H
#define KFDRT_HIP_NO_STRING_H 1
#endif
#include <hip/hip_runtime.h>

// hcc marked device code with [[hc]] / __attribute__((hc)). clang has no such attribute: it
// warns that it is unknown and ignores it, so the annotation is accepted but does not make a
// function callable from a kernel (see README.md: use __HC__, __host__ __device__ or
// `#pragma clang force_cuda_host_device begin/end`). The warning is silenced for the rest of
// the translation unit so hcc sources compile cleanly.
#pragma clang diagnostic ignored "-Wunknown-attributes"

// hcc's spelled-out annotations, mapped to HIP execution spaces.
#ifndef __HC__
#define __HC__ __host__ __device__
#endif
#ifndef __CPU__
#define __CPU__ __host__
#endif

// hcc's version macros, so code that checks for hc mode takes the hc path.
#ifndef __KALMAR_HC__
#define __KALMAR_HC__ 1
#endif
#if defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__
#define __KALMAR_ACCELERATOR__ 1
#else
#define __KALMAR_CPU__ 1
#endif

// Variables shared by the work-items of one tile (LDS).
#define tile_static __shared__

// Both-sides helper used throughout the headers.
#define HC_HD __host__ __device__ inline
#define HC_DEV __device__ inline

#if defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__
#define HC_ON_DEVICE 1
#else
#define HC_ON_DEVICE 0
#endif

namespace hc {

typedef int HRESULT;

// Thrown by the hc runtime; get_error_code() is the hipError_t (or -1) behind it.
class runtime_exception : public std::exception {
public:
  runtime_exception(const char* msg, HRESULT err) : msg_(msg ? msg : ""), err_(err) {}
  runtime_exception(std::string msg, HRESULT err) : msg_(std::move(msg)), err_(err) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  HRESULT get_error_code() const { return err_; }

private:
  std::string msg_;
  HRESULT err_;
};

// A parallel_for_each domain that cannot be launched (negative or too large extents).
class invalid_compute_domain : public runtime_exception {
public:
  explicit invalid_compute_domain(const char* msg) : runtime_exception(msg, -1) {}
  explicit invalid_compute_domain(std::string msg) : runtime_exception(std::move(msg), -1) {}
};

// The device behind an accelerator_view failed (a kernel faulted, the queue stopped).
class accelerator_view_removed : public runtime_exception {
public:
  accelerator_view_removed(const char* msg, HRESULT err) : runtime_exception(msg, err) {}
  HRESULT get_view_removed_reason() const { return get_error_code(); }
};

namespace detail {

// Throws runtime_exception naming the HIP call and its error when `e` is not hipSuccess.
inline void check(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  std::string msg = std::string("hc: ") + what + ": " + hipGetErrorName(e) + " (" +
                    hipGetErrorString(e) + ")";
  throw runtime_exception(msg, static_cast<HRESULT>(e));
}

// Makes `device` current for the scope and restores the previous device after it.
class device_guard {
public:
  explicit device_guard(int device) {
    check(hipGetDevice(&prev_), "hipGetDevice");
    if (prev_ != device) check(hipSetDevice(device), "hipSetDevice");
  }
  ~device_guard() {
    int cur = prev_;
    if (hipGetDevice(&cur) == hipSuccess && cur != prev_) (void)hipSetDevice(prev_);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

private:
  int prev_ = 0;
};

} // namespace detail
} // namespace hc
