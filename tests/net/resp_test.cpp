// The RESP parser: every type, every split of the input, malformed replies and the limits.
#include "squall/net/resp.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace squall {
namespace {

using T = RedisReply::Type;
using namespace std::string_literals;

struct Outcome {
  std::vector<std::string> replies;  // to_string() of each
  bool failed = false;
  ErrorKind kind = ErrorKind::Protocol;
  std::string reason;
};

// Feeds `wire` in pieces cut at `cuts` (ascending offsets), each piece in an exactly sized heap
// block so that ASan sees any read past it.
Outcome parse_in_pieces(std::string_view wire, const std::vector<size_t>& cuts,
                        RespLimits limits = {}) {
  RespParser parser(limits);
  Outcome out;
  size_t start = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(wire.size());
  for (size_t end : ends) {
    if (end < start) continue;
    size_t n = end - start;
    auto block = std::make_unique<char[]>(n);
    std::copy(wire.begin() + static_cast<ptrdiff_t>(start),
              wire.begin() + static_cast<ptrdiff_t>(end), block.get());
    std::string_view piece(block.get(), n);
    while (!piece.empty() && !out.failed) {
      auto [event, used] = parser.next(piece);
      EXPECT_LE(used, piece.size());
      piece.remove_prefix(used);
      if (event == RespEvent::Reply) out.replies.push_back(parser.take().to_string());
      if (event == RespEvent::Fail) {
        out.failed = true;
        out.kind = parser.fail_kind();
        out.reason = parser.fail_reason();
      }
      if (event == RespEvent::NeedMore) {
        EXPECT_TRUE(piece.empty());
      }
    }
    start = end;
  }
  return out;
}

Outcome parse_whole(std::string_view wire, RespLimits limits = {}) {
  return parse_in_pieces(wire, {}, limits);
}

RedisReply parse_one(std::string_view wire) {
  RespParser parser;
  auto [event, used] = parser.next(wire);
  EXPECT_EQ(event, RespEvent::Reply) << wire;
  EXPECT_EQ(used, wire.size()) << wire;
  return parser.take();
}

// Replies of every type, RESP2 and RESP3, one after the other.
const std::string kEveryType =
    "+OK\r\n"
    "-ERR unknown command 'x'\r\n"
    ":-42\r\n"
    "$5\r\na\0\r\nb\r\n"  // binary: a NUL and a CRLF inside
    "$0\r\n\r\n"
    "$-1\r\n"
    "*-1\r\n"
    "*0\r\n"
    "*3\r\n:1\r\n*2\r\n+a\r\n$1\r\nb\r\n$-1\r\n"
    "%2\r\n+k1\r\n:1\r\n$2\r\nk2\r\n*1\r\n#t\r\n"
    "~2\r\n,1.5\r\n,-inf\r\n"
    ">2\r\n+message\r\n(123456789012345678901234567890\r\n"
    "_\r\n"
    "#f\r\n"
    "=9\r\ntxt:hello\r\n"
    "!10\r\nERR failed\r\n"
    "|1\r\n+ttl\r\n:3600\r\n+after an attribute\r\n"s;

const std::vector<std::string> kEveryTypeRendered = {
    "OK",
    "(error) ERR unknown command 'x'",
    "(integer) -42",
    "\"a\\x00\\x0d\\x0ab\"",
    "\"\"",
    "(nil)",
    "(nil)",
    "[]",
    "[(integer) 1, [a, \"b\"], (nil)]",
    "{k1: (integer) 1, \"k2\": [(true)]}",
    "~[(double) 1.5, (double) -inf]",
    ">[message, (big number) 123456789012345678901234567890]",
    "(nil)",
    "(false)",
    "\"hello\"",
    "(error) ERR failed",
    "after an attribute",
};

TEST(RespParser, ReadsEveryTypeOfRespTwoAndThree) {
  Outcome out = parse_whole(kEveryType);
  EXPECT_FALSE(out.failed) << out.reason;
  EXPECT_EQ(out.replies, kEveryTypeRendered);
}

TEST(RespParser, GivesEachReplyItsTypeAndFields) {
  RedisReply bulk = parse_one(std::string("$3\r\na\0b\r\n", 9));
  EXPECT_EQ(bulk.type, T::Bulk);
  EXPECT_EQ(bulk.str, std::string("a\0b", 3));
  EXPECT_EQ(parse_one(":9223372036854775807\r\n").integer, INT64_MAX);
  EXPECT_EQ(parse_one(":-9223372036854775808\r\n").integer, INT64_MIN);
  EXPECT_EQ(parse_one("-WRONGTYPE Operation\r\n").type, T::Error);
  EXPECT_EQ(parse_one("!3\r\nBAD\r\n").type, T::Error);
  EXPECT_TRUE(parse_one("$-1\r\n").is_nil());
  EXPECT_TRUE(parse_one("_\r\n").is_nil());
  RedisReply map = parse_one("%1\r\n+a\r\n:1\r\n");
  EXPECT_EQ(map.type, T::Map);
  ASSERT_EQ(map.elements.size(), 2u);
  EXPECT_EQ(map.elements[0].str, "a");
  EXPECT_EQ(map.elements[1].integer, 1);
  EXPECT_EQ(parse_one("#t\r\n").integer, 1);
  EXPECT_EQ(parse_one("=8\r\nmkd:# hi\r\n").str, "# hi");
  EXPECT_TRUE(parse_one("*2\r\n+a\r\n+b\r\n").is_aggregate());
  EXPECT_TRUE(parse_one("+a\r\n").is_string());
}

TEST(RespParser, ReadsTheSameRepliesWhereverTheInputIsCut) {
  for (size_t cut = 0; cut <= kEveryType.size(); ++cut) {
    Outcome out = parse_in_pieces(kEveryType, {cut});
    ASSERT_FALSE(out.failed) << "cut at " << cut << ": " << out.reason;
    ASSERT_EQ(out.replies, kEveryTypeRendered) << "cut at " << cut;
  }
}

TEST(RespParser, ReadsTheSameRepliesOneByteAtATime) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < kEveryType.size(); ++i) cuts.push_back(i);
  Outcome out = parse_in_pieces(kEveryType, cuts);
  EXPECT_FALSE(out.failed) << out.reason;
  EXPECT_EQ(out.replies, kEveryTypeRendered);
}

