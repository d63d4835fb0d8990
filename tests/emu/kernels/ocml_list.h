// SPDX-License-Identifier: MIT
// The device-library (ocml) functions the ocml corpus kernels evaluate, with the host expression
// (in x) each is checked against: shared by kernels/ocml.hip and test_ocml.cpp.
#pragma once

#define OCML_UNARY(X) \
  X(sin, std::sin(x)) X(cos, std::cos(x)) X(tan, std::tan(x)) X(asin, std::asin(x)) \
  X(acos, std::acos(x)) X(atan, std::atan(x)) X(sinh, std::sinh(x)) X(cosh, std::cosh(x)) \
  X(tanh, std::tanh(x)) X(asinh, std::asinh(x)) X(acosh, std::acosh(x)) X(atanh, std::atanh(x)) \
  X(exp, std::exp(x)) X(exp2, std::exp2(x)) X(exp10, std::pow(10.0, x)) X(expm1, std::expm1(x)) \
  X(log, std::log(x)) X(log2, std::log2(x)) X(log10, std::log10(x)) X(log1p, std::log1p(x)) \
  X(sqrt, std::sqrt(x)) X(rsqrt, 1.0 / std::sqrt(x)) X(cbrt, std::cbrt(x)) X(rcbrt, 1.0 / std::cbrt(x)) \
  X(erf, std::erf(x)) X(erfc, std::erfc(x)) X(lgamma, std::lgamma(x)) X(tgamma, std::tgamma(x)) \
  X(floor, std::floor(x)) X(ceil, std::ceil(x)) X(trunc, std::trunc(x)) X(rint, std::nearbyint(x)) \
  X(round, std::round(x)) X(fabs, std::fabs(x)) X(logb, std::logb(x)) \
  X(sinpi, std::sin(kPi * x)) X(cospi, std::cos(kPi * x)) X(tanpi, std::tan(kPi * x)) \
  X(j0, j0(x)) X(j1, j1(x)) X(y0, y0(x)) X(y1, y1(x)) X(ncdf, 0.5 * std::erfc(-x / std::sqrt(2.0)))

// Binary functions: the second operand is the input of the neighbouring lane (y).
#define OCML_BINARY(X) \
  X(pow, std::pow(x, y)) X(atan2, std::atan2(x, y)) X(fmod, std::fmod(x, y)) \
  X(remainder, std::remainder(x, y)) X(hypot, std::hypot(x, y)) X(fmin, std::fmin(x, y)) \
  X(fmax, std::fmax(x, y)) X(fdim, std::fdim(x, y)) X(copysign, std::copysign(x, y))
