// SPDX-License-Identifier: MIT
// Unit tests of device printf formatting: messages built by hand as ockl would send them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/hip/printf.h"

namespace {

// Builds a message: the stream, then strings packed 8 bytes per element and NUL-terminated,
// integers as they are, doubles as their bits.
struct Message {
  std::vector<uint64_t> e;
  explicit Message(const char* fmt, uint64_t stream = 0) {
    e.push_back(stream);
    str(fmt);
  }
  Message& str(const char* s) {
    size_t n = std::strlen(s) + 1;
    for (size_t i = 0; i < n; i += 8) {
      uint64_t v = 0;
      for (size_t j = 0; j < 8 && i + j < n; ++j) v |= uint64_t(uint8_t(s[i + j])) << (8 * j);
      e.push_back(v);
    }
    return *this;
  }
  Message& u(uint64_t v) {
    e.push_back(v);
    return *this;
  }
  Message& i32(int32_t v) { return u(uint32_t(v)); }  // zero-extended, as clang passes it
  Message& d(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return u(b);
  }
};

std::string text(const Message& m) {
  hip::PrintfOutput o = hip::format_device_printf(m.e);
  EXPECT_EQ(o.error, "");
  return o.text;
}

TEST(DevicePrintf, FormatsPlainTextAndPercent) {
  EXPECT_EQ(text(Message("hello\n")), "hello\n");
  EXPECT_EQ(text(Message("100%% sure")), "100% sure");
  EXPECT_EQ(text(Message("")), "");
}

TEST(DevicePrintf, FormatsIntegersOfEveryLength) {
  EXPECT_EQ(text(Message("%d %i %u").i32(-5).i32(7).i32(-1)), "-5 7 4294967295");
  EXPECT_EQ(text(Message("%x %X %o %#x").i32(255).i32(255).i32(8).i32(255)), "ff FF 10 0xff");
  EXPECT_EQ(text(Message("%hhd %hd %hhu").i32(0x1ff).i32(0x18000).i32(-1)), "-1 -32768 255");
  EXPECT_EQ(text(Message("%ld %lld %llu").u(uint64_t(-3)).u(1ull << 40).u(~0ull)),
            "-3 1099511627776 18446744073709551615");
  EXPECT_EQ(text(Message("%zu %jd").u(12).u(uint64_t(-12))), "12 -12");
}

TEST(DevicePrintf, FormatsFloatsCharsPointersAndWidths) {
  EXPECT_EQ(text(Message("%f %.2e %g").d(1.5).d(12345.678).d(0.0001)), "1.500000 1.23e+04 0.0001");
  EXPECT_EQ(text(Message("[%5d][%-5d][%05.1f]").i32(42).i32(42).d(3.14159)), "[   42][42   ][003.1]");
  EXPECT_EQ(text(Message("[%*d][%.*f]").i32(6).i32(7).i32(3).d(2.0)), "[     7][2.000]");
  EXPECT_EQ(text(Message("[%*d]").i32(-4).i32(1)), "[1   ]");  // negative width: left-justify
  EXPECT_EQ(text(Message("%c%c").i32('o').i32('k')), "ok");
  EXPECT_EQ(text(Message("%p").u(0x1000)), "0x1000");
}

TEST(DevicePrintf, FormatsStringsOfAnyLength) {
  std::string longer(100, 'x');
  EXPECT_EQ(text(Message("<%s|%s|%.3s>").str("ab").str(longer.c_str()).str("abcdef")),
            "<ab|" + longer + "|abc>");
  EXPECT_EQ(text(Message("[%s]").str("")), "[]");  // what a null pointer arrives as
  EXPECT_EQ(text(Message("%s=%d").str("12345678").i32(9)), "12345678=9");  // string fills whole elements
}

TEST(DevicePrintf, SelectsTheStream) {
  EXPECT_EQ(hip::format_device_printf(Message("x", 0).e).stream, 0);
  EXPECT_EQ(hip::format_device_printf(Message("x", 1).e).stream, 1);
}

TEST(DevicePrintf, KeepsWhatIsNotAConversion) {
  EXPECT_EQ(text(Message("50%")), "50%");
  EXPECT_EQ(text(Message("%y and %d").i32(3)), "%y and 3");
}

TEST(DevicePrintf, RejectsMessagesShortOfArguments) {
  hip::PrintfOutput o = hip::format_device_printf(Message("%d and %d").i32(1).e);
  EXPECT_NE(o.error.find("no argument for conversion %d"), std::string::npos) << o.error;
  o = hip::format_device_printf(Message("%s").e);
  EXPECT_NE(o.error, "");
  std::vector<uint64_t> empty;
  EXPECT_NE(hip::format_device_printf(empty).error, "");
  std::vector<uint64_t> unterminated = {0, 0x4141414141414141ull};  // no NUL in the format
  EXPECT_NE(hip::format_device_printf(unterminated).error, "");
}

// Device-chosen widths and precisions cannot make the host build huge strings, and a field that
// mixes '*' and digits is printed as written rather than handed to snprintf with an argument
// missing.
TEST(DevicePrintf, BoundsWidthsAndKeepsMalformedFields) {
  EXPECT_EQ(text(Message("[%*d]").i32(0x7fffffff).i32(5)).size(), 4096u + 2);
  EXPECT_EQ(text(Message("[%*d]").i32(int32_t(0x80000000u)).i32(5)).size(), 4096u + 2);  // INT_MIN
  EXPECT_EQ(text(Message("[%.*f]").i32(0x7fffffff).d(1.0)).size(), 4096u + 4);
  EXPECT_EQ(text(Message("[%99999999999d]").i32(7)).size(), 4096u + 2);
  EXPECT_EQ(text(Message("[%*5s][%1*d][%.*3d]")), "[%*5s][%1*d][%.*3d]");
}

}  // namespace