TEST(RespParser, ReadsTheSameRepliesInRandomPieces) {
  std::mt19937 rng(19);
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> cuts;
    for (size_t at = 0; at < kEveryType.size();) {
      at += 1 + rng() % 12;
      if (at < kEveryType.size()) cuts.push_back(at);
    }
    Outcome out = parse_in_pieces(kEveryType, cuts);
    ASSERT_FALSE(out.failed) << out.reason;
    ASSERT_EQ(out.replies, kEveryTypeRendered) << "round " << round;
  }
}

TEST(RespParser, StopsAtTheEndOfEachReply) {
  RespParser parser;
  std::string wire = "+a\r\n+b\r\n";
  auto first = parser.next(wire);
  EXPECT_EQ(first.event, RespEvent::Reply);
  EXPECT_EQ(first.used, 4u);
  EXPECT_EQ(parser.take().str, "a");
  auto second = parser.next(std::string_view(wire).substr(4));
  EXPECT_EQ(second.event, RespEvent::Reply);
  EXPECT_EQ(parser.take().str, "b");
}

TEST(RespParser, SaysWhenItIsInTheMiddleOfAReply) {
  RespParser parser;
  EXPECT_FALSE(parser.in_reply());
  EXPECT_EQ(parser.next("*2\r\n:1\r\n").event, RespEvent::NeedMore);
  EXPECT_TRUE(parser.in_reply());
  EXPECT_EQ(parser.next(":2\r\n").event, RespEvent::Reply);
  EXPECT_FALSE(parser.in_reply());
}

struct Malformed {
  const char* wire;
  const char* reason;  // a part of the message
};

