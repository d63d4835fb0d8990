// SPDX-License-Identifier: MIT
// Result<T> and Error with an error kind: how every layer of kfdrt reports a failure without exceptions.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace base {

// What kind of failure an error is, so that upper layers (HIP, hc) choose their error codes
// from the kind, never from the message text.
enum class ErrorKind : uint8_t {
  Other,            // none of the below (the errno, if any, says more)
  InvalidArgument,  // the caller passed something wrong (EINVAL, ERANGE, E2BIG)
  OutOfMemory,      // host or device memory, or a resource budget, ran out (ENOMEM, ENOSPC)
  DeviceFault,      // the GPU faulted on an address, or was reset (a MEMORY / HW_EXCEPTION event)
  QueueError,       // a queue stopped on an error its device reported (queue_inactive_signal)
  NotSupported,     // the device, driver or build lacks the feature (ENOTSUP, ENOTTY, ENOSYS)
  NoDevice,         // no GPU, or not this one (ENODEV, ENXIO, ENOENT for /dev/kfd)
  Timeout,          // a wait gave up (ETIMEDOUT)
  Busy,             // the object is in use (EBUSY, EEXIST)
  Io,               // an I/O or system call failure not covered above (EIO, EBADF, EFAULT...)
  InvalidImage,     // a code object, bundle or fat binary is malformed (ENOEXEC)
};
const char* kind_name(ErrorKind k);
// The kind an errno stands for when the caller says nothing more specific.
ErrorKind kind_of_errno(int e);

// An error keeps what was attempted, its kind, the errno (0 when none) and the values that
// matter, all in one human-readable message:
// "AMDKFD_IOC_CREATE_QUEUE: Invalid argument (ring_size=0x1000)".
struct Error {
  std::string message;
  int err = 0;
  ErrorKind kind = ErrorKind::Other;

  static Error from_errno(const std::string& op, int e, const std::string& details = {}) {
    std::string m = op + ": " + std::strerror(e);
    if (!details.empty()) m += " (" + details + ")";
    return Error{std::move(m), e, kind_of_errno(e)};
  }
  static Error msg(std::string m, int e = 0) { return Error{std::move(m), e, kind_of_errno(e)}; }
  static Error of_kind(ErrorKind k, std::string m, int e = 0) { return Error{std::move(m), e, k}; }
  // Prefixes context: "loading kernel foo: <cause>"; the kind and errno stay the cause's.
  Error context(const std::string& what) const { return Error{what + ": " + message, err, kind}; }
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}     // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }
  int err() const { return ok() ? 0 : error().err; }
  ErrorKind kind() const { return ok() ? ErrorKind::Other : error().kind; }
  const std::string& message() const {
    static const std::string none;
    return ok() ? none : error().message;
  }

 private:
  std::variant<T, Error> v_;
};

// Success is a null pointer: a Status that carries no error costs one word and no string (every
// call on a hot path returns one).
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : e_(new Error(std::move(error))) {}  // NOLINT: implicit by design
  Result(const Result& o) : e_(o.e_ ? new Error(*o.e_) : nullptr) {}
  Result(Result&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Result& operator=(const Result& o) {
    if (this != &o) reset(o.e_ ? new Error(*o.e_) : nullptr);
    return *this;
  }
  Result& operator=(Result&& o) noexcept {
    if (this != &o) reset(std::exchange(o.e_, nullptr));
    return *this;
  }
  ~Result() {
    if (e_) [[unlikely]] delete e_;
  }

  bool ok() const { return !e_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return e_ ? *e_ : none(); }
  int err() const { return e_ ? e_->err : 0; }
  ErrorKind kind() const { return e_ ? e_->kind : ErrorKind::Other; }
  const std::string& message() const { return error().message; }

 private:
  static const Error& none() {
    static const Error e{};
    return e;
  }
  void reset(Error* e) {
    delete e_;
    e_ = e;
  }
  Error* e_ = nullptr;
};

using Status = Result<void>;

// Formats a value as 0x-prefixed hex, for error details.
std::string hex(unsigned long long v);

}  // namespace base

// Propagates an error from an expression returning Result<...>.
#define KFD_TRY(expr)                                  \
  do {                                                 \
    auto kfd_try_r_ = (expr);                          \
    if (!kfd_try_r_.ok()) return kfd_try_r_.error();   \
  } while (0)

#define KFD_CONCAT_INNER_(a, b) a##b
#define KFD_CONCAT_(a, b) KFD_CONCAT_INNER_(a, b)
// Declares `lhs` from the value of a Result, or returns its error.
#define KFD_ASSIGN(lhs, expr)                                              \
  auto KFD_CONCAT_(kfd_r_, __LINE__) = (expr);                             \
  if (!KFD_CONCAT_(kfd_r_, __LINE__).ok())                                 \
    return KFD_CONCAT_(kfd_r_, __LINE__).error();                          \
  lhs = std::move(KFD_CONCAT_(kfd_r_, __LINE__)).value()
