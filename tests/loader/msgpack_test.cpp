// SPDX-License-Identifier: MIT
// Tests of the MessagePack reader: every format family, and truncated or lying input.
#include <gtest/gtest.h>

#include <vector>

#include "loader/msgpack.h"

using loader::msgpack::Kind;
using loader::msgpack::parse;
using Buf = std::vector<uint8_t>;

namespace {

// Inputs live for the whole test: decoded strings view them.
std::vector<Buf>& keep() {
  static std::vector<Buf> bufs;
  return bufs;
}
auto parse_buf(const Buf& b) {
  keep().push_back(b);
  return parse(loader::Bytes(keep().back().data(), keep().back().size()));
}

TEST(Msgpack, DecodesScalars) {
  EXPECT_EQ(parse_buf({0x05})->u, 5u);
  EXPECT_EQ(parse_buf({0xff})->i, -1);
  EXPECT_EQ(parse_buf({0xcc, 0xfe})->u, 0xfeu);
  EXPECT_EQ(parse_buf({0xcd, 0x12, 0x34})->u, 0x1234u);
  EXPECT_EQ(parse_buf({0xce, 0x12, 0x34, 0x56, 0x78})->u, 0x12345678u);
  EXPECT_EQ(parse_buf({0xcf, 1, 2, 3, 4, 5, 6, 7, 8})->u, 0x0102030405060708ull);
  EXPECT_EQ(parse_buf({0xd0, 0x80})->i, -128);
  EXPECT_EQ(parse_buf({0xd1, 0xff, 0x00})->i, -256);
  EXPECT_EQ(parse_buf({0xd2, 0x00, 0x00, 0x01, 0x00})->u, 256u);  // non-negative ints are UInt
  EXPECT_EQ(parse_buf({0xc3})->b, true);
  EXPECT_EQ(parse_buf({0xc2})->kind, Kind::Bool);
  EXPECT_EQ(parse_buf({0xc0})->kind, Kind::Nil);
  EXPECT_EQ(parse_buf({0xca, 0x3f, 0xc0, 0x00, 0x00})->f, 1.5);
  EXPECT_EQ(parse_buf({0xcb, 0x40, 0x04, 0, 0, 0, 0, 0, 0})->f, 2.5);
}

TEST(Msgpack, DecodesStringsAndContainers) {
  auto s = parse_buf({0xa3, 'a', 'b', 'c'});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->s, "abc");
  auto s8 = parse_buf({0xd9, 2, 'h', 'i'});
  EXPECT_EQ(s8->s, "hi");
  auto bin = parse_buf({0xc4, 1, 0x7f});
  EXPECT_EQ(bin->kind, Kind::Bin);
  auto m = parse_buf({0x82, 0xa1, 'a', 0x01, 0xa1, 'b', 0x92, 0x02, 0x03});
  ASSERT_TRUE(m.ok()) << m.message();
  ASSERT_NE(m->find("b"), nullptr);
  EXPECT_EQ(m->find("a")->u, 1u);
  EXPECT_EQ(m->find("b")->array.size(), 2u);
  EXPECT_EQ(m->find("b")->array[1].u, 3u);
  EXPECT_EQ(m->find("zz"), nullptr);
  auto a16 = parse_buf({0xdc, 0x00, 0x01, 0x07});
  EXPECT_EQ(a16->array.at(0).u, 7u);
  auto m16 = parse_buf({0xde, 0x00, 0x01, 0xa1, 'k', 0xc3});
  EXPECT_TRUE(m16->find("k")->b);
}

TEST(Msgpack, RejectsTruncatedInput) {
  EXPECT_EQ(parse_buf({}).message(), "msgpack type at offset 0x0: truncated (needs 1 bytes)");
  EXPECT_EQ(parse_buf({0xcd, 0x12}).message(), "msgpack uint at offset 0x0: truncated (needs 2 bytes)");
  EXPECT_EQ(parse_buf({0xa5, 'a'}).message(),
            "msgpack str length at offset 0x0: 0x5 bytes extend past the end (0x2 bytes)");
  EXPECT_EQ(parse_buf({0x94, 0x01, 0x02, 0x03, 0xcd, 0x01}).message(), "msgpack uint at offset 0x4: truncated (needs 2 bytes)");
}

TEST(Msgpack, RejectsLyingCounts) {
  // An array32 claiming 4 billion elements must fail before reserving memory for them.
  EXPECT_EQ(parse_buf({0xdd, 0xff, 0xff, 0xff, 0xff, 0x00}).message(),
            "msgpack array count at offset 0x0: 4294967295 elements cannot fit in the 1 bytes left");
  EXPECT_EQ(parse_buf({0xdf, 0x00, 0x01, 0x00, 0x00, 0x01}).message(),
            "msgpack map count at offset 0x0: 65536 entries cannot fit in the 1 bytes left");
  EXPECT_EQ(parse_buf({0xdb, 0xff, 0xff, 0xff, 0xf0}).message(),
            "msgpack str length at offset 0x0: 0xfffffff0 bytes extend past the end (0x5 bytes)");
}

TEST(Msgpack, RejectsUnsupportedAndTrailing) {
  EXPECT_EQ(parse_buf({0xc1}).message(), "msgpack type at offset 0x0: tag 0xc1 (ext or reserved) is not supported");
  EXPECT_EQ(parse_buf({0xd4, 0x01, 0x02}).message(),
            "msgpack type at offset 0x0: tag 0xd4 (ext or reserved) is not supported");
  EXPECT_EQ(parse_buf({0x01, 0x02}).message(), "msgpack at offset 0x1: 1 trailing bytes after the value");
}

TEST(Msgpack, RejectsDeepNesting) {
  Buf deep(100, 0x91);  // 100 nested one-element arrays
  deep.push_back(0x01);
  EXPECT_EQ(parse_buf(deep).message(), "msgpack nesting at offset 0x21: deeper than 32 levels");
  Buf ok(10, 0x91);
  ok.push_back(0x01);
  EXPECT_TRUE(parse_buf(ok).ok());
}

TEST(Msgpack, ReportsOffsetsRelativeToBase) {
  Buf b = {0x92, 0x01, 0xcd};
  auto r = parse(loader::Bytes(b.data(), b.size()), 0x100);
  EXPECT_EQ(r.message(), "msgpack uint at offset 0x102: truncated (needs 2 bytes)");
  Buf m = {0x81, 0xa1, 'k', 0x07};
  auto v = parse(loader::Bytes(m.data(), m.size()), 0x100);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->find("k")->offset, 0x103u);
}

}  // namespace