TEST(RespParser, FailsOnMalformedRepliesWithAClearReason) {
  const Malformed cases[] = {
      {"?x\r\n", "no RESP type"},
      {"+OK\n", "LF without CR"},
      {":12x\r\n", "integer reply is not a number"},
      {":\r\n", "integer reply is not a number"},
      {":+1\r\n", "integer reply is not a number"},
      {":99999999999999999999\r\n", "integer reply is not a number"},
      {"$abc\r\n", "bulk string length is not a number"},
      {"$-2\r\n", "bulk string length is not a number"},
      {"$3\r\nabcd\r\n", "longer than its length says"},
      {"$?\r\n", "streamed strings"},
      {"*x\r\n", "count is not a number"},
      {"*-5\r\n", "count is not a number"},
      {"%-1\r\n", "count -1"},
      {"*?\r\n", "streamed aggregates"},
      {"#x\r\n", "neither t nor f"},
      {"_x\r\n", "null reply has a value"},
      {",abc\r\n", "double reply is not a number"},
      {"(12a\r\n", "big number reply is not a number"},
      {"=2\r\nab\r\n", "no format prefix"},
      {"!-1\r\n", "length -1"},
      {"+a\rb\r\n", "holds a CR"},
      {"$999999999999999999999999\r\n", "bulk string length is not a number"},
  };
  for (const auto& c : cases) {
    Outcome whole = parse_whole(c.wire);
    ASSERT_TRUE(whole.failed) << c.wire;
    EXPECT_EQ(whole.kind, ErrorKind::Protocol) << c.wire;
    EXPECT_NE(whole.reason.find(c.reason), std::string::npos) << c.wire << ": " << whole.reason;
    // The same failure, one byte at a time.
    std::vector<size_t> cuts;
    for (size_t i = 1; i < std::strlen(c.wire); ++i) cuts.push_back(i);
    Outcome bytes = parse_in_pieces(c.wire, cuts);
    EXPECT_TRUE(bytes.failed) << c.wire;
    EXPECT_EQ(bytes.reason, whole.reason) << c.wire;
  }
}

TEST(RespParser, StaysFailedAfterAFailure) {
  RespParser parser;
  EXPECT_EQ(parser.next("+ok\r\n").event, RespEvent::Reply);
  EXPECT_EQ(parser.next("x").event, RespEvent::NeedMore);
  EXPECT_EQ(parser.next("\r\n").event, RespEvent::Fail);
  EXPECT_TRUE(parser.failed());
  auto again = parser.next("+OK\r\n");
  EXPECT_EQ(again.event, RespEvent::Fail);
  EXPECT_EQ(again.used, 0u);
}

TEST(RespParser, RefusesAnOverlongNumberLineBeforeItEnds) {
  RespParser parser;
  std::string digits(100, '1');
  auto step = parser.next("$" + digits);
  EXPECT_EQ(step.event, RespEvent::Fail);
  EXPECT_NE(parser.fail_reason().find("longer than 64 bytes"), std::string::npos);
  // 64 characters are the most a number line holds, whole or one byte at a time.
  std::string longest(1, ':');
  longest.append(63, '0').append("1\r\n");
  std::vector<size_t> cuts;
  for (size_t i = 1; i < longest.size(); ++i) cuts.push_back(i);
  EXPECT_FALSE(parse_whole(longest).failed);
  EXPECT_FALSE(parse_in_pieces(longest, cuts).failed);
  std::string over(1, ':');
  over.append(64, '0').append("1\r\n");
  cuts.push_back(over.size() - 1);
  EXPECT_TRUE(parse_whole(over).failed);
  EXPECT_TRUE(parse_in_pieces(over, cuts).failed);
}

TEST(RespParser, RefusesABulkStringOverTheLimitBeforeItsPayload) {
  RespLimits limits;
  limits.max_reply_bytes = 1000;
  RespParser parser(limits);
  std::string wire = "$2000\r\n" + std::string(100, 'x');
  auto step = parser.next(wire);
  EXPECT_EQ(step.event, RespEvent::Fail);
  EXPECT_EQ(parser.fail_kind(), ErrorKind::TooLarge);
  EXPECT_EQ(step.used, 7u) << "failed at the header, before the payload";
  EXPECT_NE(parser.fail_reason().find("2000 bytes is larger than the limit of 1000 bytes"),
            std::string::npos)
      << parser.fail_reason();
}

// A bulk string of `n` bytes as RESP.
std::string bulk_of(size_t n) {
  std::string wire = "$";
  wire += std::to_string(n);
  wire += "\r\n";
  wire.append(n, 'y');
  wire += "\r\n";
  return wire;
}

TEST(RespParser, TakesABulkStringJustUnderTheLimit) {
  RespLimits limits;
  limits.max_reply_bytes = 1000;
  size_t fits = 1000 - sizeof(RedisReply);
  Outcome out = parse_whole(bulk_of(fits), limits);
  EXPECT_FALSE(out.failed) << out.reason;
  EXPECT_EQ(out.replies.size(), 1u);
  EXPECT_EQ(parse_whole(bulk_of(fits + 1), limits).kind, ErrorKind::TooLarge);
}

