// SPDX-License-Identifier: MIT
// Hand-written ISA kernels (tests/isa/*.s) checked against the ISA semantics, per encoding.
#include <cmath>

#include "tests/emu/isa_fixture.h"

using namespace emu_test;

namespace {

class Sop : public IsaTest {};

// Every lane stores the same scalar result; check lane 0 and the last lane.
#define EXPECT_SCALAR(k, v)                          \
  do {                                               \
    EXPECT_EQ(slot(k, 0), static_cast<uint32_t>(v)) << "slot " << k; \
    EXPECT_EQ(slot(k, 63), static_cast<uint32_t>(v)) << "slot " << k; \
  } while (0)

TEST_F(Sop, ComputesCarriesAndOverflow) {
  auto o = run_isa("sop.co", "k_sop_arith");
  ASSERT_TRUE(o.ok()) << o.message;
  uint64_t sum = 0xffffffffull + 2;
  EXPECT_SCALAR(0, static_cast<uint32_t>(sum));
  EXPECT_SCALAR(1, sum >> 32);
  EXPECT_SCALAR(2, 1);
  EXPECT_SCALAR(3, 1u - 2u);
  EXPECT_SCALAR(4, 1);                       // borrow
  int32_t r;
  bool ovf = __builtin_add_overflow(INT32_MIN, -1, &r);
  EXPECT_SCALAR(5, static_cast<uint32_t>(r));
  EXPECT_SCALAR(6, ovf);
  EXPECT_SCALAR(7, static_cast<uint32_t>(-5));
  EXPECT_SCALAR(8, 3);
  EXPECT_SCALAR(9, static_cast<uint32_t>((int64_t{INT32_MIN} * 3) >> 32));
  EXPECT_SCALAR(10, static_cast<uint32_t>((0xffffffffull * 0xffffffffull) >> 32));
  EXPECT_SCALAR(11, static_cast<uint32_t>(static_cast<int16_t>(0x8000)));
  EXPECT_SCALAR(12, 99);
  EXPECT_SCALAR(13, 99u < 0xffffu);
  EXPECT_SCALAR(14, 12);
  EXPECT_SCALAR(15, (3 << 2) + 5);
}

TEST_F(Sop, HandlesBitFieldEdgeCases) {
  auto o = run_isa("sop.co", "k_sop_bits");
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_SCALAR(0, (0xf0f0u >> 4) & 0xff);
  EXPECT_SCALAR(1, 0xffffffffu);
  EXPECT_SCALAR(2, 0xffffffffu);              // s_ff1 of 0 is -1
  EXPECT_SCALAR(3, __builtin_ctz(0xf0f0u));
  EXPECT_SCALAR(4, __builtin_clz(0xf0f0u));
  EXPECT_SCALAR(5, 31);
  EXPECT_SCALAR(6, 64);
  EXPECT_SCALAR(7, (1ull << 40) >> 32);
  EXPECT_SCALAR(8, 0xffffffffu);
  EXPECT_SCALAR(9, 1);
  EXPECT_SCALAR(10, 0xf0f0u & 0xf00u);
  EXPECT_SCALAR(11, static_cast<uint32_t>(static_cast<int16_t>(0x8001)));
  EXPECT_SCALAR(12, 0xabcd1234u);
  EXPECT_SCALAR(13, 0x80000000u);
  EXPECT_SCALAR(14, ((1u << 4) - 1) << 8);
  EXPECT_SCALAR(15, 1);
}

}  // namespace
