// SPDX-License-Identifier: MIT
// Result<T> and Error: how every layer of kfdrt reports a failure without exceptions.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace kfd {

// An error keeps what was attempted, the errno (0 when none) and the values that matter,
// all in one human-readable message: "AMDKFD_IOC_CREATE_QUEUE: Invalid argument (ring_size=0x1000)".
struct Error {
  std::string message;
  int err = 0;

  static Error from_errno(const std::string& op, int e, const std::string& details = {}) {
    std::string m = op + ": " + std::strerror(e);
    if (!details.empty()) m += " (" + details + ")";
    return Error{std::move(m), e};
  }
  static Error msg(std::string m, int e = 0) { return Error{std::move(m), e}; }
  // Prefixes context: "loading kernel foo: <cause>".
  Error context(const std::string& what) const { return Error{what + ": " + message, err}; }
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
  const std::string& message() const {
    static const std::string none;
    return ok() ? none : error().message;
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : e_(std::move(error)), failed_(true) {}  // NOLINT: implicit by design

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return e_; }
  int err() const { return failed_ ? e_.err : 0; }
  const std::string& message() const { return e_.message; }

 private:
  Error e_;
  bool failed_ = false;
};

using Status = Result<void>;

// Formats a value as 0x-prefixed hex, for error details.
std::string hex(unsigned long long v);

}  // namespace kfd

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
