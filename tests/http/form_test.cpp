// Tests for percent-encoding and urlencoded arguments.
#include "squall/http/form.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"

namespace squall::http {
namespace {

TEST(PercentDecode, DecodesEscapesOfEitherCase) {
  EXPECT_EQ(percent_decode("a%20b%2Fc%2fd"), "a b/c/d");
  EXPECT_EQ(percent_decode("%e2%82%AC"), "\xe2\x82\xac");
  EXPECT_EQ(percent_decode("%00x"), std::string("\0x", 2));
}

TEST(PercentDecode, KeepsMalformedEscapesAsWritten) {
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
  EXPECT_EQ(percent_decode("%%41"), "%A");
}

TEST(PercentDecode, TurnsPlusIntoSpaceOnlyWhenAsked) {
  EXPECT_EQ(percent_decode("a+b"), "a+b");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("a%2Bb", true), "a+b");
}

TEST(PercentEncode, EscapesEverythingButUnreservedBytes) {
  EXPECT_EQ(percent_encode("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(percent_encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
  EXPECT_EQ(percent_encode("a b", true), "a+b");
}

TEST(ParseQuery, SplitsPairsAndDecodesBothSides) {
  Arguments args = parse_query("q=hello+world&lang=en%2DGB&x%3Dy=1%262");
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args.get("q"), "hello world");
  EXPECT_EQ(args.get("lang"), "en-GB");
  EXPECT_EQ(args.get("x=y"), "1&2");
  EXPECT_EQ(args.get("missing"), std::nullopt);
}

TEST(ParseQuery, KeepsRepeatedKeysInOrderAndGetAnswersTheLast) {
  Arguments args = parse_query("tag=a&other=1&tag=b&tag=c");
  EXPECT_EQ(args.get_all("tag"), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_EQ(args.get("tag"), "c");
  EXPECT_TRUE(args.contains("other"));
}

TEST(ParseQuery, SkipsEmptyPiecesAndTakesBareNamesAsEmptyValues) {
  Arguments args = parse_query("&&flag&empty=&=novalue&");
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args.get("flag"), "");
  EXPECT_EQ(args.get("empty"), "");
  EXPECT_EQ(args.get(""), "novalue");
  EXPECT_TRUE(parse_query("").empty());
}

TEST(ParseQuery, RefusesMoreFieldsThanTheLimit) {
  EXPECT_EQ(parse_query("a&b&c", 3).size(), 3u);
  try {
    (void)parse_query("a&b&c&d", 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TooLarge);
  }
}

TEST(Urlencode, RoundTripsThroughParseQuery) {
  Arguments args;
  args.add("name", "Ada Lovelace");
  args.add("eq", "a=b&c");
  args.add("tag", "x");
  args.add("tag", "é");
  std::string encoded = urlencode(args);
  EXPECT_EQ(encoded, "name=Ada+Lovelace&eq=a%3Db%26c&tag=x&tag=%C3%A9");
  EXPECT_EQ(parse_query(encoded), args);
}

}  // namespace
}  // namespace squall::http