TEST(RespParser, RefusesAnAggregateThatCannotFitFromItsCount) {
  RespLimits limits;
  limits.max_reply_bytes = 1 << 20;
  Outcome out = parse_whole("*1000000000\r\n", limits);
  ASSERT_TRUE(out.failed);
  EXPECT_EQ(out.kind, ErrorKind::TooLarge);
  EXPECT_NE(out.reason.find("1000000000 elements"), std::string::npos) << out.reason;
  // The default limit too: a map of 2^62 pairs is refused, not reserved.
  Outcome map = parse_whole("%4611686018427387904\r\n");
  EXPECT_EQ(map.kind, ErrorKind::TooLarge);
}

TEST(RespParser, CountsEveryElementAgainstTheLimit) {
  RespLimits limits;
  limits.max_reply_bytes = 100 * sizeof(RedisReply);
  std::string sixty = "*60\r\n";
  for (int i = 0; i < 60; ++i) sixty += "+x\r\n";
  // Each array fits on its own; the two of them in one reply do not.
  Outcome one = parse_whole(sixty, limits);
  EXPECT_FALSE(one.failed) << one.reason;
  Outcome two = parse_whole("*2\r\n" + sixty + sixty, limits);
  ASSERT_TRUE(two.failed);
  EXPECT_EQ(two.kind, ErrorKind::TooLarge);
  // The budget is per reply: many such replies in a row are fine.
  std::string many;
  for (int i = 0; i < 50; ++i) many += sixty;
  Outcome ok = parse_whole(many, limits);
  EXPECT_FALSE(ok.failed) << ok.reason;
  EXPECT_EQ(ok.replies.size(), 50u);
}

TEST(RespParser, BoundsHowDeepRepliesNest) {
  RespLimits limits;
  limits.max_depth = 4;
  EXPECT_FALSE(parse_whole("*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", limits).failed);
  Outcome deep = parse_whole("*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", limits);
  ASSERT_TRUE(deep.failed);
  EXPECT_EQ(deep.kind, ErrorKind::TooLarge);
  EXPECT_NE(deep.reason.find("nests deeper than the limit of 4"), std::string::npos);
  // An empty array at the fifth level is as deep as a full one.
  EXPECT_TRUE(parse_whole("*1\r\n*1\r\n*1\r\n*1\r\n*0\r\n", limits).failed);
  EXPECT_FALSE(parse_whole("*1\r\n*1\r\n*1\r\n*0\r\n", limits).failed);
  // The default limit holds against a million levels without recursion.
  std::string million;
  for (int i = 0; i < 1000000; ++i) million += "*1\r\n";
  EXPECT_EQ(parse_whole(million).kind, ErrorKind::TooLarge);
}

TEST(RespParser, RefusesAnOverlongSimpleStringAsTooLarge) {
  RespLimits limits;
  limits.max_reply_bytes = 100;
  Outcome out = parse_in_pieces("+" + std::string(500, 'a'), {50, 120, 300}, limits);
  ASSERT_TRUE(out.failed);
  EXPECT_EQ(out.kind, ErrorKind::TooLarge);
}

TEST(RespCommand, WritesArgumentsAsBinarySafeBulkStrings) {
  std::string wire;
  std::string value("a\0\r\nb", 5);
  append_command(wire, {"SET", "k", value});
  EXPECT_EQ(wire, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na\0\r\nb\r\n"s);
  std::vector<std::string> args = {"GET", ""};
  append_command(wire, args);
  EXPECT_EQ(wire.substr(31), "*2\r\n$3\r\nGET\r\n$0\r\n\r\n");
}

TEST(RespCommand, ReadsBackAsTheArrayItWrote) {
  std::string wire;
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  append_command(wire, {"ECHO", binary, ""});
  // A command is an array of bulk strings: the reply parser reads it the same.
  RedisReply r = parse_one(wire);
  ASSERT_EQ(r.elements.size(), 3u);
  EXPECT_EQ(r.elements[1].str, binary);
  EXPECT_EQ(r.elements[2].str, "");
}

}  // namespace
}  // namespace squall
