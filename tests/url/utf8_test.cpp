// Tests for squall::Utf8Validator: RFC 3629's well-formed sequences, refused at the first byte no
// valid text can continue with, however the text is split.
#include "squall/url/utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace squall {
namespace {

using namespace std::literals;

// The index of the byte at which feeding `text` one byte at a time fails, or npos.
size_t failing_byte(std::string_view text) {
  Utf8Validator v;
  for (size_t i = 0; i < text.size(); ++i)
    if (!v.feed(text.substr(i, 1))) return i;
  return std::string_view::npos;
}

TEST(Utf8Validator, AcceptsEveryWellFormedLengthAndTheEdgesOfEachRange) {
  for (std::string_view text :
       {""sv, "plain ASCII, longer than eight bytes"sv, "\x00\x7F"sv, "\xC2\x80"sv, "\xDF\xBF"sv,
        "\xE0\xA0\x80"sv, "\xED\x9F\xBF"sv, "\xEE\x80\x80"sv, "\xEF\xBF\xBF"sv,
        "\xF0\x90\x80\x80"sv, "\xF4\x8F\xBF\xBF"sv,
        "\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5"sv /* κόσμε */}) {
    SCOPED_TRACE(std::string(text));
    EXPECT_TRUE(is_valid_utf8(text));
    EXPECT_EQ(failing_byte(text), std::string_view::npos);
  }
}

TEST(Utf8Validator, RefusesAtTheFirstByteThatCannotContinue) {
  struct Case {
    std::string_view text;
    size_t fails_at;
  };
  for (const Case& c : {
           Case{"\x80"sv, 0},              // a lone continuation byte
           Case{"ab\xC0\xAF"sv, 2},        // overlong '/' (C0 and C1 never appear)
           Case{"\xC1\xBF"sv, 0},          // overlong
           Case{"\xE0\x80\xAF"sv, 1},      // overlong three-byte form
           Case{"\xED\xA0\x80"sv, 1},      // the surrogate U+D800
           Case{"\xED\xBF\xBF"sv, 1},      // the surrogate U+DFFF
           Case{"\xF0\x80\x80\xAF"sv, 1},  // overlong four-byte form
           Case{"\xF4\x90\x80\x80"sv, 1},  // U+110000
           Case{"\xF5\x80\x80\x80"sv, 0},  // beyond any code point
           Case{"\xFE"sv, 0},              // never in UTF-8
           Case{"\xCE\xBA\xE1\xBD"sv
                "x"sv,
                4},  // a character cut short by ASCII
           Case{"0123456789\xE1\xBD\xB9\xFF"sv, 13},
       }) {
    SCOPED_TRACE(testing::PrintToString(std::string(c.text)));
    EXPECT_FALSE(is_valid_utf8(c.text));
    EXPECT_EQ(failing_byte(c.text), c.fails_at);
  }
}

TEST(Utf8Validator, ValidatesCharactersSplitAcrossPiecesAndTellsAnUnfinishedEnd) {
  Utf8Validator v;
  EXPECT_TRUE(v.feed("\xCE\xBA\xE1"));
  EXPECT_FALSE(v.complete());  // inside a character
  EXPECT_TRUE(v.feed("\xBD"));
  EXPECT_TRUE(v.feed("\xB9 ok"));
  EXPECT_TRUE(v.complete());
  EXPECT_TRUE(v.feed("\xF0\x90"));
  EXPECT_FALSE(v.complete());
  EXPECT_FALSE(is_valid_utf8("\xF0\x90\x80"));
}

TEST(Utf8Validator, StaysFailedUntilReset) {
  Utf8Validator v;
  EXPECT_FALSE(v.feed("\xFF"));
  EXPECT_TRUE(v.failed());
  EXPECT_FALSE(v.feed("fine"));
  EXPECT_FALSE(v.complete());
  v.reset();
  EXPECT_TRUE(v.feed("fine"));
  EXPECT_TRUE(v.complete());
}

}  // namespace
}  // namespace squall
